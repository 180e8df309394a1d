"""The Solana demo world's public facts, derived without LiteSVM (so without solders).

Every key of the sandbox's Solana world derives from the seed (SHA-256 of ``"<seed>|<name>"`` is
a keypair's seed), and its token accounts are associated token addresses: pure arithmetic, which
`toolkit.solana_tx` does in Python. So `examples(gw)` can give a notebook its wallets, mint and
blockhash where solders has no build (a browser tab); `SolanaWorld` (LiteSVM) builds the same
world from these names and answers the same facts (tests/sandbox check both agree).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import cache
from typing import Any

from .. import solana_tx
from ..catalog import encoding as enc

API_VERSION = "2.3.0"  # the sandbox's stand-in for the Agave version a real node reports
MAX_PROCESSING_AGE = 150  # blocks a blockhash stays valid for, as on mainnet
LAMPORTS_PER_SOL = 1_000_000_000
# LiteSVM's genesis: its first slot, and its first blockhash (SHA-256 of b"genesis").
GENESIS_SLOT = 435_888_000
GENESIS_BLOCKHASH = enc.b58encode(hashlib.sha256(b"genesis").digest())
SLOT_SECONDS = 0.4  # mainnet's target slot time, used when a wall clock drives the slot

WALLET_LAMPORTS = {
    "alice": 100 * LAMPORTS_PER_SOL,
    "bob": 25 * LAMPORTS_PER_SOL,
    "carol": LAMPORTS_PER_SOL,
}
TOKEN_DECIMALS = 6
TOKEN_HOLDINGS = {"alice": 750_000 * 10**TOKEN_DECIMALS, "bob": 250_000 * 10**TOKEN_DECIMALS}

TOKEN_2022_PROGRAM_ID = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb"
LOOKUP_TABLE_PROGRAM_ID = "AddressLookupTab1e1111111111111111111111111"
PROGRAMS = {
    "system": solana_tx.SYSTEM_PROGRAM_ID,
    "token": solana_tx.TOKEN_PROGRAM_ID,
    "token_2022": TOKEN_2022_PROGRAM_ID,
    "associated_token": solana_tx.ASSOCIATED_TOKEN_PROGRAM_ID,
    "memo": solana_tx.MEMO_PROGRAM_ID,
    "address_lookup_table": LOOKUP_TABLE_PROGRAM_ID,
}


class SlotClock:
    """The slot a simulation answers at, the same with LiteSVM as from recordings: one more per
    call with no `clock` (reproducible answers), else following `clock` (seconds) at 400 ms a
    slot from `genesis`; never going back."""

    def __init__(self, clock: Callable[[], float] | None, genesis: int = GENESIS_SLOT):
        self._clock = clock
        self._start = clock() if clock else 0.0
        self._genesis = genesis
        self.slot = genesis

    def advance(self) -> int:
        if self._clock is None:
            self.slot += 1
        else:
            elapsed = self._clock() - self._start
            self.slot = max(self.slot, self._genesis + int(elapsed / SLOT_SECONDS))
        return self.slot


def keypair_seed(seed: int, name: str) -> bytes:
    """The 32-byte keypair seed of the demo account `name` in the world of `seed`."""
    return hashlib.sha256(f"{seed}|{name}".encode()).digest()


@cache
def _addresses(seed: int) -> dict[str, Any]:
    wallets = {
        name: solana_tx.Keypair.from_seed(keypair_seed(seed, name)).pubkey()
        for name in WALLET_LAMPORTS
    }
    mint = solana_tx.Keypair.from_seed(keypair_seed(seed, "mint")).pubkey()
    token_accounts = {
        name: solana_tx.associated_token_address(wallets[name], mint) for name in TOKEN_HOLDINGS
    }
    return {
        "wallets": wallets,
        "mint": mint,
        "token_accounts": token_accounts,
        "lookup_table": solana_tx.Keypair.from_seed(keypair_seed(seed, "lookup-table")).pubkey(),
        "lookup_table_addresses": [
            wallets["bob"],
            wallets["carol"],
            mint,
            *token_accounts.values(),
        ],
    }


def demo_facts(
    seed: int, *, slot: int = GENESIS_SLOT, blockhash: str = GENESIS_BLOCKHASH
) -> dict[str, Any]:
    """The public demo facts: who holds what, and a blockhash to build transactions with.

    Keypair seeds are demo values, not secrets: ``solana_tx.Keypair.from_seed(bytes.fromhex(
    seed))`` rebuilds a wallet so that a notebook can sign as it. `slot` and `blockhash` are the
    world's current ones (its genesis until LiteSVM has run)."""
    known = _addresses(seed)
    authority = known["wallets"]["alice"]
    return {
        "wallets": {
            name: {
                "pubkey": pubkey,
                "keypair_seed": keypair_seed(seed, name).hex(),
                "lamports": WALLET_LAMPORTS[name],
            }
            for name, pubkey in known["wallets"].items()
        },
        "mint": {
            "address": known["mint"],
            "decimals": TOKEN_DECIMALS,
            "supply": sum(TOKEN_HOLDINGS.values()),
            "authority": authority,
        },
        "token_accounts": {
            name: {"address": address, "owner": name, "amount": TOKEN_HOLDINGS[name]}
            for name, address in known["token_accounts"].items()
        },
        "lookup_table": {
            "address": known["lookup_table"],
            "addresses": list(known["lookup_table_addresses"]),
        },
        "programs": dict(PROGRAMS),
        "recent_blockhash": blockhash,
        "last_valid_block_height": slot + MAX_PROCESSING_AGE,
        "slot": slot,
    }
