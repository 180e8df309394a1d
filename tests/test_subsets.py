"""The subsets `make test` runs on another Python and on the declared floors: what they run
exists, and their property tests are cut to a few examples (the full search is the main run's)."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import cap_examples

ROOT = Path(__file__).resolve().parents[1]


def make_variable(name: str) -> list[str]:
    """The words of the Makefile's `name := ...` (continued lines joined)."""
    text = (ROOT / "Makefile").read_text().replace("\\\n", " ")
    found = re.search(rf"^{name} :?= (.*)$", text, re.MULTILINE)
    assert found, name
    return found.group(1).split()


def test_every_path_a_subset_names_exists():
    for name in ("OTHER_TESTS", "FLOORS_TESTS"):
        paths = make_variable(name)
        assert paths, name
        for path in paths:
            assert (ROOT / path.split("::")[0]).exists(), f"{name} names {path}, which is gone"


def test_a_property_test_is_cut_to_the_examples_asked_and_never_raised():
    seen: list[int] = []

    @settings(max_examples=300, database=None)
    @given(st.integers())
    def many(number):
        seen.append(number)

    @settings(max_examples=3, database=None)
    @given(st.integers())
    def few(number):
        seen.append(number)

    cap_examples(SimpleNamespace(obj=many), 5)
    many()
    assert 1 <= len(seen) <= 5
    seen.clear()
    cap_examples(SimpleNamespace(obj=few), 5)
    few()
    assert 1 <= len(seen) <= 3


def test_a_test_without_hypothesis_is_left_alone():
    def plain():
        return None

    cap_examples(SimpleNamespace(obj=plain), 5)
    assert not hasattr(plain, "_hypothesis_internal_use_settings")
