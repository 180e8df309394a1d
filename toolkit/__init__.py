"""node-gateway-toolkit: a Jupyter toolkit for a hosted blockchain node gateway.

    import toolkit
    from toolkit.examples import examples

    gw = toolkit.connect()                      # the embedded sandbox, no key needed
    ex = examples(gw)                           # inputs for every chain, Solana's too
    eth = gw.node("ethereum-mainnet")
    eth.get_balance(ex.evm.token_holder, block="latest")   # `await eth.aio.get_balance(...)`
    gw.ledger.frame                             # what was spent, in RU

Heavy parts load on first use: `toolkit.frames`, `toolkit.plots`, `toolkit.widgets`,
`toolkit.sandbox`, `toolkit.solana_tx`, `toolkit.workloads` (`Workload` and its kin),
`toolkit.reports` (`say`), and httpx (when a client is first made), so that ``import toolkit``
stays fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._browser import in_browser
from ._errors import (
    AmbiguousAssetName,
    AuthenticationError,
    BatchRefused,
    BudgetExceeded,
    DatasetBusy,
    DatasetError,
    GatewayError,
    HTTPStatusError,
    LogRangeRefused,
    MalformedResponse,
    NeedsCPython,
    PlatformError,
    QuotaExceeded,
    RateLimited,
    ResponseError,
    RPCError,
    RunStopped,
    TapeError,
    TapeMiss,
    Timeout,
    TonError,
    TransportError,
    TronError,
    ValidationError,
    WorkerFailed,
)
from ._redact import scrub_logging
from ._version import __version__
from .catalog import (
    CATALOG,
    CHAINS,
    DEFAULT_PRICING,
    METHODS,
    ArchiveByBlock,
    BoundCall,
    Chain,
    Estimate,
    Fixed,
    Method,
    Param,
    Plan,
    PricingTable,
    lookup,
)
from .catalog.encoding import (
    to_checksum_address,
    ton_address_variants,
    tron_to_base58,
    tron_to_hex,
)
from .client import (
    ArbitrumNode,
    AsyncArbitrumNode,
    AsyncEvmNode,
    AsyncNode,
    AsyncPlatform,
    AsyncPolygonNode,
    AsyncSolanaNode,
    AsyncTonNode,
    AsyncTronNode,
    Budget,
    Entry,
    EvmNode,
    Gateway,
    Ledger,
    Meter,
    Node,
    Platform,
    PolygonNode,
    PreparedCall,
    RateLimiter,
    ResponseCache,
    RetryPolicy,
    Settings,
    SolanaNode,
    TonNode,
    TronNode,
    connect,
    node,
    platform,
    web3,
)

if TYPE_CHECKING:
    from .frames import read_parquet, to_parquet
    from .reports import say
    from .workloads import (
        Preview,
        Provenance,
        Workload,
        compact_dataset,
        provenance,
        read_dataset,
    )

_LAZY_MODULES = (
    "frames",
    "plots",
    "widgets",
    "sandbox",
    "solana_tx",
    "examples",
    "workloads",
    "reports",
)
# Names loaded on first use, from the module that holds them: the frames' functions load pandas
# (and pyarrow); the workloads are a rarer need than a node's calls, and heavy to import.
_LAZY_NAMES = {
    "to_parquet": "frames",
    "read_parquet": "frames",
    **dict.fromkeys(
        ("Preview", "Provenance", "Workload", "compact_dataset", "provenance", "read_dataset"),
        "workloads",
    ),
    "say": "reports",
}


# Old names kept one release (DeprecationWarning): `ton_address_forms` gave a dict while
# `frames.ton_address_forms` gives a DataFrame of a detectAddress answer.
_RENAMED = {"ton_address_forms": "ton_address_variants"}


def __getattr__(name: str) -> Any:
    # Submodules that import pandas, matplotlib or ipywidgets load on first use.
    if name in _LAZY_MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _LAZY_NAMES:
        return getattr(importlib.import_module(f"{__name__}.{_LAZY_NAMES[name]}"), name)
    from ._renamed import renamed_attribute

    return renamed_attribute(__name__, _RENAMED, globals(), name)


def __dir__() -> list[str]:
    # What completion and `dir()` offer: the public names, the ones loaded on first use
    # included, and not this module's own imports (`Any`, `importlib`) nor private modules.
    return sorted({*__all__, *_LAZY_MODULES, "catalog", "client"})


__all__ = [
    "CATALOG",
    "CHAINS",
    "DEFAULT_PRICING",
    "METHODS",
    "AmbiguousAssetName",
    "ArbitrumNode",
    "ArchiveByBlock",
    "AsyncArbitrumNode",
    "AsyncEvmNode",
    "AsyncNode",
    "AsyncPlatform",
    "AsyncPolygonNode",
    "AsyncSolanaNode",
    "AsyncTonNode",
    "AsyncTronNode",
    "AuthenticationError",
    "BatchRefused",
    "BoundCall",
    "Budget",
    "BudgetExceeded",
    "Chain",
    "DatasetBusy",
    "DatasetError",
    "Entry",
    "Estimate",
    "EvmNode",
    "Fixed",
    "Gateway",
    "GatewayError",
    "HTTPStatusError",
    "Ledger",
    "LogRangeRefused",
    "MalformedResponse",
    "Meter",
    "Method",
    "NeedsCPython",
    "Node",
    "Param",
    "Plan",
    "Platform",
    "PlatformError",
    "PolygonNode",
    "PreparedCall",
    "Preview",
    "PricingTable",
    "Provenance",
    "QuotaExceeded",
    "RPCError",
    "RateLimited",
    "RateLimiter",
    "ResponseCache",
    "ResponseError",
    "RetryPolicy",
    "RunStopped",
    "Settings",
    "SolanaNode",
    "TapeError",
    "TapeMiss",
    "Timeout",
    "TonError",
    "TonNode",
    "TransportError",
    "TronError",
    "TronNode",
    "ValidationError",
    "WorkerFailed",
    "Workload",
    "__version__",
    "compact_dataset",
    "connect",
    "in_browser",
    "lookup",
    "node",
    "platform",
    "provenance",
    "read_dataset",
    "read_parquet",
    "say",
    "scrub_logging",
    "to_checksum_address",
    "to_parquet",
    "ton_address_variants",
    "tron_to_base58",
    "tron_to_hex",
    "web3",
]
