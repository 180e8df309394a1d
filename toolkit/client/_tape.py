"""Tapes: record what a notebook's calls got, then replay them anywhere, with no key and no network.

    gw = toolkit.connect(tape="notebook.tape.gz", tape_mode="auto")   # or NODE_GATEWAY_TAPE=...

A tape is a transport (`_http.Transport`): the exchange above it is unchanged, so replay
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
  call the tape does not hold is a `TapeMiss` at once, naming the node, method and params; in a
  JSON-RPC batch, only that call (`Replayed.misses`), the others replay. A replaying node's
  gateway identity (`_identity`) is the recording's host for it, whatever its URL.
- ``auto``: replay when the file exists, else record. A recording that did not finish (its
  kernel was killed before closing the gateway or exiting: the file does not say ``finished``)
  is recorded on instead: a request whose calls the file answers gets those answers (0 RU, as a
  replay), any other is sent and recorded after them, so what it holds is never paid twice. A
  JSON-RPC batch of which it holds some calls gets those, and the node sends only the others
  (`StillToSend`, `NodeCore._exchange_batch`).

The file is gzip-compressed JSON lines, readable after ``gunzip``: a header (format, version,
when it was recorded, the toolkit's version, the nodes by name, chain and host), then one line
per call identity. Everything written passes through the toolkit's scrubber: registered keys
anywhere, key material of every URL in an answer's text and kept headers (`redact_text`: the
platform's node list holds endpoint URLs with their keys; an error may quote the URL called),
and nothing of the request but the call's identity. A file is checked line by line when read
(`_parse`): a tape edited by hand, written by another program or inflating like a bomb is a
`TapeError` naming its line, never a raw error in a replayed call. It is written whole (temporary
file, fsync, rename) when the gateway closes, at exit, and at most every `SAVE_SECONDS` while
answers come in; the temporary files of saves that were killed go at the next save.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import gzip
import io
import json
import math
import os
import secrets
import threading
import time
import weakref
import zlib
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, cast
from urllib.parse import urlsplit

from .._errors import GatewayError, TapeError, TapeMiss, ValidationError
from .._files import remove_dead_writers_files, write_atomically
from .._json import MAX_DEPTH, NotJSONNumber, load_bounded
from .._redact import clip, redact_answer, redact_text, scrub, warn
from .._version import __version__
from ..catalog import PricingTable, charge
from ._http import MAX_ANSWER_BYTES, Answer, LazyModule, NoAnswer, Replayed, Send, Transport
from ._identity import canonical_params
from ._transport import StillToSend, attempt_fate
from ._urls import clean_url

if TYPE_CHECKING:
    import asyncio
else:
    asyncio = LazyModule("asyncio", globals())  # imported on first use: see `_http.LazyModule`

FORMAT = "node-gateway-toolkit tape"
VERSION = 1
MODES = ("record", "replay", "auto")
ENV_TAPE = "NODE_GATEWAY_TAPE"
ENV_TAPE_MODE = "NODE_GATEWAY_TAPE_MODE"
SAVE_SECONDS = 1.0

Key = tuple[str, str, str, str]  # node, chain, call, params


def _canonical(value: Any, call: str = "") -> str:
    """A call's params as its key has them: the call key's canonical form (`canonical_params`:
    an address checksummed or not is one call), scrubbed."""
    return scrub(canonical_params(call.rpartition(" ")[2], value))  # "POST /wallet/x": the path


def _record_key(record: dict[str, Any]) -> Key:
    """A recorded call's key, its params made canonical again: a tape recorded before keys
    were (or by hand) still answers the call however it is spelt now."""
    params = record["params"]
    with contextlib.suppress(ValueError, TypeError):
        params = _canonical(load_bounded(params), record["call"])
    return (record["node"], record["chain"], record["call"], params)


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

    def answered_at(self, url: str, label: str, chain: str) -> str:
        """Where the answers to the node `label` at `url` come from: `url`, unless replaying:
        then where the node was when the tape recorded it (its host and port: what its gateway's
        identity is made of, `_identity`), or nowhere for a node the tape never recorded."""
        if not self.replaying:
            return url
        name = _node_name(label, chain)
        info = self._nodes.get(name)
        host = (
            info["host"] if info is not None else (self.header.get("known_nodes") or {}).get(name)
        )
        return f"//{host or 'tape.invalid'}"

    def cost(self) -> tuple[int, int]:
        """What the recorded calls cost (billed, maybe billed), every answer counted."""
        billed = unconfirmed = 0
        for record in self._calls.values():
            billed += record["ru"]
            unconfirmed += record["unconfirmed_ru"]
        return billed, unconfirmed

    def transport(self, inner: Transport | None, node: TapeNode) -> TapeTransport:
        """The transport for `node`'s calls: recording through `inner` (the network's), or
        replaying (no transport beneath at all)."""
        name = _node_name(node.label, node.chain)
        if not self.replaying:
            with self._lock:
                self._nodes.setdefault(name, {"chain": node.chain, "host": _netloc(node.url)})
        return TapeTransport(self, inner, node)

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
            lines = [scrub(json.dumps(header, sort_keys=True))]  # its gateway's name, say
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
            for key, record in records.items():
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

    def answer(self, keys: list[Key]) -> list[dict[str, Any] | TapeMiss]:
        """The next recorded answer of each call, or a `TapeMiss` for each call it lacks (the
        others of a batch still replay: growing an analysis against its tape misses only the
        calls added since)."""
        with self._lock:
            found: list[dict[str, Any] | TapeMiss] = []
            for key in keys:
                record = self._calls.get(key)
                if record is None or not record["answers"]:
                    found.append(self._miss(key))
                    continue
                index = self._next.get(key, 0)
                answers = record["answers"]
                found.append(answers[min(index, len(answers) - 1)])
                self._next[key] = index + 1
            times = [answer["at"] for answer in found if isinstance(answer, dict)]
            self._clock = max(self._clock, *times) if times else self._clock
            return found

    def _miss(self, key: Key) -> TapeMiss:
        node, chain, call, params = key
        return TapeMiss(
            f"the tape {self.path.name} holds no answer for {call} with params "
            f"{params} on {node} ({chain}); nothing was sent. Record the tape "
            "again (tape_mode='record') to add it",
            call={"node": node, "chain": chain, "method": call, "params": params},
            node=node,
            method=call,
        )

    def answer_recorded(
        self, keys: list[Key], *, partly: bool = False
    ) -> list[dict[str, Any] | None] | None:
        """Recording on from a recording that died: the next answer the file holds of each
        call, so that no call it answered is paid for again; None when it holds none of them
        (the request is sent, and its answers recorded after those). When it holds some:
        with `partly` (a JSON-RPC batch), those, and None for each other call (sent next, on
        its own: see `StillToSend`); else None, and all are sent. Taken in one step, so two
        requests in flight never both take one answer."""
        with self._lock:
            taken: dict[Key, int] = {}
            found: list[dict[str, Any] | None] = []
            for key in keys:
                record = self._calls.get(key)
                index = self._next.get(key, 0) + taken.get(key, 0)
                if record is None or index >= len(record["answers"]):
                    found.append(None)
                    continue
                found.append(record["answers"][index])
                taken[key] = taken.get(key, 0) + 1
            held = len(keys) - found.count(None)
            # An answer to a whole request (an HTTP error kept under each of its calls) is not
            # one call's, and cannot answer a part of a batch.
            if held == 0 or (
                held < len(keys)
                and not (partly and all("item" in answer for answer in found if answer))
            ):
                return None
            for key, count in taken.items():
                self._next[key] = self._next.get(key, 0) + count
            return found

    @property
    def clock(self) -> datetime:
        """Replaying, the tape's clock: when the latest answer served so far was recorded (when
        the tape was, before any), for what a replay shows the time of."""
        return datetime.fromisoformat(self._clock or self.header["recorded"])


def _read(path: Path) -> tuple[dict[str, Any], dict[Key, dict[str, Any]]]:
    """A tape file's header and call records by call identity; `TapeError` for a file that
    is not one."""
    return _parse(_bytes_of(path), path)


def _bytes_of(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise TapeError(f"{path} is not a tape that can be read ({error})") from None


def parse_tape(data: bytes, path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A tape file's bytes as its header and call records, checked as a replay checks them (a
    `TapeError` naming the line otherwise): for what reads a tape without replaying it."""
    header, calls = _calls_of(data, path)
    return header, list(calls.values())


@functools.lru_cache(maxsize=2)
def _calls_of(data: bytes, path: Path) -> tuple[dict[str, Any], dict[Key, dict[str, Any]]]:
    """A replayed tape's header and records by call identity, parsed once per process for the
    same bytes: Dask unpickles a replayed tape for each partition (on the scheduler, then on
    the worker), and every copy shares what was parsed, read-only, each at its own place in it.
    Two kept at most: a parsed tape outlives its gateway here, and a large one is large."""
    return _parse(data, path)


# A tape is inflated, parsed and held whole, so what it may inflate to is bounded as a live
# answer is (`MAX_ANSWER_BYTES`), or, for a larger file, by how far JSON lines compress: a tape
# of a hundred thousand near-identical answers shrinks about 90 times, a gzip bomb a thousand.
MAX_INFLATION = 128
# The most one recorded answer may say it cost: far above any call's price, far below what
# would overflow a ledger's sum.
MAX_RECORDED_RU = 10**9
MAX_LATENCY_S = 86_400.0
# A line holds answers (each nested no deeper than the transport lets an answer be) inside its
# record: decoding stops past that, before recursing (a RecursionError caught is too late where
# the C stack is smaller than the recursion limit allows: a thread, or a raised limit).
LINE_DEPTH = MAX_DEPTH + 8
_DAMAGED = "record it again (tape_mode='record') or restore it from where it came from"


def _parse(data: bytes, path: Path) -> tuple[dict[str, Any], dict[Key, dict[str, Any]]]:
    """A tape's header and call records by call identity, each checked as far as a replay
    reads it: anything wrong in a file edited by hand or written by another program is a
    `TapeError` naming its line, never a raw error later in a replayed call or in the ledger."""
    text = _inflate(data, path)
    lines: list[tuple[int, Any]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            lines.append((number, load_bounded(line, LINE_DEPTH)))
        except NotJSONNumber as error:  # NaN, Infinity: written by hand, not by us
            raise TapeError(
                f"{path} is damaged: line {number} holds a number JSON cannot ({error}); {_DAMAGED}"
            ) from None
        except ValueError as error:  # nested past reading included: measured, never recursed
            raise TapeError(
                f"{path} is not a tape that can be read (line {number} is not JSON: "
                f"{str(error)[:80]}): it is torn or damaged; {_DAMAGED}"
            ) from None
    header = lines[0][1] if lines and isinstance(lines[0][1], dict) else {}
    if header.get("format") != FORMAT:
        raise TapeError(f"{path} is not a tape (no {FORMAT!r} header): {_DAMAGED}")
    if header.get("version") != VERSION:
        raise TapeError(
            f"{path} is a tape of version {header.get('version')!r}; this toolkit "
            f"({__version__}) reads version {VERSION}: record it again, or upgrade"
        )
    problem = _header_damage(header)
    if problem is not None:
        raise TapeError(f"{path} is damaged: line {lines[0][0]} (its header) {problem}; {_DAMAGED}")
    records: dict[Key, dict[str, Any]] = {}
    seen: dict[Key, int] = {}
    for number, record in lines[1:]:
        problem = _damage(record)
        if problem is not None:  # edited by hand, say: refused now, not a KeyError in a call
            raise TapeError(f"{path} is damaged: line {number} {problem}; {_DAMAGED}")
        key = _record_key(record)  # two spellings of one call are one call
        if key in seen:  # which of the two is the call's is not ours to guess
            raise TapeError(
                f"{path} is damaged: lines {seen[key]} and {number} both hold {record['call']} "
                f"with params {clip(record['params'], 80)} on {record['node']}; a call has one "
                f"line; {_DAMAGED}"
            )
        seen[key] = number
        records[key] = record
    return header, records


def _inflate(data: bytes, path: Path) -> str:
    """The text of a tape file, inflated no further than `MAX_INFLATION` times its size (or
    `MAX_ANSWER_BYTES`, for a small one): a small file that grows far past that is refused
    before it fills the memory."""
    limit = max(MAX_ANSWER_BYTES, MAX_INFLATION * len(data))
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as file:
            inflated = file.read(limit + 1)  # decompressed a piece at a time, up to the limit
        if len(inflated) > limit:
            raise TapeError(
                f"{path} is not a tape that can be read: its {len(data):,} bytes inflate past "
                f"{limit:,} (a tape's JSON lines compress {MAX_INFLATION} times at most); "
                f"{_DAMAGED}"
            )
        return inflated.decode()
    except (OSError, EOFError, ValueError, zlib.error) as error:  # BadGzipFile is an OSError
        raise TapeError(
            f"{path} is not a tape that can be read ({error}): it is torn or damaged; {_DAMAGED}"
        ) from None


def _header_damage(header: dict[str, Any]) -> str | None:
    """What a replay could not read in the header (when it was recorded, the nodes by name,
    each with its chain and host, the hosts of the nodes the gateway knew, how time passed),
    or None."""
    if not _is_time(header.get("recorded")):
        return "lacks when it was recorded (a time with its UTC offset, from 1970 to 2200)"
    nodes, known = header.get("nodes", {}), header.get("known_nodes") or {}
    if not isinstance(nodes, dict) or not all(
        isinstance(info, dict) and isinstance(info.get("chain"), str) for info in nodes.values()
    ):
        return "lacks its nodes, each with its chain and host"
    if not isinstance(known, dict):
        return "has known nodes that are not an object of hosts"
    hosts = [*(info.get("host") for info in nodes.values()), *known.values()]
    bad = [host for host in hosts if not _is_host(host)]
    if bad:
        return f"has a node host that is no host ({clip(repr(bad[0]), 60)}; a host is name[:port])"
    request_s = header.get("request_s")
    if request_s is not None and not _is_number(request_s, low=1e-6, high=MAX_LATENCY_S):
        return "says time passed by a number of seconds a request that is no such number"
    if not isinstance(header.get("gateway"), str | None):
        return "names its gateway with something other than text"
    seed = header.get("sandbox_seed")
    if seed is not None and not _is_whole(seed, -(2**63), 2**63):
        return "has a sandbox seed that is not a whole number"
    if not isinstance(header.get("finished", True), bool):
        return "says whether it finished with something other than true or false"
    return None


def _is_time(text: Any) -> bool:
    """An ISO 8601 time with its UTC offset (what a recording writes), from 1970 to 2200: a
    ledger's time column holds no other."""
    if not isinstance(text, str):
        return False
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        return False
    return when.tzinfo is not None and 1970 <= when.year <= 2200


def _is_number(value: Any, *, low: float, high: float) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and low <= value <= high
    )


def _is_whole(value: Any, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _is_ru(value: Any) -> bool:
    return _is_whole(value, 0, MAX_RECORDED_RU)


def _is_host(host: Any) -> bool:
    """A host and maybe its port (``name``, ``name:port``, ``[::1]:port``), as a recording
    writes one: what a replay makes its nodes' URLs of, and their gateway's identity."""
    if not isinstance(host, str) or not host or len(host) > 300:
        return False
    try:
        parts = urlsplit(f"//{host}")
        parts.port  # noqa: B018 (a port out of range, or not a number, raises)
        clean_url(f"http://{host}/")
    except (ValueError, ValidationError):
        return False
    return parts.netloc == host and bool(parts.hostname) and "@" not in host


def _damage(record: Any) -> str | None:
    """What a replay could not read in a call record (see `TapeClient._replay`), or None."""
    if not isinstance(record, dict):
        return "is not an object"
    if not all(isinstance(record.get(field), str) for field in ("node", "chain", "call", "params")):
        return "lacks the node, chain, call or params of its call"
    if not all(_is_ru(record.get(cost)) for cost in ("ru", "unconfirmed_ru")):
        return f"lacks what its call cost (whole RU from 0 to {MAX_RECORDED_RU:,})"
    answers = record.get("answers")
    if not isinstance(answers, list):
        return "has no list of answers"
    for answer in answers:
        if not isinstance(answer, dict) or not _is_time(answer.get("at")):
            return "has an answer without the time it was recorded (with its UTC offset)"
        if not all(_is_ru(answer.get(cost)) for cost in ("ru", "unconfirmed_ru")):
            return f"has an answer without what it cost (whole RU from 0 to {MAX_RECORDED_RU:,})"
        if not _is_number(answer.get("latency_s", 0.0), low=0.0, high=MAX_LATENCY_S):
            return "has an answer that took no number of seconds from 0 to a day"
        if "item" in answer:
            item = answer["item"]
            if not isinstance(item, dict):
                return "has a JSON-RPC answer that is not an object"
            if "id" in item or "jsonrpc" in item:  # the request's own, given when replayed
                return "has a JSON-RPC answer with an id of its own"
        elif not _is_whole(answer.get("status"), 100, 599) or "body" not in answer:
            return "has an answer without its status (100 to 599) and body"
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


def _node_name(label: str, chain: str) -> str:
    """The node part of a call's identity (with its chain). A node without a name (made from a
    URL alone) is known by its chain: its label holds the port, which changes."""
    return chain if "://" in label else label


class TapeNode(NamedTuple):
    """What a tape knows of the node it carries calls for: its `label` and `chain` (its calls'
    identity), its `url` (where it was recorded; a request's path is read from it), what an
    error status costs (`pricing`, read at each answer) and the `clock` the ledger dates calls
    by, which dates the recorded answers."""

    label: str
    chain: str
    url: str
    pricing: Callable[[], PricingTable | None]
    clock: Callable[[], datetime]


def transport_for(tape: Tape | None, network: Callable[[], Transport], node: TapeNode) -> Transport:
    """How `node`'s calls travel, decided in this one place: over the network (`network()`
    makes its transport), recorded on `tape` on their way there, or replayed from `tape` with
    no socket at all."""
    if tape is None:
        return network()
    return tape.transport(None if tape.replaying else network(), node)


class TapeTransport(Transport):
    """One node's transport over a tape: recording what the transport beneath it answers, or
    replaying, alone."""

    def __init__(self, tape: Tape, inner: Transport | None, node: TapeNode):
        self.tape = tape
        self.inner = inner
        self.node, self.chain = _node_name(node.label, node.chain), node.chain
        self.base = node.url.rstrip("/")
        self.pricing, self.clock = node.pricing, node.clock

    def send(self, step: Send) -> Answer | NoAnswer:
        held = self._recorded(step)  # recording on: what the file holds already
        if held is not None or self.inner is None:
            return held or self._replay(step)
        started = time.perf_counter()
        outcome = self.inner.send(step)
        self._record(step, outcome, time.perf_counter() - started)
        return outcome

    async def asend(self, step: Send) -> Answer | NoAnswer:
        held = self._recorded(step)  # recording on: what the file holds already
        if held is not None or self.inner is None:
            # A request lets other tasks run, and a cancel land, while it waits: so does this.
            await asyncio.sleep(0)
            return held or self._replay(step)
        started = time.perf_counter()
        outcome = await self.inner.asend(step)
        self._record(step, outcome, time.perf_counter() - started)
        return outcome

    def close(self) -> None:
        if self.inner is not None:
            self.inner.close()

    async def aclose(self) -> None:
        if self.inner is not None:
            await self.inner.aclose()

    def abandon(self) -> None:
        """An async transport whose loop has closed (see `AsyncNode._forget_closed_loops`)."""
        abandon = getattr(self.inner, "abandon", None)
        if abandon is not None:
            abandon()

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
        return (self.node, self.chain, call, _canonical(params, call))

    # --- recording ---

    def _record(self, step: Send, outcome: Answer | NoAnswer, latency_s: float) -> None:
        keys, ids = self._calls(step)
        answers: list[dict[str, Any] | None] = [None] * len(keys)
        if not isinstance(outcome, NoAnswer):
            answers = _split(outcome, ids, len(keys))
            for answer in answers:
                if answer is not None:
                    answer["latency_s"] = round(latency_s, 6)
        fate = attempt_fate(outcome, self.pricing())
        self.tape.record(keys, answers, step, fate, self.clock())

    # --- replaying ---

    def _replay(self, step: Send) -> Answer | NoAnswer:
        keys, ids = self._calls(step)
        found = self.tape.answer(keys)
        if not isinstance(step.request.json, list) and isinstance(found[0], TapeMiss):
            return NoAnswer(found[0], sent=False)  # one call: its miss is the request's
        return self._answer(step, ids, found)

    def _recorded(self, step: Send) -> Answer | None:
        """Recording on from a recording that died: the answer its file holds, if it does. A
        JSON-RPC batch of which it holds some calls gets those, and `Replayed.misses` names the
        others as `StillToSend`: the node sends them next, on their own, so that a resumed run
        in batches pays for the calls the tape lacks and for no other."""
        if not self.tape.resumed:
            return None
        keys, ids = self._calls(step)
        batch = ids is not None and isinstance(step.request.json, list)
        found = self.tape.answer_recorded(keys, partly=batch)
        if found is None:
            return None
        return self._answer(
            step,
            ids,
            [
                self._still_to_send(key) if answer is None else answer
                for key, answer in zip(keys, found, strict=True)
            ],
        )

    def _still_to_send(self, key: Key) -> StillToSend:
        _, _, call, params = key
        return StillToSend(
            f"the tape {self.tape.path.name} holds no answer for {call} with params {params}: "
            "it is sent next, on its own",
            node=self.node,
            method=call,
        )

    def _answer(
        self, step: Send, ids: list[Any] | None, found: Sequence[dict[str, Any] | GatewayError]
    ) -> Answer:
        """The answer of a request from the recorded answers of its calls; a batch answer
        lacks the calls the tape does not hold, which `Replayed.misses` names (by request id,
        each its `TapeMiss`, or `StillToSend` when recording on)."""
        costs = tuple(
            (0, 0) if isinstance(answer, GatewayError) else (answer["ru"], answer["unconfirmed_ru"])
            for answer in found
        )
        held = [answer for answer in found if not isinstance(answer, GatewayError)]
        first = held[0] if held else None
        misses = {}
        if ids is not None:
            misses = {
                i: miss
                for i, miss in zip(ids, found, strict=True)
                if isinstance(miss, GatewayError)
            }
        replayed = Replayed(
            costs,
            None if first is None else first["at"],
            0.0 if first is None else first.get("latency_s", 0.0),
            misses,
        )
        whole = next((answer for answer in held if "item" not in answer), None)
        if whole is not None or ids is None:  # an answer to the whole request
            whole = whole or held[0]
            headers = {"content-type": whole.get("type") or "application/json"}
            if whole.get("retry_after") is not None:
                headers["retry-after"] = whole["retry_after"]
            return Answer(whole["status"], headers, _body_bytes(whole["body"]), replayed)
        items = [
            {"jsonrpc": "2.0", "id": request_id, **answer["item"]}
            for request_id, answer in zip(ids, found, strict=True)
            if not isinstance(answer, GatewayError)
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
        body = load_bounded(content)
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
    # Headers and text pass the same scrubbing as a JSON body: a gateway may echo the URL it
    # was called at (its key in it) anywhere, an error page or a header included.
    kept_headers = {
        name: None if value is None else redact_text(value)
        for name, value in (
            ("type", answer.headers.get("content-type")),
            ("retry_after", answer.headers.get("retry-after")),
        )
    }
    whole = {
        "status": answer.status_code,
        **kept_headers,
        "body": redact_answer(body)
        if body is not None
        else {"text": redact_text(content.decode("utf-8", "replace"))},
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
