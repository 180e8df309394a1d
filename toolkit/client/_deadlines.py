"""Call deadlines on an event loop, with one timer per loop instead of one per request.

`asyncio.timeout` arms and cancels a timer for each request, a real share of the toolkit's own
CPU time per call on a bulk run. A `DeadlineWatch` keeps the calls in flight and one timer, set
for the earliest deadline; a bulk run's deadlines only grow, so the timer is seldom moved.
Expiry works as `asyncio.timeout`'s does: the call's task is cancelled, and the call turns the
`CancelledError` into a timeout only if no one else asked to cancel the task meanwhile
(`Task.uncancel`).
"""

from __future__ import annotations

import math
import time
import weakref
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from ._http import LazyModule

if TYPE_CHECKING:
    import asyncio
else:
    asyncio = LazyModule("asyncio", globals())  # imported on first use: see `_http.LazyModule`


class Watched:
    """One call in flight: its task and deadline (a `time.monotonic()` value)."""

    __slots__ = ("cancelling", "deadline", "expired", "task")

    def __init__(self, task: asyncio.Task, deadline: float):
        self.task = task
        self.deadline = deadline
        self.cancelling = task.cancelling()  # cancel requests before ours: not ours to absorb
        self.expired = False


class DeadlineWatch:
    """The calls in flight on one loop, and the one timer that expires them."""

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self._loop = loop
        self._calls: set[Watched] = set()
        self._timer: asyncio.TimerHandle | None = None
        self._due = math.inf  # when the timer fires (monotonic), inf when none is set

    def __len__(self) -> int:
        return len(self._calls)

    def watch(self, task: asyncio.Task, deadline: float) -> Watched:
        call = Watched(task, deadline)
        self._calls.add(call)
        if deadline < self._due:
            self._set_timer(deadline)
        return call

    def forget(self, call: Watched) -> None:
        # The timer stays: when it fires with nothing due, it is set for the next deadline, or
        # not at all. Moving it for each answer would cost what a timer per call costs.
        self._calls.discard(call)

    def _set_timer(self, due: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._due = due
        self._timer = self._loop.call_later(max(0.0, due - time.monotonic()), self._expire)

    def _expire(self) -> None:
        self._timer, self._due = None, math.inf
        now = time.monotonic()
        upcoming = math.inf
        for call in self._calls:
            if call.expired:
                continue
            if call.deadline <= now:
                call.expired = True
                call.task.cancel()
            elif call.deadline < upcoming:
                upcoming = call.deadline
        if upcoming < math.inf:
            self._set_timer(upcoming)


_WATCHES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, DeadlineWatch] = (
    weakref.WeakKeyDictionary()
)


def deadline_watch(loop: asyncio.AbstractEventLoop) -> DeadlineWatch:
    watch = _WATCHES.get(loop)
    if watch is None:
        watch = _WATCHES[loop] = DeadlineWatch(loop)
    return watch


async def before(deadline: float, awaitable: Awaitable[Any]) -> Any:
    """Await `awaitable`, or raise TimeoutError once `deadline` (monotonic) has passed."""
    task = asyncio.current_task()
    if task is None:  # as with asyncio.timeout: expiry cancels a task
        raise RuntimeError("a deadline is kept inside a task")
    watch = deadline_watch(task.get_loop())
    call = watch.watch(task, deadline)
    try:
        return await awaitable
    except asyncio.CancelledError:
        if call.expired and task.uncancel() <= call.cancelling:
            raise TimeoutError from None  # ours, and no one else's cancel is pending
        raise
    finally:
        watch.forget(call)
