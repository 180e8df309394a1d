"""A response cache on disk for answers that can never change, so no answer is paid for twice.

What is cached, and under which key, is the policy (`_cache_policy`: pure functions); this
module is the storage.

The file is one SQLite database (WAL mode, so several notebooks may share it), bounded in size:
past `max_bytes` the oldest answers are evicted. `sqlite3` is imported when a cache is opened.

In front of the file, each process keeps the answers it read or stored lately, as text, up to
`memory_bytes` (an eighth of `max_bytes`, at most 32 MiB): a SQLite lookup per key is slow next
to the rest of a cached call, so re-running a workload in the same notebook would spend most of
its time in those lookups. The texts are decoded for each read, so no two
readers share a result object. Answers are final, so a memory entry is never wrong; it is dropped
when this process clears or evicts answers (another process's `clear()` is not seen: its
answers stay correct, they are only no longer on disk).

What the file says is checked, since anyone who can write it could plant answers: a row read
back must be JSON of its method's result kind (``"0xzz"`` or an object where a balance belongs
is not), else it is deleted with one warning and counts as a miss. A file (or its ``-wal``,
``-shm``) owned by another user is not opened at all: the default file is used instead when it
is another, trusted one, else no cache. One of yours that group or others may write is moved
aside (``*.untrusted-<time>``) for a fresh one. New files are made readable by you alone (0600).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
import threading
import time
import weakref
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from .._errors import ValidationError
from .._json import COMPACT_JSON, MAX_DEPTH, load_bounded
from .._redact import holds_secret, warn
from ..catalog import CATALOG, RESULT_KINDS
from ._cache_policy import key_text

if TYPE_CHECKING:
    from ._identity import CallKey

ENV_CACHE = "NODE_GATEWAY_CACHE"  # "off", "on", "auto" or a file path; see `cache_word`
DEFAULT_MAX_BYTES = 512 * 1024**2
APP_DIR = "node-gateway-toolkit"
CACHE_FILE = "responses.sqlite"
WRITE_BATCH = 256  # answers written per transaction
WRITE_AFTER_S = 1.0  # ... or as soon as the oldest unwritten answer is this old
WAL_SHARE = 8  # the write-ahead log may take an eighth of `max_bytes`, the database the rest
MEMORY_SHARE = 8  # answers kept in memory: an eighth of `max_bytes` ...
MEMORY_MAX_BYTES = 32 * 1024**2  # ... and no more than this
BUSY_TIMEOUT_S = 5.0  # how long to wait for another kernel's lock on the file


_T = TypeVar("_T")
MISS = object()  # `ResponseCache.answers` where the cache holds no answer


def _decode_together(texts: list[str]) -> list[Any] | None:
    """Answers kept in memory decoded in one pass (one JSON array of them all); None when the
    texts do not make one value each: decode them one by one then."""
    try:
        values = json.loads("[" + ",".join(texts) + "]")
    except ValueError:
        return None
    return values if len(values) == len(texts) else None


def _load_stored(text: Any) -> Any:
    """A row's answer as read from the file, which anyone who could write it may have filled:
    text only (not a number or bytes), JSON only (no ``NaN`` or ``Infinity``, no number beyond
    a float), and nested no deeper than any answer is (a deeper one is not decoded at all, so
    it cannot exhaust the stack). ValueError for anything else."""
    if type(text) is not str:
        raise ValueError(f"a {type(text).__name__} where an answer's JSON text belongs")
    return load_bounded(text, MAX_DEPTH)


def _decode_all(texts: dict[bytes, Any], *, stored: bool = False) -> dict[bytes, Any]:
    """Answers by key; an answer that does not decode (a damaged row) is left out, so it counts
    as a miss. `stored`: texts read from the file, each decoded on its own as `_load_stored`
    says (joined, texts such as ``[1`` and ``2]`` would pass as one answer)."""
    found = {}
    if not stored:
        values = _decode_together(list(texts.values())) if texts else []
        if values is not None:
            return dict(zip(texts, values, strict=True))
    load = _load_stored if stored else json.loads
    for key, text in texts.items():
        with contextlib.suppress(ValueError):
            found[key] = load(text)
    return found


def _fits(method: str, value: Any) -> bool:
    """Whether a stored answer has the shape its method's answers have (what the client checked
    before storing it): a row damaged into another kind must not reach a typed helper."""
    if type(method) is not str:
        return False
    entry = CATALOG.get(method)
    kind = entry.result if entry is not None else None
    try:
        return kind is None or bool(RESULT_KINDS[kind].check(value))
    except Exception:  # a check meeting a value no answer has: not of its kind
        return False


def default_path() -> Path:
    """``$XDG_CACHE_HOME/node-gateway-toolkit/responses.sqlite`` (``~/.cache/...`` by default)."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / APP_DIR / CACHE_FILE


class ResponseCache:
    """Immutable answers on disk; see the module doc for what is cached and why.

    >>> cache = ResponseCache("answers.sqlite", max_bytes=64 * 1024**2)  # doctest: +SKIP
    >>> gw = toolkit.connect(cache=cache)                                # doctest: +SKIP

    It fails safe: the cache saves money, so its own trouble never costs an answer. A damaged
    file is moved aside (``*.damaged-<time>``) and a fresh one used, whether the damage shows
    when it is opened or later (a lookup, a store, `len`, `summary`, `clear`); a file that
    cannot be opened or written (read-only, locked) turns caching off (`disabled` says why); a
    failed read is a miss and a failed write (a full disk) keeps the answers out of the cache
    but in the results. Each case is a `RuntimeWarning`, never an exception.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, *, max_bytes: int | None = None):
        self.path = Path(path) if path is not None else default_path()
        self.max_bytes = DEFAULT_MAX_BYTES if max_bytes is None else max_bytes
        self.disabled: str | None = None  # why the cache is off, when it is
        self._lock = threading.Lock()
        self._db: Any = None
        self._inode: int | None = None
        self._salt = secrets.token_bytes(32)  # until the file's own is read
        self._identities: dict[str, bytes] = {}
        self._pending: dict[bytes, tuple[bytes, str, str, str, float, int]] = {}
        self._pending_since = 0.0
        # Answers read or written lately, as text, oldest first (see the module doc).
        self.memory_bytes = min(self.max_bytes // MEMORY_SHARE, MEMORY_MAX_BYTES)
        self._recent: dict[bytes, str] = {}
        self._recent_bytes = 0
        self.hits = self.misses = 0
        distrust = _distrust(self.path)
        if distrust is not None:
            self._refuse(*distrust)
        if self.disabled is None:  # else refused, with nothing trusted to use instead
            self._open_or_disable()
        # Answers still in memory when the interpreter exits are written then.
        self._at_exit = weakref.finalize(self, _write_rows, self._db, self._pending, self._lock)

    def _refuse(self, why: str, foreign: bool) -> None:
        """Not the file at `path`: one owned by someone else is left alone and the default file
        used instead (when it is another, trusted one) or none; one of yours that others may
        write is moved aside for a fresh one."""
        if not foreign:
            try:
                moved = self._move_aside("untrusted")
            except OSError as error:
                self.disabled = f"not private: {why}; not moved aside: {error}"
                _warn(f"the response cache {self.path} is not used: {self.disabled}")
                return
            _warn(
                f"the response cache {self.path} is not private ({why}), so its answers may not "
                f"be yours; it was moved to {moved.name} and a fresh one, readable by you alone, "
                "is used"
            )
            return
        instead = default_path()
        if instead.resolve() != self.path.resolve() and _distrust(instead) is None:
            _warn(
                f"the response cache {self.path} is not used: {why}, and answers others can "
                f"write are not to be trusted. Your private cache {instead} is used instead"
            )
            self.path = instead
            return
        self.disabled = f"not private: {why}"
        _warn(
            f"the response cache {self.path} is not used: {why}, and answers others can write "
            "are not to be trusted. Calls run without a cache"
        )

    def _open_or_disable(self) -> None:
        import sqlite3

        try:
            self._open()
        except (sqlite3.Error, OSError) as error:
            if _damaged(error):
                self._replace_damaged(error)
            else:
                self._disable(error)

    def _replace_damaged(self, error: BaseException) -> None:
        """Move a damaged file aside (saying where) and use a fresh one: when it is opened, or
        when a read or write finds the damage later (SQLite reads pages as it needs them)."""
        import sqlite3

        try:
            # Another kernel that found it damaged too may have set it aside first: then the
            # file there is its fresh one, to use (moving it aside would lose its answers).
            if _inode(self.path) == self._inode:
                with contextlib.suppress(FileNotFoundError):
                    moved = self._move_aside("damaged")
                    _warn(
                        f"the response cache {self.path} is damaged ({error}); it was moved to "
                        f"{moved.name} and a fresh one is used"
                    )
            self._open()
        except (sqlite3.Error, OSError) as again:
            self._disable(again)

    def _trouble(self, error: BaseException, what: str) -> None:
        """After a read or write of the file failed: a damaged file is replaced, anything else
        (a full disk, a lock held too long) is a warning that says `what` it cost."""
        if _damaged(error):
            self._replace_damaged(error)
        else:
            _warn(f"the response cache {self.path} {what} ({error})")

    def _open(self) -> None:
        import sqlite3

        self._close_db()
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):  # a new file: yours alone (SQLite's -wal and
            os.close(os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))  # -shm too)
        # Checked at every opening, not only the first: the file met damaged may have been
        # swapped meanwhile, for a link to a file another user writes.
        distrust = _distrust(self.path)
        if distrust is not None:
            raise PermissionError(f"not opened: {distrust[0]}")
        self._inode = _inode(self.path)  # the file this connection is on
        # Kernels opening a new file at once: one sets it up while the others wait. Switching
        # to WAL does not wait (SQLite's busy timeout is not asked), so it is asked again here.
        deadline = time.monotonic() + BUSY_TIMEOUT_S
        while True:
            try:
                return self._connect_and_set_up()
            except sqlite3.OperationalError as error:
                if not _busy(error) or time.monotonic() > deadline:
                    raise
                self._close_db()
                time.sleep(0.01)

    def _connect_and_set_up(self) -> None:
        db = _connect(self.path)
        self._db = db
        # Freed pages go back to the file system (a new file only: it must precede any table).
        db.execute("PRAGMA auto_vacuum=INCREMENTAL")
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")  # a crash may lose recent answers, not harm
        db.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
        # The write-ahead log counts against the bound too (see `_evict`).
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
            # The salt lives beside the answers: it only has to differ between files.
            db.execute("CREATE TABLE IF NOT EXISTS salt (value BLOB NOT NULL)")
            db.execute(
                "INSERT INTO salt SELECT ? WHERE NOT EXISTS (SELECT 1 FROM salt)",
                (secrets.token_bytes(32),),
            )
        db.execute("BEGIN IMMEDIATE")  # a read-only file fails here, not at the first answer
        db.execute("ROLLBACK")
        self._salt = db.execute("SELECT value FROM salt").fetchone()[0]
        self._identities.clear()  # made with another file's salt (one replaced as damaged)
        db.execute("SELECT count(*) FROM responses").fetchone()  # a damaged table fails here

    def _move_aside(self, why: str) -> Path:
        self._close_db()
        moved = self.path.with_name(f"{self.path.name}.{why}-{time.strftime('%Y%m%d-%H%M%S')}")
        self.path.replace(moved)
        for suffix in ("-wal", "-shm"):  # they belong to the damaged file
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)
        return moved

    def _disable(self, error: BaseException) -> None:
        self._close_db()
        self.disabled = f"{type(error).__name__}: {error}"
        _warn(f"the response cache {self.path} cannot be used ({error}); calls run without it")

    def _close_db(self) -> None:
        if self._db is not None:
            with contextlib.suppress(Exception):
                self._db.close()
            self._db = None

    # --- keys ---

    def digest(self, key: CallKey, rpc_method: str) -> bytes:
        """The key under which this file keeps the answer of the call `key` names."""
        text = key_text(key, rpc_method).encode()
        return hashlib.sha256(self._identity(key.gateway or "") + text).digest()

    def _identity(self, gateway: str) -> bytes:
        identity = self._identities.get(gateway)
        if identity is None:
            # The call identity's gateway part under the file's salt, so that the file does not
            # even name the host.
            identity = hmac.new(self._salt, gateway.encode(), hashlib.sha256).digest()
            self._identities[gateway] = identity
        return identity

    # --- reading and writing ---
    # New answers wait in memory (`_pending`, readable at once) and are written in groups: one
    # transaction per answer would cost more than the answer's round trip on a fast node.

    def _select(self, query: str, keys: list[bytes]) -> list[tuple]:
        """Rows for `keys` (in chunks: SQLite's bound-parameter limit); none if reading fails."""
        import sqlite3

        rows: list[tuple] = []
        if self._db is None:
            return rows
        try:
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                marks = ",".join("?" * len(chunk))
                rows.extend(self._db.execute(query.format(marks=marks), chunk))
        except sqlite3.Error as error:
            self._trouble(error, "could not be read; its answers count as misses")
            return []
        return rows

    def lookup(self, keys: Iterable[bytes]) -> dict[bytes, Any]:
        """The cached answers among `keys`, by key."""
        wanted = list(keys)
        with self._lock:
            texts, rest = self._in_memory(wanted)
            found = _decode_all(texts)  # in memory: checked when read, or the client's own
            if rest:
                query = "SELECT key, method, result FROM responses WHERE key IN ({marks})"
                read = self._select(query, rest)
                on_disk = _decode_all({key: text for key, _, text in read}, stored=True)
                damaged = []
                for key, method, text in read:
                    if key in on_disk and _fits(method, on_disk[key]):
                        self._remember(key, text)
                    else:
                        on_disk.pop(key, None)
                        damaged.append((key, method))
                found.update(on_disk)
                if damaged:
                    self._delete_damaged(damaged)
            self.hits += len(found)
            self.misses += len(wanted) - len(found)
        return found

    def _delete_damaged(self, rows: list[tuple[bytes, str]]) -> None:
        """Delete rows that hold no answer of their method (one warning for them all)."""
        import sqlite3

        methods = ", ".join(sorted({method for _, method in rows}))
        try:
            with self._db:
                self._db.executemany("DELETE FROM responses WHERE key = ?", [(k,) for k, _ in rows])
            outcome = "deleted; they count as misses and are fetched again"
        except sqlite3.Error as error:
            outcome = f"they count as misses (not deleted: {error})"
        _warn(
            f"the response cache {self.path} held {len(rows)} damaged answer(s) ({methods}), "
            f"not of the kind their method answers: {outcome}"
        )

    def answers(self, keys: list[bytes]) -> list[Any]:
        """Each key's cached answer, in the order of `keys`, and `MISS` where there is none: a
        bulk run's cache pass, which would otherwise build `lookup`'s dict to read it back."""
        with self._lock:
            texts = list(map(self._recent.get, keys))
            if None not in texts:  # all kept in memory (a re-run): one pass in C
                values = _decode_together(cast("list[str]", texts))
                if values is not None:
                    self.hits += len(values)
                    return values
        found = self.lookup(keys)
        return [found.get(key, MISS) for key in keys]

    def contains(self, keys: Iterable[bytes]) -> set[bytes]:
        """Which of `keys` the cache holds (for previews: not counted as hits or misses)."""
        wanted = list(keys)
        with self._lock:
            texts, rest = self._in_memory(wanted)
            held = set(texts)
            if rest:
                query = "SELECT key FROM responses WHERE key IN ({marks})"
                held.update(key for (key,) in self._select(query, rest))
        return held

    def _in_memory(self, keys: list[bytes]) -> tuple[dict[bytes, str], list[bytes]]:
        """The texts of `keys` held in memory (waiting to be written, or read or written lately),
        and the keys to look for on disk."""
        texts, rest = {}, []
        pending, recent = self._pending, self._recent
        for key in keys:
            text = recent.get(key)
            if text is None:
                row = pending.get(key)
                if row is None:
                    rest.append(key)
                    continue
                text = row[3]
            texts[key] = text
        return texts, rest

    def _remember(self, key: bytes, text: str) -> None:
        """Keep an answer's text in memory, dropping the oldest past `memory_bytes`."""
        size = len(text) + len(key)
        if size > self.memory_bytes:
            return
        recent = self._recent
        if key in recent:
            self._recent_bytes -= len(recent.pop(key)) + len(key)
        recent[key] = text
        self._recent_bytes += size
        while self._recent_bytes > self.memory_bytes:
            oldest = next(iter(recent))
            self._recent_bytes -= len(recent.pop(oldest)) + len(oldest)

    def _forget_recent(self) -> None:
        self._recent.clear()
        self._recent_bytes = 0

    def store(self, answers: Iterable[tuple[Any, ...]]) -> None:
        """Keep answers, given as ``(key, node label, method, result)``, or with the result's
        JSON text as a fifth item (the answer's own body: kept as it is, not encoded again; None
        to have it encoded). An answer that holds a registered secret (a node that quotes the
        request's key) is not kept: the file holds no key, and scrubbed it would no longer be
        the answer. Never raises for the cache's own trouble: the answers are the caller's, paid
        for, whatever happens here."""
        if self._db is None:
            return
        now = time.time()
        with self._lock:
            if not self._pending:
                self._pending_since = time.monotonic()
            for key, node, method, result, *known in answers:
                text = known[0] if known and known[0] is not None else COMPACT_JSON.encode(result)
                if holds_secret(text):  # a node quoted a key in it: see the docstring
                    continue
                self._pending[key] = (key, node, method, text, now, len(text) + len(key))
            due = time.monotonic() - self._pending_since > WRITE_AFTER_S
            if len(self._pending) >= WRITE_BATCH or (self._pending and due):
                self._write_pending()

    def flush(self) -> None:
        """Write the answers still waiting in memory (done by itself in groups, and at exit)."""
        with self._lock:
            self._write_pending()

    def _write_pending(self) -> None:
        import sqlite3

        if not self._pending:
            return
        rows = list(self._pending.values())
        self._pending.clear()
        if self._db is None:
            return
        try:
            with self._db:
                self._db.executemany(
                    "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?)", rows
                )
                evicted = self._evict()
            if evicted:
                self._forget_recent()  # memory never answers what the disk no longer holds
            else:
                for row in rows:
                    self._remember(row[0], row[3])
            if evicted or self._wal_bytes() > self.max_bytes // WAL_SHARE:
                self._shrink()
        except sqlite3.Error as error:
            self._trouble(error, "could not store answers; they are in your results, not cached")

    def _pages(self) -> tuple[int, int]:
        """(bytes of the database's pages, bytes of those pages in use): the real size."""
        page_size = self._db.execute("PRAGMA page_size").fetchone()[0]
        count = self._db.execute("PRAGMA page_count").fetchone()[0]
        free = self._db.execute("PRAGMA freelist_count").fetchone()[0]
        return count * page_size, (count - free) * page_size

    def _wal_bytes(self) -> int:
        try:
            return os.path.getsize(f"{self.path}-wal")
        except OSError:
            return 0

    def _evict(self) -> bool:
        """Delete the oldest answers until the database's pages in use (tables, index, the
        overflow pages of large answers: not the answers' lengths) fit in the bound less the
        write-ahead log's share, with a tenth to spare. Returns whether anything was deleted."""
        _, used = self._pages()
        room = self.max_bytes - self.max_bytes // WAL_SHARE
        if used <= room:
            return False
        target = int(room * 0.9)
        evicted = False
        while used > target:
            oldest = self._db.execute(
                "SELECT key, size FROM responses ORDER BY stored_at LIMIT 256"
            ).fetchall()
            if not oldest:
                break
            doomed, freed = [], 0
            for key, size in oldest:  # about as many as the excess, at least one
                doomed.append((key,))
                freed += size if type(size) is int else 0  # a damaged row's size is no number
                if freed >= used - target:
                    break
            self._db.executemany("DELETE FROM responses WHERE key = ?", doomed)
            evicted = True
            _, used = self._pages()
        return evicted

    def _shrink(self) -> None:
        """Give freed pages back to the file system and empty the write-ahead log."""
        # One page per step, and the sqlite3 module steps a pragma once: run it as a script.
        self._db.executescript("PRAGMA incremental_vacuum;")
        self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()

    # --- housekeeping ---

    def _housekeeping(self, work: Callable[[], _T], empty: _T) -> _T:
        """`work` on the file (answers waiting in memory written first), or `empty` when there
        is no file or `work` fails on it (a damaged file is replaced: see `_trouble`)."""
        import sqlite3

        with self._lock:
            self._write_pending()
            if self._db is None:
                return empty
            try:
                return work()
            except sqlite3.Error as error:
                self._trouble(error, "could not be read")
                return empty

    def clear(self, node: str | None = None) -> int:
        """Delete every answer (or those of the node labelled `node`); return how many."""
        return self._housekeeping(lambda: self._delete(node), 0)

    def _delete(self, node: str | None) -> int:
        self._forget_recent()
        with self._db:
            if node is None:
                removed = self._db.execute("DELETE FROM responses").rowcount
            else:
                query = "DELETE FROM responses WHERE node = ?"
                removed = self._db.execute(query, (node,)).rowcount
        self._shrink()
        return removed

    def __len__(self) -> int:
        query = "SELECT count(*) FROM responses"
        return self._housekeeping(lambda: self._db.execute(query).fetchone()[0], 0)

    @property
    def size_bytes(self) -> int:
        """Bytes of the database's pages: with the write-ahead log beside it (kept to an eighth
        of the bound), the measure `max_bytes` bounds."""
        return self._housekeeping(lambda: self._pages()[0], 0)

    def summary(self) -> dict[str, Any]:
        """Answers held per node and method."""
        query = "SELECT node, method, count(*), total(size) FROM responses GROUP BY node, method"
        rows: list[Any] = self._housekeeping(lambda: self._db.execute(query).fetchall(), [])
        return {f"{node} {method}": (count, int(size)) for node, method, count, size in rows}

    def close(self) -> None:
        self.flush()
        self._at_exit.detach()
        with self._lock:
            self._close_db()

    def __repr__(self) -> str:
        if self.disabled:
            return f"<ResponseCache {self.path} off: {self.disabled}>"
        return (
            f"<ResponseCache {self.path} {len(self):,} answers, "
            f"{self.size_bytes / 1024**2:,.1f} of {self.max_bytes / 1024**2:,.0f} MiB>"
        )


def _distrust(path: Path) -> tuple[str, bool] | None:
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


def _inode(path: Path) -> int | None:
    try:
        return path.stat().st_ino
    except OSError:
        return None


def _connect(path: Path) -> Any:
    import sqlite3

    return sqlite3.connect(path, check_same_thread=False)  # `with db:` = 1 transaction


def _damaged(error: BaseException) -> bool:
    """Whether SQLite says the file is not a database, or a damaged one (not: read-only, locked)."""
    name = getattr(error, "sqlite_errorname", "")
    text = str(error)
    # Text that is not UTF-8 where the cache wrote only UTF-8: a page damaged on disk.
    return name in ("SQLITE_NOTADB", "SQLITE_CORRUPT") or "malformed" in text or "decode" in text


def _busy(error: BaseException) -> bool:
    """Whether SQLite says another connection holds the lock it needs (a moment's wait)."""
    return getattr(error, "sqlite_errorname", "").startswith(("SQLITE_BUSY", "SQLITE_LOCKED"))


def _warn(message: str) -> None:
    warn(message, RuntimeWarning, stacklevel=3)


def _write_rows(db: Any, pending: dict[bytes, tuple], lock: threading.Lock) -> None:
    import sqlite3

    with lock:
        if pending and db is not None:
            # At exit there is no one left to tell.
            with contextlib.suppress(sqlite3.Error), db:
                db.executemany(
                    "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?)",
                    list(pending.values()),
                )
            pending.clear()


CacheSetting = ResponseCache | str | os.PathLike[str] | bool | None


# The words a cache setting written as text may be, in the variable or in ``cache=``: any
# other text is a file path (write ``./off`` for a file called ``off``).
CACHE_OFF_WORDS = ("off", "0", "false", "no", "none")
CACHE_ON_WORDS = ("on", "1", "true", "yes")


def resolve_cache(setting: CacheSetting, *, remote: bool) -> ResponseCache | None:
    """The cache a `connect(cache=...)` setting means.

    ``"auto"`` (the default): the ``NODE_GATEWAY_CACHE`` variable if set, else the default file
    for a real (remote) gateway and no cache for a loopback one (the sandbox, a local Anvil):
    their calls are free, and the sandbox's answers are synthetic (another sandbox, of another
    seed, answers the same call otherwise). ``True``: the default file; ``False``/``None``: no
    cache; a path: that file; a `ResponseCache`: itself.

    Text means the same in ``cache=`` as in the variable (`cache_word`): ``off`` (or ``0``,
    ``false``, ``no``, ``none``) is no cache, ``on`` (``1``, ``true``, ``yes``) the default
    file, ``auto`` the default rule, any other text a file path.
    """
    if isinstance(setting, ResponseCache):
        return setting
    if isinstance(setting, str):
        setting = cache_word(setting)
    if setting is None or setting is False:
        return None
    if setting is True:
        return _usable(ResponseCache())
    if setting == "auto":
        chosen = cache_word(os.environ.get(ENV_CACHE, ""), source=ENV_CACHE)
        if chosen == "auto":
            return _usable(ResponseCache()) if remote else None
        return resolve_cache(chosen, remote=remote)
    if not isinstance(setting, str | os.PathLike):
        raise ValidationError(
            f"must be 'auto', True, False, a file path or a ResponseCache; got {setting!r}",
            param="cache",
            rule="type",
        )
    return _usable(ResponseCache(setting))


def cache_word(text: str, *, source: str = "") -> bool | str:
    """What a cache setting written as text means, in ``cache=`` or in ``NODE_GATEWAY_CACHE``
    (`source`, where blank means unset): False (off), True (the default file), ``"auto"``, or
    the path it names. One reading for both, so ``cache="off"`` is no cache, not a file
    called ``off``."""
    word = text.strip()
    if not word:
        if source:
            return "auto"
        raise ValidationError(
            "is empty: use 'off', 'on', 'auto' or a file path", param="cache", rule="type"
        )
    if word.lower() in CACHE_OFF_WORDS:
        return False
    if word.lower() in CACHE_ON_WORDS:
        return True
    if word.lower() == "auto":
        return "auto"
    return word


def _usable(cache: ResponseCache) -> ResponseCache | None:
    """A cache that could not be opened means no cache (it warned why)."""
    return None if cache.disabled else cache
