"""Inputs that work against the embedded sandbox, so that a demo can run any method at once.

They come from the sandbox's own demo facts (`toolkit.sandbox.DEMO`, the Solana world's wallets
and blockhash, the chain heads), never from a guess, and are shaped like `ParamForm.values()`:
by the spec's parameter names, objects as nested dicts. A real gateway gets no examples.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import _encoding as enc

Examples = Callable[[str, str], dict[str, Any]]
"""(chain name, method name) -> example values for the form."""

# The sandbox's ERC-20 answers totalSupply(); any other selector reverts.
TOTAL_SUPPLY_SELECTOR = "0x" + enc.keccak256(b"totalSupply()")[:4].hex()


def sandbox_examples(sandbox: Any) -> Examples:
    """Example inputs for every catalog method against `sandbox` (a running `Sandbox`)."""

    def examples(chain: str, method: str) -> dict[str, Any]:
        from ..sandbox import DEMO

        head = sandbox.world.head(chain)
        evm, tron, ton = DEMO.evm, DEMO.tron, DEMO.ton
        pending = next(p for p in tron.proposals if p.deletable)
        by_method: dict[str, Callable[[], dict[str, Any]]] = {
            "eth_getBalance": lambda: {"address": evm.accounts["alice"]},
            "eth_getStorageAt": lambda: {"address": evm.token, "slot": "0x0"},
            "eth_call": lambda: {"call": {"to": evm.token, "data": TOTAL_SUPPLY_SELECTOR}},
            "debug_printBlock": lambda: {"number": head - 5},
            "bor_getRootHash": lambda: {"from": head - 63, "to": head},
            "simulateTransaction": lambda: _solana_transfer(sandbox),
            "wallet/getassetissuebyname": lambda: {"value": enc.utf8_to_hex(tron.unique_name)},
            "wallet/getassetissuelistbyname": lambda: {"value": tron.ambiguous_name},
            "wallet/getassetissuebyid": lambda: {"value": tron.big_supply_id},
            "wallet/gettransactioninfobyblocknum": lambda: {"num": head - 1},
            "wallet/getblockbylatestnum": lambda: {"num": 5},
            "wallet/proposaldelete": lambda: {
                "owner_address": pending.creator,
                "proposal_id": pending.id,
            },
            "web3_sha3": lambda: {"data": "0x" + b"hello".hex()},
            "api/v2/getTokenData": lambda: {"address": ton.jettons[0].address},
            "api/v2/jsonRPC": lambda: {
                "method": "unpackAddress",
                "params": {"address": ton.jettons[0].address},
            },
        }
        make = by_method.get(method)
        return make() if make else {}

    return examples


def _solana_transfer(sandbox: Any) -> dict[str, Any]:
    """Alice sends Bob 0.001 SOL; base64, as the spec recommends over the deprecated base58."""
    from solders.keypair import Keypair

    from .. import solana_tx

    demo = sandbox.world.solana_demo()
    alice = Keypair.from_seed(bytes.fromhex(demo["wallets"]["alice"]["keypair_seed"]))
    bob = demo["wallets"]["bob"]["pubkey"]
    transaction = solana_tx.transfer(alice, bob, 1_000_000, demo["recent_blockhash"])
    return {
        "transaction": transaction,
        "config": {"encoding": "base64", "innerInstructions": True},
    }
