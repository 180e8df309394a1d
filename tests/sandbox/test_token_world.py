"""The sandbox's token keeps its books: its Transfers explain its balances exactly.

Asked as a user asks, through a gateway on in-process sandboxes (two seeds, frozen heads): the
Transfers in (start, end] move each account's `balanceOf` from start to end, the treasury's
included; no Transfer exceeds what its sender holds just before it; `totalSupply` is the sum of
all balances; and every view of a block (its body, receipts, transactions by hash, storage,
Arbitrum's dump) tells the same story.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolkit
from toolkit.catalog import abi
from toolkit.catalog import encoding as enc
from toolkit.sandbox import DEMO, Sandbox

SEEDS = (0, 5)
CHAINS = ("ethereum", "arbitrum", "polygon", "hyperliquid")
TOKEN = DEMO.evm.token
TRANSFER = abi.event("Transfer").topic0
ZERO = "0x" + "00" * 20
ACCOUNTS = [*DEMO.evm.accounts.values(), DEMO.evm.treasury]


@pytest.fixture(scope="module")
def gateways():
    """A gateway on an in-process sandbox with frozen heads, per seed."""
    made = {}
    for seed in SEEDS:
        sandbox = Sandbox(seed=seed, head_pace=0).in_process()
        info = sandbox.in_process_info
        made[seed] = (
            toolkit.Gateway(
                info["platform_url"], info["api_key"], nodes=info["nodes"], sandbox=sandbox
            ),
            sandbox,
        )
    yield made
    for gateway, sandbox in made.values():
        gateway.close()
        sandbox.stop()


def _node(gateways, seed, chain):
    gateway, sandbox = gateways[seed]
    return gateway.node(f"{chain}-mainnet"), sandbox.world.head(chain)


def _balances(eth, block: int) -> dict[str, int]:
    """Every account's balanceOf at `block` (0 before the token exists), and totalSupply."""
    calls = [
        ("eth_call", {"to": TOKEN, "data": abi.function_call("balanceOf(address)", (a,))[1]}, block)
        for a in ACCOUNTS
    ]
    calls.append(
        ("eth_call", {"to": TOKEN, "data": abi.function_call("totalSupply()", ())[1]}, block)
    )
    words = [int(answer, 16) if answer != "0x" else 0 for answer in eth.batch(calls)]
    return dict(zip([*ACCOUNTS, "supply"], words, strict=True))


def _transfers(eth, start: int, end: int) -> list[tuple[int, str, str, int]]:
    """(block, from, to, value) of the token's Transfers in blocks start..end, in order."""
    logs = []
    for first in range(start, end + 1, 1_000):
        query = {
            "address": TOKEN,
            "topics": [TRANSFER],
            "fromBlock": hex(first),
            "toBlock": hex(min(end, first + 999)),
        }
        logs += eth.call("eth_getLogs", query)
    return [
        (
            int(log["blockNumber"], 16),
            enc.to_checksum_address("0x" + log["topics"][1][-40:]),
            enc.to_checksum_address("0x" + log["topics"][2][-40:]),
            int(log["data"], 16),
        )
        for log in logs
    ]


def _books_balance(eth, start: int, end: int) -> int:
    """Replays the Transfers in (start, end] onto the balances at start: each within its
    sender's balance, and the result the balances at end (and at a block half way)."""
    held = _balances(eth, start)
    middle = (start + end) // 2
    transfers = _transfers(eth, start + 1, end)
    for block, sender, recipient, value in transfers:
        if block > middle >= start + 1 and middle != end:
            assert held == _balances(eth, middle), f"the books disagree at block {middle}"
            middle = end
        if sender != ZERO:  # a mint creates what it moves
            assert value <= held[sender], f"block {block}: {sender} sends {value}, has less"
            held[sender] -= value
        else:
            held["supply"] += value
        held[recipient] += value
    assert held == _balances(eth, end)
    assert held["supply"] == sum(held[a] for a in ACCOUNTS)
    return len(transfers)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seed=st.sampled_from(SEEDS),
    chain=st.sampled_from(CHAINS),
    back=st.integers(0, 300_000),
    length=st.integers(1, 800),
)
def test_transfers_add_up_to_the_balances_changes(gateways, seed, chain, back, length):
    eth, head = _node(gateways, seed, chain)
    end = head - back
    _books_balance(eth, end - length, end)


@pytest.mark.parametrize("chain", CHAINS)
def test_the_books_open_with_the_supply_minted_to_the_treasury(gateways, chain):
    eth, _ = _node(gateways, 0, chain)
    deployed = DEMO.evm.token_deployed_at[chain]
    assert _books_balance(eth, deployed - 1, deployed + 300) > 0
    mint = _transfers(eth, deployed, deployed)[0]
    supply = _balances(eth, deployed)["supply"]
    assert mint == (deployed, ZERO, DEMO.evm.treasury, supply) and supply > 0
    assert _transfers(eth, deployed - 50, deployed - 1) == []


def test_a_year_of_ethereum_holds_tens_of_transfers_per_developer_chunk(gateways):
    eth, head = _node(gateways, 0, "ethereum")
    counts = [len(_transfers(eth, first, first + 99)) for first in range(head - 999, head, 100)]
    assert min(counts) >= 20, counts
    assert len(set(counts)) > 3, counts  # steps fall at random blocks: busy chunks and quiet ones


def test_every_view_of_a_block_tells_the_same_story(gateways):
    eth, head = _node(gateways, 0, "ethereum")
    number = next(n for n in range(head, head - 100, -1) if _transfers(eth, n, n))
    block = eth.call("eth_getBlockByNumber", hex(number), True)
    by_hash = {tx["hash"]: tx for tx in block["transactions"]}
    logs = eth.call("eth_getLogs", {"fromBlock": hex(number), "toBlock": hex(number)})
    gas, bloom = 0, 0
    for tx in block["transactions"]:
        assert eth.call_raw("eth_getTransactionByHash", [tx["hash"]]) == tx
        receipt = eth.call_raw("eth_getTransactionReceipt", [tx["hash"]])
        assert receipt["logs"] == [log for log in logs if log["transactionHash"] == tx["hash"]]
        gas += int(receipt["gasUsed"], 16)
        assert int(receipt["cumulativeGasUsed"], 16) == gas
        bloom |= int(receipt["logsBloom"], 16)
    assert int(block["gasUsed"], 16) == gas and int(block["logsBloom"], 16) == bloom
    for log in logs:  # a Transfer is its transaction's transfer(to, value), sent by `from`
        tx = by_hash[log["transactionHash"]]
        assert (
            tx["to"].lower() == TOKEN.lower()
            and tx["from"].lower() == "0x" + log["topics"][1][-40:]
        )
        assert tx["input"][10:] == log["topics"][2][2:] + log["data"][2:]
    held = _balances(eth, number)
    for account in ACCOUNTS:  # OpenZeppelin's _balances, slot 0
        slot = enc.keccak256(bytes.fromhex(account[2:].rjust(64, "0")) + bytes(32))
        word = eth.call("eth_getStorageAt", TOKEN, "0x" + slot.hex(), hex(number))
        assert int(word, 16) == held[account]
    assert int(eth.call("eth_getStorageAt", TOKEN, "0x2", hex(number)), 16) == held["supply"]


def test_the_deployment_is_a_contract_creation_by_the_treasury(gateways):
    eth, _ = _node(gateways, 0, "ethereum")
    deployed = DEMO.evm.token_deployed_at["ethereum"]
    block = eth.call("eth_getBlockByNumber", hex(deployed), True)
    creation = next(tx for tx in block["transactions"] if tx["to"] is None)
    assert creation["from"] == DEMO.evm.treasury
    receipt = eth.call_raw("eth_getTransactionReceipt", [creation["hash"]])
    assert receipt["contractAddress"] == TOKEN.lower() and receipt["to"] is None
    assert [log["topics"][1] for log in receipt["logs"]] == ["0x" + "00" * 32]


def test_arbitrums_dump_holds_the_blocks_transactions(gateways):
    arb, head = _node(gateways, 0, "arbitrum")
    number = next(n for n in range(head, head - 5_000, -1) if _transfers(arb, n, n))
    block = arb.call("eth_getBlockByNumber", hex(number), False)
    dump = arb.call("debug_printBlock", number)
    assert dump.count("inner: (*types.DynamicFeeTx)") == len(block["transactions"]) - 1
    assert f"  GasUsed: (uint64) {int(block['gasUsed'], 16)}," in dump
