"""Server-side request-unit (RU) metering, per node.

The rule (the client's RU ledger follows the same one, so the two agree to the unit):

1. A request counts when it reaches a *running* node with a valid access key and the sandbox
   answers it: a success, an error answer (JSON-RPC error, TRON ``Error``, TON ``ok: false``,
   404/405 for an unknown path), or an injected fault answer (429, 5xx, HTML, truncated or
   relabelled body; added latency changes nothing). It does not count when the key is wrong or
   missing, when the node is not running (503), or when the connection is dropped unanswered.
2. A request holds N calls: a JSON-RPC batch of N envelopes is N calls; anything else is one
   call (a body that is not JSON, or not an envelope, included).
3. A call costs ``DEFAULT_PRICING.estimate(rule, block, head).ru`` with
   ``rule = DEFAULT_PRICING.rule_for(name, CATALOG[name].ru if name in CATALOG else None)``,
   `block` the call's block argument (the parameter an archive rule names, found by name or
   position; absent means a full request) and `head` the chain head when the request arrived
   (the same head the answer was computed at). An unreadable block costs the archive price
   (the estimate's high end).
   `name` is the JSON-RPC method; the catalog name for REST paths and for TON's jsonRPC
   (``api/v2/jsonRPC``, whatever the inner method); the path without its leading slash for a
   path the node does not serve.
4. Platform API requests with a valid API key count under ``"platform"`` at the catalog's 0 RU.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..catalog import CATALOG, DEFAULT_PRICING, ArchiveByBlock, PricingTable, Rule
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
        self._names = [*names, PLATFORM]
        self._lock = threading.Lock()
        self._usage = {name: Usage() for name in self._names}

    def price(self, call: Call, head: int | None) -> int:
        catalog_method = CATALOG.get(call.method)
        rule = self.pricing.rule_for(call.method, catalog_method.ru if catalog_method else None)
        block = _block_argument(rule, call)
        return self.pricing.estimate(rule, block, head).ru

    def record(self, name: str, calls: list[Call], head: int | None) -> None:
        priced = [(call.method, self.price(call, head)) for call in calls]
        with self._lock:
            usage = self._usage[name]
            usage.requests += 1
            for method, ru in priced:
                usage.calls += 1
                usage.ru += ru
                counts = usage.by_method.setdefault(method, {"calls": 0, "ru": 0})
                counts["calls"] += 1
                counts["ru"] += ru

    def snapshot(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            return {name: self._usage[name].to_json() for name in self._names}

    def reset(self) -> dict[str, dict[str, Any]]:
        """Clear every counter; return what they held."""
        with self._lock:
            before = {name: self._usage[name].to_json() for name in self._names}
            self._usage = {name: Usage() for name in self._names}
        return before


def _block_argument(rule: Rule, call: Call) -> Any:
    if not isinstance(rule, ArchiveByBlock):
        return None
    params, where = call.params, rule.param
    if isinstance(params, dict):
        return params.get(where) if isinstance(where, str) else None
    if not isinstance(params, list):
        return None
    if isinstance(where, str):
        names = [p.name for p in CATALOG[call.method].params] if call.method in CATALOG else []
        if where in names:
            where = names.index(where)
        elif params and isinstance(params[0], dict):
            return params[0].get(where)  # a filter object, as in eth_getLogs' fromBlock
        else:
            return None
    return params[where] if where < len(params) else None
