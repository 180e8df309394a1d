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
`toolkit.plots`. `static_html(widget)` draws a widget as it is now, with no script, for a page
with no kernel (a rendered report). Nothing on screen carries a node URL or key: nodes are shown
by name.
"""

from ._builder import WorkloadBuilder, workload_builder
from ._examples import sandbox_examples
from ._explorer import Explorer, explorer
from ._form import ParamForm
from ._ledger_view import LedgerView
from ._method import MethodExplorer
from ._picker import NodePicker
from ._results import Presentation, present
from ._static import snapshots, static_html

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
    "snapshots",
    "static_html",
    "workload_builder",
]
