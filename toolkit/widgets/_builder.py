"""`WorkloadBuilder`: plan a bulk workload with a form, see what it will cost, run it, plot it.

Pick a node and a method, give addresses (pasted one per line, or picked from the examples) and a
block range with a step; the builder shows the calls, the RU, the money on a chosen plan and the
least time the calls can take, refuses to run what the budget cannot pay, runs with a progress
bar, and shows the result as a frame and a plot with the run's provenance at its foot.

It is the pipeline code uses, not a copy of it: the form becomes a `toolkit.Workload`
(`builder.workload`, to take into code) through `Workload.grid` or `Workload.each`, so every
address and block is checked by the catalog (`Method.bind`, whose message is shown at the field);
the preview is `Workload.preview`; Run is `Workload.run`. Its only rules of its own are the shape
of the block range (a step of at least 1, a last block not before the first) and `max_calls`.

The methods it offers are read from the catalog: those of the node's chain that have a `Recipe`
below (how the rows become a frame and a plot). A method with one required input besides its
block (``eth_getBalance``: the address) is planned for every address at every block; one whose
only input is its block (``wallet/gettransactioninfobyblocknum``) once per block.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from .. import frames, plots
from .._errors import GatewayError, ValidationError
from ..catalog import Method, Param, chain_for, lookup
from ..workloads import Preview, Workload, provenance
from ._html import STYLE, error_message, frame_table, message, text
from ._ledger_view import LedgerView
from ._live import Follower
from ._results import Presentation, ResultView, run_button
from ._shown import ShownOnce, show_widget

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

MAX_CALLS = 10_000  # the default cap: a form is for exploring, code for the millions
RUNNING = "running"


# --- recipes: what the rows of a method's workload become ------------------------------------


@dataclass(frozen=True)
class Recipe:
    """How the rows of a workload of one method become a frame (`frame(workload, rows)`) and a
    plot (a `toolkit.plots` function of that frame)."""

    caption: str
    frame: Callable[[Workload, pd.DataFrame], pd.DataFrame]
    plot: Callable[[pd.DataFrame], tuple[Any, Any]]


def _balances(work: Workload, rows: pd.DataFrame) -> pd.DataFrame:
    """`frames.evm_balances` of the run: each call's address, block and answer (NA where it
    failed), read from the run's frame as any user's code reads it."""
    return frames.evm_balances(rows)


def _transaction_infos(work: Workload, rows: pd.DataFrame) -> pd.DataFrame:
    """`frames.tron_transaction_infos` of the run: every block's records (failed blocks have
    none)."""
    return frames.tron_transaction_infos(rows)


RECIPES: dict[str, Recipe] = {
    "eth_getBalance": Recipe("Balances", _balances, plots.plot_balances),
    "wallet/gettransactioninfobyblocknum": Recipe(
        "Transactions", _transaction_infos, plots.plot_fees_per_block
    ),
}


def row_input(method: Method) -> Param | None:
    """The one required input besides the block (an address), or None when the block is all the
    method takes; from the catalog: the parameters with no default other than the block's."""
    inputs = [p for p in method.params if p.required and not p.has_default and p.name != method.pin]
    return inputs[0] if inputs else None


def methods_for(chain: str) -> list[str]:
    """The methods the builder can plan on a node of `chain` (a chain name), catalog order."""
    return [name for name in RECIPES if chain in lookup(name).chains]


def block_range(first: int, last: int, step: int) -> range:
    """Blocks `first` to `last`, both included, every `step` blocks (the builder's own rules)."""
    if step < 1:
        raise ValidationError(f"must be at least 1, got {step:,}", param="step", rule="min")
    if last < first:
        raise ValidationError(
            f"the last block {last:,} is before the first {first:,}", param="to", rule="range"
        )
    return range(first, last + 1, step)


class _Problem(Exception):
    """An input the builder cannot plan: `field` is where the message goes."""

    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(message)


def _rule_text(error: ValidationError) -> str:
    return f"{error.detail} (rule: {error.rule})" if error.rule else error.detail


class _Progress:
    """The object `Workload.run(progress=...)` updates, drawn as the builder's progress bar."""

    def __init__(self, bar: widgets.IntProgress, label: widgets.HTML):
        self.bar, self.label = bar, label

    def reset(self, total: int) -> None:
        self.bar.max, self.bar.value = max(total, 1), 0
        self._show()

    def update(self, n: int) -> None:
        self.bar.value = min(self.bar.value + n, self.bar.max)
        self._show()

    def _show(self) -> None:
        self.label.value = (
            f'<span class="tk-muted">{self.bar.value:,} of {self.bar.max:,} calls</span>'
        )


# --- the widget --------------------------------------------------------------------------------


class WorkloadBuilder(ShownOnce, widgets.VBox):
    """A form that plans a `Workload`, its preview and budget guard, Run, and the result.

    After each change: `workload` is the planned `toolkit.Workload` (None while an input is
    wrong), `preview` its `Workload.preview`, and `problems` what stops Run, by field (addresses,
    blocks, calls; budget when the worst case does not fit the budget left). After Run:
    `results` is `Workload.run`'s frame (a row per call), `frame` the method's frame from it,
    `figure` the plot, `error` the exception if the run itself failed.
    """

    def __init__(
        self,
        gw: Any,
        *,
        node: str | None = None,
        method: str | None = None,
        max_calls: int = MAX_CALLS,
    ):
        self.gw = gw
        self.max_calls = max_calls
        self.client: Any = None  # the picked node's client
        self.workload: Workload | None = None
        self.preview: Preview | None = None
        self.problems: dict[str, str] = {}
        self.results: pd.DataFrame | None = None
        self.error: BaseException | None = None
        self._quiet = False  # set while the form changes several fields at once
        self._running = False
        # The form and the ledger's follower (another thread) both re-check the budget.
        self._lock = threading.RLock()
        self._examples = _example_addresses(gw)

        self.node_picker = widgets.Dropdown(description="Node", options=self._node_names())
        self.method_picker = widgets.Dropdown(description="Method", options=[])
        self.summary = widgets.HTML()
        self.addresses = widgets.Textarea(
            description="Addresses",
            placeholder="one address per line",
            continuous_update=False,
            # "auto", not "100%": the box's own margin would then overflow a narrow column.
            layout=widgets.Layout(width="auto", max_width="560px", height="110px"),
        )
        self.example_picker = widgets.Dropdown(
            description="Add",
            options=[("an example address…", "")]
            + [(f"{label}  {address}", address) for label, address in self._examples.items()],
            layout=widgets.Layout(
                width="auto", max_width="560px", display="" if self._examples else "none"
            ),
        )
        # Each box wide enough for a 9-digit block beside its label (at least 150 px of input).
        short_label = {"description_width": "initial"}
        self.first = widgets.IntText(description="From block", layout=_field_layout("330px"))
        self.last = widgets.IntText(
            description="to", style=short_label, layout=_field_layout("200px")
        )
        self.step = widgets.IntText(
            value=1, description="every", style=short_label, layout=_field_layout("210px")
        )
        self.plan_picker = widgets.Dropdown(
            description="Plan", options=list(gw.meter.pricing.plans), value="Developer"
        )
        self.field_messages = {
            name: widgets.HTML() for name in ("node", "addresses", "blocks", "calls")
        }
        self.preview_view = widgets.HTML()
        self.preview_view.add_class("toolkit-builder-preview")
        self.run_button = run_button()
        self.status = widgets.HTML()
        self.status.add_class("toolkit-builder-status")
        self.progress = widgets.IntProgress(
            min=0, max=1, value=0, layout=widgets.Layout(width="300px", visibility="hidden")
        )
        self.progress_label = widgets.HTML()
        self.result = ResultView()
        self.ledger = LedgerView(gw.meter, rows=5)
        self.address_box = widgets.VBox(
            [self.addresses, self.example_picker, self.field_messages["addresses"]]
        )
        title = widgets.HTML(
            f'{STYLE}<div class="tk-title" style="font-size:17px">Workload builder</div>'
            '<div class="tk-muted">Plan many calls at once: see what they will cost before '
            "you run them. <code>builder.workload</code> is the same plan in code.</div>"
        )
        super().__init__(
            [
                title,
                _row(self.node_picker, self.method_picker),
                self.field_messages["node"],
                self.summary,
                self.address_box,
                _row(self.first, self.last, self.step),
                self.field_messages["blocks"],
                self.plan_picker,
                self.preview_view,
                self.field_messages["calls"],
                _row(self.run_button, self.status),
                _row(self.progress, self.progress_label),
                self.result,
                self.ledger,
            ],
            layout=widgets.Layout(width="100%", max_width="100%", padding="4px 8px"),
        )
        self.add_class("toolkit-workload-builder")

        self.node_picker.observe(lambda _change: self._on_node(), names="value")
        self.method_picker.observe(lambda _change: self._on_method(), names="value")
        self.example_picker.observe(self._on_example, names="value")
        for field in (self.addresses, self.first, self.last, self.step, self.plan_picker):
            field.observe(lambda _change: self._changed(), names="value")
        self.run_button.on_click(lambda _button: self.run())
        # Budgets set and calls made anywhere (the ledger panel, a code cell) re-check the guard.
        self._follower = Follower(gw.meter.ledger, self.check_budget)
        if node is not None and node != self.node_picker.value:
            self.pick(node)
        else:  # the dropdown holds its first node already: picking it again would change nothing
            self._on_node()
        if method is not None:
            self.select(method)

    def __repr__(self) -> str:
        where = "embedded sandbox" if self.gw.sandbox is not None else "gateway"
        if self.workload is None:
            return f"<WorkloadBuilder on the {where}, nothing planned>"
        return f"<WorkloadBuilder on the {where}: {self.workload!r}>"

    # --- driving it from code --------------------------------------------------------------

    def pick(self, node: str) -> None:
        """Pick a node by name (as the dropdown does)."""
        self.node_picker.value = node

    def select(self, method: str) -> None:
        """Pick a method by its spec name (as the dropdown does)."""
        self.method_picker.value = method

    def set_addresses(self, addresses: Iterable[str]) -> None:
        """Put these addresses in the box, one per line (a list, a DataFrame column...)."""
        self.addresses.value = "\n".join(addresses)

    def set_blocks(self, first: int, last: int, step: int = 1) -> None:
        """The block range, `first` to `last` included, every `step` blocks; one re-plan."""
        with self._holding():
            self.first.value, self.last.value, self.step.value = first, last, step
        self.refresh()

    @property
    def method(self) -> Method | None:
        return lookup(self.method_picker.value) if self.method_picker.value else None

    @property
    def frame(self) -> pd.DataFrame | None:
        """The last run's frame (balances, transactions), None before a run."""
        presentation = self.result.presentation
        return presentation.frame if presentation else None

    @property
    def figure(self) -> Figure | None:
        presentation = self.result.presentation
        return presentation.figure if presentation else None

    # --- the form ------------------------------------------------------------------------------

    def _node_names(self) -> list[str]:
        """Running nodes of a chain the builder has a method for (the platform's list, 0 RU)."""
        try:
            records = self.gw.nodes(ordering="name")
        except GatewayError:
            return list(self.gw.node_names)
        names = []
        for record in records:
            try:
                chain = chain_for(str(record.get("protocol"))).name
            except ValidationError:
                continue
            if record.get("status") == RUNNING and methods_for(chain):
                names.append(record["name"])
        return names

    @contextmanager
    def _holding(self) -> Iterator[None]:
        """Field changes inside do not re-plan (the caller re-plans once after)."""
        self._quiet = True
        try:
            yield
        finally:
            self._quiet = False

    def _changed(self) -> None:
        if not self._quiet:
            self.refresh()

    def _on_node(self) -> None:
        name = self.node_picker.value
        self.field_messages["node"].value = ""
        try:
            self.client = self.gw.node(name) if name else None
        except GatewayError as error:
            self.client = None
            self.field_messages["node"].value = _field_error("Node", str(error))
        names = methods_for(self.client.chain.name) if self.client is not None else []
        with self._holding():
            self.method_picker.options = names
            self.method_picker.value = names[0] if names else None
        self._on_method()

    def _on_method(self) -> None:
        if self._quiet:
            return
        method = self.method
        if method is None:
            self.summary.value = ""
            self.refresh()
            return
        by_address = row_input(method) is not None
        self.address_box.layout.display = "" if by_address else "none"
        shape = (
            "Planned for every address at every block." if by_address else "Planned once per block."
        )
        rule = self.client.meter.pricing.rule_for(method.name, method.ru)
        self.summary.value = (
            f'{STYLE}<div class="tk-muted">{text(method.summary)} {shape} '
            f"Pricing: {text(rule.describe())}.</div>"
        )
        self._fill_examples(method, by_address)
        self.refresh()

    def _fill_examples(self, method: Method, by_address: bool) -> None:
        """Against the sandbox, start with inputs that work: three accounts, a block range
        across the archive line (EVM), or ten recent blocks (TRON)."""
        sandbox = self.gw.sandbox
        if sandbox is None:
            return
        head = sandbox.world.head(self.client.chain.name)
        with self._holding():
            if by_address:
                if not self.addresses.value:
                    self.set_addresses(list(self._examples.values())[:3])
                self.first.value, self.last.value, self.step.value = head - 100_000, head, 10_000
            else:
                self.first.value, self.last.value, self.step.value = head - 19, head - 10, 1

    def _on_example(self, change: dict[str, Any]) -> None:
        address = change["new"]
        if not address:
            return
        lines = [line for line in self.addresses.value.splitlines() if line.strip()]
        self.example_picker.value = ""
        self.set_addresses([*lines, address])

    # --- planning, the preview and the guard --------------------------------------------------

    def refresh(self) -> None:
        """Plan the workload from the form, preview it, and check it against the budget."""
        with self._lock:
            self.workload = self.preview = None
            self.problems = {}
            for field in ("addresses", "blocks", "calls"):  # the node's own message stays
                self.field_messages[field].value = ""
            if self.client is None or self.method is None:
                self.preview_view.value = message("info", "Pick a running node and a method.")
                self.check_budget()
                return
            try:
                work = self._plan()
            except _Problem as problem:
                self.problems[problem.field] = str(problem)
                self.field_messages[problem.field].value = _field_error(problem.field, str(problem))
                self.preview_view.value = message(
                    "warn", "Fix the marked input to see the cost and run."
                )
                self.check_budget()
                return
            self._preview(work)
            self.workload = work
            self.check_budget()

    def _plan(self) -> Workload:
        method, node = self.method, self.client
        assert method is not None and node is not None  # `refresh` plans only when both are set
        first, last, step = self.first.value, self.last.value, self.step.value
        # Each end is a block the catalog must take (int64 at most: a range ending at 2**63-1
        # or past it is named here, not an OverflowError from counting it).
        pin = next(param for param in method.params if param.name == method.pin)
        for name, value in (("from block", first), ("to", last)):
            try:
                pin.kind.check(value)
            except ValueError as error:  # the catalog's `Broken`, with its rule
                rule = getattr(error, "rule", "")
                shown = f"{name}: {error}" + (f" (rule: {rule})" if rule else "")
                raise _Problem("blocks", shown) from None
        try:
            blocks = block_range(first, last, step)
        except ValidationError as error:
            raise _Problem("blocks", _rule_text(error)) from None
        address_input = row_input(method)
        addresses = [line.strip() for line in self.addresses.value.splitlines() if line.strip()]
        if address_input is not None and not addresses:
            raise _Problem("addresses", "give at least one address, one per line (rule: required)")
        # Counted, not `len(blocks)`: a range of more than 2**63 blocks has no len.
        count = (blocks.stop - 1 - blocks.start) // blocks.step + 1
        calls = count * (len(addresses) if address_input is not None else 1)
        if calls > self.max_calls:
            raise _Problem(
                "calls",
                f"{calls:,} calls is more than this builder plans ({self.max_calls:,}, its "
                "max_calls): take a larger step or fewer blocks (rule: max-calls)",
            )
        work = Workload()
        if address_input is None:
            try:
                return work.each(node, method.name, blocks, param=method.pin)
            except ValidationError as error:
                raise _Problem("blocks", _rule_text(error)) from None
        for line, address in enumerate(addresses, start=1):
            try:
                work.grid(node, method.name, [address], blocks)
            except ValidationError as error:
                if error.param == address_input.name:
                    raise _Problem("addresses", f"line {line}: {_rule_text(error)}") from None
                raise _Problem("blocks", _rule_text(error)) from None
        return work

    def _preview(self, work: Workload) -> None:
        plan = self.plan_picker.value
        note = ""
        try:
            self.preview = work.preview(plan=plan)
        except GatewayError as error:
            # The chain head could not be fetched (no budget left, node down): price without it,
            # which gives the range of possible costs rather than a guess.
            self.preview = work.preview(plan=plan, fetch_heads=False)
            note = f"The chain head could not be fetched ({type(error).__name__}: {error})."
        preview = self.preview
        ru = (
            f"{preview.ru_low:,} RU"
            if preview.exact
            else f"{preview.ru_low:,}-{preview.ru_high:,} RU"
        )
        lines = "<br>".join(text(line) for line in preview.summary().splitlines())
        muted = f'<br><span class="tk-muted">{text(note)}</span>' if note else ""
        self.preview_view.value = message(
            "info",
            f'<span class="tk-ru">{text(ru)}</span>'
            f'<span class="tk-muted">workload.preview():</span><br>{lines}{muted}'
            + frame_table(preview.frame),
        )

    def check_budget(self) -> None:
        """Enable Run for a planned workload whose worst case fits the budget left, else say
        why not (``problems["budget"]``). Called after every change of the form, and a moment
        after the ledger or the budget changes anywhere."""
        with self._lock:
            budget = self.gw.meter.budget
            preview = self.preview
            self.problems.pop("budget", None)
            if self._running:  # a ledger change during the run must not offer Run again
                self.run_button.disabled = True
                return
            if preview is None:
                self.run_button.disabled = True
                self.status.value = ""
                return
            if budget is not None and preview.ru_high > budget.remaining:
                self.problems["budget"] = (
                    f"this workload may cost up to {preview.ru_high:,} RU and the budget has "
                    f"{max(0, budget.remaining):,} RU left (rule: budget)"
                )
                self.run_button.disabled = True
                self.status.value = message(
                    "warn",
                    f"<b>Over budget</b>: {text(self.problems['budget'])}. Set a larger budget "
                    "below, or plan fewer calls.",
                )
                return
            self.run_button.disabled = False
            left = (
                f"budget {budget.remaining:,} of {budget.limit:,} RU left"
                if budget is not None
                else "no budget set"
            )
            self.status.value = (
                f'<span class="tk-muted">{preview.calls:,} calls, at most {preview.ru_high:,} RU '
                f"· {text(left)}</span>"
            )

    # --- running ---------------------------------------------------------------------------

    def run(self) -> None:
        """Run the planned workload (`Workload.run`, with the progress bar), then show its frame
        and plot. Refused while an input is wrong or the budget cannot pay the worst case."""
        self.check_budget()
        work = self.workload
        if work is None or self.run_button.disabled:
            return
        assert self.method is not None  # a planned workload had its method
        recipe = RECIPES[self.method.name]
        ledger = self.gw.meter.ledger
        before = len(ledger)
        self.results = self.error = None
        self._running = True
        self.run_button.disabled = True
        self.progress.layout.visibility = "visible"
        self.result.show_message(message("info", f"Running {len(work):,} calls…"))
        try:
            started = time.perf_counter()
            self.results = work.run(progress=_Progress(self.progress, self.progress_label))
            seconds = time.perf_counter() - started
            frame = recipe.frame(work, self.results)
            figure = recipe.plot(frame)[0]
            caption = provenance(self.gw, entries=ledger.since(before)).caption()
            plots.add_caption(figure, caption)
            headline = _headline(self.client.name, self.results, self.preview, seconds)
            self.result.show(headline, Presentation(((recipe.caption, frame),), figure))
        except Exception as error:  # shown, not raised: a button callback has no one to tell
            self.error = error
            self.result.show_message(error_message(error))
        except KeyboardInterrupt:  # the notebook's stop button: the run settled what it spent
            self.result.show_message(
                message("warn", "Interrupted: <code>gw.ledger</code> has what was spent.")
            )
            raise
        finally:
            self._running = False
            self.check_budget()  # Run is enabled again, whatever happened


def _headline(node: str, rows: pd.DataFrame, preview: Preview | None, seconds: float) -> str:
    summary = rows.attrs["summary"]
    failed, refused = summary["failed"], summary.get("budget_refused", 0)
    previewed = f" (previewed {preview.ru_high:,} at most)" if preview is not None else ""
    fails = ""
    if refused:
        fails = (
            f", <b>stopped at the budget</b>: {summary['calls'] - refused:,} done, "
            f"{refused:,} not sent (raise the budget and run again)"
        )
    if failed:
        errors = rows["error"]
        first = rows[errors.notna() & errors.ne("BudgetExceeded")].iloc[0]
        fails += (
            f", <b>{failed:,} failed</b>, the first with <b>{text(first['error'])}</b>: "
            f"{text(first['message'])} (every error is in <code>builder.results</code>)"
        )
    return message(
        "warn" if failed or refused else "ok",
        f"<b>{summary['calls']:,} calls</b> on <b>{text(node)}</b>: {summary['ru']:,} RU"
        f"{previewed}{fails}, {seconds:,.1f} s",
    )


def _row(*children: widgets.Widget) -> widgets.HBox:
    """Side by side when the output area has room, wrapped below each other when not (a laptop
    with JupyterLab's file browser open leaves about 600 px), as the explorer's panels do."""
    return widgets.HBox(list(children), layout=widgets.Layout(flex_flow="row wrap"))


def _field_layout(width: str) -> widgets.Layout:
    return widgets.Layout(width=width, max_width="100%")


def _field_error(field: str, detail: str) -> str:
    return f'{STYLE}<span class="tk-error">{text(field.capitalize())}: {text(detail)}</span>'


def _example_addresses(gw: Any) -> dict[str, str]:
    """Labelled example addresses: the sandbox's demo accounts, or on a real gateway the
    well-known public Ethereum mainnet accounts of `toolkit.examples.REAL_WORLD` (no request)."""
    from ..examples import REAL_WORLD, examples

    if gw.sandbox is not None:
        return dict(examples(gw).evm.accounts)
    prefix = "evm.accounts."
    return {
        key.removeprefix(prefix): address
        for key, (address, _source) in REAL_WORLD.items()
        if key.startswith(prefix)
    }


def workload_builder(
    gw: Any = None, *, node: str | None = None, method: str | None = None, show: bool = True
) -> WorkloadBuilder:
    """Display a workload builder for `gw` (the embedded sandbox when None) and return it.

    `node` and `method` pick them at the start. With ``show=False`` nothing is displayed.
    """
    if gw is None:
        from .. import connect

        gw = connect()
    return show_widget(WorkloadBuilder(gw, node=node, method=method), show)
