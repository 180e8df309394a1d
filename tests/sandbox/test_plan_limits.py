"""A plan's limits in the sandbox (`toolkit.sandbox._limits`): the request rate per node, with
the real 429 shapes and unbilled, in process and over loopback; the eth_getLogs range in real
providers' words; and a client held to the ceiling drawing no 429."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import time

import httpx
import pytest

import toolkit
from toolkit.client._log_refusals import log_range_refusal
from toolkit.sandbox import DEMO, Sandbox

ETH, ARB = "ethereum-mainnet", "arbitrum-mainnet"
DEVELOPER = toolkit.DEFAULT_PRICING.replace(plan_name="Developer")
FAST_RETRY = toolkit.RetryPolicy(attempts=8, backoff_s=0.01, backoff_max_s=0.05)


class FakeClock:
    def __init__(self):
        self.now = 1_000.0

    def __call__(self):
        return self.now


def _envelope(id_=1, method="eth_blockNumber", params=()):
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": list(params)}


class Poster:
    """One request to a node of `sandbox`, in process (its core called directly) or over
    loopback HTTP: (status, headers, body text)."""

    def __init__(self, sandbox, way):
        self.sandbox, self.way = sandbox, way
        if way == "loopback":
            sandbox.start()
            self.http = httpx.Client(timeout=10)
        else:
            sandbox.in_process()

    def __call__(self, node, body):
        url = (self.sandbox.info if self.way == "loopback" else self.sandbox.in_process_info)[
            "nodes"
        ][node]
        raw = json.dumps(body).encode()
        if self.way == "loopback":
            answer = self.http.post(url, content=raw)
            return answer.status_code, answer.headers, answer.text
        reply = self.sandbox.gateway.handle_url("POST", url, {}, raw).reply()
        headers = {name.lower(): value for name, value in reply.headers.items()}
        return reply.status, headers, reply.content().decode()

    def close(self):
        if self.way == "loopback":
            self.http.close()
        self.sandbox.stop()


@pytest.fixture(params=["in-process", "loopback"])
def limited(request):
    """A sandbox whose nodes are on the Developer plan, arbitrum at 50 calls a second, each
    ceiling on a fake clock; and a poster to it, in process or over loopback."""
    made = []

    def make(**options):
        sandbox = Sandbox(plan="Developer", rate_limits={ARB: 50}, head_pace=0, **options)
        clock = FakeClock()
        for ceiling in sandbox.limits.ceilings.values():
            ceiling.now = clock
        post = Poster(sandbox, request.param)
        made.append(post)
        return sandbox, clock, post

    yield make
    for post in made:
        post.close()


@pytest.mark.parametrize("shape", ["rate-limit", "rate-limit-html", "rate-limit-rpc"])
def test_a_node_over_its_ceiling_refuses_in_each_shape_and_bills_nothing(limited, shape):
    sandbox, clock, post = limited(rate_limit_reply=shape)
    answers = [post(ETH, _envelope(i)) for i in range(26)]
    assert [status for status, _, _ in answers[:25]] == [200] * 25  # a second's allowance
    status, headers, text = answers[25]
    if shape == "rate-limit":
        assert status == 429 and headers["retry-after"] == "1"
        assert json.loads(text)["error"]["code"] == "rate_limited"
    elif shape == "rate-limit-html":
        assert status == 429 and "retry-after" not in headers
        assert "<center><h1>429 Too Many Requests</h1></center>" in text and "nginx" in text
    else:
        assert status == 200
        error = json.loads(text)["error"]
        assert (error["code"], error["message"]) == (-32005, "RPS limit exceeded")
        assert error["data"] == {"try_again_in": "40ms"}  # one call's time at 25 a second
    used = sandbox.metering()[ETH]
    assert (used["requests"], used["calls"]) == (25, 25)  # the refusal is not billed
    assert sandbox.limits.refused[ETH] == 1
    clock.now += 0.04  # one call's time later, one more call is admitted, and only one
    post(ETH, _envelope(1))
    post(ETH, _envelope(2))
    assert sandbox.metering()[ETH]["requests"] == 26
    assert sandbox.limits.refused[ETH] == 2


def test_a_batch_of_n_counts_n_calls_and_a_refused_batch_answers_every_envelope(limited):
    sandbox, clock, post = limited(rate_limit_reply="rate-limit-rpc")
    assert post(ETH, [_envelope(i) for i in range(20)])[0] == 200
    assert post(ETH, [_envelope(i) for i in range(5)])[0] == 200  # 25 calls in all
    status, _, text = post(ETH, [_envelope(i) for i in range(3)])
    assert status == 200
    assert [e["error"]["code"] for e in json.loads(text)] == [-32005] * 3
    assert sandbox.metering()[ETH]["calls"] == 25
    # A batch larger than a second's allowance is admitted from a whole allowance, and the
    # calls after it wait for it: 100 calls at 25 a second hold the node for 4 seconds.
    clock.now += 1
    assert all("result" in e for e in json.loads(post(ETH, [_envelope(i) for i in range(100)])[2]))
    clock.now += 2.9
    assert json.loads(post(ETH, _envelope())[2])["error"]["code"] == -32005
    clock.now += 0.2
    assert "result" in json.loads(post(ETH, _envelope())[2])
    assert sandbox.metering()[ETH]["calls"] == 126


def test_however_calls_are_batched_a_node_answers_its_rate_over_time():
    """A greedy client sending batches of 100 to a node at 25 calls a second, 50 simulated
    seconds: what is admitted is the rate, give or take one allowance and one batch."""
    sandbox = Sandbox(plan="Developer").in_process()
    clock = FakeClock()
    ceiling = sandbox.limits.ceilings[ETH]
    ceiling.now = clock
    admitted = 0
    for _ in range(5_000):  # every 10 ms
        if not ceiling.admit(100):
            admitted += 100
        clock.now += 0.01
    assert 25 * 50 - 100 <= admitted <= 25 * 50 + 25 + 100


def test_two_nodes_keep_their_own_ceilings_and_unlimited_parts_stay_unlimited(limited):
    sandbox, clock, post = limited()
    assert sandbox.ceilings[ETH] == 25 and sandbox.ceilings[ARB] == 50
    assert [post(ARB, _envelope(i))[0] for i in range(51)].count(429) == 1
    assert post(ETH, _envelope())[0] == 200  # arbitrum's calls are not ethereum's
    said = sandbox.limits.to_json()  # what GET /_sandbox/limits answers
    assert said["nodes"][ARB] == {
        "requests_per_second": 50,
        "max_log_blocks": 100,
        "refused": 1,
        "whole_in_s": pytest.approx(1.0),
    }
    clock.now += 5
    assert sandbox.limits.to_json()["nodes"][ARB]["whole_in_s"] == 0
    open_sandbox = Sandbox(plan="Developer", rate_limits={ETH: None}).in_process()
    assert ETH not in open_sandbox.ceilings and open_sandbox.ceilings[ARB] == 25
    assert Sandbox().ceilings == {}  # off by default


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"plan": "Platinum"}, "plan: unknown plan 'Platinum'"),
        ({"rate_limits": {"nowhere-mainnet": 5}}, "rate_limits: unknown node 'nowhere-mainnet'"),
        ({"rate_limits": {ETH: 0}}, "rate_limits['ethereum-mainnet']: must be a positive"),
        ({"rate_limit_reply": "teapot"}, "rate_limit_reply must be one of rate-limit, "),
        ({"log_range_error": "geth"}, "log_range_error must be one of infura, alchemy"),
    ],
)
def test_bad_limits_are_refused_naming_the_option(options, words):
    with pytest.raises(ValueError, match=words.replace("[", r"\[").replace("(", r"\(")):
        Sandbox(**options)


# --- eth_getLogs ranges ----------------------------------------------------------------------

REFUSALS = {
    "infura": (-32602, "range 101 exceeds limit of 100", None),
    "alchemy": (
        -32602,
        "Log response size exceeded. You can make eth_getLogs requests with up to a 100 block "
        "range and no limit on the response size, or you can request any block range with a "
        "cap of 10K logs in the response. Based on your parameters and the response size "
        "limit, this block range should work: [0x3e8, 0x44b]",
        (1000, 1099),
    ),
    "tenderly": (-32602, "invalid params", None),
    "reth": (-32602, "query exceeds max block range 100", None),
}


@pytest.mark.parametrize("provider", list(REFUSALS))
def test_an_oversized_log_range_is_refused_in_the_chosen_providers_words(limited, provider):
    _, _, post = limited(log_range_error=provider)
    query = {"address": DEMO.evm.token, "fromBlock": hex(1000)}
    status, _, text = post(ETH, _envelope(1, "eth_getLogs", [{**query, "toBlock": hex(1100)}]))
    error = json.loads(text)["error"]
    code, message, proposed = REFUSALS[provider]
    assert status == 200 and (error["code"], error["message"]) == (code, message)
    if provider == "tenderly":
        assert error["data"] == {"payload": "range 101 is bigger than range limit 100"}
    # The client's reading of real refusals recognises each, and the range one proposes.
    assert log_range_refusal(error["message"], error.get("data")) == (True, proposed)
    fits = post(ETH, _envelope(2, "eth_getLogs", [{**query, "toBlock": hex(1099)}]))
    assert "result" in json.loads(fits[2])
    assert post(ARB, _envelope(3, "eth_getLogs", [{**query, "toBlock": hex(1100)}]))[0] == 200


def test_a_scan_splits_on_the_sandboxs_real_refusal_over_the_wire():
    """A client that does not know the plan plans 250-block chunks; the sandbox on the Developer
    plan refuses each in Alchemy's words, naming a 100-block range; the scan takes it, splits,
    and gets every Transfer the sandbox holds, with no gap and no overlap."""
    with Sandbox(plan="Developer", log_range_error="alchemy", head_pace=0) as sandbox:
        info = sandbox.info
        gateway = toolkit.Gateway(
            info["platform_url"], info["api_key"], nodes=info["nodes"], cache=False
        )
        eth = gateway.node(ETH)
        head = eth.head()
        start, end = head - 599, head
        work = toolkit.Workload().logs(
            eth, address=DEMO.evm.token, from_block=start, to_block=end, blocks_per_call=250
        )
        run = work.run(progress=False, batch_size=1)
        assert run["error"].isna().all()
        answered = [
            (
                int(c.call.bound.wire_params[0]["fromBlock"], 16),
                int(c.call.bound.wire_params[0]["toBlock"], 16),
            )
            for c in work
        ]
        assert answered[0][0] == start and answered[-1][1] == end
        assert all(a[1] + 1 == b[0] for a, b in itertools.pairwise(answered))
        assert all(b - a + 1 <= 100 for a, b in answered)
        truth = []
        for first in range(start, end + 1, 100):
            truth += eth.get_logs(
                {"fromBlock": hex(first), "toBlock": hex(first + 99), "address": DEMO.evm.token}
            )
        got = [log for logs in run["result"] for log in logs]
        assert [(g["blockNumber"], g["logIndex"]) for g in got] == [
            (t["blockNumber"], t["logIndex"]) for t in truth
        ]
        assert len(truth) > 100
        gateway.close()


# --- a client held to the ceiling ------------------------------------------------------------


def _workload(gateway, seconds_of):
    """`seconds_of[node]` seconds of each node's ceiling of eth_getBalance calls, one workload."""
    work = toolkit.Workload()
    for name, seconds in seconds_of.items():
        calls = round(seconds * gateway.node(name).rate_limiter.rate) if seconds else 80
        work.each(
            gateway.node(name), "eth_getBalance", [DEMO.evm.accounts["alice"]] * calls,
            param="address",
        )  # fmt: skip
    return work


@pytest.mark.parametrize("way", ["in-process", "loopback"])
def test_a_workload_over_two_nodes_held_to_their_ceilings_draws_no_429(way):
    """On the wall clock: ethereum at 20 calls a second, arbitrum at 60; one workload over both,
    under one budget of what it previews, from a gateway that knows the ceilings (the sandbox
    it was handed says them): no refusal, every call answered, the ledger the sandbox's meter,
    and the run held to the ceilings, not past them."""
    sandbox = Sandbox(plan="Developer", rate_limits={ETH: 20, ARB: 60}, head_pace=0)
    sandbox.start() if way == "loopback" else sandbox.in_process()
    info = sandbox.info if way == "loopback" else sandbox.in_process_info
    held = toolkit.Gateway(
        info["platform_url"], info["api_key"], nodes=info["nodes"], sandbox=sandbox, cache=False
    )
    assert (held.node(ETH).rate_limiter.rate, held.node(ARB).rate_limiter.rate) == (20, 60)
    work = _workload(held, {ETH: 1.5, ARB: 1.5})
    held.set_budget(work.preview(fetch_heads=False).ru_high)
    started = time.perf_counter()
    run = work.run(progress=False, batch_size=1, concurrency=8)
    seconds = time.perf_counter() - started
    assert run["error"].isna().all()
    assert sandbox.limits.refused == {name: 0 for name in sandbox.ceilings}
    assert seconds >= 1.4  # held to the ceilings, not past them
    metered = sandbox.metering()
    assert held.ledger.total_ru == metered[ETH]["ru"] + metered[ARB]["ru"] <= held.budget.limit
    held.close()
    sandbox.stop()


def test_a_client_with_no_limit_is_refused_retried_and_answered():
    """The baseline: the same node sent to as fast as the client can is refused (429, its
    Retry-After waited) and every call is still answered. Twice the second's allowance
    in flight at once: the first wave alone is refused in part, however slow the client (at 40
    a second and 16 in flight, a client starved of CPU once sent its 80 calls too slowly to be
    refused)."""
    with Sandbox(plan="Developer", rate_limits={ETH: 6}, head_pace=0) as sandbox:
        info = sandbox.info
        naive = toolkit.Gateway(
            info["platform_url"], info["api_key"], nodes=info["nodes"], rate_limit=None,
            retry=FAST_RETRY, cache=False,
        )  # fmt: skip
        work = toolkit.Workload().each(
            naive.node(ETH), "eth_getBalance", [DEMO.evm.accounts["alice"]] * 12, param="address"
        )
        run = work.run(progress=False, batch_size=1, concurrency=12)
        assert run["error"].isna().all()  # every refusal retried until admitted
        assert sandbox.limits.refused[ETH] > 0
        assert sandbox.metering()[ETH]["calls"] == 12  # the refusals not billed
        naive.close()


def test_the_command_line_enforces_the_plan_it_is_given():
    command = [
        sys.executable,
        "-m",
        "toolkit",
        "sandbox",
        "--plan",
        "Developer",
        "--rate-limit",
        f"{ARB}=2",
        "--rate-limit-reply",
        "rate-limit-html",
    ]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as server:
        try:
            info = json.loads(server.stdout.readline())
            assert set(info) == {"platform_url", "api_key", "nodes"}  # the contract, unchanged
            with httpx.Client(timeout=10) as http:
                statuses = [
                    http.post(info["nodes"][ARB], json=_envelope()).status_code for _ in range(3)
                ]
            assert statuses == [200, 200, 429]
        finally:
            server.terminate()
    bad = subprocess.run(
        [*command[:4], "--rate-limit", "arbitrum-mainnet=fast"], capture_output=True, text=True
    )
    assert bad.returncode == 2 and "NODE=CALLS_PER_S" in bad.stderr


def test_the_limits_control_needs_the_api_key_and_is_never_limited():
    with Sandbox(plan="Developer", rate_limits={ETH: 1}) as sandbox, httpx.Client() as http:
        url = sandbox.platform_url + "/_sandbox/limits"
        assert http.get(url).status_code == 401
        auth = {"Authorization": f"Bearer {sandbox.world.api_key}"}
        answers = [http.get(url, headers=auth) for _ in range(3)]
        assert [a.status_code for a in answers] == [200] * 3
        body = answers[0].json()
        assert (body["plan"], body["rate_limit_reply"], body["log_range_error"]) == (
            "Developer",
            "rate-limit",
            "infura",
        )
        assert body["nodes"][ETH]["requests_per_second"] == 1
        assert sandbox.world.api_key not in answers[0].text
