"""A provenance record for the end of a notebook: what was asked of which nodes, at which heights,
for how many RU, with which toolkit, when. It shows node names only, never URLs or keys.

It counts as the budget counts: RU billed, and apart from them RU that may have been billed
(sent without an answer); the chain heads fetched to price calls, named apart (they are in no
run's rows); and calls a stop cancelled, sent or not.
"""

from __future__ import annotations

import platform as _platform
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from .._reprs import key_values_html
from .._version import __version__
from ..client import CACHE_HEAD_NOTE, HEAD_NOTE

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
    unconfirmed_ru: int = 0  # sent without an answer: may have been billed


@dataclass(frozen=True)
class Provenance:
    gateway: str  # "sandbox (seed 0)" or the platform host
    nodes: list[NodeUse]
    total_ru: int  # billed: attempts that got an answer
    calls: int  # every call the ledger holds: sent, refused, cached, or not sent for an error
    sent: int = 0  # requests that went out (their attempts may be several)
    refused: int = 0  # refused by the budget before anything was sent (0 RU)
    cached: int = 0  # answered from the response cache (0 RU)
    unconfirmed_ru: int = 0  # sent without an answer (a timeout, a stop): may have been billed
    stopped: int = 0  # calls a cancel or an interrupt ended (sent or not)
    heads: int = 0  # chain heads fetched to price calls or judge finality (counted in `calls`)
    heads_ru: int = 0  # ... and what they were billed (counted in `total_ru`)
    # Replayed from a tape (0 RU now): how many calls, and what they cost when recorded.
    replayed: int = 0
    recorded_ru: int = 0
    recorded_unconfirmed_ru: int = 0
    tape: str | None = None  # "<file> recorded <when>", when the gateway has a tape
    tape_replaying: bool = False  # the tape is replayed (else recorded, or no tape)
    toolkit_version: str = __version__
    python_version: str = field(default_factory=_platform.python_version)
    time: datetime = field(default_factory=lambda: datetime.now(UTC))
    sandbox_time: bool = False  # `time` is the embedded sandbox's own, not the wall's

    @property
    def when(self) -> str:
        """`time` as the record shows it, saying when it is the sandbox's."""
        when = self.time.strftime("%Y-%m-%d %H:%M:%S")
        return f"{when} (sandbox time)" if self.sandbox_time else when

    @property
    def not_sent(self) -> int:
        """Calls never sent for another reason (the gateway unreachable, cancelled first)."""
        return self.calls - self.sent - self.refused - self.cached

    @property
    def counted_ru(self) -> int:
        """Billed plus may-have-been-billed: what the budget counts, and the most the bill is."""
        return self.total_ru + self.unconfirmed_ru

    def rows(self) -> list[tuple[str, str]]:
        rows = [
            ("gateway", self.gateway),
            ("time (UTC)", self.when),
            ("toolkit", f"node-gateway-toolkit {self.toolkit_version}"),
            ("python", self.python_version),
            (
                "calls",
                f"{self.calls:,}: {self.sent:,} sent, {self.refused:,} refused by the budget, "
                f"{self.cached:,} from the cache"
                + (f", {self.not_sent:,} not sent (errors, stops)" if self.not_sent else ""),
            ),
            ("RU spent", _ru(self.total_ru, self.unconfirmed_ru, long=True)),
        ]
        if self.heads:
            heads = f"{self.heads:,} fetched to price calls, {self.heads_ru:,} RU (counted above)"
            rows.append(("chain heads", heads))
        if self.stopped:
            rows.append(("stopped", f"{self.stopped:,} calls cancelled or interrupted"))
        if self.tape is not None:
            rows.append(("tape", self.replay_line()))
        for use in self.nodes:
            head = f", head {use.head:,}" if use.head is not None else ""
            ru = _ru(use.ru, use.unconfirmed_ru)
            rows.append((use.node, f"{use.chain}: {use.calls:,} calls, {ru}{head}"))
        return rows

    def replay_line(self) -> str:
        """What a replay cost, beside what its recording did; recording, what is recorded."""
        if self.tape is None:
            return "no tape: every call went to the gateway"
        recorded = _ru(self.recorded_ru, self.recorded_unconfirmed_ru)
        if not self.tape_replaying:
            line = f"recording to the tape {self.tape}"
            if self.replayed:  # recording on from an unfinished recording, which answered these
                line += (
                    f"; {self.replayed:,} calls answered from its earlier recording at {recorded}"
                )
            return line
        return (
            f"{self.replayed:,} calls replayed from the tape {self.tape} at {recorded}; "
            f"{_ru(self.total_ru, self.unconfirmed_ru)} now"
        )

    def caption(self) -> str:
        """The record in one line, for the foot of a figure made from these calls."""
        nodes = "; ".join(
            f"{use.node} ({use.chain}{f', head {use.head:,}' if use.head is not None else ''}): "
            f"{use.calls:,} calls, {_ru(use.ru, use.unconfirmed_ru)}"
            for use in self.nodes
        )
        when = self.time.strftime("%Y-%m-%d %H:%M UTC") + (" sandbox time" * self.sandbox_time)
        return (
            f"Source: {self.gateway}, {nodes or 'no calls'} · "
            f"node-gateway-toolkit {self.toolkit_version} · {when}"
        )

    def __str__(self) -> str:
        width = max(len(key) for key, _ in self.rows())
        return "\n".join(f"{key:<{width}}  {value}" for key, value in self.rows())

    def _repr_html_(self) -> str:
        return key_values_html("Provenance", self.rows())


def _ru(billed: int, unconfirmed: int, *, long: bool = False) -> str:
    """RU as the budget counts them: billed, and what may also have been, when there is any."""
    if not unconfirmed:
        return f"{billed:,} RU" if not long else f"{billed:,}"
    if long:
        return f"{billed:,} billed + {unconfirmed:,} that may have been (sent, no answer)"
    return f"{billed:,} RU + {unconfirmed:,} RU maybe"


def provenance(gateway: Gateway, *, entries: Sequence[Entry] | None = None) -> Provenance:
    """The provenance of everything done through `gateway` so far (no request is sent), or of
    the ledger `entries` given (``gw.ledger.since(before)``: what one run did)."""
    entries = gateway.ledger.entries if entries is None else list(entries)
    uses = []
    for name in dict.fromkeys(entry.node for entry in entries):
        mine = [entry for entry in entries if entry.node == name]
        client = gateway.clients.get(name)
        chain = client.chain.name if client is not None else "platform"
        head = client.last_head if client is not None else None
        billed, unconfirmed = sum(e.ru for e in mine), sum(e.unconfirmed_ru for e in mine)
        uses.append(NodeUse(name, chain, len(mine), billed, head, unconfirmed))
    tape = gateway.tape
    replaying = gateway.meter.clock.replaying  # the one clock says: a replay's, or not
    replayed = [e for e in entries if e.replayed]
    heads = [e for e in entries if e.note in HEAD_NOTES]
    return Provenance(
        gateway=gateway.description,
        nodes=uses,
        total_ru=sum(e.ru for e in entries),
        calls=len(entries),
        sent=sum(e.sent for e in entries),
        refused=sum(e.status == REFUSED and not e.sent for e in entries),
        cached=sum(e.cache_hit for e in entries),
        unconfirmed_ru=sum(e.unconfirmed_ru for e in entries),
        stopped=sum(e.status in STOPPED for e in entries),
        heads=len(heads),
        heads_ru=sum(e.ru for e in heads),
        replayed=len(replayed),
        recorded_ru=sum(e.recorded_ru for e in replayed),
        recorded_unconfirmed_ru=sum(e.recorded_unconfirmed_ru for e in replayed),
        # Replayed, the record is the recording's: its time, not the replay's (`GatewayClock`).
        tape=f"{tape.path.name} recorded {tape.recorded_at:%Y-%m-%d %H:%M} UTC"
        if tape is not None and replaying
        else f"{tape.path.name} (started {tape.recorded_at:%Y-%m-%d %H:%M} UTC)"
        if tape is not None
        else None,
        tape_replaying=replaying,
        time=gateway.meter.clock.record_time(),
        sandbox_time=gateway.sandbox is not None and not replaying,
    )


REFUSED = "BudgetExceeded"  # the status of a call the budget refused: it never went out
STOPPED = frozenset({"cancelled", "interrupted"})  # the statuses of calls a stop ended
HEAD_NOTES = frozenset({HEAD_NOTE, CACHE_HEAD_NOTE})  # the ledger notes of head fetches
