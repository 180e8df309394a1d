"""Views that follow the ledger and the budget, whatever changed them (a code cell, a workload,
another widget): the ledger tells its subscribers, and each view redraws at most every
`DELAY` seconds, so a bulk run of thousands of calls costs a few redraws, not thousands."""

from __future__ import annotations

import threading
from collections.abc import Callable

from ..client import Ledger

DELAY = 0.25


class Follower:
    """Calls `redraw()` once, `DELAY` seconds after the first of a burst of ledger changes."""

    def __init__(self, ledger: Ledger, redraw: Callable[[], None]):
        self.redraw = redraw
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        ledger.subscribe(self.changed)

    def changed(self) -> None:
        with self._lock:
            if self._timer is not None:
                return
            self._timer = threading.Timer(DELAY, self._fire)
            self._timer.daemon = True
            self._timer.start()

    def _fire(self) -> None:
        with self._lock:
            self._timer = None
        self.redraw()
