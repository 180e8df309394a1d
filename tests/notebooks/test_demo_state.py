"""After Run All, the interactive notebook leaves its explorer and its workload builders ready for a
room: a valid form, Run enabled, a result on show (it once ended on the error demo: a refused form
and Run disabled). Each widget shows what the prose under it says: the ETH builder its balances
(the TRON run has a builder of its own), the ledger view its own gateway's budget."""

import json

import pytest

from tests.notebooks.kernel import ROOT, execute

NOTEBOOK = ROOT / "notebooks" / "06_interactive_explorer.ipynb"

pytestmark = pytest.mark.notebooks

STATE = """
import json
m = explorer.methods
print(json.dumps({
    "method": m.method.name if m.method else None,
    "can_run": m.bound is not None and not m.run_button.disabled,
    "has_result": m.frame is not None and len(m.frame) > 0,
    "error": None if m.error is None else type(m.error).__name__,
    "builder": shown(builder),
    "fees": shown(fees),
    "ledger_budget": None if ledger.meter.budget is None else ledger.meter.budget.limit,
    "ledger_spent": ledger.meter.ledger.total_ru,
}))
"""
SHOWN = """
def shown(b):
    return {
        "method": b.method_picker.value,
        "can_run": b.workload is not None and not b.run_button.disabled,
        "problems": b.problems,
        "has_result": b.frame is not None and len(b.frame) > 0,
        "has_figure": b.figure is not None,
        "error": None if b.error is None else type(b.error).__name__,
    }
"""


@pytest.mark.timeout(240)
def test_run_all_leaves_the_explorer_and_the_builder_ready_for_the_room():
    notebook = execute(NOTEBOOK, extra_cells=[SHOWN, STATE])
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
