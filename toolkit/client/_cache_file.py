"""The SQLite file under a response cache, through its life: opened in WAL mode and bounded,
by one kernel while the others wait for it; moved aside (saying where) when it is damaged;
closed. What is kept in it is `_cache`. `sqlite3` is imported when a file is opened.

Anyone who can write the file could plant answers: a file (or its ``-wal``, ``-shm``) owned by
another user is not opened at all (the default file is used instead when it is another, trusted
one, else no cache); one of yours that group or others may write is moved aside
(``*.untrusted-<time>``) for a fresh one. New files are made readable by you alone (0600). Its
trouble is a `RuntimeWarning`, never an exception: with no file to use, `disabled` says why.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .._redact import warn

APP_DIR = "node-gateway-toolkit"
CACHE_FILE = "responses.sqlite"
WAL_SHARE = 8  # the write-ahead log may take an eighth of `max_bytes`, the database the rest
BUSY_TIMEOUT_S = 5.0  # how long to wait for another kernel's lock on the file


def default_path() -> Path:
    """``$XDG_CACHE_HOME/node-gateway-toolkit/responses.sqlite`` (``~/.cache/...`` by default)."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / APP_DIR / CACHE_FILE


class CacheFile:
    """The open file at `path` (`db`, None when there is none) and its salt; see the module doc."""

    def __init__(self, path: Path, max_bytes: int):
        self.path = path
        self.max_bytes = max_bytes
        self.disabled: str | None = None  # why there is no file, when there is none
        self.db: Any = None
        self._inode: int | None = None  # the file `db` is on
        self._salt = secrets.token_bytes(32)  # until the file's own is read
        self._identities: dict[str, bytes] = {}
        self._locks: dict[Path, Any] = {}  # the file lock of each path used (see `_exclusive`)
        distrusted = distrust(self.path)
        if distrusted is not None:
            self._refuse(*distrusted)
        if self.disabled is None:  # else refused, with nothing trusted to use instead
            with self.guarded(None):
                self._open()

    def identity(self, gateway: str) -> bytes:
        """The call identity's gateway part under the file's salt, so that the file does not
        even name the host."""
        found = self._identities.get(gateway)
        if found is None:
            found = hmac.new(self._salt, gateway.encode(), hashlib.sha256).digest()
            self._identities[gateway] = found
        return found

    @contextlib.contextmanager
    def guarded(self, what: str | None) -> Iterator[None]:
        """Work on the file that must not raise: when it fails, a damaged file is replaced by a
        fresh one; any other failure (a full disk, a lock held too long) is a warning that says
        `what` it cost or, when opening (`what` None), means no file (`disabled` says why). The
        block is left at the failure."""
        import sqlite3

        try:
            yield
        except (sqlite3.Error, OSError) as error:
            if damaged(error):
                self._replace_damaged(error)
            elif what is None:
                self._disable(error)
            else:
                warn_about_cache(f"the response cache {self.path} {what} ({error})")

    def follow(self) -> None:
        """Reopen `path` when another kernel has set the file aside (it found it damaged) for a
        fresh one: answers written to the file set aside would be lost to every kernel."""
        if self.db is not None and inode(self.path) != self._inode:
            with self.guarded(None):
                self._open()

    # --- size ---

    def pages(self) -> tuple[int, int]:
        """(bytes of the database's pages, bytes of those pages in use): the real size."""
        pragmas = "pragma_page_size(), pragma_page_count(), pragma_freelist_count()"
        page_size, count, free = self.db.execute(f"SELECT * FROM {pragmas}").fetchone()
        return count * page_size, (count - free) * page_size

    def wal_bytes(self) -> int:
        try:
            return os.path.getsize(f"{self.path}-wal")
        except OSError:
            return 0

    def shrink(self) -> None:
        """Give freed pages back to the file system and empty the write-ahead log."""
        # One page per step, and the sqlite3 module steps a pragma once: run it as a script.
        self.db.executescript("PRAGMA incremental_vacuum;")
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()

    # --- opening, replacing, closing ---

    def _refuse(self, why: str, foreign: bool) -> None:
        """Not the file at `path`: one owned by someone else is left alone and the default file
        used instead (when it is another, trusted one) or none; one of yours that others may
        write is moved aside for a fresh one."""
        if not foreign:
            try:
                moved = self._move_aside("untrusted")
            except OSError as error:
                self.disabled = f"not private: {why}; not moved aside: {error}"
                return warn_about_cache(
                    f"the response cache {self.path} is not used: {self.disabled}"
                )
            return warn_about_cache(
                f"the response cache {self.path} is not private ({why}), so its answers may not "
                f"be yours; it was moved to {moved.name} and a fresh one, readable by you alone, "
                "is used"
            )
        refused = (
            f"the response cache {self.path} is not used: {why}, and answers others can write "
            "are not to be trusted."
        )
        instead = default_path()
        if instead.resolve() != self.path.resolve() and distrust(instead) is None:
            self.path = instead
            return warn_about_cache(f"{refused} Your private cache {instead} is used instead")
        self.disabled = f"not private: {why}"
        warn_about_cache(f"{refused} Calls run without a cache")

    def _replace_damaged(self, error: BaseException) -> None:
        """Move a damaged file aside (saying where) and use a fresh one: when it is opened, or
        when a read or write finds the damage later (SQLite reads pages as it needs them)."""
        import sqlite3

        try:
            with self._exclusive():
                # Another kernel that found it damaged too may have set it aside first: then
                # the file there is its fresh one, to use (moving it aside would lose its answers).
                if inode(self.path) == self._inode:
                    with contextlib.suppress(FileNotFoundError):
                        moved = self._move_aside("damaged")
                        warn_about_cache(
                            f"the response cache {self.path} is damaged ({error}); it was moved "
                            f"to {moved.name} and a fresh one is used"
                        )
                self._open()
        except (sqlite3.Error, OSError) as again:
            self._disable(again)

    def _open(self) -> None:
        with self._exclusive():
            self._open_unguarded()

    def _open_unguarded(self) -> None:
        import sqlite3

        self.close()
        with contextlib.suppress(FileExistsError):  # a new file: yours alone (SQLite's -wal and
            os.close(os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))  # -shm too)
        # Checked at every opening, not only the first: the file met damaged may have been
        # swapped meanwhile, for a link to a file another user writes.
        distrusted = distrust(self.path)
        if distrusted is not None:
            raise PermissionError(f"not opened: {distrusted[0]}")
        self._inode = inode(self.path)
        # Kernels opening a new file at once: one sets it up while the others wait. Switching
        # to WAL does not wait (SQLite's busy timeout is not asked), so it is asked again here.
        deadline = time.monotonic() + BUSY_TIMEOUT_S
        while True:
            try:
                return self._connect_and_set_up()
            except sqlite3.OperationalError as error:
                if not busy(error) or time.monotonic() > deadline:
                    raise
                self.close()
                time.sleep(0.01)

    def _connect_and_set_up(self) -> None:
        db = self.db = connect(self.path)
        # Freed pages go back to the file system (a new file only: it must precede any table).
        db.execute("PRAGMA auto_vacuum=INCREMENTAL")
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")  # a crash may lose recent answers, not harm
        db.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
        # The write-ahead log counts against the bound too (see `ResponseCache._evict`).
        page_size = db.execute("PRAGMA page_size").fetchone()[0]
        db.execute(f"PRAGMA wal_autocheckpoint={max(16, self.max_bytes // page_size // WAL_SHARE)}")
        db.execute(f"PRAGMA journal_size_limit={self.max_bytes // WAL_SHARE}")
        with db:
            db.execute(
                "CREATE TABLE IF NOT EXISTS responses (key BLOB PRIMARY KEY, node TEXT NOT NULL, "
                "method TEXT NOT NULL, result TEXT NOT NULL, stored_at REAL NOT NULL, "
                "size INTEGER NOT NULL) WITHOUT ROWID"
            )
            db.execute("CREATE INDEX IF NOT EXISTS by_age ON responses (stored_at)")
            # The salt lives beside the answers: it only has to differ between files. A fresh
            # file in place of a damaged one keeps the salt read from that one, so the keys its
            # kernels worked out (and have waiting to be written) stay good in it.
            db.execute("CREATE TABLE IF NOT EXISTS salt (value BLOB NOT NULL)")
            query = "INSERT INTO salt SELECT ? WHERE NOT EXISTS (SELECT 1 FROM salt)"
            db.execute(query, (self._salt,))
        db.execute("BEGIN IMMEDIATE")  # a read-only file fails here, not at the first answer
        db.execute("ROLLBACK")
        self._salt = db.execute("SELECT value FROM salt").fetchone()[0]
        self._identities.clear()  # made with another file's salt (one replaced as damaged)
        db.execute("SELECT count(*) FROM responses").fetchone()  # a damaged table fails here

    def _move_aside(self, why: str) -> Path:
        """Move the file and its ``-wal`` and ``-shm`` aside together: they belong to it (a fresh
        file must not start from its log), and a kernel still on it keeps a consistent copy."""
        with self._exclusive():
            self.close()
            stamp = time.strftime("%Y%m%d-%H%M%S")
            moved = self.path.with_name(f"{self.path.name}.{why}-{stamp}")
            self.path.replace(moved)
            for suffix in ("-wal", "-shm"):
                with contextlib.suppress(FileNotFoundError):
                    Path(f"{self.path}{suffix}").replace(f"{moved}{suffix}")
            return moved

    @contextlib.contextmanager
    def _exclusive(self) -> Iterator[None]:
        """Hold the path's lock file (``<file>.lock``) while the file is opened or moved aside,
        so no kernel opens the path half way through a move (it would take up the old log, and
        two logs would then write one file's pages: real damage). Re-entrant; a lock held
        longer than `BUSY_TIMEOUT_S` is a `TimeoutError` (an OSError: the caller's warning)."""
        from filelock import FileLock, Timeout

        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        lock = self._locks.get(self.path)
        if lock is None:
            lock = self._locks[self.path] = FileLock(f"{self.path}.lock", mode=0o600)
        try:
            lock.acquire(timeout=BUSY_TIMEOUT_S)
        except Timeout:
            raise TimeoutError(
                f"another kernel has held {lock.lock_file} for over {BUSY_TIMEOUT_S:g} s"
            ) from None
        try:
            yield
        finally:
            lock.release()

    def _disable(self, error: BaseException) -> None:
        self.close()
        self.disabled = f"{type(error).__name__}: {error}"
        warn_about_cache(
            f"the response cache {self.path} cannot be used ({error}); calls run without it"
        )

    def close(self) -> None:
        if self.db is not None:
            with contextlib.suppress(Exception):
                self.db.close()
            self.db = None


def distrust(path: Path) -> tuple[str, bool] | None:
    """Why the cache file at `path` (or its -wal, -shm) is not private, and whether another user
    owns it (else group or others may write it); None when it is private or absent."""
    if not hasattr(os, "getuid"):
        return None  # Windows: access is by ACLs, not by these modes
    me = os.getuid()
    for candidate in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        try:
            status = candidate.stat()
        except OSError:  # absent (or unreadable: opening it says so)
            continue
        if status.st_uid != me:
            return f"{candidate.name} belongs to user id {status.st_uid}, not you", True
        if status.st_mode & 0o022:
            mode = oct(status.st_mode & 0o777)
            return f"{candidate.name} is writable by group or others (mode {mode})", False
    return None


def inode(path: Path) -> int | None:
    try:
        return path.stat().st_ino
    except OSError:
        return None


def connect(path: Path) -> Any:
    import sqlite3

    return sqlite3.connect(path, check_same_thread=False)  # `with db:` = 1 transaction


def damaged(error: BaseException) -> bool:
    """Whether SQLite says the file is not a database, or a damaged one (not: read-only, locked,
    a full disk). Only SQLite's own errors are read: an OSError's text carries a path, and a
    folder named "malformed" is no damage."""
    import sqlite3

    if not isinstance(error, sqlite3.Error):
        return False
    name = getattr(error, "sqlite_errorname", "")
    text = str(error)
    # Text that is not UTF-8 where the cache wrote only UTF-8 (Python's sqlite3 says "Could not
    # decode to UTF-8 column ..."): a page damaged on disk.
    return (
        name in ("SQLITE_NOTADB", "SQLITE_CORRUPT")
        or "malformed" in text
        or text.startswith("Could not decode to UTF-8")
    )


def busy(error: BaseException) -> bool:
    """Whether SQLite says another connection holds the lock it needs (a moment's wait)."""
    return getattr(error, "sqlite_errorname", "").startswith(("SQLITE_BUSY", "SQLITE_LOCKED"))


def warn_about_cache(message: str) -> None:
    warn(message, RuntimeWarning, stacklevel=3)
