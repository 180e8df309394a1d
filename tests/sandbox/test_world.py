"""The world's clock and randomness, checked without HTTP."""

from __future__ import annotations

import itertools
import time
from datetime import UTC, datetime

import httpx
import pytest

from toolkit.sandbox import Sandbox, World
from toolkit.sandbox._clock import ANCHOR_UNIX_S, Clock, Timeline
from toolkit.sandbox._randomness import Seeded


class FakeTime:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_heads_advance_at_each_chain_block_time_times_pace():
    fake = FakeTime()
    world = World(0, head_pace=2.0, clock="wall", now=fake)
    start = {chain: world.head(chain) for chain in ("ethereum", "arbitrum", "tron", "ton")}
    fake.now += 30
    assert world.head("ethereum") - start["ethereum"] == 5  # 60 s of chain time / 12 s
    assert world.head("arbitrum") - start["arbitrum"] == 240  # / 0.25 s
    assert world.head("tron") - start["tron"] == 20  # TRON: a block every 3 s
    assert world.head("ton") - start["ton"] == 12


def test_pace_zero_freezes_and_negative_pace_is_refused():
    fake = FakeTime()
    world = World(0, head_pace=0, now=fake)
    head = world.head("polygon")
    fake.now += 10_000
    assert world.head("polygon") == head
    with pytest.raises(ValueError, match="pace"):
        Clock(-1)


def test_block_times_do_not_depend_on_wall_time():
    timeline = Timeline(100, 3, Clock(0))
    assert timeline.time_ms(100) == ANCHOR_UNIX_S * 1000
    assert timeline.time_ms(90) == ANCHOR_UNIX_S * 1000 - 30_000


def test_walk_is_consistent_and_wanders():
    seeded = Seeded(3)
    path = [seeded.walk(("k",), i, 1_000) for i in range(2_000)]
    assert path == [seeded.walk(("k",), i, 1_000) for i in range(2_000)]
    assert path[0] == 0
    steps = [abs(b - a) for a, b in itertools.pairwise(path)]
    assert 200 < sum(steps) / len(steps) < 2_000  # about one `step` per index
    assert Seeded(4).walk(("k",), 1_500, 1_000) != path[1_500]


def test_keys_are_long_and_seeded():
    one, again, other = World(5), World(5), World(6)
    assert one.api_key == again.api_key != other.api_key
    assert len(one.api_key) >= 32
    assert [n.key for n in one.nodes] == [n.key for n in again.nodes]
    assert all(len(n.key) >= 32 for n in one.nodes)
    assert len({n.key for n in one.nodes}) == len(one.nodes) == 14


def test_a_running_head_moves_over_http():
    with Sandbox(head_pace=4.0, clock="wall") as sandbox, httpx.Client() as http:
        url = sandbox.info["nodes"]["arbitrum-mainnet"]
        envelope = {"jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber", "params": []}
        first = int(http.post(url, json=envelope).json()["result"], 16)
        time.sleep(0.3)  # 1.2 s of chain time: about 4 Arbitrum blocks
        assert int(http.post(url, json=envelope).json()["result"], 16) >= first + 3


def test_with_the_requests_clock_each_node_request_is_a_second_of_sandbox_time():
    fake = FakeTime()
    world = World(0, now=fake)  # the default clock: requests
    start = {chain: world.head(chain) for chain in ("ethereum", "arbitrum", "tron")}
    fake.now += 3_600  # wall time alone moves nothing
    assert {chain: world.head(chain) for chain in start} == start
    for _ in range(24):
        world.clock.tick()
    assert world.head("ethereum") - start["ethereum"] == 2  # 24 s / 12 s
    assert world.head("arbitrum") - start["arbitrum"] == 96  # / 0.25 s
    assert world.head("tron") - start["tron"] == 8
    assert world.clock.utc() == datetime.fromtimestamp(ANCHOR_UNIX_S + 24, UTC)
    with pytest.raises(ValueError, match="clock"):
        Clock(1.0, kind="sundial")


def test_the_same_requests_see_the_same_heads_however_slowly_they_come():
    envelope = {"jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber", "params": []}

    def heads(pause_s: float) -> list[int]:
        with Sandbox(seed=1) as sandbox, httpx.Client() as http:
            url = sandbox.info["nodes"]["arbitrum-mainnet"]
            seen = []
            for _ in range(4):
                seen.append(int(http.post(url, json=envelope).json()["result"], 16))
                time.sleep(pause_s)
            return seen

    fast = heads(0)
    assert heads(0.3) == fast  # 1.2 s of wall time: 4 Arbitrum blocks under the wall clock
    assert [b - a for a, b in itertools.pairwise(fast)] == [4, 4, 4]  # a second per request
