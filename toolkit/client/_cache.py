"""A response cache on disk for answers that can never change, so no answer is paid for twice.

What is cached (the policy, decided per call from the catalog and the chain's finality depth):

- Calls pinned to a block, once that block is final: more than `Chain.finality_depth` blocks
  behind the chain head when the answer arrives. Which argument pins the block is the catalog's
  `Method.pin`: the block parameter of an archive-priced method (``eth_getBalance``,
  ``eth_call``, ``eth_getBlockByNumber``, ...) unless the entry says otherwise
  (``bor_getRootHash`` and ``eth_getLogs`` by the end of their range, TRON's blocks by ``num``).
  Deciding finality needs the head: the cached one, else one fetch (billed, in the ledger).
- Answers that never change, always (``pinned_by=ALWAYS``): ``web3_sha3``, ``eth_chainId``,
  ``net_version``, TON's ``detectAddress``.

What is never cached: block tags (``latest``, ``pending``, ``safe``, ``finalized``, and also
``earliest``: the spec defines it as the "earliest *available*" block, which moves on a pruning
node and may differ between the nodes behind one endpoint); asset records looked up by id (a
TRC-10 issuer can still update the description, URL and bandwidth limits); anything else whose
answer depends on the present (heads, latest blocks, token data, simulations); errors; the
platform API; raw calls outside the catalog (`call_raw`).

A hit is checked before pricing and sending, costs 0 RU, and is recorded in the ledger with
``cache_hit=True``. Keys are a SHA-256 of the node's identity, the method and its parameters; the
identity is an HMAC of the node URL under a random salt kept in the file, so the file never holds
an access key (a new key for the same node starts an empty cache for it: the safe side).

The file is one SQLite database (WAL mode, so several notebooks may share it), bounded in size:
past `max_bytes` the oldest answers are evicted. `sqlite3` is imported when a cache is opened.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import threading
import time
import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._errors import ValidationError
from ..catalog import ALWAYS
from ..catalog.encoding import is_hex_quantity

if TYPE_CHECKING:
    from ..catalog import BoundCall

ENV_CACHE = "NODE_GATEWAY_CACHE"  # "off", or a file path; see `resolve_cache`
DEFAULT_MAX_BYTES = 512 * 1024**2
APP_DIR = "node-gateway-toolkit"
CACHE_FILE = "responses.sqlite"
WRITE_BATCH = 256  # answers written per transaction
WRITE_AFTER_S = 1.0  # ... or as soon as the oldest unwritten answer is this old


@dataclass(frozen=True)
class Cacheable:
    """A call whose answer may be cached: its key, and the block that must be final first
    (None: a pure function, always cacheable)."""

    key: bytes
    block: int | None


def pinned_block(bound: BoundCall) -> int | str | None:
    """The block number the call's answer is pinned to, `ALWAYS`, or None (never cacheable)."""
    where = bound.method.pin
    if where is None or where == ALWAYS:
        return where
    value = bound.argument(where)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and is_hex_quantity(value):
        return int(value, 16)
    return None  # a tag: the answer follows the chain


def is_final(block: int, head: int, finality_depth: int) -> bool:
    """True when `block` is more than `finality_depth` blocks behind `head`."""
    return head - block > finality_depth


def default_path() -> Path:
    """``$XDG_CACHE_HOME/node-gateway-toolkit/responses.sqlite`` (``~/.cache/...`` by default)."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / APP_DIR / CACHE_FILE


class ResponseCache:
    """Immutable answers on disk; see the module doc for what is cached and why.

    >>> cache = ResponseCache("answers.sqlite", max_bytes=64 * 1024**2)  # doctest: +SKIP
    >>> gw = toolkit.connect(cache=cache)                                # doctest: +SKIP
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, *, max_bytes: int | None = None):
        import sqlite3

        self.path = Path(path) if path is not None else default_path()
        self.max_bytes = DEFAULT_MAX_BYTES if max_bytes is None else max_bytes
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False)  # `with db:` = 1 transaction
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")  # a crash may lose recent answers, not harm
        self._db.execute("PRAGMA busy_timeout=5000")
        with self._db:
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS responses (key BLOB PRIMARY KEY, node TEXT NOT NULL, "
                "method TEXT NOT NULL, result TEXT NOT NULL, stored_at REAL NOT NULL, "
                "size INTEGER NOT NULL) WITHOUT ROWID"
            )
            self._db.execute("CREATE INDEX IF NOT EXISTS by_age ON responses (stored_at)")
            # The salt lives beside the answers: it only has to differ between files.
            self._db.execute("CREATE TABLE IF NOT EXISTS salt (value BLOB NOT NULL)")
            self._db.execute(
                "INSERT INTO salt SELECT ? WHERE NOT EXISTS (SELECT 1 FROM salt)",
                (secrets.token_bytes(32),),
            )
        self._salt = self._db.execute("SELECT value FROM salt").fetchone()[0]
        self._identities: dict[tuple[str, str], bytes] = {}
        self._size = self._total_size()
        self._pending: dict[bytes, tuple[bytes, str, str, str, float, int]] = {}
        self._pending_since = 0.0
        self.hits = self.misses = 0
        # Answers still in memory when the interpreter exits are written then.
        self._at_exit = weakref.finalize(self, _write_rows, self._db, self._pending, self._lock)

    # --- keys ---

    def cacheable(self, url: str, chain: str, bound: BoundCall) -> Cacheable | None:
        """The cache key of a call whose answer can be cached, or None."""
        pinned = pinned_block(bound)
        if pinned is None:
            return None
        call = json.dumps(
            [bound.method.name, bound.rpc_method, bound.wire_params],
            sort_keys=True,
            separators=(",", ":"),
        )
        key = hashlib.sha256(self._identity(url, chain) + call.encode()).digest()
        return Cacheable(key, None if pinned == ALWAYS else int(pinned))

    def _identity(self, url: str, chain: str) -> bytes:
        identity = self._identities.get((url, chain))
        if identity is None:
            message = f"{chain}\n{url}".encode()
            identity = hmac.new(self._salt, message, hashlib.sha256).digest()
            self._identities[(url, chain)] = identity
        return identity

    # --- reading and writing ---
    # New answers wait in memory (`_pending`, readable at once) and are written in groups: one
    # transaction per answer would cost more than the answer's round trip on a fast node.

    def lookup(self, keys: Iterable[bytes]) -> dict[bytes, Any]:
        """The cached answers among `keys`, by key."""
        wanted = list(keys)
        with self._lock:
            found = {
                key: json.loads(self._pending[key][3]) for key in wanted if key in self._pending
            }
            rest = [key for key in wanted if key not in found]
            for start in range(0, len(rest), 500):  # SQLite's bound-parameter limit
                chunk = rest[start : start + 500]
                marks = ",".join("?" * len(chunk))
                query = f"SELECT key, result FROM responses WHERE key IN ({marks})"
                found.update(
                    (key, json.loads(text)) for key, text in self._db.execute(query, chunk)
                )
            self.hits += len(found)
            self.misses += len(wanted) - len(found)
        return found

    def contains(self, keys: Iterable[bytes]) -> set[bytes]:
        """Which of `keys` the cache holds (for previews: not counted as hits or misses)."""
        wanted = list(keys)
        with self._lock:
            held = {key for key in wanted if key in self._pending}
            rest = [key for key in wanted if key not in held]
            for start in range(0, len(rest), 500):
                chunk = rest[start : start + 500]
                marks = ",".join("?" * len(chunk))
                query = f"SELECT key FROM responses WHERE key IN ({marks})"
                held.update(key for (key,) in self._db.execute(query, chunk))
        return held

    def store(self, answers: Iterable[tuple[bytes, str, str, Any]]) -> None:
        """Keep answers, given as ``(key, node label, method, result)``."""
        now = time.time()
        with self._lock:
            if not self._pending:
                self._pending_since = time.monotonic()
            for key, node, method, result in answers:
                text = json.dumps(result, separators=(",", ":"))
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
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?)", rows)
            self._size += sum(row[-1] for row in rows)
            if self._size > self.max_bytes:
                self._evict()

    def _evict(self) -> None:
        """Delete the oldest answers until the file's answers fit in 90% of `max_bytes`."""
        self._size = self._total_size()
        target = int(self.max_bytes * 0.9)
        while self._size > target:
            oldest = self._db.execute(
                "SELECT key, size FROM responses ORDER BY stored_at LIMIT 256"
            ).fetchall()
            if not oldest:
                break
            doomed, freed = [], 0
            for key, size in oldest:
                if self._size - freed <= target:
                    break
                doomed.append((key,))
                freed += size
            self._db.executemany("DELETE FROM responses WHERE key = ?", doomed)
            self._size -= freed

    def _total_size(self) -> int:
        return self._db.execute("SELECT total(size) FROM responses").fetchone()[0]

    # --- housekeeping ---

    def clear(self, node: str | None = None) -> int:
        """Delete every answer (or those of the node labelled `node`); return how many."""
        with self._lock:
            self._write_pending()
        with self._lock, self._db:
            if node is None:
                removed = self._db.execute("DELETE FROM responses").rowcount
            else:
                removed = self._db.execute("DELETE FROM responses WHERE node = ?", (node,)).rowcount
            self._size = self._total_size()
        return removed

    def __len__(self) -> int:
        with self._lock:
            self._write_pending()
            return self._db.execute("SELECT count(*) FROM responses").fetchone()[0]

    @property
    def size_bytes(self) -> int:
        """Bytes of answers held (the measure `max_bytes` bounds; the file is somewhat larger)."""
        self.flush()
        return int(self._size)

    def summary(self) -> dict[str, Any]:
        """Answers held per node and method."""
        with self._lock:
            self._write_pending()
            rows = self._db.execute(
                "SELECT node, method, count(*), total(size) FROM responses GROUP BY node, method"
            ).fetchall()
        return {f"{node} {method}": (count, int(size)) for node, method, count, size in rows}

    def close(self) -> None:
        self.flush()
        self._at_exit.detach()
        with self._lock:
            self._db.close()

    def __repr__(self) -> str:
        return (
            f"<ResponseCache {self.path} {len(self):,} answers, "
            f"{self.size_bytes / 1024**2:,.1f} of {self.max_bytes / 1024**2:,.0f} MiB>"
        )


def _write_rows(db: Any, pending: dict[bytes, tuple], lock: threading.Lock) -> None:
    with lock:
        if pending:
            with db:
                db.executemany(
                    "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?)",
                    list(pending.values()),
                )
            pending.clear()


CacheSetting = ResponseCache | str | os.PathLike[str] | bool | None


def resolve_cache(setting: CacheSetting, *, remote: bool) -> ResponseCache | None:
    """The cache a `connect(cache=...)` setting means.

    ``"auto"`` (the default): the ``NODE_GATEWAY_CACHE`` variable if set (``off``, or a path), else
    the default file for a real (remote) gateway and no cache for a loopback one (the sandbox,
    a local Anvil): their calls are free, and the sandbox's answers are synthetic and its port,
    part of each key, changes on every start. ``True``: the default file; ``False``/``None``: no
    cache; a path: that file; a `ResponseCache`: itself.
    """
    if isinstance(setting, ResponseCache):
        return setting
    if setting is None or setting is False:
        return None
    if setting is True:
        return ResponseCache()
    if setting == "auto":
        chosen = os.environ.get(ENV_CACHE, "").strip()
        if chosen.lower() in ("off", "0", "false", "no", "none"):
            return None
        if chosen:
            return ResponseCache(chosen)
        return ResponseCache() if remote else None
    if not isinstance(setting, str | os.PathLike):
        raise ValidationError(
            f"must be 'auto', True, False, a file path or a ResponseCache; got {setting!r}",
            param="cache",
            rule="type",
        )
    return ResponseCache(setting)
