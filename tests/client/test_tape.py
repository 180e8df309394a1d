"""Tapes: record from the sandbox, Anvil and a server that echoes keys; replay with every socket
blocked, through the same pipeline (helpers, batches, workloads, async), at 0 RU."""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import pickle
import socket

import pandas as pd
import pytest

import toolkit
from toolkit._redact import register_secret
from toolkit.client import _tape, _tapefile
from toolkit.workloads._workload import Workload

ADDRESSES = [f"0x{index:040x}" for index in range(1, 9)]


@contextlib.contextmanager
def no_network(monkeypatch):
    """Any attempt to open a connection fails the test: replay must need none."""
    attempts = []

    def refuse(self, address, *args, **kwargs):
        attempts.append(address)
        raise AssertionError(f"a connection was opened while replaying: {address}")

    with monkeypatch.context() as patched:
        patched.setattr(socket.socket, "connect", refuse)
        patched.setattr(socket.socket, "connect_ex", refuse)
        yield
    assert not attempts


# The sessions below send more, smaller requests when replayed than when recorded, and a head's
# age is counted in requests (tests/client/test_heads.py): heads are kept for the whole session.
KEEP_HEADS = {"head_ttl_s": 3600}


def session(gateway, *, batch_size: int, concurrency: int) -> dict:
    """What a notebook does: helpers, a batch, REST calls, the node list, a workload."""
    eth, tron, ton = (gateway.node(n) for n in ("ethereum-mainnet", "tron-mainnet", "ton-mainnet"))
    head = eth.head()
    seen = {
        "head": head,
        "balance": eth.get_balance(ADDRESSES[0], head - 300),
        "batch": eth.batch([("eth_getBalance", a, hex(head - 10)) for a in ADDRESSES[:3]]),
        "tron": tron.call("wallet/getnowblock")["blockID"],
        "ton": ton.call("api/v2/getMasterchainInfo"),
        "nodes": sorted(n["name"] for n in gateway.nodes()),
    }
    work = Workload().grid(eth, "eth_getBalance", ADDRESSES, [head - 1_000, head - 20])
    work.each(tron, "wallet/gettransactioninfobyblocknum", range(100, 104), param="num")
    seen["frame"] = work.run(progress=False, batch_size=batch_size, concurrency=concurrency)
    return seen


@pytest.fixture
def recorded(tmp_path):
    """A session recorded from the sandbox: the tape, what the session saw, and its ledger."""
    tape = tmp_path / "session.tape.gz"
    gateway = toolkit.connect(tape=tape, tape_mode="record", sandbox=True, **KEEP_HEADS)
    seen = session(gateway, batch_size=10, concurrency=4)
    ledger = gateway.ledger.frame
    gateway.close()
    return tape, seen, ledger


def test_a_session_replays_the_same_with_no_network_and_no_ru(recorded, monkeypatch):
    tape, seen, recording = recorded
    assert recording["ru"].sum() > 0
    with no_network(monkeypatch):
        gateway = toolkit.connect(tape=tape, tape_mode="replay", **KEEP_HEADS)
        # Batching and concurrency differ from the recording's: calls are keyed one by one.
        again = session(gateway, batch_size=3, concurrency=1)
    assert again.pop("frame")[["params", "result", "value", "error"]].equals(
        seen.pop("frame")[["params", "result", "value", "error"]]
    )
    assert again == seen
    ledger = gateway.ledger.frame
    assert ledger["ru"].sum() == 0 and ledger["unconfirmed_ru"].sum() == 0
    # What each method cost when recorded, beside the nothing it costs now.
    by_method = ledger.groupby("method")["recorded_ru"].sum()
    assert by_method.to_dict() == recording.groupby("method")["ru"].sum().to_dict()
    # The ledger keeps the recording's clock: its times are the recording's.
    assert ledger["time"].max() <= recording["time"].max()
    assert gateway.tape.replaying and gateway.sandbox is None


def test_a_call_not_on_the_tape_is_a_tape_miss_at_once(recorded, monkeypatch):
    tape, seen, _ = recorded
    with no_network(monkeypatch):
        gateway = toolkit.connect(tape=tape, tape_mode="replay", **KEEP_HEADS)
        eth = gateway.node("ethereum-mainnet")
        with pytest.raises(toolkit.TapeMiss) as missed:
            eth.get_balance(ADDRESSES[-1], seen["head"] - 300)
    error = missed.value
    assert isinstance(error, toolkit.GatewayError)
    assert error.call["node"] == "ethereum-mainnet" and error.call["method"] == "eth_getBalance"
    assert ADDRESSES[-1] in error.call["params"] and "nothing was sent" in str(error)
    (entry,) = [e for e in gateway.ledger.entries if e.status == "TapeMiss"]
    assert entry.ru == 0 and entry.unconfirmed_ru == 0 and not entry.sent


def test_async_calls_replay_too(recorded, monkeypatch):
    tape, seen, _ = recorded

    async def read(gateway):
        eth = gateway.node("ethereum-mainnet").aio
        head = await eth.head()
        return head, await eth.get_balance(ADDRESSES[0], head - 300)

    with no_network(monkeypatch):
        gateway = toolkit.connect(
            tape=tape, tape_mode="replay", async_transport="httpx", **KEEP_HEADS
        )
        assert asyncio.run(read(gateway)) == (seen["head"], seen["balance"])
        gateway = toolkit.connect(tape=tape, tape_mode="replay", **KEEP_HEADS)  # aiohttp
        assert asyncio.run(read(gateway)) == (seen["head"], seen["balance"])


def test_the_environment_chooses_the_tape_and_auto_replays_once_it_exists(tmp_path, monkeypatch):
    tape = tmp_path / "from-env.tape.gz"
    monkeypatch.setenv("NODE_GATEWAY_TAPE", str(tape))
    monkeypatch.delenv("NODE_GATEWAY_TAPE_MODE", raising=False)
    first = toolkit.connect(sandbox=True)  # auto, no file yet: records
    assert not first.tape.replaying
    head = first.node("ethereum-mainnet").head()
    first.close()
    assert tape.exists()
    with no_network(monkeypatch):
        second = toolkit.connect()  # auto, the file exists: replays, no sandbox
        assert second.tape.replaying and second.node("ethereum-mainnet").head() == head
    monkeypatch.setenv("NODE_GATEWAY_TAPE_MODE", "sideways")
    with pytest.raises(toolkit.ValidationError, match="tape_mode"):
        toolkit.connect()


def test_a_tape_of_another_version_or_no_tape_is_a_clear_error(tmp_path):
    newer = tmp_path / "newer.tape.gz"
    header = {"format": "node-gateway-toolkit tape", "version": 99}
    newer.write_bytes(gzip.compress(json.dumps(header).encode()))
    with pytest.raises(toolkit.TapeError, match="version 99"):
        toolkit.connect(tape=newer, tape_mode="replay")
    garbage = tmp_path / "garbage.tape.gz"
    garbage.write_bytes(b"not gzip at all")
    with pytest.raises(toolkit.TapeError, match="not a tape"):
        toolkit.connect(tape=garbage, tape_mode="replay")


def _first_answers(records):
    return [answer for record in records for answer in record["answers"]]


DAMAGES = {
    "a record that is not an object": lambda header, records: records.insert(0, [1, 2]),
    "a record without its node": lambda header, records: records[0].pop("node"),
    "no list of answers": lambda header, records: records[0].update(answers="a text"),
    "an answer without its time": lambda h, records: _first_answers(records)[0].pop("at"),
    "an answer at no time": lambda h, records: _first_answers(records)[0].update(at="later"),
    "a header without its time": lambda header, records: header.pop("recorded"),
    "an answer without its cost": lambda h, records: _first_answers(records)[0].pop("ru"),
    "an answer neither item nor body": lambda h, records: [
        answer.pop("item", None) for answer in _first_answers(records)
    ],
    "an item that is not an object": lambda h, records: [
        answer.update(item=5) for answer in _first_answers(records) if "item" in answer
    ],
    "a header that is not text": lambda h, records: [
        answer.update(retry_after=[1]) for answer in _first_answers(records) if "body" in answer
    ],
    "a text body that is not text": lambda h, records: [
        answer.update(body={"text": 5}) for answer in _first_answers(records) if "body" in answer
    ],
    "nodes that are not an object": lambda header, records: header.update(nodes=[1]),
    "a node without its chain": lambda header, records: header["nodes"]["tron-mainnet"].clear(),
    "known nodes that are a list": lambda header, records: header.update(known_nodes=[1]),
}


@pytest.mark.parametrize("damage", sorted(DAMAGES))
def test_a_tape_damaged_inside_is_a_tape_error_not_a_key_error(tmp_path, damage):
    """A tape is JSON lines anyone can edit after ``gunzip``: one damaged inside (a field gone,
    of another type) is refused when opened, naming its line, never a KeyError in a call."""
    tape = tmp_path / "session.tape.gz"
    with toolkit.connect(tape=tape, tape_mode="record", sandbox=True) as gateway:
        gateway.node("ethereum-mainnet").block_number()
        gateway.node("tron-mainnet").call("wallet/getnowblock")  # kept as a whole body
    header, *records = map(json.loads, gzip.decompress(tape.read_bytes()).splitlines())
    DAMAGES[damage](header, records)
    lines = "\n".join(json.dumps(line) for line in [header, *records])
    tape.write_bytes(gzip.compress(lines.encode()))
    replaying = pytest.raises(toolkit.TapeError, match=r"session\.tape\.gz is damaged")
    with replaying, toolkit.connect(tape=tape, tape_mode="replay") as gateway:
        gateway.node("ethereum-mainnet").block_number()
        gateway.node("tron-mainnet").call("wallet/getnowblock")


def test_a_tape_is_readable_json_lines_and_holds_no_key(recorded):
    tape, _, _ = recorded
    text = gzip.decompress(tape.read_bytes()).decode()
    header, *records = (json.loads(line) for line in text.splitlines())
    assert header["format"] == "node-gateway-toolkit tape" and header["version"] == 1
    assert header["ru"] > 0 and set(header["nodes"]) >= {"ethereum-mainnet", "tron-mainnet"}
    assert {"node", "chain", "call", "params", "answers", "ru"} <= set(records[0])
    from toolkit.sandbox import shared_sandbox

    info = shared_sandbox().info
    keys = [info["api_key"], *(url.rsplit("/", 1)[-1] for url in info["nodes"].values())]
    assert_no_fragment(text, keys)


def assert_no_fragment(text: str, keys: list[str]) -> None:
    """No 8-character piece of any key anywhere in `text`."""
    for key in keys:
        for start in range(len(key) - 7):
            assert key[start : start + 8] not in text, f"a piece of a key is on the tape: {key}"


def test_keys_in_paths_queries_headers_and_answers_never_reach_the_tape(tmp_path, loopback_server):
    path_key, query_key, echoed = "a1b2c3d4e5f6a7b8c9d0", "q9r8s7t6u5v4w3x2", "e1f2a3b4c5d6e7f8"

    def answer(request):
        _, target, _, body = request
        call = json.loads(body)
        # The answer echoes the URL (path and query keys), in its body and in a header, and
        # links to a node with a key the toolkit was told of (as the platform's API key is).
        echo = f"served {target}; see https://x.io/{echoed}"
        result = {"echo": echo, "link": f"https://node.example/{path_key}?dkey={query_key}"}
        headers = {"content-type": "application/json", "x-served": target}
        content = {"jsonrpc": "2.0", "id": call["id"], "result": result}
        return 200, headers, json.dumps(content).encode()

    server = loopback_server(answer)
    register_secret(echoed)
    tape = tmp_path / "keys.tape.gz"
    url = f"{server.url}/{path_key}?dkey={query_key}"
    with toolkit.node(url, chain="ethereum", name="echo", tape=tape, tape_mode="record") as node:
        result = node.call_raw("web3_clientVersion")
    assert path_key in json.dumps(result)  # the answer did carry the keys
    text = gzip.decompress(tape.read_bytes()).decode()
    assert "web3_clientVersion" in text
    assert_no_fragment(text, [path_key, query_key, echoed])


def test_an_answer_with_text_that_starts_like_a_url_but_is_none_is_recorded(
    tmp_path, loopback_server
):
    """``http://[`` (an IPv6 bracket left open) does not parse: the recording keeps it hidden
    instead of failing the call whose answer was paid for."""

    def answer(request):
        body = {"jsonrpc": "2.0", "id": json.loads(request[3])["id"], "result": "http://[::1/x"}
        return 200, {}, json.dumps(body).encode()

    tape = tmp_path / "odd.tape.gz"
    url = f"{loopback_server(answer).url}/a1b2c3d4e5f6a7b8c9d0"
    with toolkit.node(url, chain="ethereum", tape=tape, tape_mode="record") as node:
        assert node.client_version() == "http://[::1/x"
    assert '"result":"***"' in gzip.decompress(tape.read_bytes()).decode().replace(" ", "")


def test_credentials_of_platform_records_never_reach_the_tape(tmp_path, loopback_server):
    """The platform's v1 record as Chainstack publishes it carries `auth_username`,
    `auth_password` and `auth_key`: the tape records the answer before the client reads it,
    and keeps none of them; a replay gets the record with them hidden."""
    from tests.fixtures.real_bodies import real

    record = real("platform_v1_node_chainstack_docs.json")
    credentials = [record["details"][f] for f in ("auth_key", "auth_password", "auth_username")]
    page = {"count": 1, "next": None, "previous": None, "results": [record]}
    server = loopback_server(lambda request: (200, {}, json.dumps(page).encode()))
    tape = tmp_path / "platform.tape.gz"
    for mode in ("record", "replay"):
        gateway = toolkit.connect(
            platform_url=server.url, api_key="platform-key-0a1b2c3d4e", tape=tape, tape_mode=mode
        )
        (listed,) = gateway.nodes()
        gateway.close()
        assert listed["name"] == record["name"]
    assert listed["details"]["auth_key"] == "***"
    assert_no_fragment(gzip.decompress(tape.read_bytes()).decode(), credentials)


@pytest.mark.anvil
def test_a_recording_from_anvil_replays_identical_frames_offline(anvil, tmp_path, monkeypatch):
    anvil.rpc("anvil_mine", hex(20))
    tape = tmp_path / "anvil.tape.gz"
    sender = anvil.rpc("eth_accounts")[0]

    def frames(node):
        head = node.head()
        work = Workload().grid(node, "eth_getBalance", [sender, *ADDRESSES[:3]], range(1, 6))
        work.add(node, "eth_getBlockByNumber", hex(head), False)
        return work.run(progress=False, batch_size=7)

    with toolkit.node(anvil.url, chain="ethereum", name="anvil", tape=tape) as node:
        recorded = frames(node)
    assert recorded["error"].isna().all() and recorded["value"][0] > 0
    with (
        no_network(monkeypatch),
        toolkit.node(anvil.url, chain="ethereum", name="anvil", tape=tape) as node,
    ):
        replayed = frames(node)
        assert node.ledger.total_ru == 0 and node.settings.tape is not None
    columns = ["node", "method", "params", "result", "value", "error"]
    pd.testing.assert_frame_equal(replayed[columns], recorded[columns])


def test_provenance_of_a_replay_says_what_the_recording_cost_and_when(recorded, monkeypatch):
    tape, _, recording = recorded
    with no_network(monkeypatch):
        gateway = toolkit.connect(tape=tape, tape_mode="replay", **KEEP_HEADS)
        session(gateway, batch_size=5, concurrency=2)
    record = toolkit.provenance(gateway)
    assert record.gateway == "embedded sandbox (seed 0)"  # the recording's gateway
    assert record.total_ru == 0 and record.unconfirmed_ru == 0
    assert record.recorded_ru == recording["ru"].sum() > 0
    assert record.time == gateway.tape.recorded_at  # the recording's clock, not today's
    line = dict(record.rows())["tape"]
    assert line == (
        f"{record.replayed:,} calls replayed from the tape session.tape.gz recorded "
        f"{record.time:%Y-%m-%d %H:%M} UTC at {record.recorded_ru:,} RU; 0 RU now"
    )


def test_a_folder_of_tapes_gives_each_notebook_its_own(recorded, monkeypatch):
    tape, seen, _ = recorded
    folder = tape.parent
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    (folder / "another.tape.gz").write_bytes(tape.read_bytes())  # which is this notebook's?
    with pytest.raises(toolkit.ValidationError, match="JPY_SESSION_NAME"):
        toolkit.connect(tape=folder, tape_mode="replay")
    # Jupyter names the kernel's notebook: its tape is <folder>/<notebook>.tape.gz
    monkeypatch.setenv("JPY_SESSION_NAME", str(folder / "session.ipynb"))
    with no_network(monkeypatch):
        gateway = toolkit.connect(tape=folder, tape_mode="replay")
        assert gateway.tape.path.name == "session.tape.gz"
        assert gateway.node("ethereum-mainnet").head() == seen["head"]


def test_copies_of_a_replayed_tape_parse_its_file_once_each_replaying_from_the_start(
    recorded, monkeypatch
):
    """Dask unpickles a replayed tape for every partition's task, on the scheduler and on the
    worker: the file is parsed once in a process, not once per copy (nor once per call), and
    each copy still gives a call's recorded answers from the first. A file written anew is read
    anew."""
    path, _, _ = recorded
    parsed = []
    parse = _tapefile._parse
    monkeypatch.setattr(
        _tapefile, "_parse", lambda data, where: parsed.append(where) or parse(data, where)
    )
    _tapefile.calls_of.cache_clear()  # an earlier test may have replayed a tape of the same bytes
    tape = _tape.Tape(path, "replay")
    copies = [pickle.loads(pickle.dumps(tape)) for _ in range(8)]
    assert parsed == [tape.path]
    key = max(tape._calls, key=lambda call: len(tape._calls[call]["answers"]))
    answers = tape._calls[key]["answers"]
    call = _tapefile.TapeCall(key, *(tape._calls[key][f] for f in ("node", "chain", "call")), "")
    served = [copies[0].answer([call])[0] for _ in range(len(answers) + 1)]
    assert served == [*answers, answers[-1]]  # in order, then the last again
    assert [copy.answer([call])[0] for copy in copies[1:]] == [answers[0]] * 7
    assert parsed == [tape.path]

    lines = gzip.decompress(path.read_bytes()).decode().splitlines()
    header = json.loads(lines[0])
    header["recorded"] = "2020-01-02T03:04:05+00:00"
    path.write_bytes(gzip.compress("\n".join([json.dumps(header), *lines[1:]]).encode()))
    assert _tape.Tape(path, "replay").recorded_at.year == 2020
    assert parsed == [tape.path, tape.path]


def test_a_batch_replays_every_call_the_tape_holds_and_misses_only_the_others(
    tmp_path, monkeypatch
):
    """Growing an analysis against its tape: a workload of N+1 calls replayed from a tape of
    N, in batches, answers N rows at 0 RU and misses one, naming its own params."""
    tape = tmp_path / "grown.tape.gz"
    recorded_addresses = ADDRESSES[:5]
    with toolkit.connect(tape=tape, tape_mode="record", sandbox=True) as gateway:
        eth = gateway.node("ethereum-mainnet")
        work = Workload().grid(eth, "eth_getBalance", recorded_addresses, [100])
        recorded = work.run(progress=False, batch_size=10)
    added = ADDRESSES[5]
    grown = [*ADDRESSES[:3], added, *ADDRESSES[3:5]]  # the new call in the middle of a batch
    with no_network(monkeypatch), toolkit.connect(tape=tape, tape_mode="replay") as gateway:
        eth = gateway.node("ethereum-mainnet")
        work = Workload().grid(eth, "eth_getBalance", grown, [100])
        with pytest.warns(RuntimeWarning, match="1 of 6 calls failed: 1 TapeMiss"):
            frame = work.run(progress=False, batch_size=4)
        answered = frame[frame["error"].isna()]
        assert answered["value"].tolist() == recorded["value"].tolist()
        assert answered["ru"].sum() == 0 and answered["unconfirmed_ru"].sum() == 0
        (missed,) = frame[frame["error"].notna()].itertuples()
        assert missed.error == "TapeMiss" and added in missed.params and added in missed.message
        assert not any(address in missed.message for address in recorded_addresses)
        # The ledger: the five replayed, the one missed neither sent nor replayed.
        ledger = [e for e in gateway.ledger.entries if e.method == "eth_getBalance"]
        assert sorted(e.status for e in ledger) == ["TapeMiss"] + ["ok"] * 5
        assert [e.replayed for e in ledger if e.status == "TapeMiss"] == [False]
        assert toolkit.provenance(gateway).replayed == 5 + 1  # and the head's call
        # A batch the tape holds none of: each call misses with its own params.
        results = eth.batch(
            [("eth_getBalance", address, 100) for address in ADDRESSES[6:8]],
            return_exceptions=True,
        )
        assert [type(r) for r in results] == [toolkit.TapeMiss] * 2
        assert [
            ADDRESSES[6] in results[0].call["params"],
            ADDRESSES[7] in results[1].call["params"],
        ] == [True, True]
        # Without return_exceptions, the batch raises the miss of the call it lacks.
        with pytest.raises(toolkit.TapeMiss) as raised:
            eth.batch([("eth_getBalance", address, 100) for address in [ADDRESSES[0], added]])
        assert added in raised.value.call["params"]


def test_replayed_rows_belong_to_the_tapes_gateway_whatever_handle_replays_them(
    sandbox, tmp_path, monkeypatch
):
    """A tape replayed through a handle on another gateway (``connect(platform_url=...)``)
    writes dataset rows of the gateway the tape was recorded from: a live run through that
    other gateway into the same dataset pays for its calls instead of taking replayed rows for
    its gateway's answers."""
    info = sandbox.info
    tape, dataset = tmp_path / "recorded.tape.gz", tmp_path / "ds"
    calls = (ADDRESSES[:2], [5, 6])
    with toolkit.connect(tape=tape, tape_mode="record", sandbox=True) as recording:
        recorder = recording.node("ethereum-mainnet")
        Workload().grid(recorder, "eth_getBalance", *calls).run(progress=False)
        recorded_gateway = recorder.gateway  # the sandbox's host, 127.0.0.1
    elsewhere = {  # the same sandbox reached by another name: another gateway's identity
        "platform_url": info["platform_url"].replace("127.0.0.1", "localhost"),
        "api_key": info["api_key"],
        "nodes": {
            "ethereum-mainnet": info["nodes"]["ethereum-mainnet"].replace("127.0.0.1", "localhost")
        },
        "cache": False,
    }
    with (
        no_network(monkeypatch),
        toolkit.connect(**elsewhere, tape=tape, tape_mode="replay") as replay,
    ):
        eth = replay.node("ethereum-mainnet")
        assert eth.gateway == recorded_gateway
        frame = Workload().grid(eth, "eth_getBalance", *calls).run(progress=False, dataset=dataset)
        assert frame["error"].isna().all() and frame["ru"].sum() == 0
    assert set(toolkit.read_dataset(dataset)["gateway"]) == {recorded_gateway}
    with toolkit.connect(**elsewhere) as live:
        eth = live.node("ethereum-mainnet")
        assert eth.gateway != recorded_gateway
        with pytest.warns(RuntimeWarning, match="through another gateway"):
            frame = (
                Workload().grid(eth, "eth_getBalance", *calls).run(progress=False, dataset=dataset)
            )
    assert frame.attrs["summary"]["from_dataset"] == 0 and frame["ru"].sum() > 0


def test_keys_a_gateway_echoes_inside_text_or_headers_never_reach_the_tape(
    tmp_path, loopback_server
):
    """An answer may quote a URL with a key the toolkit was never told of inside its text (an
    error message, a record's field, an error page that is not JSON), and echo the node's own
    key in a header: the tape keeps none of them, as no other output does."""
    path_key = "a1b2c3d4e5f6a7b8c9d0"
    unknown = ["0f1e2d3c4b5a69788796", "k3yT0k9x", "9a8b7c6d5e4f3a2b1c0d"]

    def answer(request):
        _, target, _, body = request
        call = json.loads(body)
        if call["method"] == "web3_clientVersion":  # refused, with a page that is not JSON
            page = f"Forbidden. Try https://other.example/{unknown[0]}?x=1, or ask support."
            headers = {"content-type": "text/plain", "retry-after": f"60 ({target})"}
            return 403, headers, page.encode()
        message = (
            f"node https://other.example/v2/{unknown[1]} is down (see wss://w.example/{unknown[2]})"
        )
        error = {"code": -32000, "message": message, "data": {"record": {"note": message}}}
        content = {"jsonrpc": "2.0", "id": call["id"], "error": error}
        return 200, {"content-type": "application/json"}, json.dumps(content).encode()

    server = loopback_server(answer)
    tape = tmp_path / "echoes.tape.gz"
    url = f"{server.url}/{path_key}"
    with toolkit.node(url, chain="ethereum", name="echo", tape=tape, tape_mode="record") as node:
        with pytest.raises(toolkit.GatewayError):
            node.client_version()
        with pytest.raises(toolkit.RPCError):
            node.block_number()
    text = gzip.decompress(tape.read_bytes()).decode()
    assert "web3_clientVersion" in text and "is down" in text and "Forbidden" in text
    assert_no_fragment(text, [path_key, *unknown])
    assert "other.example/v2/***" in text  # the URL's host and words stay: it still says where
