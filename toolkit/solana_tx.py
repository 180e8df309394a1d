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

Pure Python (Ed25519 from pycryptodome, which Pyodide ships), so it works in a browser tab too.
The bytes are solders' (`MessageV0.try_compile`, `VersionedTransaction`) byte for byte, which
the tests check against solders itself. Addresses and blockhashes are base58 text; solders'
`Pubkey`, `Hash`, `Keypair`, `Instruction`, `AccountMeta` and `AddressLookupTableAccount` are
accepted wherever these take theirs.
"""

from __future__ import annotations

import base64
import hashlib
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .catalog import encoding as enc

SYSTEM_PROGRAM_ID = "11111111111111111111111111111111"
TOKEN_PROGRAM_ID = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"
ASSOCIATED_TOKEN_PROGRAM_ID = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL"
MEMO_PROGRAM_ID = "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr"

__all__ = [
    "ASSOCIATED_TOKEN_PROGRAM_ID",
    "MEMO_PROGRAM_ID",
    "SYSTEM_PROGRAM_ID",
    "TOKEN_PROGRAM_ID",
    "AccountMeta",
    "AddressLookupTableAccount",
    "Instruction",
    "Keypair",
    "account_keys",
    "associated_token_address",
    "build",
    "create_associated_token_account",
    "encode",
    "find_program_address",
    "get_account_data_size",
    "memo",
    "transfer",
    "transfer_tokens",
]

# SPL Token instruction numbers.
_TRANSFER_CHECKED = 12
_GET_ACCOUNT_DATA_SIZE = 21
_CREATE_IDEMPOTENT = 1  # Associated Token Account program: create unless it already exists
_SYSTEM_TRANSFER = 2
_V0_PREFIX = 0x80  # the first message byte of a versioned message, version 0
_SIGNATURE_SIZE = 64


class Keypair:
    """An Ed25519 keypair made from a 32-byte seed (as solders' ``Keypair.from_seed``).

    Its repr shows the public key only."""

    def __init__(self, seed: bytes):
        from Crypto.Signature import eddsa

        if not isinstance(seed, bytes | bytearray) or len(seed) != 32:
            raise ValueError("a keypair's seed must be 32 bytes")
        self._key = eddsa.import_private_key(bytes(seed))
        # SubjectPublicKeyInfo ends with the raw 32-byte key (every pycryptodome with EdDSA).
        self._public = self._key.public_key().export_key(format="DER")[-32:]

    @classmethod
    def from_seed(cls, seed: bytes) -> Keypair:
        return cls(seed)

    def pubkey(self) -> str:
        """The public key: the account's address, base58."""
        return enc.b58encode(self._public)

    def sign_message(self, message: bytes) -> bytes:
        from Crypto.Signature import eddsa

        return eddsa.new(self._key, "rfc8032").sign(message)

    def __repr__(self) -> str:
        return f"<Keypair {self.pubkey()}>"


@dataclass(frozen=True)
class AccountMeta:
    pubkey: Any  # an address: base58 text, 32 bytes, or a solders Pubkey
    is_signer: bool
    is_writable: bool


@dataclass(frozen=True)
class Instruction:
    """One instruction, in solders' argument order: ``Instruction(program_id, data, accounts)``."""

    program_id: Any
    data: bytes
    accounts: Sequence[AccountMeta] = ()


@dataclass(frozen=True)
class AddressLookupTableAccount:
    """An address lookup table's address and contents, for v0 messages that load from it."""

    key: Any
    addresses: Sequence[Any] = field(default_factory=tuple)


def _key(value: Any, param: str = "address") -> bytes:
    """32 bytes of an address given as base58 text, bytes, a Pubkey or a keypair."""
    if isinstance(value, bytes | bytearray):
        raw = bytes(value)
    else:
        if callable(getattr(value, "pubkey", None)):  # a Keypair (ours or solders')
            value = value.pubkey()
        try:
            raw = enc.b58decode(str(value), max_chars=64)
        except ValueError as error:
            raise ValueError(f"{param} must be a base58 address: {error}") from None
    if len(raw) != 32:
        raise ValueError(f"{param} must be 32 bytes (base58 of 32 bytes), got {len(raw)}")
    return raw


def _is_signer(payer: Any) -> bool:
    return callable(getattr(payer, "sign_message", None)) and callable(
        getattr(payer, "pubkey", None)
    )


def _shortvec(length: int) -> bytes:
    """Solana's compact-u16: seven bits a byte, low bits first."""
    out = bytearray()
    while True:
        byte, length = length & 0x7F, length >> 7
        out.append(byte | (0x80 if length else 0))
        if not length:
            return bytes(out)


def _read_shortvec(raw: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = raw[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, at
        shift += 7


def _index(keys: list[bytes], key: bytes) -> int:
    position = keys.index(key)
    if position > 255:
        raise ValueError("a transaction can name at most 256 accounts")
    return position


def _compile_v0(
    payer: bytes, instructions: Sequence[Any], blockhash: bytes, lookup_tables: Sequence[Any]
) -> tuple[bytes, int]:
    """The v0 message's bytes and how many signatures it needs, as `MessageV0.try_compile`
    orders them: the payer, then signers and non-signers, writable before read-only, each
    group sorted by the keys' bytes; keys a lookup table holds are loaded from it."""
    metas: dict[bytes, list[bool]] = {}  # key -> [is_signer, is_writable, is_invoked]
    for instruction in instructions:
        metas.setdefault(_key(instruction.program_id, "program_id"), [False, False, False])[2] = (
            True
        )
        for account in instruction.accounts:
            meta = metas.setdefault(_key(account.pubkey, "account"), [False, False, False])
            meta[0] |= bool(account.is_signer)
            meta[1] |= bool(account.is_writable)
    metas.pop(payer, None)
    lookups = bytearray()
    loaded_writable: list[bytes] = []
    loaded_readonly: list[bytes] = []
    table_count = 0
    for table in lookup_tables:
        addresses = [_key(a, "lookup table address") for a in table.addresses]
        found: list[list[int]] = [[], []]
        for writable, indexes, loaded in (
            (True, found[0], loaded_writable),
            (False, found[1], loaded_readonly),
        ):
            for key in sorted(metas):
                signer, is_writable, invoked = metas[key]
                if signer or invoked or is_writable != writable or key not in addresses:
                    continue
                indexes.append(addresses.index(key))
                loaded.append(key)
                del metas[key]
        if found[0] or found[1]:
            table_count += 1
            lookups += _key(table.key, "lookup table")
            for indexes in found:
                lookups += _shortvec(len(indexes)) + bytes(indexes)
    ordered = sorted(metas)
    groups = [
        [payer, *(k for k in ordered if metas[k][0] and metas[k][1])],
        [k for k in ordered if metas[k][0] and not metas[k][1]],
        [k for k in ordered if not metas[k][0] and metas[k][1]],
        [k for k in ordered if not metas[k][0] and not metas[k][1]],
    ]
    static = [key for group in groups for key in group]
    keys = static + loaded_writable + loaded_readonly
    signatures = len(groups[0]) + len(groups[1])
    message = bytearray([_V0_PREFIX, signatures, len(groups[1]), len(groups[3])])
    message += _shortvec(len(static)) + b"".join(static) + blockhash
    message += _shortvec(len(instructions))
    for instruction in instructions:
        accounts = bytes(_index(keys, _key(a.pubkey)) for a in instruction.accounts)
        data = bytes(instruction.data)
        message.append(_index(keys, _key(instruction.program_id)))
        message += _shortvec(len(accounts)) + accounts + _shortvec(len(data)) + data
    message += _shortvec(table_count) + lookups
    return bytes(message), signatures


def build(
    payer: Any,
    instructions: Sequence[Any],
    recent_blockhash: Any,
    *,
    sign: bool = True,
    lookup_tables: Sequence[Any] = (),
) -> bytes:
    """The wire bytes of a v0 transaction of ``instructions`` paid by ``payer``.

    ``sign=True`` needs a `Keypair` (or solders'); an address can only give an unsigned
    transaction, its signatures zeroed. The payer must be the one signer.
    """
    if sign and not _is_signer(payer):
        raise ValueError("signing needs the payer's Keypair; pass sign=False to leave it unsigned")
    blockhash = _key(recent_blockhash, "recent_blockhash")
    message, signatures = _compile_v0(_key(payer, "payer"), instructions, blockhash, lookup_tables)
    if sign and signatures > 1:
        raise ValueError(
            f"the instructions need {signatures} signers and only the payer signs here; "
            "pass sign=False"
        )
    first = bytes(payer.sign_message(message)) if sign else bytes(_SIGNATURE_SIZE)
    rest = bytes(_SIGNATURE_SIZE * (signatures - 1))
    return _shortvec(signatures) + first + rest + message


def encode(tx: Any, encoding: str = "base64") -> str:
    """Wire text of a transaction: ``base64`` (recommended) or ``base58`` (the spec's default).
    `tx` is its bytes or a solders transaction."""
    raw = tx if isinstance(tx, bytes) else bytes(tx)
    if encoding == "base64":
        return base64.b64encode(raw).decode()
    if encoding == "base58":
        return enc.b58encode(raw)
    raise ValueError(f"encoding must be 'base64' or 'base58', got {encoding!r}")


def account_keys(transaction: str | bytes, encoding: str = "base64") -> list[str]:
    """The static account keys of a wire transaction, in its message's order: the order of a
    simulation's ``preBalances`` and ``postBalances`` (keys loaded from lookup tables follow
    them there)."""
    if isinstance(transaction, bytes):
        raw = transaction
    elif encoding == "base64":
        raw = base64.b64decode(transaction, validate=True)
    elif encoding == "base58":
        raw = enc.b58decode(transaction, max_chars=len(transaction))
    else:
        raise ValueError(f"encoding must be 'base64' or 'base58', got {encoding!r}")
    try:
        count, at = _read_shortvec(raw, 0)
        at += count * _SIGNATURE_SIZE
        at += (1 if raw[at] & 0x80 else 0) + 3  # the version prefix, then the header
        count, at = _read_shortvec(raw, at)
        keys = [raw[at + 32 * i : at + 32 * (i + 1)] for i in range(count)]
    except IndexError:
        raise ValueError("transaction: not a whole Solana transaction") from None
    if any(len(key) != 32 for key in keys):
        raise ValueError("transaction: not a whole Solana transaction")
    return [enc.b58encode(key) for key in keys]


def _on_curve(candidate: bytes) -> bool:
    from Crypto.Signature import eddsa

    try:
        eddsa.import_public_key(candidate)
    except ValueError:
        return False
    return True


def find_program_address(seeds: Iterable[bytes], program_id: Any) -> tuple[str, int]:
    """The program-derived address of `seeds` for `program_id`, and its bump seed: the first
    bump from 255 down whose hash is off the Ed25519 curve (no private key can sign for it)."""
    program = _key(program_id, "program_id")
    prefix = b"".join(bytes(seed) for seed in seeds)
    for bump in range(255, -1, -1):
        candidate = hashlib.sha256(
            prefix + bytes([bump]) + program + b"ProgramDerivedAddress"
        ).digest()
        if not _on_curve(candidate):
            return enc.b58encode(candidate), bump
    raise ValueError("no program address found for these seeds")


def associated_token_address(owner: Any, mint: Any) -> str:
    """The token account address that wallets use for ``owner``'s tokens of ``mint``."""
    seeds = (_key(owner, "owner"), _key(TOKEN_PROGRAM_ID), _key(mint, "mint"))
    return find_program_address(seeds, ASSOCIATED_TOKEN_PROGRAM_ID)[0]


def transfer(
    payer: Any,
    to: Any,
    lamports: int,
    recent_blockhash: Any,
    *,
    sign: bool = True,
    encoding: str = "base64",
) -> str:
    """Send ``lamports`` from ``payer`` to ``to`` with the System program."""
    accounts = [
        AccountMeta(_key(payer, "payer"), True, True),
        AccountMeta(_key(to, "to"), False, True),
    ]
    data = struct.pack("<IQ", _SYSTEM_TRANSFER, lamports)
    instruction = Instruction(SYSTEM_PROGRAM_ID, data, accounts)
    return encode(build(payer, [instruction], recent_blockhash, sign=sign), encoding)


def memo(
    payer: Any,
    text: str,
    recent_blockhash: Any,
    *,
    sign: bool = True,
    encoding: str = "base64",
) -> str:
    """Write ``text`` with the Memo program; it logs the memo and checks the payer signed."""
    instruction = Instruction(
        MEMO_PROGRAM_ID, text.encode(), [AccountMeta(_key(payer, "payer"), True, False)]
    )
    return encode(build(payer, [instruction], recent_blockhash, sign=sign), encoding)


def create_associated_token_account(
    payer: Any,
    owner: Any,
    mint: Any,
    recent_blockhash: Any,
    *,
    sign: bool = True,
    encoding: str = "base64",
) -> str:
    """Create ``owner``'s token account for ``mint``, paid by ``payer`` (idempotent)."""
    accounts = [
        AccountMeta(_key(payer, "payer"), True, True),
        AccountMeta(associated_token_address(owner, mint), False, True),
        AccountMeta(_key(owner, "owner"), False, False),
        AccountMeta(_key(mint, "mint"), False, False),
        AccountMeta(SYSTEM_PROGRAM_ID, False, False),
        AccountMeta(TOKEN_PROGRAM_ID, False, False),
    ]
    instruction = Instruction(ASSOCIATED_TOKEN_PROGRAM_ID, bytes([_CREATE_IDEMPOTENT]), accounts)
    return encode(build(payer, [instruction], recent_blockhash, sign=sign), encoding)


def get_account_data_size(
    payer: Any,
    mint: Any,
    recent_blockhash: Any,
    *,
    sign: bool = True,
    encoding: str = "base64",
) -> str:
    """Ask SPL Token how large a token account of ``mint`` is; the answer is return data
    (a little-endian u64: 165 for a plain SPL token account)."""
    instruction = Instruction(
        TOKEN_PROGRAM_ID,
        bytes([_GET_ACCOUNT_DATA_SIZE]),
        [AccountMeta(_key(mint, "mint"), False, False)],
    )
    return encode(build(payer, [instruction], recent_blockhash, sign=sign), encoding)


def transfer_tokens(
    owner: Any,
    mint: Any,
    to_owner: Any,
    amount: int,
    decimals: int,
    recent_blockhash: Any,
    *,
    sign: bool = True,
    encoding: str = "base64",
) -> str:
    """Move ``amount`` base units of ``mint`` from ``owner``'s associated token account to
    ``to_owner``'s (which must exist), with SPL Token's TransferChecked. ``owner`` pays the fee."""
    accounts = [
        AccountMeta(associated_token_address(owner, mint), False, True),
        AccountMeta(_key(mint, "mint"), False, False),
        AccountMeta(associated_token_address(to_owner, mint), False, True),
        AccountMeta(_key(owner, "owner"), True, False),
    ]
    data = struct.pack("<BQB", _TRANSFER_CHECKED, amount, decimals)
    instruction = Instruction(TOKEN_PROGRAM_ID, data, accounts)
    return encode(build(owner, [instruction], recent_blockhash, sign=sign), encoding)
