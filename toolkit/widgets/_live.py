"""Views that follow the ledger and the budget, whatever changed them (a code cell, a workload,
another widget): the ledger tells its subscribers, and each view redraws at most every
`DELAY` seconds, so a bulk run of thousands of calls costs a few redraws, not thousands.

The redraw waits on a timer thread, except on the browser path (`toolkit._browser`), where no
thread starts: there it waits on the event loop that outlives the running call (the kernel's,
the page's), and with no such loop (a script), the view redraws at once."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from .._browser import in_browser
from ..client import Ledger, lasting_loop

DELAY = 0.25


class Follower:
    """Calls `redraw()` once, `DELAY` seconds after the first of a burst of ledger changes."""

    def __init__(self, ledger: Ledger, redraw: Callable[[], None]):
        self.redraw = redraw
        self._lock = threading.Lock()
        self._timer: Any = None  # a started `threading.Timer` or an `asyncio.TimerHandle`
        ledger.subscribe(self.changed)

    def changed(self) -> None:
        with self._lock:
            if self._timer is not None:
                return
            self._timer = self._start_timer()
        if self._timer is None:
            self.redraw()

    def _start_timer(self) -> Any:
        """The timer that will redraw, or None to redraw now."""
        if not in_browser():
            timer = threading.Timer(DELAY, self._fire)
            timer.daemon = True
            timer.start()
            return timer
        loop = lasting_loop()
        return None if loop is None else loop.call_later(DELAY, self._fire)

    def _fire(self) -> None:
        with self._lock:
            self._timer = None
        self.redraw()
