"""The one JSON reader for outside text: bounded depth, and no crash when a library (web3.py) has
raised the recursion limit. Each reader runs in a child process, so a crash fails the test instead
of killing the run."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from toolkit._json import NestedTooDeep, load_bounded

DEEP = 200_000  # past what the C stack holds once the recursion limit is 100,000


def test_depth_within_the_bound_is_read_and_past_it_refused():
    assert load_bounded(b"[" * 128 + b"]" * 128, 128) == eval("[" * 128 + "]" * 128)
    with pytest.raises(NestedTooDeep, match="deeper than 128 levels"):
        load_bounded("[" * 129 + "]" * 129, 128)
    with pytest.raises(NestedTooDeep):
        load_bounded(b"[" * DEEP + b"]" * DEEP)


def test_brackets_inside_strings_are_not_nesting():
    text = '{"a": "' + "[" * 1000 + '", "b": ["\\"[["]}'
    assert load_bounded(text, 3)["b"] == ['"[[']


def test_not_json_is_a_plain_value_error():
    with pytest.raises(ValueError) as caught:
        load_bounded(b"<html>")
    assert not isinstance(caught.value, NestedTooDeep)


CHILD = textwrap.dedent(
    """
    import sys
    import httpx

    sys.setrecursionlimit(100_000)  # what `import web3` does
    deep = b"[" * {deep} + b"]" * {deep}

    from toolkit._errors import MalformedResponse
    from toolkit._json import NestedTooDeep, load_bounded
    from toolkit.client._answers import parse_json
    from toolkit.sandbox._jsonrpc import decode, RpcError

    try:
        load_bounded(deep)
    except NestedTooDeep:
        print("json: refused")
    try:
        parse_json(httpx.Response(200, content=deep))
    except MalformedResponse as error:
        print("client:", "nested deeper" in str(error))
    try:
        decode(deep)
    except RpcError as error:
        print("sandbox:", "nested deeper" in str(error))
    """
)


def test_a_raised_recursion_limit_does_not_crash_any_reader():
    run = subprocess.run(
        [sys.executable, "-c", CHILD.format(deep=DEEP)], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split("\n")[:3] == ["json: refused", "client: True", "sandbox: True"]


def _depth(value) -> int:
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    return 0


def _nested(rng, depth: int):
    """A JSON value nested exactly `depth` levels, strings full of brackets, quotes, escapes."""
    alphabet = ["[", "]", "{", "}", '"', "\\", "\\\\", '\\"', "a", "n", "u", "/", "é", "\u2028"]

    def text() -> str:
        return "".join(rng.choice(alphabet) for _ in range(rng.randrange(6)))

    if depth == 0:
        return rng.choice([text(), 12345678901234567890123, 1.5, None, True])
    inner = [_nested(rng, rng.randrange(depth)) for _ in range(rng.randrange(3))]
    inner.insert(rng.randrange(len(inner) + 1), _nested(rng, depth - 1))
    if rng.random() < 0.5:
        return inner
    return {text() + str(i): value for i, value in enumerate(inner)}


def test_the_depth_measure_agrees_with_the_decoder_whatever_the_strings_hold():
    """The measure drops escapes and strings by bytes, never by decoding: on texts whose
    strings hold brackets, quotes and backslashes (escaped or not, ASCII or not), it finds the
    depth the decoded value has, exactly."""
    import json
    import random

    from toolkit._json import _nests_deeper

    rng = random.Random(27)
    for case in range(400):
        depth = rng.randrange(1, 12)
        value = _nested(rng, depth)
        assert _depth(value) == depth
        for ascii_only in (True, False):
            raw = json.dumps(value, ensure_ascii=ascii_only).encode()
            assert not _nests_deeper(raw, depth), (case, raw)
            assert _nests_deeper(raw, depth - 1), (case, raw)
            assert load_bounded(raw, depth) == json.loads(raw)


def test_texts_in_other_encodings_are_measured_as_their_characters():
    import json

    value = {"a": ["[[[" * 3, {"b": ["\u5b22"]}]}  # U+5B22: the UTF-16 bytes 0x22 0x5B
    for encoding in ("utf-16-le", "utf-16-be", "utf-32"):
        raw = json.dumps(value, ensure_ascii=False).encode(encoding)
        assert load_bounded(raw, 4) == value
        with pytest.raises(NestedTooDeep):
            load_bounded(raw, 3)


def test_nan_infinity_and_big_integers_as_before():
    from toolkit._json import NotJSONNumber

    big = 2**256 - 1
    assert load_bounded(b'{"v": %d}' % big) == {"v": big}
    for literal in (b"NaN", b"Infinity", b"-Infinity", b"1e400"):
        with pytest.raises(NotJSONNumber):
            load_bounded(b'{"v": [' + literal + b"]}")
