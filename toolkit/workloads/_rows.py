"""The result row: one per call of a run, made here and nowhere else.

A run's frame has the columns `RESULT_COLUMNS`, a row per call in the workload's order. Rows are
made from a run's items (`results_frame`: an `Item` is a call and what became of it) and from the
lines of a dataset's journal (`JournalGroup`: the same columns, written by `journal_group` as a
batch of calls finishes and read back by `journal_frame`), both through `_frame`, so that a row
read back from a journal is the row the run made.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import repeat
from operator import attrgetter, is_
from typing import TYPE_CHECKING, Any, NamedTuple

from .._errors import BudgetExceeded
from ..catalog import TYPED_VALUES, lookup
from ..client import NOT_SENT, PreparedCall, Receipt, SharedReceipt

if TYPE_CHECKING:
    import pandas as pd

    from ..client import Node

RESULT_COLUMNS = (
    "node",
    "method",
    "params",
    "result",
    "value",
    "error",
    "message",
    "ru",
    "unconfirmed_ru",
    "cache_hit",
)


class Interrupted(Exception):
    """What a call that a stopped run did not finish shows as its error (never raised). Its
    message says whether it was sent: one in flight at the stop may have been billed, and its
    row's ``ru`` and ``unconfirmed_ru`` say how much, as the ledger does."""


INTERRUPTED = Interrupted.__name__  # the ``error`` column's text for such a row
BUDGET_EXCEEDED = BudgetExceeded.__name__  # ... and for a call the budget stop left unsent


class Item:
    """One call of a bulk run and what became of it: the last of the four call wrappers.

    It adds to a workload's node and `PreparedCall` what the run found: `done`, the `result` or
    the `error`, the `receipt` of every send of the call together (a batch retried, or a refused
    batch sent again call by call, sends a call more than once) and `batch_retries`. Mutable,
    as the run fills it in while answers come.

    Made by `BulkRun` from a workload's planned calls (the Dask runner makes failed ones for the
    rows of calls a partition did not run); read by the run's send loop, by `results_frame` (one row
    of the run's frame each) and by the dataset writer (`DatasetWriter.add`: a journal line per
    batch of finished items)."""

    __slots__ = ("batch_retries", "call", "done", "error", "node", "receipt", "result")

    def __init__(self, node: Node, call: PreparedCall):
        self.node = node
        self.call = call
        self.batch_retries = 0
        self.done = False
        self.result: Any = None
        self.error: BaseException | None = None
        # What every send of this call cost: a batch item retried, or a refused batch's calls
        # sent again one by one, are sent more than once, and each send's receipt starts afresh.
        self.receipt: Receipt = NOT_SENT

    def __repr__(self) -> str:
        return f"<Item {self.call.method} on {self.node.name} done={self.done}>"

    def tally(self) -> None:
        """Count the call's last send in the item's receipt. Each send gives the call a new
        receipt, so the first send's can be the item's own, as it is."""
        sent, mine = self.call.receipt, self.receipt
        if isinstance(mine, SharedReceipt):  # not sent yet, or answered from the cache
            if not isinstance(sent, SharedReceipt):
                self.receipt = sent
                return
            mine = self.receipt = Receipt()
        mine.add(sent.ru, sent.unconfirmed_ru, False)
        mine.answered += sent.answered
        mine.cache_hit |= sent.cache_hit
        mine.status = sent.status

    def succeed(self, result: Any) -> None:
        self.done, self.result = True, result

    def fail(self, error: BaseException) -> None:
        self.done, self.error = True, error


# --- results as one DataFrame -------------------------------------------------------------------


def params_text(call: PreparedCall) -> str:
    """A call's parameters as the frame's ``params`` column shows them (compact JSON)."""
    return call.bound.params_json


def failed_rows(calls: Iterable[tuple[Node, PreparedCall]], error: BaseException) -> pd.DataFrame:
    """A row for each of `calls` (a workload's (node, call) pairs), each failed with `error`:
    the rows of calls a run did not send."""
    items = [Item(node, call) for node, call in calls]
    for item in items:
        item.fail(error)
    return results_frame(items)


def results_frame(items: Sequence[Item]) -> pd.DataFrame:
    """One row per call, in the workload's order (see `RESULT_COLUMNS`), built column by column.

    The text columns are Arrow strings made straight from the texts (the ``string`` dtype's own
    storage), skipping pandas' check of each value. Each column is one pass in C over the items
    where it can be (`map`, `attrgetter`): a Python loop over the items with a branch per column
    cost more than all the rest of a cached re-run.
    """
    n = len(items)
    bounds = list(map(_BOUND_OF, items))
    methods = list(map(_METHOD_OF, bounds))
    results = list(map(_RESULT_OF, items))
    failures = list(map(_ERROR_OF, items))
    failed = failures.count(None) != n
    return _frame(
        _attribute_strings(list(map(_NODE_OF, items)), "name"),
        _attribute_strings(methods, "name"),
        _strings(list(map(_PARAMS_JSON_OF, bounds))),
        results,
        _values(methods, results, failures, failed),
        [_error_name(e) for e in failures] if failed else None,
        [_error_text(e) for e in failures] if failed else None,
        _receipt_columns(list(map(_RECEIPT_OF, items))),
    )


def _frame(
    node: Any,
    method: Any,
    params: Any,
    results: list[Any],
    values: list[Any],
    errors: list[str | None] | None,
    messages: list[str | None] | None,
    receipts: tuple[Any, Any, Any],
) -> pd.DataFrame:
    """The frame of `RESULT_COLUMNS` (in that order: a test checks) from its columns: text
    columns as made by `_strings`, `errors` and `messages` None when no call failed, and the
    ru, unconfirmed_ru and cache_hit arrays.

    ``result`` and ``value`` are Python objects whatever they hold: exact ints past 2**63 as
    well as below, and one type per column from run to run (pandas would infer int64 or str
    from the values)."""
    import numpy as np
    import pandas as pd

    n = len(results)
    index = pd.RangeIndex(n)
    columns = {
        "node": node,
        "method": method,
        "params": params,
        # Series of dtype object: from an array of texts, pandas would infer its string dtype.
        # One index object for them and the frame: pandas then has no indexes to align.
        "result": pd.Series(np.fromiter(results, object, n), index, object, copy=False),
        "value": pd.Series(np.fromiter(values, object, n), index, object, copy=False),
        "error": _no_strings(n) if errors is None else _strings(errors),
        "message": _no_strings(n) if messages is None else _strings(messages),
    }
    columns["ru"], columns["unconfirmed_ru"], columns["cache_hit"] = receipts
    return pd.DataFrame(columns, index, copy=False)


def row_counts(frame: pd.DataFrame) -> dict[str, int]:
    """The counts of a run's summary: calls, failed (apart from those a stop or the budget
    left unfinished), cache hits and RU."""
    errors = frame["error"].array
    answered = int(errors.isna().sum())
    interrupted = refused = 0
    if answered < len(frame):  # which way they failed (each comparison a pass through pandas)
        interrupted = int((errors == INTERRUPTED).sum())
        refused = int((errors == BUDGET_EXCEEDED).sum())
    return {
        "calls": len(frame),
        "failed": len(frame) - answered - interrupted - refused,
        "interrupted": interrupted,
        "budget_refused": refused,
        "cache_hits": int(frame["cache_hit"].to_numpy().sum()),
        "ru": int(frame["ru"].to_numpy().sum()),
        "unconfirmed_ru": int(frame["unconfirmed_ru"].to_numpy().sum()),
    }


_NODE_OF = attrgetter("node")
_BOUND_OF = attrgetter("call.bound")
_ITEM_METHOD_OF = attrgetter("call.bound.method")
_METHOD_OF = attrgetter("method")
_RESULT_OF = attrgetter("result")
_ERROR_OF = attrgetter("error")
_RECEIPT_OF = attrgetter("receipt")
_PARAMS_JSON_OF = attrgetter("params_json")
_RU_OF = attrgetter("ru")
_UNCONFIRMED_OF = attrgetter("unconfirmed_ru")
_CACHE_HIT_OF = attrgetter("cache_hit")


def _each_attribute(objects: list[Any], name: str) -> list[Any]:
    """Each object's attribute `name`, read once when every object is the same one (a run's
    calls are mostly of one node and one method, and a node's name is a property)."""
    if objects and all_same(objects):
        return [getattr(objects[0], name)] * len(objects)
    return list(map(attrgetter(name), objects))


def all_same(objects: list[Any]) -> bool:
    """Whether every object is the same one (an identity test in C, stopping at the first other;
    true for none)."""
    return all(map(is_, objects, repeat(objects[0] if objects else None)))


def _receipt_columns(receipts: list[Receipt]) -> tuple[Any, Any, Any]:
    """The ru, unconfirmed_ru and cache_hit columns; when every call shares one receipt (a
    re-run the cache answered wholly: `CACHE_HIT`), filled from it without a pass per column."""
    import numpy as np

    n = len(receipts)
    if n and all_same(receipts):
        shared = receipts[0]
        return (
            np.full(n, shared.ru, np.int64),
            np.full(n, shared.unconfirmed_ru, np.int64),
            np.full(n, shared.cache_hit, bool),
        )
    return (
        np.fromiter(map(_RU_OF, receipts), np.int64, n),
        np.fromiter(map(_UNCONFIRMED_OF, receipts), np.int64, n),
        np.fromiter(map(_CACHE_HIT_OF, receipts), bool, n),
    )


def _values(methods: list[Any], results: list[Any], failures: list[Any], failed: bool) -> list[Any]:
    """The typed values (ints for quantities, like the helpers return); None for a failed call
    and for a result its kind's conversion refuses."""
    kinds = set(_each_attribute(methods, "result"))
    if len(kinds) == 1 and not failed:
        convert = TYPED_VALUES.get(next(iter(kinds)))
        if convert is None:
            return results
        try:
            return list(map(convert, results))
        except (TypeError, ValueError):
            pass  # one result the conversion refuses: convert each on its own below
    values: list[Any] = []
    converters: dict[str, Any] = {}
    for method, result, failure in zip(methods, results, failures, strict=True):
        if failure is not None:
            values.append(None)
            continue
        kind = method.result
        convert = converters.get(kind, _UNKNOWN)
        if convert is _UNKNOWN:
            convert = converters[kind] = TYPED_VALUES.get(kind)
        values.append(result if convert is None else _typed(convert, result))
    return values


def _error_name(error: BaseException | None) -> str | None:
    return None if error is None else type(error).__name__


def _error_text(error: BaseException | None) -> str | None:
    return None if error is None else str(error)


def _strings(texts: list[str | None]) -> Any:
    """A pandas ``string`` array (Arrow storage) of `texts`: what ``pd.array(texts,
    dtype="string")`` makes, without checking each value again (they are str or None)."""
    return _string_array(lambda pa: pa.array(texts, type=pa.large_string()), lambda: texts)


def _attribute_strings(objects: list[Any], name: str) -> Any:
    """`_strings` of each object's attribute `name`; when every object is the same one, its
    attribute is read once and repeated by Arrow."""
    if not objects or not all_same(objects):
        return _strings(list(map(attrgetter(name), objects)))
    text, n = getattr(objects[0], name), len(objects)
    return _string_array(
        lambda pa: pa.repeat(pa.scalar(text, type=pa.large_string()), n), lambda: [text] * n
    )


def _no_strings(n: int) -> Any:
    return _string_array(lambda pa: pa.nulls(n, type=pa.large_string()), lambda: [None] * n)


def _string_array(arrow: Callable[[Any], Any], texts: Callable[[], list[str | None]]) -> Any:
    """A pandas ``string`` array: made by `arrow` from the pyarrow module when that is the
    dtype's storage (pandas' default with pyarrow installed), else by pandas from `texts()`."""
    import pandas as pd

    if pd.StringDtype().storage != "pyarrow":
        return pd.array(texts(), dtype="string")
    import pyarrow as pa

    return pd.arrays.ArrowStringArray(arrow(pa))


_UNKNOWN = object()


def _typed(convert: Any, result: Any) -> Any:
    try:
        return convert(result)
    except (TypeError, ValueError):
        return None


# --- rows in a dataset's journal ----------------------------------------------------------------
# A journal line is a JSON list of groups, one per partition key: a `JournalGroup` as a list, the
# calls' columns made in C (`map` over the items: a row per call made the journal a large share
# of a fast run's time; bench/bench_dataset.py measures the journal's cost).

PartitionKey = tuple[str, str, str]  # gateway, node name, method name


class JournalGroup(NamedTuple):
    """The rows of one partition key's calls in a journal line, column by column."""

    gateway: str | None
    node: str
    method: str
    params: list[str]
    results: list[Any]
    errors: list[str | None]  # null in a line when no call failed
    messages: list[str | None]
    ru: list[int]
    unconfirmed_ru: list[int]
    cache_hit: list[bool]

    @property
    def key(self) -> PartitionKey:
        return (self.gateway, self.node, self.method)  # type: ignore[return-value]

    @classmethod
    def read(cls, raw: Any) -> JournalGroup:
        """The group a journal line holds as a JSON list; ValueError for what is not one."""
        if not isinstance(raw, list) or len(raw) != len(cls._fields):
            raise ValueError("not a journal group")
        n = len(raw[3]) if isinstance(raw[3], list) else -1
        group = cls._make([*raw[:5], raw[5] or [None] * n, raw[6] or [None] * n, *raw[7:]])
        if any(not isinstance(column, list) or len(column) != n for column in group[3:]):
            raise ValueError("a journal group's columns differ in length")
        return group


def journal_group(key: PartitionKey, items: list[Item]) -> list[Any]:
    """A `JournalGroup`, as a JSON list, of finished calls of one partition key."""
    errors = list(map(_ERROR_OF, items))
    failed = errors.count(None) != len(errors)
    return [
        *key,
        list(map(_PARAMS_OF, items)),
        list(map(_RESULT_OF, items)),
        [_error_name(e) for e in errors] if failed else None,
        [_error_text(e) for e in errors] if failed else None,
        list(map(_RECEIPT_RU_OF, items)),
        list(map(_RECEIPT_UNCONFIRMED_OF, items)),
        list(map(_RECEIPT_CACHE_HIT_OF, items)),
    ]


_PARAMS_OF = attrgetter("call.bound.params_json")
_RECEIPT_RU_OF = attrgetter("receipt.ru")
_RECEIPT_UNCONFIRMED_OF = attrgetter("receipt.unconfirmed_ru")
_RECEIPT_CACHE_HIT_OF = attrgetter("receipt.cache_hit")


def journal_frame(groups: Sequence[JournalGroup]) -> pd.DataFrame:
    """The frame `results_frame` made for these calls, from their journal groups, with a
    ``gateway`` column after `RESULT_COLUMNS`."""
    import numpy as np

    def joined(column: str) -> list[Any]:
        return [value for group in groups for value in getattr(group, column)]

    def repeated(column: str) -> list[Any]:
        return [getattr(group, column) for group in groups for _ in group.params]

    frame = _frame(
        _strings(repeated("node")),
        _strings(repeated("method")),
        _strings(joined("params")),
        joined("results"),
        [value for group in groups for value in _typed_values(group)],
        joined("errors"),
        joined("messages"),
        (
            np.array(joined("ru"), dtype=np.int64),
            np.array(joined("unconfirmed_ru"), dtype=np.int64),
            np.array(joined("cache_hit"), dtype=bool),
        ),
    )
    frame["gateway"] = _strings(repeated("gateway"))
    return frame


def _typed_values(group: JournalGroup) -> list[Any]:
    n = len(group.params)
    try:
        method = lookup(group.method)
    except (LookupError, TypeError):  # a method this toolkit does not know (another version's)
        return [None] * n
    return _values([method] * n, group.results, group.errors, group.errors.count(None) != n)
