"""The little HTML the widgets show: escaped, scrubbed text, message boxes and DataFrame tables.

Everything a widget puts on screen goes through `text`, which escapes it and removes every
registered secret (node URLs and API keys, see `toolkit._redact`), so no key reaches the page even
if an error message somehow carried one.
"""

from __future__ import annotations

import html
import numbers
import re
from typing import TYPE_CHECKING, Any

from .._redact import scrub

if TYPE_CHECKING:
    import pandas as pd

# Rows and cell width of a table on screen; the whole frame stays available in Python.
MAX_ROWS = 50
MAX_CELL_CHARS = 70
# A hash or id of 32 bytes or more (a transaction id, a block hash): wide, and rarely what a reader
# looks at first, so a table shows such columns after the others.
HASH = re.compile(r"(0x)?[0-9a-fA-F]{64,}")

# One stylesheet, repeated in the HTML that needs it: each widget must look right on its own, and
# the rules are scoped by class, so repeats are harmless. Colours follow the JupyterLab theme.
STYLE = """<style>
.tk-table { border-collapse: collapse; font-size: 12px; margin: 2px 0 6px 0; }
/* "thead th", not "th": a DataFrame shown anywhere in the notebook brings pandas' own (unscoped)
   `.dataframe thead th { text-align: right }`, which would otherwise win over this rule. */
table.tk-table thead th, table.tk-table td { padding: 2px 8px; line-height: 1.5;
  text-align: left; white-space: nowrap; border-bottom: 1px solid var(--jp-border-color2, #ddd); }
table.tk-table thead th { font-weight: 600; background: var(--jp-layout-color2, #f3f3f3); }
.tk-msg { padding: 4px 8px; border-radius: 3px; margin: 2px 0; line-height: 1.4; }
.tk-info { background: var(--jp-info-color3, #e8f1fb); }
.tk-ok { background: var(--jp-success-color3, #e6f4ea); }
.tk-warn { background: var(--jp-warn-color3, #fff4e0); }
.tk-error { background: var(--jp-error-color3, #fdecea); color: var(--jp-error-color0, #8a1c13); }
.tk-ru { font-size: 15px; font-weight: 700; padding: 1px 8px; border-radius: 10px;
  background: var(--jp-brand-color3, #d5e7fb); margin-right: 6px; }
.tk-ru-archive { background: var(--jp-warn-color2, #ffd59e); }
.tk-muted { color: var(--jp-ui-font-color2, #777); }
/* Text blocks set their own line height: an HTML widget's is one input row (28 px), which
   double-spaces any text that wraps in a narrow output area. */
div.tk-muted, div.tk-caption { line-height: 1.4; }
.tk-title { font-size: 15px; font-weight: 700; }
.tk-caption { font-weight: 600; margin-top: 4px; }
.toolkit-node-list select, .tk-list-header { font-family: var(--jp-code-font-family, monospace);
  font-size: 12px; }
.tk-list-header { margin: 0 0 -4px 5px; white-space: pre; overflow: hidden;
  color: var(--jp-ui-font-color2, #777); }
/* Messages wrap between words; only a token longer than the line (a pasted hex value) breaks,
   and "anywhere" (unlike "break-word") lets the box shrink below that token's width. */
.tk-field-error { color: var(--jp-error-color1, #c62828); font-size: 12px; line-height: 1.4;
  white-space: normal; overflow-wrap: anywhere; }
/* A field's message sits under its input, past the 190 px label, while the input is beside the
   label; in a field too narrow for both (label + the input's 200 px basis, see _form.py) the
   input wraps below the label and the message starts at the left edge with it. */
.toolkit-field { container-type: inline-size; }
@container (min-width: 400px) { .toolkit-field .tk-field-error { margin-left: 198px; } }
/* A table scrolls sideways in its own box. Without min-width: 0 on the HTML widget that holds it
   (any of them: a result, the ledger, the builder's preview) the widget's content would be as
   wide as the table, the box would never scroll, and the panel holding it would overflow. */
.tk-table-scroll { overflow-x: auto; max-width: 100%; }
:is(.widget-html-content, .jupyter-widget-html-content):has(.tk-table-scroll) { min-width: 0; }
</style>"""


def text(value: Any) -> str:
    """`value` as HTML text: secrets scrubbed, then escaped."""
    return html.escape(scrub(str(value)))


def message(kind: str, body_html: str) -> str:
    """A coloured box: kind is info, ok, warn or error; `body_html` is HTML already escaped."""
    return f'{STYLE}<div class="tk-msg tk-{kind}">{body_html}</div>'


def error_message(error: BaseException) -> str:
    """An exception as its class name and its own message (which never holds a key)."""
    return message("error", f"<b>{text(type(error).__name__)}</b>: {text(error)}")


def key_columns_first(frame: pd.DataFrame) -> list[str]:
    """`frame`'s columns, those holding only hashes (see `HASH`) moved to the end."""
    hashes = [column for column in frame.columns if _all_hashes(frame[column])]
    return [c for c in frame.columns if c not in hashes] + hashes


def _all_hashes(column: pd.Series) -> bool:
    values = column.dropna()
    return bool(len(values)) and all(
        isinstance(value, str) and HASH.fullmatch(value) for value in values
    )


def _cell(value: Any) -> str:
    """A cell as people read it: a number in full (`human_number`), other text shortened to
    `MAX_CELL_CHARS` (a 422-character raw transaction would make its column 3,000 px wide).
    Scrubbed before it is cut: a secret cut in half would no longer be recognised."""
    from ..frames import human_number

    shown = scrub(human_number(value))
    if isinstance(value, numbers.Number) or len(shown) <= MAX_CELL_CHARS:
        return shown
    return shown[: MAX_CELL_CHARS - 1] + "…"


def frame_table(frame: pd.DataFrame, *, caption: str = "", max_rows: int = MAX_ROWS) -> str:
    """A DataFrame as a compact HTML table, long cells shortened, at most `max_rows` rows, numbers
    written for people (`frames.human_number`: thousands separators, never scientific notation,
    exact ints in full; missing values as NA). The frame itself keeps the exact values."""
    shown = frame.head(max_rows)
    shown = shown[key_columns_first(shown)].astype(object).map(_cell)
    table = _html_table(shown)
    more = len(frame) - len(shown)
    footer = f'<div class="tk-muted">… {more:,} more rows in the DataFrame</div>' if more else ""
    head = f'<div class="tk-caption">{text(caption)}</div>' if caption else ""
    scrolled = f'<div class="tk-table-scroll">{scrub(table)}</div>'
    return f"{STYLE}{head}{scrolled}{footer}"


def _html_table(cells: pd.DataFrame) -> str:
    """A frame of text cells as an HTML table, written here rather than by `DataFrame.to_html`:
    pandas writes HTML under a process-wide option that it sets and then restores
    (``display.max_colwidth``), and the views redraw from a timer thread (`_live.Follower`). A
    table drawn there would change how a DataFrame in the user's running cell is shown, or, when
    two draws overlap, leave the option changed for the rest of the session."""
    head = "".join(f"<th>{html.escape(str(column))}</th>" for column in cells.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row) + "</tr>"
        for row in cells.itertuples(index=False, name=None)
    )
    return (
        '<table class="tk-table"><thead><tr style="text-align: right;">'
        f"{head}</tr></thead><tbody>{body}</tbody></table>"
    )
