"""`MethodExplorer`: pick a catalog method of a node, fill its form, see the RU cost, run it.

Validation is `Method.bind` on the form's values (its message shown at the field it names), the
cost preview is `node.estimate` (its own text, shown as is), the call is `node.call`, and the
result goes through `toolkit.frames` (see `_results`). Nothing here knows a rule of its own.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import ipywidgets as widgets
import traitlets

from .._errors import GatewayError, ValidationError
from ..catalog import BoundCall, Estimate, Method, lookup
from ..client import Entry, PreparedCall
from ._examples import Examples
from ._form import InputError, ParamForm
from ._html import STYLE, error_message, message, text
from ._live import Follower
from ._results import ResultView, present, run_button


class MethodExplorer(widgets.VBox):
    """The methods of one node's chain, each with a form from the catalog, a live RU preview
    and a Run button. Set `node` (a client from `gw.node(...)`) to switch nodes.

    After a run: `frame` is the result as a DataFrame, `result_value` the raw result, `error` the
    exception if the call failed. `on_ledger_change(callback)` hears of every billed request
    (runs, and the chain-head fetches that pricing archive calls needs).
    """

    node = traitlets.Any(None, allow_none=True)

    def __init__(self, node: Any = None, *, examples: Examples | None = None):
        self._follower: Follower | None = None
        self._follower_ledger: Any = None
        self._examples = examples
        self._ledger_callbacks: list[Callable[[], None]] = []
        self._switching = False
        self.form: ParamForm | None = None
        self.values: dict[str, Any] = {}
        self.call: PreparedCall | None = None  # validated once per change, sent by Run
        self.estimate: Estimate | None = None
        self.result_value: Any = None
        self.error: BaseException | None = None

        self.title = widgets.HTML()
        # As wide as the panel allows, up to what the longest method name needs: a fixed width
        # wider than the panel would cut off the arrow and make the dropdown look like a text box.
        # "auto" stretches it in the panel's column; "100%" would overflow by its 2 px margins.
        self.method_picker = widgets.Dropdown(
            description="Method",
            options=[],
            layout=widgets.Layout(width="auto", max_width="460px", min_width="240px"),
        )
        self.method_picker.add_class("toolkit-method-picker")
        self.summary = widgets.HTML()
        self.form_box = widgets.VBox()
        self.preview = widgets.HTML()
        self.preview.add_class("toolkit-ru-preview")
        self.run_button = run_button()
        self.status = widgets.HTML()
        self.status.add_class("toolkit-status")
        self.result = ResultView()
        super().__init__(
            [
                self.title,
                self.method_picker,
                self.summary,
                self.form_box,
                self.preview,
                widgets.HBox(
                    [self.run_button, self.status], layout=widgets.Layout(flex_flow="row wrap")
                ),
                self.result,
            ]
        )
        self.add_class("toolkit-method-explorer")
        self.method_picker.observe(self._on_method_picked, names="value")
        self.run_button.on_click(lambda _button: self.run())
        self.observe(self._on_node, names="node")
        self.node = node
        if node is None:
            self._on_node(None)

    def __repr__(self) -> str:
        node = self.node
        if node is None:
            return "<MethodExplorer, no node>"
        return f"<MethodExplorer {self.method_picker.value} on {node.name}>"

    # --- what the user picked ---

    @property
    def method(self) -> Method | None:
        name = self.method_picker.value
        return lookup(name) if name else None

    @property
    def frame(self):
        """The last result as a DataFrame (None before a successful run)."""
        presentation = self.result.presentation
        return presentation.frame if presentation else None

    def select(self, method_name: str) -> None:
        """Pick a method by its spec name (as the dropdown does)."""
        self.method_picker.value = method_name

    def on_ledger_change(self, callback: Callable[[], None]) -> None:
        self._ledger_callbacks.append(callback)

    def _on_node(self, _change: Any) -> None:
        node = self.node
        if node is None:
            self.title.value = message("info", "Pick a running node to see its methods.")
            self._switching = True
            self.method_picker.options = []
            self._switching = False
            self.method_picker.disabled = True
            self.summary.value = ""
            self.form_box.children = []
            self.form = None
            self.preview.value = ""
            self.run_button.disabled = True
            self.result.show_message("")
            self._show_status()
            return
        if self._follower is None or self._follower_ledger is not node.ledger:
            # the status next to Run follows calls and budgets made anywhere
            self._follower = Follower(node.ledger, self._show_status)
            self._follower_ledger = node.ledger
        names = [method.name for method in node.methods]
        keep = self.method_picker.value if self.method_picker.value in names else names[0]
        self.title.value = (
            f'{STYLE}<span class="tk-title">{text(node.name)}</span> '
            f'<span class="tk-muted">{text(node.chain.name)} node, '
            f"{len(names)} method{'s' if len(names) != 1 else ''} in the catalog</span>"
        )
        self._switching = True  # one form rebuild below, not one per trait change
        self.method_picker.options = names
        self.method_picker.value = keep
        self._switching = False
        self.method_picker.disabled = False
        self._build_form()

    def _on_method_picked(self, _change: Any) -> None:
        if not self._switching and self.node is not None:
            self._build_form()

    def _build_form(self) -> None:
        method, node = self.method, self.node
        assert method is not None and node is not None  # picked before a form is built
        rule = node.meter.pricing.rule_for(method.name, method.ru)
        notes = "".join(f"<br>{text(note)}" for note in method.notes)
        self.summary.value = (
            f'{STYLE}<div class="tk-muted">{text(method.summary)} '
            f"Pricing: {text(rule.describe())}.{notes}</div>"
        )
        self.form = ParamForm(method.params)
        if self._examples is not None:
            self.form.set_values(self._examples(node.chain.name, method.name))
        self.form.on_change(self.refresh)
        self.form_box.children = [self.form]
        self.result.show_message("")
        self.refresh()

    # --- validation and the RU preview, on every change ---

    def refresh(self) -> None:
        """Validate the form with the catalog, then price the call with `node.estimate`."""
        if self.form is None:
            return
        self.form.clear_errors()
        self.call = self.estimate = None
        try:
            self.values = self.form.values()
            method = self.method
            assert self.node is not None and method is not None  # a form means both are picked
            self.call = self.node.prepare(method.name, **self.values)
        except InputError as problem:
            self._invalid(problem.path, str(problem))
            return
        except ValidationError as problem:
            self._invalid(problem.param, problem.detail)
            return
        self._price()
        self.run_button.disabled = False

    def _invalid(self, path: str | None, detail: str) -> None:
        assert self.form is not None  # only a form's values are found invalid
        self.form.show_error(path, detail)
        self.preview.value = message("warn", "Fix the marked input to see the cost and run.")
        self.run_button.disabled = True

    @property
    def bound(self) -> BoundCall | None:
        """The validated call's arguments against the catalog (None while the form is invalid)."""
        return self.call.bound if self.call is not None else None

    def _price(self) -> None:
        node = self.node
        with self._watching_ledger():
            try:
                self.estimate = node.price(self.call)
                problem = ""
            except GatewayError as error:
                # The head could not be fetched (no budget left, node down): price without it,
                # which gives the range of possible costs rather than a guess.
                self.estimate = node.price(self.call, fetch_head=False)
                problem = f"The chain head could not be fetched ({type(error).__name__}: {error})."
        estimate = self.estimate
        badge = "tk-ru tk-ru-archive" if estimate.archive else "tk-ru"
        cost = f"{estimate.low} RU" if estimate.exact else f"{estimate.low}-{estimate.high} RU"
        # The cost once, in the badge, then why (`str(estimate)` would say the cost again); the
        # page's text reads "1 RU: why", as the estimate prints, to a screen reader too.
        lines = [f'<span class="{badge}">{text(cost)}</span>: {text(estimate.reason)}']
        if problem:
            lines.append(f'<span class="tk-muted">{text(problem)}</span>')
        budget = node.meter.budget
        if budget is not None and estimate.ru > budget.remaining:
            lines.append(
                f"<b>Over budget</b>: {budget.remaining:,} RU left, so Run will refuse this call."
            )
        self.preview.value = message("info", "<br>".join(lines))

    # --- running ---

    def run(self) -> None:
        """Call the method with the form's values and show the result (or the error)."""
        if self.call is None:
            return
        node, call = self.node, self.call
        self.result_value = self.error = None
        self.run_button.disabled = True
        self.result.show_message(message("info", f"Calling {text(call.method)}…"))
        try:
            with self._watching_ledger() as added:
                started = time.perf_counter()
                self.result_value = node.send(call)
            spent = sum(e.ru for e in added)
            headline = _headline(node.name, call, time.perf_counter() - started, spent)
            self.result.show(headline, present(call.bound, self.result_value))
        except Exception as error:  # shown, not raised: a button callback has no one to tell
            self.error = error
            self.result.show_message(error_message(error))
        finally:
            self.run_button.disabled = False
        # The next preview must see the head the call may have fetched, and the budget it used.
        self._price()

    # --- the ledger ---

    @contextmanager
    def _watching_ledger(self) -> Iterator[list[Entry]]:
        """Collect the ledger entries the block adds, then refresh the status and tell listeners."""
        ledger = self.node.ledger
        before = len(ledger)
        added: list[Entry] = []
        try:
            yield added
        finally:
            added.extend(ledger.since(before))
            self._show_status()
            if added:
                for callback in self._ledger_callbacks:
                    callback()

    def _show_status(self) -> None:
        if self.node is None:
            self.status.value = ""
            return
        meter = self.node.meter
        ledger, budget = meter.ledger, meter.budget
        spent = f"Session: {len(ledger):,} calls, {ledger.total_ru:,} RU"
        left = (
            f"budget {budget.remaining:,} of {budget.limit:,} RU left"
            if budget is not None
            else "no budget set"
        )
        self.status.value = f'<span class="tk-muted">{text(spent)} · {text(left)}</span>'


def _headline(node_name: str, call: PreparedCall, seconds: float, spent: int) -> str:
    """What the call cost, read from the call itself (its receipt and estimate)."""
    receipt = call.receipt
    if receipt.cache_hit:
        cost = "0 RU (from the response cache)"
    else:
        archive = " (archive)" if call.estimate is not None and call.estimate.archive else ""
        maybe = f" + {receipt.unconfirmed_ru} RU unconfirmed" if receipt.unconfirmed_ru else ""
        cost = f"{receipt.ru} RU{archive}{maybe}"
    extra = spent - receipt.ru
    head = f", plus {extra} RU for the chain head" if extra > 0 else ""
    return message(
        "ok",
        f"<b>{text(call.method)}</b> on <b>{text(node_name)}</b>: "
        f"{cost}{head}, {seconds * 1000:,.0f} ms",
    )
