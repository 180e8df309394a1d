"""`Explorer`: the node picker, the method explorer and the RU ledger, wired together.

Picking a node hands its client to the method explorer; every billed request refreshes the ledger.
Against the embedded sandbox the forms start filled with working demo inputs.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets

from ._examples import gateway_examples
from ._html import STYLE, text
from ._ledger_view import LedgerView
from ._method import MethodExplorer
from ._picker import NodePicker
from ._shown import ShownOnce, show_widget


class Explorer(ShownOnce, widgets.VBox):
    """Everything in one widget: `picker`, `methods`, `ledger`. `gw` is a `toolkit.Gateway`."""

    def __init__(self, gw: Any, *, node: str | None = None):
        self.gw = gw
        where = "the embedded sandbox" if gw.sandbox is not None else "your gateway"
        examples = gateway_examples(gw)
        self.picker = NodePicker(gw)
        self.methods = MethodExplorer(examples=examples)
        self.ledger = LedgerView(gw.meter)
        title = widgets.HTML(
            f'{STYLE}<div class="tk-title" style="font-size:17px">Node gateway explorer</div>'
            f'<div class="tk-muted">Connected to {text(where)}. Pick a node, then a method; '
            "the cost in request units (RU) is shown before you run it.</div>"
        )
        # Side by side when the output area holds both panels, stacked when it does not: the row
        # wraps (it measures the widget's own box, not the window), so a laptop with the file
        # browser open gets full-width panels instead of a 276 px method panel. The picker keeps
        # its list's width; the method panel takes the rest and wraps below 440 px, where its
        # labels beside inputs would get cramped. `min_width=0` lets a panel be narrower than
        # its widest table, which then scrolls in its own box (see `frame_table`).
        self.picker.layout = widgets.Layout(flex="0 1 540px", min_width="0", margin="0 16px 8px 0")
        self.methods.layout = widgets.Layout(flex="1 1 440px", min_width="0")
        panels = widgets.HBox(
            [self.picker, self.methods], layout=widgets.Layout(flex_flow="row wrap")
        )
        panels.add_class("toolkit-panels")
        super().__init__(
            [title, panels, self.ledger],
            layout=widgets.Layout(width="100%", max_width="100%", padding="4px 8px"),
        )
        self.add_class("toolkit-explorer")
        self.picker.on_pick(self._use_node)
        self.methods.on_ledger_change(self.ledger.refresh)
        if node is not None:
            self.picker.pick(node)
        self.ledger.refresh()  # listing the nodes is a (0 RU) platform call in the ledger

    def __repr__(self) -> str:
        # ipywidgets' repr lists every child's state (kilobytes of HTML and CSS): a summary instead.
        node = self.methods.node
        where = "embedded sandbox" if self.gw.sandbox is not None else "gateway"
        picked = f", node {node.name}" if node is not None else ", no node picked"
        method = self.methods.method_picker.value if node is not None else None
        return f"<Explorer on the {where}{picked}{f', method {method}' if method else ''}>"

    def _use_node(self, client: Any) -> None:
        self.methods.node = client
        self.ledger.refresh()


def explorer(gw: Any = None, *, node: str | None = None, show: bool = True) -> Explorer:
    """Display the combined explorer for `gw` (the embedded sandbox when None) and return it.

    `node` picks a node by name at the start. With ``show=False`` nothing is displayed.
    """
    if gw is None:
        from .. import connect

        gw = connect()
    return show_widget(Explorer(gw, node=node), show)
