"""A provenance record for the end of a notebook: what was asked of which nodes, at which heights,
for how many RU, with which toolkit, when. It shows node names only, never URLs or keys.

`provenance(gw)` covers the whole session; ``provenance(gw, entries=...)`` only some of its ledger
entries (one run's), and `Provenance.caption()` says it in one line, to print under a figure.
"""

from __future__ import annotations

import platform as _platform
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from .._reprs import key_values_html
from .._version import __version__

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..client import Entry, Gateway


@dataclass(frozen=True)
class NodeUse:
    node: str
    chain: str
    calls: int
    ru: int
    head: int | None  # the last head the client saw, if it tracked one


@dataclass(frozen=True)
class Provenance:
    gateway: str  # "sandbox (seed 0)" or the platform host
    nodes: list[NodeUse]
    total_ru: int
    calls: int  # every call the ledger holds: sent, refused, cached, or not sent for an error
    sent: int = 0  # requests that went out (their attempts may be several)
    refused: int = 0  # refused by the budget before anything was sent (0 RU)
    cached: int = 0  # answered from the response cache (0 RU)
    toolkit_version: str = __version__
    python_version: str = field(default_factory=_platform.python_version)
    time: datetime = field(default_factory=lambda: datetime.now(UTC))

    @property
    def not_sent(self) -> int:
        """Calls never sent for another reason (the gateway unreachable, cancelled first)."""
        return self.calls - self.sent - self.refused - self.cached

    def rows(self) -> list[tuple[str, str]]:
        rows = [
            ("gateway", self.gateway),
            ("time (UTC)", self.time.strftime("%Y-%m-%d %H:%M:%S")),
            ("toolkit", f"node-gateway-toolkit {self.toolkit_version}"),
            ("python", self.python_version),
            (
                "calls",
                f"{self.calls:,}: {self.sent:,} sent, {self.refused:,} refused by the budget, "
                f"{self.cached:,} from the cache"
                + (f", {self.not_sent:,} not sent (errors)" if self.not_sent else ""),
            ),
            ("RU spent", f"{self.total_ru:,}"),
        ]
        for use in self.nodes:
            head = f", head {use.head:,}" if use.head is not None else ""
            rows.append((use.node, f"{use.chain}: {use.calls:,} calls, {use.ru:,} RU{head}"))
        return rows

    def caption(self) -> str:
        """The record in one line, for the foot of a figure made from these calls."""
        nodes = "; ".join(
            f"{use.node} ({use.chain}{f', head {use.head:,}' if use.head is not None else ''}): "
            f"{use.calls:,} calls, {use.ru:,} RU"
            for use in self.nodes
        )
        when = self.time.strftime("%Y-%m-%d %H:%M UTC")
        return (
            f"Source: {self.gateway}, {nodes or 'no calls'} · "
            f"node-gateway-toolkit {self.toolkit_version} · {when}"
        )

    def __str__(self) -> str:
        width = max(len(key) for key, _ in self.rows())
        return "\n".join(f"{key:<{width}}  {value}" for key, value in self.rows())

    def _repr_html_(self) -> str:
        return key_values_html("Provenance", self.rows())


def provenance(gateway: Gateway, *, entries: Sequence[Entry] | None = None) -> Provenance:
    """The provenance of everything done through `gateway` so far (no request is sent), or of
    the ledger `entries` given (``gw.ledger.entries[before:]``: what one run did)."""
    entries = gateway.ledger.entries if entries is None else list(entries)
    uses = []
    for name in dict.fromkeys(entry.node for entry in entries):
        mine = [entry for entry in entries if entry.node == name]
        client = gateway.clients.get(name)
        chain = client.chain.name if client is not None else "platform"
        head = client.last_head if client is not None else None
        uses.append(NodeUse(name, chain, len(mine), sum(e.ru for e in mine), head))
    sandbox = gateway.sandbox
    where = (
        f"embedded sandbox (seed {sandbox.world.seed})"
        if sandbox is not None
        else gateway.platform.name
    )
    refused = sum(e.status == REFUSED and not e.sent for e in entries)
    cached = sum(e.cache_hit for e in entries)
    return Provenance(
        gateway=where,
        nodes=uses,
        total_ru=sum(e.ru for e in entries),
        calls=len(entries),
        sent=sum(e.sent for e in entries),
        refused=refused,
        cached=cached,
    )


REFUSED = "BudgetExceeded"  # the status of a call the budget refused: it never went out
