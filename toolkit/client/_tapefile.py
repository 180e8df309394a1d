"""A tape's file, as plain functions over paths, bytes and dicts (a `Tape` records and replays).

Gzip-compressed JSON lines, readable after ``gunzip``: a header (format, version, when it was
recorded, the toolkit's version, the nodes by name, chain and host), then one line per call
identity. What is written has passed the toolkit's scrubber (`tape_lines`; the answers were
scrubbed as recorded), and is written whole (`write_tape`: temporary file, fsync, rename). A file
is checked line by line when read (`_parse`): a tape edited by hand, written by another program or
inflating like a bomb is a `TapeError` naming its line, never a raw error in a replayed call. A
Dask worker recording a run writes a tape of its own in the `parts_folder`, which `merge_parts`
takes in.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import io
import json
import math
import os
import sys
import zlib
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from .._errors import TapeError, ValidationError
from .._files import remove_dead_writers_files, write_atomically
from .._json import MAX_DEPTH, NotJSONNumber, load_bounded
from .._redact import clip, scrub
from .._version import __version__
from ..catalog import CATALOG, Surface
from ._http import MAX_ANSWER_BYTES
from ._identity import CallKey, canonical_params, gateway_identity
from ._urls import clean_url

FORMAT = "node-gateway-toolkit tape"
VERSION = 1


class TapeCall(NamedTuple):
    """A call as a tape holds it: its `key`, and the node, chain, call (a JSON-RPC method, or a
    REST verb and path) and params text its line is written with, as the wire names them."""

    key: CallKey
    node: str
    chain: str
    call: str
    params: str


def tape_params(value: Any, call: str = "") -> str:
    """A call's params as its tape line has them: the call key's canonical form
    (`canonical_params`: an address checksummed or not is one call), scrubbed."""
    return scrub(canonical_params(call.rpartition(" ")[2], value))  # "POST /wallet/x": the path


def tape_call(gateway: str, node: str, chain: str, call: str, params: Any) -> TapeCall:
    """The call a request (or a recorded line) carries, keyed as the response cache and a
    dataset key it (`_identity.CallKey`): a REST "VERB /path" is the catalog's method at that
    path, and a JSON-RPC method TON's jsonRPC carries is that method with its inner method in
    its params. `params`: the wire's (or a line's, read back); text that is not JSON stays."""
    text = params if isinstance(params, str) else tape_params(params, call)
    method, keyed = _catalog_call(chain, call, params)
    same = keyed is params or isinstance(params, str)
    text_of_key = text if same else scrub(canonical_params(method, keyed))
    return TapeCall(CallKey(gateway, node, method, text_of_key), node, chain, call, text)


# The chains whose JSON-RPC travels inside one catalog method with named params (TON's
# jsonRPC): a method outside the catalog called there is that method's inner one.
_NAMED_RPC = {
    chain: method.name
    for method in CATALOG.values()
    if method.surface is Surface.JSONRPC_NAMED
    for chain in method.chains
}
_VERBS = {Surface.REST_GET: "GET", Surface.PLATFORM: "GET", Surface.REST_POST: "POST"}


def _catalog_call(chain: str, call: str, params: Any) -> tuple[str, Any]:
    """The catalog's name for `call` on `chain` and its params in the catalog's shape; a call
    outside the catalog as it is."""
    verb, rest, path = call.partition(" ")
    if rest:
        method = CATALOG.get(path.lstrip("/"))
        if method is not None and _VERBS.get(method.surface) == verb:
            return method.name, params
        return call, params
    method = CATALOG.get(call)
    named = _NAMED_RPC.get(chain)
    if named is not None and (method is None or chain not in method.chains):
        return named, {"method": call, "params": {} if params is None else params}
    return call, params


def recorded_host(header: dict[str, Any], node: str) -> str:
    """Where the node named `node` was when the tape recorded it (host and port): what a
    replaying node's gateway identity is made of; ``tape.invalid`` for one it never knew."""
    info = (header.get("nodes") or {}).get(node)
    host = info["host"] if isinstance(info, dict) else (header.get("known_nodes") or {}).get(node)
    return host or "tape.invalid"


def recorded_gateway(header: dict[str, Any], node: str, chain: str) -> str:
    """The gateway identity (`_identity.gateway_identity`) of a node as the tape recorded it."""
    return gateway_identity(f"//{recorded_host(header, node)}", chain)


def record_key(record: dict[str, Any], gateway: str) -> CallKey:
    """A recorded call's key, its params made canonical again: a tape recorded before keys
    were (or by hand) still answers the call however it is spelt now."""
    params = record["params"]
    with contextlib.suppress(ValueError, TypeError):
        params = load_bounded(params)
    return tape_call(gateway, record["node"], record["chain"], record["call"], params).key


def tape_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise TapeError(f"{path} is not a tape that can be read ({error})") from None


def parse_tape(data: bytes, path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A tape file's bytes as its header and call records, checked as a replay checks them (a
    `TapeError` naming the line otherwise): for what reads a tape without replaying it."""
    header, calls = calls_of(data, path)
    return header, list(calls.values())


@functools.lru_cache(maxsize=2)
def calls_of(data: bytes, path: Path) -> tuple[dict[str, Any], dict[CallKey, dict[str, Any]]]:
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


def _parse(data: bytes, path: Path) -> tuple[dict[str, Any], dict[CallKey, dict[str, Any]]]:
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
    records: dict[CallKey, dict[str, Any]] = {}
    seen: dict[CallKey, int] = {}
    gateways: dict[tuple[str, str], str] = {}
    for number, record in lines[1:]:
        problem = _damage(record)
        if problem is not None:  # edited by hand, say: refused now, not a KeyError in a call
            raise TapeError(f"{path} is damaged: line {number} {problem}; {_DAMAGED}")
        node = (record["node"], record["chain"])
        gateway = gateways.get(node) or gateways.setdefault(node, recorded_gateway(header, *node))
        key = record_key(record, gateway)  # two spellings of one call are one call
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
    if request_s is not None and not _is_number(request_s, low=0.0, high=MAX_LATENCY_S):
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
    """What a replay could not read in a call record (see `TapeTransport._replay`), or None."""
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


ENV_NOTEBOOK = "NODE_GATEWAY_NOTEBOOK"


def tape_file_of(path: Path) -> Path:
    """A tape's file: `path`, or in a folder of tapes, the notebook's own: ``<folder>/<notebook
    name>.tape.gz`` when the notebook's name is known (`notebook_name`), else the folder's only
    tape. One setting thus replays every notebook of a folder (`make lab TAPES=replay`), and a
    kernel that is not told its notebook's name (JupyterLite's) finds a folder's one tape."""
    if not path.is_dir():
        return path
    name = notebook_name()
    if name is not None:
        return path / f"{name}.tape.gz"
    tapes = sorted(file.name for file in path.glob("*.tape.gz") if file.is_file())
    if len(tapes) == 1:
        return path / tapes[0]
    held = f"holds {len(tapes)} tapes ({', '.join(tapes[:4])}{', ...' if len(tapes) > 4 else ''})"
    raise ValidationError(
        f"{path} is a folder of tapes, and which is this notebook's is not known: its name was "
        f"looked for in {ENV_NOTEBOOK}, in JPY_SESSION_NAME (a Jupyter server sets it; "
        "JupyterLite's kernel does not) and in the kernel's __session__ and "
        f"__vsc_ipynb_file__, and none is set; the folder "
        f"{held if tapes else 'holds no tape'}. Name the tape: "
        f'toolkit.connect(tape="{path.name}/<notebook>.tape.gz"), or the notebook: a first cell '
        f"%env {ENV_NOTEBOOK}=<notebook> (its file name, with or without .ipynb)",
        param="tape",
        rule="folder",
    )


def notebook_name() -> str | None:
    """The running notebook's name (its file's, without the folder or ``.ipynb``), or None:
    from `ENV_NOTEBOOK` (set by a person, or a site that serves the notebooks), else what
    Jupyter tells a kernel: ``JPY_SESSION_NAME`` (set by a Jupyter server), the IPython
    namespace's ``__session__`` (ipykernel's copy of it) or ``__vsc_ipynb_file__`` (VS Code's).
    JupyterLite's Pyodide kernel sets none of them: it starts in the notebook's folder only."""
    for name in (os.environ.get(ENV_NOTEBOOK), os.environ.get("JPY_SESSION_NAME")):
        if name:
            return _stem(name)
    ipython = sys.modules.get("IPython")  # never imported for this: only a running kernel's
    shell = ipython.get_ipython() if ipython is not None else None
    names = getattr(shell, "user_ns", None) or {}
    for variable in ("__session__", "__vsc_ipynb_file__"):
        if isinstance(names.get(variable), str) and names[variable]:
            return _stem(names[variable])
    return None


def _stem(name: str) -> str:
    base = Path(name).name
    for suffix in (".ipynb", ".tape.gz"):
        base = base.removesuffix(suffix)
    return base


def parts_folder(path: Path) -> Path:
    """Where the Dask workers of a run recorded into `path` write their own tapes."""
    return path.with_name(f"{path.name}.parts")


def tape_lines(header: dict[str, Any], calls: dict[CallKey, dict[str, Any]]) -> list[str]:
    """A tape's lines: its header (with the format, version and toolkit written in), then one
    line per call, in the order of their keys; a recording's own state (``pending``) stays out."""
    header = {**header, "format": FORMAT, "version": VERSION, "toolkit_version": __version__}
    lines = [scrub(json.dumps(header, sort_keys=True))]  # its gateway's name, say
    for record in sorted(calls.values(), key=_line_order):
        record = {k: v for k, v in record.items() if k != "pending"}
        lines.append(json.dumps(record, sort_keys=True, ensure_ascii=False))
    return lines


def _line_order(record: dict[str, Any]) -> tuple[str, str, str, str]:
    return record["node"], record["chain"], record["call"], record["params"]


def call_record(node: str, chain: str, call: str, params: str) -> dict[str, Any]:
    """A call's record with no answer yet (``pending`` is a recording's own: never written)."""
    line = {"node": node, "chain": chain, "call": call, "params": params}
    return {**line, "answers": [], "ru": 0, "unconfirmed_ru": 0, "pending": [0, 0]}


def write_tape(path: Path, lines: list[str]) -> None:
    """Write a tape's `lines` to `path` whole (temporary file, fsync, rename), and remove what
    saves killed mid-write left beside it; a `TapeError` when the disk refuses."""
    data = gzip.compress(("\n".join(lines) + "\n").encode(), mtime=0)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, lambda file: file.write_bytes(data))
    except OSError as error:  # a full disk, a read-only folder
        raise TapeError(
            f"the tape {path} could not be written ({error.strerror or error}); its "
            "answers are kept in memory: free space on its disk (or make its folder "
            "writable), then call gw.tape.save() or close the gateway"
        ) from None
    remove_dead_writers_files(path)


def merge_parts(path: Path, calls: dict[CallKey, dict[str, Any]], nodes: dict[str, Any]) -> bool:
    """Take into `calls` and `nodes` what the Dask workers of a run recorded into `path`
    recorded beside it (`parts_folder`): their answers go after the ones `calls` holds, call by
    call; their files go. Whether any was taken in."""
    merged = False
    for file in sorted(parts_folder(path).glob("*.tape.gz")):
        try:
            header, records = _parse(tape_bytes(file), file)
        except TapeError:  # a worker killed while it wrote: its calls are not on the tape
            continue
        for node, info in header.get("nodes", {}).items():
            nodes.setdefault(node, info)
        for key, record in records.items():
            mine = calls.setdefault(key, call_record(*_line_order(record)))
            mine["answers"] += record["answers"]
            mine["ru"] += record["ru"]
            mine["unconfirmed_ru"] += record["unconfirmed_ru"]
        file.unlink()
        merged = True
    with contextlib.suppress(OSError):  # gone, or a worker still writing into it
        parts_folder(path).rmdir()
    return merged
