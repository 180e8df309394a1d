"""Block hashes as block arguments (EIP-1898) and bills for methods outside the spec, through the
sandbox over real loopback HTTP: the ledger equals the sandbox's meter, call by call."""

import pytest

import toolkit
from toolkit.sandbox import DEMO

ALICE = next(iter(DEMO.evm.accounts.values()))


def metered(sandbox, node: str = "ethereum-mainnet") -> int:
    return sandbox.metering()[node]["ru"]


@pytest.mark.parametrize("form", ["hash", "object", "canonical"])
def test_a_block_hash_reads_the_state_of_its_block(gateway, sandbox, form):
    eth = gateway.node("ethereum-mainnet")
    number = eth.head() - 3
    block_hash = eth.call("eth_getBlockByNumber", number)["hash"]
    block = {
        "hash": block_hash,
        "object": {"blockHash": block_hash},
        "canonical": {"blockHash": block_hash, "requireCanonical": True},
    }[form]
    before = gateway.ledger.total_ru
    by_hash = eth.call("eth_getBalance", ALICE, block)
    assert by_hash == eth.call("eth_getBalance", ALICE, number)
    entry = gateway.ledger.entries[-2]
    # Its height is not known without asking: priced as archive, on both sides of the wire.
    assert (entry.method, entry.ru, entry.archive) == ("eth_getBalance", 2, True)
    assert gateway.ledger.total_ru - before == 2 + 1
    assert gateway.ledger.total_ru == metered(sandbox)


def test_a_block_hash_through_call_raw_and_the_helper(gateway, sandbox):
    eth = gateway.node("ethereum-mainnet")
    number = eth.head() - 200
    block_hash = eth.call("eth_getBlockByNumber", number)["hash"]
    assert eth.call_raw("eth_getBalance", [ALICE, block_hash]) == eth.call(
        "eth_getBalance", ALICE, hex(number)
    )
    assert eth.get_balance(ALICE, block=block_hash) == eth.get_balance(ALICE, block=number)
    assert gateway.ledger.total_ru == metered(sandbox)


def test_a_hash_of_no_block_is_the_nodes_error(gateway, sandbox):
    eth = gateway.node("ethereum-mainnet")
    with pytest.raises(toolkit.RPCError, match="header for hash not found"):
        eth.call("eth_getBalance", ALICE, "0x" + "ab" * 32)
    assert gateway.ledger.entries[-1].ru == 2
    assert gateway.ledger.total_ru == metered(sandbox)


def test_a_method_the_table_does_not_know_is_billed_at_the_highest_price(gateway, sandbox):
    eth = gateway.node("ethereum-mainnet")
    with pytest.raises(toolkit.RPCError):
        eth.call_raw("eth_noSuchMethod", [])
    with pytest.raises(toolkit.RPCError):
        eth.call_raw("eth_callMany", [[], {"blockNumber": "0x1"}])
    assert [e.ru for e in gateway.ledger.entries] == [2, 2]
    assert gateway.ledger.total_ru == metered(sandbox) == 4


def test_ton_json_rpc_is_billed_by_the_method_it_carries(gateway, sandbox):
    ton = gateway.node("ton-mainnet")
    with pytest.raises(toolkit.GatewayError):
        ton.call("api/v2/jsonRPC", "getTransactions", {"address": DEMO.ton.jettons[0].address})
    assert gateway.ledger.entries[-1].ru == 2
    assert gateway.ledger.total_ru == metered(sandbox, "ton-mainnet")


def test_the_developer_plan_caps_log_ranges_before_sending(make_gateway, sandbox):
    gateway = make_gateway(pricing=toolkit.DEFAULT_PRICING.replace(plan_name="Developer"))
    eth = gateway.node("ethereum-mainnet")
    span = {"fromBlock": hex(1_000), "toBlock": hex(1_100)}
    with pytest.raises(toolkit.ValidationError, match="Developer plan allows at most 100"):
        eth.call_raw("eth_getLogs", [span])
    with pytest.raises(toolkit.ValidationError, match="Developer plan allows at most 100"):
        eth.call("eth_getLogs", span)
    assert gateway.ledger.total_ru == metered(sandbox) == 0


def test_what_an_error_status_costs_follows_the_table(make_gateway, sandbox):
    default = make_gateway()
    sandbox.faults.set(kind="server-error", node="ethereum-mainnet", count=1)
    default.node("ethereum-mainnet").get_balance(ALICE, block="latest")
    entry = default.ledger.entries[-1]
    assert (entry.ru, entry.unconfirmed_ru, entry.retries) == (2, 0, 1)  # the 500 is billed
    sandbox.reset_metering()
    costs = {**toolkit.catalog.STATUS_COSTS, 500: "maybe"}
    gateway = make_gateway(pricing=toolkit.DEFAULT_PRICING.replace(status_costs=costs))
    sandbox.faults.set(kind="server-error", node="ethereum-mainnet", count=1)
    gateway.node("ethereum-mainnet").get_balance(ALICE, block="latest")
    entry = gateway.ledger.entries[-1]
    assert (entry.ru, entry.unconfirmed_ru, entry.retries) == (1, 1, 1)  # may have been billed
    assert gateway.ledger.total_ru + gateway.ledger.unconfirmed_ru == metered(sandbox) == 2
