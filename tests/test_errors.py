"""The exception tree drawn in `toolkit._errors`' docstring is the tree the classes make."""

from __future__ import annotations

import re

import toolkit
import toolkit._errors
import toolkit.frames

_ROW = re.compile(r"^    ([│ ]*(?:[├└]── )?)([A-Z][A-Za-z]+)\b")


def _drawn() -> dict[str, str | None]:
    """Each class in the drawing, with the class it is drawn under (None: a root)."""
    parents: dict[str, str | None] = {}
    stack: list[str] = []  # the drawn ancestors of the next row, by depth
    for line in (toolkit._errors.__doc__ or "").splitlines():
        match = _ROW.match(line)
        if not match:
            continue
        depth = len(match.group(1)) // 4
        del stack[depth:]
        parents[match.group(2)] = stack[-1] if stack else None
        stack.append(match.group(2))
    return parents


def test_the_drawing_is_the_tree_the_classes_make():
    drawn = _drawn()
    where = (toolkit, toolkit.frames)
    classes = {name: next(getattr(m, name) for m in where if hasattr(m, name)) for name in drawn}
    for name, parent in drawn.items():
        if parent is None:
            assert name == "GatewayError" or not issubclass(classes[name], toolkit.GatewayError)
        else:
            assert classes[name].__bases__[0] is classes[parent], (name, parent)
    every = {
        cls.__name__
        for module in (toolkit._errors, toolkit.frames)
        for cls in vars(module).values()
        if isinstance(cls, type) and issubclass(cls, toolkit.GatewayError)
    }
    assert every <= drawn.keys(), every - drawn.keys()


def test_frame_errors_stay_value_errors():
    assert issubclass(toolkit.frames.ParquetError, ValueError)
    assert issubclass(toolkit.frames.FrameError, ValueError)
