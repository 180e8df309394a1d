"""Property test: the Parquet writer's scrub looks for every registered secret in one pass
(`_any_of`, a regular expression of them written literally), and its result is what looking
for each secret alone and replacing it where found gives, whatever the secrets hold (regular
expression syntax, spaces, text beyond ASCII, one secret inside another)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.frames import _parquet

# Characters regular expressions treat specially, beside plain ones and text beyond ASCII.
CHARACTERS = st.sampled_from(list("ab01 .*+?()[]{}|^$\\/:-_=&%#~é—€\t"))
SECRETS = st.lists(st.text(CHARACTERS, min_size=1, max_size=8), min_size=1, max_size=4)


def _each_alone(array: pa.Array, secrets: list[str]) -> tuple[pa.Array, bool]:
    """The scrub as it was: each secret looked for alone, replaced where found."""
    found = False
    for secret in secrets:
        if pc.any(pc.match_substring(array, secret)).as_py():
            found = True
            array = pc.replace_substring(array, secret, _parquet.REDACTED)
    return array, found


@settings(max_examples=300, deadline=None)
@given(secrets=SECRETS, data=st.data())
def test_one_pass_finds_and_replaces_what_a_pass_per_secret_does(secrets, data):
    pieces = st.one_of(st.text(CHARACTERS, max_size=6), st.sampled_from(secrets))
    texts = data.draw(st.lists(st.lists(pieces, max_size=4).map("".join), max_size=6))
    array = pa.array(texts, type=pa.large_string())
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_parquet, "_secrets", lambda: secrets)
        scrubbed, found = _parquet._scrub_text(array)
    expected, expected_found = _each_alone(array, secrets)
    assert found == expected_found
    assert scrubbed.to_pylist() == expected.to_pylist()


@settings(max_examples=300, deadline=None)
@given(secret=st.text(CHARACTERS, min_size=1, max_size=8), text=st.text(CHARACTERS, max_size=12))
def test_the_pattern_matches_a_secret_literally(secret, text):
    matched = pc.match_substring_regex(pa.array([text]), _parquet._any_of([secret]))
    assert matched.to_pylist() == [secret in text]
