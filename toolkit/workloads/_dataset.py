"""Workload results as a partitioned Parquet dataset that a later run resumes, and that keeps
every answer it was paid for: the writer (`DatasetWriter`), its lock, and which rows a run
reuses (`already_done`). What a crash, a full disk or a second run costs is in
docs/datasets.md; the files themselves are in `_dataset_files`.

Layout (``_``- and ``.``-prefixed names are skipped by pyarrow, DuckDB and Dask):

    node=<name>/method=<method>/part-*.parquet   the rows: Hive partitions, values URI-encoded
    _journal/<writer>.jsonl                      answers not yet in a part file
    _runs/<run>.json                             each run's provenance
    _quarantine/...                              damaged files, moved aside
    _lock, _lock.owner                           the one writer's lock, and who holds it
    _compacting.json                             the plan of a merge of small files under way

Each batch of finished calls is one journal line at once; part files are written when a
partition has `rows_per_file` rows and when the run ends, then their journal goes. A row that
failed is removed before the run and its call sent again; calls the budget refused are never
written. A workload may plan the same call twice: it then needs two rows.
"""

from __future__ import annotations

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

from .._errors import BudgetExceeded, DatasetBusy, DatasetError
from .._files import fsync_dir, write_atomically
from .._json import load_bounded
from .._redact import warn
from .._version import __version__
from ..client import CallKey, canonical_params
from ._dataset_files import (
    PARTITIONS,
    RANGE_REFUSED,
    ROWS_PER_FILE,
    RUNS,
    WAIT_POLL_SECONDS,
    Damaged,
    RowJournal,
    at_least_one,
    clear_up,
    empty_rows,
    merge_small_files,
    part_about,
    part_files,
    part_name,
    partition_dir,
    read_part,
    report_damage,
    run_records,
    write_part,
)
from ._rows import PartitionKey, all_same, results_frame

if TYPE_CHECKING:
    import pandas as pd

    from ._rows import Item

_LOCK = "_lock"
_OWNER = "_lock.owner"


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
        self.root = Path(path)
        self.rows_per_file = at_least_one(rows_per_file, "rows_per_file")
        self.run_id = f"{time.strftime('%Y%m%dT%H%M%S')}-{secrets.token_hex(4)}"
        self.prefix = prefix or self.run_id
        self.own_files_only = prefix is not None
        self.wait = wait
        self.after_write: Callable[[], None] | None = None  # told after each part file
        self.failure: BaseException | None = None
        self._attempt = secrets.token_hex(3)  # a task run again never overwrites its files
        self._generation = 0
        self._journal = RowJournal(self.root, self._stem())
        self._buffers: dict[PartitionKey, list[Item]] = {}
        self._written: set[Path] = set()  # partition folders this writer wrote into
        self._lock: DatasetLock | None = None

    def _stem(self) -> str:
        return f"{self.prefix}-{self._attempt}-{self._generation:05d}"

    # --- opening: lock, recovery, resume ---

    async def open(self) -> pd.DataFrame:
        """`open_blocking` for the event loop: waiting for the lock never blocks the loop."""
        import asyncio

        for _ in self._until_locked():
            await asyncio.sleep(WAIT_POLL_SECONDS)
        return self._resume_locked()

    def open_blocking(self) -> pd.DataFrame:
        """Take the dataset (waiting for another run, or `DatasetBusy`), recover what runs that
        died left, move damaged files aside, and return the rows of calls that succeeded before
        (failed rows are removed from their files: their calls are sent again)."""
        self._lock_blocking()
        return self._resume_locked()

    def _lock_blocking(self) -> None:
        for _ in self._until_locked():
            time.sleep(WAIT_POLL_SECONDS)

    def _until_locked(self) -> Iterator[None]:
        """Yields, for the caller to wait, while another run holds the dataset (saying who, once,
        or raising `DatasetBusy` when this writer does not wait)."""
        said = False
        while not self._take_lock():
            assert self._lock is not None
            busy = self._lock.busy()
            if not self.wait:
                raise busy
            if not said:
                warn(f"{busy.detail}: waiting for it to finish", RuntimeWarning, stacklevel=3)
                said = True
            yield

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

    def _resume_locked(self) -> pd.DataFrame:
        try:
            return self._resume()
        except OSError as error:  # writing what dead runs left, moving damaged files aside
            self.release()
            raise self._unwritable(error) from None
        except BaseException:
            self.release()
            raise

    def _resume(self) -> pd.DataFrame:
        prefix = f"{self.prefix}-" if self.own_files_only else ""
        damaged: list[Damaged] = []
        clear_up(self.root, prefix, damaged, own_files_only=self.own_files_only)
        kept = []
        for file, node, method in list(part_files(self.root, prefix)):
            try:
                frame, about = read_part(file, node, method)
            except Damaged as damage:
                damaged.append(damage)
                continue
            # A chunk refused for its range stays: its row says how a resumed scan splits it
            # (`_logs.split_known_refusals`); every other failure is sent again.
            failed = frame["error"].notna() & frame["error"].ne(RANGE_REFUSED)
            if failed.any():
                self._rewrite(file, frame[~failed], about)
            kept.append(frame[~failed])
        if not self.own_files_only:
            damaged += run_records(self.root)[1]
        report_damage(self.root, damaged, move=True)
        if not kept:
            return empty_rows()
        import pandas as pd

        return pd.concat(kept, ignore_index=True)

    def _rewrite(self, file: Path, frame: pd.DataFrame, about: dict[str, Any]) -> None:
        if frame.empty:
            file.unlink()
            fsync_dir(file.parent)
        else:
            columns = [*PARTITIONS, "gateway"]
            write_part(file, frame.drop(columns=columns).reset_index(drop=True), about)

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

    def _fitting(self, groups: dict[PartitionKey, list[Item]]) -> dict[PartitionKey, list[Item]]:
        """The calls of `groups` that fit before a partition's buffer is full: all of them, or
        (when one would overflow) those before the first that does not, in the calls' order."""
        room = {key: self.rows_per_file - len(self._buffers.get(key, ())) for key in groups}
        if all(len(group) <= room[key] for key, group in groups.items()):
            return groups
        # Rare (a buffer fills part way through a batch): the order of the calls decides.
        fitting: dict[PartitionKey, list[Item]] = {}
        for key, item in [(key, item) for key, group in groups.items() for item in group]:
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
        stem = self._journal.stem
        try:
            for (gateway, node, method), items in self._buffers.items():
                file = partition_dir(self.root, node, method) / part_name(stem, gateway)
                frame = results_frame(items).drop(columns=list(PARTITIONS))
                write_part(file, frame, part_about(gateway, node, method))
                self._written.add(file.parent)
            self._journal.discard()
        except Exception as error:  # the journal still holds the rows: the next run writes them
            self._failed(error)
            return
        self._buffers = {}
        self._generation += 1
        self._journal = RowJournal(self.root, self._stem())
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
        folder = self.root / RUNS
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
    at_least_one(rows_per_file, "rows_per_file")
    root = Path(path)
    if not root.is_dir():
        raise FileNotFoundError(f"no dataset at {root}")
    writer = DatasetWriter(root, rows_per_file, wait=wait)
    writer._lock_blocking()
    try:
        damaged: list[Damaged] = []
        clear_up(root, "", damaged, own_files_only=False)
        report_damage(root, damaged, move=True)
        folders = sorted({file.parent for file, _, _ in part_files(root)})
        return merge_small_files(root, rows_per_file, folders)
    except OSError as error:  # a merge cut short is undone by the next writer (see its plan)
        raise writer._unwritable(error, "its files were not merged") from None
    finally:
        writer.release()


def _by_partition(items: list[Item]) -> dict[PartitionKey, list[Item]]:
    """Finished calls by partition key (gateway, node name, method), in their order; a batch
    is nearly always of one node and method, found by two identity passes in C."""
    nodes, methods = list(map(_NODE_OF, items)), list(map(_METHOD_OF, items))
    if all_same(nodes) and all_same(methods):
        return {(nodes[0].gateway, nodes[0].name, methods[0].name): items}
    groups: dict[PartitionKey, list[Item]] = {}
    for item, node, method in zip(items, nodes, methods, strict=True):
        groups.setdefault((node.gateway, node.name, method.name), []).append(item)
    return groups


_NODE_OF = attrgetter("node")
_METHOD_OF = attrgetter("call.bound.method")


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
