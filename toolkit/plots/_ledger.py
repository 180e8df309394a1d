"""Plots of the request-unit (RU) ledger: what the calls of a session cost.

The ledger frame has the columns time (UTC), node (redacted), method, ru, latency_s, status,
retries and cache_hit; these plots use time, method, ru and status.
"""

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
    safe_text,
    show_no_data,
)

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

_LEDGER = "the RU ledger"
STATUS_COLOURS = {"ok": "tab:green", "error": "tab:red"}
_OTHER_COLOURS = ("tab:orange", "tab:purple", "tab:brown", "tab:gray", "tab:olive")


def status_colours(statuses) -> dict[str, str]:
    """A colour for each status: ok green, error red, the rest from a fixed palette."""
    others = [s for s in statuses if s not in STATUS_COLOURS]
    extra = {s: _OTHER_COLOURS[i % len(_OTHER_COLOURS)] for i, s in enumerate(others)}
    return {**STATUS_COLOURS, **extra}


SHORT_SESSION_S = 120


def plot_cumulative_ru(ledger: pd.DataFrame, ax: Axes | None = None) -> Plot:
    """Running total of request units over time, calls that did not succeed marked.

    Needs the columns time, ru and status. Returns (figure, axes).
    """
    require_columns(ledger, ("time", "ru", "status"), _LEDGER)
    fig, ax = new_axes(ax)
    calls = ledger.dropna(subset=["time"]).sort_values("time", kind="stable")
    if calls.empty:
        show_no_data(ax, "No calls recorded")
        return Plot(fig, ax)
    stamps = calls["time"].dt.tz_convert("UTC").dt.tz_localize(None)
    span = (stamps.iloc[-1] - stamps.iloc[0]).total_seconds()
    short = span < SHORT_SESSION_S
    # A short session reads better as seconds from its start than as clock ticks.
    times = (stamps - stamps.iloc[0]).dt.total_seconds().to_numpy() if short else stamps.to_numpy()
    total = calls["ru"].to_numpy(dtype=float, na_value=0).cumsum()
    ax.step(times, total, where="post", color="tab:blue", label="cumulative RU")
    failed = (calls["status"] != "ok").to_numpy(dtype=bool, na_value=True)
    if failed.any():
        ax.scatter(times[failed], total[failed], color="tab:red", marker="x", zorder=3)
        ax.scatter([], [], color="tab:red", marker="x", label="call not ok")
    if short:
        ax.set_xlabel(f"Seconds since the first call ({stamps.iloc[0]:%Y-%m-%d %H:%M:%S} UTC)")
        format_axis(ax.xaxis)
    else:
        _date_axis(ax)
        ax.set_xlabel("Time (UTC)")
    ax.set_title("Request units spent")
    ax.set_ylabel("Cumulative request units (RU)")
    format_axis(ax.yaxis, integer=True)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize="small")
    return Plot(fig, ax)


def plot_ru_by_method(ledger: pd.DataFrame, ax: Axes | None = None) -> Plot:
    """Request units per method, largest first, stacked by call status.

    Needs the columns method, ru and status. Returns (figure, axes).
    """
    require_columns(ledger, ("method", "ru", "status"), _LEDGER)
    table = (
        ledger.assign(ru=ledger["ru"].astype(float), status=ledger["status"].fillna("unknown"))
        .pivot_table(index="method", columns="status", values="ru", aggfunc="sum", fill_value=0)
        .astype(float)
    )
    fig, ax = new_axes(ax, size=(8, max(2.5, 0.4 * len(table) + 1.4)))
    if table.empty:
        show_no_data(ax, "No calls recorded")
        return Plot(fig, ax)
    table = table.loc[table.sum(axis=1).sort_values(ascending=True).index]  # largest at the top
    statuses = sorted(table.columns, key=lambda s: (s != "ok", s != "error", str(s)))
    colours = status_colours(statuses)
    positions = np.arange(len(table))
    left = np.zeros(len(table))
    for status in statuses:
        values = table[status].to_numpy()
        ax.barh(positions, values, left=left, color=colours[status], label=safe_text(str(status)))
        left += values
    for position, total in zip(positions, left, strict=True):
        ax.annotate(f" {total:,.0f}", (total, position), va="center", fontsize=8)
    ax.set_yticks(positions, [safe_text(str(method)) for method in table.index])
    ax.set_xlim(0, left.max() * 1.15 or 1)
    ax.set_title("Request units by method")
    ax.set_xlabel("Request units (RU)")
    format_axis(ax.xaxis, integer=True)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(title="Status", fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1))
    return Plot(fig, ax)


def plot_ru_ledger(ledger: pd.DataFrame) -> Plot:
    """`plot_cumulative_ru` and `plot_ru_by_method` side by side: (figure, array of 2 axes),
    sized and lettered to be read at a notebook's width."""
    fig, axes = new_figure(2, size=PANELS_SIZE)
    plot_cumulative_ru(ledger, axes[0])
    plot_ru_by_method(ledger, axes[1])
    for ax in axes:
        letter_panel(ax)
    return Plot(fig, axes)


def _date_axis(ax: Axes) -> None:
    from matplotlib.dates import AutoDateLocator, ConciseDateFormatter

    locator = AutoDateLocator(maxticks=7)
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(ConciseDateFormatter(locator))
