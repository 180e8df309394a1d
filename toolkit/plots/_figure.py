"""What every plot shares: figures without pyplot, readable number formats, safe short labels.

Figures are `matplotlib.figure.Figure` objects made directly, never through pyplot, so nothing is
registered in pyplot's global state: plotting is safe in threads and in notebooks, and a figure is
shown only when the caller displays it. matplotlib is imported inside the functions so that
importing the toolkit stays fast.
"""

from __future__ import annotations

import functools
import io
import math
import re
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NamedTuple, cast

import pandas as pd

from .._redact import redact_url, scrub

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://\S+")
NO_DATA = "No data to plot"


class Plot(NamedTuple):
    """What a plot function returns: ``(figure, axes)``, to unpack as a pair, that also shows its
    figure when it is the last expression of a notebook cell, as pandas' ``df.plot()`` does."""

    figure: Figure
    axes: Any  # one Axes, or an array of them for a plot of several panels

    def _repr_png_(self) -> bytes | None:
        # A figure pyplot manages (drawn on an `ax` from plt.subplots) is shown by pyplot's
        # inline backend at the end of the cell: showing it here too would show it twice.
        if _managed_by_pyplot(self.figure):
            return None
        return png_bytes(self.figure)


def png_bytes(figure: Figure) -> bytes:
    """`figure` as a PNG, cropped to what is drawn, as a notebook shows it. No "Software" text
    chunk: matplotlib's version in it would make the same plot differ between installs."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", bbox_inches="tight", metadata={"Software": None})
    return buffer.getvalue()


def _managed_by_pyplot(figure: Figure) -> bool:
    if "matplotlib.pyplot" not in sys.modules:  # pyplot never imported: it manages nothing
        return False
    from matplotlib._pylab_helpers import Gcf

    return any(manager.canvas.figure is figure for manager in Gcf.get_all_fig_managers())


def new_axes(
    ax: Axes | None = None, *, size: tuple[float, float] = (8, 4.5)
) -> tuple[Figure, Axes]:
    """The figure of `ax` and `ax` itself, or a new figure with one axes."""
    if ax is not None:
        # Typed Figure | SubFigure by matplotlib; the plots take axes of a figure (an axes in
        # a subfigure draws the same, but its `Plot` cannot save a PNG of its own).
        return cast("Figure", ax.figure), ax
    figure = _figure(size)
    return figure, figure.add_subplot()


def new_figure(columns: int, *, size: tuple[float, float]) -> tuple[Figure, Any]:
    """A new figure with `columns` axes side by side, returned as (figure, array of axes)."""
    figure = _figure(size)
    return figure, figure.subplots(1, columns, squeeze=False)[0]


# Two panels side by side are drawn 11 inches wide; a notebook shows them about 900 px wide, so
# a point of font is about 1.1 px on screen. Text is sized for that: nothing under 10 pt.
PANELS_SIZE = (11, 4.6)
PANELS_TEXT_PT = {"title": 13, "label": 11.5, "tick": 10.5, "legend": 10, "note": 10}


def letter_panel(ax: Axes) -> None:
    """Sizes every text of `ax` for a two-panel figure (see `PANELS_TEXT_PT`)."""
    size = PANELS_TEXT_PT
    ax.title.set_fontsize(size["title"])
    ax.xaxis.label.set_fontsize(size["label"])
    ax.yaxis.label.set_fontsize(size["label"])
    ax.tick_params(labelsize=size["tick"])
    legend = ax.get_legend()
    if legend is not None:
        for item in legend.get_texts():
            item.set_fontsize(size["legend"])
        if legend.get_title().get_text():
            legend.get_title().set_fontsize(size["legend"])
    for note in ax.texts:
        note.set_fontsize(max(note.get_fontsize(), size["note"]))


def _figure(size: tuple[float, float]) -> Figure:
    from matplotlib.figure import Figure

    _show_figures_in_ipython()
    return Figure(figsize=size, layout="constrained")


@functools.cache
def _show_figures_in_ipython() -> None:
    """Let a notebook show a returned figure as a PNG without `%matplotlib inline`.

    A figure made without pyplot has no rich display until pyplot's inline backend registers one;
    register a PNG printer ourselves (the one `Plot` uses), unless something already did.
    """
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None:
        return
    from matplotlib.figure import Figure

    formatter = shell.display_formatter.formatters["image/png"]
    if Figure not in formatter.type_printers:
        formatter.for_type(Figure, png_bytes)


def require_columns(frame: pd.DataFrame, columns: Iterable[str], produced_by: str) -> None:
    """Raise ValueError naming the missing columns and the frame function that makes them."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"missing columns {missing}: pass the frame from {produced_by}")


def readable_number(value: float, _position: Any = None) -> str:
    """Tick text with thousands separators; scientific only for very large or tiny values."""
    if value == 0 or not math.isfinite(value):
        return "0" if value == 0 else str(value)
    magnitude = abs(value)
    if magnitude >= 1e15 or magnitude < 1e-4:
        return f"{value:.3g}"
    if magnitude >= 100:
        return f"{value:,.0f}"
    return f"{value:,.6f}".rstrip("0").rstrip(".")


def format_axis(axis: Any, *, integer: bool = False) -> None:
    """Readable numbers on an axis (`ax.xaxis` or `ax.yaxis`), whole numbers when `integer`."""
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    axis.set_major_formatter(FuncFormatter(readable_number))
    if integer:
        axis.set_major_locator(MaxNLocator(nbins=6, integer=True))


def short_label(text: Any, *, keep: int = 4) -> str:
    """A long id or address as ``head…tail``; URLs are redacted first; NA becomes "unknown"."""
    if text is None or (not isinstance(text, str) and pd.isna(text)):
        return "unknown"
    text = _redacted(str(text))
    short = text if len(text) <= 2 * keep + 3 else f"{text[: keep + 2]}…{text[-keep:]}"
    return _literal(short)  # escaped once cut, so that no cut falls inside an escape


def safe_text(text: str) -> str:
    """`text` as a label shows it: registered secrets scrubbed and any URL in it reduced to
    scheme and host (labels must never leak access keys), and every ``$`` escaped, so that
    matplotlib does not read a node named ``eth$$main`` as mathtext (an error at drawing time,
    after the run was paid for)."""
    return _literal(_redacted(text))


def _redacted(text: str) -> str:
    """`text` with every registered secret (a key a node echoed into an answer) scrubbed and
    every URL reduced to scheme and host."""
    return _URL.sub(lambda match: redact_url(match.group()) or "", scrub(text))


def _literal(text: str) -> str:
    return text.replace("$", r"\$")


def show_no_data(ax: Axes, message: str = NO_DATA) -> None:
    ax.text(0.5, 0.5, message, ha="center", va="center", transform=ax.transAxes, color="0.4")
    ax.set_xticks([])
    ax.set_yticks([])


def add_caption(figure: Figure, caption: str) -> Figure:
    """Write `caption` at the foot of `figure`, small and grey, wrapped to its width, URLs
    redacted (a source line such as `toolkit.Provenance.caption()`). The figure's constrained
    layout makes room for it, so it is kept in saved files and notebook images alike."""
    import textwrap

    width = max(40, int(figure.get_figwidth() * 17))  # characters of 7-point text per line
    lines = textwrap.wrap(safe_text(caption), width=width)
    figure.supxlabel("\n".join(lines), x=0.01, ha="left", fontsize=7, color="0.35")
    return figure
