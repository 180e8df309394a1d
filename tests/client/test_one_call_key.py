"""One call written two ways (an address checksummed, then in lower case; a block as an int,
then as hex) is one call to the response cache (not paid again), to a dataset (no duplicate
row, not sent again) and to a tape (replayed, not a miss)."""

from __future__ import annotations

import gzip
import json

import toolkit
from toolkit.catalog import encoding as enc
from toolkit.sandbox import DEMO
from toolkit.workloads._workload import Workload

CHECKSUMMED = enc.to_checksum_address(DEMO.evm.accounts["alice"])
LOWER = CHECKSUMMED.lower()
assert CHECKSUMMED != LOWER


def metered_ru(sandbox) -> int:
    return sum(usage["ru"] for usage in sandbox.metering().values())


def test_the_cache_answers_a_lower_case_address_paid_for_checksummed(
    make_gateway, sandbox, cache_path
):
    gateway = make_gateway(cache=cache_path)
    eth = gateway.node("ethereum-mainnet")
    block = eth.head() - 1000
    paid = eth.get_balance(CHECKSUMMED, block)
    spent = metered_ru(sandbox)
    assert eth.get_balance(LOWER, hex(block).upper().replace("0X", "0x")) == paid
    assert metered_ru(sandbox) == spent
    assert gateway.ledger.entries[-1].cache_hit


def test_a_dataset_resumed_with_the_other_spelling_sends_nothing_and_adds_no_row(
    make_gateway, sandbox, tmp_path
):
    eth = make_gateway().node("ethereum-mainnet")
    blocks = [eth.head() - 500, eth.head() - 400]
    first = Workload().grid(eth, "eth_getBalance", [CHECKSUMMED], blocks)
    first.run(progress=False, dataset=tmp_path / "ds")
    spent = metered_ru(sandbox)
    again = Workload().grid(eth, "eth_getBalance", [LOWER], [hex(b) for b in blocks])
    frame = again.run(progress=False, dataset=tmp_path / "ds")
    assert metered_ru(sandbox) == spent
    assert len(frame) == 2 and frame["error"].isna().all()
    assert len(toolkit.read_dataset(tmp_path / "ds")) == 2


def test_a_tape_replays_the_call_however_it_is_spelt(tmp_path, monkeypatch):
    tape = tmp_path / "t.tape.gz"
    gateway = toolkit.connect(tape=tape, tape_mode="record", sandbox=True, head_ttl_s=3600)
    eth = gateway.node("ethereum-mainnet")
    block = eth.head() - 300
    paid = eth.get_balance(CHECKSUMMED, block)
    gateway.close()
    replay = toolkit.connect(tape=tape, tape_mode="replay", head_ttl_s=3600)
    assert replay.node("ethereum-mainnet").get_balance(LOWER, hex(block)) == paid
    replay.close()
    # A tape whose keys hold the spelling that was sent (recorded before keys were canonical)
    lines = gzip.decompress(tape.read_bytes()).decode().splitlines()
    lines = [line.replace(LOWER, CHECKSUMMED) for line in lines]
    assert any(CHECKSUMMED in line for line in lines)
    old = tmp_path / "old.tape.gz"
    old.write_bytes(gzip.compress("\n".join(lines).encode()))
    replay = toolkit.connect(tape=old, tape_mode="replay", head_ttl_s=3600)
    assert replay.node("ethereum-mainnet").get_balance(LOWER, block) == paid
    replay.close()
    assert json.loads(lines[0])  # the header, untouched


def test_a_dataset_tells_tons_json_rpc_inner_methods_apart(make_gateway, sandbox, tmp_path):
    # The inner method travels beside the params: a dataset that matched rows by their params
    # alone answered detectAddress with unpackAddress's row, at 0 RU.
    ton = make_gateway().node("ton-mainnet")
    address = {"address": DEMO.ton.jettons[0].address}
    answers = {}
    for inner in ("unpackAddress", "detectAddress"):
        work = Workload().add(ton, "api/v2/jsonRPC", inner, address)
        frame = work.run(progress=False, dataset=tmp_path / "ds")
        assert frame["error"].isna().all() and frame["ru"].iloc[0] > 0
        assert json.loads(frame["params"].iloc[0]) == {"method": inner, "params": address}
        answers[inner] = frame["result"].iloc[0]
    assert answers["unpackAddress"] != answers["detectAddress"]
    assert len(toolkit.read_dataset(tmp_path / "ds")) == 2
