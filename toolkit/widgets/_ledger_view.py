"""`LedgerView`: what was spent (the RU ledger's latest calls and totals) and the budget.

It reads a `Meter` (a gateway's or a node's: `gw.meter`, `node.meter`) and draws `Ledger.frame`;
the budget is set with `Meter.set_budget`, the same call as `gw.set_budget`. It follows the ledger:
calls made anywhere (code cells, workloads, other widgets) and budgets set anywhere redraw it.
"""

from __future__ import annotations

import ipywidgets as widgets

from .._errors import ValidationError
from .._redact import clip
from ..client import Meter
from ._html import STYLE, frame_table, text
from ._live import Follower

SHOWN_COLUMNS = ["time", "node", "method", "ru", "status", "archive", "latency_s", "note"]


def wrap() -> widgets.Layout:
    return widgets.Layout(flex_flow="row wrap")


class LedgerView(widgets.VBox):
    """The ledger's latest calls, newest first, with totals, the budget and a way to set it."""

    def __init__(self, meter: Meter, *, rows: int = 8):
        self.meter = meter
        self.rows = rows
        self.totals = widgets.HTML()
        self.totals.add_class("toolkit-ledger-totals")
        self.gauge = widgets.IntProgress(
            min=0, max=1, value=0, layout=widgets.Layout(width="220px")
        )
        # Text, not a number box: with no budget set it is empty (a number box always shows
        # some number, which read as a budget), and what is typed is judged by `check_budget`.
        self.budget_input = widgets.Text(
            value=self._shown_budget(),
            placeholder="no budget: type RU",
            description="Budget (RU)",
            continuous_update=False,
        )
        self.budget_input.add_class("toolkit-budget-input")
        self.message = widgets.HTML()
        self.message.add_class("toolkit-ledger-message")
        self.set_button = widgets.Button(description="Set budget", icon="lock")
        self.clear_button = widgets.Button(description="No budget", icon="unlock")
        self.table = widgets.HTML()
        self.table.add_class("toolkit-ledger-table")
        super().__init__(
            [
                widgets.HTML(f'{STYLE}<span class="tk-title">RU ledger</span>'),
                # Rows wrap in a narrow output area rather than push the buttons off-screen.
                widgets.HBox([self.totals, self.gauge], layout=wrap()),
                widgets.HBox(
                    [self.budget_input, self.set_button, self.clear_button], layout=wrap()
                ),
                self.message,
                self.table,
            ]
        )
        self.add_class("toolkit-ledger")
        self.set_button.on_click(lambda _button: self._set_typed_budget())
        self.clear_button.on_click(lambda _button: self.set_budget(None))
        # Calls made anywhere (code cells, workloads) and budgets set anywhere redraw the view.
        self._shown_limit: int | None = None
        self._follower = Follower(meter.ledger, self.refresh)
        self.refresh()

    def _shown_budget(self) -> str:
        """The budget that is set, or nothing (`Meter.budget` is None unless a limit is set)."""
        budget = self.meter.budget
        return "" if budget is None or budget.limit is None else str(budget.limit)

    def _set_typed_budget(self) -> None:
        typed = self.budget_input.value.strip().replace(",", "").replace("_", "")
        if not typed:
            self.set_budget(None)
            return
        if not typed.isdigit() or len(typed) > 15:  # 10**15 RU is past any plan
            self._show_problem(
                f"must be a whole number of RU, at most 15 digits, got {clip(typed, 40)!r}"
            )
            return
        self.set_budget(int(typed))

    def _show_problem(self, detail: str) -> None:
        self.message.value = f'{STYLE}<span class="tk-error">{text(detail)}</span>'

    def __repr__(self) -> str:
        return f"<LedgerView of {self.meter!r}>"

    def set_budget(self, ru: int | None) -> None:
        """Never spend more than `ru` RU from now on (None removes the budget). A budget below
        what is already spent is refused, with the reason shown under the box."""
        try:
            self.meter.set_budget(ru)
        except ValidationError as error:
            self._show_problem(error.detail)
            return
        self.message.value = ""
        self.refresh()

    def refresh(self) -> None:
        ledger, budget = self.meter.ledger, self.meter.budget
        spent = f"{len(ledger):,} calls, {ledger.total_ru:,} RU spent"
        if budget is None:
            self.totals.value = f"<b>{text(spent)}</b> · no budget set"
            self.gauge.layout.visibility = "hidden"
            if self._shown_limit is not None:  # removed elsewhere: never overwrite typing
                self.budget_input.value = ""
        else:
            limit, remaining = budget.limit, budget.remaining
            assert limit is not None and remaining is not None  # `Meter.budget` has a limit
            self.totals.value = (
                f"<b>{text(spent)}</b> · budget {limit:,} RU, <b>{max(0, remaining):,} RU left</b>"
            )
            if limit != self._shown_limit:  # set elsewhere: never overwrite typing
                self.budget_input.value = str(limit)
            self.gauge.max = max(limit, 1)
            self.gauge.value = min(budget.spent + budget.reserved, self.gauge.max)
            self.gauge.bar_style = "danger" if remaining <= 0 else "info"
            self.gauge.layout.visibility = "visible"
        self._shown_limit = None if budget is None else budget.limit
        frame = ledger.frame
        if frame.empty:
            self.table.value = f'{STYLE}<span class="tk-muted">No calls yet.</span>'
            return
        latest = frame.tail(self.rows).iloc[::-1][SHOWN_COLUMNS].copy()
        latest["time"] = latest["time"].dt.strftime("%H:%M:%S")
        latest["latency_s"] = latest["latency_s"].round(3)
        caption = f"Latest {len(latest)} of {len(frame):,} calls (gw.ledger.frame has them all)"
        self.table.value = frame_table(latest, caption=caption)
