"""A client-side rate limiter: stay under the gateway's requests-per-second limit instead of
collecting 429s and waiting them out.

A token bucket kept as one number, the time at which it is next empty (the "generic cell rate
algorithm"). `reserve` never blocks: it says how long to wait, which the exchange turns into a
`Sleep` step, so one limiter serves both drivers and any number of threads and tasks. A JSON-RPC
batch of N calls reserves N: gateways count the calls in a batch, not the HTTP request. A bulk
run books turns far ahead (every worker holds one), so a call's timeout starts when its turn
comes, not when it is booked, and a call stopped while it waits gives its turn back (`release`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from .._errors import ValidationError


class RateLimiter:
    """At most `rate` calls per second on average, with bursts of up to `burst` calls.

    The default burst of 1 spaces calls evenly (1/rate seconds apart), which is what a gateway
    that counts calls per second sees as safely under its limit.
    """

    def __init__(
        self,
        rate: float,
        *,
        burst: int = 1,
        clock: Callable[[], float] = time.monotonic,
    ):
        if isinstance(rate, bool) or not isinstance(rate, int | float) or not rate > 0:
            raise ValidationError(
                f"must be a positive number of calls per second, got {rate!r}",
                param="rate_limit",
                rule="min",
            )
        if burst < 1:
            raise ValidationError(f"must be at least 1, got {burst!r}", param="burst", rule="min")
        self.rate = float(rate)
        self.burst = burst
        self._interval = 1.0 / self.rate
        self._clock = clock
        self._lock = threading.Lock()
        self._empty_at = clock()  # when the bucket, drained by what is booked, is empty again

    def reserve(self, calls: int = 1) -> float:
        """Book `calls` calls; return the seconds to wait before sending them (0 if none)."""
        with self._lock:
            now = self._clock()
            self._empty_at = max(self._empty_at, now) + calls * self._interval
            return max(0.0, self._empty_at - self.burst * self._interval - now)

    def release(self, calls: int = 1) -> None:
        """Give back `calls` calls booked by `reserve` and never sent (a call stopped while it
        waited its turn), so that the calls after them need not wait for a turn nobody takes."""
        with self._lock:
            self._empty_at = max(self._clock(), self._empty_at - calls * self._interval)

    def __repr__(self) -> str:
        return f"RateLimiter({self.rate:g}/s, burst={self.burst})"
