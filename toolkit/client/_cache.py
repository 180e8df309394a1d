"""A response cache on disk for answers that can never change, so no answer is paid for twice.

What is cached, and under which key, is the policy (`_cache_policy`: pure functions); this
module is the storage, in one SQLite file (`_cache_file`: WAL mode, shared by several notebooks,
and who may write it) bounded in size: past `max_bytes` the oldest answers are evicted. What a
user sees is in docs/budgets.md, "The response cache".

In front of the file, each process keeps the answers it read or stored lately, as text
(`RecentAnswers`): a SQLite lookup per key is slow next to the rest of a cached call. Answers are
final, so a memory entry is never wrong; each read decodes its own copy. A row read back from the
file must be JSON of its method's result kind (anyone who can write the file could plant one),
else it is deleted with one warning and counts as a miss.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
import time
import weakref
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from .._errors import ValidationError
from .._json import COMPACT_JSON, MAX_DEPTH, load_bounded
from .._redact import holds_secret
from ..catalog import CATALOG, RESULT_KINDS
from ._cache_file import WAL_SHARE, CacheFile, default_path, warn_about_cache
from ._cache_policy import key_text

if TYPE_CHECKING:
    from ._identity import CallKey

ENV_CACHE = "NODE_GATEWAY_CACHE"  # "off", "on", "auto" or a file path; see `cache_word`
DEFAULT_MAX_BYTES = 512 * 1024**2
WRITE_BATCH = 256  # answers written per transaction
WRITE_AFTER_S = 1.0  # ... or as soon as the oldest unwritten answer is this old
MEMORY_SHARE = 8  # answers kept in memory: an eighth of `max_bytes` ...
MEMORY_MAX_BYTES = 32 * 1024**2  # ... and no more than this
INSERT_ROWS = "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?)"
DELETE_KEY = "DELETE FROM responses WHERE key = ?"
DELETE_AS_READ = "DELETE FROM responses WHERE key = ? AND method IS ? AND result IS ?"


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


def _decode_all(texts: dict[bytes, str]) -> dict[bytes, Any]:
    """Answers kept in memory by key (checked when they were read, or the client's own)."""
    values = _decode_together(list(texts.values())) if texts else []
    if values is not None:
        return dict(zip(texts, values, strict=True))
    found = {}
    for key, text in texts.items():
        with contextlib.suppress(ValueError):
            found[key] = json.loads(text)
    return found


def _stored_answer(method: Any, text: Any) -> Any:
    """A row's answer as read from the file, which anyone who could write it may have filled,
    or MISS for a damaged one: text only (not a number or bytes), JSON only (no ``NaN`` or
    ``Infinity``, no number beyond a float), nested no deeper than any answer is (a deeper one
    is not decoded at all, so it cannot exhaust the stack), and of the shape its method's
    answers have (what the client checked before storing it: a row damaged into another kind
    must not reach a typed helper). Each row on its own: joined, texts such as ``[1`` and
    ``2]`` would pass as one answer."""
    if type(text) is not str or type(method) is not str:
        return MISS
    entry = CATALOG.get(method)
    kind = entry.result if entry is not None else None
    try:
        value = load_bounded(text, MAX_DEPTH)
        return value if kind is None or RESULT_KINDS[kind].check(value) else MISS
    except Exception:  # not JSON an answer can be, or a check meeting a value no answer has
        return MISS


class RecentAnswers(dict[bytes, str]):
    """Answers' texts read or stored lately, oldest first, up to `limit` bytes (keys counted)."""

    def __init__(self, limit: int):
        super().__init__()
        self.limit = limit
        self.bytes = 0

    def remember(self, key: bytes, text: str) -> None:
        """Keep an answer's text, dropping the oldest past `limit`."""
        size = len(text) + len(key)
        if size > self.limit:
            return
        if key in self:
            self.bytes -= len(self.pop(key)) + len(key)
        self[key] = text
        self.bytes += size
        while self.bytes > self.limit:
            oldest = next(iter(self))
            self.bytes -= len(self.pop(oldest)) + len(oldest)

    def forget(self) -> None:
        self.clear()
        self.bytes = 0


class ResponseCache:
    """Immutable answers on disk; see the module doc for what is cached and why.

    >>> cache = ResponseCache("answers.sqlite", max_bytes=64 * 1024**2)  # doctest: +SKIP
    >>> gw = toolkit.connect(cache=cache)                                # doctest: +SKIP

    It fails safe, with a `RuntimeWarning`, never an exception: a damaged file is moved aside
    for a fresh one, a file that cannot be opened or written turns caching off (`disabled` says
    why), a failed write keeps the answers in the results only (see the Budgets guide).
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, *, max_bytes: int | None = None):
        self.max_bytes = DEFAULT_MAX_BYTES if max_bytes is None else max_bytes
        self._lock = threading.Lock()
        self._pending: dict[bytes, tuple[bytes, str, str, str, float, int]] = {}
        self._pending_since = 0.0
        # Answers read or written lately, as text (see the module doc).
        self.memory_bytes = min(self.max_bytes // MEMORY_SHARE, MEMORY_MAX_BYTES)
        self._recent = RecentAnswers(self.memory_bytes)
        self.hits = self.misses = 0
        self._file = CacheFile(Path(path) if path is not None else default_path(), self.max_bytes)
        # Answers still in memory when the interpreter exits are written then.
        self._at_exit = weakref.finalize(self, _write_rows, self._file, self._pending, self._lock)

    @property
    def path(self) -> Path:
        return self._file.path

    @property
    def disabled(self) -> str | None:
        """Why the cache is off, when it is."""
        return self._file.disabled

    @property
    def _db(self) -> Any:
        return self._file.db

    # --- keys ---

    def digest(self, key: CallKey, rpc_method: str) -> bytes:
        """The key under which this file keeps the answer of the call `key` names."""
        text = key_text(key, rpc_method).encode()
        return hashlib.sha256(self._file.identity(key.gateway or "") + text).digest()

    # --- reading and writing ---
    # New answers wait in memory (`_pending`, readable at once) and are written in groups: one
    # transaction per answer would cost more than the answer's round trip on a fast node.

    def _select(self, query: str, keys: list[bytes]) -> list[tuple]:
        """Rows for `keys` (in chunks: SQLite's bound-parameter limit); none if reading fails."""
        rows: list[tuple] = []
        if self._db is not None:
            with self._file.guarded("could not be read; its answers count as misses"):
                for start in range(0, len(keys), 500):
                    chunk = keys[start : start + 500]
                    marks = ",".join("?" * len(chunk))
                    rows.extend(self._db.execute(query.format(marks=marks), chunk))
                return rows
        return []

    def lookup(self, keys: Iterable[bytes]) -> dict[bytes, Any]:
        """The cached answers among `keys`, by key."""
        wanted = list(keys)
        with self._lock:
            texts, rest = self._in_memory(wanted)
            found = _decode_all(texts)
            if rest:
                query = "SELECT key, method, result FROM responses WHERE key IN ({marks})"
                damaged = []
                for key, method, text in self._select(query, rest):
                    value = _stored_answer(method, text)
                    if value is MISS:
                        damaged.append((key, method, text))
                    else:
                        found[key] = value
                        self._recent.remember(key, text)
                if damaged:
                    self._delete_damaged(damaged)
            self.hits += len(found)
            self.misses += len(wanted) - len(found)
        return found

    def _delete_damaged(self, rows: list[tuple[bytes, Any, Any]]) -> None:
        """Delete rows, given as read ``(key, method, result)``, that hold no answer of their
        method (one warning for them all). Only the row as read goes: another kernel may have
        stored the call's answer again since, and that one is good."""
        import sqlite3

        # A damaged method may be no text at all (a BLOB): named as read, never a TypeError.
        methods = ", ".join(sorted({str(method)[:100] for _, method, _ in rows}))
        try:
            with self._db:
                self._db.executemany(DELETE_AS_READ, rows)
            outcome = "deleted; they count as misses and are fetched again"
        except sqlite3.Error as error:
            outcome = f"they count as misses (not deleted: {error})"
        warn_about_cache(
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
        if not self._pending:
            return
        rows = list(self._pending.values())
        self._pending.clear()
        self._file.follow()
        if self._db is None:
            return
        with self._file.guarded("could not store answers; they are in your results, not cached"):
            with self._db:
                self._db.executemany(INSERT_ROWS, rows)
                evicted = self._evict()
            if evicted:
                self._recent.forget()  # memory never answers what the disk no longer holds
            else:
                for row in rows:
                    self._recent.remember(row[0], row[3])
            if evicted or self._file.wal_bytes() > self.max_bytes // WAL_SHARE:
                self._file.shrink()

    def _evict(self) -> bool:
        """Delete the oldest answers until the database's pages in use (tables, index, the
        overflow pages of large answers: not the answers' lengths) fit in the bound less the
        write-ahead log's share, with a tenth to spare. Returns whether anything was deleted."""
        _, used = self._file.pages()
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
            self._db.executemany(DELETE_KEY, doomed)
            evicted = True
            _, used = self._file.pages()
        return evicted

    # --- housekeeping ---

    def _housekeeping(self, work: Callable[[], _T], empty: _T) -> _T:
        """`work` on the file (answers waiting in memory written first), or `empty` when there
        is no file or `work` fails on it (a damaged file is replaced: see `CacheFile.guarded`)."""
        with self._lock:
            self._write_pending()
            if self._db is not None:
                with self._file.guarded("could not be read"):
                    return work()
            return empty

    def clear(self, node: str | None = None) -> int:
        """Delete every answer (or those of the node labelled `node`); return how many."""
        return self._housekeeping(lambda: self._delete(node), 0)

    def _delete(self, node: str | None) -> int:
        self._recent.forget()
        with self._db:
            if node is None:
                removed = self._db.execute("DELETE FROM responses").rowcount
            else:
                query = "DELETE FROM responses WHERE node = ?"
                removed = self._db.execute(query, (node,)).rowcount
        self._file.shrink()
        return removed

    def __len__(self) -> int:
        query = "SELECT count(*) FROM responses"
        return self._housekeeping(lambda: self._db.execute(query).fetchone()[0], 0)

    @property
    def size_bytes(self) -> int:
        """Bytes of the database's pages: with the write-ahead log beside it (kept to an eighth
        of the bound), the measure `max_bytes` bounds."""
        return self._housekeeping(lambda: self._file.pages()[0], 0)

    def summary(self) -> dict[str, Any]:
        """Answers held per node and method."""
        query = "SELECT node, method, count(*), total(size) FROM responses GROUP BY node, method"
        rows: list[Any] = self._housekeeping(lambda: self._db.execute(query).fetchall(), [])
        return {f"{node} {method}": (count, int(size)) for node, method, count, size in rows}

    def close(self) -> None:
        self.flush()
        self._at_exit.detach()
        with self._lock:
            self._file.close()

    def __repr__(self) -> str:
        if self.disabled:
            return f"<ResponseCache {self.path} off: {self.disabled}>"
        return (
            f"<ResponseCache {self.path} {len(self):,} answers, "
            f"{self.size_bytes / 1024**2:,.1f} of {self.max_bytes / 1024**2:,.0f} MiB>"
        )


def _write_rows(file: CacheFile, pending: dict[bytes, tuple], lock: threading.Lock) -> None:
    import sqlite3

    with lock:
        if pending and file.db is not None:
            # At exit there is no one left to tell.
            with contextlib.suppress(sqlite3.Error), file.db:
                file.db.executemany(INSERT_ROWS, list(pending.values()))
            pending.clear()


CacheSetting = ResponseCache | str | os.PathLike[str] | bool | None


# The words a cache setting written as text may be, in the variable or in ``cache=``: any
# other text is a file path (write ``./off`` for a file called ``off``).
CACHE_OFF_WORDS = ("off", "0", "false", "no", "none")
CACHE_ON_WORDS = ("on", "1", "true", "yes")


def resolve_cache(setting: CacheSetting, *, remote: bool) -> ResponseCache | None:
    """The cache a `connect(cache=...)` setting means: itself, a file, None for no cache, or
    for ``"auto"`` the ``NODE_GATEWAY_CACHE`` variable if set, else the default file for a real
    (remote) gateway and none for a loopback one (the sandbox, a local Anvil: free calls, and the
    sandbox's answers are synthetic). Text reads as `cache_word` reads it."""
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
