"""Node counts by protocol and region, stacked by status, from `toolkit.frames.platform_nodes`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ._figure import (
    Plot,
    format_axis,
    new_axes,
    new_figure,
    require_columns,
    safe_text,
    show_no_data,
)

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

# Healthy green, transitional amber/blue, stopped grey, broken red.
NODE_STATUS_COLOURS = {
    "running": "#2ca02c",
    "starting": "#98df8a",
    "pending": "#ffbb78",
    "maintenance": "#1f77b4",
    "stopping": "#c5b0d5",
    "stopped": "#7f7f7f",
    "failed": "#d62728",
    "error": "#ff9896",
}
_UNKNOWN_COLOURS = ("#8c564b", "#e377c2", "#bcbd22", "#17becf")


def plot_node_counts(nodes: pd.DataFrame, by: str = "protocol", ax: Axes | None = None) -> Plot:
    """Number of nodes per value of `by` (protocol, region, provider...), stacked by status.

    Needs the columns `by` and status. Returns (figure, axes); draws on `ax` when given.
    """
    require_columns(nodes, (by, "status"), "toolkit.frames.platform_nodes")
    # A renamed key, so that `by="status"` does not group by the same column twice.
    group = nodes[by].astype("string").fillna("unknown").rename("group")
    counts = (
        nodes.groupby([group, nodes["status"]], observed=True)
        .size()
        .unstack("status", fill_value=0)
    )
    fig, ax = new_axes(ax, size=(7, max(2.5, 0.45 * len(counts) + 1.4)))
    if counts.empty:
        show_no_data(ax, "No nodes")
        return Plot(fig, ax)
    counts = counts.loc[counts.sum(axis=1).sort_values().index]  # most nodes at the top
    positions = np.arange(len(counts))
    left = np.zeros(len(counts))
    unknown = 0
    for status in counts.columns:
        colour = NODE_STATUS_COLOURS.get(str(status))
        if colour is None:
            colour, unknown = _UNKNOWN_COLOURS[unknown % len(_UNKNOWN_COLOURS)], unknown + 1
        values = counts[status].to_numpy(dtype=float)
        ax.barh(
            positions, values, left=left, color=colour, label=safe_text(str(status)), height=0.6
        )
        left += values
    ax.set_yticks(positions, [safe_text(str(label)) for label in counts.index])
    ax.set_title(f"Nodes by {by} ({int(left.sum()):,} nodes)")
    ax.set_xlabel("Nodes")
    format_axis(ax.xaxis, integer=True)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(title="Status", fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1))
    return Plot(fig, ax)


def plot_nodes(nodes: pd.DataFrame) -> Plot:
    """Nodes by protocol and by region, side by side: (figure, array of 2 axes)."""
    rows = max((nodes[c].nunique() for c in ("protocol", "region") if c in nodes), default=0)
    fig, axes = new_figure(2, size=(13, max(3.0, 0.45 * rows + 1.5)))
    plot_node_counts(nodes, "protocol", axes[0])
    plot_node_counts(nodes, "region", axes[1])
    return Plot(fig, axes)
