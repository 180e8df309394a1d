"""Tapes: record what a notebook's calls got, then replay them anywhere, with no key and no network.

    gw = toolkit.connect(tape="notebook.tape.gz", tape_mode="auto")   # or NODE_GATEWAY_TAPE=...

A tape is a transport (`_http.Transport`): the exchange above it is unchanged, so replay
goes through the whole pipeline (validation, pricing, budget, ledger, frames, workloads), and so
does recording. Calls are keyed by the one call key the cache and datasets use (`CallKey`:
the gateway the node was recorded at, the node's name, the catalog's method, the params in their
canonical form; `_tapefile.tape_call` reads it off a request), never by the request's id, URL or
key. Concurrency, batching and the cache may thus change between recording and replay: a batch
of 100 recorded is answered as two batches of 50, or one by one.

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

Everything recorded passes the toolkit's scrubber: registered keys anywhere, key material of
every URL in an answer's text and kept headers (`redact_text`: the platform's node list holds
endpoint URLs with their keys; an error may quote the URL called), and nothing of the request but
the call's identity. The file (its format, checks and atomic writes) is `_tapefile`'s; a recording
is saved when the gateway closes, at exit, and at most every `SAVE_SECONDS` while answers come in.
"""

from __future__ import annotations

import atexit
import json
import os
import secrets
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, cast
from urllib.parse import urlsplit

from .._errors import GatewayError, TapeError, TapeMiss, ValidationError
from .._json import load_bounded
from .._redact import redact_answer, redact_text, scrub, warn
from ..catalog import PricingTable, charge
from ._http import Answer, LazyModule, NoAnswer, Replayed, Send, Transport
from ._identity import CallKey
from ._network import json_bytes
from ._tapefile import (
    TapeCall,
    call_record,
    calls_of,
    merge_parts,
    parts_folder,
    recorded_gateway,
    recorded_host,
    tape_bytes,
    tape_call,
    tape_file_of,
    tape_lines,
    write_tape,
)
from ._transport import StillToSend, attempt_fate

if TYPE_CHECKING:
    import asyncio
else:
    asyncio = LazyModule("asyncio", globals())  # imported on first use: see `_http.LazyModule`

MODES = ("record", "replay", "auto")
ENV_TAPE = "NODE_GATEWAY_TAPE"
ENV_TAPE_MODE = "NODE_GATEWAY_TAPE_MODE"
SAVE_SECONDS = 1.0


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
        self._calls: dict[CallKey, dict[str, Any]] = {}
        self._next: dict[CallKey, int] = {}  # replay: the next answer of each call
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
    def recorded_gateway(self) -> dict[str, Any] | None:
        """Replaying, what the tape says of the gateway it was recorded from (`gateway`, its
        description; `sandbox_seed`; `known_nodes`...): a handle on the tape stands in for it.
        None while recording: the gateway is the live one, which writes these."""
        return self.header if self.replaying else None

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
        return f"//{recorded_host(self._node_table(), _node_name(label, chain))}"

    def gateway_of(self, node: str, chain: str) -> str:
        """The gateway part of the calls' keys of the node named `node` (`_identity`): the
        identity of where the tape recorded it, recording and replaying alike."""
        return recorded_gateway(self._node_table(), node, chain)

    def _node_table(self) -> dict[str, Any]:
        return {"nodes": self._nodes, "known_nodes": self.header.get("known_nodes")}

    def cost(self) -> tuple[int, int]:
        """What the recorded calls cost (billed, maybe billed), every answer counted."""
        records = self._calls.values()
        return sum(r["ru"] for r in records), sum(r["unconfirmed_ru"] for r in records)

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
        calls: list[TapeCall],
        answers: list[dict[str, Any] | None],
        step: Send,
        fate: Any,
        when: datetime,
    ):
        """Keep each call's answer (None: the attempt got none), what the attempt cost, and
        `when` it was answered, on the clock the ledger keeps (the sandbox's own, for it)."""
        prices = [(part[1], part[2]) for part in step.parts] or [(step.likely, step.ru)]
        if len(prices) != len(calls):
            prices = [prices[0]] * len(calls)
        at = when.isoformat(timespec="milliseconds")
        with self._lock:
            if not self._dated:
                self.header["recorded"] = when.isoformat(timespec="seconds")
                self._dated = True
            for call, answer, (likely, ru) in zip(calls, answers, prices, strict=True):
                billed, unconfirmed = charge(fate, likely, ru)
                record = self._calls.get(call.key)
                if record is None:
                    new = call_record(call.node, call.chain, call.call, call.params)
                    record = self._calls[call.key] = new
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
            self._dirty |= merge_parts(self.path, self._calls, self._nodes)
            if not self._dirty and (self._finished_on_disk or not finished):
                return
            billed, unconfirmed = self.cost()
            header = {
                "recorded": self.header["recorded"],
                "gateway": self.header.get("gateway"),
                "sandbox_seed": self.header.get("sandbox_seed"),
                "request_s": self.header.get("request_s"),  # how a replay counts time
                "known_nodes": self.header.get("known_nodes", {}),
                "nodes": self._nodes,
                "ru": billed,
                "unconfirmed_ru": unconfirmed,
                "finished": finished,
            }
            lines = tape_lines(header, self._calls)
            self._dirty = False
            self._saved = time.monotonic()
        try:
            write_tape(self.path, lines)
        except TapeError:
            with self._lock:
                self._dirty = True  # still to write: the next save tries again
            raise
        self._finished_on_disk = finished

    # --- replaying ---

    def _load(self) -> dict[str, Any]:
        # Shared with every copy of this file in the process (`calls_of`): read, never written.
        header, self._calls = calls_of(tape_bytes(self.path), self.path)
        self._nodes = dict(header.get("nodes", {}))
        return dict(header)

    def answer(self, calls: list[TapeCall]) -> list[dict[str, Any] | TapeMiss]:
        """The next recorded answer of each call, or a `TapeMiss` for each call it lacks (the
        others of a batch still replay: growing an analysis against its tape misses only the
        calls added since)."""
        with self._lock:
            found: list[dict[str, Any] | TapeMiss] = []
            for call in calls:
                key = call.key
                record = self._calls.get(key)
                if record is None or not record["answers"]:
                    found.append(self._miss(call))
                    continue
                index = self._next.get(key, 0)
                answers = record["answers"]
                found.append(answers[min(index, len(answers) - 1)])
                self._next[key] = index + 1
            times = [answer["at"] for answer in found if isinstance(answer, dict)]
            self._clock = max(self._clock, *times) if times else self._clock
            return found

    def _miss(self, key: TapeCall) -> TapeMiss:
        _, node, chain, call, params = key
        return TapeMiss(
            f"the tape {self.path.name} holds no answer for {call} with params "
            f"{params} on {node} ({chain}); nothing was sent. Record the tape "
            "again (tape_mode='record') to add it",
            call={"node": node, "chain": chain, "method": call, "params": params},
            node=node,
            method=call,
        )

    def answer_recorded(
        self, keys: list[CallKey], *, partly: bool = False
    ) -> list[dict[str, Any] | None] | None:
        """Recording on from a recording that died: the next answer the file holds of each
        call, so that no call it answered is paid for again; None when it holds none of them
        (the request is sent, and its answers recorded after those). When it holds some:
        with `partly` (a JSON-RPC batch), those, and None for each other call (sent next, on
        its own: see `StillToSend`); else None, and all are sent. Taken in one step, so two
        requests in flight never both take one answer."""
        with self._lock:
            taken: dict[CallKey, int] = {}
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


def _worker_recording(path: str) -> Tape:
    """A Dask worker's share of a recording: a tape of its own in the recording's parts folder."""
    return _recording_at(str(parts_folder(Path(path)) / f"{secrets.token_hex(6)}.tape.gz"))


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
        self.gateway = tape.gateway_of(self.node, self.chain)
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

    def _calls(self, step: Send) -> tuple[list[TapeCall], list[Any] | None]:
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

    def _key(self, call: str, params: Any) -> TapeCall:
        return tape_call(self.gateway, self.node, self.chain, call, params)

    # --- recording ---

    def _record(self, step: Send, outcome: Answer | NoAnswer, latency_s: float) -> None:
        calls, ids = self._calls(step)
        answers: list[dict[str, Any] | None] = [None] * len(calls)
        if not isinstance(outcome, NoAnswer):
            answers = _split(outcome, ids, len(calls))
            for answer in answers:
                if answer is not None:
                    answer["latency_s"] = round(latency_s, 6)
        fate = attempt_fate(outcome, self.pricing())
        self.tape.record(calls, answers, step, fate, self.clock())

    # --- replaying ---

    def _replay(self, step: Send) -> Answer | NoAnswer:
        calls, ids = self._calls(step)
        found = self.tape.answer(calls)
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
        calls, ids = self._calls(step)
        batch = ids is not None and isinstance(step.request.json, list)
        found = self.tape.answer_recorded([call.key for call in calls], partly=batch)
        if found is None:
            return None
        return self._answer(
            step,
            ids,
            [
                self._still_to_send(call) if answer is None else answer
                for call, answer in zip(calls, found, strict=True)
            ],
        )

    def _still_to_send(self, call: TapeCall) -> StillToSend:
        return StillToSend(
            f"the tape {self.tape.path.name} holds no answer for {call.call} with params "
            f"{call.params}: it is sent next, on its own",
            node=self.node,
            method=call.call,
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
        first: dict[str, Any] = held[0] if held else {"at": None}
        pairs = zip(ids, found, strict=True) if ids is not None else ()
        misses = {i: miss for i, miss in pairs if isinstance(miss, GatewayError)}
        replayed = Replayed(costs, first["at"], first.get("latency_s", 0.0), misses)
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
        return Answer(200, {"content-type": "application/json"}, json_bytes(body), replayed)


def _netloc(url: str) -> str:
    """Host and port (a platform link is followed only on its API's own origin), never the
    user:password of a URL."""
    return urlsplit(url).netloc.rsplit("@", 1)[-1]


def _is_rpc(body: Any) -> bool:
    return isinstance(body, dict) and "method" in body and "jsonrpc" in body


def _path_and_query(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _body_bytes(body: Any) -> bytes:
    return body["text"].encode() if isinstance(body, dict) and "text" in body else json_bytes(body)


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
    path = tape_file_of(Path(setting).expanduser()).resolve()
    with _open_lock:
        recording = _open.get(path)
        if recording is not None and mode in ("auto", "record"):
            return recording
        tape = Tape(path, mode)
        if not tape.replaying:  # each replay starts at the tape's beginning: never shared
            _open[path] = tape
        return tape
