"""Widgets as static HTML of their current state, for a page with no kernel (a rendered report).

A live widget in a notebook is a view of a model in the kernel; saved to HTML without that kernel
it shows "widget state not found". `static_html(widget)` draws what the widget shows now, from
its Python state: boxes and tabs as nested blocks, HTML as it is, an Output widget's outputs, a
dropdown or a text field as a disabled control holding its value, a button disabled. It works
for any ipywidgets tree (the explorer, the workload builder, a tqdm progress bar), hides what is
hidden, and scrubs every registered secret from the page (`toolkit._redact`).

`snapshots(model_ids)` does it for the widgets a notebook displayed, by their model ids.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Iterable
from typing import Any

import ipywidgets

from .._redact import scrub
from ._html import STYLE


def _escape(value: Any) -> str:
    return html.escape(str(value))


def _hidden(widget: Any) -> bool:
    layout = getattr(widget, "layout", None)
    return layout is not None and (layout.display == "none" or layout.visibility == "hidden")


def _described(widget: Any, body: str) -> str:
    description = getattr(widget, "description", "") or ""
    label = f'<span class="tk-static-label">{_escape(description)}</span> ' if description else ""
    return f'<div class="tk-static-field">{label}{body}</div>'


def _output_html(output: dict[str, Any]) -> str:
    """One output of an Output widget, as the notebook would show it."""
    kind = output.get("output_type")
    if kind == "stream":
        return f"<pre>{_escape(output.get('text', ''))}</pre>"
    if kind == "error":
        return f"<pre>{_escape(output.get('ename', ''))}: {_escape(output.get('evalue', ''))}</pre>"
    data = output.get("data", {})
    if "text/html" in data:
        return str(data["text/html"])
    for mime in ("image/png", "image/jpeg"):
        if mime in data:
            return f'<img src="data:{mime};base64,{data[mime]}">'
    if "image/svg+xml" in data:
        return str(data["image/svg+xml"])
    if "text/plain" in data:
        return f"<pre>{_escape(data['text/plain'])}</pre>"
    return ""


def _children_html(widget: Any) -> str:
    titles = list(getattr(widget, "titles", ()) or ())
    children = list(widget.children)
    if isinstance(widget, ipywidgets.Stack):  # only the selected child is on screen
        index = widget.selected_index
        children = [children[index]] if index is not None and index < len(children) else []
        titles = []
    parts = []
    for number, child in enumerate(children):
        title = titles[number] if number < len(titles) and titles[number] else ""
        heading = f'<div class="tk-static-title">{_escape(title)}</div>' if title else ""
        parts.append(heading + _draw(child))
    return "".join(parts)


def _draw(widget: Any) -> str:
    """`widget` and what it holds, as HTML, unscrubbed (`static_html` scrubs the whole)."""
    if not isinstance(widget, ipywidgets.Widget) or _hidden(widget):
        return ""
    if isinstance(widget, ipywidgets.Box):
        row = isinstance(widget, ipywidgets.HBox | ipywidgets.GridBox)
        direction = "row" if row else "column"
        style = f"display:flex;flex-direction:{direction};gap:4px;flex-wrap:wrap"
        return f'<div class="tk-static-box" style="{style}">{_children_html(widget)}</div>'
    if isinstance(widget, ipywidgets.Output):
        return "".join(_output_html(dict(output)) for output in widget.outputs)
    if isinstance(widget, ipywidgets.HTML | ipywidgets.HTMLMath):
        return _described(widget, str(widget.value))
    if isinstance(widget, ipywidgets.Label):
        return f"<span>{_escape(widget.value)}</span>"
    if isinstance(widget, ipywidgets.Button):
        return f"<button disabled>{_escape(widget.description)}</button>"
    if isinstance(widget, ipywidgets.IntProgress | ipywidgets.FloatProgress):
        return _described(
            widget, f'<progress value="{widget.value}" max="{widget.max}"></progress>'
        )
    if isinstance(widget, ipywidgets.Checkbox | ipywidgets.ToggleButton):
        checked = " checked" if widget.value else ""
        return _described(widget, f'<input type="checkbox" disabled{checked}>')
    if isinstance(widget, ipywidgets.Image):
        data = base64.b64encode(bytes(widget.value)).decode()
        return f'<img src="data:image/{_escape(widget.format)};base64,{data}">'
    if hasattr(widget, "options") and hasattr(widget, "label"):  # one choice of several
        labels = widget.label if isinstance(widget.label, tuple) else (widget.label,)
        chosen = "".join(f"<option selected>{_escape(label)}</option>" for label in labels)
        return _described(widget, f"<select disabled>{chosen}</select>")
    if isinstance(widget, ipywidgets.Textarea):
        return _described(widget, f"<textarea disabled>{_escape(widget.value)}</textarea>")
    if hasattr(widget, "value"):  # text fields, numbers, sliders
        return _described(widget, f'<input disabled value="{_escape(widget.value)}">')
    return ""


def static_html(widget: Any) -> str:
    """What `widget` shows now, as self-contained HTML with no script, secrets scrubbed."""
    return scrub(f'{STYLE}<div class="tk-static-widget">{_draw(widget)}</div>')


def snapshots(model_ids: Iterable[str]) -> dict[str, str]:
    """`static_html` of each live widget among `model_ids` (those displayed in a notebook's
    outputs), by model id; ids of widgets already closed are left out."""
    # ipywidgets keeps its live widgets by model id here; its public `Widget.widgets` is
    # deprecated in favour of this module attribute.
    from ipywidgets.widgets.widget import _instances

    return {
        model_id: static_html(_instances[model_id])
        for model_id in model_ids
        if model_id in _instances
    }
