"""The method catalog: every method and path of the gateway spec, declared once as data.

Each `Method` names its chains, surface (JSON-RPC, REST POST/GET, platform), path, parameters
(kind, default, limits), cross-parameter rules, result kind (the check an answer must pass and its
typed value), RU rule and cache pinning. Everything else reads it: validation (`Method.bind`), the
RU estimator, the client's helpers (generated from the entry unless one is written by hand), the
response cache, the widgets' forms, the sandbox's routes (it refuses to start when a method has no
handler) and the method table of docs/methods.md. Adding a method is one entry here and one
sandbox handler; tests/architecture/test_one_entry.py proves it by counting.

Besides the spec's methods (sections A to F) the catalog has the read methods that real clients
call first (web3.py's ``eth_chainId``, tronpy's ``wallet/getnowblock``, ...), marked
``in_spec=False``: real gateway nodes answer a chain's whole read interface.
"""

from __future__ import annotations

import functools
import json
import math
import numbers
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .._errors import ValidationError
from .._json import COMPACT_JSON
from .._redact import clip, scrub
from . import encoding as enc
from ._pricing import PUBLIC, SPEC, ArchiveByBlock, Fixed, Rule

BLOCK_TAGS = ("latest", "safe", "finalized", "earliest", "pending")
DEBUG_PRINT_BLOCK_FLOOR = 22_207_815
MAX_LATEST_BLOCKS = 100
MAX_LOG_RANGE = 10_000  # eth_getLogs: blocks per call (a toolkit bound; providers cap it too)
ALWAYS = "always"  # Method.pinned_by: the answer never changes (a pure function of its inputs)

# --- bounds -----------------------------------------------------------------------------------
# Every number a kind accepts has an explicit width, the one the nodes decode it into; a wider
# value is refused here instead of being sent, billed, and refused (or truncated) by the node.
INT64_MAX = 2**63 - 1  # Java's long (java-tron: num, proposal_id, token ids), Go's int64
UINT64_MAX = 2**64 - 1  # Go/Rust u64: gas, bor_getRootHash's range, Solana slots
UINT256_MAX = 2**256 - 1  # EVM words: wei values, gas prices, storage slots
MAX_BLOCK = INT64_MAX  # geth decodes a block parameter into rpc.BlockNumber, an int64
MAX_TEXT_CHARS = 1024  # names, tags, choices, inner method names: all far shorter
MAX_JSON_DEPTH = 32  # free-form JSON parameters (TON's named params) nest at most this deep

_ASCII_DIGITS = re.compile(r"[0-9]+")
_TRON_HEX_TEXT = re.compile(r"(?:[0-9a-fA-F]{2})+")
_INNER_METHOD = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}")


class Surface(StrEnum):
    JSONRPC = "jsonrpc"  # JSON-RPC 2.0, positional params, at the node's RPC path (or `path`)
    JSONRPC_NAMED = "jsonrpc-named"  # JSON-RPC 2.0 with an object of named params (TON)
    REST_POST = "rest-post"  # JSON body
    REST_GET = "rest-get"  # query parameters
    PLATFORM = "platform"  # GET on the platform API, Bearer auth


class Broken(ValueError):
    """Raised by kind checks; `bind` turns it into a ValidationError that names the parameter."""

    def __init__(self, rule: str, message: str):
        self.rule = rule
        super().__init__(message)


# --- parameter kinds --------------------------------------------------------------------------
# A kind check takes the user's value and returns the wire value, or raises Broken(rule, message).


def _shown(value: Any, limit: int = 80) -> str:
    """A value's repr for a message, cut to `limit` characters (a hostile input can be huge),
    scrubbed before the cut (a key cut in two would no longer be recognised)."""
    try:
        text = scrub(repr(value))
    except Exception:  # a hostile __repr__
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 4] + "...>"


def _number(value: int) -> str:
    """An int for a message; a huge one by its size (str() of 4,300+ digits raises)."""
    return f"{value:,}" if value.bit_length() <= 300 else f"a {value.bit_length():,}-bit number"


def _is_integer(value: Any) -> bool:
    """A Python or NumPy integer, not a bool (True is an int in Python, never a number here)."""
    if type(value) is int:  # most values: no walk of the ABC's registry
        return True
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _as_int(value: Any, *, what: str = "an integer") -> int:
    if not _is_integer(value):
        raise Broken("type", f"must be {what}, got {type(value).__name__} {_shown(value)}")
    return int(value)


def _hex_prefix_hint(value: str, what: str) -> Broken:
    example = f" (for example {hex(int(value))!r})" if len(value) <= 30 else ""
    return Broken(
        "hex-prefix",
        f"{what} {_shown(value)} must be hex with the 0x prefix{example}, or pass an int",
    )


def _check_block(value: Any) -> str:
    if _is_integer(value):
        number = int(value)
        if number < 0:
            raise Broken("min", f"block number must not be negative, got {_number(number)}")
        if number > MAX_BLOCK:
            raise Broken(
                "max", f"block number must be at most 2**63-1 (int64), got {_number(number)}"
            )
        return enc.to_quantity(number)
    if not isinstance(value, str):
        raise Broken("type", f"must be a block tag or a 0x hex block number, got {_shown(value)}")
    if value in BLOCK_TAGS:
        return value
    if _ASCII_DIGITS.fullmatch(value):
        raise _hex_prefix_hint(value, "block number")
    if not (len(value) <= 2 + 16 and enc.is_hex_quantity(value)):
        raise Broken(
            "block",
            f"must be a 0x hex block number or one of the tags {', '.join(BLOCK_TAGS)} (hex in "
            f"ASCII, no leading zeros, at most 2**63-1); got {_shown(value)}",
        )
    if int(value, 16) > MAX_BLOCK:
        raise Broken("max", f"block number must be at most 2**63-1 (int64), got {value}")
    return value


def _check_block_number(value: Any) -> int:
    """A block number sent as a decimal JSON integer (``"params": [30000000]``).

    The spec describes debug_printBlock's parameter as a decimal integer (its sample passes 0x
    hex, which the node also reads); a Python int or a 0x hex string is accepted here and sent as
    the integer. A string of digits is refused: it is not clear which base the caller meant.
    """
    if isinstance(value, str) and value in BLOCK_TAGS:
        raise Broken("block-number", f"must be a block number, not the tag {value!r}")
    if isinstance(value, str) and value.isascii() and value.isdigit():
        raise Broken(
            "type",
            f"block number {value!r} is text: pass a Python int ({int(value)}) or 0x hex "
            f"({hex(int(value))!r}); it is sent as a decimal integer",
        )
    return int(_check_block(value), 16)


def _quantity_check(bits: int, *, canonical: bool) -> Callable[[Any], str]:
    """A check for unsigned quantities of `bits` bits: an int, or 0x and 1 to bits/4 ASCII hex
    digits. `canonical` sends hex without leading zeros (geth refuses "0x01" as a value or gas);
    otherwise a hex string is sent as given (a storage slot may be a zero-padded 32-byte word)."""
    top = 2**bits - 1
    digits = bits // 4
    pattern = re.compile(f"0x[0-9a-fA-F]{{1,{digits}}}")
    width = f"at most 2**{bits}-1 (uint{bits})"

    def check(value: Any) -> str:
        if _is_integer(value):
            number = int(value)
            if number < 0:
                raise Broken("min", f"must not be negative, got {_number(number)}")
            if number > top:
                raise Broken("max", f"must be {width}, got {_number(number)}")
            return enc.to_quantity(number)
        if isinstance(value, str) and pattern.fullmatch(value):
            number = int(value, 16)
            if number > top:
                raise Broken("max", f"must be {width}, got {value}")
            return enc.to_quantity(number) if canonical else value
        if isinstance(value, str) and _ASCII_DIGITS.fullmatch(value):
            raise _hex_prefix_hint(value, "quantity")
        raise Broken(
            "quantity",
            f"must be 0x and 1 to {digits} ASCII hex digits ({width}) or a non-negative int, "
            f"got {_shown(value)}",
        )

    return check


_check_quantity = _quantity_check(256, canonical=False)


def _check_hex_data(value: Any) -> str:
    if isinstance(value, bytes | bytearray):
        return "0x" + bytes(value).hex()
    if not isinstance(value, str) or not enc.is_hex_data(value):
        raise Broken(
            "hex-data", f"must be 0x followed by whole bytes of ASCII hex, got {_shown(value)}"
        )
    return value


def _from_encoding(check: Callable[[Any], Any], rule: str) -> Callable[[Any], Any]:
    def checked(value: Any) -> Any:
        try:
            return check(value)
        except ValueError as error:
            raise Broken(rule, str(error)) from None

    return checked


def _check_int(value: Any) -> int:
    """An integer that fits Java's long and Go's int64 (what the nodes decode numbers into);
    parameters with a narrower range say so with `Param.minimum`/`maximum`."""
    number = _as_int(value)
    if not -INT64_MAX - 1 <= number <= INT64_MAX:
        raise Broken("max", f"must fit in 64 bits (int64), got {_number(number)}")
    return number


def _check_bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise Broken("type", f"must be true or false, got {_shown(value)}")
    return value


def _check_text(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise Broken("type", f"must be a non-empty string, got {_shown(value)}")
    if len(value) > MAX_TEXT_CHARS:
        raise Broken("max-length", f"is {len(value):,} characters; at most {MAX_TEXT_CHARS:,}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise Broken(
            "utf-8", f"is not valid Unicode text (lone surrogate): {_shown(value)}"
        ) from None
    return value


def _check_solana_tx(value: Any) -> str:
    """Encoded transaction text; its encoding and decoded size are checked with the config."""
    if not isinstance(value, str) or not value:
        raise Broken(
            "type",
            "must be the encoded transaction as a non-empty string (or, with the helper, "
            f"bytes or a solders transaction), got {type(value).__name__} {_shown(value)}",
        )
    longest = enc.transaction_max_chars("base58", SOLANA_MAX_TRANSACTION_BYTES)
    if len(value) > longest:
        raise Broken(
            "max",
            f"is {len(value):,} characters; a Solana transaction is at most "
            f"{SOLANA_MAX_TRANSACTION_BYTES:,} bytes ({longest:,} characters of base58)",
        )
    return value


def _check_asset_id(value: Any) -> str:
    if _is_integer(value):
        value = str(int(value))
    if (
        not isinstance(value, str)
        or not _ASCII_DIGITS.fullmatch(value)
        or value.startswith("0")
        or len(value) > 19
        or int(value) > INT64_MAX
    ):
        raise Broken(
            "asset-id",
            "a TRC-10 token id is a positive integer (ASCII digits, no leading zero, at most "
            f"2**63-1), got {_shown(value)}",
        )
    return value


def _check_object(value: Any) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise Broken("type", f"must be an object (dict), got {type(value).__name__}")
    return value


def _check_json_object(value: Any) -> Mapping[str, Any]:
    """An object of JSON values: string keys; strings, finite numbers, booleans, null, lists
    and objects, nested at most MAX_JSON_DEPTH deep (anything else would fail or hang in the
    JSON encoder after validation said yes)."""
    _check_object(value)
    stack: list[tuple[Any, int, str]] = [(value, 1, "")]
    while stack:
        item, depth, where = stack.pop()
        at = f" at {where}" if where else ""
        if isinstance(item, Mapping | list | tuple):
            if depth > MAX_JSON_DEPTH:
                raise Broken("depth", f"nests deeper than {MAX_JSON_DEPTH} levels{at}")
            if isinstance(item, Mapping):
                for key, inner in item.items():
                    if not isinstance(key, str):
                        raise Broken("json", f"has a key that is not a string{at}: {_shown(key)}")
                    stack.append((inner, depth + 1, f"{where}.{key}" if where else key))
            else:
                stack.extend((inner, depth + 1, f"{where}[{i}]") for i, inner in enumerate(item))
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise Broken("json", f"has a number JSON cannot carry{at}: {item!r}")
        elif isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise Broken("utf-8", f"has text that is not valid Unicode{at}") from None
        elif not (item is None or isinstance(item, bool | int)):
            raise Broken("json", f"has a value JSON cannot carry{at}: {type(item).__name__}")
    return value


def _check_address_list(value: Any) -> list[str]:
    if isinstance(value, str) or not isinstance(value, list | tuple):
        raise Broken("type", f"must be a list of base58 addresses, got {_shown(value)}")
    checked = []
    for position, item in enumerate(value):
        try:
            checked.append(enc.check_solana_pubkey(item))
        except ValueError as error:
            raise Broken("address", f"item {position}: {error}") from None
    return checked


_HASH32 = re.compile(r"0x[0-9a-fA-F]{64}")


def _check_hash32(value: Any) -> str:
    if not isinstance(value, str) or not _HASH32.fullmatch(value):
        raise Broken("hash", f"must be 0x and 64 ASCII hex digits (32 bytes), got {_shown(value)}")
    return value


def _check_addresses(value: Any) -> str | list[str]:
    """One EVM address or a list of them (eth_getLogs' `address`)."""
    if isinstance(value, list | tuple):
        return [_from_encoding(enc.check_evm_address, "address")(item) for item in value]
    return _from_encoding(enc.check_evm_address, "address")(value)


def _check_topics(value: Any) -> list[Any]:
    """eth_getLogs' topic filter: up to 4 positions, each null, a 32-byte hash or a list of them."""
    if isinstance(value, str) or not isinstance(value, list | tuple):
        raise Broken("type", f"must be a list of topics, got {_shown(value)}")
    if len(value) > 4:
        raise Broken("max", f"has {len(value)} positions; a log has at most 4 topics")
    wire: list[Any] = []
    for position, item in enumerate(value):
        try:
            if item is None:
                wire.append(None)
            elif isinstance(item, list | tuple):
                wire.append([_check_hash32(one) for one in item])
            else:
                wire.append(_check_hash32(item))
        except Broken as broken:
            raise Broken(broken.rule, f"position {position}: {broken}") from None
    return wire


@dataclass(frozen=True)
class Kind:
    """A parameter type: its name in docs and forms, and the check that makes the wire value."""

    name: str
    check: Callable[[Any], Any]
    doc: str


BLOCK = Kind("block", _check_block, "0x hex block number, a Python int, or a tag")
BLOCK_NUMBER = Kind(
    "block-number",
    _check_block_number,
    "block number: a Python int or 0x hex, sent as a decimal int",
)
QUANTITY = Kind("quantity", _check_quantity, "0x hex quantity or a Python int, uint256")
QUANTITY_U256 = Kind(
    "quantity",
    _quantity_check(256, canonical=True),
    "0x hex quantity or a Python int, uint256 (sent without leading zeros)",
)
QUANTITY_U64 = Kind(
    "quantity",
    _quantity_check(64, canonical=True),
    "0x hex quantity or a Python int, uint64 (sent without leading zeros)",
)
HEX_DATA = Kind("hex", _check_hex_data, "0x-prefixed hex bytes")
INT = Kind("int", _check_int, "integer (int64)")
BOOL = Kind("bool", _check_bool, "true or false")
TEXT = Kind("text", _check_text, "string")
OBJECT = Kind("object", _check_object, "object")
JSON_OBJECT = Kind("object", _check_json_object, "object of JSON values")
EVM_ADDRESS = Kind(
    "evm-address", _from_encoding(enc.check_evm_address, "address"), "0x + 40 hex digits"
)
TRON_ADDRESS = Kind(
    "tron-address", _from_encoding(enc.tron_to_hex, "address"), "base58 T... or hex 41..."
)
TON_ADDRESS = Kind(
    "ton-address", _from_encoding(enc.ton_address, "address"), "raw 0:<hex> or user-friendly"
)
ASSET_ID = Kind("asset-id", _check_asset_id, "TRC-10 token id (digits)")
SOLANA_TX = Kind("solana-tx", _check_solana_tx, "encoded transaction (base64 or base58)")
ADDRESS_LIST = Kind("address-list", _check_address_list, "list of base58 addresses")
HASH32 = Kind("hash", _check_hash32, "0x + 64 hex digits")
EVM_ADDRESSES = Kind("evm-addresses", _check_addresses, "an EVM address or a list of them")
TOPICS = Kind("topics", _check_topics, "up to 4 topics: null, a 32-byte hash, or a list")

_NO_DEFAULT: Any = type("NoDefault", (), {"__repr__": lambda self: "<no default>"})()


@dataclass(frozen=True)
class Param:
    """One parameter. `default` is filled in and sent when the caller omits the parameter;
    `server_default` is what the gateway assumes when it is not sent (documentation only)."""

    name: str
    kind: Kind
    doc: str
    required: bool = True
    default: Any = _NO_DEFAULT
    server_default: Any = _NO_DEFAULT
    choices: tuple[Any, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    fields: tuple[Param, ...] = ()  # for object parameters

    @property
    def has_default(self) -> bool:
        return self.default is not _NO_DEFAULT

    @property
    def has_server_default(self) -> bool:
        return self.server_default is not _NO_DEFAULT

    def check(self, value: Any, path: str) -> Any:
        wire = self.kind.check(value)
        if self.choices and wire not in self.choices:
            allowed = ", ".join(repr(c) for c in self.choices)
            raise ValidationError(
                f"must be one of {allowed}; got {value!r}", param=path, rule="choice"
            )
        if self.minimum is not None and wire < self.minimum:
            raise ValidationError(
                f"must be at least {self.minimum}, got {wire}", param=path, rule="min"
            )
        if self.maximum is not None and wire > self.maximum:
            raise ValidationError(
                f"must be at most {self.maximum:,}, got {wire:,}", param=path, rule="max"
            )
        if self.fields:
            wire = _bind_fields(self.fields, wire, path)
        return wire


def _bind_fields(fields: tuple[Param, ...], value: Mapping[str, Any], path: str) -> dict:
    known = {f.name: f for f in fields}
    for key in value:
        if key not in known:
            close = _close_matches(key, known, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f"; known: {', '.join(known)}"
            raise ValidationError(
                f"unknown field {_shown(key)}{hint}", param=path, rule="unknown-field"
            )
    wire = {}
    for name, spec in known.items():
        sub = f"{path}.{name}"
        if name in value and value[name] is not None:
            wire[name] = _checked(spec, value[name], sub)
        elif spec.required:
            raise ValidationError("is required", param=sub, rule="required")
    return wire


def _close_matches(word: Any, possibilities: Any, n: int) -> list[str]:
    """difflib's suggestions, for a short string only: they cost time quadratic in its length."""
    if not isinstance(word, str) or len(word) > 64:
        return []
    import difflib  # only for a mistake's suggestions: not paid by `import toolkit`

    return difflib.get_close_matches(word, possibilities, n=n)


def _checked(param: Param, value: Any, path: str) -> Any:
    try:
        return param.check(value, path)
    except Broken as broken:
        raise ValidationError(str(broken), param=path, rule=broken.rule) from None


def _checked_plain(param: Param, value: Any) -> Any:
    """`_checked` for a top-level parameter, remembered for plain values (text, ints, None:
    their check is a pure function of the value, and its wire form is immutable)."""
    kind = type(value)
    if kind not in _PLAIN:
        return _checked(param, value, param.name)
    key = (id(param), kind, value)
    known = _CHECKED.get(key)
    if known is not None and known[0] is param:
        return known[1]
    wire = _checked(param, value, param.name)
    if type(wire) in _PLAIN:
        if len(_CHECKED) >= _CHECKED_MAX:
            _CHECKED.clear()
        _CHECKED[key] = (param, wire)
    return wire


# --- methods ----------------------------------------------------------------------------------


class _once:
    """`functools.cached_property` without its lock: before Python 3.12 it takes a lock on each
    first access, which cost more than the work it saved on a workload's hot path (two such
    properties per call). Harmless without the lock: the value is a pure function of an
    immutable object, so two threads computing it at once store equal values."""

    def __init__(self, func: Callable[[Any], Any]):
        self.func = func
        self.name = func.__name__
        self.__doc__ = func.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.func(instance)
        return value


_BOUND: dict[tuple[int, tuple[Any, ...]], BoundCall] = {}
_BOUND_MAX = 200_000
_PLAIN = frozenset((str, int, type(None)))  # exact types: True is not 1 here, nor 1.0
# One parameter's wire value for a plain argument: a workload repeats its arguments (50
# addresses at 20 blocks are 70 values to check, not 2,000). Keyed by the parameter's id and the
# value's exact type; the entry keeps its parameter, so a reused id is never mistaken for it.
_CHECKED: dict[tuple[int, type, Any], tuple[Param, Any]] = {}
_CHECKED_MAX = 100_000
# JSON as compact as httpx sends it; one encoder, not one per call (json.dumps with options
# builds a new encoder each time, which costs more than the encoding of a short call).
_json_text = json.encoder.encode_basestring_ascii  # a str as JSON, as COMPACT_JSON writes it


def forget_validations() -> None:
    """Forget every remembered validation (the next bind checks from scratch): for benchmarks
    of a first run, and tests."""
    _BOUND.clear()
    _CHECKED.clear()


def _memo_key(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...] | None:
    """A key that tells calls apart exactly (types included), or None when an argument is not
    plain text, an int or None (a list, a dict, a bool, a float: validated every time)."""
    for value in args:
        if type(value) not in _PLAIN:
            return None
    if not kwargs:
        return (args,)
    for value in kwargs.values():
        if type(value) not in _PLAIN:
            return None
    return (args, tuple(kwargs.items()))


@dataclass(frozen=True)
class BoundCall:
    """A validated call: `arguments` by parameter name, in wire form, ready to send and price.
    The same object may stand for many calls (see `Method.bind`): never change `arguments`."""

    method: Method
    arguments: dict[str, Any]

    @_once
    def wire_json(self) -> str:
        """`wire_params` as compact JSON text (a workload frame's ``params`` column)."""
        params = self.wire_params
        if type(params) is not list:
            return COMPACT_JSON.encode(params)
        # A list of text and ints (most JSON-RPC calls), written as the encoder would: its
        # encode() sets up a C encoder per call, which costs more than this whole join.
        parts = []
        for value in params:
            kind = type(value)
            if kind is str:
                parts.append(_json_text(value))
            elif kind is int:
                parts.append(int.__repr__(value))
            else:
                return COMPACT_JSON.encode(params)
        return "[" + ",".join(parts) + "]"

    @_once
    def wire_params(self) -> list[Any] | dict[str, Any]:
        """JSON-RPC params (positional list, trailing omissions dropped) or the REST body/query.
        Worked out once (pricing, the cache key and the request each read it): never change it."""
        if self.method.surface is Surface.JSONRPC:
            return [self.arguments[p.name] for p in self.method.params if p.name in self.arguments]
        if self.method.surface is Surface.JSONRPC_NAMED:
            return dict(self.arguments.get("params", {}))
        return dict(self.arguments)

    @property
    def rpc_method(self) -> str:
        """The JSON-RPC `method` field: the catalog name, or the inner method for TON's jsonRPC."""
        if self.method.surface is Surface.JSONRPC_NAMED:
            return self.arguments["method"]
        return self.method.name

    def argument(self, key: str | int) -> Any:
        """An argument by parameter name, position, or ``object.field`` path (how RU rules and
        cache pinning name their block parameter)."""
        if isinstance(key, int):
            params = self.wire_params
            return params[key] if isinstance(params, list) and key < len(params) else None
        name, _, inner = key.partition(".")
        value = self.arguments.get(name)
        return value.get(inner) if inner and isinstance(value, Mapping) else value


Check = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class Method:
    name: str  # the exact spec name: JSON-RPC method, or REST path without leading slash
    chains: tuple[str, ...]
    surface: Surface
    params: tuple[Param, ...]
    result: str  # result kind, read by helpers and frames
    ru: Rule
    summary: str
    helper: str  # the typed helper's name on the chain client
    section: str  # the spec's section letter
    path: str = ""  # REST path, or a fixed JSON-RPC path like /jsonrpc; "" = node's RPC path
    checks: tuple[Check, ...] = ()  # cross-parameter rules; they may normalise arguments
    notes: tuple[str, ...] = field(default=())
    # The argument that pins the answer to a block (a parameter name or ``object.field``), or
    # ALWAYS; None: the archive rule's block parameter, if any. See the client's response cache.
    pinned_by: str | None = None
    in_spec: bool = True  # False: a read method real clients call first, beyond the spec

    @_once
    def param_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    @_once
    def pin(self) -> str | int | None:
        """Where the answer's block is (`pinned_by`, else the archive rule's block parameter),
        ALWAYS, or None: the answer depends on the present and is never cached."""
        if self.pinned_by is not None:
            return self.pinned_by
        return getattr(self.ru, "param", None)

    def typed(self, result: Any) -> Any:
        """The helper's value of a raw result that passed its kind's check (an int for a
        quantity, the one record of an asset lookup, ...); most kinds are the result itself."""
        convert = TYPED_VALUES.get(self.result)
        return convert(result) if convert is not None else result

    @property
    def http_method(self) -> str:
        return "GET" if self.surface in (Surface.REST_GET, Surface.PLATFORM) else "POST"

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def bind(self, *args: Any, **kwargs: Any) -> BoundCall:
        """Validate a call and return it in wire form; raise ValidationError naming the rule.

        Positional arguments follow the spec's parameter order; keywords use the spec's names.
        A keyword that is a field of exactly one object parameter (``encoding`` for
        simulateTransaction's ``config``) goes into that object.

        Validation is a pure function of the arguments, so a call made of plain text, ints and
        None is validated once: binding it again (a workload planned again, the same address at
        many blocks) returns the same `BoundCall`, and what is worked out from it (its cache
        key, its JSON) is worked out once too.
        """
        key = _memo_key(args, kwargs)
        if key is not None:
            known = _BOUND.get((id(self), key))
            if known is not None and known.method is self:
                return known
        bound = self._bind(args, kwargs)
        if key is not None:
            if len(_BOUND) >= _BOUND_MAX:
                _BOUND.clear()
            _BOUND[(id(self), key)] = bound
        return bound

    def bind_many(self, calls: Iterable[tuple[tuple[Any, ...], dict[str, Any]]]) -> list[BoundCall]:
        """`bind` for many calls, given as ``(args, kwargs)`` pairs: a workload planned again
        finds its calls remembered without a call to `bind` for each (unpacking the arguments
        into `bind` took half the time of re-planning a thousand calls). Raises on the first
        bad call, as `bind` would."""
        me, remembered, plain = id(self), _BOUND.get, _PLAIN
        bound = []
        for args, kwargs in calls:
            if kwargs:
                key = _memo_key(args, kwargs)
            else:  # positional arguments (a grid): `_memo_key` inlined, a call less per call
                key = (args,)
                for value in args:
                    if type(value) not in plain:
                        key = None
                        break
            known = remembered((me, key)) if key is not None else None
            if known is None or known.method is not self:
                known = self.bind(*args, **kwargs)
            bound.append(known)
        return bound

    def _bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> BoundCall:
        if len(args) > len(self.params):
            raise ValidationError(
                f"takes at most {len(self.params)} parameters "
                f"({', '.join(p.name for p in self.params)}), got {len(args)}",
                method=self.name,
                rule="arity",
            )
        given: dict[str, Any] = {p.name: v for p, v in zip(self.params, args, strict=False)}
        for key, value in kwargs.items():
            self._place_keyword(given, key, value)
        arguments: dict[str, Any] = {}
        try:
            for p in self.params:
                value = given.get(p.name)
                if value is None and p.has_default:
                    value = p.default
                if value is None:
                    if p.required:
                        raise ValidationError("is required", param=p.name, rule="required")
                    continue
                arguments[p.name] = _checked_plain(p, value)
            for check in self.checks:
                check(arguments)
        except ValidationError as error:
            error.method = self.name
            raise
        return BoundCall(self, arguments)

    def _place_keyword(self, given: dict[str, Any], key: str, value: Any) -> None:
        if key in self.param_names:
            if key in given:
                raise ValidationError(
                    "given both by position and by keyword", param=key, rule="arity"
                )
            given[key] = value
            return
        owners = [p for p in self.params if any(f.name == key for f in p.fields)]
        if len(owners) == 1:
            owner = owners[0].name
            current = given.get(owner) or {}
            if not isinstance(current, Mapping):
                raise ValidationError(
                    f"must be an object to take the keyword {key!r}, got {current!r}",
                    param=owner,
                    rule="type",
                    method=self.name,
                )
            inner = dict(current)
            inner[key] = value
            given[owner] = inner
            return
        close = _close_matches(key, self.param_names, n=1)
        hint = (
            f"; did you mean {close[0]!r}?"
            if close
            else f"; it takes {', '.join(self.param_names)}"
        )
        raise ValidationError(
            f"unknown parameter {_shown(key)}{hint}",
            param=key if len(key) <= 64 else clip(key, 60),
            rule="unknown-param",
            method=self.name,
        )


# --- cross-parameter rules --------------------------------------------------------------------


def _debug_print_block_floor(arguments: dict[str, Any]) -> None:
    number = arguments["number"]
    if number < DEBUG_PRINT_BLOCK_FLOOR:
        raise ValidationError(
            f"block {number:,} is below {DEBUG_PRINT_BLOCK_FLOOR:,}: debug_printBlock works only "
            f"for blocks {DEBUG_PRINT_BLOCK_FLOOR:,} and later; use the arbtrace_* methods "
            "(call_raw) for earlier blocks",
            param="number",
            rule="floor",
        )


def _root_hash_range(arguments: dict[str, Any]) -> None:
    if arguments["from"] > arguments["to"]:
        raise ValidationError(
            f"range start {arguments['from']:,} is after its end {arguments['to']:,}",
            param="from",
            rule="range",
        )


def _one_gas_price(arguments: dict[str, Any]) -> None:
    if {"gasprice", "gasPrice"} <= arguments["call"].keys():
        raise ValidationError(
            "give the gas price once: gasprice (the spec) or gasPrice (Ethereum), not both",
            param="call.gasPrice",
            rule="conflict",
        )


def _simulate_rules(arguments: dict[str, Any]) -> None:
    config = arguments.get("config", {})
    if config.get("sigVerify") and config.get("replaceRecentBlockhash"):
        raise ValidationError(
            "sigVerify and replaceRecentBlockhash cannot both be true",
            param="config.sigVerify",
            rule="conflict",
        )
    encoding = config.get("encoding", "base58")
    text = arguments["transaction"]
    longest = enc.transaction_max_chars(encoding, SOLANA_MAX_TRANSACTION_BYTES)
    if len(text) > longest:  # before decoding: base58 decoding is quadratic in the length
        raise ValidationError(
            f"is {len(text):,} characters; {encoding} of a Solana transaction (at most "
            f"{SOLANA_MAX_TRANSACTION_BYTES:,} bytes) is at most {longest:,}",
            param="transaction",
            rule="max",
        )
    try:
        raw = enc.decode_transaction(text, encoding, SOLANA_MAX_TRANSACTION_BYTES)
    except ValueError as error:
        default = "" if "encoding" in config else ", the spec default"
        raise ValidationError(
            f"{error} (encoding {encoding!r}{default})",
            param="transaction",
            rule="encoding",
        ) from None
    if len(raw) > SOLANA_MAX_TRANSACTION_BYTES:
        raise ValidationError(
            f"is {len(raw):,} bytes; a Solana transaction is at most "
            f"{SOLANA_MAX_TRANSACTION_BYTES:,}",
            param="transaction",
            rule="max",
        )


SOLANA_MAX_TRANSACTION_BYTES = 1232


def _tron_text_value(default_visible: bool) -> Check:
    """`value` is plain text when visible is true and hex of UTF-8 when it is false."""

    def check(arguments: dict[str, Any]) -> None:
        visible = arguments.get("visible", default_visible)
        value = arguments["value"]
        if not visible and not _TRON_HEX_TEXT.fullmatch(value):
            example = enc.utf8_to_hex(value) if len(value) <= 40 else "..."
            raise ValidationError(
                f"{_shown(value)} must be hex of UTF-8 (ASCII hex digits, whole bytes, no "
                f"spaces) when visible is false (for example {example!r}); or pass "
                "visible=True, or use the helper, which encodes for you",
                param="value",
                rule="hex-text",
            )

    return check


def _tron_address_form(name: str) -> Check:
    """Send the address `name` in the form `visible` says the node expects (base58 or hex)."""

    def check(arguments: dict[str, Any]) -> None:
        if arguments.get("visible"):
            arguments[name] = enc.tron_to_base58(arguments[name])

    return check


def _log_range(arguments: dict[str, Any]) -> None:
    """eth_getLogs: a block hash or a range, never both; a numeric range in order and at most
    MAX_LOG_RANGE blocks (a range with a tag is bounded by the node)."""
    query = arguments["filter"]
    if "blockHash" in query and ({"fromBlock", "toBlock"} & query.keys()):
        raise ValidationError(
            "give blockHash or a fromBlock/toBlock range, not both",
            param="filter.blockHash",
            rule="conflict",
        )
    numbers = [query.get(end) for end in ("fromBlock", "toBlock")]
    if not all(isinstance(n, str) and enc.is_hex_quantity(n) for n in numbers):
        return
    start, end = (int(n, 16) for n in numbers)
    if start > end:
        raise ValidationError(
            f"range start {start:,} is after its end {end:,}",
            param="filter.fromBlock",
            rule="range",
        )
    if end - start + 1 > MAX_LOG_RANGE:
        raise ValidationError(
            f"asks for {end - start + 1:,} blocks; at most {MAX_LOG_RANGE:,} per call: split the "
            "range into several calls",
            param="filter.toBlock",
            rule="max-range",
        )


def _ton_inner_method(arguments: dict[str, Any]) -> None:
    if not _INNER_METHOD.fullmatch(arguments["method"]):
        raise ValidationError(
            f"must be a method name (ASCII letters, digits and _, at most 64), "
            f"got {_shown(arguments['method'])}",
            param="method",
            rule="method-name",
        )
    if arguments["method"] == "unpackAddress":
        address = arguments.get("params", {}).get("address")
        try:
            enc.ton_address(address)
        except ValueError as error:
            raise ValidationError(str(error), param="params.address", rule="address") from None


# --- the catalog ------------------------------------------------------------------------------

EVM_CHAINS = ("ethereum", "arbitrum", "polygon", "hyperliquid")
ARCHIVE_NOTE = "archive rule: 2 RU at a block 128+ behind the head, else 1 RU (spec, Limits)"

_ADDRESS = Param("address", EVM_ADDRESS, "account address")
_BLOCK = Param("block", BLOCK, "block number or tag", default="latest")

CALL_OBJECT_FIELDS = (
    Param("to", EVM_ADDRESS, "wallet or contract"),
    Param("from", EVM_ADDRESS, "sender", required=False),
    Param("gas", QUANTITY_U64, "maximum gas", required=False),
    Param("gasprice", QUANTITY_U256, "gas price in wei (the spec's spelling)", required=False),
    Param("gasPrice", QUANTITY_U256, "gas price in wei (Ethereum's spelling)", required=False),
    Param("value", QUANTITY_U256, "value sent, in wei", required=False),
    Param("data", HEX_DATA, "function selector and ABI-encoded arguments", required=False),
)

LOG_FILTER_FIELDS = (
    Param("fromBlock", BLOCK, "first block", required=False, server_default="latest"),
    Param("toBlock", BLOCK, "last block", required=False, server_default="latest"),
    Param("address", EVM_ADDRESSES, "emitting contract(s)", required=False),
    Param("topics", TOPICS, "topic filter by position", required=False),
    Param("blockHash", HASH32, "one block, instead of a range", required=False),
)

SIMULATE_CONFIG_FIELDS = (
    Param(
        "encoding",
        TEXT,
        "transaction encoding (base58 is deprecated)",
        required=False,
        server_default="base58",
        choices=("base58", "base64"),
    ),
    Param(
        "commitment",
        TEXT,
        "bank state to simulate against",
        required=False,
        server_default="finalized",
        choices=("processed", "confirmed", "finalized"),
    ),
    Param("sigVerify", BOOL, "verify signatures", required=False, server_default=False),
    Param(
        "replaceRecentBlockhash",
        BOOL,
        "replace the blockhash with the bank's most recent one",
        required=False,
        server_default=False,
    ),
    Param("minContextSlot", INT, "minimum slot to evaluate at", required=False, minimum=0),
    Param(
        "innerInstructions",
        BOOL,
        "include inner instructions",
        required=False,
        server_default=False,
    ),
    Param(
        "accounts",
        OBJECT,
        "accounts to return after simulation",
        required=False,
        fields=(
            Param("addresses", ADDRESS_LIST, "addresses to return"),
            Param(
                "encoding",
                TEXT,
                "account data encoding",
                required=False,
                choices=("base64", "base64+zstd", "jsonParsed"),
            ),
        ),
    ),
)

_VISIBLE_FALSE = Param(
    "visible",
    BOOL,
    "addresses as base58 (true) or hex (false)",
    required=False,
    server_default=False,
)

METHODS: tuple[Method, ...] = (
    # A. EVM JSON-RPC
    Method(
        "eth_blockNumber",
        EVM_CHAINS,
        Surface.JSONRPC,
        (),
        "quantity",
        Fixed(1, PUBLIC + ": calls without a block parameter are 1 RU"),
        "Latest block number.",
        "block_number",
        "A",
    ),
    Method(
        "eth_getBalance",
        EVM_CHAINS,
        Surface.JSONRPC,
        (_ADDRESS, _BLOCK),
        "quantity",
        ArchiveByBlock("block", SPEC + ": archive billing for eth_getBalance"),
        "Balance in wei at a block.",
        "get_balance",
        "A",
    ),
    Method(
        "eth_getStorageAt",
        EVM_CHAINS,
        Surface.JSONRPC,
        (
            Param("address", EVM_ADDRESS, "contract address"),
            Param("slot", QUANTITY, "storage position"),
            _BLOCK,
        ),
        "data",
        ArchiveByBlock("block", SPEC + ": archive billing for eth_getStorageAt"),
        "The 32-byte word at a storage slot.",
        "get_storage_at",
        "A",
    ),
    Method(
        "eth_call",
        EVM_CHAINS,
        Surface.JSONRPC,
        (Param("call", OBJECT, "call object", fields=CALL_OBJECT_FIELDS), _BLOCK),
        "data",
        ArchiveByBlock("block", SPEC + ": archive billing for eth_call"),
        "Execute a call without a transaction; returns the return data.",
        "call_contract",
        "A",
        checks=(_one_gas_price,),
    ),
    Method(
        "web3_clientVersion",
        EVM_CHAINS,
        Surface.JSONRPC,
        (),
        "text",
        Fixed(1, PUBLIC + ": calls without a block parameter are 1 RU"),
        "The node's client version.",
        "client_version",
        "A",
    ),
    Method(
        "debug_printBlock",
        ("arbitrum",),
        Surface.JSONRPC,
        (Param("number", BLOCK_NUMBER, f"block number, {DEBUG_PRINT_BLOCK_FLOOR:,} or later"),),
        "text",
        Fixed(2, PUBLIC + ": every debug_* method is 2 RU"),
        "A verbose dump of a whole block (Arbitrum; needs the debug namespace).",
        "print_block",
        "A",
        checks=(_debug_print_block_floor,),
    ),
    # A+. EVM read methods real clients call first (web3.py: eth_chainId before eth_call)
    Method(
        "eth_chainId",
        EVM_CHAINS,
        Surface.JSONRPC,
        (),
        "quantity",
        Fixed(1, PUBLIC + ": calls without a block parameter are 1 RU"),
        "The chain id (EIP-155).",
        "chain_id",
        "A",
        pinned_by=ALWAYS,
        in_spec=False,
    ),
    Method(
        "net_version",
        EVM_CHAINS,
        Surface.JSONRPC,
        (),
        "decimal-text",
        Fixed(1, PUBLIC + ": calls without a block parameter are 1 RU"),
        "The network id, as decimal text.",
        "net_version",
        "A",
        pinned_by=ALWAYS,
        in_spec=False,
    ),
    Method(
        "eth_gasPrice",
        EVM_CHAINS,
        Surface.JSONRPC,
        (),
        "quantity",
        Fixed(1, PUBLIC + ": calls without a block parameter are 1 RU"),
        "The node's gas price suggestion, in wei.",
        "gas_price",
        "A",
        in_spec=False,
    ),
    Method(
        "eth_getCode",
        EVM_CHAINS,
        Surface.JSONRPC,
        (_ADDRESS, _BLOCK),
        "data",
        ArchiveByBlock("block", PUBLIC + ": the archive rule covers eth_getCode"),
        "The code at an address (0x for an account without code).",
        "get_code",
        "A",
        in_spec=False,
    ),
    Method(
        "eth_getTransactionCount",
        EVM_CHAINS,
        Surface.JSONRPC,
        (_ADDRESS, _BLOCK),
        "quantity",
        ArchiveByBlock("block", PUBLIC + ": the archive rule covers state reads"),
        "The number of transactions an account has sent (its nonce) at a block.",
        "get_transaction_count",
        "A",
        in_spec=False,
    ),
    Method(
        "eth_getBlockByNumber",
        EVM_CHAINS,
        Surface.JSONRPC,
        (
            _BLOCK,
            Param("full", BOOL, "whole transactions (true) or their hashes", default=False),
        ),
        "evm-block",
        ArchiveByBlock("block", PUBLIC + ": the archive rule covers eth_getBlockByNumber"),
        "A block's header and transactions (null above the head).",
        "get_block",
        "A",
        in_spec=False,
    ),
    Method(
        "eth_getLogs",
        EVM_CHAINS,
        Surface.JSONRPC,
        (Param("filter", OBJECT, "log filter", fields=LOG_FILTER_FIELDS),),
        "log-list",
        ArchiveByBlock("fromBlock", PUBLIC + ": eth_getLogs is billed by fromBlock"),
        f"Event logs of a block range (at most {MAX_LOG_RANGE:,} blocks) or of one block.",
        "get_logs",
        "A",
        checks=(_log_range,),
        pinned_by="filter.toBlock",
        in_spec=False,
    ),
    # B. Polygon bridge client
    Method(
        "bor_getRootHash",
        ("polygon",),
        Surface.JSONRPC,
        (
            Param("from", INT, "first block of the range", minimum=0),
            Param("to", INT, "last block of the range", minimum=0),
        ),
        "root-hash",
        Fixed(1, PUBLIC + ": calls without a block parameter are 1 RU"),
        "Root hash of a block range (64 hex digits, no 0x).",
        "get_root_hash",
        "B",
        checks=(_root_hash_range,),
        pinned_by="to",  # the root of a range is fixed once its last block is final
        notes=("The range is capped by a node-configured limit the spec does not give.",),
    ),
    # C. Solana
    Method(
        "simulateTransaction",
        ("solana",),
        Surface.JSONRPC,
        (
            Param("transaction", SOLANA_TX, "encoded transaction"),
            Param("config", OBJECT, "options", required=False, fields=SIMULATE_CONFIG_FIELDS),
        ),
        "simulation",
        Fixed(1, "toolkit assumption: 1 RU, the spec gives no archive rule for Solana"),
        "Execute a transaction without sending it and report logs, units, balances.",
        "simulate_transaction",
        "C",
        checks=(_simulate_rules,),
    ),
    # D. TRON
    Method(
        "wallet/getassetissuebyname",
        ("tron",),
        Surface.REST_POST,
        (
            Param("value", TEXT, "token name (hex of UTF-8 when visible is false)"),
            _VISIBLE_FALSE,
        ),
        "asset-issue",
        Fixed(1, PUBLIC + ": TRON requests are 1 RU each"),
        "A TRC-10 asset by its name (an error when the name is not unique).",
        "get_asset_issue_by_name",
        "D",
        path="/wallet/getassetissuebyname",
        checks=(_tron_text_value(default_visible=False),),
    ),
    Method(
        "wallet/getassetissuelistbyname",
        ("tron",),
        Surface.REST_POST,
        (
            Param("value", TEXT, "token name or pattern (hex of UTF-8 when visible is false)"),
            Param("visible", BOOL, "plain-text value", required=False, server_default=True),
        ),
        "asset-issue-list",
        Fixed(1, PUBLIC + ": TRON requests are 1 RU each"),
        "All TRC-10 assets matching a name.",
        "get_asset_issue_list_by_name",
        "D",
        path="/wallet/getassetissuelistbyname",
        checks=(_tron_text_value(default_visible=True),),
    ),
    Method(
        "wallet/getassetissuebyid",
        ("tron",),
        Surface.REST_POST,
        (Param("value", ASSET_ID, "token id"), _VISIBLE_FALSE),
        "asset-issue",
        Fixed(1, PUBLIC + ": TRON requests are 1 RU each"),
        "A TRC-10 asset by its unique id.",
        "get_asset_issue_by_id",
        "D",
        path="/wallet/getassetissuebyid",
    ),
    Method(
        "wallet/gettransactioninfobyblocknum",
        ("tron",),
        Surface.REST_POST,
        (Param("num", INT, "block number", minimum=0), _VISIBLE_FALSE),
        "transaction-info-list",
        Fixed(1, PUBLIC + ": TRON requests are 1 RU each"),
        "Transaction info (fees, receipts, logs) of every transaction in a block.",
        "get_transaction_info_by_block_num",
        "D",
        path="/wallet/gettransactioninfobyblocknum",
        pinned_by="num",
    ),
    Method(
        "wallet/getblockbylatestnum",
        ("tron",),
        Surface.REST_POST,
        (
            Param("num", INT, "how many latest blocks", minimum=1, maximum=MAX_LATEST_BLOCKS),
            _VISIBLE_FALSE,
        ),
        "block-list",
        Fixed(1, PUBLIC + ": TRON requests are 1 RU each"),
        f"The latest blocks (at most {MAX_LATEST_BLOCKS}).",
        "get_block_by_latest_num",
        "D",
        path="/wallet/getblockbylatestnum",
    ),
    Method(
        "wallet/proposaldelete",
        ("tron",),
        Surface.REST_POST,
        (
            Param("owner_address", TRON_ADDRESS, "the proposal's creator (base58 or hex)"),
            Param("proposal_id", INT, "proposal id", minimum=1),
            _VISIBLE_FALSE,
        ),
        "unsigned-transaction",
        Fixed(1, PUBLIC + ": TRON requests are 1 RU each"),
        "An unsigned transaction deleting a proposal (sign and broadcast it yourself).",
        "proposal_delete",
        "D",
        path="/wallet/proposaldelete",
        checks=(_tron_address_form("owner_address"),),
    ),
    Method(
        "web3_sha3",
        ("tron",),
        Surface.JSONRPC,
        (Param("data", HEX_DATA, "bytes to hash"),),
        "data",
        Fixed(1, PUBLIC + ": TRON requests are 1 RU each"),
        "Keccak-256 of the given bytes (TRON /jsonrpc).",
        "sha3",
        "D",
        path="/jsonrpc",
        pinned_by=ALWAYS,
    ),
    # D+. TRON read methods real clients call first (tronpy: getnowblock, getaccount)
    Method(
        "wallet/getnowblock",
        ("tron",),
        Surface.REST_POST,
        (_VISIBLE_FALSE,),
        "tron-block",
        Fixed(1, PUBLIC + ": TRON requests are 1 RU each"),
        "The latest block.",
        "get_now_block",
        "D",
        path="/wallet/getnowblock",
        in_spec=False,
    ),
    Method(
        "wallet/getblockbynum",
        ("tron",),
        Surface.REST_POST,
        (Param("num", INT, "block number", minimum=0), _VISIBLE_FALSE),
        "tron-block",
        Fixed(1, PUBLIC + ": TRON requests are 1 RU each"),
        "One block by its number ({} above the head).",
        "get_block_by_num",
        "D",
        path="/wallet/getblockbynum",
        pinned_by="num",
        in_spec=False,
    ),
    Method(
        "wallet/getnodeinfo",
        ("tron",),
        Surface.REST_POST,
        (_VISIBLE_FALSE,),
        "tron-node-info",
        Fixed(1, PUBLIC + ": TRON requests are 1 RU each"),
        "The node's version, peers, and its view of the chain.",
        "get_node_info",
        "D",
        path="/wallet/getnodeinfo",
        in_spec=False,
    ),
    Method(
        "wallet/getaccount",
        ("tron",),
        Surface.REST_POST,
        (Param("address", TRON_ADDRESS, "account (base58 or hex)"), _VISIBLE_FALSE),
        "tron-account",
        Fixed(1, PUBLIC + ": TRON requests are 1 RU each"),
        "An account: balance, assets, resources ({} for an account not on chain).",
        "get_account",
        "D",
        path="/wallet/getaccount",
        checks=(_tron_address_form("address"),),
        in_spec=False,
    ),
    # E. TON
    Method(
        "api/v2/getTokenData",
        ("ton",),
        Surface.REST_GET,
        (Param("address", TON_ADDRESS, "token contract address"),),
        "token-data",
        Fixed(1, SPEC + ": getTokenData is always a full request, 1 RU"),
        "Token (jetton) data: name, symbol, decimals, supply.",
        "get_token_data",
        "E",
        path="/api/v2/getTokenData",
    ),
    Method(
        "api/v2/jsonRPC",
        ("ton",),
        Surface.JSONRPC_NAMED,
        (
            Param("method", TEXT, "inner method, for example unpackAddress"),
            Param("params", JSON_OBJECT, "named parameters", required=False, default={}),
        ),
        "any",
        Fixed(1, "toolkit assumption: 1 RU, like every other TON request"),
        "TON JSON-RPC with named parameters (for example unpackAddress).",
        "json_rpc",
        "E",
        path="/api/v2/jsonRPC",
        checks=(_ton_inner_method,),
    ),
    # E+. TON read methods real clients call first (toncenter's SDK: GET, like getTokenData)
    Method(
        "api/v2/getMasterchainInfo",
        ("ton",),
        Surface.REST_GET,
        (),
        "masterchain-info",
        Fixed(1, "toolkit assumption: 1 RU, like every other TON request"),
        "The latest masterchain block (its seqno is TON's head).",
        "get_masterchain_info",
        "E",
        path="/api/v2/getMasterchainInfo",
        in_spec=False,
    ),
    Method(
        "api/v2/detectAddress",
        ("ton",),
        Surface.REST_GET,
        (Param("address", TON_ADDRESS, "any form of a TON address"),),
        "address-forms",
        Fixed(1, "toolkit assumption: 1 RU, like every other TON request"),
        "Every form of an address: raw, bounceable, non-bounceable.",
        "detect_address",
        "E",
        path="/api/v2/detectAddress",
        pinned_by=ALWAYS,
        in_spec=False,
    ),
    # F. Platform
    Method(
        "v2/nodes/",
        ("platform",),
        Surface.PLATFORM,
        (
            Param(
                "ordering",
                TEXT,
                "sort order",
                required=False,
                choices=("name", "-name", "created_at", "-created_at"),
            ),
            Param("page", INT, "page number", required=False, minimum=1),
        ),
        "node-page",
        Fixed(0, "toolkit assumption: the platform API is not a node request and costs no RU"),
        "One page of the organization's nodes.",
        "list_nodes_page",
        "F",
        path="/v2/nodes/",
    ),
)

CATALOG: dict[str, Method] = {m.name: m for m in METHODS}


def lookup(name: str) -> Method:
    """The catalog entry for a spec name; a leading slash on REST paths is accepted."""
    if type(name) is str:
        method = CATALOG.get(name)
        if method is not None:
            return method
    if isinstance(name, Mapping):
        raise ValidationError(
            "the first argument of call() is the spec's method name, not a call object: for "
            "web3.py's eth.call({...}) use call_contract(to, data, block=...), or "
            "call('eth_call', {...}, 'latest')",
            param="method",
            rule="type",
        )
    if not isinstance(name, str):
        raise ValidationError(
            f"the method name must be a string like 'eth_getBalance', got "
            f"{type(name).__name__} {_shown(name)}",
            param="method",
            rule="type",
        )
    method = CATALOG.get(name) or CATALOG.get(name.lstrip("/"))
    if method is None:
        close = _close_matches(name, CATALOG, n=2)
        hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
        raise ValidationError(
            f"{_shown(name)} is not a method of the spec.{hint} "
            "Use call_raw for JSON-RPC methods outside the spec.",
            rule="unknown-method",
        )
    return method


# --- chains -----------------------------------------------------------------------------------


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


# --- result kinds -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ResultKind:
    """What a method's result must look like; a result that does not is a MalformedResponse."""

    name: str
    expected: str
    check: Callable[[Any], bool]


# Strict, so that a result that passes converts without error: `int(result, 16)` alone would
# take "0x_1", full-width digits and a trailing newline, and raise ValueError on "0xzz" after the
# answer was paid for (and cached). Answers may carry leading zeros; never more than 256 bits.
_RESULT_QUANTITY = re.compile(r"0x0*[0-9a-fA-F]{1,64}")
_RESULT_DATA = re.compile(r"0x(?:[0-9a-fA-F]{2})*")
_RESULT_ROOT_HASH = re.compile(r"[0-9a-fA-F]{64}")
_RESULT_DECIMAL = re.compile(r"[0-9]{1,78}")


def _is_block(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and _matches(_RESULT_QUANTITY)(value.get("number"))
        and isinstance(value.get("transactions"), list)
    )


def _matches(pattern: re.Pattern[str]) -> Callable[[Any], bool]:
    return lambda value: isinstance(value, str) and pattern.fullmatch(value) is not None


# The typed value of a raw result, by result kind: what the typed helpers and bulk runs return.
# Each is only applied to a result that passed its kind's check in RESULT_KINDS.
TYPED_VALUES: dict[str, Callable[[Any], Any]] = {
    "quantity": functools.partial(int, base=16),
    # TRON answers {} instead of [] for block 0 and below
    "transaction-info-list": lambda result: result if isinstance(result, list) else [],
    # One asset: java-tron answers the bare record, the spec shows {"assetIssue": [record]}
    "asset-issue": lambda result: (
        result["assetIssue"][0]
        if isinstance(result, dict)
        and isinstance(result.get("assetIssue"), list)
        and len(result["assetIssue"]) == 1
        else result
    ),
}

RESULT_KINDS: dict[str, ResultKind] = {
    k.name: k
    for k in (
        ResultKind("quantity", "a 0x hex quantity of at most 256 bits", _matches(_RESULT_QUANTITY)),
        ResultKind("data", "0x hex data (whole bytes)", _matches(_RESULT_DATA)),
        ResultKind("text", "a string", lambda v: isinstance(v, str)),
        ResultKind("root-hash", "64 hex digits without 0x", _matches(_RESULT_ROOT_HASH)),
        ResultKind("simulation", "a simulation result object", lambda v: isinstance(v, dict)),
        ResultKind("asset-issue", "an asset issue object", lambda v: isinstance(v, dict)),
        ResultKind("asset-issue-list", "an assetIssue object", lambda v: isinstance(v, dict)),
        ResultKind(
            "transaction-info-list",
            "an array of transaction info records",
            lambda v: isinstance(v, list) or v == {},
        ),
        ResultKind("block-list", "a block object", lambda v: isinstance(v, dict)),
        ResultKind("unsigned-transaction", "a transaction object", lambda v: isinstance(v, dict)),
        ResultKind("token-data", "a token data object", lambda v: isinstance(v, dict)),
        ResultKind(
            "node-page",
            "a node list page",
            lambda v: isinstance(v, dict) and isinstance(v.get("results"), list),
        ),
        ResultKind("decimal-text", "decimal digits as text", _matches(_RESULT_DECIMAL)),
        ResultKind("evm-block", "a block object or null", lambda v: v is None or _is_block(v)),
        ResultKind(
            "log-list",
            "an array of log objects",
            lambda v: isinstance(v, list) and all(isinstance(log, dict) for log in v),
        ),
        ResultKind("tron-block", "a block object", lambda v: isinstance(v, dict)),
        ResultKind("tron-node-info", "a node info object", lambda v: isinstance(v, dict)),
        ResultKind("tron-account", "an account object", lambda v: isinstance(v, dict)),
        ResultKind("masterchain-info", "a masterchain info object", lambda v: isinstance(v, dict)),
        ResultKind(
            "address-forms",
            "an address forms object",
            lambda v: isinstance(v, dict) and isinstance(v.get("raw_form"), str),
        ),
        ResultKind("any", "anything", lambda v: True),
    )
}
