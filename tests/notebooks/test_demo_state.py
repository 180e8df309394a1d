"""After Run All, the interactive notebook leaves its explorer and its workload builders ready for a
room: a valid form, Run enabled, a result on show (it once ended on the error demo: a refused form
and Run disabled). Each widget shows what the prose under it says: the ETH builder its balances
(the TRON run has a builder of its own), the ledger view its own gateway's budget."""

import json

import pytest

from tests.notebooks.kernel import ROOT, SECONDS_PER_NOTEBOOK

NOTEBOOK = ROOT / "notebooks" / "06_interactive_explorer.ipynb"

pytestmark = pytest.mark.notebooks


@pytest.mark.timeout(SECONDS_PER_NOTEBOOK)
def test_run_all_leaves_the_explorer_and_the_builder_ready_for_the_room(executed_again):
    """What the notebook's second run shows after Run All (kernel.py's `AFTER_RUN_ALL` cells:
    `SHOWN`, then `STATE`, which prints the state)."""
    notebook = executed_again(NOTEBOOK)
    printed = "".join(o.get("text", "") for o in notebook.cells[-1].outputs)
    state = json.loads(printed)
    ready = {"can_run": True, "problems": {}, "has_result": True, "has_figure": True, "error": None}
    assert state == {
        "method": "wallet/getblockbylatestnum",
        "can_run": True,
        "has_result": True,
        "error": None,
        "builder": {**ready, "method": "eth_getBalance"},
        "fees": {**ready, "method": "wallet/gettransactioninfobyblocknum"},
        "ledger_budget": 4,  # "3 RU more than it has spent": its one TON call, 1 RU
        "ledger_spent": 1,
    }
