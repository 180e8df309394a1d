"""Request-unit (RU) pricing: rules, the pricing table, plans, and per-call estimates.

Everything here is data the user can override (`PricingTable.replace`, `with_rule`): the archive
threshold, the per-method rules, the name patterns for methods outside the catalog, and the plans.
Each rule carries a source note saying where the fact comes from.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .._errors import ValidationError
from .._redact import clip
from ._billing import MAYBE_STATUSES, REFUSED_STATUSES, Fate
from .encoding import is_hex_quantity

SPEC = "spec, Limits"
PUBLIC = "public pricing pages of the real gateway (unverified here)"
ASSUMED = "toolkit assumption, not stated anywhere: override if your bill says otherwise"
NO_BLOCK = PUBLIC + ": calls without a block parameter are 1 RU"
BY_BLOCK = PUBLIC + ": archive at 127+ blocks behind the tip covers methods with a block parameter"

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
    # Where the block is read when `param` is absent, in order (eth_getLogs: toBlock without
    # fromBlock, then blockHash).
    fallback: tuple[str | int, ...] = ()

    def describe(self) -> str:
        return f"{self.full} RU, or {self.archive} RU when {self.param} is an archive block"


@dataclass(frozen=True)
class ByInnerMethod:
    """A request that carries another method (TON's ``jsonRPC``): priced by the method it
    carries, `default` RU for one not listed in `prices` (``(inner method, RU)`` pairs)."""

    prices: tuple[tuple[str, int], ...]
    default: int
    source: str

    def resolve(self, inner: str | None) -> Fixed:
        """The fixed rule for a request carrying `inner` (the same object each time)."""
        return _resolved(self, inner)

    def describe(self) -> str:
        listed = ", ".join(f"{name} {ru} RU" for name, ru in self.prices)
        return f"{self.default} RU, by the method carried ({listed})"


@functools.lru_cache(maxsize=256)
def _resolved(rule: ByInnerMethod, inner: str | None) -> Fixed:
    for name, ru in rule.prices:
        if name == inner:
            return Fixed(ru, f"{rule.source} ({inner} is {ru} RU)")
    return Fixed(rule.default, rule.source)


Rule = Fixed | ArchiveByBlock | ByInnerMethod


@dataclass(frozen=True)
class Plan:
    name: str
    monthly_usd: float
    included_ru: int
    overage_usd_per_million: float | None
    requests_per_second: float | None
    source: str = "public list prices (unverified, for previews only)"
    # The most blocks one eth_getLogs call may span on this plan (None: the toolkit's own bound,
    # `MAX_LOG_RANGE`). Applied when the table's `plan_name` names this plan.
    max_log_blocks: int | None = None

    def cost_usd(self, ru: int) -> float:
        """What `ru` request units cost in a month on this plan, the fee included."""
        over = max(0, ru - self.included_ru)
        if over and self.overage_usd_per_million is None:
            return math.inf
        return self.monthly_usd + over / 1e6 * (self.overage_usd_per_million or 0.0)


DEFAULT_PLANS: dict[str, Plan] = {
    p.name: p
    for p in (
        # The gateway's public docs cap eth_getLogs at 100 blocks per call on the Developer
        # plan (not in the spec, whose Limits name no eth_getLogs cap).
        Plan("Developer", 0.0, 3_000_000, 20.0, 25.0, max_log_blocks=100),
        Plan("Growth", 49.0, 20_000_000, 15.0, None),
        Plan("Pro", 199.0, 80_000_000, 12.5, None),
        Plan("Business", 499.0, 200_000_000, 10.0, None),
    )
}

# Methods outside the catalog, by name or name pattern (used by `call_raw` and `toolkit.web3`; a
# catalog method's rule is its entry's, whichever way it is called). A row of the exact name
# wins, else the first pattern that matches; a method no row matches costs the table's highest
# price (`PricingTable.unknown_rule`), never the lowest.
DEFAULT_PATTERNS: dict[str, Rule] = {
    "debug_*": Fixed(2, PUBLIC + ": every debug_* method is 2 RU"),
    "trace_*": Fixed(2, PUBLIC + ": every trace_* method is 2 RU"),
    "arbtrace_*": Fixed(2, PUBLIC + ": every arbtrace_* method is 2 RU"),
    "eth_getProof": ArchiveByBlock(2, PUBLIC + ": archive rule covers eth_getProof"),
    "eth_estimateGas": ArchiveByBlock(1, PUBLIC + ": archive rule covers eth_estimateGas"),
    # The gateway's public docs: these are billed as archive (2 RU) at old blocks.
    "eth_getBlockReceipts": ArchiveByBlock(0, BY_BLOCK + " (eth_getBlockReceipts)"),
    "eth_feeHistory": ArchiveByBlock(1, BY_BLOCK + " (eth_feeHistory by newestBlock)"),
    "eth_createAccessList": ArchiveByBlock(1, BY_BLOCK + " (eth_createAccessList)"),
    "eth_simulateV1": ArchiveByBlock(1, BY_BLOCK + " (eth_simulateV1)"),
    "eth_callMany": Fixed(2, PUBLIC + ": eth_callMany is always 2 RU"),
    # Block-addressed reads: archive at old blocks; a block hash is priced as archive (its
    # height is not known without asking; see `PricingTable.estimate`).
    "eth_getBlockByHash": ArchiveByBlock(0, BY_BLOCK + " (a block hash: archive, EIP-1898)"),
    "eth_getBlockTransactionCountByNumber": ArchiveByBlock(0, BY_BLOCK),
    "eth_getTransactionByBlockNumberAndIndex": ArchiveByBlock(0, BY_BLOCK),
    "eth_getUncleCountByBlockNumber": ArchiveByBlock(0, BY_BLOCK),
    # No block parameter: 1 RU (the reads web3.py makes around get_block).
    **{
        name: Fixed(1, NO_BLOCK)
        for name in (
            "eth_getTransactionByHash",
            "eth_getTransactionReceipt",
            "eth_sendRawTransaction",
            "eth_maxPriorityFeePerGas",
            "eth_blobBaseFee",
            "eth_syncing",
            "eth_accounts",
            "eth_newFilter",
            "eth_newBlockFilter",
            "eth_getFilterChanges",
            "eth_uninstallFilter",
            "net_listening",
            "net_peerCount",
        )
    },
}

# What an HTTP error answer costs, by status, when the body says nothing else: "billed" (at the
# call's price, confirmed), "maybe" (counted against the budget, shown apart as unconfirmed, like
# a request sent without an answer) or "free". A status not listed is "billed": the public pages
# do not say what a 429, a 402 or a 5xx costs, so the default counts them (conservative: a budget
# is never crossed by errors it did not count). 401/403 (a refused key) served no node: free; 503
# (a node not running, or overloaded) may have been billed: "maybe" (see `_billing`).
STATUS_COSTS: dict[int, str] = {
    **{status: "free" for status in sorted(REFUSED_STATUSES)},
    **{status: "maybe" for status in sorted(MAYBE_STATUSES)},
}
_STATUS_FATES = {"billed": Fate.ANSWERED, "maybe": Fate.UNANSWERED, "free": Fate.REFUSED}


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

    `status_costs`: what an HTTP error answer costs by status, "billed", "maybe" or "free"
    (`STATUS_COSTS`; a status not listed is billed). `plan_name`: the plan your account is on,
    when you know it: its caps apply before sending (the Developer plan's 100-block eth_getLogs).
    """

    archive_threshold: int = 128
    overrides: Mapping[str, Rule] = field(default_factory=dict)
    patterns: Mapping[str, Rule] = field(default_factory=lambda: dict(DEFAULT_PATTERNS))
    plans: Mapping[str, Plan] = field(default_factory=lambda: dict(DEFAULT_PLANS))
    threshold_source: str = SPEC + " (128); " + PUBLIC + " say 127 or more blocks behind"
    status_costs: Mapping[int, str] = field(default_factory=lambda: dict(STATUS_COSTS))
    plan_name: str | None = None

    def __post_init__(self) -> None:
        for status, cost in self.status_costs.items():
            if cost not in _STATUS_FATES:
                raise ValidationError(
                    f"status {status}: cost must be one of {', '.join(_STATUS_FATES)}, "
                    f"got {cost!r}",
                    param="status_costs",
                    rule="choice",
                )
        if self.plan_name is not None:
            self.plan(self.plan_name, param="plan_name")

    def fate_of_status(self, status: int) -> Fate:
        """The billing fate of an attempt answered with HTTP `status` (see `status_costs`)."""
        if 200 <= status < 300:
            return Fate.ANSWERED
        return _STATUS_FATES[self.status_costs.get(status, "billed")]

    @property
    def max_log_blocks(self) -> int | None:
        """The plan's eth_getLogs cap, when `plan_name` is set and its plan has one."""
        return None if self.plan_name is None else self.plan(self.plan_name).max_log_blocks

    def highest_price(self) -> int:
        """The most one call can cost under this table: what a method it does not know costs."""
        rules = [*self.overrides.values(), *self.patterns.values()]
        prices = [2]  # the archive price of the catalog's rules
        for rule in rules:
            if isinstance(rule, Fixed):
                prices.append(rule.ru)
            elif isinstance(rule, ArchiveByBlock):
                prices.append(max(rule.full, rule.archive))
            else:
                prices.append(max([rule.default, *(ru for _, ru in rule.prices)]))
        return max(prices)

    def unknown_rule(self) -> Fixed:
        """The rule of a method the table does not know (one object per table)."""
        return self._unknown

    @functools.cached_property
    def _unknown(self) -> Fixed:
        highest = self.highest_price()
        return Fixed(
            highest,
            f"not in the pricing table: priced at the highest price a call can have ({highest} "
            "RU), so a budget is never crossed; add a rule (with_rule) if your bill says less",
        )

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
        rule = self.patterns.get(method)
        if rule is not None:
            return rule
        for pattern, rule in self.patterns.items():
            if fnmatch.fnmatchcase(method, pattern):
                return rule
        return self.unknown_rule()

    def estimate(self, rule: Rule, block: Any, head: int | None, *, drift: int = 0) -> Estimate:
        """Price one call under `rule`, given its block argument and the chain head (or None).

        `drift`: how many blocks the chain may add before the gateway prices the call (the
        head's age plus the call's deadline, in blocks). A block that may cross the archive
        threshold meanwhile is priced as a range: likely `full`, reserved at `archive`.
        """
        if isinstance(rule, ByInnerMethod):
            rule = rule.resolve(None)
        if isinstance(rule, Fixed):
            # The reason says why, not the price again (`str(estimate)` leads with the price).
            return Estimate(rule.ru, rule.ru, "a fixed price, whatever the arguments", archive=None)
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
        if isinstance(block, dict) and set(block) <= {"blockNumber", "requireCanonical"}:
            block = block.get("blockNumber")  # EIP-1898's {"blockNumber": ...}: the number
        if isinstance(block, dict | list):
            if isinstance(block, dict) and is_block_hash(block):
                block = block["blockHash"]
            else:
                reason = f"block {clip(repr(block), 60)} is not a number, tag or hash"
                return Estimate(full, archive, reason, archive=None)
        if block is None or block in FULL_TAGS:
            shown = "no block" if block is None else f"tag {block!r}"
            return Estimate(full, full, f"{shown} is a full request", archive=False)
        if block in ARCHIVE_TAGS:
            return Estimate(archive, archive, f"tag {block!r} is an archive request", archive=True)
        if is_block_hash(block):
            reason = (
                "a block hash (EIP-1898): its height is not known without asking the node, so it "
                "is priced as an archive request"
            )
            return Estimate(archive, archive, reason, archive=True)
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
    block = _argument(rule.param, params, names)
    for where in rule.fallback:
        if block is not None:
            break
        block = _argument(where, params, names)
    return block


def _argument(where: str | int, params: Any, names: tuple[str, ...]) -> Any:
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


def is_block_hash(block: Any) -> bool:
    """A block named by its hash (EIP-1898): a 32-byte 0x hash, or ``{"blockHash": ...}``."""
    if isinstance(block, dict):
        block = block.get("blockHash")
    return (
        isinstance(block, str)
        and len(block) == 66
        and block[:2] == "0x"
        and all(c in "0123456789abcdefABCDEF" for c in block[2:])
    )


def _block_number(block: Any) -> int | None:
    if isinstance(block, dict) and set(block) <= {"blockNumber", "requireCanonical"}:
        block = block.get("blockNumber")  # EIP-1898's {"blockNumber": ...}
    if isinstance(block, bool) or is_block_hash(block):
        return None
    if isinstance(block, int):
        return block
    if isinstance(block, str) and is_hex_quantity(block):
        return int(block, 16)
    return None


DEFAULT_PRICING = PricingTable()
