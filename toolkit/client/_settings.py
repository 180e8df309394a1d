"""One settings object for a gateway handle or a standalone node, validated when it is made.

`connect()`, `Gateway`, `node()` and `platform()` take the same options: each field of `Settings`
as a keyword argument (`SettingsOptions`), or a whole ``settings=`` (the keywords then change it),
and build one `Settings`; every client below reads it (through `Shared`) instead of carrying its
own copy of each option. A bad value is a `ValidationError` naming the setting at once, not at
the first call; an unknown keyword a `TypeError`, as for any function.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from os import PathLike
from typing import Any, Literal, TypedDict, TypeVar

from .._errors import ValidationError
from ..catalog import DEFAULT_PRICING, PricingTable
from ._cache import CacheSetting, ResponseCache, resolve_cache
from ._http import ASYNC_TRANSPORTS, MAX_ANSWER_BYTES, AsyncTransportKind
from ._ledger import GatewayClock, Meter, check_budget
from ._ratelimit import RateLimiter
from ._tape import Tape, tape_from
from ._transport import DEFAULT_TIMEOUT, RetryPolicy

# A rate for a node: calls per second, a plan's name, "auto", or None (no limit).
NodeRate = float | str | None
RateLimitSetting = RateLimiter | float | str | Mapping[str, NodeRate] | None
# A tape to record or replay: a file, a `Tape`, or None for NODE_GATEWAY_TAPE; and its mode (None
# for NODE_GATEWAY_TAPE_MODE).
TapeSetting = str | PathLike[str] | Tape | None
TapeMode = Literal["record", "replay", "auto"] | None
F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Settings:
    """What a user chooses for their calls.

    `budget`: RU never to cross (None: no limit). `pricing`: the RU rules and plans (None:
    `toolkit.DEFAULT_PRICING`, the spec's and the public pages' rules).
    `retry`: how failed attempts are retried. `timeout`: seconds for a whole call (connect,
    send, read and every retry). `head_ttl_s`: how long a fetched chain head prices calls.
    `cache`: see `connect`. `rate_limit`: how fast calls leave, a JSON-RPC batch of N counting
    N: ``"auto"`` (the default) holds each node to its known ceiling: against a sandbox the
    handle was given (`connect()`'s own, `Gateway(..., sandbox=)`), the ceiling that sandbox
    enforces on it, if any; against a gateway, the rate of the plan the pricing table names
    (`PricingTable.plan_name`); none while a tape is replayed (nothing is sent), nor where no
    ceiling is known. A plan's name holds each
    node to that plan's rate; a number of calls per second (or a `RateLimiter`) holds all of
    the handle's nodes together to it; a mapping gives nodes by name their own (a number, a
    plan's name, or None), the others ``"auto"``; None sends without a limit.
    `async_transport`: ``"auto"`` (aiohttp) or ``"httpx"``. `trust_env`: take proxies
    (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, NO_PROXY) and CA roots (SSL_CERT_FILE, SSL_CERT_DIR) from
    the environment, for sync, async and bulk calls alike; the embedded sandbox turns it off.
    `allow_insecure_http`: let a URL that carries a key use plain HTTP to a host other than
    loopback (a private network you trust), with a warning; otherwise such a URL is refused.
    `max_answer_bytes`: the most an answer may decode to (gzip and deflate included); a larger
    one is a `MalformedResponse`, its reading stopped at the bound.
    """

    budget: int | None = None
    # None is DEFAULT_PRICING (put in by __post_init__): a signature that shows the default
    # table inline is thousands of characters long.
    pricing: PricingTable = None  # type: ignore[assignment]
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    timeout: float = DEFAULT_TIMEOUT
    head_ttl_s: float = 10.0
    cache: CacheSetting = "auto"
    rate_limit: RateLimitSetting = "auto"
    async_transport: AsyncTransportKind = "auto"
    trust_env: bool = True
    allow_insecure_http: bool = False
    max_answer_bytes: int = MAX_ANSWER_BYTES
    # Record or replay calls on a tape (`_tape`): a file path, or None for the environment's
    # NODE_GATEWAY_TAPE; `tape_mode` "record", "replay" or "auto" (NODE_GATEWAY_TAPE_MODE).
    tape: Any = None
    tape_mode: str | None = None

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "budget", check_budget(self.budget))
        if self.pricing is None:
            set_(self, "pricing", DEFAULT_PRICING)
        if not isinstance(self.pricing, PricingTable):
            _refuse("pricing", f"must be a PricingTable, got {self.pricing!r}", "type")
        if self.retry is None:
            set_(self, "retry", RetryPolicy())
        elif not isinstance(self.retry, RetryPolicy):
            _refuse("retry", f"must be a RetryPolicy, got {self.retry!r}", "type")
        set_(self, "timeout", _seconds("timeout", _timeout_seconds(self.timeout), positive=True))
        set_(self, "head_ttl_s", _seconds("head_ttl_s", self.head_ttl_s, positive=False))
        if self.async_transport not in ASYNC_TRANSPORTS:
            _refuse(
                "async_transport",
                f"must be one of {', '.join(ASYNC_TRANSPORTS)}; got {self.async_transport!r}",
                "choice",
            )
        if not isinstance(self.trust_env, bool):
            _refuse("trust_env", f"must be True or False, got {self.trust_env!r}", "type")
        if not isinstance(self.allow_insecure_http, bool):
            _refuse(
                "allow_insecure_http",
                f"must be True or False, got {self.allow_insecure_http!r}",
                "type",
            )
        size = self.max_answer_bytes
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            _refuse("max_answer_bytes", f"must be a positive int, got {size!r}", "type")
        rate_limiter(self.rate_limit, self.pricing)  # refuses a bad value now

    def replace(self, **changes: Any) -> Settings:
        return dataclasses.replace(self, **changes)

    @property
    def open_tape(self) -> Tape | None:
        """The tape these settings record or replay, as `settings_from` opened it."""
        return self.tape if isinstance(self.tape, Tape) else None


class SettingsOptions(TypedDict, total=False):
    """The keyword options of `connect`, `node`, `platform` and `Gateway`: the fields of
    `Settings` (a test keeps the two the same)."""

    budget: int | None
    pricing: PricingTable | None
    retry: RetryPolicy | None
    timeout: float
    head_ttl_s: float
    cache: CacheSetting
    rate_limit: RateLimitSetting
    async_transport: AsyncTransportKind
    trust_env: bool
    allow_insecure_http: bool
    max_answer_bytes: int
    tape: TapeSetting
    tape_mode: TapeMode


OPTIONS = tuple(f.name for f in dataclasses.fields(Settings))


def settings_from(
    settings: Settings | None, options: dict[str, Any], *, where: str, base: Settings | None = None
) -> Settings:
    """One `Settings`: `settings` (else `base`, else the defaults) changed by the keyword
    `options` of the function `where`, with its tape opened: every handle's settings come
    through here, so this is the one place a tape is made from settings (its `tape` argument,
    else the environment's, `tape_from`), and its `tape` is then the `Tape` itself (or None). A
    copy of the settings (a Dask worker's) thus shares it, or records beside it
    (`Tape.__reduce__`), never over it."""
    unknown = [name for name in options if name not in OPTIONS]
    if unknown:
        raise TypeError(f"{where}() got an unexpected keyword argument {unknown[0]!r}")
    if settings is not None and not isinstance(settings, Settings):
        _refuse("settings", f"must be a toolkit.Settings, got {settings!r}", "type")
    start = settings if settings is not None else base if base is not None else Settings()
    chosen = start.replace(**options) if options else start
    tape = tape_from(chosen.tape, chosen.tape_mode)
    return chosen if tape is chosen.tape else chosen.replace(tape=tape)


def takes_settings(function: F) -> F:
    """Show the options in `function`'s signature (`help`, Jupyter's tooltips, the API
    reference): its ``**options`` become one keyword-only parameter per `Settings` field, with
    the field's default (None for those made fresh per handle, such as `retry`)."""
    signature = inspect.signature(function)
    # A private parameter (`Gateway`'s `_sources`, for `connect`) is no option a person reads.
    parameters = [
        p
        for p in signature.parameters.values()
        if p.kind is not p.VAR_KEYWORD and not p.name.startswith("_")
    ]
    annotations = SettingsOptions.__annotations__
    for option in dataclasses.fields(Settings):
        default = None if option.default is dataclasses.MISSING else option.default
        annotation = annotations[option.name]
        parameters.append(
            inspect.Parameter(
                option.name,
                inspect.Parameter.KEYWORD_ONLY,
                default=default,
                annotation=getattr(annotation, "__forward_arg__", annotation),
            )
        )
    function.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    return function


def _refuse(name: str, message: str, rule: str) -> None:
    raise ValidationError(message, param=name, rule=rule)


def _timeout_seconds(value: Any) -> Any:
    # An httpx.Timeout (the older setting) means its longest phase.
    import httpx

    if isinstance(value, httpx.Timeout):
        phases = [v for v in (value.connect, value.read, value.write, value.pool) if v]
        return max(phases) if phases else DEFAULT_TIMEOUT
    return value


def _seconds(name: str, value: Any, *, positive: bool) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        _refuse(name, f"must be a number of seconds, got {value!r}", "type")
    if not math.isfinite(value) or value < 0 or (positive and value == 0):
        bound = "positive" if positive else "zero or more"
        _refuse(name, f"must be a finite number of seconds, {bound}; got {value!r}", "min")
    return float(value)


AUTO = "auto"


def rate_limiter(setting: RateLimitSetting, pricing: PricingTable) -> RateLimiter | None:
    """The one limiter all of a handle's nodes share: from a number (calls per second), a
    `RateLimiter` as it is; None for None and for a plan (``"auto"`` or a plan's name, checked
    here), whose rate holds each node apart (`Shared.limiter_for`)."""
    if setting is None or isinstance(setting, RateLimiter):
        return setting
    if isinstance(setting, Mapping):
        for node, rate in setting.items():
            if not isinstance(node, str) or isinstance(rate, RateLimiter | Mapping):
                _refuse(
                    "rate_limit",
                    "a mapping of node names to calls per second, plan names or None; "
                    f"got {node!r}: {rate!r}",
                    "type",
                )
            rate_limiter(rate, pricing)  # refused now, naming the setting
        return None
    if isinstance(setting, str):
        if setting != AUTO:
            pricing.plan(setting, param="rate_limit")  # an unknown plan is refused now
        return None
    return RateLimiter(setting)


def node_rate(
    setting: RateLimitSetting,
    node: str,
    pricing: PricingTable,
    ceilings: Mapping[str, float] | None,
) -> float | None:
    """`node`'s own rate under a `setting` that holds nodes apart (a plan's name, ``"auto"``,
    or a mapping): ``"auto"`` is what the gateway enforces when it says (`ceilings`, a
    sandbox's: a node it does not name has none), else the rate of the plan the pricing table
    names. None: no limit (no plan named, or one that publishes no rate; 429s are then still
    retried with backoff)."""
    if isinstance(setting, Mapping):
        setting = setting.get(node, AUTO)
    if setting is None or isinstance(setting, RateLimiter):
        return None
    if not isinstance(setting, str):
        return float(setting)
    if setting == AUTO and ceilings is not None:
        return ceilings.get(node)
    name = pricing.plan_name if setting == AUTO else setting
    return None if name is None else pricing.plan(name, param="rate_limit").requests_per_second


def gateway_clock(tape: Tape | None, sandbox_clock: Any = None) -> GatewayClock:
    """A gateway's one clock: replaying `tape`, the recording's; against the embedded sandbox
    (its `world.clock`), the sandbox's own; else the wall's. Time moves with requests against
    the sandbox (at its pace) and in a replay (as the tape says, else a second a request)."""
    request_s = None if sandbox_clock is None else sandbox_clock.request_s
    if tape is not None and tape.replaying:
        paced = request_s if sandbox_clock is not None else tape.header.get("request_s") or 1.0
        return GatewayClock(lambda: tape.clock, request_s=paced, recording_began=tape.recorded_at)
    return GatewayClock(None if sandbox_clock is None else sandbox_clock.utc, request_s=request_s)


class Shared:
    """What the clients of one handle share at run time: the settings, the meter (ledger,
    budget, pricing), the response cache and the rate limit (`limiter_for` a node). Changing
    the cache or the rate limit here changes it for every client at once."""

    def __init__(self, settings: Settings, *, remote: bool, sandbox: Any = None):
        if settings.tape is not None and settings.open_tape is None:
            raise TypeError("Shared takes settings whose tape settings_from opened")
        self.tape = settings.open_tape
        self.settings = settings
        self.meter = Meter(
            pricing=settings.pricing,
            budget=settings.budget,
            clock=gateway_clock(self.tape, None if sandbox is None else sandbox.world.clock),
        )
        self.sandbox = sandbox  # the embedded sandbox, reached in process (`_inprocess`)
        # On tape, every call goes to the tape: an answer the cache gave would not be recorded.
        cache = None if self.tape is not None else settings.cache
        self.cache: ResponseCache | None = resolve_cache(cache, remote=remote)
        # A sandbox says what it enforces on each node (`Sandbox.ceilings`); a gateway does not.
        known = None if sandbox is None else getattr(sandbox, "ceilings", None)
        self.ceilings: dict[str, float] | None = None if known is None else dict(known)
        self._node_limiters: dict[str, RateLimiter] = {}
        self.set_rate_limit(settings.rate_limit)

    def set_cache(self, setting: CacheSetting) -> None:
        self.cache = resolve_cache(setting, remote=True)

    def set_rate_limit(self, setting: RateLimitSetting) -> None:
        self.limiter = rate_limiter(setting, self.meter.pricing)
        self.rate_setting = setting
        self._node_limiters = {}

    def limiter_for(self, node: str) -> RateLimiter | None:
        """The limiter `node`'s calls wait for: the handle's one (a number), else the node's
        own at its rate (`node_rate`), made on first use; None when neither.
        Read per call: a pricing table changed later (`Gateway.pricing`) names the plan."""
        if self.limiter is not None or self.rate_setting is None:
            return self.limiter
        if self.rate_setting == AUTO and self.tape is not None and self.tape.replaying:
            return None  # a replayed answer is never sent: no gateway to hold it to
        rate = node_rate(self.rate_setting, node, self.meter.pricing, self.ceilings)
        if rate is None:
            return None
        limiter = self._node_limiters.get(node)
        if limiter is None:  # one per node, whichever thread asks first
            limiter = self._node_limiters.setdefault(node, RateLimiter(rate))
        if limiter.rate != rate:  # the plan changed since it was made
            limiter = self._node_limiters[node] = RateLimiter(rate)
        return limiter

    @property
    def retry(self) -> RetryPolicy:
        return self.settings.retry

    @property
    def timeout(self) -> float:
        return self.settings.timeout

    @property
    def head_ttl_s(self) -> float:
        return self.settings.head_ttl_s
