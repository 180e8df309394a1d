"""Solana for real in the sandbox: a LiteSVM world that answers ``simulateTransaction``.

LiteSVM (shipped inside solders) is the Solana runtime in process: real programs run, so logs,
compute units, fees, inner instructions and return data are the runtime's own. This module adds
what a node's RPC layer adds around it: decoding, signature checks, blockhash replacement, the
slot, balances before and after, and the JSON shape real nodes answer with.

Nothing here changes the world's state: simulations never commit. The world holds three funded
wallets (alice, bob, carol), an SPL token mint with token accounts for alice and bob, an address
lookup table, and LiteSVM's bundled programs (SPL Token, Token-2022, Associated Token Account,
Memo, Address Lookup Table). Every key derives from the seed, so the same seed gives the same
world and the same answers byte for byte.
"""

from __future__ import annotations

import base64
import json
import struct
import threading
from collections.abc import Callable, Iterable
from typing import Any

from solders.account import Account
from solders.address_lookup_table_account import ID as LOOKUP_TABLE_PROGRAM_ID
from solders.address_lookup_table_account import AddressLookupTable
from solders.hash import Hash
from solders.keypair import Keypair
from solders.litesvm import LiteSVM
from solders.message import Message, MessageV0
from solders.pubkey import Pubkey
from solders.rpc.responses import RpcSimulateTransactionResult
from solders.system_program import ID as SYSTEM_PROGRAM_ID
from solders.token import ID as TOKEN_PROGRAM_ID
from solders.token.associated import get_associated_token_address
from solders.transaction import SanitizeError, VersionedTransaction
from solders.transaction_metadata import FailedTransactionMetadata

from ..catalog import encoding as enc
from ._jsonrpc import INVALID_PARAMS, RpcError
from ._solana_demo import (
    API_VERSION,
    MAX_PROCESSING_AGE,
    TOKEN_DECIMALS,
    TOKEN_HOLDINGS,
    WALLET_LAMPORTS,
    SlotClock,
    demo_facts,
    keypair_seed,
)
from ._solana_demo import TOKEN_2022_PROGRAM_ID as _TOKEN_2022

RENT_EXEMPT_EPOCH = 2**64 - 1  # the rentEpoch real nodes report for rent-exempt accounts

TOKEN_2022_PROGRAM_ID = Pubkey.from_string(_TOKEN_2022)
ASSOCIATED_TOKEN_PROGRAM_ID = Pubkey.from_string("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL")
MEMO_PROGRAM_ID = Pubkey.from_string("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr")
TOKEN_PROGRAMS = frozenset({TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID})

# Byte layouts of SPL Token state (identical in Token-2022 before its extensions).
MINT_SIZE = 82
TOKEN_ACCOUNT_SIZE = 165
_LOOKUP_TABLE_META_SIZE = 56


def _invalid_params(message: str) -> RpcError:
    return RpcError(INVALID_PARAMS, message)


class SolanaWorld:
    """A deterministic Solana bank for the sandbox's ``simulateTransaction``.

    ``clock``: None (the default) advances the slot by one per call, so answers are reproducible;
    a callable returning seconds (``time.monotonic``) makes the slot follow it at 400 ms a slot.
    Thread-safe: one lock guards the LiteSVM instance.
    """

    def __init__(self, seed: int = 0, *, clock: Callable[[], float] | None = None) -> None:
        self.seed = seed
        self._lock = threading.Lock()
        # Signatures are checked here, not by LiteSVM, so that a bad one becomes the JSON-RPC
        # error real nodes give (-32003) rather than a transaction error.
        self._svm = LiteSVM().with_sigverify(False)
        self._slots = SlotClock(clock, genesis=self._svm.get_clock().slot)
        self._wallets = {name: self._derived_keypair(name) for name in WALLET_LAMPORTS}
        self._mint_authority = self._wallets["alice"].pubkey()
        self.mint = self._derived_keypair("mint").pubkey()
        self.token_accounts = {
            name: get_associated_token_address(self._wallets[name].pubkey(), self.mint)
            for name in TOKEN_HOLDINGS
        }
        self.lookup_table = self._derived_keypair("lookup-table").pubkey()
        self._populate()

    # --- the world's contents ------------------------------------------------------------------

    def _derived_keypair(self, name: str) -> Keypair:
        return Keypair.from_seed(self._keypair_seed(name))

    def _keypair_seed(self, name: str) -> bytes:
        return keypair_seed(self.seed, name)

    def _populate(self) -> None:
        for name, lamports in WALLET_LAMPORTS.items():
            self._put(self._wallets[name].pubkey(), lamports, b"", SYSTEM_PROGRAM_ID)
        supply = sum(TOKEN_HOLDINGS.values())
        self._put(self.mint, None, _mint_data(self._mint_authority, supply), TOKEN_PROGRAM_ID)
        for name, amount in TOKEN_HOLDINGS.items():
            owner = self._wallets[name].pubkey()
            data = _token_account_data(self.mint, owner, amount)
            self._put(self.token_accounts[name], None, data, TOKEN_PROGRAM_ID)
        table_data = _lookup_table_data(self._mint_authority, self._lookup_table_addresses())
        self._put(self.lookup_table, None, table_data, LOOKUP_TABLE_PROGRAM_ID)

    def _lookup_table_addresses(self) -> list[Pubkey]:
        return [
            self._wallets["bob"].pubkey(),
            self._wallets["carol"].pubkey(),
            self.mint,
            *self.token_accounts.values(),
        ]

    def _put(self, address: Pubkey, lamports: int | None, data: bytes, owner: Pubkey) -> None:
        """Write an account; ``lamports=None`` means just rent-exempt for its data."""
        if lamports is None:
            lamports = self._svm.minimum_balance_for_rent_exemption(len(data))
        self._svm.set_account(address, Account(lamports, data, owner, False, RENT_EXEMPT_EPOCH))

    def keypair(self, name: str) -> Keypair:
        """The keypair of a demo wallet (``alice``, ``bob`` or ``carol``)."""
        return self._wallets[name]

    def demo(self) -> dict[str, Any]:
        """The public demo facts (`_solana_demo.demo_facts`) at this world's slot and blockhash."""
        with self._lock:
            slot = self._svm.get_clock().slot
            blockhash = str(self._svm.latest_blockhash())
        return demo_facts(self.seed, slot=slot, blockhash=blockhash)

    # --- simulateTransaction -------------------------------------------------------------------

    def simulate(self, transaction: str, config: dict[str, Any] | None = None) -> dict[str, Any]:
        """The JSON-RPC ``result`` of ``simulateTransaction``: ``{"context", "value"}``.

        ``config`` is the request's config object, already checked by the catalog. Raises
        `RpcError` where a real node answers with a JSON-RPC error.
        """
        config = config or {}
        tx = _deserialize(transaction, config.get("encoding", "base58"))
        with self._lock:
            slot = self._advance_slot()
            min_slot = config.get("minContextSlot")
            if min_slot is not None and min_slot > slot:
                raise RpcError(
                    -32016, "Minimum context slot has not been reached", {"contextSlot": slot}
                )
            try:
                tx.sanitize()
            except SanitizeError:  # real nodes answer every kind with this one sentence
                raise _invalid_params(
                    "invalid transaction: Transaction failed to sanitize accounts offsets correctly"
                ) from None
            if config.get("sigVerify") and not all(tx.verify_with_results()):
                raise RpcError(-32003, "Transaction signature verification failure")
            replacement = None
            if config.get("replaceRecentBlockhash"):
                blockhash = self._svm.latest_blockhash()
                tx = _with_blockhash(tx, blockhash)
                replacement = {
                    "blockhash": str(blockhash),
                    "lastValidBlockHeight": slot + MAX_PROCESSING_AGE,
                }
            value = self._run(tx, config, replacement)
        return {"context": {"slot": slot, "apiVersion": API_VERSION}, "value": value}

    def _advance_slot(self) -> int:
        target = self._slots.advance()
        if target != self._svm.get_clock().slot:
            self._svm.warp_to_slot(target)
        return target

    def _run(
        self, tx: VersionedTransaction, config: dict[str, Any], replacement: dict | None
    ) -> dict[str, Any]:
        """Simulate (under the lock) and describe the outcome, members in the order of Agave's
        RpcSimulateTransactionResult so that the JSON reads like a real node's."""
        message = tx.message
        writable, readonly = self._resolve_lookups(message)
        keys = [*message.account_keys, *writable, *readonly]
        requested = config.get("accounts")
        if requested and len(requested["addresses"]) > len(keys):
            raise _invalid_params(f"Too many accounts provided; max {len(keys)}")

        pre = {key: self._svm.get_account(key) for key in keys}
        outcome = self._svm.simulate_transaction(tx)
        meta = outcome.meta()
        failed = outcome if isinstance(outcome, FailedTransactionMetadata) else None
        error = None if failed is None else _error_json(failed.err())
        logs = list(meta.logs())
        # A transaction that never reached a program has no logs; real nodes then report no
        # inner instructions and no return data either.
        ran = bool(logs)
        # LiteSVM quotes a fee even for transactions it never loaded; real nodes report none.
        fee = None if error in _NOT_LOADED_ERRORS else meta.fee()
        post = dict(pre)
        if not isinstance(outcome, FailedTransactionMetadata):
            post.update(outcome.post_accounts())
        elif fee:  # a failed transaction still pays its fee, and nothing else sticks
            payer = keys[0]
            account = pre[payer]
            assert account is not None  # a fee is quoted only for a payer that exists
            post[payer] = _with_lamports(account, account.lamports - fee)

        def reader(snapshot: dict[Pubkey, Account | None]) -> Callable[[Pubkey], Account | None]:
            # Accounts outside the message (a token account's mint) are unchanged by it.
            return lambda key: snapshot[key] if key in snapshot else self._svm.get_account(key)

        account_before, account_after = reader(pre), reader(post)
        invoked = {instruction.program_id_index for instruction in message.instructions}
        return {
            "err": error,
            "logs": logs,
            "accounts": self._requested_accounts(requested, failed is None, account_after),
            "unitsConsumed": meta.compute_units_consumed(),
            "returnData": _return_data(meta.return_data()) if ran else None,
            "innerInstructions": (
                _inner_instructions(meta.inner_instructions(), keys)
                if config.get("innerInstructions") and ran
                else None
            ),
            "replacementBlockhash": replacement,
            "fee": fee,
            "preBalances": [_lamports(pre[key]) for key in keys],
            "postBalances": [_lamports(post[key]) for key in keys],
            "preTokenBalances": _token_balances(keys, invoked, account_before),
            "postTokenBalances": _token_balances(keys, invoked, account_after),
            "loadedAddresses": {
                "writable": [str(key) for key in writable],
                "readonly": [str(key) for key in readonly],
            },
        }

    def _resolve_lookups(self, message: Any) -> tuple[list[Pubkey], list[Pubkey]]:
        """The addresses a v0 message loads from lookup tables: (writable, readonly)."""
        writable: list[Pubkey] = []
        readonly: list[Pubkey] = []
        for lookup in getattr(message, "address_table_lookups", None) or ():
            table = self._svm.get_account(lookup.account_key)
            if table is None or table.owner != LOOKUP_TABLE_PROGRAM_ID:
                raise _invalid_params(
                    "invalid transaction: Transaction loads an address table account that "
                    "doesn't exist"
                )
            addresses = AddressLookupTable.deserialize(bytes(table.data)).addresses
            try:
                writable += [addresses[i] for i in lookup.writable_indexes]
                readonly += [addresses[i] for i in lookup.readonly_indexes]
            except IndexError:
                raise _invalid_params(
                    "invalid transaction: Transaction address table lookup uses an invalid index"
                ) from None
        return writable, readonly

    @staticmethod
    def _requested_accounts(
        requested: dict[str, Any] | None,
        succeeded: bool,
        account_after: Callable[[Pubkey], Account | None],
    ) -> list[dict[str, Any] | None] | None:
        if not requested:
            return None
        addresses = requested["addresses"]
        if not succeeded:  # real nodes return no post-state for a failed simulation
            return [None] * len(addresses)
        encoding = requested.get("encoding", "base64")
        accounts = []
        for address in addresses:
            account = account_after(Pubkey.from_string(address))
            accounts.append(None if account is None else _ui_account(account, encoding))
        return accounts


# Errors raised before a transaction is loaded: the fee payer is not charged for them.
_NOT_LOADED_ERRORS = (
    "AccountNotFound",
    "AlreadyProcessed",
    "BlockhashNotFound",
    "InsufficientFundsForFee",
    "InvalidAccountForFee",
)


# --- decoding and rewriting transactions -------------------------------------------------------


def _deserialize(transaction: str, encoding: str) -> VersionedTransaction:
    """Wire text to a transaction. Legacy and v0 wire formats both parse as versioned."""
    try:
        raw = enc.decode_transaction(transaction, encoding)
    except ValueError as error:
        raise _invalid_params(f"invalid {encoding} encoding: {error}") from None
    try:
        return VersionedTransaction.from_bytes(raw)
    except ValueError as error:
        raise _invalid_params(
            f"failed to deserialize solana_transaction::versioned::VersionedTransaction: {error}"
        ) from None


def _with_blockhash(tx: VersionedTransaction, blockhash: Hash) -> VersionedTransaction:
    """The same transaction with another recent blockhash (its signatures no longer match)."""
    message = tx.message
    if isinstance(message, MessageV0):
        replaced: Message | MessageV0 = MessageV0(
            message.header,
            message.account_keys,
            blockhash,
            message.instructions,
            message.address_table_lookups,
        )
    else:
        header = message.header
        replaced = Message.new_with_compiled_instructions(
            header.num_required_signatures,
            header.num_readonly_signed_accounts,
            header.num_readonly_unsigned_accounts,
            message.account_keys,
            blockhash,
            message.instructions,
        )
    return VersionedTransaction.populate(replaced, tx.signatures)


# --- the pieces of a result --------------------------------------------------------------------


def _error_json(error: Any) -> Any:
    """A transaction error in the node's own JSON form, e.g. {"InstructionError": [0, ...]}.

    solders serialises errors with the same serde code as Agave, so this is exact.
    """
    return json.loads(RpcSimulateTransactionResult(err=error).to_json())["err"]


def _return_data(return_data: Any) -> dict[str, Any] | None:
    data = bytes(return_data.data)
    if not data:  # real nodes report no return data rather than an empty one
        return None
    return {
        "programId": str(return_data.program_id),
        "data": [base64.b64encode(data).decode(), "base64"],
    }


def _lamports(account: Account | None) -> int:
    return 0 if account is None else account.lamports


def _with_lamports(account: Account, lamports: int) -> Account:
    return Account(
        lamports, bytes(account.data), account.owner, account.executable, account.rent_epoch
    )


def _ui_account(account: Account, encoding: str) -> dict[str, Any]:
    """An account as real nodes encode it. ``jsonParsed`` falls back to base64, as real nodes
    do for accounts their parsers do not know."""
    data = bytes(account.data)
    if encoding == "base64+zstd":
        encoded = [base64.b64encode(_zstd_frame(data)).decode(), "base64+zstd"]
    else:
        encoded = [base64.b64encode(data).decode(), "base64"]
    return {
        "lamports": account.lamports,
        "data": encoded,
        "owner": str(account.owner),
        "executable": account.executable,
        "rentEpoch": account.rent_epoch,
        "space": len(data),
    }


def _zstd_frame(data: bytes) -> bytes:
    """``data`` as a valid Zstandard frame made of raw (stored) blocks.

    Any zstd decoder reads it; it is not smaller, but it needs no compression library and is the
    same bytes on every machine.
    """
    max_block = 128 * 1024
    descriptor = 0b1110_0000  # 8-byte content size, single segment, no checksum, no dictionary
    frame = bytearray(struct.pack("<IBQ", 0xFD2FB528, descriptor, len(data)))
    chunks = [data[i : i + max_block] for i in range(0, len(data), max_block)] or [b""]
    for number, chunk in enumerate(chunks):
        last = number == len(chunks) - 1
        header = (len(chunk) << 3) | int(last)  # block type 0 (raw) in bits 1-2
        frame += header.to_bytes(3, "little") + chunk
    return bytes(frame)


# --- inner instructions ------------------------------------------------------------------------


def _inner_instructions(recorded: list[list[Any]], keys: list[Pubkey]) -> list[dict[str, Any]]:
    """Inner instructions as real nodes give them in simulations: parsed where the node has a
    parser, else partially decoded (program id, account addresses, base58 data)."""
    return [
        {"index": index, "instructions": [_ui_instruction(inner, keys) for inner in instructions]}
        for index, instructions in enumerate(recorded)
        if instructions
    ]


def _ui_instruction(inner: Any, keys: list[Pubkey]) -> dict[str, Any]:
    compiled = inner.instruction()
    program_id = keys[compiled.program_id_index]
    accounts = [str(keys[i]) for i in bytes(compiled.accounts)]
    data = bytes(compiled.data)
    parser = _PARSERS.get(program_id)
    parsed = parser(data, accounts) if parser else None
    if parsed is not None:
        program, instruction_type, info = parsed
        return {
            # Agave builds `info` with serde_json, whose maps keep keys sorted.
            "parsed": {"info": dict(sorted(info.items())), "type": instruction_type},
            "program": program,
            "programId": str(program_id),
            "stackHeight": inner.stack_height(),
        }
    return {
        "accounts": accounts,
        "data": enc.b58encode(data),
        "programId": str(program_id),
        "stackHeight": inner.stack_height(),
    }


_Parsed = tuple[str, str, dict[str, Any]] | None


def _parse_system(data: bytes, accounts: list[str]) -> _Parsed:
    """The system instructions a program in this world can invoke (Agave's parse_system)."""
    if len(data) < 4:
        return None
    tag = int.from_bytes(data[:4], "little")
    body = data[4:]
    if tag == 0 and len(body) == 48 and len(accounts) >= 2:
        lamports, space = struct.unpack_from("<QQ", body)
        owner = str(Pubkey.from_bytes(body[16:48]))
        info = {"source": accounts[0], "newAccount": accounts[1], "lamports": lamports}
        return "system", "createAccount", {**info, "space": space, "owner": owner}
    if tag == 1 and len(body) == 32 and accounts:
        return "system", "assign", {"account": accounts[0], "owner": str(Pubkey.from_bytes(body))}
    if tag == 2 and len(body) == 8 and len(accounts) >= 2:
        (lamports,) = struct.unpack("<Q", body)
        info = {"source": accounts[0], "destination": accounts[1], "lamports": lamports}
        return "system", "transfer", info
    if tag == 8 and len(body) == 8 and accounts:
        (space,) = struct.unpack("<Q", body)
        return "system", "allocate", {"account": accounts[0], "space": space}
    return None


_IMMUTABLE_OWNER_EXTENSION = b"\x07\x00"


def _parse_token(data: bytes, accounts: list[str]) -> _Parsed:
    """The SPL Token instructions the Associated Token Account program invokes."""
    if not data or not accounts:
        return None
    tag, body = data[0], data[1:]
    if tag == 18 and len(body) == 32 and len(accounts) >= 2:
        info: dict[str, Any] = {
            "account": accounts[0],
            "mint": accounts[1],
            "owner": str(Pubkey.from_bytes(body)),
        }
        return "spl-token", "initializeAccount3", info
    if tag == 21 and body in (b"", _IMMUTABLE_OWNER_EXTENSION):
        info = {"mint": accounts[0]}
        if body:
            info["extensionTypes"] = ["immutableOwner"]
        return "spl-token", "getAccountDataSize", info
    if tag == 22 and not body:
        return "spl-token", "initializeImmutableOwner", {"account": accounts[0]}
    return None


_PARSERS: dict[Pubkey, Callable[[bytes, list[str]], _Parsed]] = {
    SYSTEM_PROGRAM_ID: _parse_system,
    TOKEN_PROGRAM_ID: _parse_token,
    TOKEN_2022_PROGRAM_ID: _parse_token,
}


# --- token balances ----------------------------------------------------------------------------


def _token_balances(
    keys: list[Pubkey], invoked: set[int], account_at: Callable[[Pubkey], Account | None]
) -> list[dict[str, Any]]:
    """Token balances of the message's token accounts, by Agave's rules: only when a token
    program is among the keys, never for invoked programs, and only for initialised accounts
    whose mint exists under the same token program."""
    if not TOKEN_PROGRAMS.intersection(keys):
        return []
    balances = []
    for index, key in enumerate(keys):
        account = account_at(key)
        if account is None or index in invoked or key in TOKEN_PROGRAMS:
            continue
        program_id = account.owner
        state = _token_account_state(account)
        if state is None:
            continue
        mint, owner, amount = state
        mint_account = account_at(mint)
        if mint_account is None or mint_account.owner != program_id:
            continue
        decimals = _mint_decimals(mint_account)
        if decimals is None:
            continue
        balances.append(
            {
                "accountIndex": index,
                "mint": str(mint),
                "uiTokenAmount": _ui_token_amount(amount, decimals),
                "owner": str(owner),
                "programId": str(program_id),
            }
        )
    return balances


def _token_account_state(account: Account) -> tuple[Pubkey, Pubkey, int] | None:
    """(mint, owner, amount) of an initialised SPL token account, else None."""
    data = bytes(account.data)
    if account.owner not in TOKEN_PROGRAMS or not _has_layout(data, TOKEN_ACCOUNT_SIZE, 2):
        return None
    if data[108] == 0:  # AccountState::Uninitialized
        return None
    (amount,) = struct.unpack_from("<Q", data, 64)
    return Pubkey.from_bytes(data[:32]), Pubkey.from_bytes(data[32:64]), amount


def _mint_decimals(account: Account) -> int | None:
    data = bytes(account.data)
    if not _has_layout(data, MINT_SIZE, 1) or data[45] == 0:  # byte 45: is_initialized
        return None
    return data[44]


def _has_layout(data: bytes, base_size: int, token_2022_account_type: int) -> bool:
    """SPL Token state is exactly its base size; Token-2022 state with extensions is longer and
    says what it is in the byte after a token account's base size."""
    if len(data) == base_size:
        return True
    return len(data) > TOKEN_ACCOUNT_SIZE and data[TOKEN_ACCOUNT_SIZE] == token_2022_account_type


def _ui_token_amount(amount: int, decimals: int) -> dict[str, Any]:
    """A token amount as nodes show it: the exact integer as text plus human-scaled forms."""
    return {
        "uiAmount": float(amount) / float(10**decimals),
        "decimals": decimals,
        "amount": str(amount),
        "uiAmountString": _trimmed_decimal(amount, decimals),
    }


def _trimmed_decimal(amount: int, decimals: int) -> str:
    if decimals == 0:
        return str(amount)
    digits = str(amount).rjust(decimals + 1, "0")
    text = f"{digits[:-decimals]}.{digits[-decimals:]}"
    return text.rstrip("0").rstrip(".")


# --- account data the world is built from ------------------------------------------------------


def _mint_data(authority: Pubkey, supply: int) -> bytes:
    # COption<Pubkey> is a 4-byte tag then the key; no freeze authority.
    return (
        struct.pack("<I", 1)
        + bytes(authority)
        + struct.pack("<QBB", supply, TOKEN_DECIMALS, 1)
        + struct.pack("<I", 0)
        + bytes(32)
    )


def _token_account_data(mint: Pubkey, owner: Pubkey, amount: int) -> bytes:
    data = bytes(mint) + bytes(owner) + struct.pack("<Q", amount)
    data += struct.pack("<I", 0) + bytes(32)  # no delegate
    data += bytes([1])  # AccountState::Initialized
    data += struct.pack("<I", 0) + bytes(8)  # not native
    data += struct.pack("<Q", 0)  # delegated amount
    data += struct.pack("<I", 0) + bytes(32)  # no close authority
    return data


def _lookup_table_data(authority: Pubkey, addresses: Iterable[Pubkey]) -> bytes:
    """An active address lookup table: the program's 56-byte metadata, then the addresses."""
    meta = struct.pack("<IQQB", 1, 2**64 - 1, 0, 0) + b"\x01" + bytes(authority)
    return meta.ljust(_LOOKUP_TABLE_META_SIZE, b"\x00") + b"".join(bytes(a) for a in addresses)
