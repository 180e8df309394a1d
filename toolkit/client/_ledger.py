"""What was spent: the RU ledger, the budget, and the meter that joins them to the pricing table.

Billing rule the ledger follows (the sandbox meters by the same rule): every attempt that reached
the gateway and got an HTTP answer is billed at the call's RU price, whatever the answer was (a
result, an error object, a 429, a 5xx). An attempt that got no answer (refused or dropped
connection, timeout) is recorded with 0 RU. A retried call costs its price once per answered
attempt.

The budget is never crossed: before each attempt the meter reserves the attempt's highest possible
price (the high end of the estimate), and refuses the attempt with `BudgetExceeded` if the
reservation does not fit. Reservations are taken under a lock, so this holds for threads and for
concurrent async tasks alike.
"""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from .._errors import BudgetExceeded
from ..catalog import DEFAULT_PRICING, PricingTable

if TYPE_CHECKING:
    import pandas as pd

LEDGER_COLUMNS = (
    "time",
    "node",
    "method",
    "ru",
    "latency_s",
    "status",
    "retries",
    "cache_hit",
    "archive",
    "note",
)


@dataclass(frozen=True)
class Entry:
    """One logical call (all its attempts). `node` is a name or a redacted URL, never a key."""

    time: datetime
    node: str
    method: str
    ru: int
    latency_s: float
    status: str  # "ok", or the error class name
    retries: int = 0
    cache_hit: bool = False
    archive: bool | None = None
    note: str = ""


class Ledger:
    """An append-only, thread-safe record of calls, readable as a DataFrame."""

    def __init__(self) -> None:
        self._entries: list[Entry] = []
        self._lock = threading.Lock()

    def record(self, entry: Entry) -> None:
        with self._lock:
            self._entries.append(entry)

    @property
    def entries(self) -> list[Entry]:
        with self._lock:
            return list(self._entries)

    @property
    def total_ru(self) -> int:
        return sum(entry.ru for entry in self.entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    def frame(self) -> pd.DataFrame:
        """The ledger as a DataFrame with columns `LEDGER_COLUMNS` (time is UTC)."""
        import pandas as pd

        rows = [asdict(entry) for entry in self.entries]
        frame = pd.DataFrame(rows, columns=list(LEDGER_COLUMNS))
        frame["time"] = pd.to_datetime(frame["time"], utc=True)
        return frame.astype(
            {
                "node": "string",
                "method": "string",
                "ru": "int64",
                "latency_s": "float64",
                "status": "string",
                "retries": "int64",
                "cache_hit": "bool",
                "archive": "boolean",
                "note": "string",
            }
        )

    def summary(self) -> pd.DataFrame:
        """Calls and RU by node and method."""
        frame = self.frame()
        return (
            frame.groupby(["node", "method"], as_index=False)
            .agg(
                calls=("ru", "size"),
                ru=("ru", "sum"),
                errors=("status", lambda s: (s != "ok").sum()),
            )
            .sort_values("ru", ascending=False, ignore_index=True)
        )

    def __repr__(self) -> str:
        return f"<Ledger {len(self)} calls, {self.total_ru:,} RU>"


@dataclass
class Budget:
    """An RU limit that is never crossed. `spent` counts billed RU, `reserved` RU in flight."""

    limit: int
    spent: int = 0
    reserved: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def remaining(self) -> int:
        return self.limit - self.spent - self.reserved

    def reserve(self, ru: int, *, what: str) -> None:
        with self._lock:
            if ru > self.limit - self.spent - self.reserved:
                raise BudgetExceeded(
                    f"{what} may cost {ru} RU but only {self.remaining:,} RU of the "
                    f"{self.limit:,} RU budget remain ({self.spent:,} spent, "
                    f"{self.reserved:,} in flight); not sent",
                    needed=ru,
                    remaining=self.remaining,
                )
            self.reserved += ru

    def settle(self, reserved: int, billed: int) -> None:
        with self._lock:
            self.reserved -= reserved
            self.spent += billed


class Meter:
    """The pricing table, the ledger and the optional budget shared by a gateway's clients."""

    def __init__(
        self,
        *,
        pricing: PricingTable = DEFAULT_PRICING,
        budget: int | None = None,
        ledger: Ledger | None = None,
    ):
        self.pricing = pricing
        self.ledger = ledger if ledger is not None else Ledger()
        self.budget = Budget(budget) if budget is not None else None

    def set_budget(self, limit: int | None) -> None:
        """Set (or with None, remove) the RU budget; RU already in the ledger count as spent."""
        self.budget = None if limit is None else Budget(limit, spent=self.ledger.total_ru)

    def reserve(self, ru: int, *, what: str) -> None:
        if self.budget is not None and ru:
            self.budget.reserve(ru, what=what)

    def settle(self, reserved: int, billed: int) -> None:
        if self.budget is not None and (reserved or billed):
            self.budget.settle(reserved, billed)

    def record(self, **fields: Any) -> None:
        self.ledger.record(Entry(time=datetime.now(UTC), **fields))

    def __repr__(self) -> str:
        budget = (
            f", budget {self.budget.remaining:,}/{self.budget.limit:,} RU left"
            if self.budget
            else ""
        )
        return f"<Meter {self.ledger.total_ru:,} RU spent{budget}>"
