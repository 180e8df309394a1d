"""The client inside a real ipykernel (nbclient), where an event loop is already running.

The sync API must work with nothing for the user to do, and also after the user applied
nest-asyncio: the original 1.6 (archived, and what most notebooks have) or its maintained fork,
nest-asyncio2. The sandbox must start after either was applied (the original replaces
`asyncio.run` with one that lacks 3.12's `loop_factory`). The async API must work with top-level
await. `make test` runs this file on the newest other Python on the machine too (3.13 here).
"""

import sys

import nbformat
import pytest
from nbclient import NotebookClient

pytestmark = pytest.mark.notebooks

CONNECT = """
import asyncio, toolkit
gw = toolkit.connect()
eth = gw.node("ethereum-mainnet")
from toolkit.sandbox import DEMO
alice = DEMO.evm.accounts["alice"]
"""


def run_cells(*sources: str) -> list[dict]:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in sources]
    NotebookClient(notebook, timeout=120, kernel_name="python3").execute()
    return [cell.outputs for cell in notebook.cells]


def text_of(outputs: list[dict]) -> str:
    return "".join(o.get("text", "") or o.get("data", {}).get("text/plain", "") for o in outputs)


def test_sync_api_in_a_running_loop():
    outputs = run_cells(
        CONNECT,
        "asyncio.get_running_loop() is not None",  # the kernel's loop is running
        "eth.get_balance(alice) > 0 and eth.block_number() > 0",
        "import sys; sys.version_info[:2]",
    )
    assert text_of(outputs[1]) == "True" and text_of(outputs[2]) == "True"
    # The kernel runs the Python these tests run on (so the run on 3.13 tests a 3.13 kernel).
    assert text_of(outputs[3]) == str(sys.version_info[:2])


@pytest.mark.parametrize("package", ["nest_asyncio", "nest_asyncio2"])
def test_sync_api_after_nest_asyncio_apply(package):
    outputs = run_cells(
        f"import {package}; {package}.apply()",
        CONNECT,  # starts the sandbox after the patch
        "eth.get_balance(alice) > 0",
        "asyncio.get_event_loop().run_until_complete(eth.aio.block_number()) > 0",
        # Nested: the sync API, and a nested asyncio.run, inside a coroutine of the kernel's loop.
        "async def nested():\n"
        "    return eth.block_number() > 0 and asyncio.run(eth.aio.block_number()) > 0\n"
        "await nested()",
        "import toolkit.workloads\n"
        "work = toolkit.Workload().add(eth, 'eth_getBalance', alice, '0x1')\n"
        "bool(work.run(progress=False)['error'].isna().all())",
    )
    assert [text_of(out) for out in outputs[2:]] == ["True"] * 4


def test_top_level_await_on_the_async_api():
    outputs = run_cells(
        CONNECT,
        "balances = await asyncio.gather(*(eth.aio.get_balance(alice, block=b) "
        "for b in ('latest', 'safe', 'finalized')))\nall(b > 0 for b in balances)",
        "len(gw.ledger)",
    )
    assert text_of(outputs[1]) == "True"
    assert int(text_of(outputs[2])) == 3
