"""Workload results as a partitioned Parquet dataset that a later run resumes, and that keeps
every answer it was paid for.

    work.run(dataset="balances/")        # writes rows as calls finish
    work.run(dataset="balances/")        # again: sends only the calls without a row (0 RU if none)
    toolkit.read_dataset("balances/")    # the rows, exactly as the run's frame had them

Layout (``_``- and ``.``-prefixed names are skipped by pyarrow, DuckDB and Dask):

    node=<name>/method=<method>/part-*.parquet   the rows: Hive partitions, values URI-encoded
    _journal/<writer>.jsonl                      answers not yet in a part file (see below)
    _runs/<run>.json                             each run's provenance
    _quarantine/...                              damaged files, moved aside
    _lock, _lock.owner                           the one writer's lock, and who holds it
    _compacting.json                             a merge of small files under way (see below)

**Durable by the batch.** Each batch of finished calls is appended to the writer's journal as one
line as soon as it finishes, so a process that dies (kill -9, a dead kernel, out of memory) loses
only the calls in flight; the journal is fsynced at least every `SYNC_SECONDS` while answers come
in, which bounds what a power loss can take. Part files are written when a partition has
`rows_per_file` rows and when the run ends (temporary file, fsync, rename, fsync of the folder),
then the journal they came from is deleted. The next writer (under the lock) turns what a dead
run's journal holds into part files before it resumes; `read_dataset` reads journals too.
`rows_per_file` is thus the size of the files, not the unit of durability. Each run (and each
resume) leaves at most one file per partition under that size; when a run ends, the small files of
the partitions it wrote are merged (`compact_dataset` does it for a whole dataset). A merge writes
its plan first (``_compacting.json``: the files it adds and those it replaces), then the new files,
then removes the old ones: the next writer finishes or undoes a merge that a crash cut short, so
no row is ever lost or there twice.

**One writer.** A run holds an OS file lock on the folder (``_lock``, `filelock`) while it writes;
another run waits for it, saying who holds it, or raises `DatasetBusy` at once. The OS drops the
lock of a process that died, so a crashed run never blocks the next.

**A disk that cannot take it.** A dataset that cannot be opened for writing (a full disk, a
read-only folder: its lock, or the rows a dead run's journal holds) is a `DatasetError` naming
the folder and what to do, raised before anything is sent, with the lock let go. A disk that
fills during a run: the run warns and sends nothing more, each call not sent a
`DatasetError` row at 0 RU (see `DatasetWriter.unsendable`).

**Damaged files never stop a user.** A part file, journal line or run record that cannot be read
(a zero-byte file after a power loss, a torn copy) is moved into ``_quarantine/`` by the next
writer, with one warning naming it; its calls are sent again. `read_dataset` skips it, warning.

**One call identity.** A row answers a call when the gateway (`Node.gateway`: a digest of the
node's host and chain, never its key or port), the node's name, the method and the params (the
frame's ``params`` text) are the same. Rows written through another gateway stay in the dataset
(its ``gateway`` column tells them apart) and are not reused: the run says so and sends the call.

A call with a row that succeeded is not sent again; a call whose row is a failure is: its row is
removed before the run, and the run writes its new fate. Calls the budget refused are not written
(they were never sent), so the next run sends them. A workload may plan the same call twice: it
then needs two rows. Node and method names of any length work: a folder name past
`MAX_FOLDER_NAME` bytes is cut and ends in a digest of the whole name, and each file keeps the
exact names in its metadata.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import socket
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from operator import attrgetter
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote

from .._errors import BudgetExceeded, DatasetBusy, DatasetError, ValidationError
from .._files import fsync_dir, write_atomically
from .._json import load_bounded
from .._redact import holds_secret, scrub_value, warn
from .._version import __version__
from ..client import CallKey, canonical_params

if TYPE_CHECKING:
    import pandas as pd

    from ._bulk import Item

PARTITIONS = ("node", "method")
RANGE_REFUSED = "LogRangeRefused"  # the error of an eth_getLogs chunk refused for its range
ROWS_PER_FILE = 50_000
SYNC_SECONDS = 1.0
"""The journal is fsynced when this long has passed since it last was, as answers come in."""
MAX_FOLDER_NAME = 200
"""Bytes of a partition folder's name at most (file systems allow 255)."""
WAIT_POLL_SECONDS = 0.25
READ_ATTEMPTS = 5
"""`read_dataset` reads again when a writer changed the files meanwhile, this often at most."""

_JOURNALS = "_journal"
_RUNS = "_runs"
_QUARANTINE = "_quarantine"
_LOCK = "_lock"
_OWNER = "_lock.owner"
_PLAN = "_compacting.json"


# --- files: names, atomic writes, damage ------------------------------------------------------


def _folder_name(field: str, value: str) -> str:
    """``field=<value URI-encoded>``, cut to `MAX_FOLDER_NAME` bytes with a digest of the value
    at the end when it is longer (the exact value is in each file's metadata)."""
    name = f"{field}={quote(value, safe='')}"
    if len(name) <= MAX_FOLDER_NAME:  # ASCII: quote() escapes everything else
        return name
    digest = hashlib.sha256(value.encode()).hexdigest()[:16]
    # Cut between characters, never inside one's escapes: a part of a character's UTF-8 bytes
    # is a folder name pyarrow before 25 refuses to read a file under ("not valid UTF-8").
    head, room = f"{field}=", MAX_FOLDER_NAME - len(digest) - 1
    for character in value:
        escaped = quote(character, safe="")
        if len(head) + len(escaped) > room:
            break
        head += escaped
    return f"{head}~{digest}"


def _partition_dir(root: Path, node: str, method: str) -> Path:
    return root / _folder_name("node", node) / _folder_name("method", method)


class Damaged(Exception):
    """A file of the dataset that cannot be read (zero bytes, torn, not ours)."""

    def __init__(self, file: Path, reason: BaseException | str):
        self.file = file
        super().__init__(f"{file}: {reason}")


def _report_damage(root: Path, damaged: list[Damaged], *, move: bool) -> None:
    """One warning for every damaged file; with `move`, each moved into ``_quarantine/``."""
    if not damaged:
        return
    names = []
    for damage in damaged:
        relative = damage.file.relative_to(root)
        names.append(relative.as_posix())
        if move:
            target = root / _QUARANTINE / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            while target.exists():
                target = target.with_name(f"{target.name}.{secrets.token_hex(2)}")
            os.replace(damage.file, target)
    where = f"moved into {root / _QUARANTINE}" if move else "skipped"
    warn(
        f"{len(names)} damaged file(s) in the dataset at {root} {where} (their calls are sent "
        f"again by the next run): {', '.join(names)}",
        RuntimeWarning,
        stacklevel=4,
    )


# --- reading ----------------------------------------------------------------------------------


def _parts(root: Path, prefix: str = "") -> Iterator[tuple[Path, str, str]]:
    """Every part file (whose name starts with ``part-<prefix>``) with the node and method its
    folders name: partitions by name, a partition's files in the order they were written (their
    names hold random run ids, so a notebook run twice would read its rows in another order)."""
    for node_dir in sorted(root.glob("node=*")):
        for method_dir in sorted(node_dir.glob("method=*")):
            for file in sorted(method_dir.glob(f"part-{prefix}*.parquet"), key=_written_order):
                node = unquote(node_dir.name.removeprefix("node="))
                yield file, node, unquote(method_dir.name.removeprefix("method="))


def _written_order(file: Path) -> tuple[int, str]:
    try:
        return file.stat().st_mtime_ns, file.name
    except OSError:  # gone meanwhile (a merge): wherever, the reader skips it
        return 0, file.name


def _read_part(file: Path, node: str, method: str) -> tuple[pd.DataFrame, dict[str, Any]]:
    """A part file's rows with their node, method and gateway columns, and what the file says
    of itself (exact names, gateway); `Damaged` when it cannot be read."""
    from ..frames import read_parquet

    try:
        frame = read_parquet(file)
    except (OSError, ValueError, KeyError, TypeError) as error:  # ArrowInvalid: a ValueError;
        raise Damaged(file, error) from None  # Key/TypeError: metadata that is not ours
    about = frame.attrs.get("dataset") or {"node": node, "method": method, "gateway": None}
    frame.attrs = {}
    return _with_partitions(frame, about), about


def _intact(file: Path, node: str, method: str) -> bool:
    """Whether a part file is there and reads whole."""
    try:
        _read_part(file, node, method)
    except Damaged:
        return False
    return True


def _with_partitions(frame: pd.DataFrame, about: dict[str, Any]) -> pd.DataFrame:
    frame.insert(0, "method", about["method"])
    frame.insert(0, "node", about["node"])
    frame["gateway"] = about.get("gateway")
    return frame.astype({"node": "string", "method": "string", "gateway": "string"})


def _empty() -> pd.DataFrame:
    from ._bulk import results_frame

    return results_frame([]).assign(gateway=None).astype({"gateway": "string"})


def read_dataset(path: str | PathLike[str], engine: str = "pandas") -> Any:
    """The rows of a dataset that `Workload.run(dataset=path)` wrote.

    ``engine="pandas"`` gives one DataFrame (the columns of a run's frame, exact ints, and
    ``gateway``: the identity of the gateway each row came through), with the provenance of
    every run that wrote into the dataset in ``frame.attrs["runs"]``; ``engine="dask"`` a lazy
    dask DataFrame of one partition per file, each read the same way. Rows that a run which
    died wrote only to its journal are read too, and a merge of small files that a crash cut
    short counts its files once. Damaged files are skipped with a warning (the next run into the
    dataset moves them aside and sends their calls again); with dask, a file whose pages are
    damaged is found when its partition is computed, and skipped then.

    A run may be writing into the dataset meanwhile (another kernel): with pandas, a read that
    a writer's files changed under (a part file written, a journal gone, a merge) is done again,
    so each row is read once; dask's lazy reads are not, so read with it when no run writes.
    """
    if engine not in ("pandas", "dask"):
        raise ValidationError(
            f"must be 'pandas' or 'dask', got {engine!r}", param="engine", rule="choice"
        )
    root = Path(path)
    if not root.is_dir():
        raise FileNotFoundError(f"no dataset at {root}")
    if engine == "pandas":
        for _ in range(READ_ATTEMPTS):  # until no writer changed the files while they were read
            files = _files_now(root)
            frame, damaged = _read_rows(root)
            if _files_now(root) == files:
                break
            time.sleep(WAIT_POLL_SECONDS / 10)
        else:
            warn(
                f"the dataset at {root} changed each time it was read (a run is writing into "
                "it): some rows may be missing or there twice; read it again when the run ends",
                RuntimeWarning,
                stacklevel=2,
            )
        _report_damage(root, damaged, move=False)
        frame.attrs["runs"] = runs(root)
        return frame
    import dask
    import dask.dataframe as dd

    unreadable: list[Damaged] = []
    journaled = _journal_frame(root, Journal.files(root), unreadable)
    replaced = _replaced_by_merge(root)
    pieces: list[Any] = [
        part for part in _parts(root) if part[0] not in replaced and _readable(part[0], unreadable)
    ]
    if len(journaled):
        pieces.append(journaled)
    _report_damage(root, unreadable, move=False)
    # Dask turns object columns into Arrow strings by default; here they hold exact ints and
    # JSON values, as in pandas.
    with dask.config.set({"dataframe.convert-string": False}):
        if not pieces:
            return dd.from_pandas(_empty(), npartitions=1)
        return dd.from_map(_piece, pieces, meta=_empty())


def _files_now(root: Path) -> tuple[Any, ...]:
    """The dataset's files as a writer changes them: journals, part files, a merge's plan."""
    parts = sorted(root.glob("node=*/method=*/part-*.parquet"))
    return tuple(Journal.files(root)), tuple(parts), (root / _PLAN).exists()


def _read_rows(root: Path) -> tuple[pd.DataFrame, list[Damaged]]:
    """Every row once, and the files that could not be read: journals first (a journal goes
    only once its part files are written); the files a merge cut short replaces are left out."""
    import pandas as pd

    damaged: list[Damaged] = []
    journaled = _journal_frame(root, Journal.files(root), damaged)
    replaced = _replaced_by_merge(root)
    frames = []
    for part in _parts(root):
        if part[0] in replaced:
            continue
        try:
            frames.append(_read_part(*part)[0])
        except Damaged as damage:
            if part[0].exists():  # else a writer merged it away meanwhile: read again
                damaged.append(damage)
    if len(journaled):
        frames.append(journaled)
    return (pd.concat(frames, ignore_index=True) if frames else _empty()), damaged


def _readable(file: Path, damaged: list[Damaged]) -> bool:
    """Whether a part file's footer reads (a lazy reader finds out too late otherwise)."""
    import pyarrow.parquet as pq

    try:
        pq.read_metadata(file)
    except (OSError, ValueError) as error:
        damaged.append(Damaged(file, error))
        return False
    return True


def _piece(piece: Any) -> pd.DataFrame:
    """One dask partition: a part file's rows, or the journals' rows. A part file whose footer
    reads but whose pages do not (torn, garbled inside) is skipped with a warning, as eagerly."""
    if not isinstance(piece, tuple):
        return piece
    try:
        return _read_part(*piece)[0]
    except Damaged as damage:
        _report_damage(piece[0].parents[2], [damage], move=False)  # root/node=/method=/part
        return _empty()


def runs(root: Path) -> list[dict[str, Any]]:
    """The provenance records of the runs that wrote into a dataset, oldest first; a record
    that cannot be read is left out, with a warning."""
    records, damaged = _run_records(root)
    _report_damage(root, damaged, move=False)
    return records


def _run_records(root: Path) -> tuple[list[dict[str, Any]], list[Damaged]]:
    records, damaged = [], []
    for file in sorted((root / _RUNS).glob("*.json")):
        try:
            record = json.loads(file.read_text())
            if not isinstance(record, dict) or not isinstance(record.get("time"), str):
                raise ValueError("not a run record")
        except (OSError, ValueError) as error:  # JSONDecodeError and UnicodeError included
            damaged.append(Damaged(file, error))
            continue
        records.append(record)
    return sorted(records, key=lambda record: record["time"]), damaged


# --- the journal ------------------------------------------------------------------------------
# One line per batch of finished calls: a JSON list of groups, one per partition key, each
# [gateway, node, method, params[], results[], errors[] | null, messages[] | null, ru[],
# unconfirmed_ru[], cache_hit[]], the calls' columns (made in C, `map` over the items: a row per
# call made the journal a large share of a fast run's time; bench/bench_dataset.py measures the
# journal's cost). A line is written with one write(); a line cut short by a crash is dropped
# (its calls were, as far as the dataset knows, in flight).


class Journal:
    """The append-only file of one writer's answers not yet in part files."""

    def __init__(self, root: Path, stem: str):
        self.file = root / _JOURNALS / f"{stem}.jsonl"
        self.stem = stem
        self._handle: Any = None
        self._synced = 0.0

    @staticmethod
    def files(root: Path, prefix: str = "") -> list[Path]:
        return sorted((root / _JOURNALS).glob(f"{prefix}*.jsonl"))

    def append(self, groups: dict[tuple[str, str, str], list[Item]]) -> None:
        """Write one line for finished calls, grouped by partition key (see above)."""
        if self._handle is None:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            self._handle = open(self.file, "ab", buffering=0)  # noqa: SIM115 (kept open)
            fsync_dir(self.file.parent)
        line = [_journal_group(key, items) for key, items in groups.items()]
        text = json.dumps(line, separators=(",", ":"))
        if holds_secret(text):  # a node quoted a key in an answer: written without it
            text = json.dumps(scrub_value(line), separators=(",", ":"))
        self._handle.write(text.encode() + b"\n")
        now = time.monotonic()
        if now - self._synced >= SYNC_SECONDS:
            os.fsync(self._handle.fileno())
            self._synced = now

    def discard(self) -> None:
        """Delete the journal once its rows are in part files."""
        self.close()
        if self.file.exists():
            self.file.unlink()
            fsync_dir(self.file.parent)

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None


def _journal_group(key: tuple[str, str, str], items: list[Item]) -> list[Any]:
    errors = list(map(_ERROR_OF, items))
    failed = errors.count(None) != len(errors)
    return [
        *key,
        list(map(_PARAMS_OF, items)),
        list(map(_RESULT_OF, items)),
        [None if e is None else type(e).__name__ for e in errors] if failed else None,
        [None if e is None else str(e) for e in errors] if failed else None,
        list(map(_RU_OF, items)),
        list(map(_UNCONFIRMED_OF, items)),
        list(map(_CACHE_HIT_OF, items)),
    ]


_NODE_OF = attrgetter("node")
_METHOD_OF = attrgetter("call.bound.method")
_PARAMS_OF = attrgetter("call.bound.wire_json")
_RESULT_OF = attrgetter("result")
_ERROR_OF = attrgetter("error")
_RU_OF = attrgetter("receipt.ru")
_UNCONFIRMED_OF = attrgetter("receipt.unconfirmed_ru")
_CACHE_HIT_OF = attrgetter("receipt.cache_hit")


def _rows_of(group: Any) -> list[list[Any]]:
    """A journal group's calls as rows [gateway, node, method, params, result, error, message,
    ru, unconfirmed_ru, cache_hit]; ValueError for what is not a group."""
    if not isinstance(group, list) or len(group) != 10:
        raise ValueError("not a journal group")
    gateway, node, method, params, results, errors, messages, ru, unconfirmed, hits = group
    n = len(params)
    errors, messages = errors or [None] * n, messages or [None] * n
    columns = (params, results, errors, messages, ru, unconfirmed, hits)
    if any(not isinstance(column, list) or len(column) != n for column in columns):
        raise ValueError("a journal group's columns differ in length")
    return [[gateway, node, method, *row] for row in zip(*columns, strict=True)]


def _read_journal(file: Path) -> tuple[list[list[Any]], int]:
    """A journal's rows, and how many of its lines could not be read (a torn last line is
    not counted: it is what a crash mid-write leaves)."""
    try:
        lines = file.read_bytes().split(b"\n")
    except FileNotFoundError:  # its rows went into part files meanwhile (a reader's race)
        return [], 0
    except OSError:
        return [], 1
    rows, bad = [], 0
    last = len(lines) - 1
    for number, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            groups = json.loads(line)
            if not isinstance(groups, list):
                raise ValueError("not a journal line")
            found = [row for group in groups for row in _rows_of(group)]
        except ValueError:  # JSONDecodeError and UnicodeDecodeError included
            bad += number != last
            continue
        rows.extend(found)
    return rows, bad


def _rows_frame(rows: list[list[Any]]) -> pd.DataFrame:
    """The frame `_bulk.results` makes for these calls, from journal rows (plus ``gateway``)."""
    import numpy as np
    import pandas as pd

    from ..catalog import lookup

    def column(position: int) -> list[Any]:
        return [row[position] for row in rows]

    def values() -> Iterator[Any]:
        for row in rows:
            if row[5] is not None:
                yield None
                continue
            try:
                yield lookup(row[2]).typed(row[4])
            except (TypeError, ValueError, LookupError):
                yield None

    n = len(rows)
    frame = pd.DataFrame(
        {
            "node": pd.array(column(1), dtype="string"),
            "method": pd.array(column(2), dtype="string"),
            "params": pd.array(column(3), dtype="string"),
            "result": pd.Series(np.fromiter(column(4), object, n), dtype=object),
            "value": pd.Series(np.fromiter(values(), object, n), dtype=object),
            "error": pd.array(column(5), dtype="string"),
            "message": pd.array(column(6), dtype="string"),
            "ru": np.array(column(7), dtype=np.int64),
            "unconfirmed_ru": np.array(column(8), dtype=np.int64),
            "cache_hit": np.array(column(9), dtype=bool),
            "gateway": pd.array(column(0), dtype="string"),
        }
    )
    return frame


def _part_name(stem: str, gateway: str | None) -> str:
    return f"part-{stem}-{(gateway or 'unknown')[:8]}.parquet"


def _journal_frame(root: Path, journals: list[Path], damaged: list[Damaged]) -> pd.DataFrame:
    """The rows of `journals` that no part file holds yet (read-only)."""
    import pandas as pd

    frames = []
    for file in journals:
        rows, bad = _read_journal(file)
        if bad:
            damaged.append(Damaged(file, f"{bad} unreadable line(s)"))
        for key, key_rows in _by_key(rows).items():
            if not (_partition_dir(root, *key[1:]) / _part_name(file.stem, key[0])).exists():
                frames.append(_rows_frame(key_rows))
    return pd.concat(frames, ignore_index=True) if frames else _empty()


def _by_key(rows: list[list[Any]]) -> dict[tuple[str, str, str], list[list[Any]]]:
    grouped: dict[tuple[str, str, str], list[list[Any]]] = {}
    for row in rows:
        grouped.setdefault((row[0], row[1], row[2]), []).append(row)
    return grouped


# --- the one writer's lock --------------------------------------------------------------------


class DatasetLock:
    """The OS lock on a dataset folder (`filelock`), and a note of who holds it."""

    def __init__(self, root: Path, run_id: str):
        from filelock import FileLock

        self.root = root
        self.run_id = run_id
        # Not thread-local: a run may take the lock on one thread and release it on another.
        self._lock = FileLock(root / _LOCK, thread_local=False)

    def try_acquire(self) -> bool:
        from filelock import Timeout

        try:
            self._lock.acquire(timeout=0)
        except Timeout:
            return False
        owner = {
            "run": self.run_id,
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "since": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        try:
            (self.root / _OWNER).write_text(json.dumps(owner))
        except OSError:  # a full disk: a lock kept by a run that never starts blocks the next
            self._lock.release(force=True)
            raise
        return True

    def busy(self) -> DatasetBusy:
        try:
            holder = json.loads((self.root / _OWNER).read_text())
            who = (
                f"run {holder['run']} (process {holder['pid']} on {holder['host']}, since "
                f"{holder['since']})"
            )
        except (OSError, ValueError, KeyError, TypeError):
            holder, who = {}, "another run"
        return DatasetBusy(
            f"the dataset at {self.root} is being written by {who}; one run writes into a "
            "dataset at a time",
            holder=holder if isinstance(holder, dict) else {},
            path=str(self.root),
        )

    def release(self) -> None:
        if self._lock.is_locked:
            (self.root / _OWNER).unlink(missing_ok=True)
            self._lock.release(force=True)


# --- writing ----------------------------------------------------------------------------------


class DatasetWriter:
    """Rows for one run: what the dataset already answers, and durable files for what finishes.

    `open` (or `open_blocking`) takes the lock, recovers what dead runs left, and returns the
    rows to resume from; `add` takes finished calls; `close` writes the part files and lets go."""

    def __init__(
        self,
        path: str | PathLike[str],
        rows_per_file: int = ROWS_PER_FILE,
        *,
        prefix: str | None = None,
        wait: bool = True,
    ):
        """`prefix` names this writer's files (``part-<prefix>-...``) and limits `open` to them:
        a distributed run's partition resumes only its own rows, under its coordinator's lock.
        `wait`: when another run holds the dataset, wait for it (saying who) or raise
        `DatasetBusy` at once."""
        check_rows_per_file(rows_per_file)
        self.root = Path(path)
        self.rows_per_file = rows_per_file
        self.run_id = f"{time.strftime('%Y%m%dT%H%M%S')}-{secrets.token_hex(4)}"
        self.prefix = prefix or self.run_id
        self.own_files_only = prefix is not None
        self.wait = wait
        self.after_write: Callable[[], None] | None = None  # told after each part file
        self.failure: BaseException | None = None
        self._attempt = secrets.token_hex(3)  # a task run again never overwrites its files
        self._generation = 0
        self._journal = Journal(self.root, self._stem())
        self._buffers: dict[tuple[str, str, str], list[Item]] = {}
        self._written: set[Path] = set()  # partition folders this writer wrote into
        self._lock: DatasetLock | None = None

    def _stem(self) -> str:
        return f"{self.prefix}-{self._attempt}-{self._generation:05d}"

    # --- opening: lock, recovery, resume ---

    async def open(self) -> pd.DataFrame:
        """`open_blocking` for the event loop: waiting for the lock never blocks the loop."""
        import asyncio

        said = False
        while not self._take_lock():
            said = self._waiting(said)
            await asyncio.sleep(WAIT_POLL_SECONDS)
        return self._resume_locked()

    def open_blocking(self) -> pd.DataFrame:
        """Take the dataset (waiting for another run, or `DatasetBusy`), recover what runs that
        died left, move damaged files aside, and return the rows of calls that succeeded before
        (failed rows are removed from their files: their calls are sent again)."""
        said = False
        while not self._take_lock():
            said = self._waiting(said)
            time.sleep(WAIT_POLL_SECONDS)
        return self._resume_locked()

    def _take_lock(self) -> bool:
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            if self.own_files_only:  # the coordinator of the distributed run holds the lock
                return True
            if self._lock is None:
                self._lock = DatasetLock(self.root, self.run_id)
            return self._lock.try_acquire()
        except OSError as error:
            raise self._unwritable(error) from None

    def _unwritable(self, error: OSError, done: str = "nothing was sent") -> DatasetError:
        """The error of a dataset that cannot be written where nothing is lost (`done` says)."""
        where = error.filename or self.root
        return DatasetError(
            f"the dataset at {self.root} cannot be written ({error.strerror or error}: {where}); "
            f"{done}. Free space on its disk or make it writable (or choose another folder), "
            "then run again: the rows it holds are kept",
            path=str(self.root),
        )

    def _waiting(self, said: bool) -> bool:
        assert self._lock is not None
        busy = self._lock.busy()
        if not self.wait:
            raise busy
        if not said:
            warn(f"{busy.detail}: waiting for it to finish", RuntimeWarning, stacklevel=4)
        return True

    def _resume_locked(self) -> pd.DataFrame:
        try:
            return self._resume()
        except OSError as error:  # writing what dead runs left, moving damaged files aside
            self.release()
            raise self._unwritable(error) from None
        except BaseException:
            self.release()
            raise

    def _prepare(self, prefix: str, damaged: list[Damaged]) -> None:
        """Clear up after writers that died: temporary files, a merge cut short, journals."""
        self._remove_temporary_files(prefix)
        if not self.own_files_only:
            _finish_merge(self.root)
        self._recover(prefix, damaged)

    def _resume(self) -> pd.DataFrame:
        prefix = f"{self.prefix}-" if self.own_files_only else ""
        damaged: list[Damaged] = []
        self._prepare(prefix, damaged)
        kept = []
        for file, node, method in list(_parts(self.root, prefix)):
            try:
                frame, about = _read_part(file, node, method)
            except Damaged as damage:
                damaged.append(damage)
                continue
            # A chunk refused for its range stays: its row says how a resumed scan splits it
            # (`Workload._split_known_refusals`); every other failure is sent again.
            failed = frame["error"].notna() & frame["error"].ne(RANGE_REFUSED)
            if failed.any():
                self._rewrite(file, frame[~failed], about)
            kept.append(frame[~failed])
        if not self.own_files_only:
            damaged += _run_records(self.root)[1]
        _report_damage(self.root, damaged, move=True)
        if not kept:
            return _empty()
        import pandas as pd

        return pd.concat(kept, ignore_index=True)

    def _remove_temporary_files(self, prefix: str) -> None:
        """What writers that died mid-write left (never renamed, so never part of the data)."""
        patterns = [f"*/*/.part-{prefix}*.tmp"]
        patterns += [] if prefix else [f"{_RUNS}/.*.tmp", f".{_PLAN}.*.tmp"]
        for pattern in patterns:
            for file in self.root.glob(pattern):
                file.unlink(missing_ok=True)

    def _recover(self, prefix: str, damaged: list[Damaged]) -> None:
        """Write the part files that dead writers' journals hold rows for, then drop the
        journals. A part file's name is its journal's and its gateway's, so a part written
        before the crash is never written twice (it is the same file); one that cannot be read
        (its data lost in a power cut after its rename) is written again from the journal."""
        for file in Journal.files(self.root, prefix):
            rows, bad = _read_journal(file)
            for key, key_rows in _by_key(rows).items():
                target = _partition_dir(self.root, *key[1:]) / _part_name(file.stem, key[0])
                if not _intact(target, *key[1:]):
                    frame = _rows_frame(key_rows).drop(columns=[*PARTITIONS, "gateway"])
                    self._write(target, frame, _about(*key))
            if bad:
                damaged.append(Damaged(file, f"{bad} unreadable line(s); the rest recovered"))
            else:
                file.unlink()
        if (self.root / _JOURNALS).exists():
            fsync_dir(self.root / _JOURNALS)

    def _rewrite(self, file: Path, frame: pd.DataFrame, about: dict[str, Any]) -> None:
        if frame.empty:
            file.unlink()
            fsync_dir(file.parent)
        else:
            columns = [*PARTITIONS, "gateway"]
            self._write(file, frame.drop(columns=columns).reset_index(drop=True), about)

    @staticmethod
    def _write(file: Path, frame: pd.DataFrame, about: dict[str, Any]) -> None:
        from ..frames import to_parquet

        file.parent.mkdir(parents=True, exist_ok=True)
        frame.attrs = {"dataset": about}
        write_atomically(file, lambda temporary: to_parquet(frame, temporary))

    # --- writing ---

    def add(self, items: Sequence[Item]) -> None:
        """Take finished calls: into the journal at once, into part files as they fill (a
        partition's file is written when it has `rows_per_file` rows, never more)."""
        if self.failure is not None:
            return
        kept = [item for item in items if not isinstance(item.error, BudgetExceeded)]
        # (The budget refused the others: never sent, the next run sends them.)
        while kept and self.failure is None:
            groups = self._fitting(_by_partition(kept))
            try:
                self._journal.append(groups)
            except (OSError, TypeError, ValueError) as error:  # a full disk; a non-JSON result
                self._failed(error)
                return
            full = False
            for key, group in groups.items():
                buffer = self._buffers.setdefault(key, [])
                buffer += group
                full = full or len(buffer) >= self.rows_per_file
            if full:  # the journal's rows all go into part files: the next rows start a new one
                self._seal()
            if sum(map(len, groups.values())) == len(kept):
                return
            taken = {id(item) for group in groups.values() for item in group}
            kept = [item for item in kept if id(item) not in taken]

    def _fitting(
        self, groups: dict[tuple[str, str, str], list[Item]]
    ) -> dict[tuple[str, str, str], list[Item]]:
        """The calls of `groups` that fit before a partition's buffer is full: all of them, or
        (when one would overflow) those before the first that does not, in the calls' order."""
        room = {key: self.rows_per_file - len(self._buffers.get(key, ())) for key in groups}
        if all(len(group) <= room[key] for key, group in groups.items()):
            return groups
        # Rare (a buffer fills part way through a batch): the order of the calls decides.
        fitting: dict[tuple[str, str, str], list[Item]] = {}
        for key, item in _keyed(groups):
            if room[key] <= 0:
                break
            room[key] -= 1
            fitting.setdefault(key, []).append(item)
        return fitting

    def close(self, *, release: bool = True) -> None:
        """Write what is buffered into part files, merge the small files of the partitions this
        run wrote, and let go of the dataset (after a run, or when it was interrupted: what
        finished is kept). ``release=False`` keeps the lock, for the run's record (`release`)."""
        try:
            self._seal()
            if not self.own_files_only and self.failure is None and self._written:
                merge_small_files(self.root, self.rows_per_file, sorted(self._written))
        except Exception as error:  # the rows are written: a merge that fails loses nothing
            warn(f"the dataset's small files could not be merged ({error!r})", RuntimeWarning)
        finally:
            self._journal.close()
            if release:
                self.release()

    def release(self) -> None:
        if self._lock is not None:
            self._lock.release()

    def _seal(self) -> None:
        """Every buffered row into a part file (one per partition), then the journal goes."""
        if self.failure is not None or not self._buffers:
            return
        from ._bulk import results_frame

        stem = self._journal.stem
        try:
            for (gateway, node, method), items in self._buffers.items():
                file = _partition_dir(self.root, node, method) / _part_name(stem, gateway)
                frame = results_frame(items).drop(columns=list(PARTITIONS))
                self._write(file, frame, _about(gateway, node, method))
                self._written.add(file.parent)
            self._journal.discard()
        except Exception as error:  # the journal still holds the rows: the next run writes them
            self._failed(error)
            return
        self._buffers = {}
        self._generation += 1
        self._journal = Journal(self.root, self._stem())
        if self.after_write is not None:
            self.after_write()

    def _failed(self, error: Exception) -> None:
        self.failure = error
        warn(
            f"the dataset at {self.root} could not be written ({error!r}); the run sends nothing "
            "more, the calls answered so far are in the returned frame, what reached the "
            f"dataset's journal is kept: {self._fix()}the next run into the dataset sends the "
            "calls it lacks",
            RuntimeWarning,
            stacklevel=4,
        )

    def _fix(self) -> str:
        if isinstance(self.failure, OSError):
            return "free space on its disk (or make it writable), then "
        return ""

    def unsendable(self) -> DatasetError | None:
        """Once the dataset cannot take rows, the error a call not yet sent ends with (a call
        sent then would be paid for and kept nowhere but in memory); None until then."""
        if self.failure is None:
            return None
        return DatasetError(
            f"not sent: the dataset at {self.root} could not be written ({self.failure!r}); "
            f"{self._fix()}run again: it sends only the calls the dataset lacks",
            path=str(self.root),
        )

    def record_run(
        self, summary: dict[str, Any], nodes: list[dict[str, Any]], *, time: datetime | None = None
    ) -> None:
        """Keep a run's provenance next to its rows (``_runs/<run>.json``): when (`time`, else
        now), with which toolkit, on which nodes at which heads, and its summary. A partition of
        a distributed run records nothing: the run that split it does."""
        if self.own_files_only or self.failure is not None:
            return
        record = {
            "run": self.run_id,
            "time": (time or datetime.now(UTC)).isoformat(),
            "toolkit_version": __version__,
            "nodes": nodes,
            "summary": summary,
        }
        folder = self.root / _RUNS
        text = json.dumps(record, indent=1, default=str)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            write_atomically(folder / f"{self.run_id}.json", lambda file: file.write_text(text))
        except OSError as error:
            warn(f"the run's record could not be written ({error!r})", RuntimeWarning)


# --- merging small files ------------------------------------------------------------------------


def compact_dataset(
    path: str | PathLike[str], rows_per_file: int = ROWS_PER_FILE, *, wait: bool = True
) -> int:
    """Merge the small part files of every partition of a dataset into files of up to
    `rows_per_file` rows, as the dataset's one writer (waiting for a run that writes, or
    `DatasetBusy` with ``wait=False``); return how many files were merged away. Also clears up
    after runs that died (their journals, damaged files), as a run into the dataset would. A disk
    that cannot take the merged files is a `DatasetError`; every row stays where it was."""
    check_rows_per_file(rows_per_file)
    root = Path(path)
    if not root.is_dir():
        raise FileNotFoundError(f"no dataset at {root}")
    writer = DatasetWriter(root, rows_per_file, wait=wait)
    said = False
    while not writer._take_lock():
        said = writer._waiting(said)
        time.sleep(WAIT_POLL_SECONDS)
    try:
        damaged: list[Damaged] = []
        writer._prepare("", damaged)
        _report_damage(root, damaged, move=True)
        folders = sorted({file.parent for file, _, _ in _parts(root)})
        return merge_small_files(root, rows_per_file, folders)
    except OSError as error:  # a merge cut short is undone by the next writer (see its plan)
        raise writer._unwritable(error, "its files were not merged") from None
    finally:
        writer.release()


def merge_small_files(root: Path, rows_per_file: int, folders: Sequence[Path]) -> int:
    """In each of `folders`, merge the part files under `rows_per_file` rows (per gateway) into
    as few files as hold them; the caller holds the lock. Returns how many files went away."""
    import pandas as pd
    import pyarrow.parquet as pq

    adds: list[tuple[Path, pd.DataFrame, dict[str, Any]]] = []
    removes: list[Path] = []
    for folder in folders:
        small = []
        for file in sorted(folder.glob("part-*.parquet")):
            try:
                if pq.read_metadata(file).num_rows < rows_per_file:
                    small.append(file)
            except (OSError, ValueError):  # damaged: the next writer moves it aside
                continue
        groups: dict[Any, list[tuple[Path, pd.DataFrame, dict[str, Any]]]] = {}
        node = unquote(folder.parent.name.removeprefix("node="))
        method = unquote(folder.name.removeprefix("method="))
        for file in small if len(small) > 1 else ():
            try:
                frame, about = _read_part(file, node, method)
            except Damaged:
                continue
            groups.setdefault(about.get("gateway"), []).append((file, frame, about))
        for members in groups.values():
            if len(members) < 2:
                continue
            merged = pd.concat([frame for _, frame, _ in members], ignore_index=True)
            merged = merged.drop(columns=[*PARTITIONS, "gateway"])
            about, token = members[0][2], secrets.token_hex(3)
            for number, start in enumerate(range(0, len(merged), rows_per_file)):
                name = f"part-merged-{token}-{number:05d}-{(about.get('gateway') or 'unknown')[:8]}"
                rows = merged.iloc[start : start + rows_per_file].reset_index(drop=True)
                adds.append((folder / f"{name}.parquet", rows, about))
            removes += [file for file, _, _ in members]
    if not adds:
        return 0
    plan = {
        "add": [file.relative_to(root).as_posix() for file, _, _ in adds],
        "remove": [file.relative_to(root).as_posix() for file in removes],
    }
    write_atomically(root / _PLAN, lambda file: file.write_text(json.dumps(plan)))
    for file, frame, about in adds:
        DatasetWriter._write(file, frame, about)
    _finish_merge(root)
    return len(removes) - len(adds)


def _finish_merge(root: Path) -> None:
    """Complete the merge that ``_compacting.json`` plans: when all its new files are there,
    remove the files they replace; otherwise (a crash while writing them) remove the new ones."""
    plan_file = root / _PLAN
    if not plan_file.exists():
        return
    replaced = _replaced_by_merge(root)
    for file in replaced:
        file.unlink(missing_ok=True)
    for folder in {file.parent for file in replaced if file.parent.exists()}:
        fsync_dir(folder)
    plan_file.unlink()
    fsync_dir(root)


def _replaced_by_merge(root: Path) -> set[Path]:
    """The files that a merge ``_compacting.json`` plans replaces: when all its new files are
    there, the old ones it merged; otherwise (a crash while writing them) the new ones."""
    try:
        plan = json.loads((root / _PLAN).read_text())
        adds = [root / name for name in plan["add"]]
        removes = [root / name for name in plan["remove"]]
    except FileNotFoundError:  # no merge under way
        return set()
    except (OSError, ValueError, KeyError, TypeError):  # never whole: written atomically
        return set()
    return set(removes if all(file.exists() for file in adds) else adds)


def _by_partition(items: list[Item]) -> dict[tuple[str, str, str], list[Item]]:
    """Finished calls by partition key (gateway, node name, method), in their order; a batch
    is nearly always of one node and method, found by two identity passes in C."""
    from ._bulk import _all_same

    nodes, methods = list(map(_NODE_OF, items)), list(map(_METHOD_OF, items))
    if _all_same(nodes) and _all_same(methods):
        return {(nodes[0].gateway, nodes[0].name, methods[0].name): items}
    groups: dict[tuple[str, str, str], list[Item]] = {}
    for item, node, method in zip(items, nodes, methods, strict=True):
        groups.setdefault((node.gateway, node.name, method.name), []).append(item)
    return groups


def _keyed(groups: dict[tuple[str, str, str], list[Item]]) -> list[tuple[Any, Item]]:
    """The calls of `groups` in one list with their keys, a partition's calls in their order."""
    return [(key, item) for key, group in groups.items() for item in group]


def _about(gateway: str | None, node: str, method: str) -> dict[str, Any]:
    """What a part file says of itself: the exact names (folder names may be cut) and gateway."""
    return {"node": node, "method": method, "gateway": gateway}


def check_rows_per_file(rows_per_file: Any) -> None:
    if isinstance(rows_per_file, bool) or not isinstance(rows_per_file, int):
        raise ValidationError(
            f"must be a whole number, got {rows_per_file!r}", param="rows_per_file", rule="type"
        )
    if rows_per_file < 1:
        raise ValidationError(
            f"must be at least 1, got {rows_per_file}", param="rows_per_file", rule="min"
        )


def already_done(
    keys: Sequence[tuple[str, str, str, str]],
    previous: pd.DataFrame,
    key_texts: Sequence[str] | None = None,
) -> list[int | None]:
    """For each call key (gateway, node, method, params), the row of `previous` that answers
    it, or None (send it). A key seen n times in `previous` answers its first n calls.

    `key_texts`: each call's params in their one canonical form (`BoundCall.key_json`). A call
    whose params text no row has is then matched by it against the rows left over, their params
    made canonical too: the same call written another way (an address checksummed, then lower
    case) is answered by its row, not paid for again. Rows the exact texts took are not read
    again, so resuming a run written the same way costs no such pass."""
    rows: dict[tuple[str | None, str, str, str], list[int]] = {}
    gateways = [g if isinstance(g, str) else None for g in previous["gateway"]]  # NA: unknown
    columns = zip(gateways, previous["node"], previous["method"], previous["params"], strict=True)
    for position, key in enumerate(columns):
        rows.setdefault(key, []).append(position)
    used: Counter[tuple[str | None, str, str, str]] = Counter()
    found: list[int | None] = []
    for key in keys:
        available = rows.get(key, [])
        if used[key] < len(available):
            found.append(available[used[key]])
            used[key] += 1
        else:
            found.append(None)
    if key_texts is not None and None in found:
        _match_spellings(keys, key_texts, rows, used, found)
    elsewhere: Counter[str] = Counter()
    through = {key[1:]: key[0] for key in rows}  # (node, method, params) -> some gateway
    for key, row in zip(keys, found, strict=True):
        if row is None and through.get(key[1:], key[0]) != key[0]:
            elsewhere[key[1]] += 1
    if elsewhere:
        nodes = ", ".join(f"{node} ({n:,} calls)" for node, n in elsewhere.items())
        warn(
            "the dataset holds rows of the same calls through another gateway (or, written by "
            "an older toolkit, an unknown one), which are not reused (its gateway column tells "
            f"them apart): {nodes}; these calls are sent",
            RuntimeWarning,
            stacklevel=4,
        )
    return found


def _match_spellings(
    keys: Sequence[tuple[str, str, str, str]],
    key_texts: Sequence[str],
    rows: dict[tuple[str | None, str, str, str], list[int]],
    used: Counter[tuple[str | None, str, str, str]],
    found: list[int | None],
) -> None:
    """`already_done`'s second pass: the calls not found yet, by their canonical params, among
    the rows the first pass left (each row's params made canonical by the catalog)."""
    left: dict[CallKey, list[int]] = {}
    for (gateway, node, method, text), positions in rows.items():
        spare = positions[used[(gateway, node, method, text)] :]
        if spare:
            canonical = CallKey(gateway, node, method, _canonical_params(method, text))
            left.setdefault(canonical, []).extend(spare)
    if not left:
        return
    for index, (key, text) in enumerate(zip(keys, key_texts, strict=True)):
        if found[index] is None:
            rows_left = left.get(CallKey(key[0], key[1], key[2], text))
            if rows_left:
                found[index] = rows_left.pop(0)


def _canonical_params(method: Any, text: Any) -> Any:
    """A row's params text in the call key's canonical form; a text that is not JSON (a
    damaged row) stays itself."""
    try:
        return canonical_params(method, load_bounded(text))
    except (ValueError, TypeError):
        return text
