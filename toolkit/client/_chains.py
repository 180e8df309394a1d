"""Typed, documented helpers per chain, and the node classes built from them.

Each helper turns Python values into the spec's wire form and hands the call to `_request`, which
returns the result on a sync `Node` and an awaitable on an `AsyncNode`. So every helper works as
``node.get_balance(a)`` and as ``await node.aio.get_balance(a)``. The helper's name for each method
is the catalog's `Method.helper`. A helper is written here by hand only where it adds something to
the catalog entry (encoding a token name, serialising a transaction, Pythonic keyword names); every
other method's helper is generated from its entry (`generated_helper`): its signature from the
parameters, its docstring from the summary and RU rule, its value from the result kind.
"""

from __future__ import annotations

import base64
import inspect
import keyword
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._errors import ValidationError
from ..catalog import METHODS, SOLANA_MAX_TRANSACTION_BYTES, TYPED_VALUES, Method
from ..catalog import encoding as enc
from ._node import AsyncNode, Node


def _drop_none(**fields: Any) -> dict[str, Any]:
    return {key: value for key, value in fields.items() if value is not None}


def _name_as_hex(name: Any) -> Any:
    """A token name as hex of its UTF-8 bytes. Anything that is not encodable text is handed on
    unchanged, for the catalog to refuse with a ValidationError naming the parameter."""
    if not isinstance(name, str):
        return name
    try:
        return enc.utf8_to_hex(name)
    except UnicodeEncodeError:  # a lone surrogate: the catalog says why it is not text
        return name


def _transaction_bytes(transaction: Any) -> bytes:
    """The bytes of a transaction given as bytes or as an object that defines ``__bytes__``
    (solders transactions). Not ``bytes(x)`` on anything: ``bytes(42)`` is 42 zero bytes."""
    if isinstance(transaction, bytes | bytearray | memoryview):
        return bytes(transaction)
    if hasattr(type(transaction), "__bytes__"):
        try:
            return bytes(transaction)
        except Exception as error:
            raise ValidationError(
                f"could not be serialised: {type(error).__name__}",
                param="transaction",
                rule="type",
                method="simulateTransaction",
            ) from None
    raise ValidationError(
        "must be the encoded transaction (base64 or base58 text), its bytes, or a solders "
        f"transaction, got {type(transaction).__name__}",
        param="transaction",
        rule="type",
        method="simulateTransaction",
    )


class _Helpers:
    """What every chain's helpers build on: the node's `_request` (sync or async)."""

    _request: Callable[..., Any]  # declared for checkers only: `Node` or `AsyncNode` defines it


class EvmMethods(_Helpers):
    """EVM JSON-RPC (spec section A)."""

    def block_number(self):
        """The latest block number, as an int (``eth_blockNumber``)."""
        return self._request("eth_blockNumber", (), {}, TYPED_VALUES["quantity"])

    def get_balance(self, address: str, block: int | str = "latest"):
        """The balance in wei, as an exact int (``eth_getBalance``).

        `block` is an int, a 0x hex number or a tag. A block 128 or more behind the head is an
        archive request (2 RU instead of 1).
        """
        return self._request("eth_getBalance", (address, block), {}, TYPED_VALUES["quantity"])

    def get_storage_at(self, address: str, slot: int | str, block: int | str = "latest"):
        """The 32-byte word at a storage slot, as 0x hex (``eth_getStorageAt``; archive rule)."""
        return self._request("eth_getStorageAt", (address, slot, block), {})

    def call_contract(
        self,
        to: str,
        data: str | bytes | None = None,
        *,
        block: int | str = "latest",
        sender: str | None = None,
        value: int | str | None = None,
        gas: int | str | None = None,
        gasprice: int | str | None = None,
    ):
        """Execute a call without a transaction; returns the 0x return data (``eth_call``).

        A plain transfer simulation (no `data`, a `value`) returns ``0x`` on success; the `sender`
        must hold enough for the value and the fee. Archive rule applies to `block`.
        """
        call = _drop_none(to=to, data=data, value=value, gas=gas, gasprice=gasprice)
        if sender is not None:
            call["from"] = sender
        return self._request("eth_call", (call, block), {})

    def client_version(self):
        """The node's client version string (``web3_clientVersion``)."""
        return self._request("web3_clientVersion", (), {})


class ArbitrumMethods(EvmMethods):
    def print_block(self, number: int | str):
        """A verbose text dump of a whole block (``debug_printBlock``, 2 RU): Go's
        ``spew.Sdump`` of the block; `toolkit.frames.evm_printed_blocks` reads it.

        `number` is an int or 0x hex and is sent as a decimal integer, as the gateway documents
        the parameter. Only for blocks 22,207,815 and later; earlier blocks need the arbtrace_*
        methods (`call_raw`). The node must have the debug namespace enabled.
        """
        return self._request("debug_printBlock", (number,), {})


class PolygonMethods(EvmMethods):
    def get_root_hash(self, from_block: int, to_block: int):
        """The root hash of a block range, 64 hex digits without 0x (``bor_getRootHash``).

        The node caps the range length; the cap is node configuration the spec does not give.
        """
        return self._request("bor_getRootHash", (from_block, to_block), {})


class SolanaMethods(_Helpers):
    """Solana JSON-RPC (spec section C)."""

    def simulate_transaction(
        self,
        transaction: Any,
        *,
        encoding: str = "base64",
        commitment: str | None = None,
        sig_verify: bool | None = None,
        replace_recent_blockhash: bool | None = None,
        min_context_slot: int | None = None,
        inner_instructions: bool | None = None,
        accounts: list[str] | None = None,
        accounts_encoding: str | None = None,
    ):
        """Execute a transaction without sending it (``simulateTransaction``).

        `transaction` is encoded text, raw bytes, or a solders transaction object (encoded with
        `encoding`, base64 by default because the spec deprecates base58). Returns the result
        as the node sends it, ``{"context": ..., "value": ...}``; see `toolkit.frames`.
        `sig_verify` and `replace_recent_blockhash` cannot both be true.
        """
        if not isinstance(transaction, str):
            raw = _transaction_bytes(transaction)
            if len(raw) > SOLANA_MAX_TRANSACTION_BYTES:  # before encoding: base58 is quadratic
                raise ValidationError(
                    f"is {len(raw):,} bytes; a Solana transaction is at most "
                    f"{SOLANA_MAX_TRANSACTION_BYTES:,}",
                    param="transaction",
                    rule="max",
                    method="simulateTransaction",
                )
            text = enc.b58encode(raw) if encoding == "base58" else base64.b64encode(raw).decode()
        else:
            text = transaction
        config = _drop_none(
            encoding=encoding,
            commitment=commitment,
            sigVerify=sig_verify,
            replaceRecentBlockhash=replace_recent_blockhash,
            minContextSlot=min_context_slot,
            innerInstructions=inner_instructions,
        )
        if accounts is not None:
            config["accounts"] = _drop_none(addresses=accounts, encoding=accounts_encoding)
        return self._request("simulateTransaction", (text, config), {})


class TronMethods(_Helpers):
    """TRON wallet HTTP API and /jsonrpc (spec section D).

    One rule for `visible` in every helper that has it: it defaults to False (hex addresses and,
    for asset texts, hex of UTF-8), the node's own default and the spec's for every method but
    the asset list by name; and the helper always sends it, so the answer's form never depends on
    a server default. Names are always given as plain text: the helper encodes them for the node.
    Pass ``visible=True`` for base58 addresses and plain-text names in the answer. The frames
    read either form.
    """

    def get_asset_issue_by_name(self, name: str, *, visible: bool = False):
        """The TRC-10 asset with this name, as one record (``wallet/getassetissuebyname``).

        java-tron answers the bare record and the spec shows it as ``{"assetIssue": [record]}``:
        either way this returns the record (``{}`` when no asset has the name). Raises
        `AmbiguousAssetName` when several assets share the name; then list them with
        `get_asset_issue_list_by_name` and look the one you want up by id.
        """
        value = name if visible else _name_as_hex(name)
        return self._request(
            "wallet/getassetissuebyname",
            (),
            {"value": value, "visible": visible},
            TYPED_VALUES["asset-issue"],
        )

    def get_asset_issue_list_by_name(self, name: str, *, visible: bool = False):
        """All TRC-10 assets with this name (``wallet/getassetissuelistbyname``)."""
        value = name if visible else _name_as_hex(name)
        return self._request(
            "wallet/getassetissuelistbyname", (), {"value": value, "visible": visible}
        )

    def get_asset_issue_by_id(self, asset_id: str | int, *, visible: bool = False):
        """The TRC-10 asset with this id (``wallet/getassetissuebyid``): ids are unique."""
        return self._request(
            "wallet/getassetissuebyid",
            (),
            {"value": asset_id, "visible": visible},
            TYPED_VALUES["asset-issue"],
        )

    def get_transaction_info_by_block_num(self, num: int, *, visible: bool = False):
        """Transaction info of every transaction in block `num`, as a list
        (``wallet/gettransactioninfobyblocknum``; the node's ``{}`` for block 0 becomes [])."""
        return self._request(
            "wallet/gettransactioninfobyblocknum",
            (),
            {"num": num, "visible": visible},
            TYPED_VALUES["transaction-info-list"],
        )

    def get_block_by_latest_num(self, num: int, *, visible: bool = False):
        """The latest `num` blocks, 1 to 100 (``wallet/getblockbylatestnum``)."""
        return self._request("wallet/getblockbylatestnum", (), {"num": num, "visible": visible})

    def proposal_delete(self, owner_address: str, proposal_id: int, *, visible: bool = False):
        """An unsigned transaction deleting a proposal (``wallet/proposaldelete``).

        Only the creator may delete, before the proposal is executed; sign and broadcast the
        returned transaction yourself. `owner_address` may be base58 or hex either way.
        """
        return self._request(
            "wallet/proposaldelete",
            (),
            {"owner_address": owner_address, "proposal_id": proposal_id, "visible": visible},
        )

    def sha3(self, data: bytes | str):
        """Keccak-256 of `data` (bytes or 0x hex), as 0x hex (``web3_sha3`` on /jsonrpc)."""
        return self._request("web3_sha3", (data,), {})


class TonMethods(_Helpers):
    """TON HTTP API v2 (spec section E)."""

    def get_token_data(self, address: str):
        """Token (jetton) data for a token contract (``api/v2/getTokenData``, 1 RU)."""
        return self._request("api/v2/getTokenData", (), {"address": address})

    def json_rpc(self, method: str, **params: Any):
        """Any method of the TON JSON-RPC endpoint, with named params (``api/v2/jsonRPC``)."""
        return self._request("api/v2/jsonRPC", (method, params), {})

    def unpack_address(self, address: str):
        """A user-friendly TON address in raw form, by the node (``unpackAddress``)."""
        return self.json_rpc("unpackAddress", address=address)


# What a checker sees of the helpers: their typed signatures for each flavour, written from the
# catalog into _helpers.pyi (`python -m toolkit.client._stubs`). At run time one mixin serves
# both flavours, which no annotation can say (an int on `Node`, an awaitable int on `AsyncNode`).
if TYPE_CHECKING:
    from ._helpers import (
        ArbitrumHelpers,
        AsyncArbitrumHelpers,
        AsyncEvmHelpers,
        AsyncPolygonHelpers,
        AsyncSolanaHelpers,
        AsyncTonHelpers,
        AsyncTronHelpers,
        EvmHelpers,
        PolygonHelpers,
        SolanaHelpers,
        TonHelpers,
        TronHelpers,
    )
else:
    EvmHelpers = AsyncEvmHelpers = EvmMethods
    ArbitrumHelpers = AsyncArbitrumHelpers = ArbitrumMethods
    PolygonHelpers = AsyncPolygonHelpers = PolygonMethods
    SolanaHelpers = AsyncSolanaHelpers = SolanaMethods
    TronHelpers = AsyncTronHelpers = TronMethods
    TonHelpers = AsyncTonHelpers = TonMethods


class AsyncEvmNode(AsyncEvmHelpers, AsyncNode):
    """Async client for an EVM node."""


class AsyncArbitrumNode(AsyncArbitrumHelpers, AsyncNode):
    """Async client for an Arbitrum node."""


class AsyncPolygonNode(AsyncPolygonHelpers, AsyncNode):
    """Async client for a Polygon node."""


class AsyncSolanaNode(AsyncSolanaHelpers, AsyncNode):
    """Async client for a Solana node."""


class AsyncTronNode(AsyncTronHelpers, AsyncNode):
    """Async client for a TRON node."""


class AsyncTonNode(AsyncTonHelpers, AsyncNode):
    """Async client for a TON node."""


class EvmNode(EvmHelpers, Node):
    """Blocking client for an EVM node (Ethereum, Hyperliquid's EVM at /evm, ...)."""

    aio_class = AsyncEvmNode


class ArbitrumNode(ArbitrumHelpers, Node):
    """Blocking client for an Arbitrum node: EVM methods plus debug_printBlock."""

    aio_class = AsyncArbitrumNode


class PolygonNode(PolygonHelpers, Node):
    """Blocking client for a Polygon node: EVM methods plus bor_getRootHash."""

    aio_class = AsyncPolygonNode


class SolanaNode(SolanaHelpers, Node):
    """Blocking client for a Solana node."""

    aio_class = AsyncSolanaNode


class TronNode(TronHelpers, Node):
    """Blocking client for a TRON node."""

    aio_class = AsyncTronNode


class TonNode(TonHelpers, Node):
    """Blocking client for a TON node."""

    aio_class = AsyncTonNode


NODE_CLASSES: dict[str, type[Node]] = {
    "ethereum": EvmNode,
    "hyperliquid": EvmNode,
    "arbitrum": ArbitrumNode,
    "polygon": PolygonNode,
    "solana": SolanaNode,
    "tron": TronNode,
    "ton": TonNode,
}


# --- helpers generated from the catalog -------------------------------------------------------

MIXINS: dict[str, type] = {
    "ethereum": EvmMethods,
    "hyperliquid": EvmMethods,
    "arbitrum": ArbitrumMethods,
    "polygon": PolygonMethods,
    "solana": SolanaMethods,
    "tron": TronMethods,
    "ton": TonMethods,
}


def _signature(method: Method) -> inspect.Signature:
    """The helper's signature: the spec's parameter names, in order, with their defaults (all
    positional-only when one name is not a Python identifier, like bor_getRootHash's ``from``)."""
    usable = all(p.name.isidentifier() and not keyword.iskeyword(p.name) for p in method.params)
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD if usable else inspect.Parameter.POSITIONAL_ONLY
    parameters = [inspect.Parameter("self", kind)]
    for param in method.params:
        if param.has_default:
            default = param.default
        elif param.required and not param.fields:  # an object's fields may come as keywords
            default = inspect.Parameter.empty
        else:
            default = None
        name = param.name if usable else f"{param.name}_"
        parameters.append(inspect.Parameter(name, kind, default=default))
    if any(param.fields for param in method.params):
        parameters.append(inspect.Parameter("fields", inspect.Parameter.VAR_KEYWORD))
    return inspect.Signature(parameters)


_OUTSIDE_SPEC = "A read method real clients call first; not one of the gateway spec's."


def _docstring(method: Method) -> str:
    params: list[str] = []
    for param in method.params:
        optional = "" if param.required and not param.has_default else ", optional"
        params.append(f"- `{param.name}` ({param.kind.doc}{optional}): {param.doc}")
        params.extend(f"  - `{field.name}`: {field.doc}" for field in param.fields)
    sections = [
        [f"{method.summary} (``{method.name}``; {method.ru.describe()})"],
        params,
        [] if method.in_spec else [_OUTSIDE_SPEC],
        list(method.notes),
    ]
    return "\n\n".join("\n".join(lines) for lines in sections if lines)


def generated_helper(method: Method) -> Callable[..., Any]:
    """The helper of a catalog method: validate, price, send, and return the typed value."""
    name, typed = method.name, method.typed

    def helper(self, *args: Any, **kwargs: Any) -> Any:
        return self._request(name, args, kwargs, typed)

    helper.__name__ = helper.__qualname__ = method.helper
    helper.__signature__ = _signature(method)  # type: ignore[attr-defined]
    helper.__doc__ = _docstring(method)
    helper.generated_from = method  # type: ignore[attr-defined]
    return helper


def _install_generated_helpers() -> None:
    for method in METHODS:
        for chain in method.chains:
            mixin = MIXINS.get(chain)
            if mixin is not None and not hasattr(mixin, method.helper):
                setattr(mixin, method.helper, generated_helper(method))


_install_generated_helpers()
