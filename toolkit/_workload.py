"""Workloads: a planned set of calls, validated and priced before any of them is sent.

    work = Workload()
    work.grid(eth, "eth_getBalance", addresses, blocks)        # N addresses x M blocks
    work.add(tron, "wallet/gettransactioninfobyblocknum", num=66_000_000)
    preview = work.preview(plan="Developer")                   # RU, money, minimum time
    preview.frame                                              # calls and RU by method and class

Every call is validated when it is added (a bad one raises at once, 0 RU). Pricing an archive-rule
call needs its chain's head: `preview` fetches each EVM head once (1 RU each, in the ledger) unless
``fetch_heads=False``, in which case those calls are priced as ranges and the preview says so.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ._catalog import BoundCall
from ._errors import ValidationError
from ._node import Node
from ._pricing import Estimate, Plan

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class PlannedCall:
    node: Node
    call: BoundCall

    @property
    def method(self) -> str:
        return self.call.method.name


@dataclass
class Workload:
    """An ordered list of validated calls on one or more nodes."""

    calls: list[PlannedCall] = field(default_factory=list)

    def add(self, node: Node, method: str, *args: Any, **kwargs: Any) -> Workload:
        """Plan one call; it is validated now."""
        self.calls.append(PlannedCall(node, node._core.bind(method, args, kwargs)))
        return self

    def grid(
        self,
        node: Node,
        method: str,
        addresses: Iterable[str],
        blocks: Iterable[int | str],
    ) -> Workload:
        """Plan `method(address, block)` for every address at every block (balances, history)."""
        blocks = list(blocks)
        for address in addresses:
            for block in blocks:
                self.add(node, method, address, block)
        return self

    def each(self, node: Node, method: str, values: Iterable[Any], *, param: str) -> Workload:
        """Plan `method` once per value of one keyword parameter (a TRON block range, names...)."""
        for value in values:
            self.add(node, method, **{param: value})
        return self

    def __len__(self) -> int:
        return len(self.calls)

    def __iter__(self) -> Iterator[PlannedCall]:
        return iter(self.calls)

    def estimates(self, *, fetch_heads: bool = True) -> list[Estimate]:
        """One estimate per call, in order. Heads are fetched once per node (see module doc)."""
        heads_needed = {id(c.node): c.node for c in self.calls if _needs_head(c)}
        if fetch_heads:
            for node in heads_needed.values():
                node.head()
        return [
            _drive(planned.node, planned.node._core.price(planned.call, fetch=False))
            for planned in self.calls
        ]

    def preview(self, *, plan: str | Plan = "Developer", fetch_heads: bool = True) -> Preview:
        """What the workload will cost, in RU and money, and how long it must take at least."""
        if not self.calls:
            raise ValidationError("the workload is empty", param="calls", rule="empty")
        estimates = self.estimates(fetch_heads=fetch_heads)
        meter = self.calls[0].node.meter
        chosen = plan if isinstance(plan, Plan) else _plan(meter.pricing.plans, plan)
        rows = [
            (planned.node.name, planned.method, _klass(estimate), estimate.low, estimate.high)
            for planned, estimate in zip(self.calls, estimates, strict=True)
        ]
        return Preview(rows=rows, plan=chosen, spent_before=meter.ledger.total_ru)


def _drive(node: Node, steps: Any) -> Any:
    """Run a pricing generator that must not do I/O (the heads are cached already)."""
    try:
        next(steps)
    except StopIteration as done:
        return done.value
    raise RuntimeError("pricing tried to fetch a head it should have had")  # pragma: no cover


def _needs_head(planned: PlannedCall) -> bool:
    core = planned.node._core
    rule = core.rule(planned.method, planned.call.method.ru)
    param = getattr(rule, "param", None)
    return param is not None and core._needs_head(planned.call.argument(param))


def _klass(estimate: Estimate) -> str:
    return {True: "archive", False: "full", None: "fixed" if estimate.exact else "unknown"}[
        estimate.archive
    ]


def _plan(plans: dict[str, Plan], name: str) -> Plan:
    for key, plan in plans.items():
        if key.lower() == name.lower():
            return plan
    raise ValidationError(
        f"unknown plan {name!r}; known: {', '.join(plans)}", param="plan", rule="choice"
    )


@dataclass(frozen=True)
class Preview:
    """A priced workload. `frame` groups calls by node, method and class (full/archive/fixed)."""

    rows: list[tuple[str, str, str, int, int]]
    plan: Plan
    spent_before: int = 0

    @property
    def calls(self) -> int:
        return len(self.rows)

    @property
    def ru_low(self) -> int:
        return sum(row[3] for row in self.rows)

    @property
    def ru_high(self) -> int:
        return sum(row[4] for row in self.rows)

    @property
    def exact(self) -> bool:
        return self.ru_low == self.ru_high

    @property
    def cost_usd(self) -> float:
        """The month's bill on the plan if this workload were all that month's use."""
        return self.plan.cost_usd(self.ru_high)

    @property
    def min_time_s(self) -> float | None:
        """The least time the calls can take at the plan's request rate (None if unpublished)."""
        rate = self.plan.requests_per_second
        return self.calls / rate if rate else None

    @property
    def frame(self) -> pd.DataFrame:
        import pandas as pd

        frame = pd.DataFrame(self.rows, columns=["node", "method", "class", "ru_low", "ru_high"])
        return (
            frame.groupby(["node", "method", "class"], as_index=False)
            .agg(calls=("ru_low", "size"), ru_low=("ru_low", "sum"), ru_high=("ru_high", "sum"))
            .astype({"node": "string", "method": "string", "class": "string"})
        )

    def summary(self) -> str:
        ru = f"{self.ru_low:,} RU" if self.exact else f"{self.ru_low:,}-{self.ru_high:,} RU"
        lines = [f"{self.calls:,} calls, {ru}" + ("" if self.exact else " (head unknown)")]
        lines.append(
            f"on the {self.plan.name} plan: ${self.cost_usd:,.2f} for a month of this alone "
            f"({self.plan.included_ru:,} RU included)"
            if math.isfinite(self.cost_usd)
            else f"over the {self.plan.name} plan's included RU, which has no overage price"
        )
        if self.min_time_s is not None:
            lines.append(
                f"at least {self.min_time_s:,.1f} s at {self.plan.requests_per_second:g} req/s"
            )
        else:
            lines.append(f"the {self.plan.name} plan publishes no rate limit")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def _repr_html_(self) -> str:
        summary = "<br>".join(self.summary().splitlines())
        return f"<p>{summary}</p>" + self.frame.to_html(index=False)
