"""A dataset's files (the layout is in `_dataset`'s doc): their names, damaged files, reading
them (`read_dataset`), the row journal of a writer's answers not yet in part files, and merging
small part files. The one writer that changes them is `_dataset.DatasetWriter`."""

from __future__ import annotations

import hashlib
import json
import numbers
import os
import secrets
import time
from collections.abc import Iterator, Sequence
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote

from .._errors import ValidationError
from .._files import fsync_dir, write_atomically
from .._redact import holds_secret, scrub_value, warn
from ._rows import JournalGroup, PartitionKey, journal_frame, journal_group, results_frame

if TYPE_CHECKING:
    import pandas as pd

    from ._rows import Item

PARTITIONS = ("node", "method")
RANGE_REFUSED = "LogRangeRefused"  # the error of an eth_getLogs chunk refused for its range
ROWS_PER_FILE = 50_000
SYNC_SECONDS = 1.0
"""The journal is fsynced when this long has passed since it last was, as answers come in."""
MAX_FOLDER_NAME = 200
"""Bytes of a partition folder's name at most (file systems allow 255)."""
WAIT_POLL_SECONDS = 0.25
READ_ATTEMPTS = 8  # a read a writing run changed, done again after 25 ms, 50 ms, ... up to 1 s
"""`read_dataset` reads again when a writer changed the files meanwhile, this often at most."""

JOURNALS = "_journal"
RUNS = "_runs"
_QUARANTINE = "_quarantine"
PLAN = "_compacting.json"


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


def partition_dir(root: Path, node: str, method: str) -> Path:
    return root / _folder_name("node", node) / _folder_name("method", method)


class Damaged(Exception):
    """A file of the dataset that cannot be read (zero bytes, torn, not ours)."""

    def __init__(self, file: Path, reason: BaseException | str):
        self.file = file
        super().__init__(f"{file}: {reason}")


def report_damage(root: Path, damaged: list[Damaged], *, move: bool) -> None:
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


def part_files(root: Path, prefix: str = "") -> Iterator[tuple[Path, str, str]]:
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


def read_part(file: Path, node: str, method: str) -> tuple[pd.DataFrame, dict[str, Any]]:
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


def _with_partitions(frame: pd.DataFrame, about: dict[str, Any]) -> pd.DataFrame:
    frame.insert(0, "method", about["method"])
    frame.insert(0, "node", about["node"])
    frame["gateway"] = about.get("gateway")
    return frame.astype({"node": "string", "method": "string", "gateway": "string"})


def empty_rows() -> pd.DataFrame:
    return results_frame([]).assign(gateway=None).astype({"gateway": "string"})


def read_dataset(path: str | PathLike[str], engine: str = "pandas") -> Any:
    """The rows of a dataset that `Workload.run(dataset=path)` wrote.

    ``engine="pandas"`` gives one DataFrame (a run's frame's columns, and ``gateway``), the
    provenance of each run that wrote into it in ``frame.attrs["runs"]``; ``engine="dask"`` a
    lazy dask DataFrame of one partition per file. Rows a dead run left in its journal are read
    too; damaged files are skipped with a warning. A pandas read that a writing run changed the
    files under is done again, so each row is read once; dask's lazy reads are not, so read with
    it when no run writes. See the Datasets guide.
    """
    if engine not in ("pandas", "dask"):
        raise ValidationError(
            f"must be 'pandas' or 'dask', got {engine!r}", param="engine", rule="choice"
        )
    root = Path(path)
    if not root.is_dir():
        raise FileNotFoundError(f"no dataset at {root}")
    if engine == "pandas":
        for attempt in range(READ_ATTEMPTS):  # until no writer changed the files meanwhile
            files = _files_now(root)
            frame, damaged = _read_rows(root)
            if _files_now(root) == files:
                break
            # Waits that double: a run writes in bursts (a batch's rows, a part file), and a
            # read slower than the gaps between them (a large dataset, a busy machine) reads
            # whole in a longer gap.
            time.sleep(min(1.0, WAIT_POLL_SECONDS / 10 * 2**attempt))
        else:
            warn(
                f"the dataset at {root} changed each time it was read (a run is writing into "
                "it): some rows may be missing or there twice; read it again when the run ends",
                RuntimeWarning,
                stacklevel=2,
            )
        report_damage(root, damaged, move=False)
        frame.attrs["runs"], bad_records = run_records(root)
        report_damage(root, bad_records, move=False)
        return frame
    import dask
    import dask.dataframe as dd

    unreadable: list[Damaged] = []
    pieces = [
        piece
        for piece in _pieces(root, unreadable)
        if not isinstance(piece, tuple) or _readable(piece[0], unreadable)
    ]
    report_damage(root, unreadable, move=False)
    # Dask turns object columns into Arrow strings by default; here they hold exact ints and
    # JSON values, as in pandas.
    with dask.config.set({"dataframe.convert-string": False}):
        if not pieces:
            return dd.from_pandas(empty_rows(), npartitions=1)
        return dd.from_map(_piece, pieces, meta=empty_rows())


def _files_now(root: Path) -> tuple[Any, ...]:
    """The dataset's files as a writer changes them: journals, part files, a merge's plan."""
    parts = sorted(root.glob("node=*/method=*/part-*.parquet"))
    return tuple(RowJournal.files(root)), tuple(parts), (root / PLAN).exists()


def _pieces(root: Path, damaged: list[Damaged]) -> list[Any]:
    """Where every row is once: the part files (as `part_files` gives them) but those a merge
    cut short replaces, then the journals' rows no part file holds, as one frame. The journals
    are read first: a journal goes only once its part files are written."""
    journaled = _journal_frame(root, RowJournal.files(root), damaged)
    replaced = _replaced_by_merge(root)
    pieces: list[Any] = [part for part in part_files(root) if part[0] not in replaced]
    return [*pieces, journaled] if len(journaled) else pieces


def _read_rows(root: Path) -> tuple[pd.DataFrame, list[Damaged]]:
    """Every row once, and the files that could not be read."""
    import pandas as pd

    damaged: list[Damaged] = []
    frames = []
    for piece in _pieces(root, damaged):
        try:
            frames.append(read_part(*piece)[0] if isinstance(piece, tuple) else piece)
        except Damaged as damage:
            if piece[0].exists():  # else a writer merged it away meanwhile: read again
                damaged.append(damage)
    return (pd.concat(frames, ignore_index=True) if frames else empty_rows()), damaged


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
        return read_part(*piece)[0]
    except Damaged as damage:
        report_damage(piece[0].parents[2], [damage], move=False)  # root/node=/method=/part
        return empty_rows()


def run_records(root: Path) -> tuple[list[dict[str, Any]], list[Damaged]]:
    """The provenance records of the runs that wrote into a dataset, oldest first, and those
    that cannot be read."""
    records, damaged = [], []
    for file in sorted((root / RUNS).glob("*.json")):
        try:
            record = json.loads(file.read_text())
            if not isinstance(record, dict) or not isinstance(record.get("time"), str):
                raise ValueError("not a run record")
        except (OSError, ValueError) as error:  # JSONDecodeError and UnicodeError included
            damaged.append(Damaged(file, error))
            continue
        records.append(record)
    return sorted(records, key=lambda record: record["time"]), damaged


# --- the row journal ----------------------------------------------------------------------------
# One line per batch of finished calls: a JSON list of `_rows.JournalGroup`s, one per partition
# key. A line is written with one write(); a line cut short by a crash is dropped (its calls
# were, as far as the dataset knows, in flight).


class RowJournal:
    """The append-only file of one writer's rows not yet in part files (``_journal/``)."""

    def __init__(self, root: Path, stem: str):
        self.file = root / JOURNALS / f"{stem}.jsonl"
        self.stem = stem
        self._handle: Any = None
        self._synced = 0.0

    @staticmethod
    def files(root: Path, prefix: str = "") -> list[Path]:
        return sorted((root / JOURNALS).glob(f"{prefix}*.jsonl"))

    def append(self, groups: dict[tuple[str, str, str], list[Item]]) -> None:
        """Write one line for finished calls, grouped by partition key (see above)."""
        if self._handle is None:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            self._handle = open(self.file, "ab", buffering=0)  # noqa: SIM115 (kept open)
            fsync_dir(self.file.parent)
        line = [journal_group(key, items) for key, items in groups.items()]
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


def read_journal(file: Path) -> tuple[list[JournalGroup], int]:
    """A journal's groups of rows, and how many of its lines could not be read (a torn last
    line is not counted: it is what a crash mid-write leaves)."""
    try:
        lines = file.read_bytes().split(b"\n")
    except FileNotFoundError:  # its rows went into part files meanwhile (a reader's race)
        return [], 0
    except OSError:
        return [], 1
    groups, bad = [], 0
    last = len(lines) - 1
    for number, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            if not isinstance(raw, list):
                raise ValueError("not a journal line")
            found = [JournalGroup.read(group) for group in raw]
        except ValueError:  # JSONDecodeError and UnicodeDecodeError included
            bad += number != last
            continue
        groups.extend(found)
    return groups, bad


def part_name(stem: str, gateway: str | None) -> str:
    return f"part-{stem}-{(gateway or 'unknown')[:8]}.parquet"


def _journal_frame(root: Path, journals: list[Path], damaged: list[Damaged]) -> pd.DataFrame:
    """The rows of `journals` that no part file holds yet (read-only)."""
    import pandas as pd

    frames = []
    for file in journals:
        groups, bad = read_journal(file)
        if bad:
            damaged.append(Damaged(file, f"{bad} unreadable line(s)"))
        for key, key_groups in groups_by_key(groups).items():
            if not (partition_dir(root, *key[1:]) / part_name(file.stem, key[0])).exists():
                frames.append(journal_frame(key_groups))
    return pd.concat(frames, ignore_index=True) if frames else empty_rows()


def groups_by_key(groups: list[JournalGroup]) -> dict[PartitionKey, list[JournalGroup]]:
    by_key: dict[PartitionKey, list[JournalGroup]] = {}
    for group in groups:
        by_key.setdefault(group.key, []).append(group)
    return by_key


def write_part(file: Path, frame: pd.DataFrame, about: dict[str, Any]) -> None:
    """Write a part file atomically, `about` (`part_about`) in its metadata."""
    from ..frames import to_parquet

    file.parent.mkdir(parents=True, exist_ok=True)
    frame.attrs = {"dataset": about}
    write_atomically(file, lambda temporary: to_parquet(frame, temporary))


def part_about(gateway: str | None, node: str, method: str) -> dict[str, Any]:
    """What a part file says of itself: the exact names (folder names may be cut) and gateway."""
    return {"node": node, "method": method, "gateway": gateway}


# --- clearing up after writers that died --------------------------------------------------------


def clear_up(root: Path, prefix: str, damaged: list[Damaged], *, own_files_only: bool) -> None:
    """Clear up after writers that died: temporary files, a merge cut short (unless the writer
    keeps to its `own_files_only`), journals (`prefix`: the writer's files only)."""
    patterns = [f"*/*/.part-{prefix}*.tmp"]
    patterns += [] if prefix else [f"{RUNS}/.*.tmp", f".{PLAN}.*.tmp"]
    for pattern in patterns:  # never renamed, so never part of the data
        for file in root.glob(pattern):
            file.unlink(missing_ok=True)
    if not own_files_only:
        finish_merge(root)
    _recover(root, prefix, damaged)


def _recover(root: Path, prefix: str, damaged: list[Damaged]) -> None:
    """Write the part files that dead writers' journals hold rows for, then drop the journals.
    A part file's name is its journal's and its gateway's, so a part written before the crash is
    never written twice (it is the same file); one that cannot be read (its data lost in a power
    cut after its rename) is written again from the journal."""
    for file in RowJournal.files(root, prefix):
        groups, bad = read_journal(file)
        for key, key_groups in groups_by_key(groups).items():
            target = partition_dir(root, *key[1:]) / part_name(file.stem, key[0])
            try:
                read_part(target, *key[1:])
            except Damaged:  # not written, or not whole: written (again) from the journal
                frame = journal_frame(key_groups).drop(columns=[*PARTITIONS, "gateway"])
                write_part(target, frame, part_about(*key))
        if bad:
            damaged.append(Damaged(file, f"{bad} unreadable line(s); the rest recovered"))
        else:
            file.unlink()
    if (root / JOURNALS).exists():
        fsync_dir(root / JOURNALS)


# --- merging small files ------------------------------------------------------------------------


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
                frame, about = read_part(file, node, method)
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
                name = part_name(f"merged-{token}-{number:05d}", about.get("gateway"))
                rows = merged.iloc[start : start + rows_per_file].reset_index(drop=True)
                adds.append((folder / name, rows, about))
            removes += [file for file, _, _ in members]
    if not adds:
        return 0
    plan = {
        "add": [file.relative_to(root).as_posix() for file, _, _ in adds],
        "remove": [file.relative_to(root).as_posix() for file in removes],
    }
    write_atomically(root / PLAN, lambda file: file.write_text(json.dumps(plan)))
    for file, frame, about in adds:
        write_part(file, frame, about)
    finish_merge(root)
    return len(removes) - len(adds)


def finish_merge(root: Path) -> None:
    """Complete the merge that ``_compacting.json`` plans: when all its new files are there,
    remove the files they replace; otherwise (a crash while writing them) remove the new ones."""
    plan_file = root / PLAN
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
        plan = json.loads((root / PLAN).read_text())
        adds = [root / name for name in plan["add"]]
        removes = [root / name for name in plan["remove"]]
    except (OSError, ValueError, KeyError, TypeError):  # no merge under way (a plan is written
        return set()  # atomically: never torn)
    return set(removes if all(file.exists() for file in adds) else adds)


def at_least_one(value: Any, name: str) -> int:
    """`value` as an int, when it is a whole number of at least 1; else a `ValidationError`
    naming the parameter `name`."""
    # bool is an int to Python, but concurrency=True is a mistake, not 1.
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValidationError(f"must be a whole number, got {value!r}", param=name, rule="type")
    if value < 1:
        raise ValidationError(f"must be at least 1, got {value}", param=name, rule="min")
    return int(value)
