"""Request-unit (RU) pricing: rules, the pricing table, plans, and per-call estimates.

Everything here is data the user can override (`PricingTable.replace`, `with_rule`): the archive
threshold, the per-method rules, the name patterns for methods outside the catalog, and the plans.
Each rule carries a source note saying where the fact comes from.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .._errors import ValidationError
from .encoding import is_hex_quantity

SPEC = "spec, Limits"
PUBLIC = "public pricing pages of the real gateway (unverified here)"
ASSUMED = "toolkit assumption, not stated anywhere: override if your bill says otherwise"

FULL_TAGS = frozenset({"latest", "safe", "finalized", "pending"})
ARCHIVE_TAGS = frozenset({"earliest"})


@dataclass(frozen=True)
class Fixed:
    """Every call costs `ru`."""

    ru: int
    source: str

    def describe(self) -> str:
        return f"always {self.ru} RU"


@dataclass(frozen=True)
class ArchiveByBlock:
    """`full` RU at recent blocks and `archive` RU at blocks `threshold` or more behind the head.

    `param` names the block parameter (a catalog parameter name, or a position for raw calls).
    """

    param: str | int
    source: str
    full: int = 1
    archive: int = 2

    def describe(self) -> str:
        return f"{self.full} RU, or {self.archive} RU when {self.param} is an archive block"


Rule = Fixed | ArchiveByBlock


@dataclass(frozen=True)
class Plan:
    name: str
    monthly_usd: float
    included_ru: int
    overage_usd_per_million: float | None
    requests_per_second: float | None
    source: str = "public list prices (unverified, for previews only)"

    def cost_usd(self, ru: int) -> float:
        """What `ru` request units cost in a month on this plan, the fee included."""
        over = max(0, ru - self.included_ru)
        if over and self.overage_usd_per_million is None:
            return math.inf
        return self.monthly_usd + over / 1e6 * (self.overage_usd_per_million or 0.0)


DEFAULT_PLANS: dict[str, Plan] = {
    p.name: p
    for p in (
        Plan("Developer", 0.0, 3_000_000, 20.0, 25.0),
        Plan("Growth", 49.0, 20_000_000, 15.0, None),
        Plan("Pro", 199.0, 80_000_000, 12.5, None),
        Plan("Business", 499.0, 200_000_000, 10.0, None),
    )
}

# Methods outside the catalog, by name pattern (used by `call_raw`; a catalog method's rule is
# its entry's, whichever way it is called). First match wins.
DEFAULT_PATTERNS: dict[str, Rule] = {
    "debug_*": Fixed(2, PUBLIC + ": every debug_* method is 2 RU"),
    "trace_*": Fixed(2, PUBLIC + ": every trace_* method is 2 RU"),
    "arbtrace_*": Fixed(2, PUBLIC + ": every arbtrace_* method is 2 RU"),
    "eth_getProof": ArchiveByBlock(2, PUBLIC + ": archive rule covers eth_getProof"),
    "eth_estimateGas": ArchiveByBlock(1, PUBLIC + ": archive rule covers eth_estimateGas"),
    "*": Fixed(1, PUBLIC + ": calls without a block parameter are 1 RU"),
}


@dataclass(frozen=True)
class Estimate:
    """The RU cost of one call: exact when `low == high`, else a range with the reason why."""

    low: int
    high: int
    reason: str
    archive: bool | None  # None when the class is unknown (head unknown)

    @property
    def ru(self) -> int:
        """The cost to reserve against a budget: the high end, so a budget is never crossed."""
        return self.high

    @property
    def exact(self) -> bool:
        return self.low == self.high

    def __str__(self) -> str:
        cost = f"{self.low} RU" if self.exact else f"{self.low}-{self.high} RU"
        return f"{cost}: {self.reason}"


@dataclass(frozen=True)
class PricingTable:
    """The archive threshold, rule overrides by method name, patterns for raw calls, and plans.

    `archive_threshold`: a block this many or more blocks behind the head is an archive request.
    The spec says "older than roughly the latest 128 blocks" (so 128 behind is archive); the public
    pricing pages say 127. The spec's 128 is the default; set 127 to follow the pricing pages.
    """

    archive_threshold: int = 128
    overrides: Mapping[str, Rule] = field(default_factory=dict)
    patterns: Mapping[str, Rule] = field(default_factory=lambda: dict(DEFAULT_PATTERNS))
    plans: Mapping[str, Plan] = field(default_factory=lambda: dict(DEFAULT_PLANS))
    threshold_source: str = SPEC + " (128); " + PUBLIC + " say 127 or more blocks behind"

    def replace(self, **changes: Any) -> PricingTable:
        return dataclasses.replace(self, **changes)

    def plan(self, name: str, *, param: str = "plan") -> Plan:
        """A plan by name, whatever its case; an unknown one is a ValidationError on `param`."""
        for key, plan in self.plans.items():
            if isinstance(name, str) and key.lower() == name.lower():
                return plan
        raise ValidationError(
            f"unknown plan {name!r}; known: {', '.join(self.plans)}", param=param, rule="choice"
        )

    def with_rule(self, method: str, rule: Rule) -> PricingTable:
        return self.replace(overrides={**self.overrides, method: rule})

    def rule_for(self, method: str, catalog_rule: Rule | None) -> Rule:
        if method in self.overrides:
            return self.overrides[method]
        if catalog_rule is not None:
            return catalog_rule
        for pattern, rule in self.patterns.items():
            if fnmatch.fnmatchcase(method, pattern):
                return rule
        return Fixed(1, ASSUMED)

    def estimate(self, rule: Rule, block: Any, head: int | None, *, drift: int = 0) -> Estimate:
        """Price one call under `rule`, given its block argument and the chain head (or None).

        `drift`: how many blocks the chain may add before the gateway prices the call (the
        head's age plus the call's deadline, in blocks). A block that may cross the archive
        threshold meanwhile is priced as a range: likely `full`, reserved at `archive`.
        """
        if isinstance(rule, Fixed):
            return Estimate(rule.ru, rule.ru, rule.describe(), archive=None)
        estimate = self._estimate_block(rule, block, head)
        number = _block_number(block)
        if drift and estimate.archive is False and number is not None and head is not None:
            behind = head - number
            if behind + drift >= self.archive_threshold:
                reason = (
                    f"{estimate.reason}; the head may move {drift:,} blocks before the gateway "
                    f"prices it, so {rule.archive} RU is reserved"
                )
                return Estimate(rule.full, rule.archive, reason, archive=None)
        return estimate

    def _estimate_block(self, rule: ArchiveByBlock, block: Any, head: int | None) -> Estimate:
        full, archive, threshold = rule.full, rule.archive, self.archive_threshold
        if block is None or block in FULL_TAGS:
            shown = "no block" if block is None else f"tag {block!r}"
            return Estimate(full, full, f"{shown} is a full request", archive=False)
        if block in ARCHIVE_TAGS:
            return Estimate(archive, archive, f"tag {block!r} is an archive request", archive=True)
        number = _block_number(block)
        if number is None:
            return Estimate(full, archive, f"block {block!r} is not a number or tag", archive=None)
        if head is None:
            return Estimate(
                full,
                archive,
                f"head unknown: {full} RU if block {number:,} is fewer than {threshold} blocks "
                f"behind the head, else {archive} RU",
                archive=None,
            )
        behind = head - number
        if behind >= threshold:
            reason = (
                f"block {number:,} is {behind:,} blocks behind head {head:,} "
                f"(archive at {threshold} or more)"
            )
            return Estimate(archive, archive, reason, archive=True)
        where = "ahead of" if behind < 0 else f"{behind:,} blocks behind"
        reason = f"block {number:,} is {where} head {head:,} (archive at {threshold} or more)"
        return Estimate(full, full, reason, archive=False)


def block_argument(rule: Rule, params: Any, names: tuple[str, ...] = ()) -> Any:
    """The block argument an archive rule prices by, found in a call's wire params: by the
    rule's parameter name (in a REST body, or at its position among `names` in a JSON-RPC
    list), by position, or in a filter object (eth_getLogs' fromBlock). None when absent."""
    if not isinstance(rule, ArchiveByBlock):
        return None
    where = rule.param
    if isinstance(params, dict):
        return params.get(where) if isinstance(where, str) else None
    if not isinstance(params, list):
        return None
    if isinstance(where, str):
        if where in names:
            where = names.index(where)
        elif params and isinstance(params[0], dict):
            return params[0].get(where)
        else:
            return None
    return params[where] if where < len(params) else None


def _block_number(block: Any) -> int | None:
    if isinstance(block, bool):
        return None
    if isinstance(block, int):
        return block
    if isinstance(block, str) and is_hex_quantity(block):
        return int(block, 16)
    return None


DEFAULT_PRICING = PricingTable()
