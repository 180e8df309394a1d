"""The TRON node: TRC-10 assets, blocks and transaction info, proposals; java-tron's shapes."""

from __future__ import annotations

import hashlib
import itertools
import re

import pytest

from toolkit.catalog import encoding as enc

AMBIGUOUS = {
    "Error": "class org.tron.core.exception.NonUniqueObjectException : "
    "To get more than one asset, please use getAssetIssueById syntax"
}
BY_NAME_FIELDS = {
    "id",
    "owner_address",
    "name",
    "abbr",
    "total_supply",
    "trx_num",
    "num",
    "start_time",
    "end_time",
    "description",
    "url",
}
LIST_ONLY_FIELDS = {
    "precision",
    "free_asset_net_limit",
    "public_free_asset_net_limit",
    "frozen_supply",
}
HEX = re.compile(r"(?:[0-9a-f]{2})+")


@pytest.fixture(scope="module")
def tron(http, nodes):
    def post(path: str, **body):
        response = http.post(nodes["tron-mainnet"] + path, json=body)
        assert response.status_code == 200, response.text
        return response.json()

    return post


def test_asset_by_name_with_visible_false_takes_and_gives_hex(tron, demo):
    name = demo.tron.unique_name
    body = tron("/wallet/getassetissuebyname", value=enc.utf8_to_hex(name))
    (record,) = body["assetIssue"]
    assert set(record) <= BY_NAME_FIELDS
    assert {"id", "owner_address", "name", "abbr", "total_supply"} <= set(record)
    assert enc.hex_to_utf8(record["name"]) == name
    assert HEX.fullmatch(record["description"]) and HEX.fullmatch(record["url"])
    assert re.fullmatch(r"41[0-9a-f]{40}", record["owner_address"])
    assert record["id"] == demo.tron.assets[0].id


def test_asset_by_name_with_visible_true_is_plain_text_and_base58(tron, demo):
    body = tron("/wallet/getassetissuebyname", value="Café Crème", visible=True)
    (record,) = body["assetIssue"]
    assert record["name"] == "Café Crème"
    assert record["owner_address"].startswith("T")
    assert enc.tron_to_hex(record["owner_address"])  # a valid base58check address
    assert tron("/wallet/getassetissuebyname", value="沙币", visible=True)["assetIssue"]


def test_ambiguous_name_is_the_java_tron_error(tron, demo):
    name = demo.tron.ambiguous_name
    assert tron("/wallet/getassetissuebyname", value=enc.utf8_to_hex(name)) == AMBIGUOUS
    assert tron("/wallet/getassetissuebyname", value=name, visible=True) == AMBIGUOUS


def test_list_by_name_returns_every_match_with_the_list_fields(tron, demo):
    body = tron("/wallet/getassetissuelistbyname", value=demo.tron.ambiguous_name)
    records = body["assetIssue"]
    assert [r["id"] for r in records] == list(demo.tron.ambiguous_ids)
    assert len(records) == 2
    for record in records:
        assert set(record) <= BY_NAME_FIELDS | LIST_ONLY_FIELDS
        assert record["precision"] == 6
        assert enc.hex_to_utf8(record["name"]) == demo.tron.ambiguous_name  # hex, per the spec
        assert record["owner_address"].startswith("T")  # visible defaults to true here
    frozen = [entry for r in records for entry in r.get("frozen_supply", [])]
    assert frozen and all(set(e) == {"frozen_amount", "frozen_days"} for e in frozen)
    hex_name = enc.utf8_to_hex(demo.tron.ambiguous_name)
    hex_body = tron("/wallet/getassetissuelistbyname", value=hex_name, visible=False)
    assert [r["id"] for r in hex_body["assetIssue"]] == list(demo.tron.ambiguous_ids)
    assert hex_body["assetIssue"][0]["owner_address"].startswith("41")


def test_recommended_flow_list_then_by_id(tron, demo):
    records = tron("/wallet/getassetissuelistbyname", value=demo.tron.ambiguous_name)
    wanted = records["assetIssue"][1]["id"]
    record = tron("/wallet/getassetissuebyid", value=wanted)
    assert record["id"] == wanted
    assert enc.hex_to_utf8(record["abbr"]) == "USDT"


def test_by_id_keeps_supplies_above_int64_exact(http, nodes, demo):
    response = http.post(
        nodes["tron-mainnet"] + "/wallet/getassetissuebyid", json={"value": demo.tron.big_supply_id}
    )
    assert b'"total_supply":10000000000000000007' in response.content
    assert response.json()["total_supply"] == 10**19 + 7 > 2**63


def test_zero_fields_are_omitted_and_not_found_is_empty(tron, demo):
    by_id = {a.name: a.id for a in demo.tron.assets}
    tumbleweed = tron("/wallet/getassetissuebyid", value=by_id["Tumbleweed"])
    assert "precision" not in tumbleweed and "description" not in tumbleweed
    assert "frozen_supply" not in tumbleweed and "free_asset_net_limit" not in tumbleweed
    assert tron("/wallet/getassetissuebyid", value="999") == {}
    assert tron("/wallet/getassetissuebyname", value="nobody", visible=True) == {}
    assert tron("/wallet/getassetissuelistbyname", value="nobody") == {}
    assert len(demo.tron.assets) >= 25 and demo.tron.assets[0].id == "1000001"


def test_validation_errors_are_http_200_error_strings(tron):
    error = tron("/wallet/getassetissuebyname", value="SandCoin")  # not hex, visible false
    assert error["Error"].startswith("class java.lang.IllegalArgumentException : value:")
    assert "Error" in tron("/wallet/getassetissuebyid", value="abc")
    assert "Error" in tron("/wallet/getassetissuebyname")
    assert "Error" in tron("/wallet/getassetissuebyname", value="00", colour="red")
    assert "Error" in tron("/wallet/getassetissuebyname", value="00", self="me")


def test_getblockbylatestnum_shape(tron, sandbox):
    head = sandbox.world.head("tron")
    blocks = tron("/wallet/getblockbylatestnum", num=5)["block"]
    assert [b["block_header"]["raw_data"]["number"] for b in blocks] == list(
        range(head - 4, head + 1)
    )
    for earlier, block in itertools.pairwise(blocks):
        raw = block["block_header"]["raw_data"]
        assert raw["parentHash"] == earlier["blockID"]
        assert raw["timestamp"] - earlier["block_header"]["raw_data"]["timestamp"] == 3_000
    for block in blocks:
        assert set(block) <= {"blockID", "block_header", "transactions"}
        assert re.fullmatch(r"[0-9a-f]{64}", block["blockID"])
        raw = block["block_header"]["raw_data"]
        assert int(block["blockID"][:16], 16) == raw["number"]
        assert set(raw) == {
            "number",
            "txTrieRoot",
            "witness_address",
            "parentHash",
            "version",
            "timestamp",
        }
        assert re.fullmatch(r"41[0-9a-f]{40}", raw["witness_address"])
        assert re.fullmatch(r"[0-9a-f]{130}", block["block_header"]["witness_signature"])


def test_transactions_have_real_ids_and_java_tron_fields(tron):
    blocks = tron("/wallet/getblockbylatestnum", num=30)["block"]
    transactions = [tx for block in blocks for tx in block.get("transactions", [])]
    assert len(transactions) > 30
    kinds = set()
    for tx in transactions:
        assert set(tx) == {"ret", "signature", "txID", "raw_data", "raw_data_hex"}
        assert hashlib.sha256(bytes.fromhex(tx["raw_data_hex"])).hexdigest() == tx["txID"]
        raw = tx["raw_data"]
        assert {"contract", "ref_block_bytes", "ref_block_hash", "expiration", "timestamp"} <= set(
            raw
        )
        (contract,) = raw["contract"]
        kinds.add(contract["type"])
        assert (
            contract["parameter"]["type_url"] == "type.googleapis.com/protocol." + contract["type"]
        )
        assert ("fee_limit" in raw) == (contract["type"] == "TriggerSmartContract")
        assert tx["ret"][0]["contractRet"] in ("SUCCESS", "REVERT")
    assert kinds == {"TransferContract", "TransferAssetContract", "TriggerSmartContract"}
    assert any(tx["ret"][0]["contractRet"] == "REVERT" for tx in transactions)


def test_visible_true_blocks_use_base58(tron):
    (block,) = tron("/wallet/getblockbylatestnum", num=1, visible=True)["block"]
    assert block["block_header"]["raw_data"]["witness_address"].startswith("T")


def test_getblockbylatestnum_limit(tron):
    assert len(tron("/wallet/getblockbylatestnum", num=100)["block"]) == 100
    error = tron("/wallet/getblockbylatestnum", num=101)
    assert set(error) == {"Error"} and "100" in error["Error"]
    assert "Error" in tron("/wallet/getblockbylatestnum", num=0)


def test_transaction_info_matches_the_block(tron, sandbox):
    head = sandbox.world.head("tron")
    blocks = tron("/wallet/getblockbylatestnum", num=40)["block"]
    busy = next(b for b in reversed(blocks) if b.get("transactions"))
    number = busy["block_header"]["raw_data"]["number"]
    infos = tron("/wallet/gettransactioninfobyblocknum", num=number)
    assert [i["id"] for i in infos] == [tx["txID"] for tx in busy["transactions"]]
    for info in infos:
        assert info["blockNumber"] == number
        assert info["blockTimeStamp"] == busy["block_header"]["raw_data"]["timestamp"]
        assert isinstance(info["contractResult"], list)
        assert set(info) <= {
            "id",
            "fee",
            "blockNumber",
            "blockTimeStamp",
            "contractResult",
            "contract_address",
            "receipt",
            "log",
            "result",
            "resMessage",
        }
        assert set(info["receipt"]) <= {
            "energy_usage",
            "energy_fee",
            "origin_energy_usage",
            "energy_usage_total",
            "net_usage",
            "net_fee",
            "result",
        }
        assert 0 not in info["receipt"].values() and info.get("fee", 1) != 0
    empty = next(b for b in blocks if not b.get("transactions"))
    assert "transactions" not in empty
    assert (
        tron(
            "/wallet/gettransactioninfobyblocknum", num=empty["block_header"]["raw_data"]["number"]
        )
        == []
    )
    assert tron("/wallet/gettransactioninfobyblocknum", num=0) == {}
    assert tron("/wallet/gettransactioninfobyblocknum", num=-5) == {}
    assert tron("/wallet/gettransactioninfobyblocknum", num=head + 1) == []


def test_contract_calls_have_energy_receipts_logs_and_failures(tron):
    infos = [
        info
        for block in tron("/wallet/getblockbylatestnum", num=60)["block"]
        for info in tron(
            "/wallet/gettransactioninfobyblocknum", num=block["block_header"]["raw_data"]["number"]
        )
    ]
    calls = [i for i in infos if "contract_address" in i]
    succeeded = [i for i in calls if i["receipt"]["result"] == "SUCCESS"]
    failed = [i for i in calls if i.get("result") == "FAILED"]
    assert succeeded and failed
    for info in succeeded:
        receipt = info["receipt"]
        assert (
            receipt["energy_usage_total"]
            == sum(receipt.get(k, 0) for k in ("energy_usage", "origin_energy_usage"))
            + receipt.get("energy_fee", 0) // 210
        )
        assert info["fee"] == receipt.get("energy_fee", 0) + receipt.get("net_fee", 0)
        (log,) = info["log"]
        assert set(log) == {"address", "topics", "data"}
        assert log["topics"][0] == enc.keccak256(b"Transfer(address,address,uint256)").hex()
    for info in failed:
        assert info["receipt"]["result"] == "REVERT"
        assert enc.hex_to_utf8(info["resMessage"]) == "REVERT opcode executed"
        assert "log" not in info
    plain = [i for i in infos if "contract_address" not in i]
    assert any("fee" not in i for i in plain)  # free bandwidth: no fee field at all


def test_proposal_delete_by_its_creator_is_an_unsigned_transaction(tron, demo, sandbox):
    pending = next(p for p in demo.tron.proposals if p.deletable)
    tx = tron("/wallet/proposaldelete", owner_address=pending.creator_hex, proposal_id=pending.id)
    assert {"txID", "raw_data", "raw_data_hex", "signature"} <= set(tx)
    assert tx["signature"] == []
    assert hashlib.sha256(bytes.fromhex(tx["raw_data_hex"])).hexdigest() == tx["txID"]
    raw = tx["raw_data"]
    assert set(raw) == {"contract", "ref_block_bytes", "ref_block_hash", "expiration", "timestamp"}
    (contract,) = raw["contract"]
    assert contract["type"] == "ProposalDeleteContract"
    assert contract["parameter"]["value"] == {
        "owner_address": pending.creator_hex,
        "proposal_id": pending.id,
    }
    head = sandbox.world.head("tron")
    assert raw["ref_block_bytes"] == f"{head & 0xFFFF:04x}"
    assert raw["expiration"] > raw["timestamp"]
    visible = tron(
        "/wallet/proposaldelete",
        owner_address=pending.creator,
        proposal_id=pending.id,
        visible=True,
    )
    assert visible["txID"] == tx["txID"]
    assert visible["raw_data"]["contract"][0]["parameter"]["value"]["owner_address"] == (
        pending.creator
    )


def test_proposal_delete_refusals_are_contract_validate_errors(tron, demo):
    prefix = "class org.tron.core.exception.ContractValidateException : "
    pending = next(p for p in demo.tron.proposals if p.deletable)
    other = next(p for p in demo.tron.proposals if p.creator != pending.creator)
    refused = tron("/wallet/proposaldelete", owner_address=other.creator, proposal_id=pending.id)
    assert refused == {
        "Error": f"{prefix}Proposal[{pending.id}] is not proposed by {other.creator_hex}"
    }
    executed = next(p for p in demo.tron.proposals if p.state == "APPROVED")
    refused = tron(
        "/wallet/proposaldelete", owner_address=executed.creator, proposal_id=executed.id
    )
    assert refused == {"Error": f"{prefix}Proposal[{executed.id}] expired"}
    canceled = next(p for p in demo.tron.proposals if p.state == "CANCELED" and p.id > 10)
    refused = tron(
        "/wallet/proposaldelete", owner_address=canceled.creator, proposal_id=canceled.id
    )
    assert refused == {"Error": f"{prefix}Proposal[{canceled.id}] canceled"}
    refused = tron("/wallet/proposaldelete", owner_address=pending.creator, proposal_id=999)
    assert refused == {"Error": f"{prefix}Proposal[999] not exists"}
    alice = demo.tron.accounts["alice"]
    refused = tron("/wallet/proposaldelete", owner_address=alice, proposal_id=pending.id)
    assert refused["Error"].startswith(prefix + "Witness[")
    assert "Error" in tron("/wallet/proposaldelete", owner_address="T123", proposal_id=1)


def test_visible_true_is_honoured_by_every_endpoint_that_takes_it(tron, demo, sandbox):
    # java-tron's JsonFormat with visible: base58 addresses and plain-text asset names, everywhere
    sand = next(a for a in demo.tron.assets if a.name == "SandCoin")
    by_id = tron("/wallet/getassetissuebyid", value=sand.id, visible=True)
    assert by_id["name"] == "SandCoin" and by_id["abbr"] == "SAND"
    assert by_id["owner_address"].startswith("T")
    assert tron("/wallet/getassetissuebyid", value=sand.id)["name"] == enc.utf8_to_hex("SandCoin")
    listed = tron("/wallet/getassetissuelistbyname", value=demo.tron.ambiguous_name, visible=True)[
        "assetIssue"
    ]
    assert {r["name"] for r in listed} == {demo.tron.ambiguous_name}
    assert all(r["owner_address"].startswith("T") for r in listed)
    head = sandbox.world.head("tron")
    for number in range(head - 40, head):
        infos = tron("/wallet/gettransactioninfobyblocknum", num=number, visible=True)
        logged = [i for i in infos if i.get("log")]
        if logged:
            break
    else:
        pytest.fail("no block with a contract log in the last 40")
    hex_infos = tron("/wallet/gettransactioninfobyblocknum", num=number)
    hex_logged = [i for i in hex_infos if i.get("log")]
    assert logged[0]["contract_address"].startswith("T")
    # the log's 20-byte EVM address is shown as the base58 address of 41 + those bytes
    assert logged[0]["log"][0]["address"] == enc.tron_to_base58(
        "41" + hex_logged[0]["log"][0]["address"]
    )
