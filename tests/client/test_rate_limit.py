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


def test_a_plan_name_sets_its_published_rate():
    gateway = toolkit.Gateway("http://127.0.0.1:9", "k" * 32, rate_limit="Developer", cache=False)
    assert gateway.rate_limit.rate == 25
    with pytest.raises(toolkit.ValidationError, match="unknown plan"):
        gateway.set_rate_limit("Platinum")
