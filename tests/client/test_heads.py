"""How old a chain head is: by the wall against a real gateway, by requests sent against the
embedded sandbox and on a replayed tape, so that the same calls fetch heads at the same points
however fast or slow they run (a notebook then shows the same twice)."""

import types

import toolkit
from toolkit.client import _ledger
from toolkit.sandbox import Sandbox

from ..conftest import FAST_RETRY

ADDRESS = "0x" + "ab" * 20


class RacingWall:
    """A wall clock on which every reading is a minute after the last."""

    def __init__(self):
        self.now = 0.0

    def monotonic(self) -> float:
        self.now += 60.0
        return self.now


def sandbox_gateway(sandbox: Sandbox, **options) -> toolkit.Gateway:
    info = sandbox.info
    return toolkit.Gateway(
        info["platform_url"],
        info["api_key"],
        nodes=info["nodes"],
        sandbox=sandbox,
        retry=FAST_RETRY,
        head_ttl_s=10,
        **options,
    )


def head_positions(gateway: toolkit.Gateway) -> list[int]:
    methods = gateway.ledger.frame["method"].tolist()
    return [i for i, method in enumerate(methods) if method == "eth_blockNumber"]


def heads_fetched(calls: int, **options) -> list[int]:
    """Ask `calls` archive balances one call at a time on a fresh sandbox; the position (in
    requests sent) of each head fetch in the ledger."""
    with Sandbox(seed=0) as sandbox:
        gateway = sandbox_gateway(sandbox, **options)
        eth = gateway.node("ethereum-mainnet")
        head = eth.head()
        for i in range(calls):
            eth.get_balance(ADDRESS, head - 1_000 - i)
        gateway.close()
        replayed = gateway.tape is not None and gateway.tape.replaying
        assert gateway.ledger.total_ru == 0 if replayed else gateway.ledger.total_ru > 0
        return head_positions(gateway)


def test_against_the_sandbox_a_head_ages_by_requests_sent_not_by_the_wall(monkeypatch):
    calm = heads_fetched(35)
    monkeypatch.setattr(_ledger, "time", types.SimpleNamespace(monotonic=RacingWall().monotonic))
    racing = heads_fetched(35)
    assert racing == calm
    # A second of sandbox time per request, a head kept 10 s: one fetch every 10 requests.
    assert calm == [0, 10, 20, 30]


def test_a_bulk_run_against_the_sandbox_keeps_the_heads_it_started_with():
    """However its concurrent requests interleave, a run fetches the same heads: those it needs
    before sending (none, here: the head is fresh), and none in its middle."""
    seen = []
    for concurrency in (1, 8, 32):
        with Sandbox(seed=0) as sandbox:
            gateway = sandbox_gateway(sandbox)
            eth = gateway.node("ethereum-mainnet")
            head = eth.head()
            blocks = [head - 1_000 - i for i in range(120)]
            work = toolkit.Workload().grid(eth, "eth_getBalance", [ADDRESS], blocks)
            frame = work.run(progress=False, batch_size=1, concurrency=concurrency)
            assert frame["error"].isna().all()
            seen.append((head_positions(gateway), int(frame["ru"].sum())))
            gateway.close()
    assert seen == [([0], 240)] * 3


def test_a_real_gateway_ages_its_heads_by_the_wall(monkeypatch, sandbox):
    monkeypatch.setattr(_ledger, "time", types.SimpleNamespace(monotonic=RacingWall().monotonic))
    # A node by its URL alone is a node like any other gateway's: its meter reads the wall.
    url = sandbox.info["nodes"]["ethereum-mainnet"]
    eth = toolkit.node(url, chain="ethereum", head_ttl_s=10, retry=FAST_RETRY)
    eth.head()
    eth.get_balance(ADDRESS, eth.last_head - 1_000)  # a minute later: the head is fetched again
    methods = eth.ledger.frame["method"].tolist()
    assert methods == ["eth_blockNumber", "eth_blockNumber", "eth_getBalance"]


def test_a_replay_fetches_heads_where_its_recording_did(tmp_path, monkeypatch):
    tape = tmp_path / "heads.tape.gz"
    recorded = heads_fetched(25, tape=tape, tape_mode="record")
    monkeypatch.setattr(_ledger, "time", types.SimpleNamespace(monotonic=RacingWall().monotonic))
    assert heads_fetched(25, tape=tape, tape_mode="replay") == recorded == [0, 10, 20]
