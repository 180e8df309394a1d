"""Event scans: an ``eth_getLogs`` range planned in chunks, and chunks split on a node's refusal.

A scan is ordinary planned calls (`Workload.logs`), so it is priced, budgeted, cached, written
into a dataset and resumed like any other workload. What is its own:

- the range is cut into chunks of at most the plan's ``max_log_blocks`` (the Developer plan's
  100) or the toolkit's bound (`MAX_LOG_RANGE`), in block order, adjacent, never overlapping;
- a chunk the node refuses for its range or its result size (`is_range_refusal`: the texts of
  real providers, below) is split (`split_range`): at the end of the range the node suggests when
  its error names one inside the chunk, else in halves. The two parts cover the chunk exactly, so
  no block is lost and none is asked twice. A one-block chunk cannot be split: it stays a failed
  row, never a silently empty one.

Refusals, as real nodes word them (the sources are in tests/fixtures/real/SOURCES.md):

- Alchemy: "Log response size exceeded. ... this block range should work: [0x7aa8f1, 0x7d5efc]"
  and "Query timeout exceeded. Consider reducing your block range. ... [0x42b950f, 0x435784f]";
- reth: "query exceeds max results 20000, retry with the range 24383075-24383096" (decimal; some
  versions suggest the very range asked, which is then halved instead);
- Infura and geth-based nodes: "query returned more than 10000 results", and Infura's
  "range 1000000 exceeds limit of 10000";
- Tenderly: "invalid params" with the reason in ``data``: "range 9009594 is bigger than range
  limit 2000";
- QuickNode: "eth_getLogs is limited to a 10,000 range"; other nodes: "block range is larger
  than max block range", "query exceeds max block range 10000" (the sandbox's own).
"""

from __future__ import annotations

import json
import re
from typing import Any

from .._errors import RPCError

_REFUSAL = re.compile(
    r"log response size exceeded|query timeout exceeded|exceeds max results"
    r"|returned more than \d+ results|more than [\d,]+ (?:results|logs)"
    r"|(?:block )?range .{0,40}(?:exceeds|bigger than|larger than|too large|too wide)"
    r"|exceeds? (?:the )?max(?:imum)? block range|is limited to a [\d,]+ range"
    r"|block range (?:is )?too (?:large|wide)|too many (?:results|logs)",
    re.IGNORECASE,
)
# A suggested range: Alchemy's "[0x7aa8f1, 0x7d5efc]", reth's "retry with the range 1-2".
_HEX_RANGE = re.compile(r"\[\s*(0x[0-9a-fA-F]+)\s*,\s*(0x[0-9a-fA-F]+)\s*\]")
_DECIMAL_RANGE = re.compile(r"range (\d+)\s*-\s*(\d+)")


def chunks(start: int, end: int, size: int) -> list[tuple[int, int]]:
    """`start`..`end` (both included) in adjacent chunks of at most `size` blocks."""
    return [(first, min(first + size - 1, end)) for first in range(start, end + 1, size)]


def _error_text(error: BaseException) -> str:
    if isinstance(error, RPCError):
        data = error.data
        shown = data if isinstance(data, str) else json.dumps(data, default=str) if data else ""
        return f"{error.rpc_message} {shown}"
    return str(error)


def is_range_refusal(error: BaseException | None) -> bool:
    """Whether a failed eth_getLogs call was refused for its range or its result size."""
    return isinstance(error, RPCError) and bool(_REFUSAL.search(_error_text(error)))


def suggested_range(error: BaseException) -> tuple[int, int] | None:
    """The block range a refusal suggests, when its text names one."""
    text = _error_text(error)
    found = _HEX_RANGE.search(text)
    if found:
        return int(found.group(1), 16), int(found.group(2), 16)
    found = _DECIMAL_RANGE.search(text)
    if found:
        return int(found.group(1)), int(found.group(2))
    return None


def split_range(start: int, end: int, error: BaseException) -> list[tuple[int, int]]:
    """Two adjacent ranges that cover `start`..`end` exactly: cut after the end of the node's
    suggestion when it starts the chunk and ends inside it, else in the middle. A one-block
    range cannot be split: an empty list."""
    if end <= start:
        return []
    cut = (start + end) // 2
    suggested = suggested_range(error)
    if suggested is not None and suggested[0] == start and start <= suggested[1] < end:
        cut = suggested[1]
    return [(start, cut), (cut + 1, end)]


def chunk_of(params: Any) -> tuple[int, int] | None:
    """The numeric (fromBlock, toBlock) of an eth_getLogs call's wire params, else None."""
    query = params[0] if isinstance(params, list) and params else None
    if not isinstance(query, dict):
        return None
    ends = query.get("fromBlock"), query.get("toBlock")
    if not all(isinstance(n, str) and n[:2] == "0x" for n in ends):
        return None
    return int(ends[0], 16), int(ends[1], 16)
