"""The catalog layer: every spec method declared once, its pricing rules, and the encodings.

Pure data and pure functions, no I/O: validation (`Method.bind`), RU pricing (`PricingTable`), the
billing model shared by the client and the sandbox (`billing`), address/quantity encodings
(`toolkit.catalog.encoding`) and a small Solidity ABI codec (`toolkit.catalog.abi`). Every other
layer reads it; it imports none of them.
"""

from . import abi, encoding
from ._billing import (
    BILLING,
    MAYBE_STATUSES,
    REFUSED_STATUSES,
    Fate,
    FateRule,
    charge,
    fate_of_status,
)
from ._bounds import BLOCK_TAGS, MAX_LOG_RANGE, SOLANA_MAX_TRANSACTION_BYTES
from ._chains import CHAINS, Chain, HeadSource, chain_for
from ._inputs import REQUIRED, Arg
from ._kinds import Param
from ._lookup import CATALOG, key_json, key_params, lookup
from ._model import ALWAYS, BoundCall, Method, Surface
from ._pricer import Pricer
from ._pricing import (
    ARCHIVE_TAGS,
    ASSUMED,
    DEFAULT_PATTERNS,
    DEFAULT_PLANS,
    DEFAULT_PRICING,
    FULL_TAGS,
    PUBLIC,
    SPEC,
    STATUS_COSTS,
    ArchiveByBlock,
    ByInnerMethod,
    Estimate,
    Fixed,
    Plan,
    PricingTable,
    Rule,
    block_argument,
    is_block_hash,
)
from ._results import RESULT_KINDS, TYPED_VALUES
from ._table import METHODS

__all__ = [
    "ALWAYS",
    "ARCHIVE_TAGS",
    "ASSUMED",
    "BILLING",
    "BLOCK_TAGS",
    "CATALOG",
    "CHAINS",
    "DEFAULT_PATTERNS",
    "DEFAULT_PLANS",
    "DEFAULT_PRICING",
    "FULL_TAGS",
    "MAX_LOG_RANGE",
    "MAYBE_STATUSES",
    "METHODS",
    "PUBLIC",
    "REFUSED_STATUSES",
    "REQUIRED",
    "RESULT_KINDS",
    "SOLANA_MAX_TRANSACTION_BYTES",
    "SPEC",
    "STATUS_COSTS",
    "TYPED_VALUES",
    "ArchiveByBlock",
    "Arg",
    "BoundCall",
    "ByInnerMethod",
    "Chain",
    "Estimate",
    "Fate",
    "FateRule",
    "Fixed",
    "HeadSource",
    "Method",
    "Param",
    "Plan",
    "Pricer",
    "PricingTable",
    "Rule",
    "Surface",
    "abi",
    "block_argument",
    "chain_for",
    "charge",
    "encoding",
    "fate_of_status",
    "is_block_hash",
    "key_json",
    "key_params",
    "lookup",
]
