"""Result kinds: what a method's result must look like, and its typed value."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ResultKind:
    """What a method's result must look like (a result that does not is a MalformedResponse),
    and the type of the helper's value, as annotation text (`python`: what `TYPED_VALUES` makes
    of a result that passed `check`), for the helpers' typed signatures."""

    name: str
    expected: str
    check: Callable[[Any], bool]
    python: str


# Strict, so that a result that passes converts without error: `int(result, 16)` alone would
# take "0x_1", full-width digits and a trailing newline, and raise ValueError on "0xzz" after the
# answer was paid for (and cached). Answers may carry leading zeros; never more than 256 bits.
_RESULT_QUANTITY = re.compile(r"0x0*[0-9a-fA-F]{1,64}")
_RESULT_DATA = re.compile(r"0x(?:[0-9a-fA-F]{2})*")
_RESULT_ROOT_HASH = re.compile(r"[0-9a-fA-F]{64}")
_RESULT_DECIMAL = re.compile(r"[0-9]{1,78}")


def _is_block(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and _matches(_RESULT_QUANTITY)(value.get("number"))
        and isinstance(value.get("transactions"), list)
    )


def _matches(pattern: re.Pattern[str]) -> Callable[[Any], bool]:
    return lambda value: isinstance(value, str) and pattern.fullmatch(value) is not None


# The typed value of a raw result, by result kind: what the typed helpers and bulk runs return.
# Each is only applied to a result that passed its kind's check in RESULT_KINDS.
TYPED_VALUES: dict[str, Callable[[Any], Any]] = {
    "quantity": functools.partial(int, base=16),
    # TRON answers {} instead of [] for block 0 and below
    "transaction-info-list": lambda result: result if isinstance(result, list) else [],
    # One asset: java-tron answers the bare record, the spec shows {"assetIssue": [record]}
    "asset-issue": lambda result: (
        result["assetIssue"][0]
        if isinstance(result, dict)
        and isinstance(result.get("assetIssue"), list)
        and len(result["assetIssue"]) == 1
        else result
    ),
}

RESULT_KINDS: dict[str, ResultKind] = {
    k.name: k
    for k in (
        ResultKind(
            "quantity", "a 0x hex quantity of at most 256 bits", _matches(_RESULT_QUANTITY), "int"
        ),
        ResultKind("data", "0x hex data (whole bytes)", _matches(_RESULT_DATA), "str"),
        ResultKind("text", "a string", lambda v: isinstance(v, str), "str"),
        ResultKind("root-hash", "64 hex digits without 0x", _matches(_RESULT_ROOT_HASH), "str"),
        ResultKind(
            "simulation",
            "a simulation result object",
            lambda v: isinstance(v, dict),
            "dict[str, Any]",
        ),
        ResultKind(
            "asset-issue", "an asset issue object", lambda v: isinstance(v, dict), "dict[str, Any]"
        ),
        ResultKind(
            "asset-issue-list",
            "an assetIssue object",
            lambda v: isinstance(v, dict),
            "dict[str, Any]",
        ),
        ResultKind(
            "transaction-info-list",
            "an array of transaction info records",
            lambda v: isinstance(v, list) or v == {},
            "list[Any]",
        ),
        ResultKind("block-list", "a block object", lambda v: isinstance(v, dict), "dict[str, Any]"),
        ResultKind(
            "unsigned-transaction",
            "a transaction object",
            lambda v: isinstance(v, dict),
            "dict[str, Any]",
        ),
        ResultKind(
            "token-data", "a token data object", lambda v: isinstance(v, dict), "dict[str, Any]"
        ),
        ResultKind(
            "node-page",
            "a node list page",
            lambda v: isinstance(v, dict) and isinstance(v.get("results"), list),
            "dict[str, Any]",
        ),
        ResultKind("decimal-text", "decimal digits as text", _matches(_RESULT_DECIMAL), "str"),
        ResultKind(
            "evm-block",
            "a block object or null",
            lambda v: v is None or _is_block(v),
            "dict[str, Any] | None",
        ),
        ResultKind(
            "log-list",
            "an array of log objects",
            lambda v: isinstance(v, list) and all(isinstance(log, dict) for log in v),
            "list[dict[str, Any]]",
        ),
        ResultKind("tron-block", "a block object", lambda v: isinstance(v, dict), "dict[str, Any]"),
        ResultKind(
            "tron-node-info", "a node info object", lambda v: isinstance(v, dict), "dict[str, Any]"
        ),
        ResultKind(
            "tron-account", "an account object", lambda v: isinstance(v, dict), "dict[str, Any]"
        ),
        ResultKind(
            "masterchain-info",
            "a masterchain info object",
            lambda v: isinstance(v, dict),
            "dict[str, Any]",
        ),
        ResultKind(
            "address-forms",
            "an address forms object",
            lambda v: isinstance(v, dict) and isinstance(v.get("raw_form"), str),
            "dict[str, Any]",
        ),
        ResultKind("any", "anything", lambda v: True, "Any"),
    )
}
