"""The client inside a real ipykernel (nbclient), where an event loop is already running.

The sync API must work with nothing for the user to do, and also after the user applied
nest-asyncio (the maintained fork, nest-asyncio2); the async API must work with top-level await.
"""

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
    )
    assert text_of(outputs[1]) == "True" and text_of(outputs[2]) == "True"


def test_sync_api_after_nest_asyncio_apply():
    outputs = run_cells(
        "import nest_asyncio2; nest_asyncio2.apply()",
        CONNECT,
        "eth.get_balance(alice) > 0",
        "asyncio.get_event_loop().run_until_complete(eth.aio.block_number()) > 0",
    )
    assert text_of(outputs[2]) == "True" and text_of(outputs[3]) == "True"


def test_top_level_await_on_the_async_api():
    outputs = run_cells(
        CONNECT,
        "balances = await asyncio.gather(*(eth.aio.get_balance(alice, block=b) "
        "for b in ('latest', 'safe', 'finalized')))\nall(b > 0 for b in balances)",
        "len(gw.ledger)",
    )
    assert text_of(outputs[1]) == "True"
    assert int(text_of(outputs[2])) == 3
