"""The secret scan: every error type of `toolkit._errors`, made to happen against servers that
echo keys back, with DEBUG logging on for every logger, shows no 8-character piece of any key:
not in a message, repr, attribute or log line."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
import time

import pytest

import toolkit
from toolkit import _errors
from toolkit._redact import register_secret, scrub

NO_RETRY = toolkit.RetryPolicy(attempts=1)
FRAGMENT = 8
TON_ADDRESS = "0:" + "ab" * 32
EVM_ADDRESS = "0x" + "11" * 20


def fragments(key: str) -> set[str]:
    return {key[i : i + FRAGMENT] for i in range(len(key) - FRAGMENT + 1)}


class AllLogs(logging.Handler):
    """Every record of every logger, formatted as a handler would write it (with tracebacks)."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
        self.lines: list[str] = []

    def emit(self, record):
        self.lines.append(self.format(record))

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


@pytest.fixture
def all_debug_logs():
    """DEBUG on for the root and every logger, a capturing handler on each logger that does not
    propagate; everything restored afterwards."""
    handler = AllLogs()
    loggers = [logging.getLogger()] + [
        logging.getLogger(name) for name in list(logging.root.manager.loggerDict)
    ]
    saved = [(logger, logger.level, logger.disabled) for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.DEBUG)
        logger.disabled = False
        if logger is logging.getLogger() or not logger.propagate:
            logger.addHandler(handler)
    try:
        yield handler
    finally:
        for logger, level, disabled in saved:
            logger.setLevel(level)
            logger.disabled = disabled
            if handler in logger.handlers:
                logger.removeHandler(handler)


def _texts(error: BaseException) -> list[str]:
    """Everything an error shows or carries, as text."""
    texts = [str(error), repr(error), *map(repr, error.args)]
    for name, value in vars(error).items():
        texts += [name, str(value), repr(value)]
    return texts


def _leaks(texts: list[str], keys: list[str]) -> list[str]:
    joined = "\n".join(texts)
    return sorted({piece for key in keys for piece in fragments(key) if piece in joined})


class Hostile:
    """One loopback server; `mode` says how it misbehaves, always quoting the key it was sent
    (the path's key, or the Bearer key) where a cut at 80 or 160 characters would split it."""

    def __init__(self, loopback_server):
        self.mode = "rpc-error"
        self.server = loopback_server(self.answer)
        self.url = self.server.url

    def answer(self, request):
        _method, path, headers, body = request
        key = headers.get("Authorization", "").removeprefix("Bearer ") or path.split("/")[1]
        pad = "p" * 150  # the key starts before the 160th character and ends after it
        rpc_id = None
        with contextlib.suppress(ValueError, AttributeError):
            rpc_id = json.loads(body or b"{}").get("id")
        as_json = {"Content-Type": "application/json"}
        mode = self.mode
        if mode == "not-found":
            page = f"<html><body><h1>404 Not Found</h1>{pad[:120]} {path} was not found</body>"
            return 404, {"Content-Type": "text/html"}, page.encode()
        if mode == "rate-limit":
            return 429, {"Content-Type": "text/plain"}, f"{pad} slow down {key}".encode()
        if mode == "html":
            return 200, {"Content-Type": "text/html"}, f"<p>{pad} {key}</p>".encode()
        if mode == "quota":  # Infura's 402 shape, its details quoting the key
            error = {"code": 402, "message": "Payment Required", "details": f"{pad} {key} spent"}
            return (
                402,
                as_json,
                json.dumps({"jsonrpc": "2.0", "id": rpc_id, "error": error}).encode(),
            )
        if mode == "wrong-shape":
            result = {"pad": pad[:60], "echo": key}
            return (
                200,
                as_json,
                json.dumps({"jsonrpc": "2.0", "id": rpc_id, "result": result}).encode(),
            )
        if mode == "batch-refused":
            return 400, {"Content-Type": "text/plain"}, f"{pad} no batches for {key}".encode()
        if mode == "rpc-error":
            error = {"code": -32000, "message": f"key {key} is bad", "data": {"echo": [key]}}
            return (
                200,
                as_json,
                json.dumps({"jsonrpc": "2.0", "id": rpc_id, "error": error}).encode(),
            )
        if mode == "log-range":  # Infura's result cap, the range it proposes, and the key
            cap = "query returned more than 10000 results"
            message = f"{cap}. Try with this block range [0x1, 0x2] {key}"
            error = {"code": -32005, "message": message, "data": {"echo": key}}
            return (
                200,
                as_json,
                json.dumps({"jsonrpc": "2.0", "id": rpc_id, "error": error}).encode(),
            )
        if mode == "tron":
            return (
                200,
                as_json,
                json.dumps({"Error": f"class java.lang.Exception : {key}"}).encode(),
            )
        if mode == "tron-ambiguous":
            error = f"NonUniqueObjectException : more than one asset for {key}"
            return 200, as_json, json.dumps({"Error": error}).encode()
        if mode == "ton":
            return 409, as_json, json.dumps({"ok": False, "code": 409, "error": key}).encode()
        if mode in ("platform", "auth"):
            status = 401 if mode == "auth" else 500
            error = {"error": {"code": "denied", "message": f"the key {key} is not valid"}}
            return status, as_json, json.dumps(error).encode()
        if mode == "redirect":
            return 307, {"Location": f"http://127.0.0.1:1/{key}"}, b""
        if mode == "slow":
            time.sleep(1.0)
            return 200, as_json, b"{}"
        raise AssertionError(mode)


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _catch(errors: list[BaseException], action) -> None:
    try:
        action()
    except toolkit.GatewayError as error:
        errors.append(error)
    else:
        raise AssertionError(f"{action} did not fail")


def test_no_piece_of_any_key_in_any_error_or_log_line(sandbox, loopback_server, all_debug_logs):
    info = sandbox.info
    node_keys = {name: url.rsplit("/", 1)[-1] for name, url in info["nodes"].items()}
    keys = [*node_keys.values(), info["api_key"]]
    hostile = Hostile(loopback_server)
    errors: list[BaseException] = []

    def node(name: str, chain: str, **options):
        options.setdefault("retry", NO_RETRY)
        url = f"{hostile.url}/{node_keys[name]}"
        return toolkit.node(url, chain=chain, cache=False, **options)

    eth = node("ethereum-mainnet", "ethereum")
    tron = node("tron-mainnet", "tron")
    ton = node("ton-mainnet", "ton")
    settings = toolkit.Settings(cache=None, retry=NO_RETRY)
    # A key read from a file, with its newline: registered, sent stripped, never shown.
    platform = toolkit.client.platform(hostile.url, info["api_key"] + "\n", settings=settings)

    def with_mode(mode, action):
        hostile.mode = mode
        _catch(errors, action)

    with_mode("not-found", eth.block_number)  # HTTPStatusError
    with_mode("rate-limit", eth.block_number)  # RateLimited
    with_mode("quota", eth.block_number)  # QuotaExceeded
    with_mode("html", eth.block_number)  # MalformedResponse (not JSON)
    with_mode("wrong-shape", eth.block_number)  # MalformedResponse (wrong shape)
    with_mode("rpc-error", eth.block_number)  # RPCError
    with_mode("log-range", lambda: eth.get_logs(fromBlock=1, toBlock=2))  # LogRangeRefused
    with_mode("batch-refused", lambda: eth.batch([("eth_blockNumber",), ("eth_blockNumber",)]))
    with_mode("redirect", eth.block_number)  # HTTPStatusError, the Location logged by httpcore
    with_mode("tron", lambda: tron.get_block_by_latest_num(1))  # TronError
    with_mode("tron-ambiguous", lambda: tron.get_asset_issue_by_name("x"))  # AmbiguousAssetName
    with_mode("ton", lambda: ton.get_token_data(TON_ADDRESS))  # TonError
    with_mode("platform", platform.list_nodes)  # PlatformError
    with_mode("auth", platform.list_nodes)  # AuthenticationError
    with_mode("slow", node("ethereum-mainnet", "ethereum", timeout=0.3).block_number)  # Timeout
    with_mode("rpc-error", node("ethereum-mainnet", "ethereum", budget=0).block_number)

    async def async_calls():
        for mode in ("not-found", "rpc-error", "wrong-shape", "redirect"):
            hostile.mode = mode
            try:
                await eth.aio.block_number()
            except toolkit.GatewayError as error:
                errors.append(error)
        await eth.aio.aclose()

    asyncio.run(async_calls())

    key = node_keys["ethereum-mainnet"]
    closed = toolkit.node(
        f"http://127.0.0.1:{_closed_port()}/{key}", chain="ethereum", cache=False, retry=NO_RETRY
    )
    _catch(errors, closed.block_number)  # TransportError
    _catch(errors, lambda: eth.get_balance("x" * 70 + key))  # ValidationError, cut at 80
    _catch(errors, lambda: eth.get_balance(EVM_ADDRESS, block=f"{hostile.url}/{key}"))
    for kind in (toolkit.GatewayError, toolkit.ResponseError):  # the bases, made by hand
        errors.append(kind(f"{'q' * 150}{key}", node=f"{hostile.url}/{key}"))
    # Errors about datasets, runs and tapes, made by hand with a key in everything they carry
    # (a dataset's path, who holds its lock, a call's params, a run's message).
    where = f"/data/{key}/balances"
    errors += [
        toolkit.DatasetError(f"{'q' * 150}{key}", path=where),
        toolkit.DatasetBusy(f"held by {key}", holder={"run": key, "host": key}, path=where),
        toolkit.WorkerFailed(f"{'q' * 150}{key}", causes=[f"OSError: {where}"], path=where),
        toolkit.TapeError(f"{where}/session.tape.gz is not a tape"),
        toolkit.TapeMiss(f"no answer for {key}", call={"params": f'["{key}"]'}, node=where),
        toolkit.RunStopped(f"stopped after 1 of 2 calls; rows in the dataset at {where}"),
        toolkit.NeedsCPython(f"serving {hostile.url}/{key} needs sockets", node=where),
    ]

    # The sandbox itself, sync and async, with every logger at DEBUG.
    gw = toolkit.Gateway(info["platform_url"], info["api_key"], nodes=info["nodes"])
    gw.node("ethereum-mainnet").block_number()
    gw.node("tron-mainnet").get_block_by_latest_num(1)
    gw.nodes()

    async def sandbox_async():
        node = gw.node("arbitrum-mainnet").aio
        await node.block_number()
        await node.aclose()

    asyncio.run(sandbox_async())
    gw.close()

    made = {type(error) for error in errors}
    every_type = {getattr(_errors, name) for name in _errors.__all__}
    assert every_type <= made, f"not exercised: {every_type - made}"
    texts = [text for error in errors for text in _texts(error)]
    assert not _leaks(texts, keys), _leaks(texts, keys)
    assert "HTTP Request" in all_debug_logs.text  # httpx's INFO lines were captured
    assert "receive_response_headers" in all_debug_logs.text  # and httpcore's DEBUG ones
    assert not _leaks(all_debug_logs.lines, keys), _leaks(all_debug_logs.lines, keys)


def test_rpc_error_attributes_hold_no_echoed_key(sandbox):
    key = "EchoedKey-0123456789abcdef"
    register_secret(key)
    error = toolkit.RPCError(-32000, f"bad {key}", data={"echo": [key, {"k": key}], key: 1})
    assert key not in error.rpc_message and key not in repr(error.data)
    assert error.data == {"echo": ["***", {"k": "***"}], "***": 1}
    error.data = key  # set later, by anyone
    assert error.data == "***"


def test_child_logger_records_are_scrubbed_whatever_the_filters(sandbox, all_debug_logs):
    key = "ChildLoggerKey-0123456789"
    register_secret(key)
    eth = toolkit.node(sandbox.info["nodes"]["ethereum-mainnet"], chain="ethereum", cache=False)
    eth.block_number()  # httpx and httpcore loaded, as they are before they log anything
    logging.getLogger("httpcore.http11").debug("Location: %s", f"http://h/{key}")
    assert "Location: http://h/***" in all_debug_logs.text and key not in all_debug_logs.text
    # Another library's records, and the user's own, are theirs: scrubbed only on request, by
    # a handler's filter, which sees every logger's records (with tracebacks).
    logging.getLogger("some.other.library").warning(f"key={key}\n")
    assert f"key={key}" in all_debug_logs.lines[-1]
    toolkit.scrub_logging(all_debug_logs)
    logging.getLogger("some.other.library").warning(f"key={key}\n")
    try:
        raise ValueError(f"boom {key}")
    except ValueError:
        logging.getLogger("x.y").exception("failed")
    assert all_debug_logs.lines[-2] == "some.other.library WARNING key=***\n"
    assert "ValueError: boom ***" in all_debug_logs.lines[-1]
    assert key not in "\n".join(all_debug_logs.lines[-2:])


def test_a_log_record_keeps_its_args_when_scrubbing_them_is_enough(sandbox, all_debug_logs):
    key = "ArgsKey-0123456789abcdef"
    register_secret(key)
    seen = []

    class Keep(logging.Handler):
        def emit(self, record):
            seen.append((record.msg, record.args))

    logger = logging.getLogger("uvicorn.access")  # the sandbox's server made it
    handler = Keep()
    logger.addHandler(handler)
    try:
        # uvicorn's access line, whose formatter unpacks the args
        logger.info('%s - "%s %s HTTP/%s" %d', "127.0.0.1", "POST", f"/{key}/x", "1.1", 200)
    finally:
        logger.removeHandler(handler)
    args = ("127.0.0.1", "POST", "/***/x", "1.1", 200)
    assert seen == [('%s - "%s %s HTTP/%s" %d', args)]


def test_scrub_is_applied_before_a_snippet_is_cut():
    from toolkit._redact import clip

    key = "SnippetKey-0123456789abcdef"
    register_secret(key)
    text = "a" * 150 + key
    assert clip(text, 160) == "a" * 150 + "***"
    assert scrub(text[:160]) == text[:160]  # what cutting first would have shown


def test_no_exception_chained_to_an_error_carries_the_body(loopback_server):
    """``raise ... from None`` hides the decoder's error from tracebacks but keeps it as
    `__context__`, and a `JSONDecodeError` keeps the whole body (`doc`), here an HTML page that
    quotes the key: nothing chained to the error carries it."""
    key = "ChainedContextKey0a1b2c3d4e5f"
    page = f"<html><body>{'p' * 200} no route for /{key}</body></html>".encode()
    server = loopback_server(lambda request: (200, {"Content-Type": "text/html"}, page))
    eth = toolkit.node(f"{server.url}/{key}", chain="ethereum", cache=False, retry=NO_RETRY)
    with pytest.raises(toolkit.MalformedResponse) as caught:
        eth.block_number()
    eth.close()
    chained, error = [], caught.value
    while error is not None:
        chained += _texts(error)
        error = error.__cause__ or error.__context__
    assert not _leaks(chained, [key]), _leaks(chained, [key])


def test_a_query_key_a_server_decodes_as_a_form_is_scrubbed_as_decoded(loopback_server):
    """A server reads a query as a form: ``+`` is a space there. A base64 token it quotes back
    (``Ab3 xYz9/...``) is the key still, and scrubbed."""
    from urllib.parse import parse_qs, urlsplit

    token = "Ab3+xYz9/Qw7+Lm2Np5Rt8=="

    def answer(request):
        given = parse_qs(urlsplit(request[1]).query)["token"][0]
        error = {"code": -32000, "message": f"token {given} is not valid"}
        body = {"jsonrpc": "2.0", "id": json.loads(request[3])["id"], "error": error}
        return 200, {"Content-Type": "application/json"}, json.dumps(body).encode()

    url = f"{loopback_server(answer).url}/rpc?token={token}"
    eth = toolkit.node(url, chain="ethereum", cache=False, retry=NO_RETRY)
    with pytest.raises(toolkit.RPCError) as caught:
        eth.block_number()
    eth.close()
    assert "token *** is not valid" in str(caught.value)


def test_a_key_in_a_urls_user_info_shows_neither_as_written_nor_as_its_basic_header(
    loopback_server, all_debug_logs
):
    """A token as the URL's user name (``https://<token>@host/``), or as its password: httpx
    logs the URL with its user name, and sends both as ``Authorization: Basic <base64>``,
    which a server may quote back."""
    import base64

    token = "7d1e5b3f9a2c4e6b8d0f1a3c5e7b9d2f"

    def answer(request):
        said = request[2].get("Authorization")
        return 500, {"Content-Type": "text/plain"}, f"no such user: {said}".encode()

    host = loopback_server(answer).url.removeprefix("http://")
    basic = base64.b64encode(f"{token}:".encode()).decode()
    eth = toolkit.node(f"http://{token}@{host}/", chain="ethereum", cache=False, retry=NO_RETRY)
    with pytest.raises(toolkit.HTTPStatusError) as caught:
        eth.block_number()
    eth.close()
    assert "no such user: Basic ***" in str(caught.value)
    shown = [*_texts(caught.value), *all_debug_logs.lines]
    assert not _leaks(shown, [token, basic]), _leaks(shown, [token, basic])
