"""The protocol step of the pipeline: the HTTP request for a call on its surface, and how to read
the answer (JSON-RPC, a JSON-RPC batch, TRON and TON REST, the platform API; the readers of each
dialect are in `_answers`).

Pure functions of a bound call and a response; nothing here sends, retries or bills.
"""

from __future__ import annotations

import json
import operator
import re
from collections.abc import Callable, Sequence
from itertools import repeat
from typing import Any

from .._errors import BatchRefused, GatewayError, MalformedResponse, QuotaExceeded, RateLimited
from .._redact import clip, redact_answer
from ..catalog import RESULT_KINDS, BoundCall, Chain, Method, Surface
from ._answers import (
    check_status,
    explain_platform,
    id_key,
    interpret_rpc,
    interpret_ton,
    interpret_tron,
    parse_json,
)
from ._http import Answer
from ._transport import Endpoint, HTTPRequest, Interpret, next_request_id, next_request_ids


def url_for(endpoint: Endpoint, chain: Chain, method: Method) -> str:
    if method.surface is Surface.JSONRPC and not method.path:
        return endpoint.join(chain.rpc_path)
    return endpoint.join(method.path)


def envelope(method: str, params: Any, request_id: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


def rpc_request(
    url: str,
    method: str,
    params: Any,
    headers: dict[str, str],
    kind: str | None = None,
    *,
    toncenter: bool = False,
) -> tuple[HTTPRequest, Interpret]:
    """A JSON-RPC request and its reader (`kind`: the catalog's result kind to check, if any;
    `toncenter`: TON's JSON-RPC, whose answers may say ``"ok": false``)."""
    request_id = next_request_id()
    body = envelope(method, params, request_id)
    request = HTTPRequest("POST", url, json=body, headers=headers)
    return request, lambda response: read_rpc(response, request_id, kind, toncenter=toncenter)


def request_for(
    bound: BoundCall, endpoint: Endpoint, chain: Chain, headers: dict[str, str]
) -> tuple[HTTPRequest, Interpret]:
    """The request for a catalog call on its surface, and how to read its answer."""
    method = bound.method
    url = url_for(endpoint, chain, method)
    kind = method.result
    if method.surface in (Surface.JSONRPC, Surface.JSONRPC_NAMED):
        named = method.surface is Surface.JSONRPC_NAMED
        return rpc_request(url, bound.rpc_method, bound.wire_params, headers, kind, toncenter=named)
    if method.surface is Surface.PLATFORM:
        return platform_request(url, headers, bound.wire_params), read_platform
    if method.surface is Surface.REST_GET:
        request = HTTPRequest("GET", url, params=bound.wire_params, headers=headers)
    else:
        request = HTTPRequest("POST", url, json=bound.wire_params, headers=headers)
    unwrap = interpret_tron if chain.family == "tron" else interpret_ton
    return request, lambda response: read_rest(response, kind, unwrap)


def platform_request(
    url: str, headers: dict[str, str], params: dict[str, Any] | None = None
) -> HTTPRequest:
    return HTTPRequest("GET", url, params=params, headers=headers)


def read_platform(response: Answer) -> Any:
    check_status(response, explain=explain_platform)
    return checked_result(parse_json(response), "node-page")


def checked_result(result: Any, kind: str | None) -> Any:
    """The result, if it has the shape its kind promises; a well-formed answer of the wrong shape
    is a MalformedResponse that asking again would not cure (not retried)."""
    if kind is not None and not RESULT_KINDS[kind].check(result):
        expected = RESULT_KINDS[kind].expected
        shown = clip(str(redact_answer(result)), 80)  # a node record's credentials, say
        raise MalformedResponse(f"expected {expected}, got {shown!r}")
    return result


def read_rpc(
    response: Answer, request_id: int, kind: str | None, *, toncenter: bool = False
) -> Any:
    explain = interpret_ton if toncenter else None
    check_status(response, explain=explain)
    body = parse_json(response)
    if toncenter and isinstance(body, dict) and body.get("ok") is False:
        interpret_ton(body, response.status_code)  # raises TonError
    return checked_result(interpret_rpc(body, request_id, response.status_code), kind)


def body_is_result(method: Method, chain: Chain) -> bool:
    """Whether a call's result is its answer's whole body, as read: TRON's REST answers (TON's
    may come wrapped in ``{"ok": true, "result": ...}``, JSON-RPC's always are)."""
    return chain.family == "tron" and method.surface in (Surface.REST_GET, Surface.REST_POST)


def body_text(response: Answer) -> str | None:
    """The body as the JSON text it was decoded from, when it is plain UTF-8 (what `parse_json`
    read without detecting an encoding); else None."""
    content = response.content
    if content[:1] not in (b"{", b"["):
        return None
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError:
        return None


def read_rest(response: Answer, kind: str, unwrap: Callable[..., Any]) -> Any:
    check_status(response, explain=unwrap)
    return checked_result(unwrap(parse_json(response), response.status_code), kind)


def batch_request(
    calls: Sequence[tuple[str, Any, str | None]],
    url: str,
    headers: dict[str, str],
    *,
    return_exceptions: bool,
    node: str,
    params_texts: Sequence[str] | None = None,
) -> tuple[HTTPRequest, Interpret]:
    """One JSON-RPC batch request for `calls`, each ``(method, params, kind)`` (`kind`: the
    catalog's result kind to check, or None for a method outside the catalog), and its reader:
    a list of results in order (a failed item is its exception with `return_exceptions`, else
    the first failure raises). `params_texts`, when given, are the calls' params as compact
    JSON (`BoundCall.wire_json`): the body's text is then joined from them (see `_batch_text`).

    An id answered twice with two different answers is a `MalformedResponse` for that call:
    which one is the node's is not ours to guess. The same answer twice is that answer."""
    ids = next_request_ids(len(calls))
    # `envelope`'s object, written out: a function call less per call.
    body = [
        {"jsonrpc": "2.0", "id": i, "method": method, "params": params}
        for (method, params, _), i in zip(calls, ids, strict=True)
    ]
    kinds = [kind for _, _, kind in calls]
    # Each kind's check looked up once per batch, not once per call.
    checks = {kind: RESULT_KINDS[kind].check for kind in set(kinds) if kind in RESULT_KINDS}
    text = None if params_texts is None else _batch_text(calls, ids, params_texts)

    def interpret(response: Answer) -> list[Any]:
        refuse_batch_status(response)
        check_status(response)
        answers = parse_json(response)
        if not isinstance(answers, list):
            refuse_batch_answer(answers, response.status_code)
        # A tape's answer to a batch holds the calls it has: one of them alone is that call's
        # answer, never a node's refusal of the whole batch.
        if len(answers) == 1 and len(ids) > 1 and getattr(response, "replayed", None) is None:
            refuse_whole_batch(answers[0], ids[0], response.status_code)
        results = _results_in_order(answers, ids, kinds, checks)
        if results is not None:
            return results
        by_id, conflicting = answers_by_id(answers)
        results = []
        status = response.status_code
        for request_id, kind in zip(ids, kinds, strict=True):
            try:
                key = str(request_id)  # our ids are ints: their key is the text
                if key in conflicting:
                    raise MalformedResponse(
                        f"the batch answer holds {conflicting[key]} answers for id "
                        f"{request_id}, and they differ; none is used"
                    )
                answer = by_id.get(key)
                if answer is None:
                    raise _unanswered(response, request_id)
                # Found by its id: the id check `interpret_rpc` makes is done already. A
                # result without an error is read here, the rest by `interpret_rpc`.
                if type(answer) is dict and answer.get("error") is None and "result" in answer:
                    result = answer["result"]
                else:
                    result = interpret_rpc(answer, None, status)
                check = checks.get(kind) if kind is not None else None
                if kind is None or (check is not None and check(result)):
                    results.append(result)
                else:
                    results.append(checked_result(result, kind))  # raises, saying why
            except GatewayError as error:
                if not return_exceptions:
                    raise
                error.node = node
                results.append(error)
        return results

    return HTTPRequest("POST", url, json=body, headers=headers, content=text), interpret


def _unanswered(response: Answer, request_id: int) -> GatewayError:
    """Why a batch answer lacks a call's answer: a tape says which calls it does not hold
    (each its own `TapeMiss` replaying, or `StillToSend` recording on, while the others
    replay); from a node it is malformed."""
    replayed = getattr(response, "replayed", None)  # an httpx.Response has none
    missed = replayed.misses.get(request_id) if replayed is not None else None
    if isinstance(missed, GatewayError):
        return missed
    return MalformedResponse(f"the batch answer lacks id {request_id}")


_json_text = json.encoder.encode_basestring_ascii  # a str as JSON, ASCII only


def _batch_text(
    calls: Sequence[tuple[str, Any, str | None]], ids: list[int], params_texts: Sequence[str]
) -> bytes | None:
    """The batch's body as the request encoder would write it (`_network.json_bytes`), joined
    from each call's params text instead of encoding every call's object again; None when
    the two could differ, and the body is then encoded from its objects. They agree on text
    that is ASCII throughout (no \\u escape, which the request encoder would write as the
    character itself) and holds no NaN or Infinity (which the request encoder refuses)."""
    names: dict[str, str] = {}
    parts = []
    for (method, _, _), request_id, params in zip(calls, ids, params_texts, strict=True):
        name = names.get(method)
        if name is None:
            name = names[method] = _json_text(method)
        parts.append(f'{{"jsonrpc":"2.0","id":{request_id},"method":{name},"params":{params}}}')
    text = "[" + ",".join(parts) + "]"
    if "\\u" in text or "NaN" in text or "Infinity" in text:
        return None
    return text.encode()


def _results_in_order(
    answers: list[Any], ids: list[int], kinds: list[str | None], checks: dict[str, Any]
) -> list[Any] | None:
    """A batch's results when its answer is the common one: an answer object per request, in
    the requests' order, each with its request's int id, no error and a result of its kind
    (what `batch_request` reads one by one, to the same results); else None, and the answers
    are read one by one. Passes in C over the answers, where reading each by its id was a
    Python step per call."""
    n = len(ids)
    if len(answers) != n or list(map(type, answers)).count(dict) != n:
        return None
    got = list(map(_ID_OF, answers))
    if got != ids or list(map(type, got)).count(int) != n:
        return None
    if list(map(_ERROR_OF, answers)).count(None) != n:
        return None
    if not all(map(dict.__contains__, answers, repeat("result"))):
        return None
    kind = kinds[0] if kinds else None
    if kinds.count(kind) != n:
        return None
    results = list(map(_RESULT_OF, answers))
    if kind is not None:
        check = checks.get(kind)
        if check is None or not all(map(check, results)):
            return None
    return results


_ID_OF = operator.methodcaller("get", "id")
_ERROR_OF = operator.methodcaller("get", "error")
_RESULT_OF = operator.itemgetter("result")


def answers_by_id(answers: list[Any]) -> tuple[dict[str | None, Any], dict[str, int]]:
    """A batch's answer objects by id, and the ids answered more than once with answers that
    differ (with how many answers each had)."""
    by_id: dict[str | None, Any] = {}
    repeated: dict[str, list[Any]] = {}
    for answer in answers:
        if not isinstance(answer, dict):
            continue
        key = id_key(answer.get("id"))
        if key is not None and key in by_id:
            repeated.setdefault(key, [by_id[key]]).append(answer)
        by_id.setdefault(key, answer)
    conflicting = {
        key: len(same_id)
        for key, same_id in repeated.items()
        if any(answer != same_id[0] for answer in same_id)
    }
    return by_id, conflicting


def refuse_batch_status(response: Answer) -> None:
    """A 4xx to a batch is the node refusing batches, unless it is about the key, the path or
    the rate or the quota (those would refuse single calls just the same). A 413, or a body
    that says the batch is too large, refuses this batch's size only."""
    status = response.status_code
    if 400 <= status < 500 and status not in (401, 402, 403, 404, 429):
        text = " ".join(response.content[:65536].decode("utf-8", "replace").split())
        says_so = says_batch_too_large(text)
        raise BatchRefused(
            f"HTTP {status} to a JSON-RPC batch ({clip(text, 160)})",
            status=status,
            too_large=status == 413 or says_so,
            limit=_limit_in(text) if says_so else None,
        )


def refuse_whole_batch(answer: Any, first_id: int, status: int) -> None:
    """A batch of many answered by one error object, with the first call's id or none, is a
    refusal of the whole batch: geth answers a batch over its limit so, as "the best we can do,
    given that the protocol doesn't have a way of reporting an error for the entire batch"
    (go-ethereum ``rpc/handler.go``, `respondWithBatchTooLarge`). Read as one: see
    `refuse_batch_answer`. Any other lone answer is read by its id as usual."""
    if type(answer) is not dict or answer.get("error") is None:
        return
    if id_key(answer.get("id")) in (None, str(first_id)):
        refuse_batch_answer(answer, status)


def refuse_batch_answer(answer: Any, status: int) -> None:
    """A batch answered by one object: a rate-limit error is retried, a spent quota raised as it
    is (single calls would meet it too); anything else is a no, and one that says the batch is
    too large a no to its size only."""
    if isinstance(answer, dict) and answer.get("error") is not None:
        try:
            interpret_rpc(answer, None, status)
        except (RateLimited, QuotaExceeded):
            raise
        except GatewayError as error:
            said = answer["error"].get("message") if isinstance(answer["error"], dict) else None
            too_large = says_batch_too_large(str(said or ""))
            raise BatchRefused(
                f"the node refused a JSON-RPC batch: {error}",
                status=status,
                too_large=too_large,
                limit=_limit_in(str(said)) if too_large else None,
            ) from None
    raise BatchRefused(
        f"the node answered a JSON-RPC batch with a {type(answer).__name__}, not an array",
        status=status,
    )


# How nodes word a batch over their limit: geth's "batch too large" (rpc/errors.go), Besu's
# "Number of requests in batch exceeds --rpc-max-batch-size.", and kin.
_BATCH_TOO_LARGE = re.compile(
    r"batch.*\b(too (large|big|many)|exceed|limit|max)|\b(too (large|big|many)|exceed).*batch",
    re.IGNORECASE | re.DOTALL,
)


def says_batch_too_large(message: str) -> bool:
    return _BATCH_TOO_LARGE.search(message) is not None


def _limit_in(message: str) -> int | None:
    """The batch size limit a refusal states ("batch limit 100 exceeded"), if it states one."""
    found = _STATED_LIMIT.search(message)
    return int(found.group(1)) or None if found else None


_STATED_LIMIT = re.compile(
    r"\b(?:limit|max(?:imum)?|more than|at most)(?: is| of)?:? (\d{1,6})\b(?![.,]\d)", re.I
)
