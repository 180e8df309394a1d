"""Real third-party clients against the sandbox's nodes, unchanged: web3.py and tronpy talk to the
node URLs the platform lists, as they would to a real gateway node, and the answers agree with
the toolkit's own. Then `toolkit.web3(node)`: web3.py's calls metered by the toolkit, with the
ledger equal to what the sandbox metered.

web3.py and tronpy are in the `dev` extra (tests only): tronpy pins eth-abi below 6, so web3.py is
kept at 7.x there; neither is a dependency of the toolkit.
"""

from __future__ import annotations

import importlib.util

import pytest

import toolkit
from toolkit.sandbox import DEMO

# Each test imports the client it uses: importing web3 takes a second and a half, and every
# xdist worker collects this module.
pytestmark = pytest.mark.skipif(
    not (importlib.util.find_spec("web3") and importlib.util.find_spec("tronpy")),
    reason="web3.py and tronpy come with the dev extra",
)

ERC20_ABI = [
    {
        "name": name,
        "type": "function",
        "stateMutability": "view",
        "inputs": inputs,
        "outputs": [{"name": "", "type": output}],
    }
    for name, inputs, output in (
        ("balanceOf", [{"name": "owner", "type": "address"}], "uint256"),
        ("totalSupply", [], "uint256"),
        ("decimals", [], "uint8"),
        ("symbol", [], "string"),
        ("name", [], "string"),
    )
]
OLD_BLOCK = 20_000_000  # far behind the sandbox's Ethereum head: an archive read
ALICE = DEMO.evm.accounts["alice"]


def _requests(sandbox, node: str) -> int:
    return sandbox.metering()[node]["requests"]


# --- web3.py straight to the node URL -------------------------------------------------------------


def test_web3_reads_the_chain_and_calls_the_token_at_an_old_block(sandbox, gateway):
    from web3 import Web3

    w3 = Web3(Web3.HTTPProvider(sandbox.info["nodes"]["ethereum-mainnet"]))
    eth = gateway.node("ethereum-mainnet")
    assert w3.is_connected()
    assert w3.eth.chain_id == 1 == eth.chain_id()
    assert w3.net.version == "1"
    assert w3.eth.block_number == eth.block_number()
    assert w3.eth.get_balance(ALICE, block_identifier=OLD_BLOCK) == eth.get_balance(
        ALICE, OLD_BLOCK
    )
    assert w3.eth.get_transaction_count(ALICE) == eth.get_transaction_count(ALICE)
    assert w3.eth.gas_price == eth.gas_price() > 0
    assert w3.eth.get_code(DEMO.evm.token) == bytes.fromhex(eth.get_code(DEMO.evm.token)[2:])

    token = w3.eth.contract(address=DEMO.evm.token, abi=ERC20_ABI)
    assert token.functions.symbol().call() == DEMO.evm.token_symbol
    assert token.functions.decimals().call() == DEMO.evm.token_decimals
    old = token.functions.balanceOf(ALICE).call(block_identifier=OLD_BLOCK)
    assert old == int(eth.call_contract(DEMO.evm.token, _balance_of(ALICE), block=OLD_BLOCK), 16)

    block = w3.eth.get_block(OLD_BLOCK, full_transactions=True)
    assert block["number"] == OLD_BLOCK and block["hash"].hex() == eth.get_block(OLD_BLOCK)[
        "hash"
    ].removeprefix("0x")
    assert all(tx["blockNumber"] == OLD_BLOCK for tx in block["transactions"])


def test_web3_event_logs_decode_as_erc20_transfers(sandbox):
    from web3 import Web3

    w3 = Web3(Web3.HTTPProvider(sandbox.info["nodes"]["ethereum-mainnet"]))
    transfer = {
        "name": "Transfer",
        "type": "event",
        "anonymous": False,
        "inputs": [
            {"indexed": True, "name": "from", "type": "address"},
            {"indexed": True, "name": "to", "type": "address"},
            {"indexed": False, "name": "value", "type": "uint256"},
        ],
    }
    token = w3.eth.contract(address=DEMO.evm.token, abi=[transfer])
    head = w3.eth.block_number
    events = token.events.Transfer.get_logs(from_block=head - 30, to_block=head)
    assert events, "30 blocks of the sandbox carry token transfers"
    for event in events:
        assert event["address"] == DEMO.evm.token and event["args"]["value"] > 0
        assert head - 30 <= event["blockNumber"] <= head


def _balance_of(holder: str) -> str:
    from eth_abi import encode

    from toolkit.catalog.encoding import keccak256

    return "0x" + (keccak256(b"balanceOf(address)")[:4] + encode(["address"], [holder])).hex()


# --- tronpy straight to the node URL --------------------------------------------------------------


def test_tronpy_reads_blocks_accounts_and_assets(sandbox, gateway):
    from tronpy import Tron
    from tronpy.exceptions import AddressNotFound
    from tronpy.providers import HTTPProvider

    url = sandbox.info["nodes"]["tron-mainnet"]
    # tronpy joins paths with urljoin, which replaces the last path segment unless the base
    # ends in "/": the key is that segment, so the URL is given with its slash.
    client = Tron(HTTPProvider(url + "/"))
    tron = gateway.node("tron-mainnet")
    number = client.get_latest_block_number()
    assert number == tron.head()
    assert client.get_latest_block()["block_header"]["raw_data"]["number"] == number
    assert client.get_block(number - 5)["blockID"] == tron.get_block_by_num(number - 5)["blockID"]
    alice = DEMO.tron.accounts["alice"]
    account = client.get_account(alice)
    assert account["address"] == alice and client.get_account_balance(alice) > 0
    asset = client.get_asset(int(DEMO.tron.assets[0].id))
    assert asset["name"] == DEMO.tron.assets[0].name  # visible=True: plain text
    with pytest.raises(AddressNotFound):
        client.get_account("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t")


def test_tronpy_without_the_trailing_slash_loses_the_key_and_is_refused(sandbox):
    from tronpy import Tron
    from tronpy.providers import HTTPProvider

    before = sum(usage["requests"] for usage in sandbox.metering().values())
    with pytest.raises(Exception, match="403"):
        Tron(HTTPProvider(sandbox.info["nodes"]["tron-mainnet"])).get_latest_block_number()
    assert sum(usage["requests"] for usage in sandbox.metering().values()) == before


# --- toolkit.web3: web3.py, metered by the toolkit ------------------------------------------------


def test_toolkit_web3_contract_calls_are_priced_budgeted_and_in_the_ledger(sandbox, gateway):
    node = gateway.node("ethereum-mainnet")
    w3 = toolkit.web3(node)
    sandbox.reset_metering()
    token = w3.eth.contract(address=DEMO.evm.token, abi=ERC20_ABI)

    assert token.functions.symbol().call() == DEMO.evm.token_symbol
    old = token.functions.balanceOf(ALICE).call(block_identifier=OLD_BLOCK)
    assert old > 0 and w3.eth.get_block("latest")["number"] > OLD_BLOCK

    by_method = {}
    for entry in gateway.ledger.entries:
        by_method.setdefault(entry.method, []).append(entry)
    assert "eth_chainId" in by_method and len(by_method["eth_call"]) == 2
    assert sorted(entry.ru for entry in by_method["eth_call"]) == [1, 2]  # the old block: archive
    metered = sandbox.metering()["ethereum-mainnet"]
    assert (
        gateway.ledger.total_ru == metered["ru"]
        and len(gateway.ledger.entries) == (metered["calls"])
    )
    assert "ToolkitProvider ethereum-mainnet" in repr(w3.provider)


def test_toolkit_web3_keeps_web3s_errors_and_the_toolkits_refusals(sandbox, gateway):
    from web3.exceptions import ContractLogicError

    w3 = toolkit.web3(gateway.node("ethereum-mainnet"))
    token = w3.eth.contract(address=DEMO.evm.token, abi=ERC20_ABI)
    with pytest.raises(ContractLogicError):  # the node's revert, as web3.py reports it
        w3.eth.call({"to": DEMO.evm.token, "data": "0xdeadbeef"})
    gateway.set_budget(gateway.ledger.total_ru)  # nothing left
    sent = _requests(sandbox, "ethereum-mainnet")
    with pytest.raises(toolkit.BudgetExceeded):
        token.functions.totalSupply().call(block_identifier=OLD_BLOCK)
    assert _requests(sandbox, "ethereum-mainnet") == sent
    with pytest.raises(toolkit.ValidationError, match=r"web3\.py speaks to EVM nodes"):
        toolkit.web3(gateway.node("tron-mainnet"))


# --- toncenter's own SDK straight to the node URL ------------------------------------------------


def test_toncenter_sdk_reads_the_masterchain_addresses_and_tokens(sandbox, gateway):
    import asyncio

    pytest.importorskip("toncenter")
    from toncenter.rest.client import ToncenterRestClient

    url = sandbox.info["nodes"]["ton-mainnet"]
    jetton = DEMO.ton.jettons[0]
    ton = gateway.node("ton-mainnet")

    async def read():
        # No API key: the SDK throttles itself to one request per `rps_period` seconds.
        async with ToncenterRestClient(base_url=url, rps_period=0.01) as client:
            info = await client.v2.blocks.get_masterchain_info()
            forms = await client.v2.utils.detect_address(jetton.address)
            token = await client.v2.accounts.get_token_data(jetton.address)
            raw = await client.v2.rpc.json_rpc("unpackAddress", params={"address": jetton.address})
            return info, forms, token, raw

    info, forms, token, raw = asyncio.run(read())
    assert info.last.seqno == ton.get_masterchain_info()["last"]["seqno"]
    assert forms.raw_form == jetton.raw == ton.detect_address(jetton.address)["raw_form"]
    assert token.jetton_content.data["symbol"] == jetton.symbol
    assert int(token.total_supply) == int(ton.get_token_data(jetton.address)["total_supply"])
    assert raw == jetton.raw  # the SDK unwraps the envelope


# --- toolkit.web3 batches, and the read methods after get_block --------------------------------

BOB = DEMO.evm.accounts["bob"]


def test_toolkit_web3_batch_is_one_metered_batch(sandbox, gateway):
    node = gateway.node("ethereum-mainnet")
    w3 = toolkit.web3(node)
    expected = (node.get_balance(ALICE, OLD_BLOCK), node.get_balance(BOB, OLD_BLOCK))
    sandbox.reset_metering()
    before = len(gateway.ledger.entries)
    with w3.batch_requests() as batch:
        batch.add(w3.eth.get_balance(ALICE, block_identifier=OLD_BLOCK))
        batch.add(w3.eth.get_balance(BOB, block_identifier=OLD_BLOCK))
        batch.add(w3.eth.get_block(OLD_BLOCK))
        alice, bob, block = batch.execute()
    assert (alice, bob) == expected
    assert block["number"] == OLD_BLOCK
    metered = sandbox.metering()["ethereum-mainnet"]
    assert metered["requests"] == 1 and metered["calls"] == 3  # one HTTP batch of three calls
    entries = gateway.ledger.entries[before:]
    methods = [e.method for e in entries]
    assert methods == ["eth_getBalance", "eth_getBalance", "eth_getBlockByNumber"]
    assert sum(e.ru for e in entries) == metered["ru"]  # the ledger bills what the node metered


def test_toolkit_web3_batch_respects_the_budget_before_sending(sandbox, gateway):
    node = gateway.node("ethereum-mainnet")
    w3 = toolkit.web3(node)
    node.block_number()
    gateway.set_budget(gateway.ledger.total_ru + 1)  # room for one call, not three
    sent = _requests(sandbox, "ethereum-mainnet")
    with pytest.raises(toolkit.BudgetExceeded), w3.batch_requests() as batch:
        for holder in (ALICE, BOB, ALICE):
            batch.add(w3.eth.get_balance(holder, block_identifier=OLD_BLOCK))
        batch.execute()
    assert _requests(sandbox, "ethereum-mainnet") == sent  # refused before sending: 0 RU


def test_toolkit_web3_batch_with_methods_beyond_the_catalog_is_one_metered_batch(sandbox, gateway):
    node = gateway.node("ethereum-mainnet")
    w3 = toolkit.web3(node)
    block = w3.eth.get_block(_block_with_transactions(w3))
    expected = node.get_balance(ALICE, OLD_BLOCK)
    sandbox.reset_metering()
    before = len(gateway.ledger.entries)
    with w3.batch_requests() as batch:
        batch.add(w3.eth.get_transaction(block["transactions"][0]))
        batch.add(w3.eth.get_balance(ALICE, block_identifier=OLD_BLOCK))
        batch.add(w3.eth.get_transaction_receipt(block["transactions"][0]))
        batch.add(w3.eth.fee_history(2, OLD_BLOCK, [50]))
        tx, balance, receipt, history = batch.execute()
    assert tx["hash"] == block["transactions"][0] and tx["blockNumber"] == block["number"]
    assert receipt["transactionHash"] == tx["hash"]
    assert balance == expected
    assert history["oldestBlock"] == OLD_BLOCK - 1
    metered = sandbox.metering()["ethereum-mainnet"]
    assert metered["requests"] == 1 and metered["calls"] == 4  # one HTTP batch of four calls
    entries = gateway.ledger.entries[before:]
    assert [(e.method, e.ru) for e in entries] == [
        ("eth_getTransactionByHash", 1),
        ("eth_getBalance", 2),  # archive: validated and priced by its catalog rule
        ("eth_getTransactionReceipt", 1),
        ("eth_feeHistory", 2),  # archive at an old block, by the table's published rule
    ]
    assert sum(e.ru for e in entries) == metered["ru"]  # the ledger bills what the node metered


def test_toolkit_web3_mixed_batch_answers_final_catalog_calls_from_the_cache(
    sandbox, make_gateway, cache_path
):
    gateway = make_gateway(cache=cache_path)
    w3 = toolkit.web3(gateway.node("ethereum-mainnet"))
    for round_ in range(2):
        sandbox.reset_metering()
        before = len(gateway.ledger.entries)
        with w3.batch_requests() as batch:
            batch.add(w3.eth.get_balance(ALICE, block_identifier=OLD_BLOCK))
            batch.add(w3.eth.fee_history(1, OLD_BLOCK, []))
            balance, history = batch.execute()
        assert history["oldestBlock"] == OLD_BLOCK
        entries = gateway.ledger.entries[before:]
        metered = sandbox.metering()["ethereum-mainnet"]
        if round_ == 0:  # both sent (and the head, to price them and judge finality)
            first = balance
            assert [e.method for e in entries][-2:] == ["eth_getBalance", "eth_feeHistory"]
        else:  # the final balance from the cache (0 RU), only the fee history sent
            assert balance == first and metered["calls"] == 1 and metered["requests"] == 1
            assert [(e.method, e.cache_hit) for e in entries] == [
                ("eth_getBalance", True),
                ("eth_feeHistory", False),
            ]
        assert sum(e.ru for e in entries) == metered["ru"]


def test_toolkit_web3_mixed_batch_is_budgeted_and_validated_before_sending(sandbox, gateway):
    node = gateway.node("ethereum-mainnet")
    w3 = toolkit.web3(node)
    node.block_number()
    sent = _requests(sandbox, "ethereum-mainnet")
    gateway.set_budget(gateway.ledger.total_ru + 3)  # the two archive reads cost 4
    with pytest.raises(toolkit.BudgetExceeded), w3.batch_requests() as batch:
        batch.add(w3.eth.get_balance(ALICE, block_identifier=OLD_BLOCK))
        batch.add(w3.eth.fee_history(2, OLD_BLOCK, [50]))
        batch.execute()
    gateway.set_budget(None)
    provider = w3.provider
    with pytest.raises(toolkit.ValidationError, match="address"):
        provider.make_batch_request([("eth_getBalance", ["0x12", "latest"]), ("eth_syncing", [])])
    assert _requests(sandbox, "ethereum-mainnet") == sent  # refused before sending: 0 RU


def test_toolkit_web3_batch_to_a_node_refusing_batches_goes_call_by_call(loopback_server):
    import json

    def answer(request):
        body = json.loads(request[3])
        if isinstance(body, list):
            return 400, {"Content-Type": "text/plain"}, b"batch requests are not supported"
        result = "0x10" if body["method"] == "eth_getBalance" else {"oldestBlock": "0x1"}
        reply = {"jsonrpc": "2.0", "id": body["id"], "result": result}
        return 200, {"Content-Type": "application/json"}, json.dumps(reply).encode()

    server = loopback_server(answer)
    node = toolkit.node(server.url, chain="ethereum", name="no-batches", cache=False)
    w3 = toolkit.web3(node)
    try:
        for _ in range(2):
            with w3.batch_requests() as batch:
                batch.add(w3.eth.get_balance(ALICE))
                batch.add(w3.eth.fee_history(1, "latest", []))
                balance, history = batch.execute()
            assert balance == 16 and history["oldestBlock"] == 1
        bodies = [json.loads(request[3]) for request in server.requests]
        assert sum(isinstance(body, list) for body in bodies) == 1  # tried once, remembered
        assert node.accepts_batches is False
        methods = [e.method for e in node.ledger.entries if e.status == "ok"]
        assert methods == ["eth_getBalance", "eth_feeHistory"] * 2
    finally:
        node.close()


def _block_with_transactions(w3) -> int:
    number = w3.eth.block_number
    while not w3.eth.get_block(number)["transactions"]:
        number -= 1
    return number


@pytest.mark.parametrize("node_name", ["ethereum-mainnet", "arbitrum-mainnet"])
def test_web3_reads_transactions_receipts_fees_and_estimates_consistent_with_blocks(
    sandbox, gateway, node_name
):
    """Beyond the spec, as a web3.py user goes on after get_block: each answer agrees with the
    blocks and logs the sandbox serves."""
    from web3 import Web3
    from web3.exceptions import TransactionNotFound

    w3 = Web3(Web3.HTTPProvider(sandbox.info["nodes"][node_name]))
    number = _block_with_transactions(w3)
    block = w3.eth.get_block(number, full_transactions=True)
    logs = w3.eth.get_logs({"fromBlock": number, "toBlock": number})
    cumulative = 0
    for tx in block["transactions"]:
        assert w3.eth.get_transaction(tx["hash"]) == tx
        receipt = w3.eth.get_transaction_receipt(tx["hash"])
        assert (receipt["blockHash"], receipt["blockNumber"]) == (block["hash"], number)
        assert receipt["status"] == 1 and receipt["transactionIndex"] == tx["transactionIndex"]
        assert receipt["effectiveGasPrice"] == tx["gasPrice"] and receipt["gasUsed"] <= tx["gas"]
        cumulative += receipt["gasUsed"]
        assert receipt["cumulativeGasUsed"] == cumulative
        own = [log for log in logs if log["transactionHash"] == tx["hash"]]
        assert receipt["logs"] == own
    assert cumulative == block["gasUsed"]  # the receipts add up to the block

    history = w3.eth.fee_history(3, number, [25, 75])
    assert history["oldestBlock"] == number - 2
    assert history["baseFeePerGas"][-2] == block["baseFeePerGas"]
    assert history["gasUsedRatio"][-1] == block["gasUsed"] / block["gasLimit"]
    assert len(history["reward"]) == 3 and all(len(r) == 2 for r in history["reward"])

    assert w3.eth.estimate_gas({"from": ALICE, "to": BOB, "value": 1}) == 21_000
    assert w3.eth.estimate_gas({"from": ALICE, "to": BOB, "data": "0x0001"}) == 21_000 + 4 + 16
    with pytest.raises(TransactionNotFound):
        w3.eth.get_transaction("0x" + "ab" * 32)
    with pytest.raises(TransactionNotFound):
        w3.eth.get_transaction_receipt("0x" + "ab" * 32)


def test_toolkit_web3_reads_beyond_the_spec_through_the_ledger(sandbox, gateway):
    node = gateway.node("ethereum-mainnet")
    w3 = toolkit.web3(node)
    block = w3.eth.get_block(_block_with_transactions(w3))
    sandbox.reset_metering()
    before = len(gateway.ledger.entries)
    receipt = w3.eth.get_transaction_receipt(block["transactions"][0])
    assert receipt["blockNumber"] == block["number"]
    w3.eth.fee_history(2, "latest")
    assert w3.eth.estimate_gas({"from": ALICE, "to": BOB, "value": 1}) == 21_000
    methods = [e.method for e in gateway.ledger.entries[before:]]
    assert {"eth_getTransactionReceipt", "eth_feeHistory", "eth_estimateGas"} <= set(methods)
    entries = gateway.ledger.entries[before:]
    assert sum(e.ru for e in entries) == sandbox.metering()["ethereum-mainnet"]["ru"]
