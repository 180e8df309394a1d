"""`LedgerView`: what was spent (the RU ledger's latest calls and totals) and the budget.

It reads a `Meter` (a gateway's or a node's: `gw.meter`, `node.meter`) and draws `Ledger.frame()`;
the budget is set with `Meter.set_budget`, the same call as `gw.set_budget`. Call `refresh()` after
calls; the combined explorer does it whenever the method explorer spends.
"""

from __future__ import annotations

import ipywidgets as widgets

from ..client import Meter
from ._html import STYLE, frame_table, text

SHOWN_COLUMNS = ["time", "node", "method", "ru", "status", "archive", "latency_s", "note"]


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
        self.budget_input = widgets.BoundedIntText(
            value=1_000, min=0, max=10**12, step=100, description="Budget (RU)"
        )
        self.set_button = widgets.Button(description="Set budget", icon="lock")
        self.clear_button = widgets.Button(description="No budget", icon="unlock")
        self.table = widgets.HTML()
        self.table.add_class("toolkit-ledger-table")
        super().__init__(
            [
                widgets.HTML(f'{STYLE}<span class="tk-title">RU ledger</span>'),
                widgets.HBox([self.totals, self.gauge]),
                widgets.HBox([self.budget_input, self.set_button, self.clear_button]),
                self.table,
            ]
        )
        self.add_class("toolkit-ledger")
        self.set_button.on_click(lambda _button: self.set_budget(self.budget_input.value))
        self.clear_button.on_click(lambda _button: self.set_budget(None))
        self.refresh()

    def set_budget(self, ru: int | None) -> None:
        """Never spend more than `ru` RU from now on (None removes the budget)."""
        self.meter.set_budget(ru)
        self.refresh()

    def refresh(self) -> None:
        ledger, budget = self.meter.ledger, self.meter.budget
        spent = f"{len(ledger):,} calls, {ledger.total_ru:,} RU spent"
        if budget is None:
            self.totals.value = f"<b>{text(spent)}</b> · no budget set"
            self.gauge.layout.visibility = "hidden"
        else:
            self.totals.value = (
                f"<b>{text(spent)}</b> · budget {budget.limit:,} RU, "
                f"<b>{budget.remaining:,} RU left</b>"
            )
            self.gauge.max = max(budget.limit, 1)
            self.gauge.value = min(budget.spent + budget.reserved, self.gauge.max)
            self.gauge.bar_style = "danger" if budget.remaining <= 0 else "info"
            self.gauge.layout.visibility = "visible"
        frame = ledger.frame()
        if frame.empty:
            self.table.value = f'{STYLE}<span class="tk-muted">No calls yet.</span>'
            return
        latest = frame.tail(self.rows).iloc[::-1][SHOWN_COLUMNS].copy()
        latest["time"] = latest["time"].dt.strftime("%H:%M:%S")
        latest["latency_s"] = latest["latency_s"].round(3)
        caption = f"Latest {len(latest)} of {len(frame):,} calls (gw.ledger.frame() has them all)"
        self.table.value = frame_table(latest, caption=caption)
