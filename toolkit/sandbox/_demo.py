"""`DEMO`: the named inputs of the sandbox world that do not change with its seed.

These are not secrets and do not depend on the seed (the seed changes balances and blocks, not
who exists): EVM demo accounts and the token, TRON accounts, assets (with the ambiguous name),
proposals with their creators, and TON jettons. `Demo.to_dict()` gives plain JSON. Solana's
wallets are derived from the seed, so they are not here: ``examples(gw).solana`` has them, and
``examples(gw)`` is the way in for inputs on every chain.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..catalog import encoding as enc
from . import _evm, _ton, _tron


@dataclass(frozen=True)
class EvmDemo:
    """The same accounts and token on every EVM chain (ethereum, arbitrum, polygon, hyperliquid)."""

    accounts: Mapping[str, str]  # name -> EIP-55 address; balances move every few blocks
    token: str  # the ERC-20 contract address
    treasury: str  # its deployer, minted the supply: the other side of every Transfer
    token_name: str
    token_symbol: str
    token_decimals: int
    token_functions: tuple[str, ...]  # what eth_call answers; any other selector reverts
    token_deployed_at: Mapping[str, int]  # chain -> first block with the token's code
    chains: tuple[str, ...]


@dataclass(frozen=True)
class TronAsset:
    id: str
    name: str
    abbr: str
    total_supply: int


@dataclass(frozen=True)
class TronProposal:
    id: int
    creator: str  # base58
    creator_hex: str
    state: str  # PENDING, APPROVED, DISAPPROVED or CANCELED
    deletable: bool  # by its creator, until it expires 2-3 days of sandbox time after start


@dataclass(frozen=True)
class TronDemo:
    accounts: Mapping[str, str]  # name -> base58 address (not witnesses: cannot delete proposals)
    assets: tuple[TronAsset, ...]
    ambiguous_name: str  # more than one asset has it: by-name lookup answers an Error
    ambiguous_ids: tuple[str, ...]
    unique_name: str
    big_supply_id: str  # total_supply above 2**63
    proposals: tuple[TronProposal, ...]
    trc20_contract: str  # base58 contract of the TRC-20 transfers in blocks


@dataclass(frozen=True)
class TonJetton:
    """A jetton master: the token getTokenData describes."""

    symbol: str
    name: str
    decimals: int
    address: str  # user-friendly, bounceable
    raw: str  # 0:<hex>
    mintable: bool


@dataclass(frozen=True)
class TonDemo:
    jettons: tuple[TonJetton, ...]
    not_a_jetton: str  # a valid address with no jetton: getTokenData answers code 409


@dataclass(frozen=True)
class Demo:
    """The sandbox's named inputs: `evm`, `tron`, `ton`. For Solana's, and for inputs that work
    on a real gateway too, use ``examples(gw)`` (``from toolkit.examples import examples``)."""

    evm: EvmDemo
    tron: TronDemo
    ton: TonDemo

    @property
    def solana(self) -> Any:
        """Not here: raises, saying where Solana's demo inputs are."""
        raise AttributeError(
            "DEMO has no Solana inputs: the simulator's wallets are derived from the sandbox's "
            "seed. Take them from examples(gw).solana (from toolkit.examples import examples): "
            "payer, recipient, mint, payer_keypair(), recent_blockhash"
        )

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@functools.cache
def demo() -> Demo:
    return Demo(_evm_demo(), _tron_demo(), _ton_demo())


def _evm_demo() -> EvmDemo:
    return EvmDemo(
        accounts={name: _evm.address_of(name) for name in _evm.ACCOUNT_NAMES},
        token=_evm.token_address(),
        treasury=_evm.address_of(_evm.TREASURY),
        token_name=_evm.TOKEN_NAME,
        token_symbol=_evm.TOKEN_SYMBOL,
        token_decimals=_evm.TOKEN_DECIMALS,
        token_functions=_evm.TOKEN_FUNCTIONS,
        token_deployed_at={c: p.token_deployed_at for c, p in _evm.PROFILES.items()},
        chains=tuple(_evm.PROFILES),
    )


def _tron_demo() -> TronDemo:
    assets = tuple(
        TronAsset(_tron.asset_id(i), spec.name, spec.abbr, spec.total_supply)
        for i, spec in enumerate(_tron.ASSETS)
    )
    proposals = tuple(
        TronProposal(
            p.id,
            enc.tron_to_base58(p.creator),
            p.creator,
            p.state,
            deletable=p.state == "PENDING",
        )
        for p in _tron.PROPOSALS
    )
    return TronDemo(
        accounts={
            name: enc.tron_to_base58(_tron.tron_address(f"account/{name}"))
            for name in _tron.ACCOUNT_NAMES
        },
        assets=assets,
        ambiguous_name=_tron.AMBIGUOUS_NAME,
        ambiguous_ids=tuple(a.id for a in assets if a.name == _tron.AMBIGUOUS_NAME),
        unique_name=assets[0].name,
        big_supply_id=next(a.id for a in assets if a.total_supply > 2**63),
        proposals=proposals,
        trc20_contract=enc.tron_to_base58(_tron.tron_address("contract/SBXD")),
    )


def _ton_demo() -> TonDemo:
    jettons = []
    for spec in _ton.JETTONS:
        raw = _ton.jetton_raw_address(spec.symbol)
        friendly = enc.ton_address_variants(raw)["bounceable"]
        jettons.append(
            TonJetton(spec.symbol, spec.name, spec.decimals, friendly, raw, spec.mintable)
        )
    not_a_jetton = enc.ton_address_variants("0:" + "5a" * 32)["bounceable"]
    return TonDemo(tuple(jettons), not_a_jetton)
