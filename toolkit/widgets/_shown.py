"""How a top-level widget shows itself: once in the cell that made it, again in any later cell,
and as one line of text outside IPython.

`show_widget(widget)` displays it and remembers the cell; a widget that mixes in `ShownOnce`
then skips IPython's echo of the same cell's last line (a second live copy), but shows in a later
cell. `Explorer` and `WorkloadBuilder` both show themselves this way.
"""

from __future__ import annotations

from typing import Any


class ShownOnce:
    """Mixin for an ipywidget that `show_widget` displays; see the module doc."""

    _displayed_in: int | None = None  # the IPython cell `show_widget` displayed it in
    _repr_mimebundle_: Any  # the ipywidget's, which this is mixed into (declared for checkers)

    def _ipython_display_(self) -> None:
        count = getattr(_shell(), "execution_count", None)
        if count is not None and count == self._displayed_in:
            return
        from IPython.display import display

        display(self._repr_mimebundle_(), raw=True)


def _shell() -> Any:
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    return get_ipython()


def show_widget(widget: Any, enabled: bool = True) -> Any:
    """Display `widget` (a `ShownOnce` widget) in the current cell, or print its repr outside
    IPython, where there is no widget to draw; nothing when not `enabled`. Returns the widget."""
    if not enabled:
        return widget
    shell = _shell()
    if shell is None:
        print(repr(widget))
        return widget
    from IPython.display import display

    display(widget._repr_mimebundle_(), raw=True)
    widget._displayed_in = getattr(shell, "execution_count", None)
    return widget
