"""The RU rules: archive threshold edges, tags, unknown heads, fixed prices, overrides, plans."""

import math

import pytest

from toolkit import DEFAULT_PRICING, Fixed, Plan, PricingTable, lookup

HEAD = 21_000_123
BALANCE_RULE = lookup("eth_getBalance").ru


@pytest.mark.parametrize(
    ("behind", "ru", "archive"),
    [(0, 1, False), (1, 1, False), (127, 1, False), (128, 2, True), (129, 2, True)],
)
def test_archive_threshold_edges(behind, ru, archive):
    estimate = DEFAULT_PRICING.estimate(BALANCE_RULE, hex(HEAD - behind), HEAD)
    assert (estimate.low, estimate.high, estimate.archive) == (ru, ru, archive)
    assert f"{behind:,} blocks behind head {HEAD:,}" in estimate.reason


def test_reason_reads_like_the_issue_example():
    estimate = DEFAULT_PRICING.estimate(BALANCE_RULE, "0x10", HEAD)
    assert str(estimate) == (
        "2 RU: block 16 is 21,000,107 blocks behind head 21,000,123 (archive at 128 or more)"
    )


def test_threshold_is_data_the_user_can_change():
    table = DEFAULT_PRICING.replace(archive_threshold=127)
    assert table.estimate(BALANCE_RULE, hex(HEAD - 127), HEAD).ru == 2
    assert DEFAULT_PRICING.estimate(BALANCE_RULE, hex(HEAD - 127), HEAD).ru == 1


@pytest.mark.parametrize("tag", ["latest", "safe", "finalized", "pending"])
def test_recent_tags_are_full(tag):
    estimate = DEFAULT_PRICING.estimate(BALANCE_RULE, tag, None)
    assert estimate.exact and estimate.ru == 1 and estimate.archive is False


def test_earliest_is_archive_even_without_a_head():
    estimate = DEFAULT_PRICING.estimate(BALANCE_RULE, "earliest", None)
    assert estimate.exact and estimate.ru == 2 and estimate.archive is True


def test_unknown_head_gives_a_range_and_says_so():
    estimate = DEFAULT_PRICING.estimate(BALANCE_RULE, "0x10", None)
    assert (estimate.low, estimate.high, estimate.archive) == (1, 2, None)
    assert not estimate.exact
    assert "head unknown" in estimate.reason
    assert estimate.ru == 2  # what a budget reserves: the high end


def test_block_ahead_of_head_is_full():
    estimate = DEFAULT_PRICING.estimate(BALANCE_RULE, hex(HEAD + 5), HEAD)
    assert estimate.ru == 1 and "ahead of" in estimate.reason


@pytest.mark.parametrize(
    ("method", "ru"),
    [
        ("eth_blockNumber", 1),
        ("web3_clientVersion", 1),
        ("debug_printBlock", 2),
        ("api/v2/getTokenData", 1),
        ("wallet/getblockbylatestnum", 1),
        ("web3_sha3", 1),
        ("v2/nodes/", 0),
    ],
)
def test_fixed_prices_from_the_catalog(method, ru):
    rule = DEFAULT_PRICING.rule_for(method, lookup(method).ru)
    assert DEFAULT_PRICING.estimate(rule, None, HEAD).ru == ru


def test_every_rule_has_a_source_note():
    rules = [m.ru for m in __import__("toolkit").METHODS] + list(DEFAULT_PRICING.patterns.values())
    assert all(rule.source for rule in rules)


@pytest.mark.parametrize(
    ("method", "ru"),
    [("debug_traceTransaction", 2), ("trace_block", 2), ("arbtrace_block", 2), ("eth_syncing", 1)],
)
def test_patterns_price_methods_outside_the_catalog(method, ru):
    rule = DEFAULT_PRICING.rule_for(method, None)
    assert DEFAULT_PRICING.estimate(rule, None, HEAD).ru == ru


def test_get_logs_is_billed_by_from_block_by_name_and_raw():
    from toolkit.catalog import CATALOG, block_argument

    method = CATALOG["eth_getLogs"]
    rule = DEFAULT_PRICING.rule_for("eth_getLogs", method.ru)
    bound = method.bind({"fromBlock": HEAD - 500, "toBlock": HEAD - 400})
    raw = [{"fromBlock": hex(HEAD - 500), "toBlock": hex(HEAD - 400)}]
    for params in (bound.wire_params, raw):
        block = block_argument(rule, params, method.param_names)
        assert DEFAULT_PRICING.estimate(rule, block, HEAD).ru == 2
    recent = [{"fromBlock": hex(HEAD - 5)}]
    assert DEFAULT_PRICING.estimate(rule, block_argument(rule, recent), HEAD).ru == 1


def test_user_override_wins_over_the_catalog():
    table = DEFAULT_PRICING.with_rule("eth_getBalance", Fixed(5, "my contract"))
    rule = table.rule_for("eth_getBalance", BALANCE_RULE)
    assert table.estimate(rule, "0x10", HEAD).ru == 5
    assert DEFAULT_PRICING.rule_for("eth_getBalance", BALANCE_RULE) is BALANCE_RULE


def test_plan_costs():
    plans = PricingTable().plans
    assert plans["Developer"].cost_usd(3_000_000) == 0
    assert plans["Developer"].cost_usd(4_000_000) == pytest.approx(20.0)
    assert plans["Growth"].cost_usd(21_000_000) == pytest.approx(49 + 15)
    assert plans["Business"].cost_usd(200_000_000) == pytest.approx(499)
    assert math.isinf(Plan("Capped", 0, 10, None, None).cost_usd(11))
