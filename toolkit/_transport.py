"""HTTP beneath the clients: one exchange protocol, two drivers, and the error boundary.

A call is written once, as a generator (`Exchange.run`) that yields what it needs done: an
`HTTPRequest` to send (it receives the `httpx.Response`, or the `httpx` exception) or a `Sleep`.
`drive_sync` runs such a generator with an `httpx.Client`, `drive_async` with an
`httpx.AsyncClient`: retries, backoff, metering and error translation exist only once.

This module is the one place where httpx and json errors become the toolkit's exception tree.
"""

from __future__ import annotations

import asyncio
import email.utils
import itertools
import json
import random
import re
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import httpx

from ._errors import (
    AmbiguousAssetName,
    AuthenticationError,
    BatchRefused,
    GatewayError,
    HTTPStatusError,
    MalformedResponse,
    PlatformError,
    RateLimited,
    ResponseError,
    RPCError,
    Timeout,
    TonError,
    TransportError,
    TronError,
)
from ._ledger import Meter
from ._ratelimit import RateLimiter
from ._redact import redact_url, register_secret, register_url, scrub, scrub_logs

DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=10.0)

scrub_logs()  # httpx logs each request URL at INFO, and node URLs carry access keys
USER_AGENT = "node-gateway-toolkit"


@dataclass(frozen=True, repr=False)
class Endpoint:
    """A node or platform address. `url` holds the access key; only `label` is ever shown."""

    url: str
    label: str = ""

    def __post_init__(self) -> None:
        register_url(self.url)
        if not self.label:
            object.__setattr__(self, "label", redact_url(self.url))

    def join(self, path: str) -> str:
        return self.url.rstrip("/") + path if path else self.url

    def __repr__(self) -> str:
        return f"Endpoint({self.label!r})"


@dataclass(frozen=True)
class HTTPRequest:
    method: str
    url: str
    json: Any = None
    params: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"HTTPRequest({self.method} {redact_url(self.url)})"


@dataclass(frozen=True)
class Sleep:
    seconds: float


# --- retry policy -----------------------------------------------------------------------------

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


@dataclass(frozen=True)
class RetryPolicy:
    """Bounded retries with exponential backoff and jitter.

    Rate-limit replies wait what the gateway asks (`Retry-After`, or JSON-RPC `try_again_in`), up to
    `max_wait_s`; a longer wait is not slept through but raised at once. Transport failures, 5xx,
    and malformed bodies (truncated JSON, an HTML error page) are retried; error answers that would
    come back the same (JSON-RPC errors, TRON and platform errors) are not.
    """

    attempts: int = 4
    backoff_s: float = 0.25
    backoff_max_s: float = 8.0
    max_wait_s: float = 30.0

    def delay(self, error: GatewayError, attempt: int) -> float | None:
        """Seconds to wait before attempt `attempt + 1`, or None to give up and raise `error`."""
        if attempt + 1 >= self.attempts or not _retryable(error):
            return None
        if isinstance(error, RateLimited) and error.retry_after is not None:
            return error.retry_after if error.retry_after <= self.max_wait_s else None
        backoff = min(self.backoff_max_s, self.backoff_s * 2**attempt)
        return backoff * (0.5 + random.random() / 2)


def _retryable(error: GatewayError) -> bool:
    if isinstance(error, RateLimited | TransportError | MalformedResponse):
        return True
    # A 5xx is the server's trouble whatever body explains it (the platform's error object too);
    # a JSON-RPC error object is an answer about the call and would come back the same.
    return isinstance(error, HTTPStatusError | PlatformError) and error.status in RETRY_STATUSES


# --- interpreting answers ---------------------------------------------------------------------

_SNIPPET = 160


def _snippet(response: httpx.Response) -> str:
    text = response.content[:_SNIPPET].decode("utf-8", "replace")
    text = " ".join(text.split())
    return scrub(text) + ("..." if len(response.content) > _SNIPPET else "")


def parse_json(response: httpx.Response, max_depth: int = 128) -> Any:
    """The body as JSON, whatever the content type says; otherwise MalformedResponse.

    Arrays and objects nested deeper than `max_depth` are a MalformedResponse too: no answer of
    the spec nests beyond a dozen levels, and a deeper one would raise RecursionError in the
    decoder, or later in whatever walks it (the cache's encoder, a frame, a scrubber)."""

    def too_deep() -> MalformedResponse:
        message = f"HTTP {response.status_code} with JSON nested deeper than {max_depth} levels"
        return MalformedResponse(message, status=response.status_code)

    try:
        body = json.loads(response.content)
    except RecursionError:
        raise too_deep() from None
    except ValueError:
        kind = response.headers.get("content-type", "no content type")
        what = "an empty body" if not response.content else f"{kind}: {_snippet(response)!r}"
        truncated = response.content[:1] in (b"{", b"[")
        reason = "truncated or invalid JSON" if truncated else "not JSON"
        raise MalformedResponse(
            f"HTTP {response.status_code} with {reason} ({what})", status=response.status_code
        ) from None
    # Depth, without recursion: only containers are pushed, each once (linear in the body).
    stack = [(body, 1)] if isinstance(body, dict | list) else []
    while stack:
        container, depth = stack.pop()
        if depth > max_depth:
            raise too_deep()
        inner = container.values() if isinstance(container, dict) else container
        stack.extend((item, depth + 1) for item in inner if isinstance(item, dict | list))
    return body


def parse_retry_after(value: str | None) -> float | None:
    """`Retry-After` as seconds: a number of seconds or an HTTP date."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


_DURATION = re.compile(r"\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*")


def parse_duration(value: Any) -> float | None:
    """``"250ms"``, ``"1.5s"``, ``2`` as seconds (the JSON-RPC rate-limit reply's try_again_in)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    match = _DURATION.fullmatch(value) if isinstance(value, str) else None
    if not match:
        return None
    number, unit = float(match[1]), match[2] or "s"
    return number * {"ms": 0.001, "s": 1.0, "m": 60.0}[unit]


Explain = Callable[[Any, int], None]


def check_status(response: httpx.Response, *, explain: Explain | None = None) -> None:
    """Raise the typed error for a non-2xx answer.

    `explain` reads a JSON error body in a surface's own shape (the platform's ``error`` object,
    toncenter's ``ok: false``) and raises its typed error; other bodies get the generic one.
    """
    status = response.status_code
    if 200 <= status < 300:
        return
    if status == 429:
        raise RateLimited(
            f"HTTP 429 rate limited ({_snippet(response) or 'no body'})",
            status=status,
            retry_after=parse_retry_after(response.headers.get("retry-after")),
        )
    if explain is not None:
        try:
            body = json.loads(response.content)
        except ValueError:
            pass
        else:
            explain(body, status)
    if status in (401, 403):
        raise HTTPStatusError(
            f"HTTP {status}: the node refused the access key in its URL", status=status
        )
    raise HTTPStatusError(f"HTTP {status} ({_snippet(response) or 'no body'})", status=status)


def explain_platform(body: Any, status: int) -> None:
    """The platform API's ``{"error": {"code", "message"}}``; 401 and 403 mean a bad key."""
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        kind = AuthenticationError if status in (401, 403) else PlatformError
        raise kind(str(error.get("code")), str(error.get("message")), status=status)


def _rpc_error(error: Any, status: int) -> ResponseError:
    if not isinstance(error, dict):
        return MalformedResponse(f"JSON-RPC error is not an object: {error!r}", status=status)
    code, message, data = error.get("code"), str(error.get("message", "")), error.get("data")
    retry = parse_duration(data.get("try_again_in")) if isinstance(data, dict) else None
    lowered = message.lower()
    if code in (429, -32005) or retry is not None or ("limit" in lowered and "exceed" in lowered):
        return RateLimited(f"JSON-RPC rate limit: {message}", status=status, retry_after=retry)
    return RPCError(code, message, data=data, status=status)


def interpret_rpc(body: Any, request_id: int | str, status: int) -> Any:
    """The `result` of one JSON-RPC response object, or the typed error it carries."""
    if not isinstance(body, dict):
        raise MalformedResponse(f"expected a JSON-RPC object, got {type(body).__name__}")
    if "error" in body and body["error"] is not None:
        raise _rpc_error(body["error"], status)
    if body.get("id") != request_id:
        raise MalformedResponse(
            f"JSON-RPC id {body.get('id')!r} does not echo the request id {request_id!r}",
            status=status,
        )
    if "result" not in body:
        raise MalformedResponse("JSON-RPC response has neither result nor error", status=status)
    return body["result"]


AMBIGUOUS_HINT = (
    "asset names are not unique: list the matches with get_asset_issue_list_by_name, take the id "
    "of the one you want, then call get_asset_issue_by_id"
)


def interpret_tron(body: Any, status: int = 200) -> Any:
    """TRON answers errors as HTTP 200 with a capitalised `Error` field."""
    if isinstance(body, dict) and "Error" in body:
        error = str(body["Error"])
        if "NonUniqueObject" in error or "more than one asset" in error.lower():
            raise AmbiguousAssetName(error, hint=AMBIGUOUS_HINT, status=status)
        raise TronError(error, status=status)
    return body


def interpret_ton(body: Any, status: int = 200) -> Any:
    """toncenter wraps bodies as ``{"ok": true, "result": ...}``; the spec shows them bare.
    Its errors are ``{"ok": false, "code": ..., "error": ...}``, often with a 4xx status."""
    if isinstance(body, dict) and "ok" in body:
        if body["ok"] is not True:
            error = str(body.get("error", "unknown error"))
            raise TonError(error, code=body.get("code"), status=status)
        return body.get("result")
    return body


# --- one logical exchange, with retries and metering -------------------------------------------


Interpret = Callable[[httpx.Response], Any]
Step = HTTPRequest | Sleep


@dataclass
class Receipt:
    """What one call cost, for callers that report per call (the bulk runner's result rows)."""

    ru: int = 0
    answered: int = 0  # attempts that got an HTTP answer, each billed
    cache_hit: bool = False


@dataclass
class Exchange:
    """Everything about one logical call except the HTTP client that carries it."""

    endpoint: Endpoint
    meter: Meter
    policy: RetryPolicy
    request: HTTPRequest
    interpret: Interpret
    method: str
    ru: int  # billed per answered attempt; also what is reserved against the budget
    archive: bool | None = None
    note: str = ""
    limiter: RateLimiter | None = None  # consulted before every attempt
    receipt: Receipt | None = None
    # The calls a JSON-RPC batch carries, as (method, RU, archive): the limiter counts each, and
    # the ledger gets one entry per call, so RU by method stays true for batched work.
    parts: tuple[tuple[str, int, bool | None], ...] = ()

    def run(self) -> Generator[Step, Any, Any]:
        started = time.perf_counter()
        attempt = answered_attempts = 0
        status, result = "ok", None
        try:
            while True:
                self._reserve(attempt)
                wait = self.limiter.reserve(len(self.parts) or 1) if self.limiter else 0.0
                if wait > 0:
                    yield Sleep(wait)
                outcome = yield self.request
                answered = isinstance(outcome, httpx.Response)
                self.meter.settle(self.ru, self.ru if answered else 0)
                answered_attempts += answered
                if answered and self.receipt is not None:
                    self.receipt.ru += self.ru
                    self.receipt.answered += 1
                try:
                    result = self._read(outcome)
                    return result
                except GatewayError as error:
                    delay = self.policy.delay(error, attempt)
                    if delay is None:
                        error.attempts = attempt + 1
                        raise
                attempt += 1
                yield Sleep(delay)
        except GatewayError as error:
            status = type(error).__name__
            error.method = error.method or self.method
            error.node = error.node or self.endpoint.label
            raise
        finally:
            latency = time.perf_counter() - started
            parts = self.parts or ((self.method, self.ru, self.archive),)
            for (method, ru, archive), part_status in zip(
                parts, self._statuses(status, result, len(parts)), strict=True
            ):
                self.meter.record(
                    node=self.endpoint.label,
                    method=method,
                    ru=ru * answered_attempts,
                    latency_s=latency,
                    status=part_status,
                    retries=attempt,
                    archive=archive,
                    note=self.note,
                )

    @staticmethod
    def _statuses(status: str, result: Any, count: int) -> list[str]:
        """Each part's status: a batch answer's failed item keeps its own error's name."""
        if count > 1 and isinstance(result, list) and len(result) == count:
            return [type(r).__name__ if isinstance(r, GatewayError) else status for r in result]
        return [status] * count

    def _reserve(self, attempt: int) -> None:
        what = f"{self.method} on {self.endpoint.label}" + (
            f" (retry {attempt})" if attempt else ""
        )
        self.meter.reserve(self.ru, what=what)

    def _read(self, outcome: httpx.Response | Exception) -> Any:
        if isinstance(outcome, httpx.TimeoutException):
            raise Timeout(f"no answer within the timeout ({type(outcome).__name__})")
        if isinstance(outcome, httpx.HTTPError):
            raise TransportError(f"could not reach the gateway ({type(outcome).__name__})")
        if isinstance(outcome, Exception):
            raise outcome
        return self.interpret(outcome)


# --- drivers ----------------------------------------------------------------------------------


def drive_sync(client: httpx.Client, steps: Generator[Step, Any, Any]) -> Any:
    """Run an exchange generator to its result with a blocking client."""
    try:
        step = next(steps)
        while True:
            if isinstance(step, Sleep):
                time.sleep(step.seconds)
                step = steps.send(None)
                continue
            try:
                outcome: Any = client.request(
                    step.method, step.url, json=step.json, params=step.params, headers=step.headers
                )
            except httpx.HTTPError as error:
                outcome = error
            step = steps.send(outcome)
    except StopIteration as done:
        return done.value


async def drive_async(client: httpx.AsyncClient, steps: Generator[Step, Any, Any]) -> Any:
    """Run an exchange generator to its result with an async client."""
    try:
        step = next(steps)
        while True:
            if isinstance(step, Sleep):
                await asyncio.sleep(step.seconds)
                step = steps.send(None)
                continue
            try:
                outcome: Any = await client.request(
                    step.method, step.url, json=step.json, params=step.params, headers=step.headers
                )
            except httpx.HTTPError as error:
                outcome = error
            step = steps.send(outcome)
    except StopIteration as done:
        return done.value


_request_ids = itertools.count(1)


def next_request_id() -> int:
    return next(_request_ids)


def bearer(api_key: str) -> dict[str, str]:
    register_secret(api_key)
    return {"Authorization": f"Bearer {api_key}"}


__all__ = [
    "DEFAULT_TIMEOUT",
    "BatchRefused",
    "Endpoint",
    "Exchange",
    "HTTPRequest",
    "Receipt",
    "RetryPolicy",
    "Sleep",
    "bearer",
    "check_status",
    "drive_async",
    "drive_sync",
    "explain_platform",
    "interpret_rpc",
    "interpret_ton",
    "interpret_tron",
    "next_request_id",
    "parse_duration",
    "parse_json",
    "parse_retry_after",
]
