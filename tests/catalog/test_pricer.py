"""The one pricing path (`toolkit.catalog.Pricer`) and the bills for methods outside the
spec (issue 29): each row priced by the gateway's published rule, an unknown method at the
highest price, what an error status costs, plan caps and block hashes (EIP-1898)."""

from types import SimpleNamespace

import pytest

import toolkit
from toolkit.catalog import (
    CATALOG,
    DEFAULT_PRICING,
    PUBLIC,
    ByInnerMethod,
    Fate,
    Fixed,
    Pricer,
    PricingTable,
    fate_of_status,
    is_block_hash,
)

HEAD = 21_000_123
OLD = hex(HEAD - 1_000)
RECENT = hex(HEAD - 5)
HASH = "0x" + "ab" * 32
ALICE = "0x" + "11" * 20


def pricer(table: PricingTable = DEFAULT_PRICING) -> Pricer:
    return Pricer(SimpleNamespace(pricing=table))


def raw_price(method: str, params, head: int | None = HEAD, table=DEFAULT_PRICING, inner=None):
    known = CATALOG.get(method)
    rule, names = (known.ru, known.param_names) if known else (None, ())
    return pricer(table).price(method, rule, params, names, head=head, inner=inner)


@pytest.mark.parametrize(
    ("method", "old", "recent"),
    [
        ("eth_getBlockReceipts", [OLD], [RECENT]),
        ("eth_feeHistory", ["0x4", OLD, []], ["0x4", RECENT, []]),
        ("eth_createAccessList", [{"to": ALICE}, OLD], [{"to": ALICE}, RECENT]),
        ("eth_simulateV1", [{"blockStateCalls": []}, OLD], [{"blockStateCalls": []}, RECENT]),
        ("eth_getLogs", [{"toBlock": OLD}], [{"toBlock": RECENT}]),
        ("eth_getLogs", [{"fromBlock": OLD, "toBlock": RECENT}], [{"fromBlock": RECENT}]),
    ],
)
def test_methods_billed_as_archive_at_old_blocks(method, old, recent):
    archive, full = raw_price(method, old), raw_price(method, recent)
    assert (archive.ru, archive.archive) == (2, True)
    assert (full.ru, full.archive) == (1, False)


def test_call_many_is_always_two():
    assert raw_price("eth_callMany", [[], {"blockNumber": RECENT}]).ru == 2


@pytest.mark.parametrize(
    ("inner", "ru"), [("getTransactions", 2), ("getAddressInformation", 1), ("runGetMethod", 1)]
)
def test_ton_json_rpc_is_priced_by_the_method_it_carries(inner, ru):
    assert raw_price("api/v2/jsonRPC", {}, inner=inner).ru == ru
    bound = CATALOG["api/v2/jsonRPC"].bind(inner, {})
    call = SimpleNamespace(bound=bound, estimate=None)
    assert pricer().price_call(call).ru == ru
    assert pricer().price_calls([call], fetch=False)[0].ru == ru == call.estimate.ru


def test_every_rule_names_its_source():
    rules = [m.ru for m in toolkit.METHODS] + list(DEFAULT_PRICING.patterns.values())
    assert all(rule.source for rule in rules)
    assert isinstance(CATALOG["api/v2/jsonRPC"].ru, ByInnerMethod)
    assert DEFAULT_PRICING.patterns["eth_callMany"].source.startswith(PUBLIC)


@pytest.mark.parametrize("method", ["eth_noSuchMethod", "getSlot", "suix_getBalance"])
def test_a_method_the_table_does_not_know_costs_the_highest_price(method):
    estimate = raw_price(method, [])
    assert estimate.ru == estimate.low == 2
    assert "highest price" in pricer().rule(method, None).source
    dearer = DEFAULT_PRICING.with_rule("my_dear", Fixed(7, "my contract"))
    assert raw_price(method, [], table=dearer).ru == 7


def test_known_methods_without_a_block_stay_one():
    for method in ("eth_getTransactionByHash", "eth_getTransactionReceipt", "eth_syncing"):
        assert raw_price(method, [HASH]).ru == 1


@pytest.mark.parametrize(
    ("status", "fate"),
    [
        (200, Fate.ANSWERED),
        (429, Fate.ANSWERED),
        (402, Fate.ANSWERED),
        (500, Fate.ANSWERED),
        (502, Fate.ANSWERED),
        (504, Fate.ANSWERED),
        (401, Fate.REFUSED),
        (403, Fate.REFUSED),
        (503, Fate.UNANSWERED),  # stopped or overloaded: it may have been billed
    ],
)
def test_what_an_error_status_costs_by_default(status, fate):
    assert DEFAULT_PRICING.fate_of_status(status) is fate is fate_of_status(status)


def test_what_an_error_status_costs_is_a_setting():
    table = DEFAULT_PRICING.replace(status_costs={429: "maybe", 402: "free", 500: "billed"})
    assert table.fate_of_status(429) is Fate.UNANSWERED
    assert table.fate_of_status(402) is Fate.REFUSED
    assert table.fate_of_status(500) is Fate.ANSWERED
    assert table.fate_of_status(503) is Fate.ANSWERED  # not listed: billed
    assert table.replace(status_costs={}).fate_of_status(503) is Fate.ANSWERED
    with pytest.raises(toolkit.ValidationError, match="billed, maybe, free"):
        DEFAULT_PRICING.replace(status_costs={429: "cheap"})


def test_the_plans_log_range_cap_applies_when_the_plan_is_known():
    span = {"fromBlock": hex(1_000), "toBlock": hex(1_100)}  # 101 blocks
    pricer().check_plan("eth_getLogs", [span])  # plan unknown: the toolkit's own bound
    developer = pricer(DEFAULT_PRICING.replace(plan_name="developer"))
    with pytest.raises(toolkit.ValidationError, match="at most 100") as refused:
        developer.check_plan("eth_getLogs", [span])
    assert refused.value.rule == "max-range"
    developer.check_plan("eth_getLogs", [{"fromBlock": hex(1_000), "toBlock": hex(1_099)}])
    pricer(DEFAULT_PRICING.replace(plan_name="Growth")).check_plan("eth_getLogs", [span])
    assert DEFAULT_PRICING.plans["Developer"].max_log_blocks == 100
    with pytest.raises(toolkit.ValidationError):
        DEFAULT_PRICING.replace(plan_name="Platinum")


@pytest.mark.parametrize(
    "block", [HASH, {"blockHash": HASH}, {"blockHash": HASH, "requireCanonical": True}]
)
def test_a_block_hash_is_priced_as_archive(block):
    assert is_block_hash(block)
    for head in (HEAD, None):
        estimate = raw_price("eth_getBalance", [ALICE, block], head=head)
        assert (estimate.low, estimate.high, estimate.archive) == (2, 2, True)
        assert "block hash" in estimate.reason
    assert not pricer().needs_head(CATALOG["eth_getBalance"].ru, block)


def test_a_block_number_object_is_priced_by_its_number():
    assert raw_price("eth_getBalance", [ALICE, {"blockNumber": OLD}]).ru == 2
    assert raw_price("eth_getBalance", [ALICE, {"blockNumber": RECENT}]).ru == 1


def test_a_block_number_without_a_head_asks_for_one():
    rule = CATALOG["eth_getBalance"].ru
    assert pricer().needs_head(rule, OLD)
    heads = SimpleNamespace(for_pricing=lambda: None, drift=lambda: 0)
    asking = Pricer(SimpleNamespace(pricing=DEFAULT_PRICING), heads)
    assert asking.price_by(rule, OLD, fetch=True) is None
    assert asking.price_by(rule, OLD, head=HEAD, fetch=True).ru == 2
    assert not Pricer(SimpleNamespace(pricing=DEFAULT_PRICING), by_head=False).needs_head(rule, OLD)


def test_a_replaced_table_applies_at_once():
    source = SimpleNamespace(pricing=DEFAULT_PRICING)
    priced = Pricer(source)
    method = CATALOG["eth_getBalance"]
    args = ("eth_getBalance", method.ru, [ALICE, OLD], method.param_names)
    assert priced.price(*args, head=HEAD).ru == 2
    source.pricing = DEFAULT_PRICING.with_rule("eth_getBalance", Fixed(5, "mine"))
    assert priced.price(*args, head=HEAD).ru == 5
    source.pricing = DEFAULT_PRICING  # the rules it remembers are each table's own
    assert priced.price(*args, head=HEAD).ru == 2


@pytest.mark.parametrize(
    "block",
    [HASH, {"blockHash": HASH}, {"blockHash": HASH, "requireCanonical": False}, {"blockNumber": 5}],
)
def test_state_reads_take_block_hashes(block):
    bound = CATALOG["eth_getBalance"].bind(ALICE, block)
    expected = {"blockNumber": "0x5"} if block == {"blockNumber": 5} else block
    assert bound.wire_params[1] == expected


@pytest.mark.parametrize(
    "block", [{"blockHash": "0x12"}, {"blockHash": HASH, "requireCanonical": "yes"}, {"other": 1}]
)
def test_a_bad_block_object_is_refused(block):
    with pytest.raises(toolkit.ValidationError):
        CATALOG["eth_getBalance"].bind(ALICE, block)


def test_block_by_number_still_takes_numbers_only():
    with pytest.raises(toolkit.ValidationError):
        CATALOG["eth_getBlockByNumber"].bind(HASH)


@pytest.mark.parametrize(
    ("block", "needs"),
    [(HEAD - 5, True), (OLD, True), ({"blockNumber": OLD}, True), ("latest", False), (HASH, False)],
)
def test_which_calls_need_the_head(block, needs):
    call = SimpleNamespace(bound=CATALOG["eth_getBalance"].bind(ALICE, block))
    assert pricer().call_needs_head(call) is needs
    other = SimpleNamespace(bound=CATALOG["eth_blockNumber"].bind())
    assert not pricer().call_needs_head(other)
