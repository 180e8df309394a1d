"""The frame of a `Workload` run as the input of a frame function.

A run's frame has one row per call: ``node``, ``method``, ``params`` (the call's parameters as
compact JSON text, as they went on the wire), ``result`` (None where the call failed), ``error``
and so on. `run_answers` reads those rows back as `Answer` records, the arguments by the spec's
parameter names; every frame function whose method a workload can run takes such a frame too,
through the one adapter here (`takes_runs`):

    rows = work.run()
    frames.evm_balances(rows)         # eth_getBalance rows: address and block from the params
    frames.evm_blocks(rows)             # eth_getBlockByNumber rows: the blocks of every answer

A frame function reads the rows of the methods it serves (`RUN_METHODS`) and skips the others;
failed calls give no rows, except in the functions whose records are made of the call's arguments
as well as its answer (`evm_balances`, `evm_root_hashes`), where their value is NA. A run with no
rows of the function's methods raises `FrameError` naming the methods it has.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple, TypeVar

import pandas as pd

from ..catalog import BLOCK_TAGS, METHODS, lookup
from ._convert import FrameError

RUN_COLUMNS = ("node", "method", "params", "result", "error")

F = TypeVar("F", bound=Callable[..., pd.DataFrame])


class Answer(NamedTuple):
    """One call of a run: the node's name, the method, the arguments by the spec's parameter
    names (in wire form: hex block numbers stay hex), the result (None where the call failed)
    and the failure's name (None where it was answered)."""

    node: str
    method: str
    arguments: dict[str, Any]
    result: Any
    error: str | None


def is_run_frame(value: Any) -> bool:
    """Whether `value` is the frame of a workload run (or read back from a dataset)."""
    return isinstance(value, pd.DataFrame) and all(c in value.columns for c in RUN_COLUMNS)


def run_answers(rows: pd.DataFrame, methods: tuple[str, ...] | None = None) -> list[Answer]:
    """The calls of a run's frame (`Workload.run`, `read_dataset`), in its order, as `Answer`
    records; only those of `methods` when given. Raises `FrameError` for any other frame."""
    if not is_run_frame(rows):
        missing = [c for c in RUN_COLUMNS if not isinstance(rows, pd.DataFrame) or c not in rows]
        raise FrameError(f"expected the frame of a workload run, missing {', '.join(missing)}")
    answers = []
    for node, method, params, result, error in zip(
        *(rows[c].tolist() for c in RUN_COLUMNS), strict=True
    ):
        if methods is not None and method not in methods:
            continue
        failed = error is not None and error is not pd.NA
        answers.append(
            Answer(
                node,
                method,
                _arguments(method, params),
                None if failed else result,
                error if failed else None,
            )
        )
    return answers


def _arguments(method: str, params: Any) -> dict[str, Any]:
    if params is None or params is pd.NA:
        return {}
    wire = json.loads(params) if isinstance(params, str) else params
    if isinstance(wire, Mapping):
        return dict(wire)
    try:
        names = lookup(method).param_names
    except LookupError:
        return {}
    return dict(zip(names, wire, strict=False))


# --- how each frame function reads a run ---------------------------------------------------------

# The input a function is given: made from the answers of its methods (never empty).
Combine = Callable[[list[Answer]], tuple[Any, dict[str, Any]]]

RUN_METHODS: dict[str, tuple[str, ...]] = {}
"""Frame function name -> the methods whose run rows it reads (filled by `takes_runs`)."""


def _answered(answers: list[Answer]) -> list[Answer]:
    return [a for a in answers if a.error is None and a.result is not None]


def each(answers: list[Answer]) -> tuple[Any, dict[str, Any]]:
    """The answered results one by one: the function is applied to each, the frames stacked."""
    return [a.result for a in _answered(answers)], {}


def listed(answers: list[Answer]) -> tuple[Any, dict[str, Any]]:
    """The answered results, as one list (functions that take a list of answers)."""
    return [a.result for a in _answered(answers)], {}


def listed_with(keyword: str, argument: str) -> Combine:
    """`listed`, and the keyword `keyword` given the list of each call's `argument`."""

    def combine(answers: list[Answer]) -> tuple[Any, dict[str, Any]]:
        answered = _answered(answers)
        given = [a.arguments.get(argument) for a in answered]
        return [a.result for a in answered], {keyword: given}

    return combine


def flattened(answers: list[Answer]) -> tuple[Any, dict[str, Any]]:
    """Every record of the answered results (each a JSON array), as one list."""
    return [r for a in answers if isinstance(a.result, list) for r in a.result], {}


def records(*names: str) -> Combine:
    """One record per call, failed ones included: the arguments `names` and the result."""

    def combine(answers: list[Answer]) -> tuple[Any, dict[str, Any]]:
        return [(*[_block(a.arguments.get(n)) for n in names], a.result) for a in answers], {}

    return combine


def _block(value: Any) -> Any:
    """A block argument as a frame takes it: a tag ("latest") names no block number."""
    return None if isinstance(value, str) and value in BLOCK_TAGS else value


def takes_runs(*serves: str, combine: Combine = listed) -> Callable[[F], F]:
    """Let a frame function take the frame of a workload run as well as its own input: the rows
    of the methods it `serves` (catalog result kinds, or method names where the kind is shared
    by methods it does not read) become that input by `combine` (`listed`, `flattened`,
    `records(...)`, or `each`: the function applied to each answer and the frames stacked)."""
    methods = tuple(m.name for m in METHODS if m.result in serves or m.name in serves)
    if not methods:
        raise ValueError(f"no catalog method has a result kind or name in {serves}")

    def decorate(function: F) -> F:
        RUN_METHODS[function.__name__] = methods

        @functools.wraps(function)
        def frame_function(payload: Any, *args: Any, **kwargs: Any) -> pd.DataFrame:
            if not is_run_frame(payload):
                return function(payload, *args, **kwargs)
            answers = run_answers(payload, methods)
            if not answers and len(payload):
                have = ", ".join(dict.fromkeys(payload["method"].tolist()))
                raise FrameError(
                    f"{function.__name__} reads the rows of {', '.join(methods)}; "
                    f"this run has {have}"
                )
            given, more = combine(answers)
            if combine is each:
                return _stacked(function, given, args, kwargs)
            return function(given, *args, **{**more, **kwargs})

        frame_function.__doc__ = (function.__doc__ or "").rstrip() + (
            f"\n\n    Also takes the frame of a workload run: the rows of {', '.join(methods)}"
            " (see `toolkit.frames.run_answers`).\n    "
        )
        return frame_function  # type: ignore[return-value]

    return decorate


def _stacked(
    function: Callable[..., pd.DataFrame],
    results: list[Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> pd.DataFrame:
    parts = [function(result, *args, **kwargs) for result in results]
    if not parts:
        try:
            return function([], *args, **kwargs)
        except FrameError:
            raise FrameError(f"{function.__name__}: no call of this run was answered") from None
    filled = [part for part in parts if len(part)]
    if not filled:
        return parts[0]
    if len(filled) == 1:
        return filled[0]
    return pd.concat(filled, ignore_index=True)
