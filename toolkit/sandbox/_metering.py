"""Server-side request-unit (RU) metering, per node.

The rule is the billing model the client's ledger follows (`toolkit.catalog.BILLING`), so the
two agree to the unit:

1. A request is billed when it is received, before any answer is made: whatever becomes of the
   answer (a success, an error answer, 404/405 for an unknown path, an injected 429, 5xx, HTML,
   truncated or relabelled body, a delay the client gives up on, a dropped connection), the
   gateway has done the work. It is not billed when the gateway refuses it before any work: a
   wrong or missing key (401/403), a node that is not running (its 503), or a request over the
   node's plan ceiling (`_limits`: its 429, or its JSON-RPC -32005). The client cannot tell that
   429 from an injected one and counts it as billed (`toolkit.catalog.BILLING`), so its budget
   is never short: with its rate limit at the ceiling it draws none. An injected status
   is billed when the client counts it (`PricingTable.fate_of_status`: an injected 503, an
   overloaded node, is "maybe" to the client, which counts it against the budget).
2. A request holds N calls: a JSON-RPC batch of N envelopes is N calls; anything else is one
   call (a body that is not JSON, or not an envelope, included).
3. A call costs what the client's pricer says (`toolkit.catalog.Pricer`, the one
   rule -> block -> estimate path, here over the sandbox's table), at the chain head when the
   request arrived (the same head the answer was computed at): its ``.ru``, the high end of
   the estimate, so a call the table prices as a range (see `PricingTable.estimate`) is
   metered at its top, and a method the table does not know (an unreadable body, a path not
   served) at the table's highest price (`PricingTable.unknown_rule`).
   `name` is the JSON-RPC method; the catalog name for REST paths and for TON's jsonRPC
   (``api/v2/jsonRPC``, priced by the inner method it carries); the path without its leading
   slash for a path the node does not serve.
4. Platform API requests with a valid API key count under ``"platform"`` at the catalog's 0 RU.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..catalog import CATALOG, DEFAULT_PRICING, Pricer, PricingTable
from ._jsonrpc import Call

PLATFORM = "platform"


@dataclass
class Usage:
    requests: int = 0
    calls: int = 0
    ru: int = 0
    by_method: dict[str, dict[str, int]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        methods = {name: dict(counts) for name, counts in sorted(self.by_method.items())}
        return {"requests": self.requests, "calls": self.calls, "ru": self.ru, "by_method": methods}


class Metering:
    """Usage per node name (and ``"platform"``), safe to read from any thread."""

    def __init__(self, names: Iterable[str], pricing: PricingTable = DEFAULT_PRICING):
        self.pricing = pricing
        self._pricer = Pricer(self)
        self._names = [*names, PLATFORM]
        self._lock = threading.Lock()
        self._usage = {name: Usage() for name in self._names}

    def price(self, call: Call, head: int | None) -> int:
        method = CATALOG.get(call.method)
        rule, names = (method.ru, method.param_names) if method else (None, ())
        estimate = self._pricer.price(
            call.method, rule, call.params, names, inner=call.inner, head=head
        )
        assert estimate is not None  # only a price asked to fetch the head can be None
        return estimate.ru

    def record(self, name: str, calls: list[Call], head: int | None) -> None:
        prices = [self.price(call, head) for call in calls]
        methods = [call.method for call in calls]
        # The request's calls and RU by method, then added to the node's usage at once.
        calls_by = Counter(methods)
        if len(calls_by) == 1:  # a request of one method (most batches)
            ru_by = {methods[0]: sum(prices)}
        else:
            ru_by = dict.fromkeys(calls_by, 0)
            for method, ru in zip(methods, prices, strict=True):
                ru_by[method] += ru
        with self._lock:
            usage = self._usage[name]
            usage.requests += 1
            usage.calls += len(calls)
            usage.ru += sum(prices)
            for method, count in calls_by.items():
                counts = usage.by_method.setdefault(method, {"calls": 0, "ru": 0})
                counts["calls"] += count
                counts["ru"] += ru_by[method]

    def snapshot(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            return {name: self._usage[name].to_json() for name in self._names}

    def reset(self) -> dict[str, dict[str, Any]]:
        """Clear every counter; return what they held."""
        with self._lock:
            before = {name: self._usage[name].to_json() for name in self._names}
            self._usage = {name: Usage() for name in self._names}
        return before
