"""A process that runs workloads into a dataset in children it forks, and has them killed.

    python crash_lab.py '<sandbox info as JSON>'

It imports the toolkit and its heavy modules once (a fork copies them, so each run starts at
once), then reads one JSON command per line on stdin and answers one JSON line per command:
``{"signal": 9}`` when the child was killed, ``{"exit": 0}`` when it ended by itself. The lab
itself starts no thread, so forking it is safe. A command says how the child dies:

- ``{"kill": "calls", "at": k}``: SIGKILL when k calls have finished (others are in flight);
- ``{"kill": "seconds", "at": s}``: the lab kills the child s seconds after it starts;
- ``{"kill": "<point>", "at": n}``: the child kills itself at the n-th time it reaches a point
  of the dataset writer: ``journal-torn`` (half a journal line written), ``journal-written``
  (a whole line, not yet fsynced), ``part-temporary`` (a part file written, not renamed),
  ``part-renamed`` (renamed, its journal not yet deleted), ``record`` (the run's record
  written, not renamed); ``merge-partial`` and ``merge-written`` (a run's merge of small
  files, cut short after its first new file, or after all of them but before the old go);
  ``cache-store`` (answers inserted into the response cache, not committed) and ``tape-save``
  (half the tape's temporary file written);
- ``{"kill": "none"}``: the child runs to the end (two of them at once: ``"children": 2``).

``"run"`` overrides what the child passes to ``run()`` (`RUN`); ``"file_size_limit"`` (bytes)
makes every write past it fail, as on a full disk (Python ignores SIGXFSZ: the write raises).
``"cache"`` (a file) gives the child's gateway that response cache, ``"tape"`` (a file) has it
record a tape there.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
import traceback


def workload(gateway):
    """70 calls in two partitions: balances (JSON-RPC batches) and TRON transaction infos."""
    from toolkit.workloads._workload import Workload

    eth, tron = gateway.node("ethereum-mainnet"), gateway.node("tron-mainnet")
    head, tron_head = eth.head(), tron.head()
    addresses = [f"0x{index:040x}" for index in range(1, 13)]
    work = Workload().grid(eth, "eth_getBalance", addresses, [head - 400 - i for i in range(5)])
    return work.each(
        tron,
        "wallet/gettransactioninfobyblocknum",
        range(tron_head - 10, tron_head),
        param="num",
    )


RUN = {"concurrency": 3, "batch_size": 5, "rows_per_file": 16}
"""How the children run: at most 3 units of at most 5 calls in flight."""


def connect(info, cache=False, tape=None):
    import toolkit

    retry = toolkit.RetryPolicy(attempts=4, backoff_s=0.005, backoff_max_s=0.02)
    return toolkit.Gateway(
        info["platform_url"],
        info["api_key"],
        nodes=info["nodes"],
        cache=cache,
        retry=retry,
        **({"tape": tape, "tape_mode": "record"} if tape else {}),
    )


def die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def plant(point: str, at: int) -> None:
    """Make the dataset writer kill this process the `at`-th time it reaches `point`."""
    from toolkit.workloads import _dataset, _dataset_files

    reached = [0]

    def arrive() -> bool:
        reached[0] += 1
        return reached[0] >= at

    if point in ("journal-torn", "journal-written"):

        class Handle:
            def __init__(self, inner):
                self.inner = inner

            def write(self, data):
                if arrive():
                    if point == "journal-torn":
                        self.inner.write(data[: len(data) // 2])
                    else:
                        self.inner.write(data)
                    die()
                return self.inner.write(data)

            def __getattr__(self, name):
                return getattr(self.inner, name)

        append = _dataset_files.RowJournal.append

        def journal_append(journal, groups):
            if journal._handle is None:
                append(journal, {})  # opens the file (and writes an empty line)
                journal._handle = Handle(journal._handle)
            append(journal, groups)

        _dataset_files.RowJournal.append = journal_append
    elif point in ("part-temporary", "part-renamed", "record"):
        write_atomically = _dataset_files.write_atomically
        replace = os.replace

        def atomically(file, write):
            is_part = file.name.startswith("part-")
            if is_part != (point != "record"):
                return write_atomically(file, write)

            def replace_then_maybe_die(source, target):
                if point == "part-temporary" and arrive():
                    die()
                replace(source, target)
                if point in ("part-renamed", "record") and arrive():
                    die()

            os.replace = replace_then_maybe_die
            try:
                return write_atomically(file, write)
            finally:
                os.replace = replace

        _dataset.write_atomically = _dataset_files.write_atomically = atomically
    elif point == "merge-partial":  # the first merged file written, the others not
        write = _dataset_files.write_part

        def write_then_maybe_die(file, frame, about):
            write(file, frame, about)
            if file.name.startswith("part-merged-") and arrive():
                die()

        _dataset_files.write_part = write_then_maybe_die
    elif point == "merge-written":  # every merged file written, the old ones not yet removed
        finish = _dataset_files.finish_merge

        def die_before_finishing(root):
            if (root / _dataset_files.PLAN).exists() and arrive():
                die()
            finish(root)

        _dataset_files.finish_merge = die_before_finishing
    elif point == "cache-store":  # the answers inserted, the transaction not committed
        from toolkit.client._cache import ResponseCache

        write_pending = ResponseCache._write_pending

        def insert_then_maybe_die(cache):
            if cache._pending and cache._db is not None and arrive():
                cache._db.execute("BEGIN")
                insert = "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?)"
                cache._db.executemany(insert, list(cache._pending.values()))
                die()
            write_pending(cache)

        ResponseCache._write_pending = insert_then_maybe_die
    elif point == "tape-save":  # half of the tape's temporary file written
        from toolkit.client import _tapefile

        write_atomically = _tapefile.write_atomically

        def half_then_maybe_die(file, write):
            if arrive():
                write_atomically(file, lambda temporary: (write(temporary), tear(temporary)))
            write_atomically(file, write)

        def tear(temporary):
            os.truncate(temporary, os.path.getsize(temporary) // 2)
            die()

        _tapefile.write_atomically = half_then_maybe_die
    else:
        raise SystemExit(f"unknown point {point}")


class KillAfter:
    """A progress bar that kills the process when `at` calls have finished."""

    def __init__(self, at: int):
        self.at, self.seen = at, 0

    def update(self, count: int) -> None:
        self.seen += count
        if self.seen >= self.at:
            die()


def child(info, command) -> None:
    if "file_size_limit" in command:  # a full disk, as far as this process can tell
        import resource

        limit = command["file_size_limit"]
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    kill = command.get("kill", "none")
    if kill not in ("calls", "seconds", "none"):
        plant(kill, command["at"])
    gateway = connect(info, command.get("cache", False), command.get("tape"))
    work = workload(gateway)
    progress = KillAfter(command["at"]) if kill == "calls" else False
    work.run(progress=progress, dataset=command["dataset"], **{**RUN, **command.get("run", {})})
    gateway.close()  # as a kernel's exit would (`os._exit` skips it): the tape is saved whole


def main() -> None:
    info = json.loads(sys.argv[1])
    # Imported before any fork: each child starts with them loaded.
    import aiohttp  # noqa: F401
    import httpx  # noqa: F401
    import pandas  # noqa: F401
    import pyarrow.parquet  # noqa: F401

    import toolkit.frames
    import toolkit.workloads._bulk  # noqa: F401

    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        command = json.loads(line)
        children = []
        for _ in range(command.get("children", 1)):
            pid = os.fork()
            if pid == 0:
                code = 0
                try:
                    child(info, command)
                except BaseException:
                    traceback.print_exc()
                    code = 1
                finally:
                    os._exit(code)
            children.append(pid)
        if command.get("kill") == "seconds":
            time.sleep(command["at"])
            for pid in children:
                os.kill(pid, signal.SIGKILL)
        ends = []
        for pid in children:
            _, status = os.waitpid(pid, 0)
            ends.append(
                {"signal": os.WTERMSIG(status)}
                if os.WIFSIGNALED(status)
                else {"exit": os.WEXITSTATUS(status)}
            )
        print(json.dumps(ends), flush=True)


if __name__ == "__main__":
    main()
