"""The frame of a `Workload` run feeds the frame functions directly, against the sandbox.

For every frame function whose method a workload can run (`frames.RUN_METHODS`), and every such
method: a run of two calls, the function of the run's frame equals the function of each answer
given the way its docstring says (the frames stacked, or one record per call).
"""

from __future__ import annotations

import pandas as pd
import pytest

from toolkit import frames
from toolkit.catalog import BLOCK_TAGS, METHODS, lookup
from toolkit.widgets._examples import sandbox_examples
from toolkit.workloads._workload import Workload

NODE_OF_CHAIN = {
    "ethereum": "ethereum-mainnet",
    "arbitrum": "arbitrum-mainnet",
    "polygon": "polygon-mainnet",
    "solana": "solana-mainnet",
    "tron": "tron-mainnet",
    "ton": "ton-mainnet",
}
# What a frame function takes beside the run (the sandbox's eth_call example asks totalSupply()).
EXTRA = {"evm_reads": ("totalSupply()(uint256)",)}
CASES = [
    (name, method) for name, methods in sorted(frames.RUN_METHODS.items()) for method in methods
]


def _first(method: str) -> str:
    """The first chain of `method` the sandbox has a node of."""
    return next(c for c in lookup(method).chains if c in NODE_OF_CHAIN)


def _run(gateway, sandbox, method: str) -> tuple[Workload, pd.DataFrame]:
    chain = _first(method)
    node = gateway.node(NODE_OF_CHAIN[chain])
    values = sandbox_examples(sandbox)(chain, method)
    work = Workload()
    work.add(node, method, **values)
    work.add(node, method, **values)
    rows = work.run(progress=False)
    assert rows["error"].isna().all(), rows["message"].tolist()
    return work, rows


def _number(block):
    """A tag such as "latest" names no block number: the frame's block is then NA."""
    return None if block in BLOCK_TAGS else block


def _expected(name: str, work: Workload, rows: pd.DataFrame) -> pd.DataFrame:
    """What the function gives for the same answers, handed over the way it documents."""
    function = getattr(frames, name)
    results = rows["result"].tolist()
    if name == "evm_balances":
        return function(
            [
                (p.call.arguments["address"], _number(p.call.arguments["block"]), r)
                for p, r in zip(work, results, strict=True)
            ]
        )
    if name == "evm_root_hashes":
        return function(
            [
                (p.call.arguments["from"], p.call.arguments["to"], r)
                for p, r in zip(work, results, strict=True)
            ]
        )
    if name == "evm_reads":
        return function(
            [
                (
                    p.call.arguments["call"]["to"],
                    p.call.arguments["block"],
                    p.call.arguments["call"]["data"],
                    r,
                )
                for p, r in zip(work, results, strict=True)
            ],
            *EXTRA[name],
        )
    if name == "ton_token_data":
        return function(results, address=[p.call.arguments["address"] for p in work])
    parts = [function(r) for r in results]
    filled = [p for p in parts if len(p)] or parts[:1]
    return pd.concat(filled, ignore_index=True) if len(filled) > 1 else filled[0]


def test_every_method_a_workload_runs_with_a_frame_function_is_covered():
    """Every catalog method whose result kind the widgets show with a frame function (not a
    platform call: a workload runs node calls) has a frame function that reads its runs."""
    from toolkit.widgets._results import BY_NAME, BY_RESULT_KIND

    covered = {m for methods in frames.RUN_METHODS.values() for m in methods}
    expected = {
        m.name
        for m in METHODS
        if "platform" not in m.chains and (m.name in BY_NAME or m.result in BY_RESULT_KIND)
    }
    assert expected <= covered, expected - covered


@pytest.mark.parametrize(("name", "method"), CASES, ids=[f"{n}-{m}" for n, m in CASES])
def test_a_frame_function_takes_the_frame_of_a_run(name, method, gateway, sandbox):
    work, rows = _run(gateway, sandbox, method)
    got = getattr(frames, name)(rows, *EXTRA.get(name, ()))
    pd.testing.assert_frame_equal(got, _expected(name, work, rows))


def test_balances_of_a_grid_run_keep_exact_wei_and_failed_calls_as_na(gateway):
    eth = gateway.node("ethereum-mainnet")
    head = eth.head()
    addresses = [f"0x{i:040x}" for i in range(1, 4)]
    work = Workload().grid(eth, "eth_getBalance", addresses, [head - 200, head - 100])
    rows = work.run(progress=False)
    balances = frames.evm_balances(rows)
    assert list(balances["address"]) == [a for a in addresses for _ in range(2)]
    assert list(balances["block"]) == [head - 200, head - 100] * 3
    assert list(balances["wei"]) == [int(r, 16) for r in rows["result"]]
    # A failed call is a row with NA, as the builder shows it.
    failed = rows.copy()
    failed.loc[1, ["result", "error"]] = [None, "GatewayError"]
    assert pd.isna(frames.evm_balances(failed)["wei"][1])


def test_rows_of_other_methods_are_skipped_and_a_run_without_any_is_refused(gateway):
    eth, tron = gateway.node("ethereum-mainnet"), gateway.node("tron-mainnet")
    work = Workload()
    work.add(eth, "eth_getBalance", "0x" + "11" * 20, eth.head() - 5)
    work.each(tron, "wallet/gettransactioninfobyblocknum", [tron.head() - 3], param="num")
    rows = work.run(progress=False)
    assert len(frames.evm_balances(rows)) == 1
    infos = frames.tron_transaction_infos(rows)
    assert infos.equals(frames.tron_transaction_infos(rows["result"][1]))
    with pytest.raises(frames.FrameError, match=r"evm_logs reads the rows of eth_getLogs; this"):
        frames.evm_logs(rows)


def test_run_answers_reads_params_back_by_name(gateway):
    eth = gateway.node("ethereum-mainnet")
    block = eth.head() - 5
    rows = Workload().add(eth, "eth_getBalance", "0x" + "22" * 20, block).run(progress=False)
    (answer,) = frames.run_answers(rows)
    assert answer.node == "ethereum-mainnet" and answer.method == "eth_getBalance"
    assert answer.arguments == {"address": "0x" + "22" * 20, "block": hex(block)}
    assert answer.result == rows["result"][0] and answer.error is None
    with pytest.raises(frames.FrameError, match="expected the frame of a workload run"):
        frames.run_answers(pd.DataFrame({"node": ["x"]}))
