"""The public docstrings (what `help()` and the API reference show) and the examples in them."""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "toolkit"


def public_modules() -> list[str]:
    """`toolkit` and every module under it whose dotted path has no private part."""
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if not any(part.startswith("_") for part in parts):
            names.append(".".join(parts))
    return names


def public_docstrings() -> Iterator[tuple[str, str]]:
    """(where, docstring) of each public module, of each name in its `__all__`, and of each
    public member of those classes, each object once."""
    seen: set[int] = set()
    for module_name in public_modules():
        module = importlib.import_module(module_name)
        yield module_name, inspect.getdoc(module) or ""
        for name in getattr(module, "__all__", ()):
            value = getattr(module, name)
            if id(value) in seen or inspect.ismodule(value):
                continue
            seen.add(id(value))
            if not (inspect.isclass(value) or inspect.isroutine(value)):
                continue
            yield f"{module_name}.{name}", inspect.getdoc(value) or ""
            if not inspect.isclass(value):
                continue
            # static: reading each attribute would run properties and deprecation shims
            for member_name, member in inspect.getmembers_static(value):
                if member_name.startswith("_") and member_name != "__init__":
                    continue
                if isinstance(member, property):
                    member = member.fget
                if isinstance(member, staticmethod | classmethod):
                    member = member.__func__
                if not (inspect.isroutine(member) or inspect.isclass(member)):
                    continue
                if (getattr(member, "__module__", None) or "").split(".")[0] != "toolkit":
                    continue  # inherited from the standard library or a dependency
                yield f"{module_name}.{name}.{member_name}", inspect.getdoc(member) or ""


def example_blocks(doc: str) -> list[str]:
    """The indented blocks of a docstring (after a blank line), dedented: its code examples."""
    blocks: list[list[str]] = []
    lines = doc.splitlines()
    inside = False
    for index, line in enumerate(lines):
        starts = line.startswith("    ") and (index == 0 or not lines[index - 1].strip())
        if starts and not inside:
            blocks.append([])
            inside = True
        if inside and (line.startswith("    ") or not line.strip()):
            blocks[-1].append(line[4:])
        else:
            inside = False
    return ["\n".join(block).strip() + "\n" for block in blocks]
