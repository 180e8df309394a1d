"""Conventions a user relies on across the toolkit, enforced on the source."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "toolkit"


def test_every_frame_accessor_is_a_property():
    """`gw.ledger.frame`, `preview.frame`, `explorer.frame`, `presentation.frame`: a table a
    handle holds is read as `.frame`, never called, whichever class holds it."""
    methods = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.ClassDef):
                continue
            for item in node.body:
                is_function = isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
                if not is_function or item.name != "frame":
                    continue
                decorators = {ast.unparse(d) for d in item.decorator_list}
                if not decorators & {"property", "functools.cached_property", "cached_property"}:
                    methods.append(f"{path.relative_to(PACKAGE.parent)}: {node.name}.frame()")
    assert not methods, methods


def _class_names(package: str) -> dict[str, str]:
    found = {}
    for path in sorted((PACKAGE / package).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                found.setdefault(node.name, str(path.relative_to(PACKAGE.parent)))
    return found


def test_no_class_name_means_two_things_across_client_and_sandbox():
    """The client and the sandbox both speak of answers, endpoints and nodes; a class name in both
    (an `Answer` the client reads and one the sandbox writes) would make either's code misread."""
    client, sandbox = _class_names("client"), _class_names("sandbox")
    shared = sorted(client.keys() & sandbox.keys())
    assert not shared, [(name, client[name], sandbox[name]) for name in shared]


def _public_modules() -> list[str]:
    """`toolkit` and every module under it whose dotted path has no private part."""
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if not any(part.startswith("_") for part in parts):
            names.append(".".join(parts))
    return names


def _public_docstrings() -> Iterator[tuple[str, str]]:
    """(where, docstring) of each public module, of each name in its `__all__`, and of each
    public member of those classes: what `help()` and the API reference show."""
    seen: set[int] = set()
    for module_name in _public_modules():
        module = importlib.import_module(module_name)
        yield module_name, module.__doc__ or ""
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


def _private_module_names() -> set[str]:
    return {
        path.stem
        for path in PACKAGE.rglob("_*.py")
        if path.stem not in ("__init__", "__main__")
    }


def test_no_public_docstring_points_at_a_private_module_or_a_test_file():
    """A user reads docstrings through `help()` and the API reference: a pointer to a private
    module (`_http`, `toolkit.client._tape`) or to a file under `tests/` leads them where the
    package does not go (a wheel has no tests) and where nothing promises to stay."""
    private = re.compile(
        r"(?<![\w])(?:" + "|".join(sorted(_private_module_names())) + r")\b|(?<![\w])tests/"
    )
    found = [
        f"{where}: {line.strip()}"
        for where, doc in _public_docstrings()
        for line in doc.splitlines()
        if private.search(line)
    ]
    assert not found, "\n".join(found)
