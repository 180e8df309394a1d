"""The client layer: transport, the call pipeline, the node clients, the platform and the gateway.

A call goes plan (validate, price with its reason, reserve budget) -> protocol (the request for its
surface, reading the answer) -> transport (attempts, retries, rate limit, deadline, billing).
Layers above (workloads, widgets) use the public names here, never the private modules.
"""

from .._errors import BatchRefused
from ._cache import ResponseCache
from ._chains import (
    NODE_CLASSES,
    ArbitrumNode,
    AsyncArbitrumNode,
    AsyncEvmNode,
    AsyncPolygonNode,
    AsyncSolanaNode,
    AsyncTonNode,
    AsyncTronNode,
    EvmNode,
    PolygonNode,
    SolanaNode,
    TonNode,
    TronNode,
)
from ._core import NodeSpec
from ._gateway import ENV_NODE_PREFIX, Gateway, connect, env_name, node, open_nodes
from ._identity import CallKey, canonical_params
from ._ledger import Budget, Entry, GatewayClock, Ledger, Meter
from ._log_refusals import log_range_refusal
from ._loop import lasting_loop, run_sync
from ._node import AsyncNode, Node
from ._planning import CACHE_HEAD_NOTE, HEAD_NOTE
from ._platform import AsyncPlatform, Platform, platform
from ._prepared import PreparedCall
from ._ratelimit import RateLimiter
from ._settings import Settings
from ._tapefile import parse_tape
from ._transport import CACHE_HIT, NOT_SENT, Receipt, RetryPolicy, SharedReceipt
from ._web3 import web3

__all__ = [
    "CACHE_HEAD_NOTE",
    "CACHE_HIT",
    "ENV_NODE_PREFIX",
    "HEAD_NOTE",
    "NODE_CLASSES",
    "NOT_SENT",
    "ArbitrumNode",
    "AsyncArbitrumNode",
    "AsyncEvmNode",
    "AsyncNode",
    "AsyncPlatform",
    "AsyncPolygonNode",
    "AsyncSolanaNode",
    "AsyncTonNode",
    "AsyncTronNode",
    "BatchRefused",
    "Budget",
    "CallKey",
    "Entry",
    "EvmNode",
    "Gateway",
    "GatewayClock",
    "Ledger",
    "Meter",
    "Node",
    "NodeSpec",
    "Platform",
    "PolygonNode",
    "PreparedCall",
    "RateLimiter",
    "Receipt",
    "ResponseCache",
    "RetryPolicy",
    "Settings",
    "SharedReceipt",
    "SolanaNode",
    "TonNode",
    "TronNode",
    "canonical_params",
    "connect",
    "env_name",
    "lasting_loop",
    "log_range_refusal",
    "node",
    "open_nodes",
    "parse_tape",
    "platform",
    "run_sync",
    "web3",
]
