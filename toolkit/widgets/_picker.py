"""`NodePicker`: the organization's nodes from the platform API, and a client for the one picked.

The list is `gw.nodes(ordering=...)`, which follows the API's `next` links to the last page. Rows
show name, protocol, network, region and status, never an endpoint: node URLs carry access keys.
Only a `running` node yields a client; any other status is shown with the reason it cannot be used.

A typed access key leaves the password field at once, whatever is picked: a widget's value is
synced state, saved with the notebook. It waits in Python for the next running node picked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ipywidgets as widgets
import traitlets

from .._redact import register_secret
from ._html import STYLE, error_message, message, text

ORDERINGS = (
    ("name, A to Z", "name"),
    ("name, Z to A", "-name"),
    ("oldest first", "created_at"),
    ("newest first", "-created_at"),
)
RUNNING = "running"
_COLUMNS = (("name", 20), ("protocol", 12), ("network", 8), ("region", 14), ("status", 11))


def _row_label(record: dict[str, Any]) -> str:
    """One line per node, in fixed-width columns (the list is shown in a monospace font)."""
    marker = "●" if record.get("status") == RUNNING else "○"
    cells = [str(record.get(key) or "?").ljust(width) for key, width in _COLUMNS]
    return f"{marker} " + " ".join(cells).rstrip()


class NodePicker(widgets.VBox):
    """Lists the nodes of `gw` (a `toolkit.Gateway`; the sandbox when None) to pick one.

    `node` is the ready client of the picked node, or None while nothing usable is picked;
    observe it (``picker.observe(f, names="node")``) or pass a callback to `on_pick`.
    """

    node = traitlets.Any(None, allow_none=True)

    def __init__(self, gw: Any = None, *, ordering: str = "name"):
        if gw is None:
            from .. import connect

            gw = connect()
        self.gw = gw
        self.records: list[dict[str, Any]] = []
        self._reloading = False
        self._typed_key: str | None = None  # out of the synced widget state, see the module doc
        self.ordering = widgets.Dropdown(options=ORDERINGS, value=ordering, description="Order")
        # Never squeezed (a button cuts its text): in a narrow row the dropdown gives way.
        self.reload_button = widgets.Button(
            description="Reload", icon="refresh", layout=widgets.Layout(width="auto", flex="none")
        )
        header = " ".join(key.ljust(width) for key, width in _COLUMNS).rstrip()
        self.header = widgets.HTML(f'{STYLE}<div class="tk-list-header">  {text(header)}</div>')
        # "auto", not "100%": the widget's 2 px margins on top of 100% made the picker scroll
        # sideways by 4 px. In the picker's column an auto width stretches to fit.
        self.list = widgets.Select(options=[], rows=10, layout=widgets.Layout(width="auto"))
        self.list.add_class("toolkit-node-list")
        # A <select> cuts the ends of rows wider than itself, so in a narrow output area the
        # header and list keep their full width and scroll sideways together in their own box.
        full = widgets.Layout(min_width="max-content")
        self.header.layout, self.list.layout.min_width = full, "max-content"
        listing = widgets.VBox([self.header, self.list])  # a Box scrolls what overflows it
        listing.add_class("toolkit-node-listing")
        # A real platform may list endpoints without their access keys (they are issued in the
        # web console): then the key is typed here, used once, and cleared.
        self.key = widgets.Password(
            description="Access key",
            placeholder="only if the node's endpoint carries none; press Enter",
            continuous_update=False,
            layout=widgets.Layout(width="auto", display="none" if gw.sandbox is not None else ""),
        )
        self.count = widgets.HTML()
        self.message = widgets.HTML()
        self.message.add_class("toolkit-node-message")
        super().__init__(
            [
                widgets.HTML(f'{STYLE}<span class="tk-title">Nodes</span>'),
                widgets.HBox([self.ordering, self.reload_button]),
                listing,
                self.key,
                self.count,
                self.message,
            ]
        )
        self.add_class("toolkit-node-picker")
        self.ordering.observe(lambda _change: self.reload(), names="value")
        self.reload_button.on_click(lambda _button: self.reload())
        self.list.observe(self._row_clicked, names="value")
        self.key.observe(self._key_entered, names="value")
        self.reload()

    def __repr__(self) -> str:
        node = self.node
        return f"<NodePicker, {'node ' + node.name if node is not None else 'no node picked'}>"

    @property
    def selected(self) -> str | None:
        """The name of the picked node (running or not)."""
        return self.list.value

    @property
    def record(self) -> dict[str, Any] | None:
        """The platform's record of the picked node."""
        return next((r for r in self.records if r.get("name") == self.selected), None)

    def pick(self, name: str) -> None:
        """Pick a node by name, as clicking its row does."""
        if name not in {r.get("name") for r in self.records}:
            raise ValueError(f"no node named {name!r} in the list")
        self.list.value = name

    def on_pick(self, callback: Callable[[Any], None]) -> None:
        """Call `callback(client or None)` whenever the picked node changes."""
        self.observe(lambda change: callback(change["new"]), names="node")

    def reload(self) -> None:
        """Fetch the node list again (every page) in the chosen order; keep the pick if listed."""
        previous = self.list.value
        try:
            self.records = self.gw.nodes(ordering=self.ordering.value)
        except Exception as error:  # shown, not raised: a widget callback has no one to tell
            self.records = []
            self.message.value = error_message(error)
        names = [r.get("name") for r in self.records]
        # New options reset the selection; the pick is restored below, and judged once, so that
        # a reordering does not hand listeners a None and then the same client again.
        self._reloading = True
        self.list.options = [(_row_label(r), r.get("name")) for r in self.records]
        self.list.value = previous if previous in names else None
        self._reloading = False
        running = sum(r.get("status") == RUNNING for r in self.records)
        self.count.value = (
            f'<span class="tk-muted">{len(self.records)} nodes, {running} running '
            "(every page of the platform API)</span>"
        )
        self._picked()

    def _row_clicked(self, _change: dict[str, Any]) -> None:
        if not self._reloading:
            self._picked()

    def _key_entered(self, change: dict[str, Any]) -> None:
        if not change["new"]:  # the clearing below
            return
        self._typed_key = change["new"]
        register_secret(self._typed_key)
        self.key.value = ""
        self._picked()

    def _picked(self) -> None:
        record = self.record
        if record is None:
            self.node = None
            if self.records:
                kept = " The access key you typed is kept for it." if self._typed_key else ""
                self.message.value = message("info", "Pick a node." + kept)
            return
        name, status = record.get("name"), record.get("status")
        where = (
            f"{text(record.get('protocol'))} {text(record.get('network'))}, "
            f"{text(record.get('region'))} ({text(record.get('provider'))})"
        )
        if status != RUNNING:
            self.node = None
            self.message.value = message(
                "warn",
                f"<b>{text(name)}</b> is <b>{text(status)}</b>, not running: it cannot take "
                "calls until it is running again. Pick a running node (●).",
            )
            return
        key, self._typed_key = self._typed_key, None
        try:
            self.node = self.gw.node(name, key=key) if key else self.gw.node(name)
        except Exception as error:
            self.node = None
            self.message.value = error_message(error)
            return
        self.message.value = message("ok", f"<b>{text(name)}</b>: {where}, running.")
