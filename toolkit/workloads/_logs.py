"""Event scans: an ``eth_getLogs`` range planned in chunks, and chunks split on a node's refusal.

A scan is ordinary planned calls (`Workload.logs`), so it is priced, budgeted, cached, written
into a dataset and resumed like any other workload. What is its own:

- the range is cut into chunks of at most the plan's ``max_log_blocks`` (the Developer plan's
  100) or the toolkit's bound (`MAX_LOG_RANGE`), in block order, adjacent, never overlapping;
- a chunk the node refuses for its range or its result size (`LogRangeRefused`: the client
  reads the real providers' texts, `client._log_refusals`) is split (`split_range`): at the end
  of the range the node proposes when it starts the chunk and ends inside it, else in halves.
  The two parts cover the chunk exactly, so no block is lost and none is asked twice. A
  one-block chunk cannot be split: it stays a failed row, never a silently empty one.

The splitting is part of the run (`_run.run_planned`): the refused chunk's parts take its place
in the run's calls, and a scan resumed from its dataset splits the chunks its rows say were
refused before it sends anything.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._errors import LogRangeRefused
from ..client import Node, PreparedCall, log_range_refusal
from ._bulk import say_on_bar
from ._dataset_files import RANGE_REFUSED
from ._planned import PlannedCall, answered_by

if TYPE_CHECKING:
    import pandas as pd

    from ._bulk import BulkRun
    from ._rows import Item


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


def chunk_calls(node: Node, call: PreparedCall, ranges: list[tuple[int, int]]) -> list[PlannedCall]:
    """`call` (an eth_getLogs chunk) over each of `ranges` instead, its other filters kept."""
    query = call.bound.wire_params[0]
    prepared = node.prepare_many(
        "eth_getLogs",
        [(({**query, "fromBlock": hex(a), "toBlock": hex(b)},), {}) for a, b in ranges],
    )
    return [PlannedCall(node, c) for c in prepared]


async def split_refused_chunks(
    calls: list[PlannedCall],
    items: list[Item],
    done: list[int | None],
    previous: pd.DataFrame | None,
    bulk_run: Callable[[list[PlannedCall], Any], BulkRun],
    progress: Any,
) -> tuple[list[Item], int, BaseException | None]:
    """Replace each eth_getLogs chunk the node refused for its range or result size by its
    two halves (`split_range`), send those (a `bulk_run(calls, progress)` each round), and again
    for halves refused in turn: `calls`, `done` and the items change in place, in block order.
    Returns the items, the high end of the RU the new calls were priced at, and the stop that
    ended a send of them (None)."""
    by_position: list[Any] = [None] * len(calls)
    sending = iter(items)
    for position, row in enumerate(done):
        if row is None:
            by_position[position] = next(sending)
    priced_high, stopped, splits = 0, None, 0
    while stopped is None:
        new_calls: list[tuple[int, list[PlannedCall]]] = []
        for position, item in enumerate(by_position):
            if item is None or item.error is None or item.call.method != "eth_getLogs":
                continue
            ends = chunk_of(item.call.bound.wire_params)
            ranges = split_range(*ends, item.error) if ends is not None else []
            if not ranges:
                continue  # a one-block chunk refused: it stays a failed row
            new_calls.append((position, chunk_calls(item.node, item.call, ranges)))
        if not new_calls:
            break
        splits += len(new_calls)
        # Splice each refused chunk's parts in its place (from the end: positions hold).
        to_send: list[PlannedCall] = []
        for position, parts in reversed(new_calls):
            answered = splice(calls, position, parts, done, previous)
            by_position[position : position + 1] = [None] * len(parts)
            to_send[:0] = [p for p, row in zip(parts, answered, strict=True) if row is None]
        if progress is not None and hasattr(progress, "total") and progress.total is not None:
            progress.total += len(to_send)
        run = bulk_run(to_send, progress)
        sent = iter(await run.run())
        priced_high += run.priced_high()
        for position, row in enumerate(done):
            if row is None and by_position[position] is None:
                by_position[position] = next(sent)
        stopped = run.stopped
    kept = [item for item in by_position if item is not None]
    if splits and progress is not None:
        # A refusal split into answered parts is no failure: the bar counts those still failed.
        failed = sum(item.error is not None for item in kept)
        said = f"{splits:,} refused range{'s' if splits != 1 else ''} split"
        say_on_bar(
            progress,
            said + (f", {failed:,} failed" if failed else ""),
            red=bool(failed),
            refresh=True,
        )
    return kept, priced_high, stopped


def splice(
    calls: list[PlannedCall],
    position: int,
    parts: list[PlannedCall],
    done: list[int | None],
    previous: pd.DataFrame | None,
) -> list[int | None]:
    """Put `parts` in place of the call at `position` (in `calls` and `done`); returns, for
    each part, the dataset's row that answers it (None: to send)."""
    answered = answered_by(parts, previous)
    calls[position : position + 1] = parts
    done[position : position + 1] = answered
    return answered


def split_known_refusals(
    calls: list[PlannedCall], done: list[int | None], previous: pd.DataFrame | None
) -> None:
    """A scan resumed from its dataset: a chunk whose row there is a refusal of its range
    (the dataset keeps those rows) is split now as it was then (`split_range`, the node's
    proposal read again from the row's message), and its parts are looked up in turn: a
    resumed scan sends neither a refused chunk again nor a part it has a row for."""
    if previous is None or previous.empty:
        return
    refused = previous["error"].eq(RANGE_REFUSED).fillna(False).to_numpy(dtype=bool)
    if not refused.any():
        return
    messages = previous["message"]
    position = 0
    while position < len(calls):
        row = done[position]
        planned = calls[position]
        if row is not None and refused[row]:
            ends = chunk_of(planned.call.bound.wire_params)
            message = str(messages.iat[row])
            _, proposed = log_range_refusal(message, None)
            error = LogRangeRefused(None, message, suggested=proposed)
            parts = split_range(*ends, error) if ends is not None else []
            if parts:  # its first part is looked at next: it may have been refused too
                splice(
                    calls, position, chunk_calls(planned.node, planned.call, parts), done, previous
                )
                continue
            done[position] = None  # a one-block chunk refused: asked again
        position += 1
