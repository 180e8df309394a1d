"""The bulk progress bar: it counts calls, batches included, and its rate is calls over the time
since the calls started (not a moving average of refreshes, not since the bar was made)."""

from __future__ import annotations

import io
import warnings

import pytest

from toolkit import ValidationError
from toolkit.workloads import Workload
from toolkit.workloads._bulk import progress_bar

ADDRESSES = [f"0x{index:040x}" for index in range(1, 97)]


class Clock:
    def __init__(self):
        self.now = 1_000.0

    def __call__(self):
        return self.now


def shown_rate(bar) -> float:
    """The rate the bar prints, read back from its own text (``... 330.00call/s]``)."""
    text = bar.format_meter(**bar.format_dict)
    return float(text.rsplit(",", 1)[1].strip(" ]").removesuffix("call/s"))


def test_the_final_rate_is_calls_over_the_time_since_the_calls_started():
    # The run that showed 3.56 call/s: the bar made long before the calls (heads, pricing),
    # a first refresh after one call, then batches of 96 arriving between screen refreshes.
    bar = progress_bar(289, True, "calls")
    bar.fp = io.StringIO()  # keep the test's output clean; the arithmetic is the bar's own
    clock = Clock()
    bar._time = clock
    bar.reset(total=289)  # ... made long ago; the runner resets it when the calls start
    clock.now += 0.281
    bar.update(1)
    for _ in range(3):
        clock.now += 0.02  # within tqdm's 0.1 s between screen refreshes
        bar.update(96)
    calls, elapsed = bar.n, clock.now - bar.start_t
    assert calls == 289
    assert shown_rate(bar) == pytest.approx(calls / elapsed, rel=0.01)  # about 850 call/s
    bar.close()


class FakeBar:
    """Records what the runner tells a bar, and what the gateway had done by then."""

    def __init__(self, ledger):
        self.ledger = ledger
        self.events: list[tuple[str, int]] = []
        self.ledger_at_reset: int | None = None

    def reset(self, total=None):
        self.events.append(("reset", total))
        self.ledger_at_reset = len(self.ledger)

    def update(self, n=1):
        self.events.append(("update", n))

    def close(self):
        self.events.append(("close", 0))


def test_a_run_counts_calls_in_batches_and_starts_the_clock_when_calls_start(make_gateway):
    gateway = make_gateway()
    eth = gateway.node("ethereum-mainnet")
    head = eth.head()
    gateway.ledger.clear()
    eth_cache_free = Workload().grid(eth, "eth_getBalance", ADDRESSES, [head - 500, "latest"])
    bar = FakeBar(gateway.ledger)
    frame = eth_cache_free.run(progress=bar, batch_size=96)
    assert frame["error"].isna().all()
    assert bar.events[0] == ("reset", 192)
    updates = [n for kind, n in bar.events if kind == "update"]
    assert sum(updates) == len(eth_cache_free) == 192
    assert ("close", 0) not in bar.events  # the caller's bar is the caller's to close
    # The clock starts after the preparation (head fetch), before the first call is sent.
    sent = [e for e in gateway.ledger.entries if e.method == "eth_getBalance"]
    assert len(sent) == 192
    assert bar.ledger_at_reset == len(gateway.ledger) - len(sent)


def test_progress_must_be_a_flag_or_a_bar():
    assert progress_bar(3, False, "calls") is None
    with pytest.raises(ValidationError):
        progress_bar(3, "yes", "calls")


def test_a_resumed_run_counts_the_dataset_rows_as_done_but_not_in_the_rate(make_gateway, tmp_path):
    gateway = make_gateway()
    eth = gateway.node("ethereum-mainnet")
    head = eth.head()
    Workload().grid(eth, "eth_getBalance", ADDRESSES[:10], [head]).run(
        progress=False, dataset=tmp_path / "ds"
    )
    longer = Workload().grid(eth, "eth_getBalance", ADDRESSES[:30], [head])
    bar = progress_bar(len(longer), True, "calls")
    bar.fp = io.StringIO()
    longer.run(progress=bar, dataset=tmp_path / "ds")
    assert (bar.n, bar.total, bar.initial) == (30, 30, 10)  # the rate counts the 20 sent now
    bar.close()


def test_cache_hits_count_as_done_but_not_in_the_rate(make_gateway, cache_path):
    gateway = make_gateway(cache=cache_path)
    eth = gateway.node("ethereum-mainnet")
    head = eth.head()
    Workload().grid(eth, "eth_getBalance", ADDRESSES[:10], [head - 500]).run(progress=False)
    more = Workload().grid(eth, "eth_getBalance", ADDRESSES[:25], [head - 500])
    bar = progress_bar(len(more), True, "calls")
    bar.fp = io.StringIO()
    frame = more.run(progress=bar)
    assert frame["cache_hit"].sum() == 10
    assert (bar.n, bar.total, bar.initial) == (25, 25, 10)
    bar.close()


def test_a_run_whose_calls_fail_says_so_on_its_bar_in_red_and_warns_once(make_gateway, capsys):
    # Notebook 08 again after its budget was spent: every call refused, and the bar used to
    # fill up as if all went well.
    gateway = make_gateway(budget=0)
    work = Workload().grid(gateway.node("ethereum-mainnet"), "eth_getBalance", ADDRESSES[:20], [1])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = work.run(batch_size=5)  # tqdm's text bar here, as outside a notebook
    assert frame["error"].eq("BudgetExceeded").all()
    warned = [w for w in caught if "budget stopped the run" in str(w.message)]
    assert len(warned) == 1 and warned[0].category is RuntimeWarning
    assert str(warned[0].message).startswith(
        "the budget stopped the run: 0 of 20 calls done, 20 not sent"
    )
    assert warned[0].filename == __file__  # it points at the line that ran the workload
    shown = capsys.readouterr().err.rsplit("\r", 1)[-1]  # the bar as it was left
    assert "20/20" in shown and "20 not sent: budget" in shown and "failed" not in shown
    assert "\x1b[31m" in shown  # red


def test_a_run_that_went_well_keeps_its_bar_plain_and_says_nothing(make_gateway):
    gateway = make_gateway()
    work = Workload().grid(gateway.node("ethereum-mainnet"), "eth_getBalance", ADDRESSES[:20], [1])
    bar = progress_bar(len(work), True, "calls")
    bar.fp = io.StringIO()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        work.run(progress=bar)
    assert bar.colour is None and "failed" not in str(bar)
    bar.close()


def test_running_a_cell_again_never_loses_the_frame_the_user_had(make_gateway):
    # Notebook 08's run cell run again after the budget is spent: the good frame stays at hand,
    # and the warning says where.
    gateway = make_gateway()
    work = Workload().grid(gateway.node("ethereum-mainnet"), "eth_getBalance", ADDRESSES[:6], [1])
    good = work.run(progress=False)
    gateway.set_budget(gateway.ledger.counted_ru)  # nothing left
    with pytest.warns(RuntimeWarning, match="budget stopped the run") as caught:
        refused = work.run(progress=False)
    assert refused["error"].eq("BudgetExceeded").all() and work.last_result is refused
    assert work.previous_result is good
    (warning,) = caught
    assert str(warning.message).endswith(
        "the frame of the run before (6 of 6 calls answered) is in work.previous_result"
    )


class BarWithoutRefresh(FakeBar):
    """A caller's bar with a postfix of its own making, which takes no ``refresh``."""

    def set_postfix_str(self, text):
        self.events.append(("postfix", text))


@pytest.mark.parametrize("kind", [FakeBar, BarWithoutRefresh])
def test_a_callers_bar_keeps_counting_when_calls_fail(make_gateway, kind):
    gateway = make_gateway(budget=0)
    work = Workload().grid(gateway.node("ethereum-mainnet"), "eth_getBalance", ADDRESSES[:20], [1])
    bar = kind(gateway.ledger)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        work.run(progress=bar, batch_size=5)
    assert sum(n for event, n in bar.events if event == "update") == 20
    assert not [w for w in caught if "progress bar" in str(w.message)]  # never dropped
