"""Workload.run in a real ipykernel, whose event loop is running: it completes, with a progress
widget (tqdm.auto picks the notebook bar), and top-level ``await work.arun()`` works too."""

import nbformat
import pytest
from nbclient import NotebookClient

pytestmark = pytest.mark.notebooks

SETUP = """
import toolkit
from toolkit.workloads._workload import Workload
gw = toolkit.connect(sandbox=True)
eth = gw.node("ethereum-mainnet")
work = Workload().grid(eth, "eth_getBalance", [f"0x{i:040x}" for i in range(1, 51)], ["latest"])
"""


def test_run_and_arun_in_a_running_kernel():
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell(source)
        for source in (
            SETUP,
            "frame = work.run()\nlen(frame), int(frame['error'].notna().sum())",
            "again = await work.arun(progress=False)\nlen(again)",
        )
    ]
    NotebookClient(notebook, timeout=120, kernel_name="python3").execute()
    run_outputs, arun_outputs = notebook.cells[1].outputs, notebook.cells[2].outputs
    results = [
        o["data"]["text/plain"] for o in run_outputs if o.get("output_type") == "execute_result"
    ]
    assert results == ["(50, 0)"]
    widgets = [
        o for o in run_outputs if "application/vnd.jupyter.widget-view+json" in o.get("data", {})
    ]
    texts = "".join(o.get("text", "") for o in run_outputs)
    assert widgets or "50/50" in texts  # the notebook bar, or text where ipywidgets is missing
    assert [o["data"]["text/plain"] for o in arun_outputs if "data" in o] == ["50"]


STOPPABLE = """
import toolkit
gw = toolkit.connect(sandbox=True)
eth = gw.node("ethereum-mainnet")
accounts = [f"0x{i:040x}" for i in range(1, 401)]
work = toolkit.Workload().grid(eth, "eth_getBalance", accounts, ["latest"])
work.run(progress=False)  # warm: the sandbox, the client and its connections are up
gw.sandbox.reset_metering()
gw.sandbox.faults.set(kind="latency", node="ethereum-mainnet", delay=0.05)
"""

WHAT_WAS_KEPT = """
import json, time
time.sleep(0.5)  # requests given up on reach the sandbox's meter
kept = work.last_result
spent = kept["ru"] + kept["unconfirmed_ru"]
usage = gw.sandbox.metering()["ethereum-mainnet"]
print(json.dumps({
    "rows": len(kept),
    "finished": int(kept["error"].isna().sum()),
    "interrupted": int(kept["error"].eq("Interrupted").sum()),
    "went_out": int((spent > 0).sum()),
    "metered_calls": usage["calls"],
    "rows_ru": int(spent.sum()),
    "metered_ru": usage["ru"],
}))
"""


@pytest.mark.parametrize(
    ("cell", "raised", "frames"),
    [
        ("frame = work.run(concurrency=4, batch_size=1)", "RunStopped", 2),
        # A top-level await: the kernel cancels the cell's task, and asyncio code expects the
        # CancelledError itself; its note says what was kept.
        ("frame = await work.arun(concurrency=4, batch_size=1)", "CancelledError", 3),
    ],
    ids=["run", "arun"],
)
def test_the_stop_button_keeps_the_finished_rows_and_says_so_in_a_few_lines(cell, raised, frames):
    import json
    import re

    from tests.notebooks.kernel import Kernel

    with Kernel(seconds=120) as kernel:
        assert not [o for o in kernel.run(STOPPABLE) if o["msg_type"] == "error"]
        # 400 calls, 4 at a time, each answered 50 ms late: about 5 s; stopped 1 s in.
        outputs = kernel.run(cell, interrupt_after=1)
        [error] = [o for o in outputs if o["msg_type"] == "error"]
        kept = json.loads(
            next(o["text"] for o in kernel.run(WHAT_WAS_KEPT) if o["msg_type"] == "stream")
        )
    assert error["ename"] == raised
    assert 0 < kept["finished"] < kept["rows"] == 400
    assert kept["finished"] + kept["interrupted"] == 400
    shown = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(error["traceback"]))
    said = (
        f"stopped after {kept['finished']} of 400 calls; {kept['finished']} rows kept in "
        "work.last_result;"
    )
    assert said in shown.splitlines()[-1]
    # The rows say what the gateway metered: each call that went out, paid or maybe paid.
    assert kept["went_out"] == kept["metered_calls"] > kept["finished"]
    assert kept["rows_ru"] == kept["metered_ru"]
    # Short: the cell and the toolkit's own frames, nothing of the threads the run waited in
    # or of asyncio's insides.
    for inside in ("threading", "concurrent", "_loop.py", "asyncio/"):
        assert inside not in shown, shown
    assert shown.count("File ") + shown.count("Cell In") == frames
    assert len(shown.splitlines()) <= 25, shown
    assert not [o for o in outputs if o["msg_type"] == "stream" and "Traceback" in o["text"]]


def test_notebook_08s_run_again_after_the_budget_shows_failures_and_warns(executed_again):
    """Its `work.run()` cell run again once the budget is spent: every call refused (the cell
    `RUN_AGAIN`, typed after Run All on the notebook's second run)."""
    from tests.notebooks.kernel import NOTEBOOKS, RUN_AGAIN

    path = next(p for p in NOTEBOOKS if p.name.startswith("08_"))
    notebook = executed_again(path)
    assert notebook.cells[-1].source == RUN_AGAIN
    first = next(c for c in notebook.cells if c.source.startswith("results = work.run("))
    again = notebook.cells[-1]
    state = notebook.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]

    def bar(cell) -> tuple[str, str | None]:
        """The text right of the cell's progress bar, and the bar's colour."""
        [view] = [
            o["data"]["application/vnd.jupyter.widget-view+json"]["model_id"]
            for o in cell.outputs
            if "application/vnd.jupyter.widget-view+json" in o.get("data", {})
        ]
        _, progress, right = (
            c.removeprefix("IPY_MODEL_") for c in state[view]["state"]["children"]
        )
        style = state[progress]["state"]["style"].removeprefix("IPY_MODEL_")
        return state[right]["state"]["value"], state[style]["state"].get("bar_color")

    assert "failed" not in bar(first)[0] and bar(first)[1] in (None, "")
    text, colour = bar(again)
    assert "not sent: budget" in text.replace("\u2007", " ") and colour == "red"
    warned = "".join(o.get("text", "") for o in again.outputs if o.get("name") == "stderr")
    assert "RuntimeWarning" in warned and "budget stopped the run" in warned
    assert "BudgetExceeded" in warned
