"""The chain head a node's client knows: the one owner of head state.

A head is fetched by a billed call (`NodeCore.head`); the tracker keeps the last one seen and
when, says whether it is fresh enough to price by (`head_ttl_s`), and how many blocks the chain
may add before the gateway prices a call (`drift`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from ._cache_policy import is_final


class HeadTracker:
    """The last head seen by a node's client, and whether a fetch is under way."""

    __slots__ = (
        "_block_time_s",
        "_fetch_started",
        "_fetching",
        "_held",
        "_seconds",
        "_seen",
        "_timeout_s",
        "_ttl_s",
    )

    def __init__(
        self,
        ttl_s: Callable[[], float],
        timeout_s: Callable[[], float],
        block_time_s: float,
        seconds: Callable[[], float],
        held: Callable[[], bool] = lambda: False,
    ):
        self._seen: tuple[int, float] | None = None  # (head, seconds() when seen)
        # Ages are read on the meter's clock (`Meter.seconds`): the wall's, or requests counted.
        self._seconds = seconds
        self._held = held  # True while a bulk run keeps the heads it started with (`Meter`)
        self._fetching = False
        self._fetch_started = 0.0
        self._ttl_s = ttl_s  # read at each use: the settings may change
        self._timeout_s = timeout_s
        self._block_time_s = block_time_s

    @property
    def last(self) -> int | None:
        """The last head seen, however old (for provenance, not for pricing)."""
        return self._seen[0] if self._seen else None

    def saw(self, head: int) -> None:
        # A fetched head is as old as its request: counted from when it was asked, its age
        # does not depend on how many other requests went out while it was answered.
        self._seen = (head, self._fetch_started if self._fetching else self._seconds())

    def forget(self) -> None:
        self._seen = None

    def fresh(self) -> int | None:
        """The last head, if seen within the head TTL."""
        seen = self._seen
        if seen and self._seconds() - seen[1] < self._ttl_s():
            return seen[0]
        return None

    def for_pricing(self) -> int | None:
        """A head to price by: a fresh one, or the last one while a fetch refreshes it (no
        second fetch); None when the head must be fetched first."""
        head = self.fresh()
        if head is None and (self._fetching or self._held()) and self._seen:
            head = self._seen[0]
        return head

    def drift(self) -> int:
        """Blocks the chain may add between the head we know and the gateway pricing the call:
        the head's age plus the call's whole deadline, at the chain's block time."""
        if not self._seen or not self._block_time_s:
            return 0
        age = self._seconds() - self._seen[1]
        return math.ceil((age + self._timeout_s()) / self._block_time_s)

    def for_finality(self, block: int, depth: int) -> tuple[int | None, bool]:
        """(a head to judge `block`'s finality by, whether to fetch a fresh one first). Heads
        only grow, so an old head errs on the safe side (fewer answers look final)."""
        head = self.fresh()
        if head is not None:
            return head, False
        known = self.last
        if known is not None and (self._fetching or self._held() or is_final(block, known, depth)):
            return known, False
        return known, True

    @contextmanager
    def fetching(self) -> Iterator[None]:
        """Mark a head fetch under way, so concurrent calls price by the last head meanwhile."""
        self._fetching = True
        self._fetch_started = self._seconds()
        try:
            yield
        finally:
            self._fetching = False
