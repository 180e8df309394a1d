"""Block plots, from the frame of `toolkit.frames.evm_blocks`: how full each block was, and the
base fee it set."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ._figure import (
    PANELS_SIZE,
    Plot,
    format_axis,
    letter_panel,
    new_axes,
    new_figure,
    require_columns,
    show_no_data,
)

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

_FRAME = "toolkit.frames.evm_blocks"
_GWEI = 10**9
# Up to this many blocks get one bar each; more blocks read better as a line.
_MAX_BARS = 60


def _known_blocks(blocks: pd.DataFrame, columns: tuple[str, ...]) -> pd.DataFrame:
    """The blocks with a number, in block order, each once (a run may fetch a block twice)."""
    require_columns(blocks, ("number", *columns), _FRAME)
    known = blocks.dropna(subset=["number"]).drop_duplicates(subset="number", keep="last")
    return known.sort_values("number")


def plot_block_gas(blocks: pd.DataFrame, ax: Axes | None = None) -> Plot:
    """Gas used by each block against its gas limit: bars (a line for many blocks) of the gas
    used, the limit as a line above them.

    Needs the columns number, gas_used and gas_limit. Returns (figure, axes); draws on `ax` when
    given.
    """
    known = _known_blocks(blocks, ("gas_used", "gas_limit"))
    fig, ax = new_axes(ax)
    if known.empty:
        show_no_data(ax)
        return Plot(fig, ax)
    numbers = known["number"].to_numpy(dtype=np.int64)
    used = known["gas_used"].to_numpy(dtype=float, na_value=np.nan)
    limit = known["gas_limit"].to_numpy(dtype=float, na_value=np.nan)
    if len(known) <= _MAX_BARS:
        ax.bar(numbers, used, width=0.8, color="tab:blue", label="Gas used")
        ax.step(numbers, limit, where="mid", color="tab:orange", label="Gas limit")
    else:
        ax.plot(numbers, used, color="tab:blue", linewidth=1.0, label="Gas used")
        ax.plot(numbers, limit, color="tab:orange", linewidth=1.2, label="Gas limit")
    ax.set_ylim(0, np.nanmax(np.concatenate([used, limit, [1.0]])) * 1.1)
    ax.set_title("Gas used and gas limit per block")
    ax.set_xlabel("Block number")
    ax.set_ylabel("Gas")
    format_axis(ax.xaxis, integer=True)
    format_axis(ax.yaxis, integer=True)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize="small", loc="best")
    return Plot(fig, ax)


def plot_base_fee(blocks: pd.DataFrame, ax: Axes | None = None) -> Plot:
    """The base fee of each block in gwei (EIP-1559), as a line with a point per block.

    Needs the columns number and base_fee_wei. Blocks without a base fee (before London, or a
    chain without one) are counted in a note, not plotted. Returns (figure, axes); draws on `ax`
    when given.
    """
    known = _known_blocks(blocks, ("base_fee_wei",))
    fig, ax = new_axes(ax)
    with_fee = known.dropna(subset=["base_fee_wei"])
    if with_fee.empty:
        show_no_data(ax, "No block has a base fee" if len(known) else "No data to plot")
        return Plot(fig, ax)
    numbers = with_fee["number"].to_numpy(dtype=np.int64)
    # Exact ints in wei, divided as ints first: a float of a wei amount loses its last digits.
    gwei = np.array([fee // _GWEI + (fee % _GWEI) / _GWEI for fee in with_fee["base_fee_wei"]])
    marker = "o" if len(with_fee) <= _MAX_BARS else None
    ax.plot(numbers, gwei, color="tab:green", marker=marker, markersize=4, linewidth=1.2)
    ax.set_ylim(0, max(gwei.max() * 1.15, 1e-9))
    ax.set_title("Base fee per block")
    ax.set_xlabel("Block number")
    ax.set_ylabel("Base fee (gwei)")
    format_axis(ax.xaxis, integer=True)
    format_axis(ax.yaxis)
    ax.grid(alpha=0.3)
    without = len(known) - len(with_fee)
    if without:
        note = f"{without:,} block{'s' if without != 1 else ''} without a base fee not shown"
        ax.text(0.99, 0.03, note, ha="right", va="bottom", transform=ax.transAxes, color="0.35")
    return Plot(fig, ax)


def plot_blocks(blocks: pd.DataFrame) -> Plot:
    """`plot_block_gas` and `plot_base_fee` side by side: (figure, array of 2 axes), sized and
    lettered to be read at a notebook's width."""
    fig, axes = new_figure(2, size=PANELS_SIZE)
    plot_block_gas(blocks, axes[0])
    plot_base_fee(blocks, axes[1])
    from matplotlib.ticker import MaxNLocator

    for ax in axes:
        letter_panel(ax)
        # Half a figure's width holds four block numbers of eight digits, not six.
        ax.xaxis.set_major_locator(MaxNLocator(nbins=4, integer=True))
    return Plot(fig, axes)
