"""The EVM client against a real node: Anvil, over loopback HTTP."""

import asyncio

import pytest

import toolkit

pytestmark = pytest.mark.anvil


@pytest.fixture(scope="module")
def chain(anvil):
    """Two accounts, a deployed contract, and enough blocks that early ones are archive blocks."""
    accounts = anvil.rpc("eth_accounts")
    sender, receiver = accounts[0], "0x" + "42" * 20
    contract = anvil.send({"from": sender, "data": anvil.init_code})["contractAddress"]
    before = int(anvil.rpc("eth_blockNumber"), 16)
    funded = anvil.send({"from": sender, "to": receiver, "value": hex(10**18)})
    funded_at = int(funded["blockNumber"], 16)
    anvil.rpc("anvil_mine", hex(200))
    return {
        "sender": sender,
        "receiver": receiver,
        "contract": contract,
        "before": before,
        "funded_at": funded_at,
        "head": int(anvil.rpc("eth_blockNumber"), 16),
    }


@pytest.fixture
def eth(anvil):
    with toolkit.node(anvil.url + "/", chain="ethereum", name="anvil") as client:
        yield client


def test_block_number(eth, chain):
    assert eth.block_number() == chain["head"]
    assert eth.call("eth_blockNumber") == hex(chain["head"])


def test_balance_at_latest_and_at_old_blocks(eth, chain):
    receiver = chain["receiver"]
    assert eth.get_balance(receiver) == 10**18
    assert eth.get_balance(receiver, block=chain["before"]) == 0
    assert eth.get_balance(receiver, block=hex(chain["funded_at"])) == 10**18


def test_archive_calls_are_billed_two_ru_and_recent_ones_one(eth, chain):
    eth.get_balance(chain["receiver"], block=chain["before"])  # 200+ blocks behind
    eth.get_balance(chain["receiver"], block=chain["head"])
    eth.get_balance(chain["receiver"])
    frame = eth.ledger.frame
    calls = frame[frame["method"] == "eth_getBalance"]
    assert calls["ru"].tolist() == [2, 1, 1]
    assert calls["archive"].tolist() == [True, False, False]
    head_fetches = frame[frame["note"].str.contains("chain head")]
    assert len(head_fetches) == 1 and head_fetches["ru"].sum() == 1  # fetched once, cached


def test_storage_and_call_on_a_deployed_contract(eth, chain):
    word = eth.get_storage_at(chain["contract"], 0)
    assert int(word, 16) == 42
    assert int(eth.call_contract(chain["contract"], data="0x"), 16) == 42
    assert int(eth.call("eth_call", {"to": chain["contract"]}, "latest"), 16) == 42


def test_plain_transfer_simulation_returns_0x(eth, chain):
    assert eth.call_contract(chain["receiver"], sender=chain["sender"], value=1) == "0x"


def test_client_version(eth):
    assert eth.client_version().lower().startswith("anvil")


def test_batch(eth, chain):
    results = eth.batch(
        [
            ("eth_getBalance", chain["receiver"], "latest"),
            ("eth_getBalance", chain["receiver"], chain["before"]),
            ("eth_blockNumber",),
            ("web3_clientVersion",),
        ]
    )
    assert results[0] == hex(10**18) and results[1] == "0x0"
    assert int(results[2], 16) == chain["head"]
    batch = eth.ledger.frame.tail(4)  # one ledger entry per call of the batch
    assert batch["method"].tolist() == [
        "eth_getBalance",
        "eth_getBalance",
        "eth_blockNumber",
        "web3_clientVersion",
    ]
    assert batch["ru"].tolist() == [1, 2, 1, 1]  # billed as N calls, the archive one at 2
    # Archive or not, by the call's block; a fixed price is never an archive read.
    assert batch["archive"].tolist() == [False, True, False, False]
    assert batch["note"].eq("in a JSON-RPC batch of 4").all()


def test_batch_with_an_error_item(eth, anvil):
    results = eth.batch(
        [("eth_blockNumber",), ("eth_getBalance", "0x" + "00" * 20, "0xffffffffff")],
        return_exceptions=True,
    )
    assert results[0].startswith("0x")
    assert isinstance(results[1], toolkit.GatewayError)
    statuses = eth.ledger.frame["status"].tail(2).tolist()
    assert statuses == ["ok", type(results[1]).__name__]  # each call of the batch its own status


def test_async_flavour(eth, chain):
    async def main():
        return await asyncio.gather(
            eth.aio.get_balance(chain["receiver"]),
            eth.aio.block_number(),
            eth.aio.call("eth_getStorageAt", chain["contract"], "0x0", "latest"),
        )

    balance, head, word = asyncio.run(main())
    assert balance == 10**18 and head == chain["head"] and int(word, 16) == 42


def test_rpc_error_is_typed(eth):
    with pytest.raises(toolkit.RPCError) as caught:
        eth.call_raw("eth_noSuchMethod", [])
    assert caught.value.code == -32601
