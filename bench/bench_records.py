"""Benchmark: the per-call records, as the toolkit makes them and as the obvious alternatives would.

A bulk run makes a few small records per call, so the way each is made shows in the toolkit's own
CPU time per call. The code keeps the reasons for its choices in comments; the figures are here:

- ``PlannedCall`` (a workload's call: node and prepared call) is a NamedTuple made through
  ``tuple.__new__``: against its own NamedTuple constructor and a frozen dataclass of the same
  two fields;
- ``PreparedCall`` is a dataclass with ``slots=True``: against the same dataclass without slots;
- ``HTTPRequest`` (one per call sent) is a NamedTuple: against a frozen dataclass of its fields;
- ``BoundCall`` (one per call bound afresh) is a frozen dataclass whose ``__init__`` puts its two
  fields in the instance's dict: against the frozen dataclass's own ``__init__``.

Each row is the best time per record, in CPU time of the thread (`time.thread_time`), of
`--rounds` rounds of 10,000 records in which the contenders take turns.

    python bench/bench_records.py [--rounds 30] [--quick]
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from toolkit.catalog import BoundCall
from toolkit.client._prepared import PreparedCall
from toolkit.client._transport import NOT_SENT, HTTPRequest
from toolkit.workloads._planned import PlannedCall

RECORDS = 10_000


@dataclass(frozen=True)
class FrozenPlannedCall:
    node: Any
    call: Any


@dataclass(eq=False)
class UnslottedPreparedCall:
    node: str
    bound: Any
    estimate: Any = None
    receipt: Any = NOT_SENT


@dataclass(frozen=True)
class FrozenBoundCall:  # BoundCall's two fields, made by the frozen dataclass's own __init__
    method: Any
    arguments: Any


@dataclass(frozen=True)
class FrozenHTTPRequest:
    method: str
    url: str
    json: Any = None
    params: Any = None
    headers: Any = None


def contenders() -> list[tuple[str, str, Callable[[], object]]]:
    """(record, how it is made, a function making `RECORDS` of them); the toolkit's way first
    in each group."""
    node, call, new = object(), object(), tuple.__new__
    arguments = {"address": "0x" + "11" * 20, "block": "0x1"}
    url = "http://127.0.0.1:8545/"
    span = range(RECORDS)
    return [
        (
            "PlannedCall",
            "tuple.__new__ (ours)",
            lambda: [new(PlannedCall, (node, call)) for _ in span],
        ),
        (
            "PlannedCall",
            "its NamedTuple constructor",
            lambda: [PlannedCall(node, call) for _ in span],
        ),
        (
            "PlannedCall",
            "a frozen dataclass",
            lambda: [FrozenPlannedCall(node, call) for _ in span],
        ),
        (
            "PreparedCall",
            "dataclass, slots (ours)",
            lambda: [PreparedCall("n", call) for _ in span],
        ),
        (
            "PreparedCall",
            "dataclass, no slots",
            lambda: [UnslottedPreparedCall("n", call) for _ in span],
        ),
        (
            "HTTPRequest",
            "NamedTuple (ours)",
            lambda: [HTTPRequest("POST", url, call) for _ in span],
        ),
        (
            "HTTPRequest",
            "a frozen dataclass",
            lambda: [FrozenHTTPRequest("POST", url, call) for _ in span],
        ),
        (
            "BoundCall",
            "frozen dataclass, fields set in its dict (ours)",
            lambda: [BoundCall(call, arguments) for _ in span],
        ),
        (
            "BoundCall",
            "the frozen dataclass's own __init__",
            lambda: [FrozenBoundCall(call, arguments) for _ in span],
        ),
    ]


def measure(rounds: int) -> dict[tuple[str, str], float]:
    """Best seconds per record of each contender."""
    runs = contenders()
    best = {(record, how): float("inf") for record, how, _ in runs}
    for turn in range(rounds):
        for record, how, make in runs if turn % 2 == 0 else runs[::-1]:
            gc.collect()
            started = time.thread_time()
            made = make()
            spent = time.thread_time() - started
            del made
            best[record, how] = min(best[record, how], spent / RECORDS)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--quick", action="store_true", help="3 rounds, for a smoke check")
    options = parser.parse_args(argv)
    best = measure(3 if options.quick else options.rounds)
    print("| record | made by | ns per record | ÷ ours |")
    print("|---|---|---:|---:|")
    ours: dict[str, float] = {}
    for (record, how), seconds in best.items():
        ours.setdefault(record, seconds)  # the toolkit's way comes first in each group
        print(f"| `{record}` | {how} | {seconds * 1e9:.0f} | {seconds / ours[record]:.2f} |")
    print(f"\n_Python {sys.version.split()[0]}; best of {3 if options.quick else options.rounds}_")
    return 0


if __name__ == "__main__":
    sys.exit(main())
