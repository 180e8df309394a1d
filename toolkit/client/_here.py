"""`HereLoop`: an event loop that runs a coroutine in the caller's thread, for `run_sync` on the
browser path (`_loop.run_here`), where no thread may start and the page's loop cannot be waited
for. Its own module so that `import toolkit` does not import asyncio (tests/architecture)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Coroutine
from typing import Any, TypeVar

from .._errors import NeedsCPython

T = TypeVar("T")

WAITS_FOR_IO = (
    "a blocking call cannot wait for the network in a browser tab, whose event loop is the "
    "page's and must not be blocked; await the async form instead "
    "(`frame = await work.arun()` for `work.run()`). A real gateway needs a CPython kernel: "
    "in a tab the toolkit reaches the in-process sandbox and tapes (see docs/classroom.md)"
)


class _NothingToWaitFor:
    """The selector of `HereLoop`, which watches no file: a wait for a timer sleeps until it is
    due; a wait with nothing scheduled could only end by another loop's or thread's doing."""

    def select(self, timeout: float | None) -> list:
        if timeout is None:
            raise NeedsCPython(WAITS_FOR_IO)
        if timeout > 0:
            time.sleep(timeout)
        return []


class HereLoop(asyncio.BaseEventLoop):
    """An event loop with no selector, no self-pipe and no thread: it runs ready callbacks and
    timers. (A selector loop needs a socket pair, which a browser's Python cannot open.)"""

    def __init__(self) -> None:
        super().__init__()
        self._selector = _NothingToWaitFor()
        self.outer: asyncio.AbstractEventLoop | None = None  # the loop standing aside

    def _process_events(self, event_list: list) -> None:
        pass

    def _write_to_self(self) -> None:
        pass  # no thread can call in: nothing to wake

    def run_inside(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run `coroutine` to completion now, even from a callback of a running loop (a
        kernel's): that loop stands aside as this thread's running loop until it is done."""
        # asyncio's own API for loops written outside it (its `events.__all__`), as uvloop uses
        from asyncio.events import _get_running_loop, _set_running_loop

        outer = self.outer = _get_running_loop()
        # From 3.14 a thread has one current task, not one a loop: the cell's task running on
        # the outer loop stands aside too, or this loop's tasks could not be entered.
        outer_task = _stand_aside(outer)
        _set_running_loop(None)
        task = self.create_task(coroutine)
        try:
            return self.run_until_complete(task)
        except BaseException:
            # Calls in flight settle (budget reservations, ledger entries marked cancelled)
            # before the caller sees the error, as after an interrupt on the thread path.
            # An interrupt may come out of any task: each of this loop's is cancelled.
            pending = [task, *(other for other in asyncio.all_tasks(self) if other is not task)]
            for each in pending:
                each.cancel()
            with contextlib.suppress(BaseException):
                self.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            raise
        finally:
            self.outer = None
            _set_running_loop(outer)
            if outer is not None and outer_task is not None:
                _swap_current_task(outer, outer_task)


def _swap_current_task(loop: asyncio.AbstractEventLoop, task: Any) -> Any:
    from asyncio import tasks

    # asyncio's own, for eager tasks (3.12 on; `_stand_aside` asks first)
    return tasks._swap_current_task(loop, task)  # type: ignore[attr-defined,unused-ignore]


def _stand_aside(outer: asyncio.AbstractEventLoop | None) -> Any:
    """The task running on `outer` in this thread, made not current (None: there is none, or
    the Python keeps one current task a loop, as 3.11 does, and nothing need stand aside)."""
    from asyncio import tasks

    if outer is None or not hasattr(tasks, "_swap_current_task"):
        return None
    current = asyncio.current_task(outer)
    if current is not None:
        _swap_current_task(outer, None)
    return current
