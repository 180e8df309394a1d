"""The token bucket on a fake clock, and bulk runs on a real node (Anvil) that takes batches."""

from __future__ import annotations

import pytest

import toolkit
from toolkit.client._ratelimit import RateLimiter
from toolkit.workloads._workload import Workload


class FakeClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_the_bucket_spaces_calls_and_allows_its_burst():
    clock = FakeClock()
    even = RateLimiter(10, clock=clock)
    assert [round(even.reserve(), 3) for _ in range(4)] == [0.0, 0.1, 0.2, 0.3]
    bursty = RateLimiter(10, burst=3, clock=clock)
    assert [round(bursty.reserve(), 3) for _ in range(5)] == [0.0, 0.0, 0.0, 0.1, 0.2]
    clock.now += 10  # idle time refills the bucket, up to the burst only
    assert [round(bursty.reserve(), 3) for _ in range(4)] == [0.0, 0.0, 0.0, 0.1]
    assert round(RateLimiter(10, clock=clock).reserve(calls=5), 3) == 0.4  # a batch of 5


def test_a_plan_name_sets_its_published_rate():
    gateway = toolkit.Gateway("http://127.0.0.1:9", "k" * 32, rate_limit="Developer", cache=False)
    assert gateway.rate_limit.rate == 25
    with pytest.raises(toolkit.ValidationError, match="unknown plan"):
        gateway.set_rate_limit("Platinum")


@pytest.mark.anvil
def test_bulk_balances_on_anvil_go_in_batches_and_are_cached(anvil, tmp_path):
    anvil.rpc("anvil_mine", hex(150))
    head = int(anvil.rpc("eth_blockNumber"), 16)
    sender = anvil.rpc("eth_accounts")[0]
    addresses = [sender, *(f"0x{index:040x}" for index in range(1, 20))]
    blocks = range(head - 140, head - 40, 10)  # 10 blocks, the first ones final
    with toolkit.node(
        anvil.url, chain="ethereum", name="anvil", cache=tmp_path / "c.sqlite"
    ) as eth:
        work = Workload().grid(eth, "eth_getBalance", addresses, blocks)
        frame = work.run(progress=False, batch_size=50)
        assert frame["error"].isna().all() and len(frame) == 200
        assert eth.accepts_batches is True
        assert sum(e.note == "in a JSON-RPC batch of 50" for e in eth.ledger.entries) == 200
        assert frame["value"][0] == eth.get_balance(sender, block=blocks[0]) > 0
        final = [b for b in blocks if head - b > toolkit.CHAINS["ethereum"].finality_depth]
        again = work.run(progress=False, batch_size=50)
        assert again["cache_hit"].sum() == len(final) * len(addresses)
        assert again["value"].tolist() == frame["value"].tolist()
