"""One live state: the explorer's ledger and budget views, and the status next to Run, follow the
gateway's ledger and budget whatever changed them (code cells, workloads, the panel itself)."""

from __future__ import annotations

import time

import pytest

import toolkit
from toolkit.widgets import LedgerView
from toolkit.widgets._explorer import Explorer


def eventually(check, seconds: float = 3.0) -> None:
    """The views redraw shortly after a change (a burst of changes is one redraw)."""
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "the view did not follow"
        time.sleep(0.02)


def test_calls_made_in_code_cells_reach_the_explorer(gw):
    explorer = Explorer(gw, node="ethereum-mainnet")
    eth = gw.node("ethereum-mainnet")
    for _ in range(5):
        eth.block_number()
    expected = f"{len(gw.ledger):,} calls, {gw.ledger.total_ru:,} RU spent"
    eventually(lambda: expected in explorer.ledger.totals.value)
    eventually(lambda: f"Session: {len(gw.ledger):,} calls" in explorer.methods.status.value)


def test_a_budget_set_anywhere_shows_in_the_panel_and_next_to_run(gw):
    explorer = Explorer(gw, node="ethereum-mainnet")
    spent = gw.ledger.counted_ru
    explorer.ledger.set_budget(spent + 40)  # the panel's button
    eventually(lambda: f"of {spent + 40:,} RU left" in explorer.methods.status.value)
    gw.set_budget(spent + 25)  # a code cell
    eventually(lambda: f"budget {spent + 25:,} RU" in explorer.ledger.totals.value)
    assert explorer.ledger.budget_input.value == str(spent + 25)
    eventually(lambda: f"of {spent + 25:,} RU left" in explorer.methods.status.value)
    gw.set_budget(None)
    eventually(lambda: "no budget set" in explorer.methods.status.value)


def test_a_budget_below_what_is_spent_is_refused_with_a_message(gw):
    gw.node("ethereum-mainnet").block_number()
    view = LedgerView(gw.meter)
    spent = gw.ledger.counted_ru
    view.set_budget(spent - 1)
    assert gw.meter.budget is None  # nothing changed
    assert "must be at least" in view.message.value and "tk-error" in view.message.value
    view.set_budget(spent + 5)
    assert gw.meter.budget.limit == spent + 5 and view.message.value == ""


def test_the_budget_box_starts_at_the_budget_there_is(gw):
    gw.set_budget(1_234)
    assert LedgerView(gw.meter).budget_input.value == "1234"
    gw.set_budget(None)
    view = LedgerView(gw.meter)  # no budget: the box is empty beside "no budget set"
    assert view.budget_input.value == "" and "no budget set" in view.totals.value
    gw.set_budget(50)
    eventually(lambda: view.budget_input.value == "50")
    gw.set_budget(None)  # removed in a code cell: the box empties too
    eventually(lambda: view.budget_input.value == "")


@pytest.mark.parametrize("typed", ["9" * 5_000, "-5", "abc", "1e400", str(2**63)])
def test_a_budget_box_with_absurd_input_names_the_problem_and_sets_nothing(gw, typed):
    view = LedgerView(gw.meter)
    view.budget_input.value = typed
    view.set_button.click()  # never a raw ValueError or OverflowError out of the click
    assert gw.meter.budget is None
    assert "tk-error" in view.message.value and "whole number of RU" in view.message.value
    assert len(view.message.value.split("</style>")[-1]) < 500  # 5,000 digits not echoed whole


def test_a_bulk_run_redraws_a_few_times_not_once_per_call(gw):
    view = LedgerView(gw.meter)
    redraws = []
    original = view.refresh

    def counting_refresh():
        redraws.append(time.monotonic())
        original()

    view._follower.redraw = counting_refresh
    eth = gw.node("ethereum-mainnet")
    head = eth.head()
    addresses = [f"0x{index:040x}" for index in range(1, 101)]
    toolkit.Workload().grid(eth, "eth_getBalance", addresses, [head - 10]).run(
        progress=False, batch_size=1
    )
    eventually(lambda: f"{len(gw.ledger):,} calls" in view.totals.value)
    assert 1 <= len(redraws) <= 20


def test_a_view_drawn_in_its_timer_thread_leaves_pandas_display_options_alone():
    # Notebook 06 once showed a DataFrame with its hashes whole on one run and cut at 50 characters
    # on the next: `DataFrame.to_html` sets `display.max_colwidth` for the whole process while it
    # writes, and the views draw their tables from a timer thread while the user's cell shows a
    # frame. Drawn without it, a table cannot change what the main thread sees meanwhile.
    import threading

    import pandas as pd

    from toolkit.widgets._html import frame_table

    frame = pd.DataFrame({"hash": ["ab" * 32] * 50, "block": range(50)})
    drawing = threading.Thread(target=lambda: [frame_table(frame) for _ in range(200)])
    seen = set()
    drawing.start()
    while drawing.is_alive():
        seen.add(pd.get_option("display.max_colwidth"))
    drawing.join()
    assert seen == {pd.get_option("display.max_colwidth")}
    assert "ab" * 32 in frame_table(frame)  # 64 characters: whole within MAX_CELL_CHARS
