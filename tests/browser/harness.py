"""A Python process made to keep a browser tab's limits (Pyodide 314, as in JupyterLite), for the
browser-path tests: a kernel (`kernel_startup`, an IPython startup file) or a test (`armed`).

Once armed (in a kernel, at its first cell: ipykernel's own threads and zmq sockets are up by then)
and with ``NODE_GATEWAY_BROWSER=1`` set:

- a new thread raises ``RuntimeError("can't start new thread")``, as in Pyodide;
- a new socket (``socket.socket``, a ``socketpair``, an accepted connection) and a new process
  (``subprocess``, ``os.fork``, ``os.system``...) raise ``OSError(ENOSYS)``;
- a module with no Pyodide 314 build is not found (``ModuleNotFoundError``, and
  ``importlib.util.find_spec`` gives None), by the rule in `importable`.

These hold on the thread that armed them (the kernel's main thread, where cells run; the test's
thread): a browser tab has that thread only, and the process's other threads are the kernel's or
pytest's own, not the code under test's. Every refusal is also kept in `refused`, so a test can
see one the code caught and got over (a browser tab would not have let it start); modules
refused are kept in `unfound` (an optional import that is not there is no fault), and processes
in `processes`: on CPython, libraries probe the system with one (pycryptodome looks for libgmp
through ``ctypes.util.find_library``, which runs ``ldconfig -p``), get the error a browser tab
gives, and go on.

What this does not show: that a module Pyodide builds behaves there as on CPython, that the
page's event loop (a WebLoop) runs callbacks as ipykernel's asyncio loop does, or that a pure
wheel installs there (tests/lite runs the real Pyodide core under Node for part of that).
"""

from __future__ import annotations

import errno
import hashlib
import importlib.abc
import importlib.machinery
import json
import os
import re
import sys
import sysconfig
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from functools import cache
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYODIDE_PACKAGES = ROOT / "tests" / "fixtures" / "pyodide" / "pyodide-314-packages.json"
COMPILED_SUFFIXES = (".so", ".pyd", ".dylib", ".dll")
# The package under test: its wheel is pure Python (tests/test_packaging.py), though an editable
# install names no module in its RECORD.
UNDER_TEST = {"toolkit"}
PROCESS_EVENTS = ("subprocess.Popen", "os.fork", "os.forkpty", "os.posix_spawn", "os.spawn")
PROCESS_EVENTS += ("os.system", "os.exec")

refused: list[str] = []  # each thread or socket refused, and the code that asked
processes: list[str] = []  # each process refused, apart: see the module's docstring
unfound: list[str] = []  # each module refused (a caught optional import is no fault)
_armed_thread: int | None = None


def _here() -> bool:
    return _armed_thread is not None and threading.get_ident() == _armed_thread


# --- the rule for modules ------------------------------------------------------------------------


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _top_level(distribution: metadata.Distribution) -> set[str]:
    """The top-level modules `distribution` installed (from its RECORD, else top_level.txt)."""
    names = set()
    for file in distribution.files or []:
        first = file.parts[0]
        if not first.endswith((".dist-info", ".data", ".pth")) and first not in (
            "..",
            "__pycache__",
        ):
            names.add(first.partition(".")[0])
    return names or set((distribution.read_text("top_level.txt") or "").split())


NAMES_FOLDER = "NODE_GATEWAY_HARNESS_NAMES"  # where a kernel keeps the names below, if set


def _kept(kind: str, read: Callable[[], frozenset[str]]) -> frozenset[str]:
    """`read()`, kept in the folder ``$NODE_GATEWAY_HARNESS_NAMES`` names (when set) for the
    next process of this environment: reading every distribution's files is most of what a
    browser-like kernel costs to start (0.7 s of CPU), and a test run starts a score of them
    in one environment, which does not change under it."""
    folder = os.environ.get(NAMES_FOLDER)
    if not folder:
        return read()
    environment = hashlib.sha256(sys.prefix.encode()).hexdigest()[:16]
    path = Path(folder) / f"{kind}-{environment}.json"
    with suppress(OSError, ValueError):
        return frozenset(json.loads(path.read_text()))
    names = read()
    written = path.with_name(f"{path.name}.{os.getpid()}")
    written.write_text(json.dumps(sorted(names)))
    written.replace(path)  # whole or not at all, for a kernel reading it at once
    return names


@cache
def pyodide_names() -> frozenset[str]:
    """The top-level names Pyodide 314 can import: its packages' (as its lock file names them,
    and all that the same distributions installed here bring: cffi's `_cffi_backend`), and its
    stdlib zip's."""
    return _kept("pyodide", _pyodide_names)


def _pyodide_names() -> frozenset[str]:
    data = json.loads(PYODIDE_PACKAGES.read_text())
    names = {name for package in data["packages"].values() for name in package["imports"]}
    built = {_normalized(name) for name in data["packages"]}
    for distribution in metadata.distributions():
        if _normalized(distribution.metadata["Name"] or "") in built:
            names |= _top_level(distribution)
    return frozenset(names | set(data["stdlib_zip_top_level"]))


@cache
def pure_names() -> frozenset[str]:
    """The top-level names of the pure-Python distributions installed here (no compiled file in
    their RECORD): a JupyterLite site can ship their wheels (piplite), as `make lite` does."""
    return _kept("pure", _pure_names)


def _pure_names() -> frozenset[str]:
    names = set(UNDER_TEST)
    for distribution in metadata.distributions():
        files = distribution.files or []
        if not any(str(file).endswith(COMPILED_SUFFIXES) for file in files):
            names |= _top_level(distribution)
    return frozenset(names)


def importable(top: str, before: frozenset[str] = frozenset()) -> bool:
    """Whether a browser tab could import the top-level module `top`: Pyodide 314 has it (a
    package of its distribution, or its stdlib zip), or the stdlib compiles it into Pyodide's
    interpreter (a C module of CPython's stdlib: `_json`, `math`, `select`...), or a pure-Python
    distribution installed here brings it, or the kernel had imported it before arming (its
    own machinery, as zmq: already in ``sys.modules``, only its submodules could be asked for).
    A pure-Python module of CPython's stdlib that is not in the zip (tkinter, venv, ensurepip)
    is refused."""
    if top in before or top in pyodide_names() or top in pure_names():
        return True
    if top in sys.stdlib_module_names:
        spec = importlib.machinery.PathFinder.find_spec(top)
        builtin = top in sys.builtin_module_names
        return builtin or (spec is not None and str(spec.origin).endswith(COMPILED_SUFFIXES))
    return False


class _Refusing(importlib.abc.MetaPathFinder):
    """Wraps a finder of ``sys.meta_path``: a module whose top-level name is not importable in
    a browser tab is not found (None), as there."""

    def __init__(self, finder: object, before: frozenset[str]):
        self.finder = finder
        self.before = before

    def find_spec(self, name, path=None, target=None):  # type: ignore[no-untyped-def]
        top = name.partition(".")[0]
        if not importable(top, self.before):
            if top not in unfound:
                unfound.append(top)
            return None
        find = getattr(self.finder, "find_spec", None)
        return None if find is None else find(name, path, target)

    def __getattr__(self, name: str):  # invalidate_caches, find_distributions...
        return getattr(self.finder, name)


# --- threads, sockets, processes -----------------------------------------------------------------


def _refusing_start(original):  # type: ignore[no-untyped-def]
    def start(*args, **kwargs):  # type: ignore[no-untyped-def]
        if _here():
            refused.append(f"thread, from {_asker()}")
            raise RuntimeError("can't start new thread")
        return original(*args, **kwargs)

    start.refusing = True  # type: ignore[attr-defined]
    return start


def _audit(event: str, args: tuple) -> None:
    if not _here():
        return
    if event == "socket.__new__":
        refused.append(f"socket, from {_asker()}")
        raise OSError(errno.ENOSYS, "a browser tab opens no socket (browser-like harness)")
    if event.startswith(PROCESS_EVENTS):
        processes.append(f"{event}, from {_asker()}")
        raise OSError(errno.ENOSYS, "a browser tab starts no process (browser-like harness)")


_STDLIB = (sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"], __file__, "<")


def _asker() -> str:
    """The innermost frame outside the standard library and this file: who asked."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_STDLIB):
        frame = frame.f_back
    return "?" if frame is None else f"{frame.f_code.co_filename}:{frame.f_lineno}"


_hooked = False
_THREAD_STARTERS = ("_start_new_thread", "_start_joinable_thread")  # 3.11-3.12, 3.13+


def arm() -> None:
    """Impose the limits on this thread from now on (and set ``NODE_GATEWAY_BROWSER=1``)."""
    global _armed_thread, _hooked
    os.environ["NODE_GATEWAY_BROWSER"] = "1"
    if not _hooked:  # an audit hook cannot be removed: one, checking `_armed_thread`
        sys.addaudithook(_audit)
        _hooked = True
    for name in _THREAD_STARTERS:
        original = getattr(threading, name, None)
        if original is not None and not getattr(original, "refusing", False):
            setattr(threading, name, _refusing_start(original))
    pyodide_names(), pure_names()  # read now: reading them imports modules
    before = frozenset(name.partition(".")[0] for name in sys.modules)
    sys.meta_path[:] = [_Refusing(finder, before) for finder in sys.meta_path]
    refused.clear()
    processes.clear()
    unfound.clear()
    _armed_thread = threading.get_ident()


def disarm() -> None:
    global _armed_thread
    _armed_thread = None
    sys.meta_path[:] = [getattr(finder, "finder", finder) for finder in sys.meta_path]
    for name in _THREAD_STARTERS:
        patched = getattr(threading, name, None)
        if getattr(patched, "refusing", False):
            setattr(threading, name, patched.__closure__[0].cell_contents)  # type: ignore[union-attr]
    os.environ.pop("NODE_GATEWAY_BROWSER", None)


@contextmanager
def armed() -> Iterator[list[str]]:
    """The limits on this thread for the block; yields `refused` (see `processes` and
    `unfound` for the rest). Modules already imported stay (a test process has imported much):
    only new imports are checked."""
    saved = os.environ.get("NODE_GATEWAY_BROWSER")
    arm()
    try:
        yield refused
    finally:
        disarm()
        if saved is not None:
            os.environ["NODE_GATEWAY_BROWSER"] = saved


# --- in a kernel ---------------------------------------------------------------------------------

REFUSED_FILE = "NODE_GATEWAY_HARNESS_REFUSED"  # where a kernel writes what it refused


def kernel_startup() -> None:
    """Arm at the first cell's start (the kernel is up by then), from an IPython startup file;
    after each cell, write `refused`, `processes` and `unfound` to the file named by
    ``$NODE_GATEWAY_HARNESS_REFUSED``."""
    from IPython import get_ipython

    shell = get_ipython()
    os.environ["NODE_GATEWAY_BROWSER"] = "1"

    def first_cell(*_: object) -> None:
        shell.events.unregister("pre_run_cell", first_cell)
        arm()

    def after_cell(*_: object) -> None:
        if os.environ.get(REFUSED_FILE):
            answer = {"refused": refused, "processes": processes, "unfound": unfound}
            Path(os.environ[REFUSED_FILE]).write_text(json.dumps(answer))

    shell.events.register("pre_run_cell", first_cell)
    shell.events.register("post_run_cell", after_cell)
