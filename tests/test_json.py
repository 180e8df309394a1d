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
