"""A tape keys its calls by the one call key (`_identity.CallKey`), and tapes written before it
did (their lines as the wire named each call: ``POST /wallet/x``, TON's jsonRPC inner method)
are keyed the same when read: a committed notebook tape replays its REST and jsonRPC calls."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import toolkit
from toolkit.catalog import lookup
from toolkit.client._identity import call_key
from toolkit.client._tapefile import parse_tape, recorded_gateway

NOTEBOOK_TAPES = Path(__file__).parents[2] / "notebooks" / "tapes"
TON_FRIENDLY = "EQDlLlW8lbYp2s1_XXP5gmZuRdO7wqABKhgZrZ2FMpn51yRV"


def recorded_answer(path: Path, call: str, params: dict) -> dict:
    text = json.dumps(params, separators=(",", ":"), sort_keys=True)
    _, records = parse_tape(path.read_bytes(), path)
    (record,) = [r for r in records if r["call"] == call and r["params"] == text]
    return record["answers"][0]


def test_a_notebook_tape_recorded_before_the_one_key_replays_tons_json_rpc(tmp_path):
    tape = tmp_path / "07.tape.gz"  # recorded by `make tapes`: its line names the inner method
    shutil.copy(NOTEBOOK_TAPES / "07_ton_tokens.tape.gz", tape)
    kept = recorded_answer(tape, "unpackAddress", {"address": TON_FRIENDLY})
    replay = toolkit.connect(tape=tape, tape_mode="replay")
    ton = replay.node("ton-mainnet")
    assert ton.json_rpc("unpackAddress", address=TON_FRIENDLY) == kept["item"]["result"]
    row = replay.ledger.frame.iloc[-1]
    assert row["method"] == "api/v2/jsonRPC" and row["ru"] == 0 and row["recorded_ru"] == 1
    # The same params under another inner method is another call: a miss, not that answer.
    try:
        ton.json_rpc("detectAddress", address=TON_FRIENDLY)
    except toolkit.TapeMiss as miss:
        assert "detectAddress" in str(miss)
    else:
        raise AssertionError("another inner method took unpackAddress's answer")
    replay.close()


def test_a_notebook_tape_keys_its_lines_as_the_cache_keys_the_calls(tmp_path):
    """Each line of a committed tape, keyed when read, is the cache's key of the catalog call
    its line holds: REST lines by their catalog path, jsonRPC lines with their inner method."""
    from toolkit.client._tapefile import calls_of

    path = NOTEBOOK_TAPES / "03_tron_assets_and_fees.tape.gz"
    header, calls = calls_of(path.read_bytes(), path)
    gateway = recorded_gateway(header, "tron-mainnet", "tron")
    bound = lookup("wallet/getassetissuebyid").bind("1000012", False)
    assert call_key(gateway, "tron-mainnet", bound) in calls
    path = NOTEBOOK_TAPES / "07_ton_tokens.tape.gz"
    header, calls = calls_of(path.read_bytes(), path)
    gateway = recorded_gateway(header, "ton-mainnet", "ton")
    bound = lookup("api/v2/jsonRPC").bind("unpackAddress", {"address": TON_FRIENDLY})
    assert call_key(gateway, "ton-mainnet", bound) in calls


def test_a_recording_keeps_how_fast_the_sandbox_counts_time(tmp_path):
    """The header's `request_s` (set for a recording from the sandbox) is written with the
    tape: a replay then counts time as the recording did."""
    tape = tmp_path / "t.tape.gz"
    gateway = toolkit.connect(tape=tape, tape_mode="record", sandbox=True)
    pace = gateway.shared.tape.header["request_s"]
    gateway.node("ethereum-mainnet").head()
    gateway.close()
    header = json.loads(gzip.decompress(tape.read_bytes()).decode().splitlines()[0])
    assert header["request_s"] == pace
    replay = toolkit.connect(tape=tape, tape_mode="replay")
    assert replay.meter.clock.request_s == pace
    replay.close()
