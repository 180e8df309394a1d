"""The error boundary and the retry policy, on in-memory HTTP answers (no network needed)."""

import httpx
import pytest

import toolkit
from toolkit.client._answers import (
    check_status,
    explain_platform,
    interpret_rpc,
    interpret_ton,
    interpret_tron,
    parse_duration,
    parse_json,
    parse_retry_after,
)
from toolkit.client._transport import RetryPolicy


def answer(status=200, body=b"", content_type="application/json", **headers):
    return httpx.Response(status, content=body, headers={"content-type": content_type, **headers})


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b'{"jsonrpc": "2.0", "id": 1, "res', "truncated or invalid JSON"),
        (b"<!DOCTYPE html><html><body>Bad gateway</body></html>", "not JSON"),
        (b"", "not JSON"),
    ],
)
def test_bodies_that_are_not_json_are_malformed_responses(body, reason):
    with pytest.raises(toolkit.MalformedResponse, match=reason):
        parse_json(answer(body=body, content_type="text/html"))


def test_json_with_a_wrong_content_type_is_still_read():
    assert parse_json(answer(body=b'{"a": 1}', content_type="text/plain")) == {"a": 1}


def test_429_carries_retry_after():
    with pytest.raises(toolkit.RateLimited) as caught:
        check_status(answer(429, b"<html>slow down</html>", "text/html", **{"retry-after": "2"}))
    assert caught.value.retry_after == 2.0 and caught.value.status == 429


def test_platform_errors_are_typed_and_401_is_authentication():
    body = b'{"error": {"code": "unauthorized", "message": "Invalid API key"}}'
    with pytest.raises(toolkit.AuthenticationError) as caught:
        check_status(answer(401, body), explain=explain_platform)
    assert caught.value.code == "unauthorized" and "Invalid API key" in str(caught.value)
    with pytest.raises(toolkit.PlatformError):
        check_status(
            answer(400, b'{"error": {"code": "bad", "message": "no"}}'), explain=explain_platform
        )


def test_5xx_is_an_http_status_error():
    with pytest.raises(toolkit.HTTPStatusError) as caught:
        check_status(answer(503, b"Service Unavailable", "text/plain"))
    assert caught.value.status == 503


def test_rpc_rate_limit_reply_becomes_rate_limited_with_try_again_in():
    body = {
        "jsonrpc": "2.0",
        "id": 7,
        "error": {
            "code": -32005,
            "message": "RPS limit exceeded",
            "data": {"try_again_in": "250ms"},
        },
    }
    with pytest.raises(toolkit.RateLimited) as caught:
        interpret_rpc(body, 7, 200)
    assert caught.value.retry_after == pytest.approx(0.25)


def test_rpc_error_object_and_id_echo():
    with pytest.raises(toolkit.RPCError) as caught:
        interpret_rpc(
            {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "bad"}}, 1, 200
        )
    assert caught.value.code == -32602
    with pytest.raises(toolkit.MalformedResponse, match="does not echo"):
        interpret_rpc({"jsonrpc": "2.0", "id": 2, "result": "0x1"}, 1, 200)
    with pytest.raises(toolkit.MalformedResponse, match="neither result nor error"):
        interpret_rpc({"jsonrpc": "2.0", "id": 1}, 1, 200)
    assert interpret_rpc({"jsonrpc": "2.0", "id": "a", "result": None}, "a", 200) is None


def test_an_id_echoed_as_a_string_is_the_same_id():
    # toncenter answers a request's 7 with "7" (its id is typed as a string)
    assert interpret_rpc({"jsonrpc": "2.0", "id": "7", "result": "ok"}, 7, 200) == "ok"
    assert interpret_rpc({"jsonrpc": "2.0", "id": 7, "result": "ok"}, "7", 200) == "ok"
    for other in ("8", "07", 7.5, True, None, [7]):
        with pytest.raises(toolkit.MalformedResponse, match="does not echo"):
            interpret_rpc({"jsonrpc": "2.0", "id": other, "result": "ok"}, 7, 200)


def test_tron_errors_and_the_ambiguous_name():
    ambiguous = {
        "Error": "class org.tron.core.exception.NonUniqueObjectException : To get more than one "
        "asset, please use getAssetIssueById syntax"
    }
    with pytest.raises(toolkit.AmbiguousAssetName) as caught:
        interpret_tron(ambiguous)
    assert "get_asset_issue_list_by_name" in str(caught.value)
    assert "get_asset_issue_by_id" in str(caught.value)
    with pytest.raises(toolkit.TronError):
        interpret_tron({"Error": "Contract validate error"})
    assert interpret_tron([]) == []


def test_ton_errors_with_a_4xx_status_are_ton_errors():
    body = b'{"ok": false, "error": "Smart contract is not Jetton or NFT", "code": 409}'
    with pytest.raises(toolkit.TonError) as caught:
        check_status(answer(409, body), explain=interpret_ton)
    assert (caught.value.code, caught.value.status) == (409, 409)


def test_ton_wrapping():
    assert interpret_ton({"ok": True, "result": {"total_supply": "1"}}) == {"total_supply": "1"}
    assert interpret_ton({"name": "flat"}) == {"name": "flat"}
    with pytest.raises(toolkit.TonError) as caught:
        interpret_ton({"ok": False, "code": 409, "error": "not a jetton"})
    assert caught.value.code == 409


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("250ms", 0.25),
        ("1.5s", 1.5),
        ("2", 2.0),
        (3, 3.0),
        ("100µs", 1e-4),  # Go prints the micro sign
        ("100μs", 1e-4),  # Greek mu, also Go's
        ("100us", 1e-4),
        ("1m30s", 90.0),
        ("1h", 3600.0),
        (" 250ms ", 0.25),
        ("soon", None),
        ("ms", None),
        ("-1s", None),
        (-1, None),
        (True, None),
        (None, None),
    ],
)
def test_durations(text, seconds):
    assert (
        parse_duration(text) == pytest.approx(seconds) if seconds else parse_duration(text) is None
    )


def test_a_429_with_a_json_rpc_error_body_honours_try_again_in():
    body = (
        b'{"jsonrpc": "2.0", "id": 3, "error": {"code": -32005, "message": "RPS limit exceeded",'
        b' "data": {"try_again_in": "250ms"}}}'
    )
    with pytest.raises(toolkit.RateLimited) as caught:
        check_status(answer(429, body))
    assert caught.value.retry_after == pytest.approx(0.25) and caught.value.status == 429
    # Retry-After, when the gateway sends it, is the HTTP-level answer and wins
    with pytest.raises(toolkit.RateLimited) as caught:
        check_status(answer(429, body, **{"retry-after": "2"}))
    assert caught.value.retry_after == 2.0
    # a body without the hint: no wait known
    with pytest.raises(toolkit.RateLimited) as caught:
        check_status(answer(429, b'{"error": {"code": -32005, "message": "slow down"}}'))
    assert caught.value.retry_after is None


def test_an_error_body_without_jsonrpc_is_still_an_error():
    with pytest.raises(toolkit.RateLimited) as caught:
        interpret_rpc({"id": 1, "error": {"code": -32005, "message": "limit exceeded"}}, 1, 200)
    assert caught.value.retry_after is None
    with pytest.raises(toolkit.RPCError) as error:
        interpret_rpc({"error": {"code": -32601, "message": "Method not found"}}, 1, 200)
    assert error.value.code == -32601
    with pytest.raises(toolkit.MalformedResponse, match="not an object"):
        interpret_rpc({"error": "Too many requests"}, 1, 200)


def test_retry_after_as_http_date_in_the_past_is_zero():
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0
    assert parse_retry_after(None) is None


def test_retry_policy():
    policy = RetryPolicy(attempts=3, backoff_s=0.1, max_wait_s=5)
    assert policy.delay(toolkit.RateLimited("x", retry_after=1.0), 0) == 1.0
    assert policy.delay(toolkit.RateLimited("x", retry_after=60.0), 0) is None  # too long: raise
    assert 0.05 <= policy.delay(toolkit.HTTPStatusError("x", status=503), 1) <= 0.2
    assert policy.delay(toolkit.HTTPStatusError("x", status=404), 0) is None
    assert policy.delay(toolkit.RPCError(-32000, "reverted"), 0) is None
    assert policy.delay(toolkit.TransportError("x"), 2) is None  # attempts used up
