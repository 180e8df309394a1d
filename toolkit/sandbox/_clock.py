"""Chain heads that advance with wall time, and block timestamps that never depend on it.

Every chain starts at a base head chosen from the seed. The head then grows by one block per
`block_time_s / pace` seconds of wall time; `pace=0` freezes it, which is what byte-for-byte
determinism tests need. Block timestamps are a pure function of the block number (the base head sits
at `ANCHOR_UNIX_S`), so the same block always carries the same time.
"""

from __future__ import annotations

import time
from collections.abc import Callable

ANCHOR_UNIX_S = 1_748_736_000  # 2025-06-01T00:00:00Z: the time of every chain's base head


class Clock:
    """Seconds of sandbox time elapsed since creation: wall time times `pace` (0 = frozen)."""

    def __init__(self, pace: float = 1.0, now: Callable[[], float] = time.monotonic):
        if pace < 0:
            raise ValueError(f"head pace must be >= 0 (0 freezes the heads), got {pace}")
        self.pace = pace
        self._now = now
        self._started = now()

    @property
    def frozen(self) -> bool:
        return self.pace == 0

    def elapsed(self) -> float:
        return 0.0 if self.frozen else (self._now() - self._started) * self.pace


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
