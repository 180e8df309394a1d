"""Workload.run(dataset=...): a partitioned Parquet dataset written as calls finish, resumed by the
next run (0 RU for what is there), read back exactly with pandas, Dask, pyarrow and DuckDB."""

from __future__ import annotations

import asyncio
import json
import warnings

import pandas as pd
import pytest

import toolkit
from toolkit.workloads._workload import Workload

ADDRESSES = [f"0x{index:040x}" for index in range(1, 11)]


def metered_ru(sandbox) -> int:
    return sum(usage["ru"] for usage in sandbox.metering().values())


def mixed_workload(gateway) -> Workload:
    """Balances at old and recent blocks (batched, archive and not), TRON transaction info
    (single REST calls, list results) and a by-name lookup that fails (two assets share it)."""
    eth, tron = gateway.node("ethereum-mainnet"), gateway.node("tron-mainnet")
    head, tron_head = eth.head(), tron.head()
    work = Workload()
    work.grid(eth, "eth_getBalance", ADDRESSES, [head - 1_000, head - 300, head - 5])
    work.each(
        tron, "wallet/gettransactioninfobyblocknum", range(tron_head - 8, tron_head), param="num"
    )
    return work


def by_call(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows in a stable order, for comparing a dataset (partition order) with a run's frame."""
    ordered = frame.assign(_order=frame["node"] + frame["method"] + frame["params"])
    return (
        ordered.sort_values("_order", kind="stable").drop(columns="_order").reset_index(drop=True)
    )


def test_a_run_writes_every_row_and_reads_back_exactly(make_gateway, sandbox, tmp_path):
    gateway = make_gateway()
    work = mixed_workload(gateway)
    frame = work.run(progress=False, dataset=tmp_path / "ds", rows_per_file=7)
    assert frame["error"].isna().all() and len(frame) == len(work) == 38
    assert frame.attrs["summary"]["from_dataset"] == 0

    stored = toolkit.read_dataset(tmp_path / "ds")
    pd.testing.assert_frame_equal(by_call(stored.drop(columns="gateway")), by_call(frame))
    # each row names the gateway it came through: a digest of host and chain, never the key
    nodes = {name: gateway.node(name) for name in ("ethereum-mainnet", "tron-mainnet")}
    assert (stored["gateway"] == stored["node"].map(lambda n: nodes[n].gateway)).all()
    assert all(
        isinstance(v, int) for v in stored.loc[stored["method"] == "eth_getBalance", "value"]
    )

    # Hive partitions by node and method; method names with "/" are URI-encoded; bounded files
    files = sorted((tmp_path / "ds").rglob("*.parquet"))
    folders = {f.parent.relative_to(tmp_path / "ds").as_posix() for f in files}
    assert folders == {
        "node=ethereum-mainnet/method=eth_getBalance",
        "node=tron-mainnet/method=wallet%2Fgettransactioninfobyblocknum",
    }
    import pyarrow.parquet as pq

    assert max(pq.read_metadata(f).num_rows for f in files) <= 7
    assert sum(pq.read_metadata(f).num_rows for f in files) == 38
    assert not list((tmp_path / "ds").rglob(".*"))  # no temporary file left behind
    assert not list((tmp_path / "ds").glob("_journal/*"))  # every journal written out

    # the run's provenance is kept next to its rows
    (run,) = stored.attrs["runs"]
    assert run["summary"]["calls"] == 38 and run["summary"]["ru"] == frame["ru"].sum()
    assert {n["node"] for n in run["nodes"]} == {"ethereum-mainnet", "tron-mainnet"}
    assert all(isinstance(n["head"], int) for n in run["nodes"])
    assert run["toolkit_version"] == toolkit.__version__


def test_other_readers_see_the_partitions_and_exact_decimals(make_gateway, tmp_path):
    import duckdb
    import pyarrow.dataset as pads

    gateway = make_gateway()
    eth = gateway.node("ethereum-mainnet")
    work = Workload().grid(eth, "eth_getBalance", ADDRESSES[:4], [eth.head() - 10])
    frame = work.run(progress=False, dataset=tmp_path / "ds")

    table = pads.dataset(tmp_path / "ds", format="parquet", partitioning="hive").to_table()
    assert set(table.column("method").to_pylist()) == {"eth_getBalance"}
    assert str(table.schema.field("value").type).startswith("decimal")
    glob = str(tmp_path / "ds" / "**" / "*.parquet")
    query = (
        f"select node, sum(value) as total from read_parquet('{glob}', hive_partitioning=true) "
        "group by node"
    )
    rows = duckdb.connect().sql(query).fetchall()  # not the default connection (test_parquet)
    assert rows == [("ethereum-mainnet", sum(frame["value"]))]


def test_a_finished_dataset_costs_nothing_on_the_next_run(make_gateway, sandbox, tmp_path):
    gateway = make_gateway()
    first = mixed_workload(gateway).run(progress=False, dataset=tmp_path / "ds")
    spent = metered_ru(sandbox)

    again = mixed_workload(gateway)  # the same calls, planned afresh (a new notebook session)
    second = again.run(progress=False, dataset=tmp_path / "ds")
    assert metered_ru(sandbox) == spent  # not one call sent
    assert second.attrs["summary"]["from_dataset"] == len(again)
    assert second.attrs["summary"]["ru"] == 0 and second["ru"].eq(0).all()
    assert second["cache_hit"].all()
    columns = ["node", "method", "params", "result", "value", "error"]
    pd.testing.assert_frame_equal(second[columns], first[columns])
    assert len(toolkit.read_dataset(tmp_path / "ds")) == len(again)  # no row twice


def test_a_run_stopped_by_the_budget_resumes_where_it_stopped(make_gateway, sandbox, tmp_path):
    gateway = make_gateway()
    work = mixed_workload(gateway)
    full_price = work.preview(fetch_heads=False).ru_high
    gateway.set_budget(gateway.ledger.total_ru + 20)
    stopped = work.run(progress=False, dataset=tmp_path / "ds", batch_size=1)
    refused = stopped["error"].eq("BudgetExceeded").fillna(False).to_numpy(bool)
    assert refused.any() and (~refused).sum() >= 10
    assert len(toolkit.read_dataset(tmp_path / "ds")) == (~refused).sum()  # refusals not written

    gateway.set_budget(None)
    resumed = work.run(progress=False, dataset=tmp_path / "ds", batch_size=1)
    assert resumed["error"].isna().all()
    assert resumed.attrs["summary"]["from_dataset"] == (~refused).sum()
    # each call paid for once over both runs, and the ledger is what the gateway metered
    assert stopped["ru"].sum() + resumed["ru"].sum() == full_price
    assert gateway.ledger.total_ru == metered_ru(sandbox)
    stored = toolkit.read_dataset(tmp_path / "ds")
    assert len(stored) == len(work) and not stored.duplicated(["node", "method", "params"]).any()


def test_an_interrupted_run_keeps_what_finished_and_the_next_run_sends_the_rest(
    make_gateway, sandbox, tmp_path
):
    gateway = make_gateway()
    eth = gateway.node("ethereum-mainnet")
    head = eth.head()
    work = Workload().grid(eth, "eth_getBalance", ADDRESSES, [head - 100 - i for i in range(6)])
    sandbox.faults.set(kind="latency", node="ethereum-mainnet", delay=0.02)

    class StopAfter:
        """A progress bar that interrupts the run after some calls, as the interrupt button
        does (the run is cancelled while calls are in flight)."""

        def __init__(self, task_box):
            self.seen, self.task_box = 0, task_box

        def update(self, count):
            self.seen += count
            if self.seen >= 15:
                self.task_box[0].cancel()

    async def interrupted():
        box = []
        bar = StopAfter(box)
        task = asyncio.ensure_future(
            work.arun(progress=bar, concurrency=4, batch_size=1, dataset=tmp_path / "ds")
        )
        box.append(task)
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(interrupted())
    sandbox.faults.clear()
    kept = toolkit.read_dataset(tmp_path / "ds")
    assert 15 <= len(kept) < len(work)
    assert kept["error"].isna().all()

    resumed = work.run(progress=False, dataset=tmp_path / "ds")
    assert resumed["error"].isna().all()
    assert resumed.attrs["summary"]["from_dataset"] == len(kept)
    stored = toolkit.read_dataset(tmp_path / "ds")
    assert len(stored) == len(work) and not stored.duplicated(["params"]).any()
    # sent-but-cancelled calls may have been billed: the ledger says so, and agrees with the
    # gateway's metering either way
    assert gateway.ledger.counted_ru == metered_ru(sandbox)


def test_a_failed_call_is_sent_again_and_keeps_one_row(make_gateway, sandbox, tmp_path):
    gateway = make_gateway()
    tron = gateway.node("tron-mainnet")
    from toolkit.examples import examples

    ambiguous = examples(gateway).tron.ambiguous_name
    work = Workload().add(tron, "wallet/getassetissuebyname", value=ambiguous, visible=True)
    work.add(tron, "wallet/getassetissuebyid", value="1000001")
    first = work.run(progress=False, dataset=tmp_path / "ds")
    assert first["error"].notna().tolist() == [True, False]
    assert toolkit.read_dataset(tmp_path / "ds")["error"].notna().sum() == 1

    before = metered_ru(sandbox)
    second = work.run(progress=False, dataset=tmp_path / "ds")
    assert metered_ru(sandbox) == before + 1  # only the failed call went out again
    assert second["ru"].tolist() == [1, 0]
    stored = toolkit.read_dataset(tmp_path / "ds")
    assert len(stored) == 2 and stored["error"].notna().sum() == 1


def test_a_call_planned_twice_has_two_rows(make_gateway, sandbox, tmp_path):
    gateway = make_gateway()
    eth = gateway.node("ethereum-mainnet")
    block = eth.head() - 50
    work = Workload().grid(eth, "eth_getBalance", [ADDRESSES[0]] * 2 + [ADDRESSES[1]], [block])
    work.run(progress=False, dataset=tmp_path / "ds")
    assert len(toolkit.read_dataset(tmp_path / "ds")) == 3
    longer = Workload().grid(eth, "eth_getBalance", [ADDRESSES[0]] * 3, [block])
    frame = longer.run(progress=False, dataset=tmp_path / "ds")
    assert frame["ru"].tolist() == [0, 0, 1]  # the third copy had no row yet
    assert len(toolkit.read_dataset(tmp_path / "ds")) == 4


def test_dask_reads_the_same_rows(make_gateway, tmp_path):
    pytest.importorskip("dask.dataframe")
    gateway = make_gateway()
    frame = mixed_workload(gateway).run(progress=False, dataset=tmp_path / "ds", rows_per_file=9)
    lazy = toolkit.read_dataset(tmp_path / "ds", engine="dask")
    assert lazy.npartitions == len(list((tmp_path / "ds").rglob("*.parquet")))
    pd.testing.assert_frame_equal(by_call(lazy.compute().drop(columns="gateway")), by_call(frame))
    totals = lazy[lazy["method"] == "eth_getBalance"]["ru"].sum().compute()
    assert totals == frame.loc[frame["method"] == "eth_getBalance", "ru"].sum()


def test_a_dataset_that_cannot_be_written_warns_and_the_results_stay(make_gateway, tmp_path):
    gateway = make_gateway()
    eth = gateway.node("ethereum-mainnet")
    work = Workload().grid(eth, "eth_getBalance", ADDRESSES[:3], [eth.head() - 10])
    blocked = tmp_path / "ds"
    blocked.mkdir()
    (blocked / "node=ethereum-mainnet").write_text("a file where a folder must go")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = work.run(progress=False, dataset=blocked)
    assert frame["error"].isna().all() and len(frame) == 3
    assert any("could not be written" in str(w.message) for w in caught)


def test_bad_dataset_arguments_are_refused(tmp_path, make_gateway):
    with pytest.raises(toolkit.ValidationError, match="engine"):
        toolkit.read_dataset(tmp_path, engine="spark")
    with pytest.raises(FileNotFoundError):
        toolkit.read_dataset(tmp_path / "missing")
    gateway = make_gateway()
    eth = gateway.node("ethereum-mainnet")
    work = Workload().add(eth, "eth_blockNumber")
    with pytest.raises(toolkit.ValidationError, match="rows_per_file"):
        work.run(progress=False, dataset=tmp_path / "ds", rows_per_file=0)
    assert json.loads(work.run(progress=False)["params"][0]) == []


def test_the_journal_holds_no_key_a_node_quotes_in_its_answers(tmp_path, monkeypatch):
    """The journal is what a crash leaves of a run (here it is kept, as after a crash): a key
    that a node quoted in a result is scrubbed there as in the part files."""
    from tests.client.conftest import LoopbackServer
    from toolkit.workloads._dataset_files import RowJournal

    key = "JournalEchoKey0a1b2c3d4e5f"

    def answer(request):
        calls = json.loads(request[3])
        answers = []
        for call in calls if isinstance(calls, list) else [calls]:
            block = {"number": "0x1", "transactions": [], "extraNote": request[1]}
            result = "0x100" if call["method"] == "eth_blockNumber" else block
            answers.append({"jsonrpc": "2.0", "id": call["id"], "result": result})
        body = answers if isinstance(calls, list) else answers[0]
        return 200, {"Content-Type": "application/json"}, json.dumps(body).encode()

    server = LoopbackServer(answer)
    monkeypatch.setattr(RowJournal, "discard", RowJournal.close)
    eth = toolkit.node(f"{server.url}/{key}", chain="ethereum", cache=False)
    work = Workload().each(eth, "eth_getBlockByNumber", [1, 2], param="block")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the part files' own "written as ***"
        frame = work.run(progress=False, dataset=tmp_path / "ds")
    eth.close()
    server.close()
    assert frame["error"].isna().all()
    (journal,) = (tmp_path / "ds").glob("_journal/*.jsonl")
    assert '"extraNote":"/***"' in journal.read_text()
    assert key not in journal.read_text()
