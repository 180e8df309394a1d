"""Balance plots, from the frame of `toolkit.frames.evm_balances`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._figure import Plot, format_axis, new_axes, require_columns, short_label, show_no_data

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

# With few points per line, markers show where the measurements are.
_MAX_MARKED_POINTS = 30


def plot_balances(balances: pd.DataFrame, ax: Axes | None = None) -> Plot:
    """Balance in ETH over block number, one line per address.

    Needs the columns address, block and eth. Returns (figure, axes); draws on `ax` when given.
    """
    require_columns(balances, ("address", "block", "eth"), "toolkit.frames.evm_balances")
    fig, ax = new_axes(ax)
    known = balances.dropna(subset=["address", "block"]).sort_values("block")
    if known.empty:
        show_no_data(ax)
        return Plot(fig, ax)
    for address, points in known.groupby("address", sort=True):
        marker = "o" if len(points) <= _MAX_MARKED_POINTS else None
        blocks = points["block"].to_numpy(dtype="int64")
        ax.plot(blocks, points["eth"].to_numpy(), marker=marker, label=short_label(address))
    ax.set_title("Balance by block")
    ax.set_xlabel("Block number")
    ax.set_ylabel("Balance (ETH)")
    format_axis(ax.xaxis, integer=True)
    format_axis(ax.yaxis)
    ax.grid(alpha=0.3)
    ax.legend(title="Address", fontsize="small")
    return Plot(fig, ax)
