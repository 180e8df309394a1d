"""The small HTML the toolkit's objects show in Jupyter (`_repr_html_`): escaped, secrets scrubbed.

Gateways, nodes, ledgers and provenance records show a captioned table of what matters about them
(never a URL or key: every text goes through `_redact.scrub`).
"""

from __future__ import annotations

import html
from collections.abc import Iterable

from ._redact import scrub


def escaped(value: object) -> str:
    """`value` as HTML text, registered secrets removed first."""
    return html.escape(scrub(str(value)))


def key_values_html(caption: str, rows: Iterable[tuple[str, str]]) -> str:
    """A captioned two-column table: a name per row and its value, both left-aligned."""
    body = "".join(
        f"<tr><th style='text-align:left'>{escaped(key)}</th>"
        f"<td style='text-align:left'>{escaped(value)}</td></tr>"
        for key, value in rows
    )
    return f"<table><caption>{escaped(caption)}</caption>{body}</table>"
