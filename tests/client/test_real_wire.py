"""The client's reading path on real published bodies, served over loopback HTTP as recorded
(tests/fixtures/real/, sources in SOURCES.md), and what the client puts on the wire."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

import toolkit
from tests.fixtures.real_bodies import REAL, real
from tests.loopback import LoopbackHTTPServer
from toolkit import frames

KEY = "9f8e7d6c5b4a39281706f5e4d3c2b1a0"  # a made-up access key: it must never be shown


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

        self.server = LoopbackHTTPServer(("127.0.0.1", 0), Handler)
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
    assert frames.evm_printed_blocks(dump)["number"][0] == 236
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
    row = frames.tron_asset_issues(
        tron.call("wallet/getassetissuebyname", value="303044696365")
    ).iloc[0]
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
    df = frames.tron_asset_issues(tron.get_asset_issue_list_by_name("TRN"))
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


def test_infuras_backoff_seconds_longer_than_the_deadline_fails_at_once(replay):
    """Infura's published 429 asks for 30 s in `data.backoff_seconds`: a call with 5 s left is
    not retried after the 0.25 s default backoff (each attempt billed), it fails at once."""
    replay.reply = lambda request: (429, real("evm_429_backoff_seconds_infura_docs.json"))
    node = toolkit.node(replay.url, chain="ethereum", cache=False, timeout=5)
    started = time.monotonic()
    with pytest.raises(toolkit.RateLimited) as caught:
        node.block_number()
    assert time.monotonic() - started < 2
    assert caught.value.retry_after == 30.0 and caught.value.attempts == 1
    assert len(replay.requests) == 1


def test_infuras_backoff_seconds_within_the_deadline_is_waited_then_retried(replay):
    body = real("evm_429_backoff_seconds_infura_docs.json")
    body["error"]["data"]["backoff_seconds"] = 0.4  # the published body, with a shorter wait
    answers = iter([(429, body), (200, {"jsonrpc": "2.0", "result": "0x10"})])

    def reply(request):
        status, answer = next(answers)
        return status, {**answer, "id": request["id"]}

    replay.reply = reply
    started = time.monotonic()
    assert replay.node("ethereum").block_number() == 16
    assert time.monotonic() - started >= 0.4 and len(replay.requests) == 2


def test_a_zero_backoff_nested_under_rate_is_read_and_still_backs_off():
    """A live Infura 429 said ``data.rate.backoff_seconds: 0``: it is read (0 s), and the retry
    still waits the policy's backoff rather than asking again at once."""
    from toolkit.client._answers import check_status
    from toolkit.client._http import Answer
    from toolkit.client._transport import RetryPolicy

    content = (REAL / "evm_429_backoff_zero_infura_live.json").read_bytes()
    with pytest.raises(toolkit.RateLimited) as caught:
        check_status(Answer(429, {}, content))
    assert caught.value.retry_after == 0.0
    policy = RetryPolicy(backoff_s=0.2)
    assert all(0.1 <= policy.delay(caught.value, 0) <= 0.2 for _ in range(50))


@pytest.mark.parametrize(
    ("name", "status"),
    [
        ("evm_429_daily_request_count_infura_docs.json", 429),
        ("evm_402_daily_credit_limit_infura_docs.json", 402),
        ("evm_429_monthly_capacity_alchemy_live.json", 429),
        ("evm_403_monthly_capacity_alchemy_live.json", 403),
        ("evm_403_monthly_capacity_alchemy_live.json", 200),  # as an answer's error object
    ],
)
def test_a_spent_quota_is_quota_exceeded_and_never_retried(replay, name, status):
    replay.reply = lambda request: (status, real(name))
    with pytest.raises(toolkit.QuotaExceeded) as caught:
        replay.node("ethereum").block_number()
    error = caught.value
    assert isinstance(error, toolkit.ResponseError) and not isinstance(error, toolkit.RateLimited)
    assert error.status == status and error.attempts == 1 and len(replay.requests) == 1
    assert "quota" in str(error) and KEY not in str(error)


def test_a_402_without_a_body_and_a_402_to_a_batch_are_quota_exceeded(replay):
    replay.reply = lambda request: (402, b"")
    with pytest.raises(toolkit.QuotaExceeded):
        replay.node("ethereum").block_number()
    replay.requests.clear()
    replay.reply = lambda request: (402, real("evm_402_daily_credit_limit_infura_docs.json"))
    calls = [("eth_blockNumber",), ("eth_chainId",)]
    with pytest.raises(toolkit.QuotaExceeded):  # not BatchRefused: calls one by one would pay
        replay.node("ethereum").batch(calls)
    assert len(replay.requests) == 1


def test_a_per_second_limit_is_still_a_rate_limit_not_a_quota(replay):
    """Alchemy's per-second refusal shares code 429 with its monthly one; only words differ."""
    body = real("evm_429_compute_units_per_second_alchemy_live.json")
    replay.reply = lambda request: (429, body)
    node = toolkit.node(replay.url, chain="ethereum", cache=False, retry=toolkit.RetryPolicy(2))
    with pytest.raises(toolkit.RateLimited):
        node.block_number()
    assert len(replay.requests) == 2


def test_a_rate_limit_relayed_inside_a_32000_error_is_rate_limited_and_retried(replay):
    """An OP Stack node relays its sequencer's 429 as the message of a -32000 error (a live
    Base answer): the words say rate limit, so it is a `RateLimited`, retried as one."""
    body = real("evm_200_sequencer_429_over_rate_limit_base_live.json")
    assert body["error"]["code"] == -32000
    answers = iter([body, {"jsonrpc": "2.0", "result": "0x10"}])
    replay.reply = lambda request: (200, {**next(answers), "id": request["id"]})
    assert replay.node("ethereum").block_number() == 16
    assert len(replay.requests) == 2
    replay.requests.clear()
    replay.echo(body)
    node = toolkit.node(replay.url, chain="ethereum", cache=False, retry=toolkit.RetryPolicy(2))
    with pytest.raises(toolkit.RateLimited) as caught:
        node.block_number()
    assert "over rate limit" in str(caught.value) and len(replay.requests) == 2


def test_a_batch_item_relaying_a_rate_limit_is_rate_limited():
    from toolkit.client._answers import interpret_rpc

    body = real("evm_200_sequencer_429_over_rate_limit_base_live.json")
    with pytest.raises(toolkit.RateLimited):
        interpret_rpc(body, None, 200)


@pytest.mark.parametrize(
    "message",
    [
        "exceeds block gas limit",  # geth's ErrGasLimit: the transaction, not the rate
        "Block range limit exceeded.",
        "execution reverted: rate limit exceeded",  # a contract's own words
    ],
)
def test_a_limit_that_is_not_a_rate_is_an_rpc_error_not_retried(message):
    from toolkit.client._answers import interpret_rpc

    with pytest.raises(toolkit.RPCError):
        interpret_rpc({"id": 1, "error": {"code": -32000, "message": message}}, 1, 200)


def test_a_toncenter_5xx_is_retried_like_an_evm_5xx(replay):
    """toncenter answers a lite server's timeout with a 504 in its own error shape; it is the
    server's trouble, retried as an EVM 504 is (a 4xx TON error is not)."""
    # The 504 body is the one toncenter's API server builds for a lite-server timeout (its
    # source, cited in SOURCES.md); the answer after it is a real one.
    answers = iter(
        [
            (504, real("ton_504_liteserver_timeout_ton_http_api.json")),
            (200, real("ton_getmasterchaininfo_toncenter_docs.json")),
        ]
    )
    replay.reply = lambda request: next(answers)
    info = replay.node("ton").get_masterchain_info()
    assert info["last"]["seqno"] == 51148696 and len(replay.requests) == 2
    replay.requests.clear()
    replay.reply = lambda request: (404, {"ok": False, "code": 404, "error": "not found"})
    with pytest.raises(toolkit.TonError) as caught:
        replay.node("ton").get_masterchain_info()
    assert caught.value.status == 404 and len(replay.requests) == 1


def test_a_tron_5xx_is_retried_like_an_evm_5xx(replay):
    """TronGrid answers a client over its per-second limit with HTTP 503 and a TRON error body
    (its rate-limit page): the server's trouble, retried as an EVM or TON 5xx is. The same body
    with 403 (its 30 s penalty for callers without a key) is not retried."""
    limited = real("tron_503_frequency_limit_trongrid_docs.json")
    block = real("tron_getnowblock_nile.jsonc")
    answers = iter([(503, limited), (200, block)])
    replay.reply = lambda request: next(answers)
    assert replay.node("tron").get_now_block() == block and len(replay.requests) == 2
    replay.requests.clear()
    replay.reply = lambda request: (403, limited)
    with pytest.raises(toolkit.TronError, match="frequency limit") as caught:
        replay.node("tron").get_now_block()
    assert caught.value.status == 403 and len(replay.requests) == 1


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


# --- the read methods real clients call first, on real bodies ------------------------------------


@pytest.mark.parametrize(
    ("fixture", "helper", "args", "expected"),
    [
        ("evm_eth_chainid_execution_apis.json", "chain_id", (), 3503995874084926),
        ("evm_net_version_execution_apis.json", "net_version", (), "3503995874084926"),
        ("evm_eth_gasprice_getblock.json", "gas_price", (), 27_261_650_066),
        (
            "evm_eth_getcode_execution_apis.json",
            "get_code",
            ("0x7dcd17433742f4c0ca53122ab541d0ba67fc27df", "latest"),
            "0x3680600080376000206000548082558060010160005560005263656d697460206000a2",
        ),
        (
            "evm_eth_getcode_unknown_account_execution_apis.json",
            "get_code",
            ("0xc1cadaffffffffffffffffffffffffffffffffff", "latest"),
            "0x",
        ),
        (
            "evm_eth_gettransactioncount_execution_apis.json",
            "get_transaction_count",
            ("0x0300100f529a704d19736a8714837adbc934db7f", "latest"),
            1,
        ),
    ],
)
def test_real_evm_scalars_through_the_client(replay, fixture, helper, args, expected):
    replay.echo(real(fixture))  # the id is the request's, whatever the publisher's was
    node = replay.node("ethereum")
    assert getattr(node, helper)(*args) == expected
    assert replay.requests[-1][1]["method"] == real_method(fixture)


def real_method(fixture: str) -> str:
    return {
        "evm_eth_chainid_execution_apis.json": "eth_chainId",
        "evm_net_version_execution_apis.json": "net_version",
        "evm_eth_gasprice_getblock.json": "eth_gasPrice",
        "evm_eth_getcode_execution_apis.json": "eth_getCode",
        "evm_eth_getcode_unknown_account_execution_apis.json": "eth_getCode",
        "evm_eth_gettransactioncount_execution_apis.json": "eth_getTransactionCount",
    }[fixture]


def answer_with_head(replay: Replay, body: dict[str, Any], head: int = 0x36) -> None:
    """Answer `body`, except the head the archive rule asks for (eth_blockNumber)."""

    def reply(request: dict[str, Any] | None) -> tuple[int, Any]:
        request = request or {}
        if request.get("method") == "eth_blockNumber":
            return 200, {"jsonrpc": "2.0", "id": request.get("id"), "result": hex(head)}
        return 200, {**body, "id": request.get("id")}

    replay.reply = reply


def test_real_blocks_and_logs_through_the_client(replay):
    node = replay.node("ethereum")
    replay.echo(real("evm_eth_getblockbynumber_latest_full_execution_apis.json"))
    block = node.get_block("latest", full=True)
    assert replay.requests[-1][1]["params"] == ["latest", True]
    assert frames.evm_blocks(block)["number"][0] == 0x36
    assert frames.evm_block_transactions(block)["nonce"].tolist() == [0xF5, 0xF6, 0xF7, 0xF8]
    answer_with_head(replay, real("evm_eth_getblockbynumber_notfound_execution_apis.json"))
    assert node.get_block(0x3E8, full=True) is None  # null above the head is an answer
    assert frames.evm_blocks(None).empty
    answer_with_head(replay, real("evm_eth_getlogs_execution_apis.json"))
    logs = node.get_logs(
        {"address": ["0x7dcd17433742f4c0ca53122ab541d0ba67fc27df"], "fromBlock": 1, "toBlock": 4}
    )
    assert frames.evm_logs(logs)["block_number"].tolist() == [2, 4]


def test_a_real_block_of_type_2_transactions_through_the_client(replay):
    # eth_simulateV1's block, marshalled as eth_getBlockByNumber's, served as its answer
    (block,) = real("evm_eth_simulatev1_type2_blocks_execution_apis.json")["result"]
    answer_with_head(replay, {"jsonrpc": "2.0", "result": block}, head=0x37)
    result = replay.node("ethereum").get_block(0x37, full=True)
    txs = frames.evm_block_transactions(result)
    assert txs["max_fee_per_gas_wei"].tolist() == [16, 16] and txs["type"].tolist() == [2, 2]


@pytest.mark.parametrize(
    ("fixture", "helper", "args", "path", "number"),
    [
        ("tron_getnowblock_nile.jsonc", "get_now_block", (), "wallet/getnowblock", 66987627),
        (
            "tron_getblockbynum_nile.jsonc",
            "get_block_by_num",
            (66987565,),
            "wallet/getblockbynum",
            66987565,
        ),
    ],
)
def test_real_tron_blocks_through_the_client(replay, fixture, helper, args, path, number):
    body = real(fixture)
    replay.reply = lambda request: (200, body)
    result = getattr(replay.node("tron"), helper)(*args)
    assert replay.requests[-1][0] == f"/{KEY}/{path}"
    assert frames.tron_blocks(result)["number"].tolist() == [number]


def test_real_tron_account_and_node_info_through_the_client(replay):
    tron = replay.node("tron")
    account = real("tron_getaccount_nile.json")
    replay.reply = lambda request: (200, account)
    result = tron.get_account("41dd791d6b49e190062d650e6a23c575510d35f2f9")
    path, sent = replay.requests[-1]
    assert path == f"/{KEY}/wallet/getaccount"
    assert sent["address"] == "41dd791d6b49e190062d650e6a23c575510d35f2f9"
    assert frames.tron_account(result)["balance_sun"][0] == 1793227200
    assert frames.tron_account_assets(result)["asset_id"].tolist() == ["1005416"]
    replay.reply = lambda request: (200, {})  # an address that is not on chain
    assert frames.tron_account(tron.get_account("TZ4UXDV5ZhNW7fb2AMSbgfAEZ7hWsnYS2g")).empty
    info = real("tron_getnodeinfo_mainnet_getblock.json")
    replay.reply = lambda request: (200, info)
    result = tron.get_node_info()
    assert frames.tron_node_info(result)["block_number"][0] == 71562193
    assert len(frames.tron_node_peers(result)) == 9
    assert tron.ledger.total_ru == 3  # TRON requests are 1 RU each


@pytest.mark.parametrize(
    "fixture",
    ["ton_getmasterchaininfo_toncenter_docs.json", "ton_getmasterchaininfo_jsonrpc_getblock.json"],
)
def test_real_masterchain_info_through_the_client(replay, fixture):
    body = real(fixture)
    replay.reply = lambda request: (200, body)
    ton = replay.node("ton")
    result = ton.get_masterchain_info()
    assert replay.requests[-1][0] == f"/{KEY}/api/v2/getMasterchainInfo"
    row = frames.ton_masterchain_info(result).iloc[0]
    assert row["seqno"] == body["result"]["last"]["seqno"] and row["init_shard"] == "0"


def test_real_address_forms_through_the_client(replay):
    body = real("ton_detectaddress_getblock_older.json")
    replay.reply = lambda request: (200, body)
    address = "EQDXZ2c5LnA12Eum-DlguTmfYkMOvNeFCh4rBD0tgmwjcFI-"
    result = replay.node("ton").detect_address(address)
    path, _ = replay.requests[-1]
    assert path.startswith(f"/{KEY}/api/v2/detectAddress?address=")
    row = frames.ton_address_forms(result).iloc[0]
    assert row["raw_form"] == body["result"]["raw_form"] and row["bounceable"] == address


def test_a_real_root_hash_through_the_client(replay):
    replay.echo(real("polygon_bor_getroothash_infura_docs.json"))
    root = replay.node("polygon").get_root_hash(1000, 1032)
    assert root == "67518d9fc6bf9ff886ba1a4e932a0d0a8a1318b3f300518773aaf2210410cf73"
    ((_, sent),) = replay.requests
    assert sent["method"] == "bor_getRootHash" and sent["params"] == [1000, 1032]


def test_real_unsigned_transaction_and_proposal_error_bodies_through_the_client(replay):
    owner = "419c7c7049d26108be0dcb5f78479c6ff27ba101d1"
    unsigned = real("tron_createtransaction_unsigned_nile.json")  # the kind proposaldelete answers
    replay.reply = lambda request: (200, unsigned)
    tron = replay.node("tron")
    assert tron.proposal_delete(owner, 1) == unsigned
    assert frames.tron_transaction(unsigned)["tx_id"][0] == unsigned["txID"]
    replay.reply = lambda request: (200, real("tron_proposaldelete_error_nile.json"))
    with pytest.raises(toolkit.TronError, match=r"Proposal\[1\] is not proposed by 419c7c"):
        tron.proposal_delete(owner, 1)
    path, body = replay.requests[-1]
    assert path.endswith("/wallet/proposaldelete") and body["proposal_id"] == 1


def test_a_real_tron_body_is_cached_as_it_came_and_reads_back_the_same(replay, tmp_path):
    """The published transaction infos, served as published (indented, one key per line): the
    response cache keeps that text as it is, and a new handle on the file reads back the same."""
    import sqlite3

    published = (REAL / "tron_gettransactioninfobyblocknum_nile.json").read_bytes()
    number = 66987565  # the block the publisher captured
    head = {"block": [{"block_header": {"raw_data": {"number": number + 100}}}]}
    replay.reply = lambda request: (200, published if request["num"] == number else head)
    cache = tmp_path / "responses.sqlite"
    first = toolkit.node(replay.url, chain="tron", cache=cache)
    assert first.get_transaction_info_by_block_num(number) == real(
        "tron_gettransactioninfobyblocknum_nile.json"
    )
    first.cache.flush()
    with sqlite3.connect(cache) as db:
        assert db.execute("SELECT result FROM responses").fetchall() == [(published.decode(),)]
    asked = len(replay.requests)
    again = toolkit.node(replay.url, chain="tron", cache=cache)
    assert again.get_transaction_info_by_block_num(number) == real(
        "tron_gettransactioninfobyblocknum_nile.json"
    )
    assert len(replay.requests) == asked and again.ledger.entries[-1].cache_hit
    for node in (first, again):
        node.cache.close()
        node.close()


def test_an_error_quoting_another_nodes_url_shows_no_key_of_it(replay):
    # A proxy that forwards to a node behind it quotes that node's URL, key and all, in its
    # error (the toolkit was never told that key: only key material in URLs gives it away).
    upstream = "https://mainnet.upstream.example/v3/4b0e6c8f2a9d47e1b3c5a7f9d1e3b5c7"
    message = f"upstream {upstream} answered 502 Bad Gateway"
    replay.echo({"jsonrpc": "2.0", "error": {"code": -32000, "message": message}})
    with pytest.raises(toolkit.RPCError) as caught:
        replay.node("ethereum").block_number()
    shown = f"{caught.value} {caught.value!r} {caught.value.message}"
    assert "mainnet.upstream.example" in shown and "502 Bad Gateway" in shown
    assert "4b0e6c8f" not in shown, shown
