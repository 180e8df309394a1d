"""A client-side rate limiter: stay under the gateway's requests-per-second limit instead of
collecting 429s and waiting them out.

A token bucket kept as one number, the time at which it is next empty (the "generic cell rate
algorithm"). `reserve` never blocks: it says how long to wait, which the exchange turns into a
`Sleep` step, so one limiter serves both drivers and any number of threads and tasks. A JSON-RPC
batch of N calls reserves N: gateways count the calls in a batch, not the HTTP request. A bulk
run books turns far ahead (every worker holds one), so a call's timeout starts when its turn
comes, not when it is booked, and a call stopped while it waits gives its turn back (`release`).
A turn given back shortens the wait of the calls booked after it only once every turn booked
after it was given back too: the calls already booked keep the times they were told, and a turn
freed between two of them taken again would send two calls at once.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import NamedTuple

from .._errors import ValidationError


class Turn(NamedTuple):
    """A booking: wait `wait` seconds, then send. Its share of the bucket runs from `starts` to
    `ends` (the limiter's clock), which is how `release` knows whether a later one was booked."""

    wait: float
    starts: float
    ends: float


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
        # Turns given back while later ones were still booked, their start by their end: taken
        # off the bucket once the turns after them are given back too (see the module doc).
        self._given_back: dict[float, float] = {}

    def reserve(self, calls: int = 1) -> float:
        """Book `calls` calls; return the seconds to wait before sending them (0 if none)."""
        return self.take(calls).wait

    def take(self, calls: int = 1) -> Turn:
        """Book `calls` calls, as `reserve`, and return the booking (to `release` it)."""
        with self._lock:
            now = self._clock()
            starts = max(self._empty_at, now)
            self._empty_at = ends = starts + calls * self._interval
            return Turn(max(0.0, ends - self.burst * self._interval - now), starts, ends)

    def release(self, turn: Turn) -> None:
        """Give back a turn booked by `take` and never used (a call stopped while it waited),
        so that the calls booked from now on need not wait for a turn nobody takes."""
        with self._lock:
            now = self._clock()
            given_back = self._given_back
            given_back[turn.ends] = turn.starts
            # The last turns booked, given back, come off the bucket (each back to the very
            # time it started at: no sum of floats); never below now (an idle bucket stays as
            # full as its burst).
            while (starts := given_back.pop(self._empty_at, None)) is not None:
                self._empty_at = starts
            if self._empty_at <= now:
                self._empty_at = now
                given_back.clear()  # turns that would have ended by now: nothing left to free

    def __repr__(self) -> str:
        return f"RateLimiter({self.rate:g}/s, burst={self.burst})"
