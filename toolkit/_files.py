"""Files written whole or not at all, also across a power loss (datasets, tapes)."""

from __future__ import annotations

import glob
import os
import secrets
from collections.abc import Callable
from pathlib import Path


def fsync_dir(folder: Path) -> None:
    """Make a rename or a new file in `folder` survive a power loss."""
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def write_atomically(file: Path, write: Callable[[Path], object]) -> None:
    """Write `file` whole or not at all: `write` fills a temporary file beside it (a hidden
    name, which dataset readers skip), which is fsynced, renamed over `file`, and the rename
    fsynced. The temporary file's name is this write's own: two processes that write one file
    at once (two kernels recording one tape) each rename a whole file, the last one wins."""
    temporary = file.with_name(f".{file.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")
    try:
        write(temporary)
        descriptor = os.open(temporary, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        os.replace(temporary, file)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    fsync_dir(file.parent)


def remove_dead_writers_files(file: Path) -> None:
    """Remove the temporary files of `file` (see `write_atomically`) that writers killed
    mid-write left: those of processes no longer running. A running one's is its write."""
    if os.name != "posix":  # no way to ask whether a process runs without signalling it
        return
    head = f".{file.name}."
    for temporary in file.parent.glob(f"{glob.escape(head)}*-*.tmp"):
        pid = temporary.name.removeprefix(head).split("-", 1)[0]
        if pid.isdigit() and not _running(int(pid)):
            temporary.unlink(missing_ok=True)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # signal 0: only asks
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's
        return True
    return True
