"""Event scans (`Workload.logs`): planned in chunks of the plan's cap, priced by fromBlock,
resumed from a dataset, split on the refusals real providers send, decoded by `evm_events`.

The sandbox's token emits a Transfer log for each token transfer in its blocks. A small fake node
over real loopback HTTP refuses ranges wider than its cap with real providers' error bodies
(tests/fixtures/real/SOURCES.md), for the splitting."""

from __future__ import annotations

import itertools
import json
import threading
import time
from http.server import BaseHTTPRequestHandler

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolkit
from tests.fixtures.real_bodies import real
from tests.loopback import LoopbackHTTPServer
from toolkit import frames
from toolkit.catalog import abi
from toolkit.client._answers import interpret_rpc
from toolkit.sandbox import DEMO
from toolkit.workloads._logs import split_range

TOKEN = DEMO.evm.token
TRANSFER = abi.event("Transfer").topic0
DEVELOPER = toolkit.DEFAULT_PRICING.replace(plan_name="Developer")
ONE_TRY = toolkit.RetryPolicy(attempts=1)
RETRIES = toolkit.RetryPolicy(attempts=3, backoff_s=0.001, backoff_max_s=0.005)


# --- planning ------------------------------------------------------------------------------------


def _ranges(work):
    return [
        (
            int(c.call.bound.wire_params[0]["fromBlock"], 16),
            int(c.call.bound.wire_params[0]["toBlock"], 16),
        )
        for c in work
    ]


def test_a_scan_is_chunked_to_the_plans_cap_adjacent_and_in_order(make_gateway):
    eth = make_gateway(pricing=DEVELOPER).node("ethereum-mainnet")
    work = toolkit.Workload().logs(
        eth, address=TOKEN, event="Transfer", from_block=1_000, to_block=1_349
    )
    assert _ranges(work) == [(1000, 1099), (1100, 1199), (1200, 1299), (1300, 1349)]
    query = work.calls[0].call.bound.wire_params[0]
    assert query["address"] == TOKEN and query["topics"] == [TRANSFER]
    # Without a plan: the toolkit's bound (10,000 blocks a call), or a smaller blocks_per_call.
    free = make_gateway().node("ethereum-mainnet")
    assert len(toolkit.Workload().logs(free, from_block=0, to_block=25_000)) == 3
    small = toolkit.Workload().logs(free, from_block=0, to_block=999, blocks_per_call=250)
    assert _ranges(small)[-1] == (750, 999) and len(small) == 4


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [
        ({"from_block": 10, "to_block": 5}, "from_block"),
        ({"from_block": 0, "to_block": "latest"}, "to_block"),
        ({"from_block": -1, "to_block": 5}, "from_block"),
        ({"from_block": 0, "to_block": 5, "event": "Transfer(uint256"}, "event"),
        ({"from_block": 0, "to_block": 5, "blocks_per_call": 0}, "blocks_per_call"),
        (
            {"from_block": 0, "to_block": 5, "event": "Transfer", "topics": ["0x" + "00" * 32]},
            "topics",
        ),
    ],
)
def test_bad_scan_arguments_are_refused_before_anything_is_planned(gateway, kwargs, param):
    eth = gateway.node("ethereum-mainnet")
    work = toolkit.Workload()
    with pytest.raises(toolkit.ValidationError) as refused:
        work.logs(eth, **kwargs)
    assert refused.value.param == param and len(work) == 0


def test_a_million_block_scan_previews_on_the_developer_plan_without_sending(make_gateway, sandbox):
    eth = make_gateway(pricing=DEVELOPER).node("ethereum-mainnet")
    head = eth.head()
    # CPU time of this process: the other processes of a busy machine do not count (about 1 s
    # here on an idle one: 0.5 s to plan, 0.45 s to price).
    started = time.process_time()
    work = toolkit.Workload().logs(
        eth, address=TOKEN, event="Transfer", from_block=head - 999_999, to_block=head
    )
    preview = work.preview()
    seconds = time.process_time() - started
    assert preview.calls == 10_000
    # Every chunk but the last 127 blocks' is archive (2 RU); the last chunk's fromBlock is
    # 99 behind the head: full (1 RU).
    assert preview.ru_high == 2 * 9_999 + 1 and preview.exact
    served = sum(usage["requests"] for usage in sandbox.metering().values())
    assert served == 1  # the head, asked above; the plan and the preview send nothing
    assert seconds < 3, f"planning and pricing 10,000 chunks took {seconds:.2f} s"


# --- end to end on the sandbox -------------------------------------------------------------------


def test_a_scan_on_the_sandbox_decodes_every_transfer_and_its_ru_match_the_meter(
    make_gateway, sandbox, tmp_path
):
    gateway = make_gateway(pricing=DEVELOPER)
    eth = gateway.node("ethereum-mainnet")
    head = eth.head()
    start, end = head - 1_049, head
    work = toolkit.Workload().logs(
        eth, address=TOKEN, event="Transfer", from_block=start, to_block=end
    )
    assert len(work) == 11
    sandbox.reset_metering()
    spent_before = gateway.ledger.total_ru
    run = work.run(progress=False, dataset=tmp_path / "transfers")
    assert run["error"].isna().all()
    served = sandbox.metering()["ethereum-mainnet"]["ru"]
    assert gateway.ledger.total_ru - spent_before == served == run["ru"].sum()

    transfers = frames.evm_events(run, event="Transfer")
    every = (
        make_gateway()
        .node("ethereum-mainnet")
        .get_logs({"fromBlock": hex(start), "toBlock": hex(end), "address": TOKEN})
    )
    truth = [log for log in every if log["topics"][0] == TRANSFER]

    assert len(transfers) == len(truth) > 500
    assert transfers.attrs["skipped"] == 0
    assert list(transfers.columns) == [
        "block_number",
        "log_index",
        "transaction_hash",
        "address",
        "event",
        "from",
        "to",
        "value",
    ]
    first = truth[0]
    assert transfers["block_number"].iloc[0] == int(first["blockNumber"], 16)
    assert transfers["to"].iloc[0] == toolkit.catalog.encoding.to_checksum_address(
        "0x" + first["topics"][2][-40:]
    )
    assert transfers["value"].iloc[0] == int(first["data"], 16)
    # Each Transfer is between the treasury and a demo account (the other side of its balance).
    accounts = set(DEMO.evm.accounts.values())
    assert set(transfers["from"]) <= accounts | {DEMO.evm.treasury}
    assert all(
        (row["from"] == DEMO.evm.treasury) != (row["to"] == DEMO.evm.treasury)
        for _, row in transfers.iterrows()
    )

    # The token approves as well: the same logs scanned without a topic filter hold both events.
    approvals = frames.evm_events(every, event="Approval")
    assert len(approvals) == len(every) - len(truth) > 0
    assert frames.evm_events(every, event="Transfer").attrs["skipped"] == len(approvals)
    assert list(approvals.columns[-3:]) == ["owner", "spender", "value"]

    # The same scan again into its dataset: nothing is sent, the same rows come back.
    again = (
        toolkit.Workload()
        .logs(eth, address=TOKEN, event="Transfer", from_block=start, to_block=end)
        .run(progress=False, dataset=tmp_path / "transfers")
    )
    assert again.attrs["summary"]["from_dataset"] == 11 and again["ru"].sum() == 0
    assert frames.evm_events(again).equals(transfers)


# --- refusals and splits -------------------------------------------------------------------------


def _with_range(body, start, end):
    """A real refusal body for the range asked: its suggested range (if any) rewritten to
    start at `start`, as the real ones do, and the envelope's id kept by the caller."""
    text = json.dumps(body)
    size = end - start + 1
    text = text.replace("[0x7aa8f1, 0x7d5efc]", f"[{hex(start)}, {hex(start + size // 3)}]")
    text = text.replace("25766988-25775072", f"{start}-{end}")  # reth's: the range asked
    return json.loads(text)


REFUSALS = {
    "alchemy": {
        "jsonrpc": "2.0",
        "id": 1,
        "error": real("evm_getlogs_response_size_alchemy_live.json"),
    },
    "reth": real("evm_getlogs_too_many_results_reth_live.json"),
    "infura": real("evm_getlogs_range_limit_infura_live.json"),
    "geth": real("evm_getlogs_more_than_10000_results_live.json"),
    "tenderly": real("evm_getlogs_range_limit_tenderly_live.json"),
}


def _logs_of_block(number: int) -> list[dict]:
    """The fake chain's truth: block n has n % 3 Transfer logs of the token."""
    return [
        {
            "address": TOKEN.lower(),
            "topics": [TRANSFER, "0x" + "00" * 12 + "11" * 20, "0x" + "00" * 12 + "22" * 20],
            "data": "0x" + (number * 10 + i).to_bytes(32, "big").hex(),
            "blockNumber": hex(number),
            "transactionHash": "0x" + number.to_bytes(32, "big").hex(),
            "logIndex": hex(i),
            "removed": False,
        }
        for i in range(number % 3)
    ]


class CappedLogNode:
    """A JSON-RPC node whose eth_getLogs refuses a range wider than `cap` blocks with a real
    provider's body (`refusal`), and answers eth_blockNumber with `head`. Batches too."""

    def __init__(self, head: int = 50_000):
        self.head, self.cap, self.refusal = head, 10_000, "alchemy"
        self.faults = False  # every third request fails its first try (HTTP 503 or 429)
        self.seen: set[bytes] = set()
        self.faulted = 0
        self.asked: list[tuple[int, int]] = []
        self.refused = 0
        node = self

        class Handler(BaseHTTPRequestHandler):
            disable_nagle_algorithm = True  # headers and body in two writes: no 40 ms wait

            def do_POST(self):
                raw = self.rfile.read(int(self.headers["content-length"]))
                if node.faults and raw not in node.seen and len(node.seen) % 3 == 0:
                    node.seen.add(raw)
                    node.faulted += 1
                    status = 503 if len(node.seen) % 2 else 429
                    self.send_response(status)
                    self.send_header("retry-after", "0")
                    self.send_header("content-length", "0")
                    self.end_headers()
                    return
                node.seen.add(raw)
                body = json.loads(raw)
                answer = (
                    [node.answer(c) for c in body] if isinstance(body, list) else node.answer(body)
                )
                data = json.dumps(answer).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = LoopbackHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/KEY0123456789abcdef"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def answer(self, call: dict) -> dict:
        if call["method"] == "eth_blockNumber":
            return {"jsonrpc": "2.0", "id": call["id"], "result": hex(self.head)}
        query = call["params"][0]
        start, end = int(query["fromBlock"], 16), int(query["toBlock"], 16)
        self.asked.append((start, end))
        if end - start + 1 > self.cap:
            self.refused += 1
            return {**_with_range(REFUSALS[self.refusal], start, end), "id": call["id"]}
        logs = [log for n in range(start, end + 1) for log in _logs_of_block(n)]
        return {"jsonrpc": "2.0", "id": call["id"], "result": logs}

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def capped():
    node = CappedLogNode()
    yield node
    node.close()


def _read(body):
    """What the client makes of an answer body (the one reading path for every answer)."""
    try:
        return interpret_rpc(body, body.get("id"), 200)
    except toolkit.GatewayError as error:
        return error


@pytest.mark.parametrize("refusal", list(REFUSALS))
def test_each_real_refusal_is_a_log_range_refusal_and_splits_without_a_gap(refusal):
    """Not a RateLimited (Alchemy's and Infura's texts say "limit" and "exceed"), retried on
    the same range for ever; an RPCError the scan splits."""
    error = _read(_with_range(REFUSALS[refusal], 1_000, 1_999))
    assert isinstance(error, toolkit.LogRangeRefused) and isinstance(error, toolkit.RPCError)
    assert not isinstance(error, toolkit.RateLimited)
    parts = split_range(1_000, 1_999, error)
    assert parts[0][0] == 1_000 and parts[-1][1] == 1_999 and parts[0][1] + 1 == parts[1][0]
    if refusal == "alchemy":  # its proposal is taken
        assert error.suggested == (1_000, 1_333) and parts[0] == (1_000, 1_333)
    if refusal == "reth":  # its proposal is the range asked: halves instead, never a loop
        assert error.suggested == (1_000, 1_999) and parts == [(1_000, 1_499), (1_500, 1_999)]


def test_the_published_refusals_as_they_are():
    body = {"jsonrpc": "2.0", "id": 1, "error": real("evm_getlogs_response_size_alchemy_live.json")}
    alchemy = _read(body)
    assert alchemy.suggested == (0x7AA8F1, 0x7D5EFC) and alchemy.code == -32602
    reth = _read(real("evm_getlogs_too_many_results_reth_live.json"))
    assert reth.suggested == (25_766_988, 25_775_072)
    for name in (
        "evm_getlogs_range_limit_infura_live.json",
        "evm_getlogs_more_than_10000_results_live.json",
        "evm_getlogs_range_limit_tenderly_live.json",
    ):
        error = _read(real(name))
        assert isinstance(error, toolkit.LogRangeRefused) and error.suggested is None, name


def test_infuras_documented_result_cap_under_the_rate_limit_code_is_a_refusal():
    """Infura documents "A maximum of 10,000 results can be returned by a single query (code
    -32005)" (its eth_getLogs page, quoted in INFURA/infura#237; aurora-relayer#327 answers the
    same), and -32005 is also its rate limit's code: the text decides, the range is split."""
    error = _error(-32005, "query returned more than 10000 results")
    assert isinstance(error, toolkit.LogRangeRefused) and not isinstance(error, toolkit.RateLimited)
    assert isinstance(_error(-32005, "RPS limit exceeded"), toolkit.RateLimited)


def _error(code, message):
    return _read({"jsonrpc": "2.0", "id": 1, "error": {"code": code, "message": message}})


def test_other_errors_are_not_refusals_of_the_range():
    for code, message in (
        (-32000, "header not found"),
        (-32005, "RPS limit exceeded"),
        (3, "execution reverted"),
        (-32005, "daily request count exceeded, request rate limited"),
    ):
        read = _error(code, message)
        assert not isinstance(read, toolkit.LogRangeRefused)
        assert split_range(1, 9, read) == []
    refusal = _error(-32000, "query returned more than 10000 results")
    assert split_range(7, 7, refusal) == []


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    start=st.integers(0, 40_000),
    width=st.integers(1, 2_000),
    cap=st.integers(20, 700),
    chunk=st.integers(1, 3_000),
    refusal=st.sampled_from(list(REFUSALS)),
    batch_size=st.sampled_from([1, 100]),
    faults=st.booleans(),
)
def test_refused_chunks_split_until_the_scan_covers_the_range_exactly(
    capped, start, width, cap, chunk, refusal, batch_size, faults
):
    """Random ranges, caps, chunk sizes, refusal texts and faults (a third of the requests fail
    their first try, retried): the answered chunks cover the range with no gap and no overlap,
    in order, and the logs equal the fake chain's truth (0 lost, 0 twice)."""
    capped.cap, capped.refusal, capped.faults = cap, refusal, faults
    capped.seen.clear()
    capped.faulted = 0
    end = start + width - 1
    with toolkit.node(capped.url, chain="ethereum", retry=RETRIES) as eth:
        work = toolkit.Workload().logs(
            eth,
            address=TOKEN,
            event="Transfer",
            from_block=start,
            to_block=end,
            blocks_per_call=chunk,
        )
        run = work.run(progress=False, batch_size=batch_size)
    assert run["error"].isna().all(), run["message"].dropna().head().tolist()
    answered = _ranges(work)  # the refused chunks replaced by their parts
    assert answered[0][0] == start and answered[-1][1] == end
    assert all(a[1] + 1 == b[0] for a, b in itertools.pairwise(answered))
    assert all(b - a + 1 <= cap for a, b in answered)
    truth = [log for n in range(start, end + 1) for log in _logs_of_block(n)]
    assert capped.faulted > 0 if faults else capped.faulted == 0
    events = frames.evm_events(run, event="Transfer")
    assert len(events) == len(truth)
    assert list(events["value"]) == [int(log["data"], 16) for log in truth]


def test_a_split_scan_resumes_from_its_dataset_without_sending_the_parts_again(capped, tmp_path):
    capped.cap, capped.refusal, capped.faults = 40, "alchemy", False
    with toolkit.node(capped.url, chain="ethereum", retry=ONE_TRY) as eth:
        first = toolkit.Workload().logs(eth, from_block=100, to_block=399, blocks_per_call=100)
        run = first.run(progress=False, dataset=tmp_path / "scan")
        assert run["error"].isna().all() and len(first) > 3
        capped.asked.clear()
        again = toolkit.Workload().logs(eth, from_block=100, to_block=399, blocks_per_call=100)
        rerun = again.run(progress=False, dataset=tmp_path / "scan")
    # Each refused chunk's row says how it was split: nothing is sent again, every row comes
    # from the dataset, refusals included.
    assert capped.asked == []
    assert rerun.attrs["summary"]["from_dataset"] == len(again) == len(first)
    assert rerun["ru"].sum() == 0
    assert frames.evm_events(rerun).equals(frames.evm_events(run))


def test_a_refused_one_block_chunk_stays_a_failed_row(capped):
    capped.cap, capped.refusal, capped.faults = 0, "infura", False
    with toolkit.node(capped.url, chain="ethereum", retry=ONE_TRY) as eth:
        work = toolkit.Workload().logs(eth, from_block=10, to_block=13, blocks_per_call=2)
        with pytest.warns(RuntimeWarning, match="4 of 4 calls failed"):
            run = work.run(progress=False)
    assert _ranges(work) == [(10, 10), (11, 11), (12, 12), (13, 13)]
    assert run["error"].eq("LogRangeRefused").all()


def test_events_take_their_blocks_times(gateway):
    eth = gateway.node("ethereum-mainnet")
    head = eth.head()
    logs = eth.get_logs({"fromBlock": hex(head - 20), "toBlock": hex(head), "address": TOKEN})
    numbers = sorted({int(log["blockNumber"], 16) for log in logs})
    blocks = frames.evm_blocks([eth.get_block(n) for n in numbers[1:]])  # the first one missing
    events = frames.evm_events(logs, event="Transfer", blocks=blocks)
    assert list(events.columns[:3]) == ["block_number", "time", "log_index"]
    times = dict(zip(blocks["number"], blocks["time"], strict=True))
    for number, time_ in zip(events["block_number"], events["time"], strict=True):
        assert (time_ == times[number]) if number in times else time_ is pd.NaT
    assert events["time"].dtype == blocks["time"].dtype
    with pytest.raises(frames.FrameError, match="blocks"):
        frames.evm_events(logs, blocks=[1, 2])


def test_the_bar_says_the_splits_and_is_not_red_when_every_part_was_answered(capped):
    import io

    from tqdm import tqdm

    capped.cap, capped.refusal, capped.faults = 40, "geth", False
    bar = tqdm(total=4, file=io.StringIO())
    with toolkit.node(capped.url, chain="ethereum", retry=ONE_TRY) as eth:
        work = toolkit.Workload().logs(eth, from_block=100, to_block=299, blocks_per_call=50)
        run = work.run(progress=bar)
    assert run["error"].isna().all() and len(run) == 8
    assert bar.postfix == "4 refused ranges split" and bar.colour is None
    assert bar.total == 12 and bar.n == 12  # 4 chunks refused, 8 parts answered
