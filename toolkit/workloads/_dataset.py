"""Workload results as a partitioned Parquet dataset that a later run resumes.

    work.run(dataset="balances/")        # writes rows as calls finish
    work.run(dataset="balances/")        # again: sends only the calls without a row (0 RU if none)
    toolkit.read_dataset("balances/")    # the rows, exactly as the run's frame had them

Layout: Hive partitions by node and method (``node=<name>/method=<method>/part-*.parquet``, the
values URI-encoded as pyarrow, DuckDB and Dask expect, since methods hold ``/``). Each file holds at
most `rows_per_file` rows, written with `toolkit.frames.to_arrow`, so big ints are decimals and read
back exactly. A file is written under a temporary name and renamed, so a run killed mid-write
leaves no half file.

A call is identified by its node name, method and parameters (the frame's ``params`` text). A
call with a row that succeeded is not sent again; a call whose row is a failure is: its row is
removed before the run, and the run writes its new fate. Calls the budget refused are not written
(they were never sent), so the next run sends them. A workload may plan the same call twice: it
then needs two rows.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote

from .._errors import BudgetExceeded
from .._redact import warn
from .._version import __version__

if TYPE_CHECKING:
    import pandas as pd

    from ._bulk import Item

PARTITIONS = ("node", "method")
ROWS_PER_FILE = 50_000


def _partition_dir(root: Path, node: str, method: str) -> Path:
    return root / f"node={quote(node, safe='')}" / f"method={quote(method, safe='')}"


def _parts(root: Path) -> Iterator[tuple[Path, str, str]]:
    """Every data file with its node and method, in a stable order."""
    for node_dir in sorted(root.glob("node=*")):
        for method_dir in sorted(node_dir.glob("method=*")):
            for file in sorted(method_dir.glob("part-*.parquet")):
                node = unquote(node_dir.name.removeprefix("node="))
                yield file, node, unquote(method_dir.name.removeprefix("method="))


def _read_part(file: Path, node: str, method: str) -> pd.DataFrame:
    from ..frames import read_parquet

    frame = read_parquet(file)
    frame.insert(0, "method", method)
    frame.insert(0, "node", node)
    frame.attrs = {}
    return frame.astype({"node": "string", "method": "string"})


def _read_part_of(part: tuple[Path, str, str]) -> pd.DataFrame:
    return _read_part(*part)


def _empty() -> pd.DataFrame:
    from ._bulk import results_frame

    return results_frame([])


def read_dataset(path: str | PathLike[str], engine: str = "pandas") -> Any:
    """The rows of a dataset that `Workload.run(dataset=path)` wrote.

    ``engine="pandas"`` gives one DataFrame (the columns of a run's frame, exact ints), with
    the provenance of every run that wrote into the dataset in ``frame.attrs["runs"]``;
    ``engine="dask"`` a lazy dask DataFrame of one partition per file, each read the same way.
    """
    root = Path(path)
    if not root.is_dir():
        raise FileNotFoundError(f"no dataset at {root}")
    parts = list(_parts(root))
    if engine == "pandas":
        import pandas as pd

        frames = [_read_part(*part) for part in parts]
        frame = pd.concat(frames, ignore_index=True) if frames else _empty()
        frame.attrs["runs"] = runs(root)
        return frame
    if engine == "dask":
        import dask
        import dask.dataframe as dd

        # Dask turns object columns into Arrow strings by default; here they hold exact ints
        # and JSON values, as in pandas.
        with dask.config.set({"dataframe.convert-string": False}):
            if not parts:
                return dd.from_pandas(_empty(), npartitions=1)
            return dd.from_map(_read_part_of, parts, meta=_empty())
    raise ValueError(f"engine must be 'pandas' or 'dask', got {engine!r}")


class DatasetWriter:
    """Rows for one run: what the dataset already answers, and the files for what finishes."""

    def __init__(
        self,
        path: str | PathLike[str],
        rows_per_file: int = ROWS_PER_FILE,
        *,
        prefix: str | None = None,
    ):
        """`prefix` names this writer's files (``part-<prefix>-<n>.parquet``) and limits
        `resume` to them: a distributed run's partition resumes only its own rows."""
        if isinstance(rows_per_file, bool) or not isinstance(rows_per_file, int):
            raise ValueError(f"rows_per_file must be a whole number, got {rows_per_file!r}")
        if rows_per_file < 1:
            raise ValueError("rows_per_file must be at least 1")
        self.root = Path(path)
        self.rows_per_file = rows_per_file
        self.run_id = f"{time.strftime('%Y%m%dT%H%M%S')}-{secrets.token_hex(4)}"
        self.prefix = prefix or self.run_id
        self.own_files_only = prefix is not None
        self.after_write: Callable[[], None] | None = None  # told after each file is written
        self._buffers: dict[tuple[str, str], list[Item]] = {}
        self._written = 0
        self._attempt = secrets.token_hex(3)  # a task run again never overwrites its files
        self.failure: BaseException | None = None

    def resume(self) -> pd.DataFrame:
        """The rows of calls that succeeded before; failed rows are removed from their files
        (their calls are sent again). Creates the dataset folder when there is none."""
        self.root.mkdir(parents=True, exist_ok=True)
        kept = []
        for file, node, method in list(_parts(self.root)):
            if self.own_files_only and not file.name.startswith(f"part-{self.prefix}-"):
                continue
            frame = _read_part(file, node, method)
            failed = frame["error"].notna()
            if failed.any():
                self._rewrite(file, frame[~failed])
            kept.append(frame[~failed])
        if not kept:
            return _empty()
        import pandas as pd

        return pd.concat(kept, ignore_index=True)

    def _rewrite(self, file: Path, frame: pd.DataFrame) -> None:
        if frame.empty:
            file.unlink()
        else:
            self._write(file, frame.drop(columns=list(PARTITIONS)).reset_index(drop=True))

    @staticmethod
    def _write(file: Path, frame: pd.DataFrame) -> None:
        from ..frames import to_parquet

        temporary = file.with_name(f".{file.name}.tmp")
        to_parquet(frame, temporary)
        os.replace(temporary, file)

    def add(self, items: Sequence[Item]) -> None:
        """Take finished calls; a partition's buffer is written once it holds a file's rows."""
        if self.failure is not None:
            return
        for item in items:
            if isinstance(item.error, BudgetExceeded):
                continue  # never sent: the next run sends it
            key = (item.node.name, item.call.method)
            buffer = self._buffers.setdefault(key, [])
            buffer.append(item)
            if len(buffer) >= self.rows_per_file:
                self._flush(key)

    def close(self) -> None:
        """Write what is buffered (after a run, or when it was interrupted)."""
        for key in list(self._buffers):
            self._flush(key)

    def _flush(self, key: tuple[str, str]) -> None:
        items = self._buffers.pop(key, [])
        if not items or self.failure is not None:
            return
        from ._bulk import results_frame

        folder = _partition_dir(self.root, *key)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            frame = results_frame(items).drop(columns=list(PARTITIONS))
            name = f"part-{self.prefix}-{self._attempt}-{self._written:05d}.parquet"
            self._write(folder / name, frame)
        except Exception as error:  # the frame still has every result: warn, never lose them
            self.failure = error
            warn(
                f"the dataset at {self.root} could not be written ({error!r}); the results are "
                "in the returned frame, and the next run into the dataset sends the calls it "
                "lacks",
                RuntimeWarning,
            )
            return
        self._written += 1
        if self.after_write is not None:
            self.after_write()

    def record_run(self, summary: dict[str, Any], nodes: list[dict[str, Any]]) -> None:
        """Keep a run's provenance next to its rows (``_runs/<run>.json``): when, with which
        toolkit, on which nodes at which heads, and its summary. A partition of a distributed
        run records nothing: the run that split it does."""
        if self.own_files_only or self.failure is not None:
            return
        record = {
            "run": self.run_id,
            "time": datetime.now(UTC).isoformat(),
            "toolkit_version": __version__,
            "nodes": nodes,
            "summary": summary,
        }
        folder = self.root / "_runs"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            temporary = folder / f".{self.run_id}.json.tmp"
            temporary.write_text(json.dumps(record, indent=1, default=str))
            os.replace(temporary, folder / f"{self.run_id}.json")
        except OSError as error:
            warn(f"the run's record could not be written ({error!r})", RuntimeWarning)


def runs(root: Path) -> list[dict[str, Any]]:
    """The provenance records of the runs that wrote into a dataset, oldest first."""
    records = [json.loads(file.read_text()) for file in (root / "_runs").glob("*.json")]
    return sorted(records, key=lambda record: record["time"])


def already_done(keys: Sequence[tuple[str, str, str]], previous: pd.DataFrame) -> list[int | None]:
    """For each call key, the row of `previous` that answers it, or None (send it). A key seen
    n times in `previous` answers its first n calls."""
    rows: dict[tuple[str, str, str], list[int]] = {}
    columns = zip(previous["node"], previous["method"], previous["params"], strict=True)
    for position, key in enumerate(columns):
        rows.setdefault(key, []).append(position)
    used: Counter[tuple[str, str, str]] = Counter()
    found: list[int | None] = []
    for key in keys:
        available = rows.get(key, [])
        if used[key] < len(available):
            found.append(available[used[key]])
            used[key] += 1
        else:
            found.append(None)
    return found
