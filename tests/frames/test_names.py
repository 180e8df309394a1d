"""One naming scheme for frame functions, `<chain>_<what a row is>`, and the old names kept one
release: each still gives the function, with a DeprecationWarning that names the new one."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

import toolkit
from toolkit import frames

FRAME_FUNCTIONS = sorted({*frames.RUN_METHODS, "platform_nodes"})


def test_every_frame_function_is_named_for_its_chain_and_its_rows():
    assert len(FRAME_FUNCTIONS) == 29  # evm_events and evm_reads the newest
    for name in FRAME_FUNCTIONS:
        assert re.fullmatch(r"(evm|tron|ton|solana|platform)_[a-z_]+", name), name
        assert not name.endswith("_frame"), name
        assert name in frames.__all__ and getattr(frames, name).__name__ == name


@pytest.mark.parametrize(("old", "new"), sorted(frames.RENAMED.items()))
def test_an_old_name_warns_and_gives_the_renamed_function(old, new):
    assert old not in frames.__all__ and new in frames.__all__
    with pytest.warns(DeprecationWarning, match=rf"toolkit\.frames\.{old} is renamed .*\.{new};"):
        function = getattr(frames, old)
    assert function is getattr(frames, new)


def test_the_warning_points_at_the_users_line_and_from_imports_warn_too():
    with pytest.warns(DeprecationWarning) as caught:
        from toolkit.frames import balances_frame  # noqa: F401
    assert caught[0].filename == __file__
    with pytest.raises(AttributeError, match="has no attribute 'no_such_frame'"):
        frames.no_such_frame  # noqa: B018


def test_one_public_name_means_one_thing():
    """`toolkit.ton_address_forms` gave a dict while `frames.ton_address_forms` gives a
    DataFrame: the dict's function is `ton_address_variants`; the old name warns."""
    assert "ton_address_forms" not in toolkit.__all__ and "ton_address_forms" not in dir(toolkit)
    with pytest.warns(DeprecationWarning, match="renamed toolkit.ton_address_variants"):
        assert toolkit.ton_address_forms is toolkit.ton_address_variants
    shared = set(toolkit.__all__) & set(frames.__all__)
    for name in shared:  # a name in both is the same object (to_parquet, read_parquet)
        assert getattr(toolkit, name) is getattr(frames, name), name


def test_an_old_name_in_a_fresh_process_warns_once_where_it_is_used():
    code = (
        "import warnings; warnings.simplefilter('always')\n"
        "from toolkit import frames\n"
        "frames.simulation_logs\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stderr.count("DeprecationWarning") == 1
    assert (
        "<string>:3: DeprecationWarning: toolkit.frames.simulation_logs is renamed" in done.stderr
    )
