"""A plan's limits, enforced per node, opt-in: its request rate and its eth_getLogs block range.

The rate is a ceiling of calls per second, counted as the gateway counts them (a JSON-RPC batch
of N calls is N calls), and kept by the generic cell rate algorithm, the one the client's
`RateLimiter` keeps: one number per node, the time at which its allowance is whole again. A
request arriving while that is more than one second (less one call) away is refused whole,
in the rate-limit shape the sandbox was told (`_faults.rate_limited`), with how long to wait;
else it is admitted and its N calls are booked after those booked before, so a batch larger
than one second's allowance is admitted and the calls after it wait for it. Over any stretch of
time a node answers its rate, plus at most one allowance and one batch, however the calls are
batched. A client that spaces its calls at the ceiling therefore never sees a refusal, a jitter
of up to a second included, and one that sends faster is refused for what it sends over.

A refused request is refused before any work: it is not metered (`_metering`), it does not move
the sandbox clock and it draws no fault, so the answers of what is admitted do not depend on
timing. Its time is the wall's (`time.monotonic`), or any clock a test hands `RateCeiling`.

The block range: an ``eth_getLogs`` call spanning more blocks than the node's plan allows is
refused with the error text of a real provider, chosen by name (`LOG_RANGE_REFUSALS`).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..catalog import DEFAULT_PRICING
from ._faults import RATE_LIMIT_KINDS, FaultKind
from ._jsonrpc import INVALID_PARAMS, RpcError

RATE_LIMIT_REPLIES = tuple(str(kind) for kind in RATE_LIMIT_KINDS)


class RateCeiling:
    """At most `rate` calls a second to one node, a second's allowance at once at most."""

    def __init__(self, rate: float, now: Callable[[], float] = time.monotonic):
        if isinstance(rate, bool) or not isinstance(rate, int | float) or not rate > 0:
            raise ValueError(f"must be a positive number of calls a second: {rate!r}")
        self.rate = float(rate)
        self.now = now
        self._interval = 1.0 / self.rate
        self._tolerance = max(0.0, 1.0 - self._interval)  # a second's allowance, less one call
        self._whole_at = -math.inf  # when the node's allowance is whole again
        self._lock = threading.Lock()
        self.refused = 0  # requests refused so far

    def whole_in(self) -> float:
        """Seconds until the node's whole allowance is back (0.0: it is)."""
        with self._lock:
            return max(0.0, self._whole_at - self.now())

    def admit(self, calls: int) -> float:
        """Book `calls` calls arriving now: 0.0 when admitted, else the seconds to wait until
        a request would be (nothing is booked)."""
        with self._lock:
            now = self.now()
            whole_at = max(self._whole_at, now)
            early = whole_at - now - self._tolerance
            if early > 0:
                self.refused += 1
                return early
            self._whole_at = whole_at + calls * self._interval
            return 0.0


def _infura(size: int, cap: int, start: int) -> RpcError:
    return RpcError(INVALID_PARAMS, f"range {size} exceeds limit of {cap}")


def _alchemy(size: int, cap: int, start: int) -> RpcError:
    return RpcError(
        INVALID_PARAMS,
        "Log response size exceeded. You can make eth_getLogs requests with up to a "
        f"{cap} block range and no limit on the response size, or you can request any block "
        "range with a cap of 10K logs in the response. Based on your parameters and the "
        f"response size limit, this block range should work: [{start:#x}, {start + cap - 1:#x}]",
    )


def _tenderly(size: int, cap: int, start: int) -> RpcError:
    payload = f"range {size} is bigger than range limit {cap}"
    return RpcError(INVALID_PARAMS, "invalid params", {"payload": payload})


def _reth(size: int, cap: int, start: int) -> RpcError:
    return RpcError(INVALID_PARAMS, f"query exceeds max block range {cap}")


LOG_RANGE_REFUSALS: Mapping[str, Callable[[int, int, int], RpcError]] = {
    # Each wording is a real one, with the sandbox's numbers (tests/fixtures/real/SOURCES.md):
    # Infura's live "range 1000000 exceeds limit of 10000" (INFURA/infura#237), -32602;
    "infura": _infura,
    # Alchemy's live "Log response size exceeded ... this block range should work: [0x.., 0x..]"
    # (boundless-xyz/boundless#642), -32602, naming a range from the asked fromBlock;
    "alchemy": _alchemy,
    # Tenderly's live "invalid params" with the reason in data.payload (bobanetwork/boba_legacy
    # #827; its error_id, a random UUID, left out);
    "tenderly": _tenderly,
    # reth's EthFilterError::QueryExceedsMaxBlocks, "query exceeds max block range {0}", sent as
    # -32602 (paradigmxyz/reth, crates/rpc/rpc/src/eth/filter.rs).
    "reth": _reth,
}


@dataclass(frozen=True)
class NodeLimits:
    """What one node enforces: `rate` calls a second (None: any), `max_log_blocks` per
    eth_getLogs call (None: the sandbox's own bound)."""

    rate: float | None = None
    max_log_blocks: int | None = None


class Limits:
    """The limits of a sandbox's nodes: `plan` (a plan's name, for every node: its request rate
    and eth_getLogs cap from `toolkit.DEFAULT_PRICING`), then `rate_limits` (calls a second by
    node name, over the plan's; None lifts it); refused in the `rate_limit_reply` shape
    (``"rate-limit"``, ``"rate-limit-html"``, ``"rate-limit-rpc"``), log ranges in the
    `log_range_error` provider's words (`LOG_RANGE_REFUSALS`)."""

    def __init__(
        self,
        nodes: list[str],
        *,
        plan: str | None = None,
        rate_limits: Mapping[str, float | None] | None = None,
        rate_limit_reply: str = "rate-limit",
        log_range_error: str = "infura",
        now: Callable[[], float] = time.monotonic,
    ):
        rate, max_log_blocks = None, None
        if plan is not None:
            try:
                chosen = DEFAULT_PRICING.plan(plan)
            except Exception as error:  # the catalog's ValidationError: said as the sandbox says
                raise ValueError(f"plan: {error}") from None
            rate, max_log_blocks = chosen.requests_per_second, chosen.max_log_blocks
        unknown = sorted(set(rate_limits or {}) - set(nodes))
        if unknown:
            raise ValueError(f"rate_limits: unknown node {unknown[0]!r}; nodes: {', '.join(nodes)}")
        if rate_limit_reply not in RATE_LIMIT_REPLIES:
            raise ValueError(
                f"rate_limit_reply must be one of {', '.join(RATE_LIMIT_REPLIES)}: "
                f"{rate_limit_reply!r}"
            )
        if log_range_error not in LOG_RANGE_REFUSALS:
            raise ValueError(
                f"log_range_error must be one of {', '.join(LOG_RANGE_REFUSALS)}: "
                f"{log_range_error!r}"
            )
        self.plan = plan
        self.reply = FaultKind(rate_limit_reply)
        self.log_range_error = log_range_error
        self.of: dict[str, NodeLimits] = {}
        self.ceilings: dict[str, RateCeiling] = {}
        for name in nodes:
            node_rate = (rate_limits or {}).get(name, rate)
            self.of[name] = NodeLimits(node_rate, max_log_blocks)
            if node_rate is not None:
                try:
                    self.ceilings[name] = RateCeiling(node_rate, now)
                except ValueError as error:
                    raise ValueError(f"rate_limits[{name!r}]: {error}") from None

    @property
    def rates(self) -> dict[str, float]:
        """Calls a second by node, for the nodes with a ceiling."""
        return {name: ceiling.rate for name, ceiling in self.ceilings.items()}

    @property
    def refused(self) -> dict[str, int]:
        """Requests refused for their rate so far, by node with a ceiling."""
        return {name: ceiling.refused for name, ceiling in self.ceilings.items()}

    def to_json(self) -> dict[str, Any]:
        """The plan, the reply shape, the log-range wording, and each node's limits with how
        many requests its ceiling refused and the seconds until its whole allowance is back
        (what ``GET /_sandbox/limits`` answers)."""
        nodes = {
            name: {
                "requests_per_second": limits.rate,
                "max_log_blocks": limits.max_log_blocks,
                "refused": self.ceilings[name].refused if name in self.ceilings else 0,
                "whole_in_s": self.ceilings[name].whole_in() if name in self.ceilings else 0.0,
            }
            for name, limits in self.of.items()
        }
        return {
            "plan": self.plan,
            "rate_limit_reply": str(self.reply),
            "log_range_error": self.log_range_error,
            "nodes": nodes,
        }

    def refuse_log_range(self, node: str, start: int, end: int) -> None:
        """Raise the chosen provider's refusal when `start`..`end` spans more blocks than
        `node`'s plan allows in one eth_getLogs call."""
        cap = self.of[node].max_log_blocks if node in self.of else None
        size = end - start + 1
        if cap is not None and size > cap:
            raise LOG_RANGE_REFUSALS[self.log_range_error](size, cap, start)
