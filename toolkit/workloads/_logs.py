"""Event scans: an ``eth_getLogs`` range planned in chunks, and chunks split on a node's refusal.

A scan is ordinary planned calls (`Workload.logs`); what is its own is here: the range cut into
adjacent chunks in block order (`chunks`), and a refused chunk split in two parts that cover it
exactly (`split_range`), where the node proposes, else in halves. The splitting itself is part of
the run (`_run.run_planned`); the user's account is docs/contracts-and-events.md.
"""

from __future__ import annotations

from typing import Any

from .._errors import LogRangeRefused


def chunks(start: int, end: int, size: int) -> list[tuple[int, int]]:
    """`start`..`end` (both included) in adjacent chunks of at most `size` blocks."""
    return [(first, min(first + size - 1, end)) for first in range(start, end + 1, size)]


def split_range(start: int, end: int, error: BaseException | None) -> list[tuple[int, int]]:
    """Two adjacent ranges that cover `start`..`end` exactly when `error` refused that range
    (`LogRangeRefused`): cut after the end of the node's proposal when it starts the range and
    ends inside it (reth may propose the very range asked), else in the middle. Nothing (an
    empty list) for another error or a one-block range."""
    if not isinstance(error, LogRangeRefused) or end <= start:
        return []
    cut = (start + end) // 2
    proposed = error.suggested
    if proposed is not None and proposed[0] == start and start <= proposed[1] < end:
        cut = proposed[1]
    return [(start, cut), (cut + 1, end)]


def chunk_of(params: Any) -> tuple[int, int] | None:
    """The numeric (fromBlock, toBlock) of an eth_getLogs call's wire params, else None."""
    query = params[0] if isinstance(params, list) and params else None
    if not isinstance(query, dict):
        return None
    first, last = query.get("fromBlock"), query.get("toBlock")
    if not (isinstance(first, str) and isinstance(last, str)):
        return None  # a tag or an absent end: not a numbered chunk
    return int(first, 16), int(last, 16)
