"""A small Solidity ABI codec: function and event signatures, call data, return data and logs.

What a research pull needs and no more: the elementary types (``uintN``, ``intN``, ``address``,
``bool``, ``bytesN``, ``bytes``, ``string``) and arrays of them (``T[]``, ``T[k]``, nested), in
the standard head/tail encoding. Tuples are refused with a sentence rather than half-supported.
eth-abi (29 MiB with its dependencies) does the same and more; the tests use it as the oracle.

Pure and strict: a value of the wrong type or range, a signature that does not parse, or return
data that is short, mis-padded or points outside itself raise `ValueError` with a sentence (the
client turns it into a `ValidationError` naming the argument). Decoding bounds every length by the
data's own size before allocating, so hostile return data costs no more than its length.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._errors import ValidationError
from .encoding import ABI_WORD, check_evm_address, keccak256, to_checksum_address

_ELEMENTARY = re.compile(r"(uint|int)(\d*)|address|bool|string|bytes(\d*)")
_ARRAY_SUFFIX = re.compile(r"\[(\d*)\]")
_NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_MAX_ARRAY = 2**16  # a fixed array longer than this is a typo, not a contract's return type


@dataclass(frozen=True)
class AbiType:
    """One parsed ABI type. `base` is the elementary name in canonical form (``uint256``,
    ``bytes32``, ``bytes``...); `dims` the array sizes from the innermost out (None: dynamic)."""

    base: str
    dims: tuple[int | None, ...] = ()

    def __str__(self) -> str:
        return self.base + "".join(f"[{'' if d is None else d}]" for d in self.dims)

    @property
    def is_dynamic(self) -> bool:
        if self.base in ("bytes", "string"):
            return True
        return any(d is None for d in self.dims)

    @property
    def element(self) -> AbiType:
        """The type of this array's items (the outermost dimension removed)."""
        return AbiType(self.base, self.dims[:-1])

    @property
    def head_words(self) -> int:
        """Words this type takes in the head of an enclosing tuple (1 when dynamic)."""
        if self.is_dynamic:
            return 1
        words = 1
        for size in self.dims:
            words *= size or 1
        return words


def parse_type(text: str) -> AbiType:
    """An ABI type from its text (``uint`` is ``uint256``, ``int`` ``int256``)."""
    if not isinstance(text, str):
        raise ValueError(f"expected an ABI type name, got {text!r}")
    spelled = text.strip()
    core = spelled.split("[", 1)[0]
    suffix = spelled[len(core) :]
    if core.startswith("(") or core == "tuple":
        raise ValueError(
            f"{text!r}: tuple types are not supported (only elementary types and arrays)"
        )
    match = _ELEMENTARY.fullmatch(core)
    if match is None:
        raise ValueError(
            f"{text!r} is not an ABI type (uintN, intN, address, bool, bytesN, bytes, string, "
            "or an array of them such as uint256[] or address[3])"
        )
    base = core
    if match.group(1):
        bits = int(match.group(2) or 256)
        if match.group(2).startswith("0") or not (8 <= bits <= 256 and bits % 8 == 0):
            raise ValueError(f"{text!r}: an integer type is 8 to 256 bits in steps of 8")
        base = f"{match.group(1)}{bits}"
    elif match.group(3):
        size = int(match.group(3))
        if match.group(3).startswith("0") or not 1 <= size <= 32:
            raise ValueError(f"{text!r}: a fixed bytes type is bytes1 to bytes32")
    dims: list[int | None] = []
    position = 0
    while position < len(suffix):
        part = _ARRAY_SUFFIX.match(suffix, position)
        if part is None:
            raise ValueError(f"{text!r}: array sizes are written [] or [k]")
        size_text = part.group(1)
        if size_text:
            size = int(size_text)
            if not 1 <= size <= _MAX_ARRAY or size_text.startswith("0"):
                raise ValueError(f"{text!r}: a fixed array has 1 to {_MAX_ARRAY:,} items")
            dims.append(size)
        else:
            dims.append(None)
        position = part.end()
    return AbiType(base, tuple(dims))


# --- encoding ------------------------------------------------------------------------------------


def encode(types: Sequence[AbiType], values: Sequence[Any]) -> bytes:
    """`values` encoded as the ABI encodes a tuple of `types` (call arguments, return data)."""
    if len(values) != len(types):
        raise ValueError(f"expected {len(types)} values, got {len(values)}")
    heads: list[bytes] = []
    tails: list[bytes] = []
    offset = sum(t.head_words for t in types) * ABI_WORD
    for abi_type, value in zip(types, values, strict=True):
        encoded = _encode_one(abi_type, value)
        if abi_type.is_dynamic:
            heads.append(_word(offset))
            tails.append(encoded)
            offset += len(encoded)
        else:
            heads.append(encoded)
    return b"".join(heads) + b"".join(tails)


def _encode_one(abi_type: AbiType, value: Any) -> bytes:
    if abi_type.dims:
        size = abi_type.dims[-1]
        if isinstance(value, str | bytes | bytearray) or not isinstance(value, Sequence):
            raise ValueError(f"{abi_type}: expected a list, got {_shown(value)}")
        if size is not None and len(value) != size:
            raise ValueError(f"{abi_type}: expected {size} items, got {len(value)}")
        items = encode([abi_type.element] * len(value), value)
        return items if size is not None else _word(len(value)) + items
    base = abi_type.base
    if base.startswith(("uint", "int")):
        return _encode_int(base, value)
    if base == "address":
        if not isinstance(value, str):
            raise ValueError(f"address: expected 0x and 40 hex digits, got {_shown(value)}")
        return bytes(12) + bytes.fromhex(check_evm_address(value)[2:])
    if base == "bool":
        if not isinstance(value, bool):
            raise ValueError(f"bool: expected True or False, got {_shown(value)}")
        return _word(int(value))
    if base == "string":
        if not isinstance(value, str):
            raise ValueError(f"string: expected text, got {_shown(value)}")
        return _dynamic_bytes(value.encode())
    data = _as_bytes(base, value)
    if base == "bytes":
        return _dynamic_bytes(data)
    size = int(base[5:])
    if len(data) > size:
        raise ValueError(f"{base}: expected at most {size} bytes, got {len(data)}")
    return data + bytes(ABI_WORD - len(data))


def _encode_int(base: str, value: Any) -> bytes:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{base}: expected an int, got {_shown(value)}")
    signed = base.startswith("int")
    bits = int(base[3 if signed else 4 :])
    low, high = (-(2 ** (bits - 1)), 2 ** (bits - 1)) if signed else (0, 2**bits)
    if not low <= value < high:
        raise ValueError(f"{base}: {value} is outside {low} to {high - 1}")
    return value.to_bytes(ABI_WORD, "big", signed=True) if signed else _word(value)


def _as_bytes(base: str, value: Any) -> bytes:
    if isinstance(value, bytes | bytearray):
        return bytes(value)
    if isinstance(value, str) and re.fullmatch(r"0x([0-9a-fA-F]{2})*", value):
        return bytes.fromhex(value[2:])
    raise ValueError(f"{base}: expected bytes or 0x hex text, got {_shown(value)}")


def _dynamic_bytes(data: bytes) -> bytes:
    return _word(len(data)) + data + bytes(-len(data) % ABI_WORD)


def _word(number: int) -> bytes:
    return number.to_bytes(ABI_WORD, "big")


# --- decoding ------------------------------------------------------------------------------------


def decode(types: Sequence[AbiType], data: bytes) -> tuple[Any, ...]:
    """Return data (or a log's data) as a tuple of Python values: ints, checksummed addresses,
    bools, bytes, str, and tuples for arrays. ValueError when `data` is not a valid encoding."""
    return _decode_tuple(list(types), memoryview(bytes(data)), 0)


def _decode_tuple(types: list[AbiType], data: memoryview, start: int) -> tuple[Any, ...]:
    values = []
    position = start
    for abi_type in types:
        if abi_type.is_dynamic:
            offset = _read_uint(data, position, f"{abi_type} offset")
            if offset > len(data) - start:
                raise ValueError(f"{abi_type}: its offset {offset:,} is past the end of the data")
            values.append(_decode_one(abi_type, data, start + offset))
        else:
            values.append(_decode_one(abi_type, data, position))
        position += abi_type.head_words * ABI_WORD
    return tuple(values)


def _decode_one(abi_type: AbiType, data: memoryview, position: int) -> Any:
    if abi_type.dims:
        size = abi_type.dims[-1]
        if size is None:
            size = _read_uint(data, position, f"{abi_type} length")
            position += ABI_WORD
        element = abi_type.element
        # Each item takes at least one word: a length beyond the data is refused before use.
        if size * element.head_words * ABI_WORD > len(data) - position:
            raise ValueError(f"{abi_type}: {size:,} items do not fit in the data")
        return _decode_tuple([element] * size, data, position)
    base = abi_type.base
    if base in ("bytes", "string"):
        length = _read_uint(data, position, f"{base} length")
        if length > len(data) - position - ABI_WORD:
            raise ValueError(f"{base}: its length {length:,} is past the end of the data")
        raw = bytes(data[position + ABI_WORD : position + ABI_WORD + length])
        if base == "bytes":
            return raw
        try:
            return raw.decode()
        except UnicodeDecodeError:
            raise ValueError("string: its bytes are not UTF-8") from None
    word = _read_word(data, position, base)
    return decode_word(base, word)


def decode_word(base: str, word: bytes) -> Any:
    """One static elementary value from its 32-byte word (also a log topic's value)."""
    if base.startswith("uint"):
        bits = int(base[4:])
        value = int.from_bytes(word, "big")
        if value >> bits:
            raise ValueError(f"{base}: {value} does not fit in {bits} bits")
        return value
    if base.startswith("int"):
        bits = int(base[3:])
        value = int.from_bytes(word, "big", signed=True)
        if not -(2 ** (bits - 1)) <= value < 2 ** (bits - 1):
            raise ValueError(f"{base}: the word is not a sign-extended {bits}-bit integer")
        return value
    if base == "address":
        if any(word[:12]):
            raise ValueError("address: its 12 padding bytes are not zero")
        return to_checksum_address("0x" + word[12:].hex())
    if base == "bool":
        if int.from_bytes(word, "big") > 1:
            raise ValueError("bool: the word is neither 0 nor 1")
        return bool(word[-1])
    size = int(base[5:])  # bytesN
    if any(word[size:]):
        raise ValueError(f"{base}: its padding bytes are not zero")
    return bytes(word[:size])


def _read_word(data: memoryview, position: int, what: str) -> bytes:
    if position < 0 or position + ABI_WORD > len(data):
        raise ValueError(f"{what}: the data ends before its word ({len(data)} bytes)")
    return bytes(data[position : position + ABI_WORD])


def _read_uint(data: memoryview, position: int, what: str) -> int:
    return int.from_bytes(_read_word(data, position, what), "big")


def _shown(value: Any, limit: int = 60) -> str:
    shown = repr(value)
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


# --- signatures ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class AbiParam:
    """One argument of a function or event: its type, its name ("" when unnamed) and, for an
    event, whether it is indexed (a topic) or in the log's data."""

    type: AbiType
    name: str = ""
    indexed: bool = False


@dataclass(frozen=True)
class Function:
    """A function by its signature: `inputs` encode the call, `outputs` decode its answer."""

    name: str
    inputs: tuple[AbiParam, ...]
    outputs: tuple[AbiParam, ...]

    @property
    def signature(self) -> str:
        """The canonical text the selector hashes: ``balanceOf(address)``."""
        return f"{self.name}({','.join(str(p.type) for p in self.inputs)})"

    @property
    def selector(self) -> bytes:
        return keccak256(self.signature.encode())[:4]

    def encode_call(self, arguments: Sequence[Any]) -> str:
        """The call data (selector and arguments) as 0x hex."""
        if len(arguments) != len(self.inputs):
            raise ValueError(
                f"{self.signature} takes {len(self.inputs)} argument"
                f"{'s' if len(self.inputs) != 1 else ''}, got {len(arguments)}"
            )
        types = [p.type for p in self.inputs]
        for index, (abi_type, value) in enumerate(zip(types, arguments, strict=True)):
            try:
                _encode_one(abi_type, value)
            except ValueError as error:
                raise ValueError(f"argument {index} ({abi_type}): {error}") from None
        return "0x" + (self.selector + encode(types, arguments)).hex()

    def decode_output(self, data: bytes | str) -> Any:
        """The return data decoded: the value for one output, a tuple for several (None for
        none). ValueError when the data is not an encoding of `outputs` (a call that reverted
        answers with an error, never with data)."""
        raw = _hex_bytes(data)
        if not self.outputs:
            return None
        if not raw:
            raise ValueError(
                f"{self.signature} returned no data: the address has no code at that block, "
                "or no such function"
            )
        values = decode([p.type for p in self.outputs], raw)
        return values[0] if len(values) == 1 else values

    @property
    def output_names(self) -> tuple[str, ...]:
        """Column names for the outputs: their names, else ``value`` (one) or ``value0``..."""
        return _column_names(self.outputs, "value")


@dataclass(frozen=True)
class Event:
    """An event by its signature; `topic0` is the hash logs carry first (not anonymous)."""

    name: str
    inputs: tuple[AbiParam, ...]

    @property
    def signature(self) -> str:
        return f"{self.name}({','.join(str(p.type) for p in self.inputs)})"

    @property
    def topic0(self) -> str:
        return "0x" + keccak256(self.signature.encode()).hex()

    @property
    def argument_names(self) -> tuple[str, ...]:
        return _column_names(self.inputs, "arg")

    def decode_log(self, topics: Sequence[str], data: bytes | str) -> dict[str, Any]:
        """A log's arguments by name. An indexed argument of a dynamic type (string, bytes, an
        array) is only its Keccak hash in the topic: that hash, as 0x hex."""
        indexed = [p for p in self.inputs if p.indexed]
        if len(topics) != len(indexed) + 1:
            raise ValueError(
                f"{self.signature} has {len(indexed)} indexed argument"
                f"{'s' if len(indexed) != 1 else ''}; the log has {len(topics)} topics"
            )
        if str(topics[0]).lower() != self.topic0:
            raise ValueError(f"the log's topic0 is not {self.signature}'s")
        in_data = [p for p in self.inputs if not p.indexed]
        data_values = iter(decode([p.type for p in in_data], _hex_bytes(data)))
        topic_values = iter(topics[1:])
        values: dict[str, Any] = {}
        for name, param in zip(self.argument_names, self.inputs, strict=True):
            if not param.indexed:
                values[name] = next(data_values)
                continue
            word = _hex_bytes(next(topic_values))
            if len(word) != ABI_WORD:
                raise ValueError(f"{name}: a topic is 32 bytes, got {len(word)}")
            if param.type.is_dynamic or param.type.dims:
                values[name] = "0x" + word.hex()
            else:
                values[name] = decode_word(param.type.base, word)
        return values


def _column_names(params: Sequence[AbiParam], stem: str) -> tuple[str, ...]:
    if len(params) == 1 and not params[0].name:
        return (stem,)
    names = [p.name or f"{stem}{i}" for i, p in enumerate(params)]
    for i, name in enumerate(names):
        if names.index(name) != i:
            names[i] = f"{stem}{i}"
    return tuple(names)


def _hex_bytes(data: bytes | str) -> bytes:
    if isinstance(data, bytes | bytearray):
        return bytes(data)
    if isinstance(data, str) and re.fullmatch(r"0x([0-9a-fA-F]{2})*", data):
        return bytes.fromhex(data[2:])
    raise ValueError(f"expected 0x hex data, got {_shown(data)}")


# The events a research pull meets first, by name. ERC-20's and ERC-721's Transfer (and Approval)
# share their topic0: they differ only in whether the third argument is indexed, so a log's
# number of topics says which one it is.
EVENTS: dict[str, str] = {
    "Transfer": "Transfer(address indexed from,address indexed to,uint256 value)",
    "Approval": "Approval(address indexed owner,address indexed spender,uint256 value)",
    "ERC721Transfer": "Transfer(address indexed from,address indexed to,uint256 indexed tokenId)",
    "ERC721Approval": (
        "Approval(address indexed owner,address indexed approved,uint256 indexed tokenId)"
    ),
    "ApprovalForAll": (
        "ApprovalForAll(address indexed owner,address indexed operator,bool approved)"
    ),
}


def function(signature: str | Mapping[str, Any]) -> Function:
    """A function from ``"balanceOf(address)(uint256)"`` (outputs in a second pair of
    parentheses; ``returns`` may precede them) or from an ABI JSON fragment (a dict, or its JSON
    text) of ``"type": "function"``."""
    fragment = _fragment(signature)
    if fragment is not None:
        if fragment.get("type", "function") != "function":
            raise ValueError(f"the ABI fragment is a {fragment.get('type')!r}, not a function")
        return Function(
            _fragment_name(fragment),
            _fragment_params(fragment.get("inputs", []), event=False),
            _fragment_params(fragment.get("outputs", []), event=False),
        )
    name, inputs, rest = _split_signature(str(signature))
    rest = rest.strip()
    if rest.startswith("returns"):
        rest = rest[len("returns") :].strip()
    outputs: tuple[AbiParam, ...] = ()
    if rest:
        if not (rest.startswith("(") and rest.endswith(")")):
            raise ValueError(
                f"{signature!r}: write the outputs in parentheses after the inputs, as in "
                "'balanceOf(address)(uint256)'"
            )
        outputs = _params(rest[1:-1], event=False)
    return Function(name, _params(inputs, event=False), outputs)


def event(signature: str | Mapping[str, Any]) -> Event:
    """An event from ``"Transfer(address indexed from,address indexed to,uint256 value)"``, an
    ABI JSON fragment of ``"type": "event"`` (an anonymous event has no topic0: refused) or a
    name of `EVENTS` ("Transfer", "Approval": ERC-20's; "ERC721Transfer", ...)."""
    if isinstance(signature, str) and signature in EVENTS:
        signature = EVENTS[signature]
    fragment = _fragment(signature)
    if fragment is not None:
        if fragment.get("type", "event") != "event":
            raise ValueError(f"the ABI fragment is a {fragment.get('type')!r}, not an event")
        if fragment.get("anonymous"):
            raise ValueError("an anonymous event has no topic0 to find its logs by")
        return Event(
            _fragment_name(fragment), _fragment_params(fragment.get("inputs", []), event=True)
        )
    name, inputs, rest = _split_signature(str(signature))
    if rest.strip():
        raise ValueError(f"{signature!r}: unexpected text after the arguments: {rest.strip()!r}")
    params = _params(inputs, event=True)
    if sum(p.indexed for p in params) > 3:
        raise ValueError(f"{signature!r}: an event has at most 3 indexed arguments")
    return Event(name, params)


def _fragment(signature: Any) -> Mapping[str, Any] | None:
    if isinstance(signature, Mapping):
        return signature
    if not isinstance(signature, str):
        raise ValueError(
            f"expected a signature text or an ABI JSON fragment, got {_shown(signature)}"
        )
    if signature.lstrip().startswith("{"):
        try:
            loaded = json.loads(signature)
        except json.JSONDecodeError as error:
            raise ValueError(f"the ABI JSON fragment does not parse: {error}") from None
        if not isinstance(loaded, Mapping):
            raise ValueError("the ABI JSON fragment must be one object")
        return loaded
    return None


def _fragment_name(fragment: Mapping[str, Any]) -> str:
    name = fragment.get("name")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(f"the ABI fragment's name must be an identifier, got {_shown(name)}")
    return name


def _fragment_params(items: Any, *, event: bool) -> tuple[AbiParam, ...]:
    if not isinstance(items, list):
        raise ValueError(f"the ABI fragment's inputs and outputs are lists, got {_shown(items)}")
    params = []
    for item in items:
        if not isinstance(item, Mapping) or not isinstance(item.get("type"), str):
            raise ValueError(f"each ABI parameter is an object with a type, got {_shown(item)}")
        name = item.get("name") or ""
        params.append(AbiParam(parse_type(item["type"]), name, bool(event and item.get("indexed"))))
    return tuple(params)


def _split_signature(signature: str) -> tuple[str, str, str]:
    text = signature.strip()
    if text.startswith(("function ", "event ")):
        text = text.split(" ", 1)[1].strip()
    opening = text.find("(")
    name = text[:opening].strip() if opening > 0 else ""
    if not _NAME.fullmatch(name):
        raise ValueError(
            f"{signature!r} is not a signature: a name, then its argument types in parentheses "
            "(such as 'balanceOf(address)(uint256)')"
        )
    depth = 0
    for index in range(opening, len(text)):
        depth += {"(": 1, ")": -1}.get(text[index], 0)
        if depth == 0:
            return name, text[opening + 1 : index], text[index + 1 :]
    raise ValueError(f"{signature!r}: its parentheses do not close")


def _params(text: str, *, event: bool) -> tuple[AbiParam, ...]:
    if not text.strip():
        return ()
    params = []
    for part in text.split(","):
        words = part.split()
        if not words:
            raise ValueError(f"an empty argument in ({text})")
        indexed = len(words) > 1 and words[1] == "indexed"
        if indexed and not event:
            raise ValueError(f"{part.strip()!r}: only an event's arguments are indexed")
        rest = words[2:] if indexed else words[1:]
        if len(rest) > 1 or (rest and not _NAME.fullmatch(rest[0])):
            raise ValueError(f"{part.strip()!r} is not 'type [indexed] [name]'")
        params.append(AbiParam(parse_type(words[0]), rest[0] if rest else "", indexed))
    return tuple(params)


# --- for the client: bad input as ValidationError, before anything is sent -----------------------


def function_call(signature: Any, arguments: Sequence[Any]) -> tuple[Function, str]:
    """The function a signature (or ABI fragment) names and its call data for `arguments`;
    `ValidationError` naming the signature or the argument when either is wrong (0 RU)."""
    try:
        parsed = function(signature)
    except ValueError as error:
        raise ValidationError(str(error), param="signature", rule="abi-signature") from None
    try:
        return parsed, parsed.encode_call(list(arguments))
    except ValueError as error:
        raise ValidationError(str(error), param="args", rule="abi-arguments") from None


def parsed_event(signature: Any) -> Event:
    """`event`, with `ValidationError` naming the parameter ``event`` for a bad signature."""
    try:
        return event(signature)
    except ValueError as error:
        raise ValidationError(str(error), param="event", rule="abi-signature") from None
