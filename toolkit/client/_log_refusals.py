"""How nodes word a refusal of ``eth_getLogs`` for its block range or its result size.

Read before the rate-limit rule (`_answers._rpc_error`): Alchemy's "Log response size exceeded
... no limit on the response size" and Infura's "range 1000000 exceeds limit of 10000" say
"limit" and "exceed" as a rate limit does, but a retry of the same range can never succeed: the
range must shrink. Each text below is a real one (tests/fixtures/real/SOURCES.md):

- Alchemy: "Log response size exceeded. ... this block range should work: [0x7aa8f1, 0x7d5efc]",
  and "Query timeout exceeded. Consider reducing your block range. ... [0x42b950f, 0x435784f]";
- reth: "query exceeds max results 20000, retry with the range 24383075-24383096" (decimal; some
  versions propose the very range asked);
- geth-derived nodes and Infura: "query returned more than 10000 results"; Infura's
  "range 1000000 exceeds limit of 10000";
- Tenderly: "invalid params" with the reason in ``data.payload``: "range 9009594 is bigger than
  range limit 2000";
- QuickNode: "eth_getLogs is limited to a 10,000 range"; others "block range is larger than max
  block range", and the sandbox's "query exceeds max block range 10000".
"""

from __future__ import annotations

import json
import re
from typing import Any

_REFUSAL = re.compile(
    r"log response size exceeded|query timeout exceeded.{0,40}block range|exceeds max results"
    r"|returned more than [\d,]+ (?:results|logs)"
    r"|\brange \d+ (?:exceeds|is bigger than|is larger than)"
    r"|block range (?:is )?(?:too (?:large|wide)|(?:bigger|larger) than)"
    r"|exceeds? (?:the )?max(?:imum)? block range|is limited to a [\d,]+(?: block)? range",
    re.IGNORECASE,
)
# A proposed range: Alchemy's "[0x7aa8f1, 0x7d5efc]", reth's "retry with the range 1-2".
_HEX_RANGE = re.compile(r"\[\s*(0x[0-9a-fA-F]+)\s*,\s*(0x[0-9a-fA-F]+)\s*\]")
_DECIMAL_RANGE = re.compile(r"range (\d+)\s*-\s*(\d+)")


def _text(message: str, data: Any) -> str:
    if data is None or isinstance(data, str):
        return f"{message} {data or ''}"
    return f"{message} {json.dumps(data, default=str)[:2000]}"


def log_range_refusal(message: str, data: Any) -> tuple[bool, tuple[int, int] | None]:
    """Whether a JSON-RPC error refuses a log range or result size, and the range it proposes."""
    text = _text(message, data)
    if not _REFUSAL.search(text):
        return False, None
    found = _HEX_RANGE.search(text)
    if found:
        return True, (int(found.group(1), 16), int(found.group(2), 16))
    found = _DECIMAL_RANGE.search(text)
    if found:
        return True, (int(found.group(1)), int(found.group(2)))
    return True, None
