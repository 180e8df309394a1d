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
import re
from typing import Any

# One encoder, made once: json.dumps with options builds a new encoder on every call, which shows
# on the bulk path (call keys, wire JSON, cached answers).
COMPACT_JSON = json.JSONEncoder(separators=(",", ":"))

MAX_DEPTH = 128
"""No answer or request of the spec nests beyond a dozen levels."""

_UTF8_OPENERS = (b"{", b"[")
_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)
_NOT_BRACKETS = bytes(set(range(256)) - set(b"[]{}"))


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
    without decoding: brackets inside strings are dropped, then a running sum in C."""
    if text.count(b"[") + text.count(b"{") <= max_depth:
        return False  # most answers: too few brackets to nest that deep at all
    import numpy as np  # only here: a prefix sum over megabytes of brackets, in C

    brackets = np.frombuffer(_JSON_STRING.sub(b"", text).translate(None, _NOT_BRACKETS), "u1")
    steps = np.where((brackets == ord("[")) | (brackets == ord("{")), 1, -1)
    return bool(steps.size) and int(np.cumsum(steps).max()) > max_depth


def load_bounded(text: bytes | str, max_depth: int = MAX_DEPTH) -> Any:
    """`text` as JSON; NestedTooDeep past `max_depth` levels, NotJSONNumber for a number JSON
    cannot hold, ValueError when it is not JSON.

    The depth is measured before decoding, so a text nested too deep is neither decoded nor
    walked (the walk cost more than the decoding on a typical answer)."""
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if _nests_deeper(raw, max_depth):
        raise NestedTooDeep(max_depth)
    if text is raw:  # json.loads' decoding; UTF-8 without a BOM, as answers are, skips detection
        encoding = "utf-8" if raw[:1] in _UTF8_OPENERS else json.detect_encoding(raw)
        text = raw.decode(encoding, "surrogatepass")
    if text.startswith("\ufeff"):
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    try:
        return _DECODER.decode(text)
    except RecursionError:  # cannot happen within the bound; kept for a lowered limit
        raise NestedTooDeep(max_depth) from None
