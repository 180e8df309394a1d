"""The top-level widgets show themselves once in the cell that made them, and again in a later
cell where they are evaluated (toolkit.widgets._shown)."""

import ipywidgets as widgets
import pytest

from toolkit.widgets import Explorer, WorkloadBuilder, _shown, explorer, workload_builder


@pytest.mark.parametrize(
    ("make", "kind"), [(explorer, Explorer), (workload_builder, WorkloadBuilder)]
)
def test_shown_once_per_cell_and_again_in_later_cells(gw, monkeypatch, make, kind):
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda *objs, **kw: shown.append(objs))

    class Shell:
        execution_count = 7

    monkeypatch.setattr(_shown, "_shell", lambda: Shell)
    widget = make(gw)
    assert isinstance(widget, kind) and isinstance(widget, widgets.VBox)
    assert len(shown) == 1 and "application/vnd.jupyter.widget-view+json" in shown[0][0]
    widget._ipython_display_()  # IPython echoing the cell's value: skipped
    assert len(shown) == 1
    Shell.execution_count = 8
    widget._ipython_display_()  # the widget on its own in a later cell
    assert len(shown) == 2
