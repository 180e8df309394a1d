"""Planned calls (`PlannedCall`) and what they cost before any is sent: one estimate per call,
the calls the response cache answers (0 RU, class ``cached``), the chain heads their prices
need, and the `Preview` that sums them up. `Workload` plans the calls; `Workload.preview`, the
run and the Dask coordinator price them here.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING, Any, NamedTuple

from .._errors import GatewayError, ValidationError
from ..catalog import Estimate, Plan
from ..client import Node, PreparedCall
from ._dataset import already_done
from ._rows import all_same, params_text

if TYPE_CHECKING:
    import pandas as pd


class PlannedCall(NamedTuple):
    """One call of a workload: the client's `PreparedCall` and the `Node` that prices and sends
    it. A tuple: a workload of a million calls makes a million of them, and a frozen dataclass
    takes longer to make (bench/bench_records.py)."""

    node: Node
    call: PreparedCall

    @property
    def method(self) -> str:
        return self.call.method

    def __repr__(self) -> str:
        return f"<PlannedCall {self.method} on {self.node.name}>"


def estimates(
    calls: list[PlannedCall], *, fetch_heads: bool = True, cached: set[int] | None = None
) -> list[Estimate]:
    """One estimate per call, in order. Heads are fetched once per node (see `Workload`)."""
    cached = cached_calls(calls) if cached is None else cached
    if fetch_heads:
        for node in nodes_needing_heads(calls, cached, for_cache=False):
            node.head()
    priced: list[Estimate] = [CACHED] * len(calls)
    for indexes in positions_by_node(calls):
        # Priced per node in one go (the head each node knows now; nothing is fetched).
        wanted = [i for i in indexes if i not in cached]
        if wanted:
            node = calls[wanted[0]].node
            prices = node.price_known(calls[i].call for i in wanted)
            for index, estimate in zip(wanted, prices, strict=True):
                priced[index] = estimate
    return priced


def nodes_needing_heads(
    calls: list[PlannedCall], cached: set[int], *, for_cache: bool
) -> list[Node]:
    """The nodes whose calls (those the cache does not answer) need the head: asked call by
    call until one of a node's calls does, then that node's other calls are not asked."""
    if len(cached) == len(calls):  # the cache answers every call
        return []
    # Node by node, so that the calls after a node's first that needs its head are not even
    # looked at: a fresh run made a Python step for every one of its calls here.
    found: list[tuple[int, Node]] = []
    for positions in positions_by_node(calls):
        node = calls[positions[0]].node
        for index in positions:
            if index not in cached and node.needs_head(calls[index].call, for_cache=for_cache):
                found.append((index, node))
                break
    return [node for _, node in sorted(found, key=itemgetter(0))]  # in the calls' order


async def fetch_heads(calls: list[PlannedCall], cached: set[int]) -> None:
    """Fetch once, before the calls, each head they need (for pricing or for deciding what
    to cache), rather than once per concurrent call."""
    for node in nodes_needing_heads(calls, cached, for_cache=True):
        # On failure the calls that need the head fetch it themselves, or report why not.
        with contextlib.suppress(GatewayError):
            await node.aio.head()


def cached_calls(calls: list[PlannedCall]) -> set[int]:
    """Positions of the calls the response cache answers already (they will cost 0 RU)."""
    cached: set[int] = set()
    for indexes in positions_by_node(calls):
        node = calls[indexes[0]].node
        if node.cache is not None:
            held = node.in_cache([calls[i].call for i in indexes])
            cached.update(i for i, hit in zip(indexes, held, strict=True) if hit)
    return cached


def preview(
    calls: list[PlannedCall],
    *,
    plan: str | Plan = "Developer",
    fetch_heads: bool = True,
    cached: set[int] | None = None,
) -> Preview:
    """What the calls will cost, in RU and money, and how long they must take at least."""
    if not calls:
        raise ValidationError("the workload is empty", param="calls", rule="empty")
    priced = estimates(calls, fetch_heads=fetch_heads, cached=cached)
    meter = calls[0].node.meter
    chosen = plan if isinstance(plan, Plan) else meter.pricing.plan(plan)
    rows = [
        (planned.node.name, planned.method, _klass(estimate), estimate.low, estimate.high)
        for planned, estimate in zip(calls, priced, strict=True)
    ]
    return Preview(rows=rows, plan=chosen, spent_before=meter.ledger.total_ru)


def answered_by(calls: list[PlannedCall], previous: pd.DataFrame | None) -> list[int | None]:
    """For each call, the row of a dataset's `previous` rows that answers it (None: send it):
    the same call identity (gateway, node, method, params, however they are spelt)."""
    if previous is None or previous.empty:  # a new dataset: nothing to look up
        return [None] * len(calls)
    keys = [(c.node.gateway, c.node.name, c.method, params_text(c.call)) for c in calls]
    key_texts = [c.call.bound.key_json for c in calls]
    return already_done(keys, previous, key_texts)


_NODE_OF = attrgetter("node")


def positions_by_node(calls: Sequence[Any]) -> list[Sequence[int]]:
    """The positions of `calls` (planned calls, or a run's items), grouped by their node (in the
    order the nodes first appear)."""
    nodes = list(map(_NODE_OF, calls))
    if all_same(nodes):  # one node, the usual workload: no grouping pass
        return [range(len(calls))] if calls else []
    by_node: dict[int, list[int]] = {}
    for index, node in enumerate(map(id, nodes)):
        by_node.setdefault(node, []).append(index)
    return list(by_node.values())


def planned_nodes(calls: list[PlannedCall]) -> list[Node]:
    """The calls' nodes, each once, in the order they first appear."""
    return [calls[positions[0]].node for positions in positions_by_node(calls)]


CACHED = Estimate(0, 0, "answered from the response cache", archive=None)


def _klass(estimate: Estimate) -> str:
    if estimate is CACHED:
        return "cached"
    if estimate.archive is None and not estimate.exact and "head unknown" not in estimate.reason:
        return "full or archive"  # the head may move the block past the threshold meanwhile
    return {True: "archive", False: "full", None: "fixed" if estimate.exact else "unknown"}[
        estimate.archive
    ]


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
        why = ""
        if not self.exact:
            classes = {row[2] for row in self.rows}
            why = " (head unknown)" if "unknown" in classes else " (blocks near the archive line)"
        lines = [f"{self.calls:,} calls, {ru}{why}"]
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

    def __repr__(self) -> str:
        ru = f"{self.ru_low:,} RU" if self.exact else f"{self.ru_low:,}-{self.ru_high:,} RU"
        return f"<Preview {self.calls:,} calls, {ru}, {self.plan.name} plan>"

    def _repr_html_(self) -> str:
        summary = "<br>".join(self.summary().splitlines())
        return f"<p>{summary}</p>" + self.frame.to_html(index=False)
