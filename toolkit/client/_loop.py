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
import threading
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from .._browser import in_browser
from ._http import LazyModule

if TYPE_CHECKING:
    import asyncio

    from ._here import HereLoop
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


_here: HereLoop | None = None  # made on first use, as the background loop


def run_here(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run `coroutine` to completion in the caller's thread, on the one `HereLoop` of the
    process (kept, as the background loop is, for what the coroutines bind to it)."""
    from ._here import HereLoop

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
    from asyncio.events import _get_running_loop

    from ._here import HereLoop

    running = _get_running_loop()
    return running.outer if isinstance(running, HereLoop) else running


@atexit.register
def _stop() -> None:
    if _loop is not None and _loop.is_running():
        _loop.call_soon_threadsafe(_loop.stop)
        if _thread is not None:
            _thread.join(timeout=2)
