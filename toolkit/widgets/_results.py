"""A call's result on screen: the `toolkit.frames` function that fits it, and a plot where one does.

The frame function is picked by the catalog's result kind (`Method.result`), or by the method's
name where the kind alone does not say enough (``text`` is a client version or a block dump) or the
frame needs the call's arguments (a balance needs its address and block). Results no frame function
covers (a hex quantity, return data) become a one-row frame of the raw value.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets
import pandas as pd

from .. import frames, plots
from ..catalog import BLOCK_TAGS, BoundCall, is_block_hash
from ._html import frame_table

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@dataclass(frozen=True)
class Presentation:
    """Captioned frames (the first is the main one) and an optional figure."""

    tables: tuple[tuple[str, pd.DataFrame], ...]
    figure: Figure | None = None

    @property
    def frame(self) -> pd.DataFrame:
        return self.tables[0][1]


Presenter = Callable[[BoundCall, Any], Presentation]


def _balance(bound: BoundCall, result: Any) -> Presentation:
    block = bound.arguments["block"]
    if isinstance(block, dict):  # EIP-1898's {"blockNumber": ...} names one; {"blockHash"} not
        block = block.get("blockNumber")
    # A tag or a block hash names no block number; the frame's block column is then NA (the
    # ledger has the time).
    number = None if block is None or block in BLOCK_TAGS or is_block_hash(block) else block
    frame = frames.evm_balances([(bound.arguments["address"], number, result)])
    return Presentation((("Balance", frame),))


def _root_hash(bound: BoundCall, result: Any) -> Presentation:
    arguments = bound.arguments
    frame = frames.evm_root_hashes([(arguments["from"], arguments["to"], result)])
    return Presentation((("Root hash", frame),))


def _print_block(bound: BoundCall, result: Any) -> Presentation:
    return Presentation((("Block header", frames.evm_printed_blocks(result)),))


def _simulation(bound: BoundCall, result: Any) -> Presentation:
    logs = frames.solana_simulation_logs(result)
    tables = [
        ("Simulation", frames.solana_simulation_summary(result)),
        ("Logs", logs),
        ("SOL balances", frames.solana_simulation_balances(result)),
    ]
    inner = frames.solana_simulation_inner_instructions(result)
    if len(inner):
        tables.append(("Inner instructions", inner))
    figure = plots.plot_compute_units(logs)[0] if len(logs) else None
    return Presentation(tuple(tables), figure)


def _transaction_infos(bound: BoundCall, result: Any) -> Presentation:
    infos = frames.tron_transaction_infos(result)
    figure = plots.plot_fee_distribution(infos)[0] if len(infos) else None
    return Presentation((("Transactions", infos),), figure)


def _platform_nodes(bound: BoundCall, result: Any) -> Presentation:
    nodes = frames.platform_nodes(result)
    return Presentation((("Nodes", nodes),), plots.plot_nodes(nodes)[0])


def _tables(*captioned: tuple[str, Callable[[Any], pd.DataFrame]]) -> Presenter:
    """A presenter of one captioned frame per frame function, the first the main one."""

    def present(bound: BoundCall, result: Any) -> Presentation:
        return Presentation(tuple((caption, function(result)) for caption, function in captioned))

    return present


def _raw(bound: BoundCall, result: Any) -> Presentation:
    """A value no frame function covers, as one row; hex quantities also as an exact int."""
    row: dict[str, Any] = {"method": bound.method.name, "result": result}
    if bound.method.result == "quantity":
        row["value"] = frames.quantity(result)
    frame = pd.DataFrame([row]).astype({"method": "string"})
    return Presentation((("Result", frame),))


_TRON_BLOCKS = _tables(
    ("Blocks", frames.tron_blocks), ("Transactions", frames.tron_block_transactions)
)
BY_NAME: dict[str, Presenter] = {
    "eth_getBalance": _balance,
    "bor_getRootHash": _root_hash,
    "debug_printBlock": _print_block,
}
BY_RESULT_KIND: dict[str, Presenter] = {
    "simulation": _simulation,
    "asset-issue": _tables(("Asset", frames.tron_asset_issues)),
    "asset-issue-list": _tables(("Assets", frames.tron_asset_issues)),
    "transaction-info-list": _transaction_infos,
    "block-list": _TRON_BLOCKS,
    "tron-block": _TRON_BLOCKS,
    "tron-account": _tables(
        ("Account", frames.tron_account), ("TRC-10 holdings", frames.tron_account_assets)
    ),
    "tron-node-info": _tables(("Node", frames.tron_node_info), ("Peers", frames.tron_node_peers)),
    "evm-block": _tables(
        ("Block", frames.evm_blocks), ("Transactions", frames.evm_block_transactions)
    ),
    "log-list": _tables(("Logs", frames.evm_logs)),
    "unsigned-transaction": _tables(("Unsigned transaction", frames.tron_transaction)),
    "token-data": _tables(("Token", frames.ton_token_data)),
    "masterchain-info": _tables(("Masterchain head", frames.ton_masterchain_info)),
    "address-forms": _tables(("Address forms", frames.ton_address_forms)),
    "node-page": _platform_nodes,
}


def present(bound: BoundCall, result: Any) -> Presentation:
    """Frames (and a figure) for the result of `bound`."""
    method = bound.method
    presenter = BY_NAME.get(method.name) or BY_RESULT_KIND.get(method.result) or _raw
    return presenter(bound, result)


def figure_png(figure: Figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=96, bbox_inches="tight")
    return buffer.getvalue()


def run_button() -> widgets.Button:
    """The Run button of a widget that shows a `ResultView` (class ``toolkit-run``)."""
    button = widgets.Button(description="Run", icon="play", button_style="primary", disabled=True)
    button.add_class("toolkit-run")
    return button


class ResultView(widgets.VBox):
    """Where a result appears: a headline, the frames as tables, the figure as an image."""

    def __init__(self) -> None:
        self.headline = widgets.HTML()
        self.tables = widgets.HTML()
        self.tables.add_class("toolkit-tables")  # the stylesheet lets its tables scroll
        self.image = widgets.Image(
            format="png", layout=widgets.Layout(display="none", max_width="min(640px, 100%)")
        )
        self.presentation: Presentation | None = None
        super().__init__([self.headline, self.tables, self.image])
        self.add_class("toolkit-result")

    def show(self, headline_html: str, presentation: Presentation) -> None:
        self.presentation = presentation
        self.headline.value = headline_html
        self.tables.value = "".join(
            frame_table(frame, caption=caption) for caption, frame in presentation.tables
        )
        if presentation.figure is not None:
            self.image.value = figure_png(presentation.figure)
            self.image.layout.display = ""
        else:
            self._hide_image()

    def show_message(self, html: str) -> None:
        self.presentation = None
        self.headline.value = html
        self.tables.value = ""
        self._hide_image()

    def _hide_image(self) -> None:
        self.image.value = b""
        self.image.layout.display = "none"
