"""The JSON-RPC 2.0 envelope, batches and error codes, shared by every JSON-RPC endpoint.

A body is one envelope or a non-empty array of them (a batch, answered by an array in the same
order). Envelope rules: ``jsonrpc`` is exactly ``"2.0"``, ``id`` is present and a number or a
string (echoed unchanged), ``method`` is a non-empty string, ``params`` an array or an object
(absent means ``[]``, as geth allows). Breaking them gives ``-32600``; a body that is not JSON gives
``-32700`` with a null id. The TON node wraps the same envelope toncenter's way (`TONCENTER`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .._json import load_bounded

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SERVER_ERROR = -32000  # geth's code for execution and state errors
RATE_LIMITED = -32005  # the code gateways use for "limit exceeded"


class RpcError(Exception):
    """Raised by a method handler; becomes the response's ``error`` object."""

    def __init__(self, code: int, message: str, data: Any = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_json(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


@dataclass(frozen=True, init=False)
class Call:
    """One entry of a request as the meter sees it; `method` is "" when it could not be read."""

    method: str
    params: Any
    id: Any
    inner: str | None = None  # the method a request carries (TON's jsonRPC), for its price

    def __init__(self, method: str, params: Any, id: Any, inner: str | None = None):
        # Set in the instance's dict: a frozen dataclass's own __init__ sets each field through
        # object.__setattr__, slower, and the meter makes one per call served.
        fields = self.__dict__
        fields["method"] = method
        fields["params"] = params
        fields["id"] = id
        fields["inner"] = inner


MAX_DEPTH = 64
"""Arrays and objects nested deeper than this are a parse error: no request of the spec nests
beyond a few levels."""


def load_json(body: bytes) -> Any:
    """A request body as JSON; ValueError for bytes that are not JSON or nest too deep."""
    return load_bounded(body, MAX_DEPTH)


Decoded = tuple[bool, list[Any]] | RpcError
"""A request body read once (`read`): (is_batch, entries), or the error that answers it."""


def read(body: bytes) -> Decoded:
    """`decode`, its error returned rather than raised: the server reads a body once, for the
    meter (`calls_of`) and for the answer (`answer`)."""
    try:
        return decode(body)
    except RpcError as error:
        return error


def decode(body: bytes) -> tuple[bool, list[Any]]:
    """(is_batch, entries) of a body; raises RpcError for bad JSON and for an empty batch."""
    try:
        payload = load_json(body)
    except ValueError as error:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        nested = str(error).startswith("nested")
        raise RpcError(PARSE_ERROR, f"Parse error: {error}" if nested else "Parse error") from None
    if isinstance(payload, list):
        if not payload:
            raise RpcError(INVALID_REQUEST, "Invalid Request: empty batch")
        return True, payload
    return False, [payload]


def calls_of(decoded: Decoded) -> list[Call]:
    """The calls a body asks for, one per envelope; a body that cannot be read is one call."""
    if isinstance(decoded, RpcError):
        return [Call("", None, None)]
    _, entries = decoded
    calls = []
    for entry in entries:
        if type(entry) is dict:
            method, id_ = entry.get("method"), entry.get("id")
            # Most envelopes: a text method and an int or text id, read as they are.
            if type(method) is str and (type(id_) is int or type(id_) is str):
                calls.append(Call(method, entry.get("params"), id_))
                continue
        calls.append(_call_of(entry))
    return calls


def _call_of(entry: Any) -> Call:
    """One envelope as the meter sees it, whatever it holds (`calls_of`)."""
    fields = entry if isinstance(entry, dict) else {}
    method = fields.get("method")
    return Call(method if isinstance(method, str) else "", fields.get("params"), _id_of(fields))


def _id_of(entry: dict[str, Any]) -> Any:
    value = entry.get("id")
    valid = isinstance(value, str) or (
        isinstance(value, int | float) and not isinstance(value, bool)
    )
    return value if valid else None


def _check_envelope(entry: Any) -> tuple[Any, str, Any]:
    if not isinstance(entry, dict):
        raise RpcError(INVALID_REQUEST, "Invalid Request: an envelope must be a JSON object")
    if entry.get("jsonrpc") != "2.0":
        raise RpcError(INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"')
    id_ = entry.get("id")  # an int or text id (most envelopes) needs no further look
    if type(id_) is not int and type(id_) is not str and _id_of(entry) is None:
        raise RpcError(INVALID_REQUEST, 'Invalid Request: "id" must be a number or a string')
    method = entry.get("method")
    if not isinstance(method, str) or not method:
        raise RpcError(INVALID_REQUEST, 'Invalid Request: "method" must be a non-empty string')
    params = entry.get("params", [])
    if not isinstance(params, list | dict):
        raise RpcError(INVALID_REQUEST, 'Invalid Request: "params" must be an array or object')
    return id_, method, params


class Style:
    """How responses are wrapped: plain JSON-RPC 2.0."""

    def success(self, id_: Any, result: Any) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": id_, "result": result}

    def failure(self, id_: Any, error: RpcError) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": id_, "error": error.to_json()}


class ToncenterStyle(Style):
    """toncenter's jsonRPC: ``{"ok": true, "result": ..., "jsonrpc": "2.0", "id": "7"}``.

    toncenter types the id as a string (pydantic ``id: Optional[str]`` in ton-http-api), so a
    request's ``7`` comes back as ``"7"``.
    """

    def success(self, id_: Any, result: Any) -> dict[str, Any]:
        return {"ok": True, "result": result, "jsonrpc": "2.0", "id": _as_text(id_)}

    def failure(self, id_: Any, error: RpcError) -> dict[str, Any]:
        return {
            "ok": False,
            "error": error.message,
            "code": error.code,
            "jsonrpc": "2.0",
            "id": _as_text(id_),
        }


def _as_text(id_: Any) -> str | None:
    return None if id_ is None else str(id_)


JSONRPC = Style()
TONCENTER = ToncenterStyle()

Dispatch = Callable[[str, Any], Any]
"""(method, params) -> result; raises RpcError."""


BATCH_TOO_LARGE = "batch too large"  # geth's errMsgBatchTooLarge (go-ethereum rpc/errors.go)


def refuse_batch(entries: list[Any], style: Style = JSONRPC) -> list[dict[str, Any]]:
    """geth's answer to a batch over its item limit (go-ethereum ``rpc/handler.go``,
    `respondWithBatchTooLarge`): one -32600 "batch too large" error in an array, with the id of
    the batch's first call (an envelope with a method and a valid id), or null when it has none.
    """
    first = next(
        (
            _id_of(entry)
            for entry in entries
            if isinstance(entry, dict) and entry.get("method") and _id_of(entry) is not None
        ),
        None,
    )
    return [style.failure(first, RpcError(INVALID_REQUEST, BATCH_TOO_LARGE))]


def answer(decoded: Decoded, dispatch: Dispatch, style: Style = JSONRPC) -> Any:
    """The response payload for a request body (`read`): one response, or an array for a
    batch."""
    if isinstance(decoded, RpcError):
        return style.failure(None, decoded)
    is_batch, entries = decoded
    responses = [_answer_one(entry, dispatch, style) for entry in entries]
    return responses if is_batch else responses[0]


def _answer_one(entry: Any, dispatch: Dispatch, style: Style) -> dict[str, Any]:
    try:
        id_, method, params = _check_envelope(entry)
    except RpcError as error:
        return style.failure(_id_of(entry) if isinstance(entry, dict) else None, error)
    try:
        return style.success(id_, dispatch(method, params))
    except RpcError as error:
        return style.failure(id_, error)
