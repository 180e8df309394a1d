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
