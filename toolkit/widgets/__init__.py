"""Interactive widgets (ipywidgets) over the catalog, the clients, pricing and frames.

    import toolkit.widgets
    toolkit.widgets.explorer()              # picker + methods + RU ledger, on the sandbox
    toolkit.widgets.workload_builder()      # many calls planned, previewed, run and plotted

The pieces work on their own too:

    from toolkit.widgets import LedgerView, MethodExplorer, NodePicker

    gw = toolkit.connect()
    picker = NodePicker(gw)                 # the organization's nodes; picker.node is a client
    methods = MethodExplorer(gw.node("ethereum-mainnet"))
    ledger = LedgerView(gw.meter)           # latest calls, totals, budget

Every form comes from the catalog (`Method.params`) and is checked by the catalog
(`Method.bind`); the RU preview is `node.estimate`; results go through `toolkit.frames` and
`toolkit.plots`. Nothing on screen carries a node URL or key: nodes are shown by name.
"""

from ._builder import WorkloadBuilder, workload_builder
from ._examples import sandbox_examples
from ._explorer import Explorer, explorer
from ._form import ParamForm
from ._ledger_view import LedgerView
from ._method import MethodExplorer
from ._picker import NodePicker
from ._results import Presentation, present

__all__ = [
    "Explorer",
    "LedgerView",
    "MethodExplorer",
    "NodePicker",
    "ParamForm",
    "Presentation",
    "WorkloadBuilder",
    "explorer",
    "present",
    "sandbox_examples",
    "workload_builder",
]
