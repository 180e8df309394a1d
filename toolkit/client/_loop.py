"""Run a coroutine to completion from blocking code, even inside a running event loop (Jupyter).

The pattern of jupyter_core's `run_sync`: one persistent event loop on a background daemon thread,
started on first use and kept for the life of the process. `run_sync` hands it the coroutine and
blocks until it is done. It never calls ``asyncio.run`` inside a running loop and never patches
a loop, so it works the same in a script, in a notebook, and after ``nest_asyncio.apply()``.

Keeping one loop (rather than a new one per call) keeps whatever the coroutines built on it, such
as the async HTTP clients and their open connections, alive and warm between calls.

On the browser path (`toolkit._browser.in_browser`) no thread may start, and the page's event loop
(Pyodide's WebLoop) cannot be waited for from inside one of its own callbacks. There `run_sync`
runs the coroutine in the caller's thread on `HereLoop`, which completes it when everything it
awaits completes at once (a tape, the in-process sandbox, a sleep); a coroutine that waits for
real I/O raises `NeedsCPython`, which says to await the async form instead.
"""

from __future__ import annotations

import atexit
import contextlib
import threading
import time
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from .._browser import in_browser
from .._errors import NeedsCPython
from ._http import LazyModule

if TYPE_CHECKING:
    import asyncio
else:
    asyncio = LazyModule("asyncio", globals())  # imported on first use: see `_http.LazyModule`

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_thread: threading.Thread | None = None


def background_loop() -> asyncio.AbstractEventLoop:
    """The toolkit's background event loop, started on first use."""
    global _loop, _thread
    with _lock:
        if _loop is None or not _thread or not _thread.is_alive():
            loop = asyncio.new_event_loop()
            ready = threading.Event()

            def serve() -> None:
                asyncio.set_event_loop(loop)
                loop.call_soon(ready.set)
                loop.run_forever()

            thread = threading.Thread(target=serve, name="toolkit-event-loop", daemon=True)
            thread.start()
            ready.wait()
            _loop, _thread = loop, thread
        return _loop


def run_sync(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run `coroutine` on the background loop and return its result (or raise its exception).

    Interrupting the wait (Ctrl-C, or a notebook's interrupt button) cancels the coroutine.
    On the browser path it runs here instead, in the caller's thread (`run_here`).
    """
    if in_browser():
        return run_here(coroutine)
    loop = background_loop()
    if _thread is threading.current_thread():
        coroutine.close()
        raise RuntimeError(
            "run_sync was called from the toolkit's own event loop, where it would wait for "
            "itself forever; await the async API there instead"
        )
    finished = threading.Event()

    async def run() -> T:
        try:
            return await coroutine
        finally:
            finished.set()

    future = asyncio.run_coroutine_threadsafe(run(), loop)
    try:
        return future.result()
    except BaseException:
        future.cancel()
        # Calls in flight settle (budget reservations, ledger entries marked cancelled) before
        # the caller sees the interrupt, so the ledger it reads next is already true.
        finished.wait(timeout=10)
        raise


WAITS_FOR_IO = (
    "a blocking call cannot wait for the network in a browser tab, whose event loop is the "
    "page's and must not be blocked; await the async form instead "
    "(`frame = await work.arun()` for `work.run()`)"
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
        outer = self.outer = asyncio.events._get_running_loop()
        asyncio.events._set_running_loop(None)
        task = self.create_task(coroutine)
        try:
            return self.run_until_complete(task)
        except BaseException:
            # Calls in flight settle (budget reservations, ledger entries marked cancelled)
            # before the caller sees the error, as after an interrupt on the thread path.
            task.cancel()
            with contextlib.suppress(BaseException):
                self.run_until_complete(task)
            raise
        finally:
            self.outer = None
            asyncio.events._set_running_loop(outer)


_here: HereLoop | None = None


def run_here(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run `coroutine` to completion in the caller's thread, on the one `HereLoop` of the
    process (kept, as the background loop is, for what the coroutines bind to it)."""
    global _here
    if _here is None or _here.is_closed():
        _here = HereLoop()
    if _here.is_running():
        coroutine.close()
        raise RuntimeError(
            "run_sync was called from a coroutine it is running, where it would wait for "
            "itself forever; await the async API there instead"
        )
    return _here.run_inside(coroutine)


def lasting_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop that goes on running once the current call returns, for work to do
    later in this thread: the running loop, or the one standing aside for `run_here`."""
    running = asyncio.events._get_running_loop()
    return running.outer if isinstance(running, HereLoop) else running


@atexit.register
def _stop() -> None:
    if _loop is not None and _loop.is_running():
        _loop.call_soon_threadsafe(_loop.stop)
        if _thread is not None:
            _thread.join(timeout=2)
