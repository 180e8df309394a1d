"""One exchange protocol and two drivers: what a call does above its transport.

A call is written once, as a generator (`Exchange.run`) that yields what it needs done: a `Send`
(it receives the `Answer`, or a `NoAnswer` carrying the toolkit's error) or a `Sleep`.
`drive_sync` runs such a generator with a transport's `send`, `drive_async` with its `asend`
(`_http.Transport`: the network's, `_network`, or a tape's, `_tape`): retries, backoff, metering
and billing exist only once. Each transport turns its own library's errors into the toolkit's
tree; what an answer's status and body mean is read by the protocol layer (`_answers`, picked by
`_protocol`).
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple

from .._errors import (
    GatewayError,
    HTTPStatusError,
    MalformedResponse,
    PlatformError,
    RateLimited,
    Timeout,
    TonError,
    TransportError,
    TronError,
)
from .._redact import redact_url, register_secret, register_url, scrub_logs
from ..catalog import Fate, PricingTable, charge, fate_of_status
from ._http import (
    MAX_ANSWER_BYTES,
    Answer,
    Delivery,
    HTTPRequest,
    LazyModule,
    NoAnswer,
    Replayed,
    Send,
    Transport,
)
from ._ledger import Entry, Meter
from ._ratelimit import RateLimiter

if TYPE_CHECKING:
    import asyncio
else:
    asyncio = LazyModule("asyncio", globals())  # imported on first use: see `_http.LazyModule`

DEFAULT_TIMEOUT = 30.0  # seconds for a whole call: connect, send, read and every retry

scrub_logs()  # httpx logs each request URL at INFO, and node URLs carry access keys
USER_AGENT = "node-gateway-toolkit"


# HTTP statuses an `Advice` may be about; 0 stands for no answer at all (a `TransportError`).
NO_ANSWER = 0
KEY_REFUSED = frozenset({401, 403, 404})  # a wrong or doubled key: refused, or no such path
ANY_FAILURE = frozenset({NO_ANSWER, *range(400, 600)}) - {402, 429}  # not a quota or a rate


class Advice(NamedTuple):
    """What the toolkit knows of an address that explains a failed call with one of
    `statuses`: where its key came from (an environment variable, ``key=``), what the
    platform lists of the node. Added to the error's message (`advise`)."""

    statuses: frozenset[int]
    text: str


@dataclass(frozen=True, repr=False)
class Endpoint:
    """A node or platform address. `url` holds the access key; only `label` is ever shown."""

    url: str
    label: str = ""
    advice: tuple[Advice, ...] = ()

    def __post_init__(self) -> None:
        register_url(self.url)
        if not self.label:
            object.__setattr__(self, "label", redact_url(self.url))

    def join(self, path: str) -> str:
        return self.url.rstrip("/") + path if path else self.url

    def __repr__(self) -> str:
        return f"Endpoint({self.label!r})"


def advise(error: GatewayError, advice: tuple[Advice, ...]) -> None:
    """Add to `error`'s message the `advice` about its status, when it is about the address:
    no answer, a bare HTTP status or the platform's refusal (not a JSON-RPC error, a rate
    limit or a batch refused). Once: an error may pass here again."""
    if not advice:
        return
    if isinstance(error, TransportError):
        status: int | None = NO_ANSWER
    elif isinstance(error, HTTPStatusError | PlatformError):
        status = error.status
    else:
        return
    notes = [a.text for a in advice if status in a.statuses and a.text not in error.detail]
    if notes:
        error.detail = "; ".join([error.detail, *notes])
        error.args = (error.detail, *error.args[1:])


class Sleep(NamedTuple):
    seconds: float


# --- retry policy -----------------------------------------------------------------------------

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


@dataclass(frozen=True)
class RetryPolicy:
    """Bounded retries with exponential backoff and jitter.

    Rate-limit replies wait what the gateway asks (`Retry-After`, or the body's `try_again_in` or
    `backoff_seconds`), up to `max_wait_s`; a longer wait is not slept through but raised at once.
    Transport failures, 5xx, and malformed bodies (truncated JSON, an HTML error page) are
    retried; error answers that would come back the same (JSON-RPC errors, TRON and platform
    errors, a spent quota) are not.
    """

    attempts: int = 4
    backoff_s: float = 0.25
    backoff_max_s: float = 8.0
    max_wait_s: float = 30.0

    def delay(self, error: GatewayError, attempt: int) -> float | None:
        """Seconds to wait before attempt `attempt + 1`, or None to give up and raise `error`."""
        if attempt + 1 >= self.attempts or not _retryable(error):
            return None
        backoff = min(self.backoff_max_s, self.backoff_s * 2**attempt)
        backoff *= 0.5 + random.random() / 2
        if isinstance(error, RateLimited) and error.retry_after is not None:
            # Never sooner than the backoff: Infura has answered `backoff_seconds: 0` to a
            # project over its rate (INFURA/infura#201), and asking again at once would only be
            # refused, and billed, again.
            wait = max(error.retry_after, backoff)
            return wait if error.retry_after <= self.max_wait_s else None
        return backoff


def _retryable(error: GatewayError) -> bool:
    if isinstance(error, Timeout):
        return False  # the call's whole deadline is spent
    if isinstance(error, MalformedResponse):
        return error.retryable
    if isinstance(error, RateLimited | TransportError):
        return True
    # A 5xx is the server's trouble whatever body explains it (the platform's error object,
    # toncenter's: its 504 is a lite server that timed out, and its own client retries 5xx;
    # TRON's: TronGrid's 503 is its per-second limit); a JSON-RPC error object is an answer
    # about the call and would come back the same.
    retried = HTTPStatusError | PlatformError | TonError | TronError
    return isinstance(error, retried) and error.status in RETRY_STATUSES


# --- one logical exchange, with retries, the deadline and billing ------------------------------


Interpret = Callable[[Answer], Any]
Step = Send | Sleep


class StillToSend(GatewayError):
    """A call of a JSON-RPC batch that a recording resumed from one that died (`Tape.resumed`)
    does not hold: its tape answered the batch's other calls (0 RU, as a replay) and sent
    nothing; the node sends this one next (`NodeCore._exchange_batch`), and enters it in the
    ledger then. Never a caller's result."""


def attempt_fate(outcome: Answer | NoAnswer, pricing: PricingTable | None = None) -> Fate:
    """The billing fate of one attempt (see `toolkit.catalog.billing`), what an error status
    costs read from `pricing` (`PricingTable.status_costs`). A tape's answer and a tape's miss
    were never sent."""
    fate_of = fate_of_status if pricing is None else pricing.fate_of_status
    if isinstance(outcome, NoAnswer):
        if outcome.status is not None:  # answered; it went unread
            return fate_of(outcome.status)
        return Fate.UNANSWERED if outcome.sent else Fate.NOT_SENT
    return Fate.NOT_SENT if outcome.replayed is not None else fate_of(outcome.status_code)


# No `__init__` of Python (the fields' defaults are the class's): `Receipt()` is made in C, a
# fraction of the cost of a dataclass's `__init__`, and a bulk run makes one per call.
@dataclass(init=False)
class Receipt:
    """What one call cost and how it ended, for callers that report per call."""

    ru: int = 0  # billed: attempts that got an answer
    unconfirmed_ru: int = 0  # sent without an answer: may have been billed
    answered: int = 0  # attempts that got an HTTP answer
    cache_hit: bool = False
    status: str = ""  # "ok", the error's name, "cancelled" or "interrupted"

    def add(self, billed: int, unconfirmed: int, answered: bool) -> None:
        self.ru += billed
        self.unconfirmed_ru += unconfirmed
        self.answered += answered


class SharedReceipt(Receipt):
    """A receipt many calls share, which never changes: a call not sent yet (`NOT_SENT`) or
    answered from the response cache (`CACHE_HIT`) has spent nothing, and a bulk run of a
    thousand such calls need not make a thousand receipts that say so. Each send gives its
    call a `Receipt` of its own before it counts anything."""

    __slots__ = ("_name",)
    _name: str  # set once, in __init__ (the class refuses every other assignment)

    def __init__(self, name: str, **values: Any):
        object.__setattr__(self, "_name", name)  # its name in this module
        for attribute in fields(Receipt):
            key = attribute.name
            object.__setattr__(self, key, values.get(key, attribute.default))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a shared receipt never changes (set {name}); give the call its own")

    def __hash__(self) -> int:  # immutable: a dataclass field may default to it
        return hash(tuple(getattr(self, attribute.name) for attribute in fields(Receipt)))

    def __reduce__(self) -> str:
        return self._name  # pickled and copied as itself: there is one of each


NOT_SENT = SharedReceipt("NOT_SENT")
CACHE_HIT = SharedReceipt("CACHE_HIT", cache_hit=True, status="ok")


def interruption_status(error: BaseException) -> str:
    """The ledger status of a call that `error` stopped."""
    if isinstance(error, asyncio.CancelledError):
        return "cancelled"
    if isinstance(error, KeyboardInterrupt):
        return "interrupted"
    return type(error).__name__


def _with_params(entries: list[Entry], params: tuple[str, ...]) -> list[Entry]:
    """Each call's entry with its params (the entries of a batch's calls that read alike are
    one object until then)."""
    if len(params) != len(entries):
        return entries
    # `params` is the last field: each distinct entry's other fields taken once, and each
    # call's entry made from them by tuple's own constructor (what `Entry._make` calls).
    keys = list(map(id, entries))
    heads = {key: entry[:-1] for key, entry in dict(zip(keys, entries, strict=True)).items()}
    new = tuple.__new__
    return [new(Entry, heads[key] + (text,)) for key, text in zip(keys, params, strict=True)]


@dataclass(slots=True)  # slots: one per call
class Exchange:
    """Everything about one logical call except the HTTP client that carries it.

    Each attempt: wait for the rate limiter, reserve the price against the budget (just before
    sending, so a budget lowered meanwhile applies), send, then settle the reservation by the
    attempt's fate: billed when answered, counted as may-be-billed when sent without an answer,
    free when never sent. The reservation settles on every exit, a cancel or an interrupt too.
    """

    endpoint: Endpoint
    meter: Meter
    policy: RetryPolicy
    request: HTTPRequest
    interpret: Interpret
    method: str
    ru: int  # the price reserved per attempt: the most the gateway may bill
    timeout_s: float  # the whole call: connect, send, read and retries
    ru_likely: int | None = None  # the likely price, when it is a range (a moving head)
    max_answer_bytes: int = MAX_ANSWER_BYTES
    archive: bool | None = None
    note: str = ""
    limiter: RateLimiter | None = None  # consulted before every attempt
    receipt: Receipt = field(default_factory=Receipt)
    # The calls a JSON-RPC batch carries, as (method, likely RU, RU, archive): the limiter counts
    # each, and the ledger gets one entry per call, so RU by method stays true for batched work.
    parts: tuple[tuple[str, int, int, bool | None], ...] = ()
    # Each call's params as compact JSON (one, or one per part), for the ledger's `params`.
    params: tuple[str, ...] = ()
    # False for a batch whose calls, if the budget refuses it whole, are sent again one by one
    # (a bulk run): the refusal is then no call of its own, and leaves no ledger entry.
    records_budget_refusal: bool = True
    answered_attempts: int = 0
    unanswered_attempts: int = 0
    answer: Answer | None = None  # the last answer read (its body, for the response cache)
    # Replaying a tape: when the first answer was recorded, and what the call's answers cost
    # then, per call (billed, maybe billed), summed over its attempts.
    replayed_at: str | None = None
    recorded: list[tuple[int, int]] | None = None
    recorded_latency_s: float = 0.0
    deadline: float = 0.0  # when the call must end (`time.monotonic()`), set as it starts

    def cost(self, likely: int, price: int) -> tuple[int, int]:
        """(billed, unconfirmed) RU so far of a call priced `likely` to `price` per attempt."""
        billed = likely * self.answered_attempts
        unconfirmed = (price - likely) * self.answered_attempts
        return billed, unconfirmed + price * self.unanswered_attempts

    def run(self) -> Generator[Step, Any, Any]:
        started = time.perf_counter()
        deadline = self.deadline = time.monotonic() + self.timeout_s
        attempt, status, result = 0, "ok", None
        try:
            while True:
                calls = len(self.parts) or 1
                turn = self.limiter.take(calls) if self.limiter else None
                wait = turn.wait if turn else 0.0
                if wait > 0:
                    try:
                        yield Sleep(wait)
                    except BaseException:  # stopped while waiting: its turn goes to the next
                        assert self.limiter is not None and turn is not None  # it said to wait
                        self.limiter.release(turn)
                        raise
                    if not attempt:  # a call's time starts when the rate limit lets it go
                        deadline = self.deadline = deadline + wait
                outcome = yield from self._attempt(attempt, deadline)
                try:
                    result = self._read(outcome)
                    return result
                except GatewayError as error:
                    delay = self.policy.delay(error, attempt)
                    if delay is None or time.monotonic() + delay >= deadline:
                        error.attempts = attempt + 1
                        raise
                attempt += 1
                yield Sleep(delay)
        except GatewayError as error:
            status = type(error).__name__
            error.method = error.method or self.method
            error.node = error.node or self.endpoint.label
            advise(error, self.endpoint.advice)
            raise
        except BaseException as error:
            status = interruption_status(error)
            raise
        finally:
            self.receipt.status = status
            self._record(status, result, attempt, time.perf_counter() - started)

    def _attempt(self, attempt: int, deadline: float) -> Generator[Step, Any, Any]:
        what = f"{self.method} on {self.endpoint.label}" + (
            f" (retry {attempt})" if attempt else ""
        )
        self.meter.reserve(self.ru, what=what)
        self.meter.requests_sent += 1
        delivery = Delivery()
        fate = None
        likely = self.ru if self.ru_likely is None else self.ru_likely
        try:
            outcome = yield Send(
                self.request,
                deadline,
                delivery,
                self.parts,
                likely,
                self.ru,
                self.max_answer_bytes,
                self.timeout_s,
            )
            fate = attempt_fate(outcome, self.meter.pricing)
            return outcome
        finally:
            if fate is None:  # cancelled or interrupted: sent only if the request may have left
                fate = Fate.UNANSWERED if delivery.may_have_left else Fate.NOT_SENT
            billed, unconfirmed = charge(fate, likely, self.ru)
            self.answered_attempts += fate is Fate.ANSWERED
            self.unanswered_attempts += fate is Fate.UNANSWERED
            self.meter.settle(self.ru, billed, unconfirmed)
            self.receipt.add(billed, unconfirmed, fate is Fate.ANSWERED)

    def _add_recorded(self, replayed: Replayed) -> None:
        if self.replayed_at is None:
            self.replayed_at = replayed.at
        self.recorded_latency_s += replayed.latency_s
        costs = list(replayed.costs)
        if self.recorded is not None and len(self.recorded) == len(costs):
            costs = [(a + c, b + d) for (a, b), (c, d) in zip(self.recorded, costs, strict=True)]
        self.recorded = costs

    def _record(self, status: str, result: Any, retries: int, latency: float) -> None:
        likely = self.ru if self.ru_likely is None else self.ru_likely
        # A replayed call happened when it was recorded, and took as long.
        now = self.meter.clock.answered_at(self.replayed_at)
        if self.replayed_at is not None:
            latency = self.recorded_latency_s
        sent = self.answered_attempts + self.unanswered_attempts > 0
        if not sent and not self.records_budget_refusal and status == "BudgetExceeded":
            return
        recorded = self.recorded or [(0, 0)]
        params = self.params
        if not self.parts:  # one call, one entry
            part = (self.method, likely, self.ru, self.archive)
            entry = self._entry(part, status, now, latency, retries, sent, recorded[0])
            self.meter.ledger.record(entry._replace(params=params[0]) if params else entry)
            return
        # One entry per call; calls of a batch that read alike share one entry but their params
        # (made once, each call's params then set in one pass: `_with_params`).
        made: dict[tuple[Any, ...], Entry] = {}
        entries: list[Entry] = []
        statuses = self._statuses(status, result, len(self.parts))
        if statuses is None and len(recorded) == 1:  # each call as the request went
            # Calls of one part read alike: an entry per distinct part, found in C per call.
            by_part = {
                part: self._entry(part, status, now, latency, retries, sent, recorded[0])
                for part in dict.fromkeys(self.parts)
            }
            alike = list(map(by_part.__getitem__, self.parts))
            self.meter.ledger.record_many(_with_params(alike, params))
            return
        parts = self.parts
        if statuses is None:
            statuses = [status] * len(parts)
        costs = recorded if len(recorded) == len(parts) else [recorded[0]] * len(parts)
        if _STILL_TO_SEND in statuses:  # entered when they are sent, as what they cost then
            kept = [i for i, part_status in enumerate(statuses) if part_status != _STILL_TO_SEND]
            parts = tuple(parts[i] for i in kept)
            statuses = [statuses[i] for i in kept]
            costs = [costs[i] for i in kept]
            params = tuple(params[i] for i in kept) if len(params) == len(self.parts) else params
        for part, part_status, cost in zip(parts, statuses, costs, strict=True):
            shared = made.get((part, part_status, cost))
            if shared is None:
                shared = made[(part, part_status, cost)] = self._entry(
                    part, part_status, now, latency, retries, sent, cost
                )
            entries.append(shared)
        self.meter.ledger.record_many(_with_params(entries, params))

    def _entry(
        self,
        part: tuple[str, int, int, bool | None],
        status: str,
        now: datetime,
        latency: float,
        retries: int,
        sent: bool,
        recorded: tuple[int, int] = (0, 0),
    ) -> Entry:
        method, likely, price, archive = part
        billed, unconfirmed = self.cost(likely, price)
        return Entry(
            time=now,
            node=self.endpoint.label,
            method=method,
            ru=billed,
            unconfirmed_ru=unconfirmed,
            latency_s=latency,
            status=status,
            retries=retries,
            archive=archive is True,
            note=self.note,
            sent=sent,
            recorded_ru=recorded[0],
            recorded_unconfirmed_ru=recorded[1],
            # A call of a replayed batch that the tape lacks was not replayed.
            replayed=self.replayed_at is not None and status != "TapeMiss",
        )

    @staticmethod
    def _statuses(status: str, result: Any, count: int) -> list[str] | None:
        """Each part's status: a batch answer's failed item keeps its own error's name. None
        when every part's is `status` (no item failed)."""
        # The results' types, each once: a pass in C, then a look at the few types.
        if (
            count > 1
            and isinstance(result, list)
            and len(result) == count
            and any(issubclass(kind, GatewayError) for kind in set(map(type, result)))
        ):
            return [type(r).__name__ if isinstance(r, GatewayError) else status for r in result]
        return None

    def _read(self, outcome: Answer | NoAnswer) -> Any:
        if isinstance(outcome, NoAnswer):
            raise outcome.error
        self.answer = outcome
        if outcome.replayed is not None:
            self._add_recorded(outcome.replayed)
        return self.interpret(outcome)


_STILL_TO_SEND = StillToSend.__name__


# --- drivers ----------------------------------------------------------------------------------


def drive_sync(transport: Transport, steps: Generator[Step, Any, Any]) -> Any:
    """Run an exchange generator to its result with a transport's blocking `send`."""
    outcome: Any = None
    send = transport.send
    while True:
        try:
            step = steps.send(outcome)
        except StopIteration as done:
            return done.value
        try:
            if isinstance(step, Sleep):
                time.sleep(step.seconds)
                outcome = None
            else:
                outcome = send(step)
        except BaseException as error:  # an interrupt mid-step: the call settles, then re-raises
            _throw(steps, error)
            raise


async def drive_async(transport: Transport, steps: Generator[Step, Any, Any]) -> Any:
    """Run an exchange generator to its result with a transport's `asend`."""
    outcome: Any = None
    asend = transport.asend
    while True:
        try:
            step = steps.send(outcome)
        except StopIteration as done:
            return done.value
        try:
            if isinstance(step, Sleep):
                await asyncio.sleep(step.seconds)
                outcome = None
            else:
                outcome = await asend(step)
        except BaseException as error:  # cancelled mid-step: the call settles, then re-raises
            _throw(steps, error)
            raise


def _throw(steps: Generator[Step, Any, Any], error: BaseException) -> None:
    try:
        steps.throw(error)
    except StopIteration:
        pass
    except BaseException as thrown:
        if thrown is not error:
            raise


_request_ids = itertools.count(1)


def next_request_id() -> int:
    return next(_request_ids)


def next_request_ids(n: int) -> list[int]:
    """`n` request ids at once (a batch's), taken in one step in C."""
    return list(itertools.islice(_request_ids, n))


def bearer(api_key: str) -> dict[str, str]:
    """The platform's auth header. A key read from a file keeps its trailing newline; no key
    ends in whitespace, and a header cannot hold a newline, so it is stripped."""
    register_secret(api_key)
    return {"Authorization": f"Bearer {api_key.strip()}"}
