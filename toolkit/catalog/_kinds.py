"""Parameter kinds: a kind check takes the user's value and returns the wire value, or raises
Broken(rule, message); `Param` is one parameter (its kind, default, limits and fields)."""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .._errors import ValidationError
from .._redact import scrub
from . import encoding as enc
from ._bounds import (
    BLOCK_TAGS,
    INT64_MAX,
    MAX_BLOCK,
    MAX_JSON_DEPTH,
    MAX_TEXT_CHARS,
    SOLANA_MAX_TRANSACTION_BYTES,
)

_ASCII_DIGITS = re.compile(r"[0-9]+")


class Broken(ValueError):
    """Raised by kind checks; `bind` turns it into a ValidationError that names the parameter."""

    def __init__(self, rule: str, message: str):
        self.rule = rule
        super().__init__(message)


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


# --- keys: one spelling of each value ----------------------------------------------------------
# A kind's `key` takes a wire value (the check's, or one read back from a dataset or a tape) to
# the one form every spelling of that value shares: what a call's keys (the response cache's, a
# dataset's resume, a tape's) are made of, so that writing a value another way is the same call.
# The wire keeps the caller's spelling. A key never raises: a value it does not know is its own.


def _lower(value: Any) -> Any:
    """Hex (addresses, hashes, data, block numbers) in lower case: the case of hex digits, an
    EIP-55 checksum included, says nothing about the value."""
    if isinstance(value, str):
        return value.lower()
    if isinstance(value, list):
        return [_lower(item) for item in value]
    return value


_HEX_TEXT = re.compile(r"0x[0-9a-fA-F]{1,64}")


def _quantity_key(value: Any) -> Any:
    """A quantity without leading zeros (a storage slot as ``0x1`` or its 32-byte word)."""
    if isinstance(value, str) and _HEX_TEXT.fullmatch(value):
        return enc.to_quantity(int(value, 16))
    return value


def _state_block_key(value: Any) -> Any:
    if isinstance(value, dict):
        return {name: _lower(inner) for name, inner in value.items()}
    return _lower(value)


def _tron_address_key(value: Any) -> Any:
    """Hex, whether the wire has base58 (``visible``) or hex: one account, one key."""
    return enc.tron_to_hex(value)


def _ton_address_key(value: Any) -> Any:
    """The raw form: a user-friendly one (bounceable or not, base64 or base64url) names the
    same account."""
    return enc.parse_ton_address(value).raw


@dataclass(frozen=True)
class Kind:
    """A parameter type: its name in docs and forms, the check that makes the wire value, and
    the Python values a helper takes for it (`python`, annotation text for the helpers' typed
    signatures in `toolkit/client/_helpers.pyi`); `key`, the one form of a wire value that its
    call's keys are made of (None: the wire value is that form already)."""

    name: str
    check: Callable[[Any], Any]
    doc: str
    python: str
    key: Callable[[Any], Any] | None = None


BLOCK = Kind(
    "block",
    _check_block,
    "0x hex block number, a Python int, or a tag",
    python="int | str",
    key=_lower,
)
BLOCK_NUMBER = Kind(
    "block-number",
    _check_block_number,
    "block number: a Python int or 0x hex, sent as a decimal int",
    python="int | str",
)
QUANTITY = Kind(
    "quantity",
    _check_quantity,
    "0x hex quantity or a Python int, uint256",
    python="int | str",
    key=_quantity_key,
)
QUANTITY_U256 = Kind(
    "quantity",
    _quantity_check(256, canonical=True),
    "0x hex quantity or a Python int, uint256 (sent without leading zeros)",
    python="int | str",
    key=_lower,
)
QUANTITY_U64 = Kind(
    "quantity",
    _quantity_check(64, canonical=True),
    "0x hex quantity or a Python int, uint64 (sent without leading zeros)",
    python="int | str",
    key=_lower,
)
HEX_DATA = Kind(
    "hex", _check_hex_data, "0x-prefixed hex bytes", python="str | bytes | bytearray", key=_lower
)
INT = Kind("int", _check_int, "integer (int64)", python="int")
BOOL = Kind("bool", _check_bool, "true or false", python="bool")
TEXT = Kind("text", _check_text, "string", python="str")
OBJECT = Kind("object", _check_object, "object", python="Mapping[str, Any]")
JSON_OBJECT = Kind(
    "object", _check_json_object, "object of JSON values", python="Mapping[str, Any]"
)
EVM_ADDRESS = Kind(
    "evm-address",
    _from_encoding(enc.check_evm_address, "address"),
    "0x + 40 hex digits",
    python="str",
    key=_lower,
)
TRON_ADDRESS = Kind(
    "tron-address",
    _from_encoding(enc.tron_to_hex, "address"),
    "base58 T... or hex 41...",
    python="str",
    key=_tron_address_key,
)
TON_ADDRESS = Kind(
    "ton-address",
    _from_encoding(enc.ton_address, "address"),
    "raw 0:<hex> or user-friendly",
    python="str",
    key=_ton_address_key,
)
# An address whose spelling is the question: detectAddress answers which form it was given in
# (``given_type``), so each form is a call of its own.
TON_ADDRESS_AS_GIVEN = Kind(
    "ton-address", TON_ADDRESS.check, "raw 0:<hex> or user-friendly", python="str"
)
ASSET_ID = Kind("asset-id", _check_asset_id, "TRC-10 token id (digits)", python="int | str")
SOLANA_TX = Kind(
    "solana-tx", _check_solana_tx, "encoded transaction (base64 or base58)", python="str"
)
ADDRESS_LIST = Kind(
    "address-list",
    _check_address_list,
    "list of base58 addresses",
    python="list[str] | tuple[str, ...]",
)
HASH32 = Kind("hash", _check_hash32, "0x + 64 hex digits", python="str", key=_lower)


def _check_state_block(value: Any) -> Any:
    """A block for a state read (EIP-1898): a number or tag, a 32-byte block hash, or
    ``{"blockHash": ..., "requireCanonical": bool}`` / ``{"blockNumber": ...}``."""
    if isinstance(value, str) and len(value) == 66 and _HASH32.fullmatch(value):
        return value
    if not isinstance(value, dict):
        return _check_block(value)
    if set(value) <= {"blockHash", "requireCanonical"} and "blockHash" in value:
        canonical = value.get("requireCanonical", False)
        if not isinstance(canonical, bool):
            raise Broken("type", f"requireCanonical must be true or false, got {_shown(canonical)}")
        return {**value, "blockHash": _check_hash32(value["blockHash"])}
    if set(value) == {"blockNumber"}:
        return {"blockNumber": _check_block(value["blockNumber"])}
    raise Broken(
        "block",
        'a block object must be {"blockHash": "0x..."} (with requireCanonical, optionally) or '
        f'{{"blockNumber": "0x..."}} (EIP-1898), got {_shown(value)}',
    )


STATE_BLOCK = Kind(
    "block",
    _check_state_block,
    "0x hex block number, a Python int, a tag, or a block hash (EIP-1898)",
    python="int | str | Mapping[str, Any]",
    key=_state_block_key,
)
EVM_ADDRESSES = Kind(
    "evm-addresses",
    _check_addresses,
    "an EVM address or a list of them",
    python="str | list[str] | tuple[str, ...]",
    key=_lower,
)
TOPICS = Kind(
    "topics",
    _check_topics,
    "up to 4 topics: null, a 32-byte hash, or a list",
    python="list[Any] | tuple[Any, ...]",
    key=_lower,
)

_NO_DEFAULT: Any = type("NoDefault", (), {"__repr__": lambda self: "<no default>"})()


@dataclass(frozen=True)
class Param:
    """One parameter. `default` is filled in and sent when the caller omits the parameter;
    `server_default` is what the gateway assumes when it is not sent (documentation only);
    `helper_default` is what the method's typed helper sends when its caller omits it (a raw
    call sends nothing), taken by keyword only."""

    name: str
    kind: Kind
    doc: str
    required: bool = True
    default: Any = _NO_DEFAULT
    server_default: Any = _NO_DEFAULT
    helper_default: Any = _NO_DEFAULT
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

    @property
    def has_helper_default(self) -> bool:
        return self.helper_default is not _NO_DEFAULT

    def key(self, wire: Any) -> Any:
        """The wire value in the one form its call's keys are made of (see `Kind.key`); a value
        the key does not know (read back from a damaged file) is its own key."""
        if self.fields and isinstance(wire, Mapping):
            fields = {f.name: f for f in self.fields}
            return {
                name: fields[name].key(inner) if name in fields else inner
                for name, inner in wire.items()
            }
        key = self.kind.key
        if key is None:
            return wire
        try:
            return key(wire)
        except Exception:
            return wire

    @property
    def keyed(self) -> bool:
        """Whether some spellings of a value are one (`key` is not the wire value itself)."""
        return self.kind.key is not None or any(f.keyed for f in self.fields)

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
