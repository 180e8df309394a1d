"""TRON fee plots, from the frame of `toolkit.frames.tron_transaction_infos`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ._figure import Plot, format_axis, new_axes, require_columns, show_no_data

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

_FRAME = "toolkit.frames.tron_transaction_infos"
# Up to this many blocks get one bar each; more blocks read better as a line.
_MAX_BARS = 60


def plot_fees_per_block(transactions: pd.DataFrame, ax: Axes | None = None) -> Plot:
    """Total fee in TRX of each block: bars for a few blocks, a line for many.

    Needs the columns block_number and fee_trx. Missing fees count as 0 (TRON omits zero fees).
    Returns (figure, axes); draws on `ax` when given.
    """
    require_columns(transactions, ("block_number", "fee_trx"), _FRAME)
    fig, ax = new_axes(ax)
    known = transactions.dropna(subset=["block_number"])
    if known.empty:
        show_no_data(ax)
        return Plot(fig, ax)
    totals = known.groupby("block_number")["fee_trx"].sum().sort_index()
    blocks = totals.index.to_numpy(dtype=np.int64)
    if len(totals) <= _MAX_BARS:
        ax.bar(blocks, totals.to_numpy(), width=0.8, color="tab:red")
    else:
        ax.plot(blocks, totals.to_numpy(), color="tab:red", linewidth=1.2)
    ax.set_title("TRON fees per block")
    ax.set_xlabel("Block number")
    ax.set_ylabel("Total fee (TRX)")
    format_axis(ax.xaxis, integer=True)
    format_axis(ax.yaxis)
    ax.grid(axis="y", alpha=0.3)
    return Plot(fig, ax)


def plot_fee_distribution(
    transactions: pd.DataFrame, ax: Axes | None = None, *, bins: int = 40
) -> Plot:
    """Histogram of the fee per transaction in TRX, on a log scale when fees span decades.

    Needs the column fee_trx; transactions without a fee are counted in a note, not plotted
    (a log scale has no place for zero). Returns (figure, axes).
    """
    require_columns(transactions, ("fee_trx",), _FRAME)
    fig, ax = new_axes(ax)
    fees = transactions["fee_trx"].to_numpy(dtype=float, na_value=np.nan)
    paid = fees[fees > 0]
    free = len(fees) - len(paid)
    if len(paid) == 0:
        show_no_data(ax, "No transaction paid a fee")
        return Plot(fig, ax)
    low, high = paid.min(), paid.max()
    logarithmic = high / low > 100
    bins = min(bins, max(5, len(paid)))  # a handful of fees should not become hairline bars
    edges = np.geomspace(low, high, bins + 1).tolist() if logarithmic else bins
    ax.hist(paid, bins=edges, color="tab:red", edgecolor="white", linewidth=0.4)
    if logarithmic:
        ax.set_xscale("log")
    ax.set_title("TRON fee per transaction")
    ax.set_xlabel("Fee (TRX, log scale)" if logarithmic else "Fee (TRX)")
    ax.set_ylabel("Transactions")
    format_axis(ax.xaxis)
    format_axis(ax.yaxis, integer=True)
    if free:
        ax.set_ylim(0, ax.get_ylim()[1] * 1.15)  # room for the note above the bars
        note = f"{free:,} transaction{'s' if free != 1 else ''} without a fee not shown"
        ax.text(0.99, 0.97, note, ha="right", va="top", transform=ax.transAxes, color="0.35")
    ax.grid(axis="y", alpha=0.3)
    return Plot(fig, ax)
