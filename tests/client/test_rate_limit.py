"""The token bucket on a fake clock, the rate a plan sets for each node, and a bulk run held to
the embedded sandbox's ceilings."""

from __future__ import annotations

import asyncio
import time

import pytest

import toolkit
from toolkit.client._ratelimit import RateLimiter
from toolkit.sandbox import DEMO


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


ALICE = DEMO.evm.accounts["alice"]
URLS = {"a": "http://127.0.0.1:9/" + "a" * 32, "b": "http://127.0.0.1:9/" + "b" * 32}
ON_DEVELOPER = toolkit.DEFAULT_PRICING.replace(plan_name="Developer")


def _gateway(**options):
    return toolkit.Gateway("http://127.0.0.1:9", "k" * 32, nodes=URLS, cache=False, **options)


def test_a_plan_name_holds_each_node_to_its_published_rate():
    gateway = _gateway(rate_limit="Developer")
    a, b = gateway.node("a", chain="ethereum"), gateway.node("b", chain="ethereum")
    assert a.rate_limiter.rate == b.rate_limiter.rate == 25
    assert a.rate_limiter is not b.rate_limiter  # a plan's rate is each node's ceiling
    assert gateway.rate_limit is None  # no limiter shared by all nodes
    with pytest.raises(toolkit.ValidationError, match="unknown plan"):
        gateway.set_rate_limit("Platinum")
    with pytest.raises(toolkit.ValidationError, match="unknown plan") as refused:
        _gateway(rate_limit="Platinum")
    assert refused.value.param == "rate_limit"


def test_the_plan_the_pricing_table_names_sets_the_rate_by_default():
    assert toolkit.Settings().rate_limit == "auto"
    assert _gateway().node("a", chain="ethereum").rate_limiter is None  # no plan named: none
    gateway = _gateway(pricing=ON_DEVELOPER)
    assert gateway.node("a", chain="ethereum").rate_limiter.rate == 25
    gateway.pricing = toolkit.DEFAULT_PRICING  # read per call: the plan is gone, so is its rate
    assert gateway.node("a", chain="ethereum").rate_limiter is None


def test_a_number_or_none_said_outright_wins_over_the_plan():
    shared = _gateway(pricing=ON_DEVELOPER, rate_limit=40)
    a, b = shared.node("a", chain="ethereum"), shared.node("b", chain="ethereum")
    assert a.rate_limiter is b.rate_limiter is shared.rate_limit  # all nodes together
    assert shared.rate_limit.rate == 40
    assert (
        _gateway(pricing=ON_DEVELOPER, rate_limit=None).node("a", chain="ethereum").rate_limiter
        is None
    )


def test_the_embedded_sandboxs_ceilings_set_each_nodes_rate(sandbox_on_a_plan):
    info = sandbox_on_a_plan.info
    gateway = toolkit.Gateway(
        info["platform_url"], info["api_key"], nodes=info["nodes"], sandbox=sandbox_on_a_plan
    )
    rates = {
        name: gateway.node(name).rate_limiter.rate
        for name in ("ethereum-mainnet", "arbitrum-mainnet")
    }
    assert rates == {"ethereum-mainnet": 25, "arbitrum-mainnet": 250}
    gateway.close()


@pytest.fixture
def sandbox_on_a_plan():
    from toolkit.sandbox import Sandbox

    return Sandbox(plan="Developer", rate_limits={"arbitrum-mainnet": 250}).in_process()


def test_a_mapping_gives_named_nodes_their_own_rate_and_the_rest_the_plans():
    gateway = _gateway(pricing=ON_DEVELOPER, rate_limit={"b": 250})
    a, b = gateway.node("a", chain="ethereum"), gateway.node("b", chain="ethereum")
    assert (a.rate_limiter.rate, b.rate_limiter.rate) == (25, 250)
    gateway.set_rate_limit({"a": None, "b": "Developer"})
    assert a.rate_limiter is None and b.rate_limiter.rate == 25


@pytest.mark.parametrize(
    "setting", [{"a": 0}, {"a": "Platinum"}, {"a": toolkit.RateLimiter(5)}, {1: 5}, {"a": {}}]
)
def test_a_bad_mapping_is_refused_naming_the_setting(setting):
    with pytest.raises(toolkit.ValidationError) as refused:
        _gateway(rate_limit=setting)
    assert refused.value.param == "rate_limit"


def test_a_turn_given_back_is_the_next_callers():
    clock = FakeClock()
    limiter = RateLimiter(10, clock=clock)
    turns = [limiter.take(5) for _ in range(3)]
    assert [round(turn.wait, 3) for turn in turns] == [0.4, 0.9, 1.4]
    limiter.release(turns[-1])  # the last five were never sent
    assert round(limiter.reserve(), 3) == 1.0
    clock.now += 10
    limiter.release(turns[0])  # long over: an idle bucket stays as full as its burst
    assert limiter.reserve() == 0.0


def test_a_turn_given_back_before_a_later_one_frees_nothing_until_that_one_is_given_back():
    """Two calls waiting, the first stopped: the second keeps the time it was told, so a third
    given the first's turn would be sent at once with it, over the rate. The turn comes back
    once every turn booked after it is given back too, in any order."""
    clock = FakeClock()
    limiter = RateLimiter(10, clock=clock)
    assert limiter.reserve() == 0.0
    first, second = limiter.take(), limiter.take()
    assert (round(first.wait, 3), round(second.wait, 3)) == (0.1, 0.2)
    limiter.release(first)
    third = limiter.take()
    assert round(third.wait, 3) == 0.3  # after the second, which still goes at 0.2
    limiter.release(third)
    limiter.release(second)  # now every turn after the first is back: all three come off
    assert round(limiter.reserve(), 3) == 0.1


def test_a_call_waiting_its_turn_past_its_timeout_is_still_sent(sandbox_on_a_plan):
    """A bulk run books turns far ahead: 60 calls at 25 a second take 2.4 s, over the calls'
    timeout of 1 s. A call's time starts when its turn comes: every call is answered, none
    refused by the sandbox."""
    info = sandbox_on_a_plan.in_process_info
    gateway = toolkit.Gateway(
        info["platform_url"], info["api_key"], nodes=info["nodes"], sandbox=sandbox_on_a_plan,
        cache=False, timeout=1,
    )  # fmt: skip
    eth = gateway.node("ethereum-mainnet")
    work = toolkit.Workload().each(eth, "eth_getBalance", [ALICE] * 60, param="address")
    run = work.run(progress=False, batch_size=10, concurrency=8)
    assert run["error"].isna().all(), run["error"].value_counts().to_dict()
    assert sandbox_on_a_plan.limits.refused["ethereum-mainnet"] == 0
    gateway.close()


def test_a_run_stopped_while_waiting_gives_its_turns_back(sandbox_on_a_plan):
    info = sandbox_on_a_plan.in_process_info
    gateway = toolkit.Gateway(
        info["platform_url"], info["api_key"], nodes=info["nodes"], sandbox=sandbox_on_a_plan,
        cache=False,
    )  # fmt: skip
    eth = gateway.node("ethereum-mainnet")
    work = toolkit.Workload().each(eth, "eth_getBalance", [ALICE] * 400, param="address")

    async def stopped_early():
        run = asyncio.ensure_future(work.arun(progress=False, batch_size=50, concurrency=8))
        await asyncio.sleep(0.3)  # 8 batches booked: 16 s of turns
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run

    asyncio.run(stopped_early())
    started = time.monotonic()
    eth.get_balance(ALICE)  # not 16 s behind the turns nobody takes
    assert time.monotonic() - started < 1.5
    gateway.close()


def test_a_sandbox_that_enforces_no_ceiling_and_a_replayed_tape_are_not_held(tmp_path):
    """What the gateway says wins over the plan named: the embedded sandbox with no limits
    has no ceiling to keep; and a replayed tape sends nothing, so nothing is held."""
    on_sandbox = toolkit.connect(pricing=ON_DEVELOPER, cache=False)
    assert on_sandbox.node("ethereum-mainnet").rate_limiter is None
    tape = tmp_path / "calls.tape"
    with toolkit.connect(tape=tape, tape_mode="record", cache=False) as recording:
        recording.node("ethereum-mainnet").get_balance(ALICE)
    with toolkit.connect(tape=tape, tape_mode="replay", pricing=ON_DEVELOPER) as replaying:
        eth = replaying.node("ethereum-mainnet")
        assert eth.rate_limiter is None
        eth.get_balance(ALICE)
    assert _gateway(pricing=ON_DEVELOPER).node("a", chain="ethereum").rate_limiter.rate == 25


def test_each_dask_worker_holds_its_share_of_each_nodes_own_ceiling():
    """A run on a cluster splits the limits among the workers. Nodes with ceilings of their own
    keep them apart: the slow node's workers were given the first node's share, which sent a
    slow node a fast one's rate when the fast one came first."""
    from toolkit.workloads._distributed import worker_rate_limit

    apart = _gateway(pricing=ON_DEVELOPER, rate_limit={"b": 250})
    fast_first = [apart.node("b", chain="ethereum"), apart.node("a", chain="ethereum")]
    share = worker_rate_limit(fast_first, 2)
    assert share == {"b": 125.0, "a": 12.5}
    on_a_worker = _gateway(rate_limit=share)
    assert on_a_worker.node("a", chain="ethereum").rate_limiter.rate == 12.5
    assert on_a_worker.node("b", chain="ethereum").rate_limiter.rate == 125.0

    together = _gateway(rate_limit=100)  # one limiter for the handle's nodes: a number still
    assert worker_rate_limit([together.node(n, chain="ethereum") for n in "ab"], 4) == 25.0
    assert worker_rate_limit([_gateway(rate_limit=None).node("a", chain="ethereum")], 2) is None
