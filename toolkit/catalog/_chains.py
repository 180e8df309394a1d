"""Chain profiles: each chain's family, JSON-RPC path, units, finality depth and head source."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._errors import ValidationError
from ._kinds import _is_integer, _shown
from ._model import BoundCall, Method
from ._results import _RESULT_QUANTITY
from ._table import METHODS


@dataclass(frozen=True)
class HeadSource:
    """How a chain's head is read: one catalog call, and where the number is in its answer."""

    method: str
    arguments: Mapping[str, Any]
    path: tuple[str | int, ...] = ()  # keys and indexes into the answer; () = the answer itself

    def read(self, result: Any) -> int:
        """The head number in `result`; ValueError naming what was found when it is not there."""
        value = result
        try:
            for key in self.path:
                value = value[key]
        except (KeyError, IndexError, TypeError):
            raise ValueError(f"no head number in the answer: {_shown(result)}") from None
        if isinstance(value, str) and _RESULT_QUANTITY.fullmatch(value):
            return int(value, 16)
        if _is_integer(value) and value >= 0:
            return int(value)
        raise ValueError(f"the head is not a hex quantity or a number: {_shown(value)}")

    def matches(self, bound: BoundCall) -> bool:
        """True when `bound` is this very call (its answer is the head)."""
        return bound.method.name == self.method and bound.arguments == dict(self.arguments)


_EVM_HEAD = HeadSource("eth_blockNumber", {})


@dataclass(frozen=True)
class Chain:
    """A chain profile: its family, where JSON-RPC is served, its units and finality depth, and
    where its head comes from (`head`; None: not tracked)."""

    name: str
    family: str  # evm, solana, tron, ton, platform
    rpc_path: str = ""
    unit: str = ""
    decimals: int = 0
    finality_depth: int = 0  # blocks after which an answer cannot change (for the cache)
    block_time_s: float = 0.0
    chain_id: int | None = None  # EIP-155 chain id (EVM chains)
    head: HeadSource | None = None

    @property
    def methods(self) -> tuple[Method, ...]:
        return tuple(m for m in METHODS if self.name in m.chains)


CHAINS: dict[str, Chain] = {
    c.name: c
    for c in (
        Chain("ethereum", "evm", "", "ETH", 18, 96, 12, chain_id=1, head=_EVM_HEAD),
        Chain("arbitrum", "evm", "", "ETH", 18, 4800, 0.25, chain_id=42161, head=_EVM_HEAD),
        Chain("polygon", "evm", "", "POL", 18, 256, 2, chain_id=137, head=_EVM_HEAD),
        Chain(
            "hyperliquid",
            "evm",
            rpc_path="/evm",
            unit="HYPE",
            decimals=18,
            finality_depth=32,
            block_time_s=1,
            chain_id=999,
            head=_EVM_HEAD,
        ),
        Chain("solana", "solana", unit="SOL", decimals=9, finality_depth=32, block_time_s=0.4),
        Chain(
            "tron",
            "tron",
            unit="TRX",
            decimals=6,
            finality_depth=20,
            block_time_s=3,
            head=HeadSource(
                "wallet/getblockbylatestnum",
                {"num": 1},
                ("block", 0, "block_header", "raw_data", "number"),
            ),
        ),
        Chain(
            "ton",
            "ton",
            unit="TON",
            decimals=9,
            finality_depth=1,
            block_time_s=5,
            head=HeadSource("api/v2/getMasterchainInfo", {}, ("last", "seqno")),
        ),
        Chain("platform", "platform"),
    )
}

# Protocol labels the platform API may use, mapped to chain profiles.
_ALIASES = {
    "eth": "ethereum",
    "arbitrum-one": "arbitrum",
    "arb": "arbitrum",
    "polygon-pos": "polygon",
    "matic": "polygon",
    "hyperliquid-evm": "hyperliquid",
    "hyperevm": "hyperliquid",
    "sol": "solana",
    "trx": "tron",
}


def chain_for(label: str) -> Chain:
    """The chain profile for a protocol label or node name (``polygon-mainnet`` -> polygon)."""
    if not isinstance(label, str):
        raise ValidationError(
            f"must be a chain name like 'ethereum', got {type(label).__name__} {_shown(label)}",
            param="chain",
            rule="type",
        )
    text = label.strip().lower()
    for candidate in (text, _ALIASES.get(text, ""), text.split("-")[0], text.split(" ")[0]):
        key = _ALIASES.get(candidate, candidate)
        if key in CHAINS:
            return CHAINS[key]
    raise ValidationError(
        f"unknown chain {label!r}; known: {', '.join(c for c in CHAINS if c != 'platform')}",
        param="chain",
        rule="chain",
    )
