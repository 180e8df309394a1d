"""Plots of a Solana simulation, from the frame of `toolkit.frames.solana_simulation_logs`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ._figure import Plot, format_axis, new_axes, require_columns, short_label, show_no_data

if TYPE_CHECKING:
    from matplotlib.axes import Axes

_FRAME = "toolkit.frames.solana_simulation_logs"
# Well-known programs get their names instead of a shortened id.
PROGRAM_NAMES = {
    "11111111111111111111111111111111": "System",
    "ComputeBudget111111111111111111111111111111": "Compute Budget",
    "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA": "Token",
    "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb": "Token-2022",
    "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL": "Associated Token",
    "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr": "Memo",
    "Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo": "Memo v1",
    "AddressLookupTab1e1111111111111111111111111": "Address Lookup Table",
    "Stake11111111111111111111111111111111111111": "Stake",
    "Vote111111111111111111111111111111111111111": "Vote",
    "BPFLoaderUpgradeab1e11111111111111111111111": "BPF Loader",
}
KIND_STYLES = {  # kind: (colour, marker)
    "invoke": ("tab:blue", "v"),
    "consumed": ("tab:purple", "s"),
    "success": ("tab:green", "^"),
    "failed": ("tab:red", "X"),
    "log": ("0.45", "."),
    "data": ("tab:orange", "D"),
    "return": ("tab:cyan", "P"),
    "other": ("0.7", "."),
}


def program_name(program_id: object) -> str:
    """A known program's name, else its id shortened."""
    return PROGRAM_NAMES.get(str(program_id), short_label(program_id))


def invocations(logs: pd.DataFrame) -> pd.DataFrame:
    """One row per program invocation: invocation, program_id, depth, units_consumed, failed."""
    require_columns(logs, ("invocation", "kind", "program_id", "depth", "units_consumed"), _FRAME)
    invokes = logs[logs["kind"] == "invoke"].set_index("invocation")
    consumed = logs[logs["kind"] == "consumed"].groupby("invocation")["units_consumed"].max()
    failed = logs[logs["kind"] == "failed"].groupby("invocation").size() > 0
    result = invokes[["program_id", "depth"]].copy()
    result["units_consumed"] = consumed.reindex(result.index)
    result["failed"] = failed.reindex(result.index, fill_value=False).astype(bool)
    return result.reset_index()


def plot_compute_units(logs: pd.DataFrame, ax: Axes | None = None) -> Plot:
    """Compute units of each program invocation, as a call tree of horizontal bars.

    Bars are in call order, top to bottom, indented by invoke depth; an outer invocation's units
    include those of the calls it made. Programs that report no units (builtins such as System)
    are listed without a bar. Failed invocations are red. Returns (figure, axes).
    """
    calls = invocations(logs)
    own_figure = ax is None
    fig, ax = new_axes(ax, size=(8, max(2.5, 0.45 * len(calls) + 1.2)))
    if calls.empty:
        show_no_data(ax, "No program invocations in the logs")
        return Plot(fig, ax)
    units = calls["units_consumed"].to_numpy(dtype=float, na_value=np.nan)
    if np.isnan(units).all():
        # A plain transfer: builtins such as System report no units, so there is nothing to draw.
        programs = ", ".join(dict.fromkeys(program_name(p) for p in calls["program_id"]))
        if own_figure:
            fig.set_size_inches(8, 1.6)
        show_no_data(ax, f"No compute-unit data: the programs invoked ({programs}) report none")
        ax.set_title("Compute units per program invocation")
        for spine in ax.spines.values():
            spine.set_visible(False)
        return Plot(fig, ax)
    colours = [
        "tab:red" if failed else ("tab:blue" if depth == 1 else "tab:cyan")
        for failed, depth in zip(calls["failed"], calls["depth"], strict=True)
    ]
    positions = np.arange(len(calls))
    ax.barh(positions, np.nan_to_num(units), color=colours, height=0.6)
    # Tick labels are right-aligned, so nesting shows as a marker rather than indentation.
    labels = [
        "└ " * (int(depth) - 1) + program_name(program)
        for program, depth in zip(calls["program_id"], calls["depth"], strict=True)
    ]
    ax.set_yticks(positions, labels)
    ax.set_ylim(len(calls) - 0.2, -0.8)  # first call at the top, a margin around lone bars
    for position, value in zip(positions, units, strict=True):
        reported = not np.isnan(value)
        text = f" {value:,.0f} CU" if reported else " no units reported"
        colour = "black" if reported else "0.5"
        ax.annotate(
            text, (value if reported else 0, position), va="center", fontsize=8, color=colour
        )
    ax.set_xlim(0, max(np.nanmax(units, initial=0) * 1.2, 1))
    ax.set_title("Compute units per program invocation")
    ax.set_xlabel("Compute units (CU); an outer call includes the calls it makes")
    format_axis(ax.xaxis, integer=True)
    ax.grid(axis="x", alpha=0.3)
    legend = {"instruction": "tab:blue", "inner call": "tab:cyan", "failed": "tab:red"}
    _legend(ax, {label: colour for label, colour in legend.items() if colour in colours})
    return Plot(fig, ax)


def _legend(ax: Axes, colours: dict[str, str]) -> None:
    from matplotlib.patches import Patch

    handles = [Patch(color=colour, label=label) for label, colour in colours.items()]
    ax.legend(handles=handles, fontsize="small", loc="lower right")


def plot_log_timeline(logs: pd.DataFrame, ax: Axes | None = None) -> Plot:
    """Invoke depth over the log lines, each line marked by its kind, invocations named.

    Returns (figure, axes); draws on `ax` when given.
    """
    require_columns(logs, ("index", "depth", "kind", "program_id"), _FRAME)
    fig, ax = new_axes(ax, size=(10, 4.5))
    if logs.empty:
        show_no_data(ax, "No log lines")
        return Plot(fig, ax)
    index = logs["index"].to_numpy(dtype=np.int64)
    depth = logs["depth"].to_numpy(dtype=np.int64)
    ax.step(index, depth, where="post", color="0.75", linewidth=1, zorder=1)
    for kind, (colour, marker) in KIND_STYLES.items():
        chosen = (logs["kind"] == kind).to_numpy()
        if chosen.any():
            ax.scatter(
                index[chosen], depth[chosen], color=colour, marker=marker, label=kind, zorder=2
            )
    named = logs["kind"].isin(["invoke", "failed"]).to_numpy()
    kinds, programs = logs["kind"].to_numpy()[named], logs["program_id"].to_numpy()[named]
    for x, y, kind, program in zip(index[named], depth[named], kinds, programs, strict=True):
        failed = kind == "failed"
        ax.annotate(
            program_name(program) + (" failed" if failed else ""),
            (x, y),
            xytext=(3, 6),
            textcoords="offset points",
            fontsize=7,
            rotation=30,
            color="tab:red" if failed else "0.2",
        )
    ax.set_ylim(-0.5, depth.max() + 1.2)
    ax.set_title("Simulation log timeline")
    ax.set_xlabel("Log line")
    ax.set_ylabel("Invoke depth")
    format_axis(ax.xaxis, integer=True)
    format_axis(ax.yaxis, integer=True)
    ax.legend(title="Line kind", fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1))
    ax.grid(axis="y", alpha=0.3)
    return Plot(fig, ax)
