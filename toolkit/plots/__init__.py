"""Plots of the toolkit's frames, drawn with matplotlib.

Every function takes a DataFrame from `toolkit.frames` (or the RU ledger) and returns
``(figure, axes)``; those that take an `ax` draw on it instead of making a figure. The pair (a
`Plot`) shows its figure when it is the last expression of a notebook cell, as ``df.plot()`` does.
Figures are made without pyplot, so nothing is shown or kept globally otherwise: display the
returned figure, or save it with ``figure.savefig(...)``. matplotlib is imported only when a plot
is drawn. A frame missing the columns a plot needs raises ValueError naming them. `add_caption`
writes a source line (a provenance caption) at the foot of a figure.
"""

from ._evm import plot_balances
from ._evm_blocks import plot_base_fee, plot_block_gas, plot_blocks
from ._figure import add_caption
from ._ledger import plot_cumulative_ru, plot_ru_by_method, plot_ru_ledger
from ._platform import plot_node_counts, plot_nodes
from ._solana import plot_compute_units, plot_log_timeline
from ._tron import plot_fee_distribution, plot_fees_per_block

__all__ = [
    "add_caption",
    "plot_balances",
    "plot_base_fee",
    "plot_block_gas",
    "plot_blocks",
    "plot_compute_units",
    "plot_cumulative_ru",
    "plot_fee_distribution",
    "plot_fees_per_block",
    "plot_log_timeline",
    "plot_node_counts",
    "plot_nodes",
    "plot_ru_by_method",
    "plot_ru_ledger",
]
