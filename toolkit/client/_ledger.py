"""What was spent: the RU ledger, the budget, and the meter that joins them to the pricing table.

Billing follows one model, shared with the sandbox's metering (`toolkit.catalog.BILLING`; the
user's account is docs/request-units.md, "What is billed"): answered is billed, sent without an
answer may have been (`unconfirmed_ru`), never sent is free. Before each attempt the meter reserves
its highest price under a lock, or refuses it with `BudgetExceeded`, and every reservation
settles however the attempt ends. A meter may carry a `SpendingJournal` (a task of a distributed
run sets one), told of each reservation before the attempt is sent, and able to refuse it.
"""

from __future__ import annotations

import functools
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from operator import attrgetter
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from .._errors import BudgetExceeded, ValidationError
from .._redact import scrub, warn
from .._reprs import key_values_html
from ..catalog import DEFAULT_PRICING, PricingTable

if TYPE_CHECKING:
    import pandas as pd

# The ledger frame's columns, in order, with their dtypes ("time" is made UTC apart).
LEDGER_COLUMNS = {
    "time": None,
    "node": "string",
    "method": "string",
    "params": "string",
    "ru": "int64",
    "unconfirmed_ru": "int64",
    "latency_s": "float64",
    "status": "string",
    "retries": "int64",
    "cache_hit": "bool",
    "archive": "bool",
    "note": "string",
    "recorded_ru": "int64",
    "recorded_unconfirmed_ru": "int64",
}


class Entry(NamedTuple):
    """One logical call (all its attempts). `node` is a name or a redacted URL, never a key.

    `params` is the call's parameters as compact JSON, as a run's frame has them (its
    ``params`` column): with `node` and `method`, it joins the ledger to a run's rows.

    A named tuple: immutable, made in the thousands by a bulk run, and, holding only atomic
    values, untracked by the garbage collector, so a long session's ledger adds nothing to each
    collection's work (a dataclass entry and its ``__dict__`` were two objects to traverse)."""

    time: datetime
    node: str
    method: str
    ru: int  # billed: attempts that got an answer
    latency_s: float
    status: str  # "ok", the error class name, "cancelled" or "interrupted"
    retries: int = 0
    unconfirmed_ru: int = 0  # sent without an answer: may have been billed
    cache_hit: bool = False
    archive: bool = False  # priced as an archive call (a head fetch, a fixed price: False)
    note: str = ""
    # Whether any attempt went out (answered or not). False for cache hits and for calls never
    # sent: refused by the budget, the gateway unreachable, cancelled before sending. Not a
    # frame column.
    sent: bool = False
    # Replayed from a tape (0 RU now): what the call cost when the tape was recorded. Not a
    # frame column, `replayed`, as `sent`.
    recorded_ru: int = 0
    recorded_unconfirmed_ru: int = 0
    replayed: bool = False
    # Last, so that entries written by position (a distributed run's journal) read back.
    params: str = ""


_RU_OF = attrgetter("ru")
_UNCONFIRMED_RU_OF = attrgetter("unconfirmed_ru")


class Ledger:
    """An append-only, thread-safe record of calls, readable as a DataFrame."""

    def __init__(self) -> None:
        self._entries: list[Entry] = []
        self._lock = threading.Lock()
        self._ru = self._unconfirmed_ru = 0  # running totals: a long session's ledger is long
        self._subscribers: list[weakref.ref] = []

    def subscribe(self, callback: Callable[[], None]) -> None:
        """Call `callback()` after entries are recorded, from whatever thread records them (a
        view that follows the ledger). Held weakly: a view that is gone stops being called."""
        make = weakref.WeakMethod if hasattr(callback, "__self__") else weakref.ref
        self._subscribers.append(make(callback))

    def _notify(self) -> None:
        for ref in list(self._subscribers):
            callback = ref()
            if callback is None:
                self._subscribers.remove(ref)
                continue
            try:
                callback()
            except Exception as error:  # a view's bug must not fail the call that was recorded
                warn(f"a ledger subscriber failed: {error!r}", RuntimeWarning)

    def record(self, entry: Entry) -> None:
        with self._lock:
            self._entries.append(entry)
            self._ru += entry.ru
            self._unconfirmed_ru += entry.unconfirmed_ru
        if self._subscribers:
            self._notify()

    def record_many(self, entries: Iterable[Entry]) -> None:
        with self._lock:
            start = len(self._entries)
            self._entries.extend(entries)
            added = self._entries[start:]
            self._ru += sum(map(_RU_OF, added))
            self._unconfirmed_ru += sum(map(_UNCONFIRMED_RU_OF, added))
        if self._subscribers:
            self._notify()

    @property
    def entries(self) -> list[Entry]:
        with self._lock:
            return list(self._entries)

    def since(self, count: int) -> list[Entry]:
        """The entries recorded after the first `count` (a follower that copies the whole list
        each time would make a long run quadratic)."""
        with self._lock:
            return self._entries[count:]

    @property
    def total_ru(self) -> int:
        """RU billed for answered attempts."""
        return self._ru

    @property
    def unconfirmed_ru(self) -> int:
        """RU of attempts sent without an answer: the gateway may have billed them."""
        return self._unconfirmed_ru

    @property
    def counted_ru(self) -> int:
        """What the budget counts: billed plus may-have-been-billed."""
        return self.total_ru + self.unconfirmed_ru

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._ru = self._unconfirmed_ru = 0
        self._notify()

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def frame(self) -> pd.DataFrame:
        """The ledger as a DataFrame with columns `LEDGER_COLUMNS` (time is UTC), made anew at
        each read. A property, as every `frame` of the toolkit is (`preview.frame` too)."""
        import pandas as pd

        frame = pd.DataFrame(self.entries, columns=Entry._fields)[list(LEDGER_COLUMNS)]
        frame["time"] = pd.to_datetime(frame["time"], utc=True)
        # Never NA, so that grouping by it adds up to `total_ru` (an entry from a journal
        # written before archive was always a bool says None: priced as no archive call).
        frame["archive"] = frame["archive"].eq(True)
        return frame.astype({name: kind for name, kind in LEDGER_COLUMNS.items() if kind})

    def summary(self) -> pd.DataFrame:
        """Calls and RU by node and method."""
        frame = self.frame
        return (
            frame.groupby(["node", "method"], as_index=False)
            .agg(
                calls=("ru", "size"),
                ru=("ru", "sum"),
                unconfirmed_ru=("unconfirmed_ru", "sum"),
                errors=("status", lambda s: (s != "ok").sum()),
            )
            .sort_values("ru", ascending=False, ignore_index=True)
        )

    def __repr__(self) -> str:
        unconfirmed = self.unconfirmed_ru
        maybe = f" (+{unconfirmed:,} RU unconfirmed)" if unconfirmed else ""
        return f"<Ledger {len(self)} calls, {self.total_ru:,} RU{maybe}>"

    def _repr_html_(self) -> str:
        """The totals, then calls and RU by node and method (never the per-call list: that is
        `frame`)."""
        rows = [("calls", f"{len(self):,}"), ("RU spent", f"{self.total_ru:,}")]
        if self.unconfirmed_ru:
            rows.append(("RU unconfirmed", f"{self.unconfirmed_ru:,} (sent, no answer)"))
        totals = key_values_html("Ledger", rows)
        if not len(self):
            return totals
        return totals + scrub(self.summary().to_html(index=False, border=0))


@dataclass
class Budget:
    """RU accounting under one lock: `spent` (billed and may-have-been-billed), `reserved` (in
    flight) and an optional `limit` that spent plus reserved never cross. It exists with no limit
    too, so a limit set while calls are in flight knows what they hold."""

    limit: int | None = None
    spent: int = 0
    reserved: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def remaining(self) -> int | None:
        return None if self.limit is None else self.limit - self.spent - self.reserved

    def reserve(self, ru: int, *, what: str) -> None:
        with self._lock:
            remaining = self.remaining
            if remaining is not None and ru > remaining:
                raise BudgetExceeded(
                    f"{what} may cost {ru} RU but only {max(0, remaining):,} RU of the "
                    f"{self.limit:,} RU budget remain ({self.spent:,} spent, "
                    f"{self.reserved:,} in flight); not sent",
                    needed=ru,
                    remaining=max(0, remaining),
                )
            self.reserved += ru

    def settle(self, reserved: int, counted: int) -> None:
        with self._lock:
            self.reserved -= reserved
            self.spent += counted

    def set_limit(self, limit: int | None) -> None:
        """Change the limit in place: calls in flight keep their reservations under it."""
        limit = check_budget(limit)
        with self._lock:
            if limit is not None and limit < self.spent:
                raise ValidationError(
                    f"must be at least the {self.spent:,} RU already spent, got {limit:,}",
                    param="budget",
                    rule="min",
                )
            self.limit = limit


def check_budget(limit: Any) -> int | None:
    """A budget setting as an int number of RU, or None; anything else is a ValidationError."""
    if limit is None:
        return None
    if isinstance(limit, float) and limit.is_integer():
        limit = int(limit)
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise ValidationError(
            f"must be a whole number of RU or None, got {limit!r}", param="budget", rule="type"
        )
    if limit < 0:
        raise ValidationError(f"must not be negative, got {limit:,}", param="budget", rule="min")
    return limit


class SpendingJournal(Protocol):
    """What a meter tells a durable record of its spending (`Meter.journal`)."""

    def reserving(self, ru: int, what: str) -> None:
        """Called once `ru` is reserved and before the attempt is sent; raising refuses the
        attempt (the reservation is given back and nothing is sent)."""

    def settled(self, reserved: int, billed: int, unconfirmed: int) -> None:
        """Called once a reservation settled; it runs in `finally` blocks, so it must not raise."""


class GatewayClock:
    """What time it is for one gateway, chosen once when its handle is made: the wall's; the
    embedded sandbox's own (`Sandbox.world.clock`, moved on by the requests it serves, so that a
    notebook run twice shows the same times); or, replaying a tape, the recording's. The ledger,
    the exchange, the workloads' runs and provenance read it; nothing else decides the time.

    Calling it says what time it is (replaying: when the latest answer served was recorded).
    `request_s`: seconds a request sent moves time on by (the sandbox's, a replay's), or None
    for the wall's: a chain head's age (`Meter.seconds`). `recording_began`: replaying, when.
    """

    def __init__(
        self,
        now: Callable[[], datetime] | None = None,
        *,
        request_s: float | None = None,
        recording_began: datetime | None = None,
    ):
        self._now = now or functools.partial(datetime.now, UTC)  # None: the wall's
        self.request_s = request_s
        self.recording_began = recording_began

    def __call__(self) -> datetime:
        return self._now()

    @property
    def replaying(self) -> bool:
        return self.recording_began is not None

    def answered_at(self, recorded: str | None) -> datetime:
        """When a call was answered: now, or for a replayed answer when it was recorded (its
        `Replayed.at`, with its UTC offset: the tape's reading checks it)."""
        return self() if recorded is None else datetime.fromisoformat(recorded)

    def record_time(self) -> datetime:
        """When a record of what was done (provenance) is dated: now, or replaying, when the
        recording began."""
        return self() if self.recording_began is None else self.recording_began

    def run_time(self, entries: Iterable[Entry]) -> datetime:
        """When a run whose ledger entries are `entries` happened: now, or replaying, when its
        last replayed call was recorded."""
        if not self.replaying:
            return self()
        return max((entry.time for entry in entries if entry.replayed), default=None) or self()

    @staticmethod
    def run_seconds(started: float, entries: Iterable[Entry]) -> float:
        """How long a run of `entries` took: since `started` (`time.perf_counter()`), or when
        every call of it was replayed, as long as its recording took."""
        entries = list(entries)
        if entries and all(entry.replayed for entry in entries):
            span = max(entry.time for entry in entries) - min(entry.time for entry in entries)
            return span.total_seconds() + max(entry.latency_s for entry in entries)
        return time.perf_counter() - started


class Meter:
    """The pricing table, the ledger and the budget shared by a gateway's clients, and the
    gateway's `clock` (`GatewayClock`), which dates what the ledger says happened."""

    journal: SpendingJournal | None = None

    def __init__(
        self,
        *,
        pricing: PricingTable = DEFAULT_PRICING,
        budget: int | None = None,
        ledger: Ledger | None = None,
        clock: GatewayClock | None = None,
    ):
        self.pricing = pricing
        self.ledger = ledger if ledger is not None else Ledger()
        self.clock = clock if clock is not None else GatewayClock()
        self.requests_sent = 0  # every attempt sent by the gateway's clients
        self._bulk_runs = 0
        self._budget = Budget(check_budget(budget), spent=self.ledger.counted_ru)

    def seconds(self) -> float:
        """Seconds passing, for a head's age: the wall's, or where time moves with requests
        (`GatewayClock.request_s`: the sandbox, a replay), requests sent counted. The same
        calls then fetch heads at the same points however fast they run, so a notebook shows
        the same twice."""
        request_s = self.clock.request_s
        return time.monotonic() if request_s is None else self.requests_sent * request_s

    @property
    def counts_requests(self) -> bool:
        """Whether time moves with requests sent (see `seconds`)."""
        return self.clock.request_s is not None

    @property
    def heads_held(self) -> bool:
        """Whether heads stay as they are until a bulk run ends (see `bulk_run`)."""
        return self._bulk_runs > 0

    @contextmanager
    def bulk_run(self) -> Iterator[None]:
        """A bulk run's sending. When time is counted in requests, heads fetched before it price
        all its calls (their age widens the drift instead): a fetch in the middle of many
        concurrent requests would land at a point that depends on which answered first, and the
        same run could then fetch a different number of heads."""
        self._bulk_runs += self.counts_requests
        try:
            yield
        finally:
            self._bulk_runs -= self.counts_requests

    @property
    def budget(self) -> Budget | None:
        """The budget when a limit is set, else None."""
        return self._budget if self._budget.limit is not None else None

    @property
    def in_flight_ru(self) -> int:
        return self._budget.reserved

    def set_budget(self, limit: int | None) -> None:
        """Set (or with None, remove) the RU limit. What was spent counts; calls in flight keep
        their reservations, so the new limit holds for them too. A limit below what was already
        spent is refused. The ledger's subscribers are told (a budget view follows it)."""
        self._budget.set_limit(limit)
        self.ledger._notify()

    def reserve(self, ru: int, *, what: str) -> None:
        if ru:
            self._budget.reserve(ru, what=what)
            if self.journal is not None:
                try:
                    self.journal.reserving(ru, what)
                except BaseException:
                    self._budget.settle(ru, 0)  # refused: nothing is sent, nothing is owed
                    raise

    def settle(self, reserved: int, billed: int, unconfirmed: int = 0) -> None:
        if reserved or billed or unconfirmed:
            self._budget.settle(reserved, billed + unconfirmed)
            if self.journal is not None:
                self.journal.settled(reserved, billed, unconfirmed)

    def __repr__(self) -> str:
        budget = self.budget
        left = f", budget {budget.remaining:,}/{budget.limit:,} RU left" if budget else ""
        return f"<Meter {self.ledger.total_ru:,} RU spent{left}>"
