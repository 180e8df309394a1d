"""The client's reading path on real published bodies, served over loopback HTTP as recorded
(tests/fixtures/real/, sources in SOURCES.md), and what the client puts on the wire."""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

import toolkit
from toolkit import frames

REAL = Path(__file__).parents[1] / "fixtures" / "real"
KEY = "a1b2c3d4e5f60718293a4b5c6d7e8f90"  # a made-up access key: it must never be shown


def real(name: str) -> Any:
    text = (REAL / name).read_text(encoding="utf-8")
    if name.endswith(".jsonc"):
        text = re.sub(r"/\*.*?\*/", "", text)
    return json.loads(text)


Reply = Callable[[dict[str, Any] | None], tuple[int, Any]]


class Replay:
    """A loopback node that answers every request with `reply(request_json)` and keeps what it
    was asked (path, query, JSON body)."""

    def __init__(self) -> None:
        self.reply: Reply = lambda request: (200, {})
        self.requests: list[tuple[str, Any]] = []
        replay = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length)) if length else None
                replay.requests.append((self.path, body))
                status, payload = replay.reply(body)
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = _answer

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/{KEY}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def node(self, chain: str) -> Any:
        return toolkit.node(self.url, chain=chain, cache=False)

    def echo(self, body: Any, *, id_as: Callable[[Any], Any] = lambda i: i) -> None:
        """Answer JSON-RPC with `body`, its id replaced by the request's, through `id_as`."""

        def reply(request: dict[str, Any] | None) -> tuple[int, Any]:
            return 200, {**body, "id": id_as((request or {}).get("id"))}

        self.reply = reply


@pytest.fixture
def replay() -> Iterator[Replay]:
    server = Replay()
    yield server
    server.server.shutdown()
    server.server.server_close()


def test_print_block_sends_a_decimal_integer_and_reads_a_real_spew_dump(replay):
    replay.echo(real("evm_debug_print_block_spew_go_quai.json"))
    node = replay.node("arbitrum")
    for given in (250_000_000, hex(250_000_000)):
        dump = node.print_block(given)
        assert replay.requests[-1][1]["params"] == [250_000_000]  # a JSON integer, not "0x..."
    assert frames.print_block_frame(dump)["number"][0] == 236
    assert node.ledger.total_ru == 4  # debug_* is 2 RU a call


def test_a_toncenter_answer_with_the_id_as_a_string_is_read_once(replay):
    body = {"ok": True, "result": "0:" + "83" * 32, "jsonrpc": "2.0"}
    replay.echo(body, id_as=str)  # toncenter types the id as a string: 7 comes back as "7"
    node = replay.node("ton")
    assert node.unpack_address("EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N") == body["result"]
    assert len(replay.requests) == 1 and isinstance(replay.requests[0][1]["id"], int)
    assert node.ledger.total_ru == 1


@pytest.mark.parametrize(
    "fixture", ["ton_gettokendata_older_drpc.json", "ton_gettokendata_current_excerpt.json"]
)
def test_real_token_data_bodies_through_the_client(replay, fixture):
    body = real(fixture)
    replay.reply = lambda request: (200, body)
    address = "EQBZ6nHfmT2wct9d4MoOdNPzhtUGXOds1y3NTmYUFHAA3uvV"
    result = replay.node("ton").get_token_data(address)
    path, _ = replay.requests[-1]
    assert path.startswith(f"/{KEY}/api/v2/getTokenData?address=")
    row = frames.ton_token_data(result, address=address).iloc[0]
    expected = body.get("result", body)
    assert row["total_supply"] == int(expected["total_supply"])
    assert row["mintable"] and row["contract_type"] == "jetton_master"


@pytest.mark.parametrize("wrapped", [False, True], ids=["bare (java-tron)", "wrapped (spec)"])
def test_asset_by_name_reads_the_bare_record_and_the_wrapped_one(replay, wrapped):
    record = real("tron_getassetissuebyname_nile.json")
    replay.reply = lambda request: (200, {"assetIssue": [record]} if wrapped else record)
    tron = replay.node("tron")
    assert tron.get_asset_issue_by_name("00Dice") == record
    path, body = replay.requests[-1]
    assert path == f"/{KEY}/wallet/getassetissuebyname"
    assert body == {"value": "303044696365", "visible": False}  # one rule: visible sent, False
    row = frames.asset_issues(tron.call("wallet/getassetissuebyname", value="303044696365")).iloc[0]
    assert row["name"] == "00Dice" and row["precision"] == 6


def test_every_tron_helper_sends_visible_false_unless_asked(replay):
    replay.reply = lambda request: (200, {})
    tron = replay.node("tron")
    tron.get_asset_issue_by_name("TRN")
    tron.get_asset_issue_list_by_name("TRN")
    tron.get_asset_issue_by_id(1005416)
    tron.get_transaction_info_by_block_num(66987565)
    tron.get_block_by_latest_num(2)
    assert [body["visible"] for _, body in replay.requests] == [False] * 5
    assert replay.requests[1][1]["value"] == "54524e"  # hex of UTF-8, as visible=False needs
    tron.get_asset_issue_list_by_name("TRN", visible=True)
    assert replay.requests[-1][1] == {"value": "TRN", "visible": True}


def test_real_tron_bodies_through_the_client(replay):
    infos = real("tron_gettransactioninfobyblocknum_nile.json")
    replay.reply = lambda request: (200, infos)
    tron = replay.node("tron")
    assert tron.get_transaction_info_by_block_num(66987565) == infos
    replay.reply = lambda request: (200, {})  # TRON's answer for num <= 0
    assert tron.get_transaction_info_by_block_num(1) == []
    listed = real("tron_getassetissuelistbyname_nile.json")
    replay.reply = lambda request: (200, listed)
    df = frames.asset_issues(tron.get_asset_issue_list_by_name("TRN"))
    assert df["total_supply_tokens"].notna().all()


def test_a_429_json_rpc_rate_limit_waits_what_try_again_in_says_then_retries(replay):
    answers = iter(
        [
            (
                429,
                {
                    "error": {
                        "code": -32005,
                        "message": "RPS limit exceeded",
                        "data": {"try_again_in": "300ms"},
                    }
                },
            ),
            (200, {"jsonrpc": "2.0", "result": "0x10"}),
        ]
    )

    def reply(request):
        status, body = next(answers)
        return status, {**body, "id": request["id"]}

    replay.reply = reply
    node = replay.node("ethereum")
    started = time.monotonic()
    assert node.block_number() == 16
    assert time.monotonic() - started >= 0.3  # the hint, not the 0.25 s default backoff
    assert len(replay.requests) == 2


def test_a_429_asking_for_longer_than_the_client_waits_raises_at_once(replay):
    body = {"error": {"code": -32005, "message": "limit", "data": {"try_again_in": "1m30s"}}}
    replay.reply = lambda request: (429, body)
    with pytest.raises(toolkit.RateLimited) as caught:
        replay.node("ethereum").block_number()
    assert caught.value.retry_after == 90.0 and len(replay.requests) == 1
    assert KEY not in str(caught.value) and KEY not in repr(caught.value)


def test_platform_v1_credentials_in_raw_records_never_show(replay, caplog):
    from toolkit.client import platform

    record = real("platform_v1_node_chainstack_docs.json")
    secrets = [record["details"][f] for f in ("auth_key", "auth_password", "auth_username")]
    replay.reply = lambda request: (
        200,
        {"count": 1, "next": None, "previous": None, "results": [record]},
    )
    client = platform(replay.url.rsplit("/", 1)[0], "platform-api-key-0123456789")
    (listed,) = client.list_nodes()
    # the values still work as the strings they are ...
    assert [listed["details"][f] for f in ("auth_key", "auth_password", "auth_username")] == secrets
    assert listed["details"]["https_endpoint"] == record["details"]["https_endpoint"]
    # ... but no repr, log line or error message shows them
    shown = [repr(listed), str(listed), repr(client.list_nodes_page())]
    logging.getLogger("toolkit").warning("node record: %s", listed["details"]["auth_key"])
    shown += [r.getMessage() for r in caplog.records]
    shown.append(str(toolkit.GatewayError(f"refused {listed['details']['auth_password']}")))
    for text in shown:
        assert not any(secret in text for secret in secrets), text
