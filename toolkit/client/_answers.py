"""Reading answers: what an HTTP answer's status and body mean, in each surface's dialect (the
JSON body; the typed error a status or an error object means: a spent quota, a rate limit and how
long it asks to wait, a redirect, a refused key; JSON-RPC results and ids; TRON, TON and the
platform). Pure functions of an answer: `_protocol` picks the reader, `_transport` sends.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from .._errors import (
    AmbiguousAssetName,
    AuthenticationError,
    HTTPStatusError,
    LogRangeRefused,
    MalformedResponse,
    PlatformError,
    QuotaExceeded,
    RateLimited,
    ResponseError,
    RPCError,
    TonError,
    TronError,
)
from .._json import MAX_DEPTH, NestedTooDeep, NotJSONNumber, load_bounded
from .._redact import clip, redact_url, scrub
from ._http import Answer
from ._log_refusals import log_range_refusal

_SNIPPET = 160
_SNIPPET_WINDOW = 64 * 1024  # bytes read to make a snippet: far more than any key is long


def _snippet(response: Answer) -> str:
    """The start of a body for an error message, scrubbed before it is cut (a key straddling the
    cut would otherwise leave its first characters in the message)."""
    text = response.content[:_SNIPPET_WINDOW].decode("utf-8", "replace")
    text = " ".join(scrub(text).split())
    cut = len(text) > _SNIPPET or len(response.content) > _SNIPPET_WINDOW
    return text[:_SNIPPET] + ("..." if cut else "")


def parse_json(response: Answer, max_depth: int = MAX_DEPTH) -> Any:
    """The body as JSON, whatever the content type says; otherwise MalformedResponse.

    Arrays and objects nested deeper than `max_depth` are a MalformedResponse too: no answer of
    the spec nests beyond a dozen levels, and a deeper one would raise RecursionError in the
    decoder, or later in whatever walks it (the cache's encoder, a frame, a scrubber).
    So is a number JSON cannot hold (``NaN``, ``Infinity``, ``1e400``): it would pass for a
    balance. Neither is retried: a node that wrote one writes it again."""
    try:
        return load_bounded(response.content, max_depth)
    except NestedTooDeep:
        message = f"HTTP {response.status_code} with JSON nested deeper than {max_depth} levels"
        raise MalformedResponse(message, status=response.status_code) from None
    except NotJSONNumber as error:
        message = (
            f"HTTP {response.status_code} with {error.literal}, which is not a JSON number "
            "(JSON has no NaN or infinity)"
        )
        raise MalformedResponse(message, status=response.status_code) from None
    except ValueError:
        pass  # raised below, out of the handler: `from None` would still keep the decoder's
        # error as the context, and its `doc` is the whole body (which may quote the key)
    kind = response.headers.get("content-type", "no content type")
    what = "an empty body" if not response.content else f"{kind}: {_snippet(response)!r}"
    truncated = response.content[:1] in (b"{", b"[")
    reason = "truncated or invalid JSON" if truncated else "not JSON"
    raise MalformedResponse(
        f"HTTP {response.status_code} with {reason} ({what})",
        status=response.status_code,
        retryable=True,  # a proxy's page or a cut body may pass next time
    )


def _error_body(response: Answer) -> Any:
    """An error answer's body as JSON, or None when it is not JSON (an HTML page, too deep)."""
    try:
        return parse_json(response)
    except MalformedResponse:
        return None


def parse_retry_after(value: str | None) -> float | None:
    """`Retry-After` as seconds: a number of seconds or an HTTP date."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    import email.utils  # only here: a date in Retry-After is rare

    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


# Go's time.Duration text ("250ms", "1.5s", "1m30s", "100µs"), as gateways write try_again_in.
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ns|us|µs|μs|ms|s|m|h)")
_DURATION = re.compile(rf"(?:{_DURATION_PART.pattern})+")
_SECONDS_PER_UNIT = {
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,  # U+00B5 MICRO SIGN, what Go prints
    "μs": 1e-6,  # U+03BC GREEK SMALL LETTER MU, also accepted by Go
    "ms": 1e-3,
    "s": 1.0,
    "m": 60.0,
    "h": 3600.0,
}


def parse_duration(value: Any) -> float | None:
    """A duration as seconds: ``"250ms"``, ``"1.5s"``, ``"100µs"`` (or ``"100us"``), Go's
    ``"1m30s"``, or a bare number of seconds (``2``, ``"2"``). None when it is not one.

    It is the JSON-RPC rate-limit reply's ``try_again_in``.
    """
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value) if value >= 0 else None
    if not isinstance(value, str):
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        return seconds if seconds >= 0 else None
    if not _DURATION.fullmatch(text):
        return None
    return sum(
        float(number) * _SECONDS_PER_UNIT[unit] for number, unit in _DURATION_PART.findall(text)
    )


Explain = Callable[[Any, int], None]


def body_retry_after(data: Any) -> float | None:
    """How long a JSON-RPC error's `data` asks to wait, in seconds: ``try_again_in`` (a duration),
    or Infura's ``backoff_seconds``, at the top of `data` as its docs print it or under ``rate``
    as its nodes have answered (INFURA/infura#201)."""
    if not isinstance(data, dict):
        return None
    rate = data.get("rate")
    for value in (
        data.get("try_again_in"),
        data.get("backoff_seconds"),
        rate.get("backoff_seconds") if isinstance(rate, dict) else None,
    ):
        seconds = parse_duration(value)
        if seconds is not None:
            return seconds
    return None


# What providers write when a quota, not a rate, is spent: Infura's "daily request count
# exceeded" and 402 "daily credit limit", Alchemy's "Monthly capacity limit exceeded" (sources
# in tests/fixtures/real/SOURCES.md). Words, not codes: both use -32005, 429 and 403 for
# per-second limits too.
_QUOTA_WORDS = re.compile(
    r"\b(daily|monthly)\b.*\b(limit|quota|count|capacity|credits?)\b|\bquota\b.*\b(exceeded|"
    r"exhausted|reached|spent)\b",
    re.IGNORECASE | re.DOTALL,
)


def quota_error(error: Any, status: int) -> QuotaExceeded | None:
    """The `QuotaExceeded` a JSON-RPC error object means, if it says a quota is spent (its
    message or Infura's ``details``, or Infura's code 402); else None."""
    if not isinstance(error, dict):
        return None
    words = " ".join(str(error.get(key) or "") for key in ("message", "details"))
    if error.get("code") != 402 and not _QUOTA_WORDS.search(words):
        return None
    return QuotaExceeded(
        f"the provider's quota is spent ({' '.join(words.split()) or 'HTTP 402'}); not retried: "
        "a daily or monthly quota does not clear in seconds (wait for it to reset, or raise the "
        "plan)",
        status=status,
    )


def check_status(response: Answer, *, explain: Explain | None = None) -> None:
    """Raise the typed error for a non-2xx answer.

    `explain` reads a JSON error body in a surface's own shape (the platform's ``error`` object,
    toncenter's ``ok: false``) and raises its typed error; other bodies get the generic one.
    A 4xx whose body says a quota is spent, and every 402, is a `QuotaExceeded`.
    """
    status = response.status_code
    if 200 <= status < 300:
        return
    if 400 <= status < 500:
        body = _error_body(response)
        error = body.get("error") if isinstance(body, dict) else None
        quota = quota_error(error, status)
        if quota is None and status == 402:
            message = f"HTTP 402 Payment Required ({_snippet(response) or 'no body'})"
            quota = quota_error({"code": 402, "message": message}, status)
        if quota is not None:
            raise quota
    if status == 429:
        retry_after = parse_retry_after(response.headers.get("retry-after"))
        if retry_after is None:  # the error body may say how long: data.try_again_in and kin
            data = error.get("data") if isinstance(error, dict) else None
            retry_after = body_retry_after(data)
        raise RateLimited(
            f"HTTP 429 rate limited ({_snippet(response) or 'no body'})",
            status=status,
            retry_after=retry_after,
        )
    if 300 <= status < 400:
        raise HTTPStatusError(_redirect_message(response), status=status)
    if explain is not None:
        body = _error_body(response)
        if body is not None:
            explain(body, status)
    if status in (401, 403):
        raise HTTPStatusError(
            f"HTTP {status}: the node refused the access key in its URL", status=status
        )
    raise HTTPStatusError(f"HTTP {status} ({_snippet(response) or 'no body'})", status=status)


def _redirect_message(response: Answer) -> str:
    """Why a redirect is an error: following it would re-send the key-bearing path (and the
    API key header) wherever the answer points, another origin included. Both drivers refuse
    every redirect, so a sync and an async call behave the same."""
    location = response.headers.get("location", "")
    target = redact_url(location) if "://" in location else "the same origin"
    return (
        f"HTTP {response.status_code}: the gateway redirected to {target}; redirects are not "
        "followed, because the request carries the access key (use the node's final URL)"
    )


def explain_platform(body: Any, status: int) -> None:
    """The platform API's ``{"error": {"code", "message"}}``; 401 and 403 mean a bad key."""
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        kind = AuthenticationError if status in (401, 403) else PlatformError
        raise kind(str(error.get("code")), str(error.get("message")), status=status)


def _rpc_error(error: Any, status: int) -> ResponseError:
    if not isinstance(error, dict):
        shown = clip(repr(error), 80)
        return MalformedResponse(f"JSON-RPC error is not an object: {shown}", status=status)
    quota = quota_error(error, status)
    if quota is not None:
        return quota
    code, message, data = error.get("code"), str(error.get("message", "")), error.get("data")
    refused, suggested = log_range_refusal(message, data)
    if refused:  # before the rate-limit rule, whose words ("limit", "exceed") it shares
        return LogRangeRefused(code, message, suggested=suggested, data=data, status=status)
    retry = body_retry_after(data)
    if code in (429, -32005) or retry is not None or says_rate_limited(message):
        return RateLimited(f"JSON-RPC rate limit: {message}", status=status, retry_after=retry)
    return RPCError(code, message, data=data, status=status)


# What a rate limit says when it comes inside another error's message: a node forwarding the
# answer of the one behind it writes that answer's status and body into a -32000 error
# ("429 Too Many Requests: {... "over rate limit" ...}", an OP Stack node relaying its
# sequencer's refusal; source in tests/fixtures/real/SOURCES.md), and providers write "rate
# limit exceeded" or "RPS limit exceeded" under codes of their own.
_RATE_WORDS = re.compile(r"\b429\b|too many requests|\brate[ _-]?limit", re.IGNORECASE)
_LIMIT_EXCEEDED = re.compile(r"limit.*exceed|exceed.*limit", re.IGNORECASE | re.DOTALL)
# A limit that is not a rate: asking again meets it again ("exceeds block gas limit", "block
# range limit exceeded", a size, a batch's "batch limit 100 exceeded").
_OTHER_LIMITS = re.compile(r"\bgas\b|\brange\b|\bsize\b|\blength\b|\bbatch", re.IGNORECASE)


def says_rate_limited(message: str) -> bool:
    """Whether a JSON-RPC error's message says the caller is over a rate limit. A contract's
    revert reason is the contract's words, not the node's: "execution reverted: rate limit" is
    the call's answer, never retried."""
    if message[:18].lower() == "execution reverted":
        return False
    if _RATE_WORDS.search(message):
        return True
    return _LIMIT_EXCEEDED.search(message) is not None and not _OTHER_LIMITS.search(message)


def id_key(value: Any) -> str | None:
    """A JSON-RPC id as servers echo it: toncenter answers a request's 7 with "7", so an int and
    its decimal text are the same id (``"07"``, ``7.5``, ``true`` and null match nothing)."""
    kind = type(value)
    # What servers echo passes two identity tests first, not two isinstance.
    if kind is int or kind is str or (kind is not bool and isinstance(value, int | str)):
        return str(value)
    return None


def interpret_rpc(body: Any, request_id: int | str | None, status: int) -> Any:
    """The `result` of one JSON-RPC response object, or the typed error it carries."""
    if not isinstance(body, dict):
        raise MalformedResponse(f"expected a JSON-RPC object, got {type(body).__name__}")
    if "error" in body and body["error"] is not None:
        raise _rpc_error(body["error"], status)
    if request_id is not None and id_key(body.get("id")) != id_key(request_id):
        raise MalformedResponse(
            f"JSON-RPC id {clip(repr(body.get('id')), 40)} does not echo the request id "
            f"{request_id!r}",
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
