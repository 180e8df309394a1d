"""The token bucket on a fake clock, and the rate a plan name sets."""

from __future__ import annotations

import pytest

import toolkit
from toolkit.client._ratelimit import RateLimiter


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
