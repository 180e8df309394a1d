"""Tapes: record what a notebook's calls got, then replay them anywhere, with no key and no network.

    gw = toolkit.connect(tape="notebook.tape.gz", tape_mode="auto")   # or NODE_GATEWAY_TAPE=...

A tape is a transport (`_transport.StepClient`): the exchange above it is unchanged, so replay
goes through the whole pipeline (validation, pricing, budget, ledger, frames, workloads), and so
does recording. Calls are keyed by their identity, never by the request's id, URL or key: the
node's name and chain, the method (a JSON-RPC method, or a REST verb and path) and the params as
canonical JSON. Concurrency, batching and the cache may thus change between recording and replay:
a batch of 100 recorded is answered as two batches of 50, or one by one.

- ``record``: calls go to the gateway; each answer is kept under each call it answers (a batch
  answer is split by id), in order, with what its attempt cost (billed, maybe billed) and when.
  A call answered several times (a head that moved, a retry after a 429) keeps every answer.
- ``replay``: no socket is opened. A call gets its recorded answers in order (the last again
  once they run out), as an `Answer` marked replayed: it costs 0 RU, and its ledger entry keeps
  what it cost when recorded (``recorded_ru``) and when (the ledger's time is the tape's). A
  call the tape does not hold is a `TapeMiss` at once, naming the node, method and params.
- ``auto``: replay when the file exists, else record. A recording that did not finish (its
  kernel was killed before closing the gateway or exiting: the file does not say ``finished``)
  is recorded on instead: a request whose calls the file answers gets those answers (0 RU, as a
  replay), any other is sent and recorded after them, so what it holds is never paid twice.

The file is gzip-compressed JSON lines, readable after ``gunzip``: a header (format, version,
when it was recorded, the toolkit's version, the nodes by name, chain and host), then one line
per call identity. Everything written passes through the toolkit's scrubber: registered keys
anywhere, URLs in answers (the platform's node list holds endpoint URLs with their keys) reduced
to their host, and nothing of the request but the call's identity. It is written whole (temporary
file, fsync, rename) when the gateway closes, at exit, and at most every `SAVE_SECONDS` while
answers come in; the temporary files of saves that were killed go at the next save.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import gzip
import json
import os
import secrets
import threading
import time
import weakref
import zlib
from datetime import UTC, datetime
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlsplit

from .._errors import TapeError, TapeMiss, ValidationError
from .._files import remove_dead_writers_files, write_atomically
from .._redact import redact_answer, scrub, warn
from .._version import __version__
from ..catalog import charge
from ._http import Answer, LazyModule, Replayed
from ._transport import Send, StepClient, _send_async, _send_sync, attempt_fate

if TYPE_CHECKING:
    import asyncio

    from ._node import NodeCore
else:
    asyncio = LazyModule("asyncio", globals())  # imported on first use: see `_http.LazyModule`

FORMAT = "node-gateway-toolkit tape"
VERSION = 1
MODES = ("record", "replay", "auto")
ENV_TAPE = "NODE_GATEWAY_TAPE"
ENV_TAPE_MODE = "NODE_GATEWAY_TAPE_MODE"
SAVE_SECONDS = 1.0

Key = tuple[str, str, str, str]  # node, chain, call, params


def _canonical(value: Any) -> str:
    return scrub(json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False))


class Tape:
    """One tape file in one mode; shared by the clients of a gateway (see the module doc)."""

    def __init__(self, path: str | PathLike[str], mode: str = "auto"):
        if mode not in MODES:
            raise ValidationError(
                f"must be one of {', '.join(MODES)}; got {mode!r}", param="tape_mode", rule="choice"
            )
        if not isinstance(path, str | PathLike) or not str(path):
            raise ValidationError(f"must be a file path, got {path!r}", param="tape", rule="type")
        self.path = Path(path)
        self._lock = threading.Lock()
        self._saving = threading.Lock()
        self._calls: dict[Key, dict[str, Any]] = {}
        self._next: dict[Key, int] = {}  # replay: the next answer of each call
        self._clock = ""  # replay: the latest recorded time of an answer served (ISO text)
        self._nodes: dict[str, dict[str, str]] = {}
        self._dirty = False
        self._saved = 0.0
        self._finished_on_disk = True  # whether the file says its recording was finished
        auto = mode == "auto"
        if auto:
            mode = "replay" if self.path.exists() else "record"
        if mode == "replay":
            self.header = self._load()
            # Auto mode on the file of a recording whose process died (killed, out of memory:
            # it never said it finished) records on, answering the calls it holds from it.
            if auto and self.header.get("finished", True) is False:
                mode, self._finished_on_disk = "record", False
                self._calls = {  # its own, to record into (see `record`)
                    key: {**record, "answers": list(record["answers"]), "pending": [0, 0]}
                    for key, record in self._calls.items()
                }
        else:
            self.header = {"recorded": datetime.now(UTC).isoformat(timespec="seconds")}
        # A new recording's time is that of its first answer, on the ledger's clock (the
        # sandbox's own, for it), not the wall's: set by `record`.
        self._dated = mode == "replay" or not self._finished_on_disk
        self.mode = mode
        self.resumed = not self._finished_on_disk
        """Recording on from a recording that never finished (see `answer_recorded`)."""
        if self.mode == "record":
            # Saved whole at exit as well: a notebook rarely closes its gateway.
            self._finalizer = weakref.finalize(self, _save_at_exit, weakref.ref(self))
            atexit.register(self._finalizer)

    def __repr__(self) -> str:
        return f"<Tape {self.mode} {self.path.name}: {len(self._calls):,} calls>"

    def __reduce__(self) -> tuple[Any, ...]:
        # A Dask worker replays the same file. Recording, it records into a file of its own
        # beside the tape, which the recording takes in when it is next saved.
        if self.replaying:
            return (Tape, (str(self.path), "replay"))
        if self.path.parent.name.endswith(".parts"):  # a worker's share, copied in its process
            return (_recording_at, (str(self.path),))
        return (_worker_recording, (str(self.path),))

    # --- what the tape says of itself ---

    @property
    def replaying(self) -> bool:
        return self.mode == "replay"

    @property
    def recorded_at(self) -> datetime:
        return datetime.fromisoformat(self.header["recorded"])

    @property
    def nodes(self) -> dict[str, dict[str, str]]:
        """The nodes the tape has answers of: name -> chain and host (with its port)."""
        return dict(self._nodes)

    def cost(self) -> tuple[int, int]:
        """What the recorded calls cost (billed, maybe billed), every answer counted."""
        billed = unconfirmed = 0
        for record in self._calls.values():
            billed += record["ru"]
            unconfirmed += record["unconfirmed_ru"]
        return billed, unconfirmed

    def client(self, core: NodeCore, inner: Any = None) -> TapeClient:
        """The transport for `core`'s calls: recording through `inner` (an HTTP client), or
        replaying (no client at all)."""
        name, chain = _node_of(core)
        if not self.replaying:
            with self._lock:
                self._nodes.setdefault(name, {"chain": chain, "host": _netloc(core.endpoint.url)})
        return TapeClient(self, core, inner)

    # --- recording ---

    def record(
        self,
        keys: list[Key],
        answers: list[dict[str, Any] | None],
        step: Send,
        fate: Any,
        when: datetime,
    ):
        """Keep each call's answer (None: the attempt got none), what the attempt cost, and
        `when` it was answered, on the clock the ledger keeps (the sandbox's own, for it)."""
        prices = [(part[1], part[2]) for part in step.parts] or [(step.likely, step.ru)]
        if len(prices) != len(keys):
            prices = [prices[0]] * len(keys)
        at = when.isoformat(timespec="milliseconds")
        with self._lock:
            if not self._dated:
                self.header["recorded"] = when.isoformat(timespec="seconds")
                self._dated = True
            for key, answer, (likely, ru) in zip(keys, answers, prices, strict=True):
                billed, unconfirmed = charge(fate, likely, ru)
                record = self._calls.get(key)
                if record is None:
                    node, chain, call, params = key
                    record = self._calls[key] = {
                        "node": node,
                        "chain": chain,
                        "call": call,
                        "params": params,
                        "answers": [],
                        "ru": 0,
                        "unconfirmed_ru": 0,
                        "pending": [0, 0],
                    }
                record["ru"] += billed
                record["unconfirmed_ru"] += unconfirmed
                # An attempt without an answer is paid for with the next answer.
                pending = record["pending"]
                pending[0] += billed
                pending[1] += unconfirmed
                if answer is not None:
                    answer["ru"], answer["unconfirmed_ru"] = pending
                    answer["at"] = at
                    record["answers"].append(answer)
                    record["pending"] = [0, 0]
            self._dirty = True
        if time.monotonic() - self._saved >= SAVE_SECONDS:
            try:
                self.save(finished=False)
            except TapeError as error:  # the answer is paid for: the call gets it all the same
                warn(str(error), RuntimeWarning, stacklevel=2)

    def close(self) -> None:
        """Write a recording whole and let it go: the next handle on the file replays it (in
        ``auto`` mode) instead of recording on."""
        self.save(finished=True)
        with _open_lock:
            if _open.get(self.path.resolve()) is self:
                del _open[self.path.resolve()]

    def save(self, *, finished: bool = False) -> None:
        """Write the tape whole (a recording; a replayed tape is never written). `finished`:
        the recording is over (closing, at exit); a file that does not say so is a recording
        that died, which ``auto`` mode records on from."""
        if self.replaying:
            return
        with self._saving:  # one save at a time
            self._save(finished)

    def _save(self, finished: bool) -> None:
        with self._lock:
            self._merge_parts()
            if not self._dirty and (self._finished_on_disk or not finished):
                return
            billed, unconfirmed = self.cost()
            header = {
                "format": FORMAT,
                "version": VERSION,
                "recorded": self.header["recorded"],
                "gateway": self.header.get("gateway"),
                "sandbox_seed": self.header.get("sandbox_seed"),
                "known_nodes": self.header.get("known_nodes", {}),
                "toolkit_version": __version__,
                "nodes": self._nodes,
                "ru": billed,
                "unconfirmed_ru": unconfirmed,
                "finished": finished,
            }
            lines = [json.dumps(header, sort_keys=True)]
            for key in sorted(self._calls):
                record = {k: v for k, v in self._calls[key].items() if k != "pending"}
                lines.append(json.dumps(record, sort_keys=True, ensure_ascii=False))
            self._dirty = False
            self._saved = time.monotonic()
        data = gzip.compress(("\n".join(lines) + "\n").encode(), mtime=0)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(self.path, lambda file: file.write_bytes(data))
        except OSError as error:  # a full disk, a read-only folder
            with self._lock:
                self._dirty = True  # still to write: the next save tries again
            raise TapeError(
                f"the tape {self.path} could not be written ({error.strerror or error}); its "
                "answers are kept in memory: free space on its disk (or make its folder "
                "writable), then call gw.tape.save() or close the gateway"
            ) from None
        self._finished_on_disk = finished
        remove_dead_writers_files(self.path)  # what saves killed mid-write left beside it

    # --- replaying ---

    def _load(self) -> dict[str, Any]:
        # Shared with every copy of this file in the process (`_calls_of`): read, never written.
        header, self._calls = _calls_of(_bytes_of(self.path), self.path)
        self._nodes = dict(header.get("nodes", {}))
        return dict(header)

    def _merge_parts(self) -> None:
        """Take in what the Dask workers of a recorded run recorded (see `__reduce__`): their
        answers go after the ones this tape holds, call by call; their files go."""
        for file in sorted(_parts_folder(self.path).glob("*.tape.gz")):
            try:
                header, records = _read(file)
            except TapeError:  # a worker killed while it wrote: its calls are not on the tape
                continue
            for node, info in header.get("nodes", {}).items():
                self._nodes.setdefault(node, info)
            for record in records:
                key = (record["node"], record["chain"], record["call"], record["params"])
                mine = self._calls.setdefault(
                    key, {**record, "answers": [], "ru": 0, "unconfirmed_ru": 0, "pending": [0, 0]}
                )
                mine["answers"] += record["answers"]
                mine["ru"] += record["ru"]
                mine["unconfirmed_ru"] += record["unconfirmed_ru"]
            file.unlink()
            self._dirty = True
        with contextlib.suppress(OSError):  # gone, or a worker still writing into it
            _parts_folder(self.path).rmdir()

    def answer(self, keys: list[Key]) -> list[dict[str, Any]] | TapeMiss:
        """The next recorded answer of each call, or a `TapeMiss` for the first it lacks."""
        with self._lock:
            found = []
            for key in keys:
                record = self._calls.get(key)
                if record is None or not record["answers"]:
                    node, chain, call, params = key
                    return TapeMiss(
                        f"the tape {self.path.name} holds no answer for {call} with params "
                        f"{params} on {node} ({chain}); nothing was sent. Record the tape "
                        "again (tape_mode='record') to add it",
                        call={"node": node, "chain": chain, "method": call, "params": params},
                        node=node,
                        method=call,
                    )
                index = self._next.get(key, 0)
                answers = record["answers"]
                found.append(answers[min(index, len(answers) - 1)])
                self._next[key] = index + 1
            self._clock = max(self._clock, *(answer["at"] for answer in found))
            return found

    def answer_recorded(self, keys: list[Key]) -> list[dict[str, Any]] | None:
        """Recording on from a recording that died: the next answer the file holds of each
        call, so that no call it answered is paid for again; None when one has none left (the
        request is sent, and its answers recorded after those)."""
        with self._lock:
            taken: dict[Key, int] = {}
            found = []
            for key in keys:
                record = self._calls.get(key)
                index = self._next.get(key, 0) + taken.get(key, 0)
                if record is None or index >= len(record["answers"]):
                    return None
                found.append(record["answers"][index])
                taken[key] = taken.get(key, 0) + 1
            for key, count in taken.items():
                self._next[key] = self._next.get(key, 0) + count
            return found

    @property
    def clock(self) -> datetime:
        """Replaying, the tape's clock: when the latest answer served so far was recorded (when
        the tape was, before any), for what a replay shows the time of."""
        return datetime.fromisoformat(self._clock or self.header["recorded"])


def _read(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A tape file's header and call records; `TapeError` for a file that is not one."""
    return _parse(_bytes_of(path), path)


def _bytes_of(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise TapeError(f"{path} is not a tape that can be read ({error})") from None


@functools.lru_cache(maxsize=2)
def _calls_of(data: bytes, path: Path) -> tuple[dict[str, Any], dict[Key, dict[str, Any]]]:
    """A replayed tape's header and records by call identity, parsed once per process for the
    same bytes: Dask unpickles a replayed tape for each partition (on the scheduler, then on
    the worker), and every copy shares what was parsed, read-only, each at its own place in it.
    Two kept at most: a parsed tape outlives its gateway here, and a large one is large."""
    header, records = _parse(data, path)
    calls = {(r["node"], r["chain"], r["call"], r["params"]): r for r in records}
    return header, calls


def _parse(data: bytes, path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    try:
        text = gzip.decompress(data).decode()
        lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    except (OSError, EOFError, ValueError, zlib.error) as error:  # BadGzipFile is an OSError
        raise TapeError(
            f"{path} is not a tape that can be read ({error}): it is torn or damaged; record "
            "it again (tape_mode='record') or restore it from where it came from"
        ) from None
    header = lines[0] if lines and isinstance(lines[0], dict) else {}
    if header.get("format") != FORMAT:
        raise TapeError(
            f"{path} is not a tape (no {FORMAT!r} header): record it again "
            "(tape_mode='record') or restore it from where it came from"
        )
    if header.get("version") != VERSION:
        raise TapeError(
            f"{path} is a tape of version {header.get('version')!r}; this toolkit "
            f"({__version__}) reads version {VERSION}: record it again, or upgrade"
        )
    if not _header_whole(header):
        raise TapeError(f"{path} is damaged: its header lacks its nodes or when it was recorded")
    for number, record in enumerate(lines[1:], start=2):
        problem = _damage(record)
        if problem is not None:  # edited by hand, say: refused now, not a KeyError in a call
            raise TapeError(f"{path} is damaged: line {number} {problem}; record it again")
    return header, lines[1:]


def _header_whole(header: dict[str, Any]) -> bool:
    """Whether a replay can read the header: when it was recorded, the nodes by name (each with
    its chain and host) and the hosts of the nodes the gateway knew."""
    nodes, known = header.get("nodes", {}), header.get("known_nodes") or {}
    return (
        _is_time(header.get("recorded"))
        and isinstance(nodes, dict)
        and all(
            isinstance(info, dict) and all(isinstance(info.get(f), str) for f in ("chain", "host"))
            for info in nodes.values()
        )
        and isinstance(known, dict)
        and all(isinstance(host, str) for host in known.values())
    )


def _is_time(text: Any) -> bool:
    try:
        datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return False
    return True


def _damage(record: Any) -> str | None:
    """What a replay could not read in a call record (see `TapeClient._replay`), or None."""
    if not isinstance(record, dict):
        return "is not an object"
    if not all(isinstance(record.get(field), str) for field in ("node", "chain", "call", "params")):
        return "lacks the node, chain, call or params of its call"
    if not all(isinstance(record.get(cost), int) for cost in ("ru", "unconfirmed_ru")):
        return "lacks what its call cost"
    answers = record.get("answers")
    if not isinstance(answers, list):
        return "has no list of answers"
    for answer in answers:
        if not isinstance(answer, dict) or not _is_time(answer.get("at")):
            return "has an answer without the time it was recorded"
        if not all(isinstance(answer.get(cost), int) for cost in ("ru", "unconfirmed_ru")):
            return "has an answer without what it cost"
        if "item" in answer:
            if not isinstance(answer["item"], dict):
                return "has a JSON-RPC answer that is not an object"
        elif not isinstance(answer.get("status"), int) or "body" not in answer:
            return "has an answer without its status and body"
        elif not all(isinstance(answer.get(h), str | None) for h in ("type", "retry_after")):
            return "has an answer whose headers are not text"
        elif isinstance(answer["body"], dict) and not isinstance(
            answer["body"].get("text", ""), str
        ):
            return "has a text body that is not text"
    return None


def _file_of(path: Path) -> Path:
    """A tape's file: `path`, or in a folder of tapes, the notebook's own (``<folder>/<notebook
    name>.tape.gz``, the name from ``JPY_SESSION_NAME``, which Jupyter sets for a notebook's
    kernel): one setting replays every notebook of a folder (`make lab TAPES=replay`)."""
    if not path.is_dir():
        return path
    session = os.environ.get("JPY_SESSION_NAME")
    if not session:
        raise ValidationError(
            f"{path} is a folder: each notebook's tape is <folder>/<notebook>.tape.gz, and the "
            "notebook's name comes from JPY_SESSION_NAME, which Jupyter sets for a notebook's "
            "kernel; outside a notebook, name the tape's file",
            param="tape",
            rule="folder",
        )
    return path / f"{Path(session).stem}.tape.gz"


def _parts_folder(path: Path) -> Path:
    return path.with_name(f"{path.name}.parts")


def _worker_recording(path: str) -> Tape:
    """A Dask worker's share of a recording: a tape of its own in the recording's parts folder."""
    return _recording_at(str(_parts_folder(Path(path)) / f"{secrets.token_hex(6)}.tape.gz"))


def _recording_at(path: str) -> Tape:
    """The tape this process records at `path` (one object per file, however often copied)."""
    tape = tape_from(path, "record")
    assert tape is not None
    return tape


def _save_at_exit(reference: weakref.ref[Tape]) -> None:
    tape = reference()
    if tape is not None:
        try:
            tape.save(finished=True)
        except (OSError, TapeError):  # at exit, nobody to tell but stderr
            import sys

            print(f"node-gateway-toolkit: the tape {tape.path} could not be saved", file=sys.stderr)


def _node_of(core: NodeCore) -> tuple[str, str]:
    """The node part of a call's identity: its name, and its chain. A node without a name
    (made from a URL alone) is known by its chain: its label holds the port, which changes."""
    label = core.endpoint.label
    if "://" in label:
        label = core.chain.name
    return label, core.chain.name


class TapeClient(StepClient):
    """One node's transport over a tape: recording through an HTTP client, or replaying."""

    def __init__(self, tape: Tape, core: NodeCore, inner: Any):
        self.tape = tape
        self.inner = inner
        self.node, self.chain = _node_of(core)
        self.base = core.endpoint.url.rstrip("/")
        # The pricing table says what an error status costs; the clock dates answers as the
        # ledger dates calls.
        self.meter = core.meter

    def send_step(self, step: Send) -> Answer | BaseException:
        if self.tape.replaying:
            return self._replay(step)
        recorded = self._recorded(step)
        if recorded is not None:
            return recorded
        started = time.perf_counter()
        outcome = _send_sync(self.inner, step)
        self._record(step, outcome, time.perf_counter() - started)
        return outcome

    async def asend_step(self, step: Send) -> Answer | BaseException:
        if self.tape.replaying:
            # A request lets other tasks run, and a cancel land, while it waits: so does this.
            await asyncio.sleep(0)
            return self._replay(step)
        recorded = self._recorded(step)
        if recorded is not None:
            return recorded
        started = time.perf_counter()
        outcome = await _send_async(self.inner, step)
        self._record(step, outcome, time.perf_counter() - started)
        return outcome

    def close(self) -> None:
        if self.inner is not None:
            self.inner.close()

    async def aclose(self) -> None:
        if self.inner is not None:
            await self.inner.aclose()

    def abandon(self) -> None:
        """An async client whose loop has closed (see `AsyncNode._forget_closed_loops`)."""
        if hasattr(self.inner, "abandon"):
            self.inner.abandon()

    # --- what a request asks ---

    def _calls(self, step: Send) -> tuple[list[Key], list[Any] | None]:
        """The identity of each call the request carries, and the JSON-RPC ids (None: REST)."""
        request = step.request
        body = request.json
        if _is_rpc(body):
            return [self._key(body["method"], body.get("params"))], [body.get("id")]
        if isinstance(body, list) and body and all(_is_rpc(item) for item in body):
            keys = [self._key(item["method"], item.get("params")) for item in body]
            return keys, [item.get("id") for item in body]
        url = request.url
        path = url[len(self.base) :] if url.startswith(self.base) else _path_and_query(url)
        payload = body if body is not None else (request.params or {})
        return [self._key(f"{request.method} {scrub(path) or '/'}", payload)], None

    def _key(self, call: str, params: Any) -> Key:
        return (self.node, self.chain, call, _canonical(params))

    # --- recording ---

    def _record(self, step: Send, outcome: Any, latency_s: float) -> None:
        keys, ids = self._calls(step)
        answers: list[dict[str, Any] | None] = [None] * len(keys)
        if not isinstance(outcome, BaseException):
            answers = _split(outcome, ids, len(keys))
            for answer in answers:
                if answer is not None:
                    answer["latency_s"] = round(latency_s, 6)
        fate = attempt_fate(outcome, self.meter.pricing)
        self.tape.record(keys, answers, step, fate, self.meter.clock())

    # --- replaying ---

    def _replay(self, step: Send) -> Answer | TapeMiss:
        keys, ids = self._calls(step)
        found = self.tape.answer(keys)
        if isinstance(found, TapeMiss):
            return found
        return self._answer(step, ids, found)

    def _recorded(self, step: Send) -> Answer | None:
        """Recording on from a recording that died: the answer its file holds, if it does."""
        if not self.tape.resumed:
            return None
        keys, ids = self._calls(step)
        found = self.tape.answer_recorded(keys)
        return None if found is None else self._answer(step, ids, found)

    def _answer(self, step: Send, ids: list[Any] | None, found: list[dict[str, Any]]) -> Answer:
        """The answer of a request from the recorded answers of its calls."""
        costs = tuple((answer["ru"], answer["unconfirmed_ru"]) for answer in found)
        replayed = Replayed(costs, found[0]["at"], found[0].get("latency_s", 0.0))
        first = found[0]
        if "item" not in first or ids is None:  # an answer to the whole request
            headers = {"content-type": first.get("type") or "application/json"}
            if first.get("retry_after") is not None:
                headers["retry-after"] = first["retry_after"]
            return Answer(first["status"], headers, _body_bytes(first["body"]), replayed)
        items = [
            {"jsonrpc": "2.0", "id": request_id, **answer.get("item", {})}
            for request_id, answer in zip(ids, found, strict=True)
        ]
        body = items if isinstance(step.request.json, list) else items[0]
        return Answer(200, {"content-type": "application/json"}, _json_bytes(body), replayed)


def _netloc(url: str) -> str:
    """Host and port (a platform link is followed only on its API's own origin), never the
    user:password of a URL."""
    return urlsplit(url).netloc.rsplit("@", 1)[-1]


def _is_rpc(body: Any) -> bool:
    return isinstance(body, dict) and "method" in body and "jsonrpc" in body


def _path_and_query(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _json_bytes(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def _body_bytes(body: Any) -> bytes:
    return body["text"].encode() if isinstance(body, dict) and "text" in body else _json_bytes(body)


def _split(answer: Any, ids: list[Any] | None, count: int) -> list[dict[str, Any] | None]:
    """What to keep of an answer for each of the request's calls: a JSON-RPC item (without its
    id) per call when the answer is one, else the whole answer under each."""
    content = answer.content
    try:
        body = json.loads(content)
    except ValueError:
        body = None
    if ids is not None and answer.status_code == 200:
        if count == 1 and isinstance(body, dict) and "id" in body:
            return [{"item": _item(body)}]
        if isinstance(body, list) and all(isinstance(item, dict) for item in body):
            by_id = {json.dumps(item.get("id")): item for item in body}
            found = [by_id.get(json.dumps(request_id)) for request_id in ids]
            if all(item is not None for item in found):
                return [{"item": _item(cast("dict[str, Any]", item))} for item in found]
    whole = {
        "status": answer.status_code,
        "type": answer.headers.get("content-type"),
        "retry_after": answer.headers.get("retry-after"),
        "body": redact_answer(body)
        if body is not None
        else {"text": scrub(content.decode("utf-8", "replace"))},
    }
    return [dict(whole) for _ in range(count)]


def _item(item: dict[str, Any]) -> dict[str, Any]:
    return {
        key: redact_answer(value) for key, value in item.items() if key not in ("id", "jsonrpc")
    }


_open: weakref.WeakValueDictionary[Path, Tape] = weakref.WeakValueDictionary()
_open_lock = threading.Lock()


def tape_from(setting: Any, mode: str | None) -> Tape | None:
    """The tape a gateway records or replays: from the `tape` argument, else from the
    environment (`ENV_TAPE`, `ENV_TAPE_MODE`); None for none. One file is one tape in a process:
    every handle opened on it while it records (a gateway, a standalone node, a notebook cell run
    twice) shares it, so that two recorders never overwrite each other's answers, until it is
    closed."""
    if isinstance(setting, Tape):
        return setting
    mode = mode or os.environ.get(ENV_TAPE_MODE) or "auto"
    if setting is None:
        setting = os.environ.get(ENV_TAPE) or None
        if setting is None:
            return None
    if not isinstance(setting, str | PathLike) or not str(setting):
        raise ValidationError(f"must be a file path, got {setting!r}", param="tape", rule="type")
    path = _file_of(Path(setting).expanduser()).resolve()
    with _open_lock:
        recording = _open.get(path)
        if recording is not None and mode in ("auto", "record"):
            return recording
        tape = Tape(path, mode)
        if not tape.replaying:  # each replay starts at the tape's beginning: never shared
            _open[path] = tape
        return tape
