"""The toolkit's one exception tree.

    GatewayError
    ├── ValidationError        bad input, refused before any request is sent (0 RU); a ValueError
    ├── BudgetExceeded         the call could cross the RU budget, refused before sending
    ├── TransportError         no usable HTTP answer: connection refused or dropped, timeout
    │   └── Timeout
    ├── ResponseError          the gateway answered, but with an error
    │   ├── HTTPStatusError    non-2xx status with no more specific meaning
    │   ├── RateLimited        HTTP 429, or a JSON-RPC "RPS limit" error (retry_after in seconds)
    │   ├── QuotaExceeded      a daily or monthly quota spent, or HTTP 402 (never retried)
    │   ├── MalformedResponse  not JSON, truncated JSON, HTML, wrong content type, shape or id
    │   ├── BatchRefused       the node takes no JSON-RPC batches, or none this large
    │   ├── RPCError           a JSON-RPC error object (code, message, data)
    │   │   └── LogRangeRefused  eth_getLogs refused for its block range or result size
    │   ├── TronError          TRON's HTTP-200 ``{"Error": "..."}``
    │   │   └── AmbiguousAssetName
    │   ├── TonError           toncenter's ``{"ok": false, "code": ..., "error": ...}``
    │   └── PlatformError      the platform API's ``{"error": {"code", "message"}}``
    │       └── AuthenticationError  (401 and 403)
    ├── TapeError              a tape cannot be used: not a tape, an unknown version, no path
    │   └── TapeMiss           replaying, a call the tape does not hold (nothing was sent)
    ├── NeedsCPython           a feature that cannot run in a browser tab (Pyodide) says so
    ├── DatasetError           a dataset could not be used or written; says what was kept
    │   ├── DatasetBusy        another run holds the dataset's lock (who, since when)
    │   └── WorkerFailed       a distributed run's partition failed on its worker (`frame` kept)
    ├── FrameError             (toolkit.frames) a payload does not have the shape a frame
    │                          function expects; a ValueError
    └── ParquetError           (toolkit.frames) a frame Parquet cannot keep exactly, or a file
                               that is not one to read; a ValueError
    RunStopped                 a KeyboardInterrupt, not a GatewayError: a blocking
                               `Workload.run()` was stopped; says what it kept

Every message passes through `redact_text`, and every attribute through `scrub_value` (a node may
echo a key in an error's message or data), so no registered key, and no key material in a URL
(a proxy quoting the URL of the node behind it), can appear in an exception's text or in anything
it carries.
Low-level errors (httpx, aiohttp, json) become this tree at each transport's edge
(`toolkit.client._network`) and in the exchange (`toolkit.client._transport`).
"""

from __future__ import annotations

from typing import Any

from ._redact import redact_text, scrub, scrub_value


class GatewayError(Exception):
    """Base of every error the toolkit raises on purpose.

    `node` is the node's redacted URL (or name) and `method` the catalog name of the call,
    when known.
    """

    def __init__(self, message: str, *, node: str | None = None, method: str | None = None):
        self.detail = redact_text(message)
        self.node = node
        self.method = method
        super().__init__(self.detail)

    def __setattr__(self, name: str, value: object) -> None:
        # Every attribute, whoever sets it: `rpc_message` and `data` hold what a node wrote,
        # which may echo the key; node labels are redacted already, but a caller may pass a URL.
        super().__setattr__(name, scrub_value(value, urls=True))

    def __str__(self) -> str:
        method = f"method {self.method}" if self.method else ""
        context = ", ".join(filter(None, (method, self.node)))
        return scrub(f"{self.detail} [{context}]") if context else self.detail

    @property
    def message(self) -> str:
        return str(self)

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt without `__init__`, whose arguments `args` does not hold (`needed=`, an RPC
        # error's code): a worker's error reaches a Dask coordinator whole, attributes included.
        return _restore, (type(self), self.args), self.__dict__


def _restore(cls: type[GatewayError], args: tuple[Any, ...]) -> GatewayError:
    error = cls.__new__(cls)
    error.args = args
    return error


class ValidationError(GatewayError, ValueError):
    """A parameter broke a rule of the spec; nothing was sent and nothing was billed.

    `param` names the parameter (dotted for nested fields, like ``config.sigVerify``) and `rule`
    is a short identifier of the rule that was broken (``hex-prefix``, ``max``, ``conflict``...).
    """

    def __init__(self, message: str, *, param: str | None = None, rule: str | None = None, **kw):
        self.param = param
        self.rule = rule
        prefix = f"{param}: " if param else ""
        super().__init__(prefix + message, **kw)


class BudgetExceeded(GatewayError):
    """Sending this call could cross the RU budget, so it was not sent."""

    def __init__(self, message: str, *, needed: int, remaining: int, **kw):
        self.needed = needed
        self.remaining = remaining
        super().__init__(message, **kw)


class RunStopped(KeyboardInterrupt):
    """A blocking `Workload.run()` was stopped part way (the notebook's stop button, Ctrl-C).

    Its message is one line saying how many calls finished and where their rows are. `result`
    (also the workload's ``last_result``) has a row for every call: those that did not finish
    say ``Interrupted``, with what they may have cost. A KeyboardInterrupt still, so code that
    stops on Ctrl-C stops on it; not a GatewayError, since nothing about the gateway failed.
    """

    def __init__(self, message: str, *, result: Any = None):
        self.result = result
        super().__init__(scrub(message))


class TransportError(GatewayError):
    """No usable HTTP answer: the connection failed, was dropped, or timed out."""


class Timeout(TransportError):
    """The gateway did not answer within the timeout."""


class ResponseError(GatewayError):
    """The gateway answered, and the answer is an error. `status` is the HTTP status code."""

    def __init__(self, message: str, *, status: int | None = None, **kw):
        self.status = status
        super().__init__(message, **kw)


class HTTPStatusError(ResponseError):
    """A non-2xx HTTP status that no more specific error explains."""


class RateLimited(ResponseError):
    """The gateway refused the call for its rate limit. `retry_after` is in seconds, when given."""

    def __init__(self, message: str, *, retry_after: float | None = None, **kw):
        self.retry_after = retry_after
        super().__init__(message, **kw)


class QuotaExceeded(ResponseError):
    """The provider's quota is spent: a daily request or credit count, a monthly compute-unit
    quota, or HTTP 402 Payment Required. Unlike `RateLimited` it is never retried: a quota
    resets at the end of its day or month, not in seconds, and each attempt may be billed."""


class MalformedResponse(ResponseError):
    """The body was not the JSON the spec promises (HTML page, truncated JSON, wrong shape).

    `retryable` says whether asking again can help: a truncated body or a proxy's HTML page may
    pass next time; a well-formed answer of the wrong shape would come back the same, so it is
    not retried (each attempt is billed).
    """

    def __init__(self, message: str, *, retryable: bool = False, **kw):
        self.retryable = retryable
        super().__init__(message, **kw)


class BatchRefused(ResponseError):
    """The node answered a JSON-RPC batch with a refusal (a 4xx status, or one error object or
    one result instead of an array): it does not take batches, so send the calls one by one.

    `too_large` when it refused the batch for its size (geth's ``"batch too large"``): it takes
    smaller ones, and the client sends the calls in smaller batches itself. `limit` is the most
    calls a batch may hold, when the refusal says."""

    def __init__(self, message: str, *, too_large: bool = False, limit: int | None = None, **kw):
        self.too_large = too_large
        self.limit = limit
        super().__init__(message, **kw)


class RPCError(ResponseError):
    """A JSON-RPC error object: `code`, `rpc_message` and optional `data`."""

    def __init__(self, code: int | None, rpc_message: str, *, data: Any = None, **kw):
        self.code = code
        self.rpc_message = rpc_message
        self.data = data
        super().__init__(f"JSON-RPC error {code}: {rpc_message}", **kw)


class LogRangeRefused(RPCError):
    """A node refused an ``eth_getLogs`` call for its block range or the size of its answer
    (Alchemy's "Log response size exceeded", Infura's "query returned more than 10000 results",
    reth's "query exceeds max results"...): ask for fewer blocks. `suggested`: the
    ``(fromBlock, toBlock)`` the node's message proposes, when it names one. Never a rate limit
    (the texts say "limit" and "exceeded" too): retrying the same range cannot succeed."""

    def __init__(
        self,
        code: int | None,
        rpc_message: str,
        *,
        suggested: tuple[int, int] | None = None,
        data: Any = None,
        **kw,
    ):
        self.suggested = suggested
        super().__init__(code, rpc_message, data=data, **kw)


class TronError(ResponseError):
    """The TRON node answered HTTP 200 with an ``Error`` field instead of a result."""

    def __init__(self, error: str, *, hint: str | None = None, **kw):
        self.error = error
        super().__init__(f"{error} ({hint})" if hint else error, **kw)


class AmbiguousAssetName(TronError):
    """More than one TRC-10 asset has this name: names are not unique, ids are.

    Use the flow the spec recommends: list the matches by name, take the `id` of the one you want,
    then look it up by id.
    """


class TonError(ResponseError):
    """The TON node answered ``{"ok": false, "code": ..., "error": ...}``."""

    def __init__(self, error: str, *, code: int | None = None, **kw):
        self.error = error
        self.code = code
        super().__init__(f"TON error {code}: {error}", **kw)


class PlatformError(ResponseError):
    """The platform API answered ``{"error": {"code": ..., "message": ...}}``."""

    def __init__(self, code: str | None, error_message: str, **kw):
        self.code = code
        self.error_message = error_message
        super().__init__(f"platform error {code}: {error_message}", **kw)


class AuthenticationError(PlatformError):
    """The platform API refused the API key (HTTP 401 or 403)."""


class TapeError(GatewayError):
    """A tape (`toolkit.connect(tape=...)`) cannot be used: the file is not a tape, was written
    by a newer toolkit (an unknown version), or cannot be read or written."""


class TapeMiss(TapeError):
    """Replaying a tape, a call it does not hold: nothing was sent (0 RU). `call` names the
    node, the method and the params, as the tape keys calls."""

    def __init__(self, message: str, *, call: dict[str, str] | None = None, **kw):
        self.call = call or {}
        super().__init__(message, **kw)


class NeedsCPython(GatewayError):
    """This feature cannot run where Python runs in a browser tab (Pyodide, JupyterLite): it needs
    threads, sockets or a library with no build there. The message names the feature and what
    works in the browser instead."""


class DatasetError(GatewayError):
    """A dataset (`Workload.run(dataset=...)`) could not be used or written. The message says
    what was kept and where; `path` is the dataset's folder."""

    def __init__(self, message: str, *, path: str | None = None, **kw):
        self.path = path
        super().__init__(message, **kw)


class DatasetBusy(DatasetError):
    """Another run (in this or another process) is writing into the dataset. `holder` tells
    who: its process id, host, run and since when, as far as it wrote them down."""

    def __init__(self, message: str, *, holder: dict[str, Any] | None = None, **kw):
        self.holder = holder or {}
        super().__init__(message, **kw)


class WorkerFailed(DatasetError):
    """A partition of a distributed run (`Workload.run(client=...)`) failed on its worker: its
    storage refused a write (a full disk, a file size limit), its run raised (out of memory), or
    the worker died more often than dask retries a task. Raised once every partition has ended,
    every reservation settled and the ledger holds what the workers spent.

    `frame` has one row per call this run was to send (the calls the dataset answered before
    the run are not in it: `read_dataset` has them). Of those, `answered` have their result in
    `frame` (and in the dataset at `path` when they were written before the failure),
    `not_sent` were refused before sending (0 RU), and `unknown` ran on workers that died or
    failed before returning their rows: the rows they wrote are in the dataset, and what they
    cost is in the ledger (may-have-been-billed at most). `causes` says what failed, one line
    per partition. A run again into the dataset sends only the calls without a row there."""

    def __init__(
        self,
        message: str,
        *,
        frame: Any = None,
        answered: int = 0,
        not_sent: int = 0,
        unknown: int = 0,
        causes: list[str] | None = None,
        **kw,
    ):
        self.frame = frame
        self.answered = answered
        self.not_sent = not_sent
        self.unknown = unknown
        self.causes = causes or []
        super().__init__(message, **kw)


__all__ = [
    "AmbiguousAssetName",
    "AuthenticationError",
    "BatchRefused",
    "BudgetExceeded",
    "DatasetBusy",
    "DatasetError",
    "GatewayError",
    "HTTPStatusError",
    "LogRangeRefused",
    "MalformedResponse",
    "NeedsCPython",
    "PlatformError",
    "QuotaExceeded",
    "RPCError",
    "RateLimited",
    "ResponseError",
    "RunStopped",
    "Timeout",
    "TonError",
    "TransportError",
    "TronError",
    "ValidationError",
    "WorkerFailed",
]

# Shown where users meet them, as `toolkit.ValidationError` in a traceback or a repr, not by the
# private module that defines them; pickle finds them there too.
for _name in (*__all__, "TapeError", "TapeMiss"):
    globals()[_name].__module__ = "toolkit"
del _name
