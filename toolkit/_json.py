"""JSON decoding with a depth bound, safe whatever the recursion limit; and the one compact
encoder every layer writes with (`COMPACT_JSON`).

One reader for every JSON text that comes from outside: the client's answers, the sandbox's
requests and the widgets' JSON fields. Python's decoder recurses once per nesting level and its
only guard is the interpreter's recursion limit, which raises RecursionError at the default
limit. web3.py raises the limit to 100,000 when it is imported; after that a deeply nested text
overflows the C stack and kills the process (a notebook kernel, the test run). So the nesting is
measured before decoding, whatever the limit.

Python's decoder also takes ``NaN``, ``Infinity`` and ``-Infinity``, which are not JSON, and
reads a number too large for a float (``1e400``) as infinity: a balance of NaN would pass as a
number. Both are refused here (`NotJSONNumber`).
"""

from __future__ import annotations

import json
import math
from typing import Any

# One encoder, made once: json.dumps with options builds a new encoder on every call, which shows
# on the bulk path (call keys, wire JSON, cached answers).
COMPACT_JSON = json.JSONEncoder(separators=(",", ":"))

MAX_DEPTH = 128
"""No answer or request of the spec nests beyond a dozen levels."""

_UTF8_OPENERS = (b"{", b"[")
# Every byte but the quote and the brackets: what `bytes.translate` deletes to measure nesting.
_NOT_STRUCTURE = bytes(set(range(256)) - set(b'"[]{}'))
_NOT_STRUCTURE_OR_ESCAPE = bytes(set(range(256)) - set(b'"[]{}\\/bfnrtu'))
_QUOTE, _OPEN_SQUARE, _OPEN_CURLY = ord('"'), ord("["), ord("{")


class NestedTooDeep(ValueError):
    """A JSON text whose arrays and objects nest deeper than the bound."""

    def __init__(self, max_depth: int) -> None:
        super().__init__(f"nested deeper than {max_depth} levels")
        self.max_depth = max_depth


class NotJSONNumber(ValueError):
    """A number JSON cannot hold: the literal ``NaN``, ``Infinity`` or ``-Infinity``, or a
    number beyond a float's range (``1e400``), which Python's decoder reads as infinity."""

    def __init__(self, literal: str) -> None:
        super().__init__(f"{literal[:40]} is not a JSON number")
        self.literal = literal[:40]


def _refuse_constant(literal: str) -> Any:
    raise NotJSONNumber(literal)


def _finite_float(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise NotJSONNumber(literal)
    return value


# One decoder, made once: json.loads with options would build a new one on every call.
_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite_float)


def _nests_deeper(text: bytes, max_depth: int) -> bool:
    """Whether the arrays and objects of a JSON text nest deeper than `max_depth`, measured
    without decoding, in a few passes of C over the text (far quicker than decoding it; the
    "depth measure alone" column of bench/bench_json.py).

    Everything but quotes and brackets goes (one `bytes.translate`); in a text with backslashes,
    the escapes are kept through that pass (a backslash and what it escapes, so that each
    backslash still stands before its character) and dropped after it, ``\\\\`` pairs then
    ``\\"``, left to right as a decoder reads them. What is left is small: a bracket
    after an even number of quotes is outside every string and counts, +1 opening and -1
    closing, and the deepest running sum is the depth. A text that is
    not JSON may be measured as deeper than it is (refused as nested, still a ValueError), never
    as shallower than the part a decoder reads before it fails."""
    if b"\\" not in text:
        left = text.translate(None, _NOT_STRUCTURE)  # one pass; what is left is small
    else:  # the escapes too: a backslash and the character it escapes are both kept
        left = text.translate(None, _NOT_STRUCTURE_OR_ESCAPE)
        left = left.replace(b"\\\\", b"").replace(b'\\"', b"").translate(None, _NOT_STRUCTURE)
    if left.count(b"[") + left.count(b"{") <= max_depth:
        return False  # most answers: too few brackets to nest that deep at all
    import numpy as np  # only here: a prefix sum over the quotes and brackets, in C

    structure = np.frombuffer(left, "u1")
    quotes = structure == _QUOTE
    # Inside a string after an odd number of quotes: keep the brackets outside strings only.
    outside = (np.cumsum(quotes, dtype=np.int32) & 1) == 0
    structure = structure[outside & ~quotes]
    opening = (structure == _OPEN_SQUARE) | (structure == _OPEN_CURLY)
    steps = np.where(opening, 1, -1)
    return bool(steps.size) and int(np.cumsum(steps).max()) > max_depth


def load_bounded(text: bytes | str, max_depth: int = MAX_DEPTH) -> Any:
    """`text` as JSON; NestedTooDeep past `max_depth` levels, NotJSONNumber for a number JSON
    cannot hold, ValueError when it is not JSON.

    The depth is measured before decoding, so a text nested too deep is neither decoded nor
    walked (the walk cost more than the decoding on a typical answer)."""
    if isinstance(text, str):
        raw = text.encode("utf-8", "surrogatepass")
    else:  # json.loads' decoding; UTF-8 without a BOM, as answers are, skips detection
        raw = text
        utf8 = raw[:1] in _UTF8_OPENERS and raw[1:2] != b"\x00"  # not "{" in UTF-16-LE
        encoding = "utf-8" if utf8 else json.detect_encoding(raw)
        text = raw.decode(encoding, "surrogatepass")
        if encoding != "utf-8":  # measured in UTF-8, where no other character has a JSON byte
            raw = text.encode("utf-8", "surrogatepass")
    if _nests_deeper(raw, max_depth):
        raise NestedTooDeep(max_depth)
    if text.startswith("\ufeff"):
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    try:
        return _DECODER.decode(text)
    except RecursionError:  # cannot happen within the bound; kept for a lowered limit
        raise NestedTooDeep(max_depth) from None
