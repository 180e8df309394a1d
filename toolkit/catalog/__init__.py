"""The catalog layer: every spec method declared once, its pricing rules, and the encodings.

Pure data and pure functions, no I/O: validation (`Method.bind`), RU pricing (`PricingTable`), the
billing model shared by the client and the sandbox (`billing`), and address/quantity encodings
(`toolkit.catalog.encoding`). Every other layer reads it; it imports none of them.
"""

from . import encoding
from ._billing import BILLING, REFUSED_STATUSES, Fate, FateRule, charge, fate_of_status
from ._methods import (
    BLOCK_TAGS,
    CATALOG,
    CHAINS,
    METHODS,
    RESULT_KINDS,
    SOLANA_MAX_TRANSACTION_BYTES,
    TYPED_VALUES,
    BoundCall,
    Chain,
    Method,
    Param,
    Surface,
    chain_for,
    lookup,
)
from ._pricing import (
    ARCHIVE_TAGS,
    ASSUMED,
    DEFAULT_PATTERNS,
    DEFAULT_PLANS,
    DEFAULT_PRICING,
    FULL_TAGS,
    PUBLIC,
    SPEC,
    ArchiveByBlock,
    Estimate,
    Fixed,
    Plan,
    PricingTable,
    Rule,
    block_argument,
)

__all__ = [
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
    "METHODS",
    "PUBLIC",
    "REFUSED_STATUSES",
    "RESULT_KINDS",
    "SOLANA_MAX_TRANSACTION_BYTES",
    "SPEC",
    "TYPED_VALUES",
    "ArchiveByBlock",
    "BoundCall",
    "Chain",
    "Estimate",
    "Fate",
    "FateRule",
    "Fixed",
    "Method",
    "Param",
    "Plan",
    "PricingTable",
    "Rule",
    "Surface",
    "block_argument",
    "chain_for",
    "charge",
    "encoding",
    "fate_of_status",
    "lookup",
]
