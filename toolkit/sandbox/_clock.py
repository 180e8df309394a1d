"""Sandbox time, chain heads that follow it, and block timestamps that never depend on it.

Every chain starts at a base head chosen from the seed, at `ANCHOR_UNIX_S`. Sandbox time then
moves on in one of two ways:

- ``"requests"`` (the default): each node request the sandbox serves is `REQUEST_S` seconds of
  sandbox time. The same calls see the same heads however fast or slow they come, so a notebook
  stepped through by hand shows the blocks Run All shows, and two runs show the same.
- ``"wall"``: sandbox time is wall time since the sandbox started (for watching heads move while
  nothing is asked, or timing-dependent tests).

Either way `pace` scales it (0 freezes the heads). A block's timestamp is a pure function of its
number, so the same block always carries the same time.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime

ANCHOR_UNIX_S = 1_748_736_000  # 2025-06-01T00:00:00Z: the time of every chain's base head
REQUEST_S = 1.0  # sandbox seconds a node request takes, with the "requests" clock
CLOCKS = ("requests", "wall")


class Clock:
    """Seconds of sandbox time elapsed since creation, times `pace` (0 = frozen): one
    `REQUEST_S` per `tick()` (``kind="requests"``), or wall time (``kind="wall"``)."""

    def __init__(
        self,
        pace: float = 1.0,
        now: Callable[[], float] = time.monotonic,
        *,
        kind: str = "requests",
    ):
        if pace < 0:
            raise ValueError(f"head pace must be >= 0 (0 freezes the heads), got {pace}")
        if kind not in CLOCKS:
            raise ValueError(f"clock must be one of {', '.join(CLOCKS)}, got {kind!r}")
        self.pace = pace
        self.kind = kind
        self._now = now
        self._started = now()
        self._requests = 0

    @property
    def frozen(self) -> bool:
        return self.pace == 0

    @property
    def request_s(self) -> float | None:
        """Sandbox seconds a request moves time on by, or None for the wall clock."""
        return REQUEST_S * self.pace if self.kind == "requests" else None

    def tick(self) -> None:
        """A node request is being served: with the "requests" clock, time moves on."""
        self._requests += 1

    def elapsed(self) -> float:
        if self.frozen:
            return 0.0
        if self.kind == "requests":
            return self._requests * REQUEST_S * self.pace
        return (self._now() - self._started) * self.pace

    def utc(self) -> datetime:
        """Sandbox time as a date: the base heads' time plus what has elapsed. The toolkit's
        ledger and provenance use it for the embedded sandbox, so that they show what the
        blocks show and a second run shows the same."""
        return datetime.fromtimestamp(ANCHOR_UNIX_S + self.elapsed(), UTC)


class Timeline:
    """One chain's head and block times."""

    def __init__(self, base_head: int, block_time_s: float, clock: Clock):
        self.base_head = base_head
        self.block_time_s = block_time_s
        self.clock = clock

    def head(self) -> int:
        return self.base_head + int(self.clock.elapsed() / self.block_time_s)

    def time_s(self, number: int) -> int:
        """Unix time of a block, in whole seconds."""
        return ANCHOR_UNIX_S + int((number - self.base_head) * self.block_time_s)

    def time_ms(self, number: int) -> int:
        """Unix time of a block in milliseconds (TRON's unit)."""
        return ANCHOR_UNIX_S * 1000 + int((number - self.base_head) * self.block_time_s * 1000)
