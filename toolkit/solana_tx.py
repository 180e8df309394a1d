"""Build Solana transactions to pass to ``simulateTransaction``: small, pure, no network.

Each builder returns the wire transaction as text (base64 unless ``encoding="base58"``), a v0
transaction paid and signed by ``payer``. With ``sign=False`` the signature is left zeroed, which
``simulateTransaction`` accepts while ``sigVerify`` is false. Take the payer, recipient, mint and
(in the sandbox) a keypair and a blockhash from ``examples(gw).solana``::

    import toolkit
    from toolkit.examples import examples
    from toolkit.solana_tx import transfer

    gw = toolkit.connect()                      # the embedded sandbox
    sol = examples(gw).solana
    tx = transfer(sol.payer_keypair(), sol.recipient, 1_000_000, sol.recent_blockhash)
    gw.node("solana-mainnet", chain="solana").simulate_transaction(tx)

On a real gateway there is no keypair to sign with: build it unsigned (``sign=False``, the payer's
address for `payer`, any blockhash) and simulate it with ``replace_recent_blockhash=True``.

What each builder shows in a simulation: `transfer` logs and balance changes; `memo` a log line;
`transfer_tokens` token balance changes; `create_associated_token_account` inner instructions
(the program calls the System and Token programs); `get_account_data_size` return data.
"""

from __future__ import annotations

import base64
import struct
from collections.abc import Sequence

from solders.address_lookup_table_account import AddressLookupTableAccount
from solders.hash import Hash
from solders.instruction import AccountMeta, Instruction
from solders.keypair import Keypair
from solders.message import MessageV0
from solders.null_signer import NullSigner
from solders.pubkey import Pubkey
from solders.system_program import ID as SYSTEM_PROGRAM_ID
from solders.system_program import TransferParams
from solders.system_program import transfer as _system_transfer
from solders.token import ID as TOKEN_PROGRAM_ID
from solders.token.associated import get_associated_token_address
from solders.transaction import Transaction, VersionedTransaction

from .catalog import encoding as enc

ASSOCIATED_TOKEN_PROGRAM_ID = Pubkey.from_string("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL")
MEMO_PROGRAM_ID = Pubkey.from_string("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr")

__all__ = [
    "ASSOCIATED_TOKEN_PROGRAM_ID",
    "MEMO_PROGRAM_ID",
    "SYSTEM_PROGRAM_ID",
    "TOKEN_PROGRAM_ID",
    "associated_token_address",
    "build",
    "create_associated_token_account",
    "encode",
    "get_account_data_size",
    "memo",
    "transfer",
    "transfer_tokens",
]

# SPL Token instruction numbers.
_TRANSFER_CHECKED = 12
_GET_ACCOUNT_DATA_SIZE = 21
_CREATE_IDEMPOTENT = 1  # Associated Token Account program: create unless it already exists


def _pubkey(value: Pubkey | str) -> Pubkey:
    return value if isinstance(value, Pubkey) else Pubkey.from_string(value)


def _payer_key(payer: Keypair | Pubkey | str) -> Pubkey:
    """The payer's public key; a base58 string is accepted for unsigned transactions."""
    return payer.pubkey() if isinstance(payer, Keypair) else _pubkey(payer)


def build(
    payer: Keypair | Pubkey | str,
    instructions: Sequence[Instruction],
    recent_blockhash: str | Hash,
    *,
    sign: bool = True,
    lookup_tables: Sequence[AddressLookupTableAccount] = (),
) -> VersionedTransaction:
    """A v0 transaction of ``instructions`` paid by ``payer``.

    ``sign=True`` needs a Keypair; a bare Pubkey can only give an unsigned transaction.
    """
    if sign and not isinstance(payer, Keypair):
        raise ValueError("signing needs the payer's Keypair; pass sign=False to leave it unsigned")
    blockhash = (
        recent_blockhash
        if isinstance(recent_blockhash, Hash)
        else Hash.from_string(recent_blockhash)
    )
    payer_key = _payer_key(payer)
    message = MessageV0.try_compile(payer_key, list(instructions), list(lookup_tables), blockhash)
    signer = payer if isinstance(payer, Keypair) and sign else NullSigner(payer_key)
    return VersionedTransaction(message, [signer])


def encode(tx: VersionedTransaction | Transaction | bytes, encoding: str = "base64") -> str:
    """Wire text of a transaction: ``base64`` (recommended) or ``base58`` (the spec's default)."""
    raw = tx if isinstance(tx, bytes) else bytes(tx)
    if encoding == "base64":
        return base64.b64encode(raw).decode()
    if encoding == "base58":
        return enc.b58encode(raw)
    raise ValueError(f"encoding must be 'base64' or 'base58', got {encoding!r}")


def transfer(
    payer: Keypair | Pubkey | str,
    to: Pubkey | str,
    lamports: int,
    recent_blockhash: str | Hash,
    *,
    sign: bool = True,
    encoding: str = "base64",
) -> str:
    """Send ``lamports`` from ``payer`` to ``to`` with the System program."""
    params = TransferParams(from_pubkey=_payer_key(payer), to_pubkey=_pubkey(to), lamports=lamports)
    tx = build(payer, [_system_transfer(params)], recent_blockhash, sign=sign)
    return encode(tx, encoding)


def memo(
    payer: Keypair | Pubkey | str,
    text: str,
    recent_blockhash: str | Hash,
    *,
    sign: bool = True,
    encoding: str = "base64",
) -> str:
    """Write ``text`` with the Memo program; it logs the memo and checks the payer signed."""
    instruction = Instruction(
        MEMO_PROGRAM_ID, text.encode(), [AccountMeta(_payer_key(payer), True, False)]
    )
    return encode(build(payer, [instruction], recent_blockhash, sign=sign), encoding)


def associated_token_address(owner: Pubkey | str, mint: Pubkey | str) -> Pubkey:
    """The token account address that wallets use for ``owner``'s tokens of ``mint``."""
    return get_associated_token_address(_pubkey(owner), _pubkey(mint))


def create_associated_token_account(
    payer: Keypair | Pubkey | str,
    owner: Pubkey | str,
    mint: Pubkey | str,
    recent_blockhash: str | Hash,
    *,
    sign: bool = True,
    encoding: str = "base64",
) -> str:
    """Create ``owner``'s token account for ``mint``, paid by ``payer`` (idempotent)."""
    owner, mint = _pubkey(owner), _pubkey(mint)
    accounts = [
        AccountMeta(_payer_key(payer), True, True),
        AccountMeta(associated_token_address(owner, mint), False, True),
        AccountMeta(owner, False, False),
        AccountMeta(mint, False, False),
        AccountMeta(SYSTEM_PROGRAM_ID, False, False),
        AccountMeta(TOKEN_PROGRAM_ID, False, False),
    ]
    instruction = Instruction(ASSOCIATED_TOKEN_PROGRAM_ID, bytes([_CREATE_IDEMPOTENT]), accounts)
    return encode(build(payer, [instruction], recent_blockhash, sign=sign), encoding)


def get_account_data_size(
    payer: Keypair | Pubkey | str,
    mint: Pubkey | str,
    recent_blockhash: str | Hash,
    *,
    sign: bool = True,
    encoding: str = "base64",
) -> str:
    """Ask SPL Token how large a token account of ``mint`` is; the answer is return data
    (a little-endian u64: 165 for a plain SPL token account)."""
    instruction = Instruction(
        TOKEN_PROGRAM_ID,
        bytes([_GET_ACCOUNT_DATA_SIZE]),
        [AccountMeta(_pubkey(mint), False, False)],
    )
    return encode(build(payer, [instruction], recent_blockhash, sign=sign), encoding)


def transfer_tokens(
    owner: Keypair | Pubkey,
    mint: Pubkey | str,
    to_owner: Pubkey | str,
    amount: int,
    decimals: int,
    recent_blockhash: str | Hash,
    *,
    sign: bool = True,
    encoding: str = "base64",
) -> str:
    """Move ``amount`` base units of ``mint`` from ``owner``'s associated token account to
    ``to_owner``'s (which must exist), with SPL Token's TransferChecked. ``owner`` pays the fee."""
    owner_key, mint = _payer_key(owner), _pubkey(mint)
    accounts = [
        AccountMeta(associated_token_address(owner_key, mint), False, True),
        AccountMeta(mint, False, False),
        AccountMeta(associated_token_address(to_owner, mint), False, True),
        AccountMeta(owner_key, True, False),
    ]
    data = struct.pack("<BQB", _TRANSFER_CHECKED, amount, decimals)
    instruction = Instruction(TOKEN_PROGRAM_ID, data, accounts)
    return encode(build(owner, [instruction], recent_blockhash, sign=sign), encoding)
