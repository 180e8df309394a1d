"""`run()` and `arun()` check their arguments before anything is opened or sent: a wrong one is a
`ValidationError` naming it, and the gateway has metered nothing (0 RU)."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

import toolkit
from toolkit.workloads import Workload

ADDRESSES = [f"0x{index:040x}" for index in range(1, 4)]


class LooksLikeADaskClient:
    def submit(self, *args, **kwargs):
        raise AssertionError("nothing is submitted when the arguments are wrong")


DATASET = object()  # stands for a dataset folder in tmp_path
A_FILE = object()  # ... and for a file there

WRONG = [
    ({"concurrency": 0}, "concurrency", "min"),
    ({"concurrency": True}, "concurrency", "type"),
    ({"concurrency": 4.0}, "concurrency", "type"),
    ({"batch_size": 0}, "batch_size", "min"),
    ({"batch_size": False}, "batch_size", "type"),
    ({"dataset": DATASET, "rows_per_file": 0}, "rows_per_file", "min"),
    ({"dataset": DATASET, "rows_per_file": "100"}, "rows_per_file", "type"),
    ({"dataset": 123}, "dataset", "type"),
    ({"dataset": b"balances"}, "dataset", "type"),
    ({"dataset": ""}, "dataset", "empty"),
    ({"dataset": A_FILE}, "dataset", "folder"),
    ({"dataset": DATASET, "wait_for_dataset": "no"}, "wait_for_dataset", "type"),
    ({"partition_size": 10}, "partition_size", "requires-client"),
    (
        {"dataset": DATASET, "client": LooksLikeADaskClient(), "partition_size": 0},
        "partition_size",
        "min",
    ),
    ({"dataset": DATASET, "client": object()}, "client", "type"),
    ({"progress": "yes"}, "progress", "type"),
]


@pytest.mark.parametrize("how", ["run", "arun"])
@pytest.mark.parametrize(
    ("arguments", "param", "rule"), WRONG, ids=[f"{p}-{r}" for _, p, r in WRONG]
)
def test_a_wrong_argument_is_refused_by_name_before_anything_is_sent(
    make_gateway, sandbox, tmp_path, how, arguments, param, rule
):
    gateway = make_gateway()
    # Archive blocks and no head known: a run that got going would fetch the head first.
    work = Workload().grid(gateway.node("ethereum-mainnet"), "eth_getBalance", ADDRESSES, [1])
    folder, file = tmp_path / "balances", tmp_path / "notes.txt"
    file.write_text("not a dataset")
    stand_ins = {id(DATASET): folder, id(A_FILE): file}
    arguments = {key: stand_ins.get(id(value), value) for key, value in arguments.items()}
    with pytest.raises(toolkit.ValidationError) as refused:
        if how == "run":
            work.run(**arguments)
        else:
            asyncio.run(work.arun(**arguments))
    assert (refused.value.param, refused.value.rule) == (param, rule)
    assert str(refused.value).startswith(f"{param}: ")
    assert len(gateway.ledger) == 0
    assert sum(usage["calls"] for usage in sandbox.metering().values()) == 0
    assert not folder.exists()
    assert work.last_result is None


def test_whole_numbers_of_any_integer_type_are_taken(make_gateway):
    gateway = make_gateway()
    work = Workload().grid(gateway.node("ethereum-mainnet"), "eth_getBalance", ADDRESSES, [1])
    frame = work.run(progress=False, concurrency=np.int64(2), batch_size=np.int32(2))
    assert frame["error"].isna().all() and work.last_result is frame
