"""The architecture, enforced: each layer imports only the layers below it, through their public
names, and never reaches into another layer's private attributes.

Layers (low to high): the foundation (`toolkit._redact`, `_version`, `_json`, `_errors`,
`_reprs`, `_browser`); `catalog`;
`client`, `frames`, `sandbox`, `solana_tx` (side by side: the sandbox shares the catalog, never
the client); `plots`, `workloads`; `examples`; `widgets`; `reports`; `__main__` and `__init__`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.source_trees import nodes

PACKAGE = Path(__file__).resolve().parents[2] / "toolkit"

RANK = {
    "_redact": 0,
    "_reprs": 1,
    "_version": 0,
    "_browser": 0,
    "_json": 0,
    "_errors": 1,
    "catalog": 2,
    "solana_tx": 3,
    "client": 3,
    "frames": 3,
    "sandbox": 3,
    "plots": 4,
    "workloads": 4,
    "examples": 5,
    "widgets": 6,
    "reports": 7,
    "__main__": 8,
    "__init__": 9,
}
# Same-rank edges that are part of the design, each with its reason.
SIDEWAYS = {
    ("client", "sandbox"): "connect() with no key starts the embedded sandbox (a lazy import)",
    ("sandbox", "solana_tx"): "the Solana demo world's addresses, derived without solders",
}
# Private names of other libraries used on purpose (each explained where it is used), and the
# display protocols Jupyter defines with a leading underscore.
THIRD_PARTY_PRIVATE = {"_SubParsersAction", "_close"}
# A named tuple's own API: public, with an underscore so that no field name can clash.
NAMED_TUPLE_API = {"_asdict", "_field_defaults", "_fields", "_make", "_replace"}
FOUNDATION = {"_browser", "_reprs", "_errors", "_json", "_redact", "_version"}


def _modules() -> list[tuple[str, Path]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
        found.append((".".join(parts), path))
    return found


def _layer(dotted: str) -> str:
    return dotted.split(".")[0]


def _from_target(node: ast.ImportFrom, package: list[str]) -> list[str] | None:
    """The parts inside toolkit that ``from ... import`` reads from; None outside toolkit."""
    if node.level:
        base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
        return base + (node.module.split(".") if node.module else [])
    if node.module and node.module.split(".")[0] == "toolkit":
        return node.module.split(".")[1:]
    return None


def _imports(dotted: str, path: Path) -> list[tuple[int, list[str]]]:
    """(line, target parts inside toolkit) of every toolkit import in a module."""
    package = dotted.split(".")[:-1]
    found = []
    for node in nodes(path):
        if isinstance(node, ast.ImportFrom):
            target = _from_target(node, package)
            if target is None:
                continue
            if node.module is None or not target:
                # "from . import x" / "from .. import x": the names are modules or packages
                for alias in node.names:
                    found.append((node.lineno, [*target, alias.name]))
            else:
                found.append((node.lineno, target))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "toolkit":
                    found.append((node.lineno, alias.name.split(".")[1:]))
    return found


MODULES = _modules()


@pytest.mark.parametrize(("dotted", "path"), MODULES, ids=[m for m, _ in MODULES])
def test_imports_go_down_and_through_public_names(dotted, path):
    own = _layer(dotted)
    problems = []
    for line, target in _imports(dotted, path):
        if not target:
            continue
        layer = target[0]
        if layer == own or layer not in RANK:
            continue
        edge = (own, layer)
        if RANK[layer] > RANK[own] or (RANK[layer] == RANK[own] and edge not in SIDEWAYS):
            problems.append(f"line {line}: {own} (layer {RANK[own]}) imports {'.'.join(target)}")
        private = [part for part in target[1:] if part.startswith("_")]
        if layer not in FOUNDATION and private and own != "__init__":
            problems.append(f"line {line}: reaches into the private module {'.'.join(target)}")
    assert not problems, "\n".join(problems)


def _names_imported(dotted: str, path: Path) -> list[tuple[int, list[str], str]]:
    """(line, target parts inside toolkit, name) of every name a module imports from toolkit
    with ``from ... import name``."""
    package = dotted.split(".")[:-1]
    found = []
    for node in nodes(path):
        target = _from_target(node, package) if isinstance(node, ast.ImportFrom) else None
        if target is None:
            continue
        found.extend((node.lineno, target, alias.name) for alias in node.names)
    return found


@pytest.mark.parametrize(("dotted", "path"), MODULES, ids=[m for m, _ in MODULES])
def test_no_private_name_is_imported_from_another_layer(dotted, path):
    """A name with a leading underscore is its own package's: another layer (or another top-level
    package) that imports it, ``from ..examples import _helper``, depends on what its owner may
    change at will. (A private module of the foundation is imported by name on purpose: see
    `FOUNDATION`; a name inside it is still public or private as it says.)"""
    own = _layer(dotted)
    problems = []
    for line, target, name in _names_imported(dotted, path):
        layer = target[0] if target else name  # "from .. import x": x is the layer itself
        if layer == own or not name.startswith("_") or name.startswith("__"):
            continue
        if not target and layer in FOUNDATION:
            continue  # "from .. import _json": the foundation module, by name
        problems.append(f"line {line}: imports the private name {name} from {'.'.join(target)}")
    assert not problems, "\n".join(problems)


def _private_names_defined(layer: str) -> set[str]:
    """Private names a layer defines itself: functions, classes, attributes set on self."""
    names = set()
    root = PACKAGE / layer if (PACKAGE / layer).is_dir() else PACKAGE / f"{layer}.py"
    for path in [root] if root.is_file() else root.rglob("*.py"):
        for node in nodes(path):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
    return {name for name in names if name.startswith("_")}


@pytest.mark.parametrize("layer", sorted({_layer(m) for m, _ in MODULES}))
def test_no_layer_reaches_into_another_layers_private_attributes(layer):
    own = _private_names_defined(layer)
    problems = []
    for dotted, path in MODULES:
        if _layer(dotted) != layer:
            continue
        for node in nodes(path):
            if not isinstance(node, ast.Attribute) or not node.attr.startswith("_"):
                continue
            if node.attr.startswith("__") or node.attr in own or node.attr in THIRD_PARTY_PRIVATE:
                continue
            if node.attr in NAMED_TUPLE_API:
                continue
            if node.attr.startswith("_repr_"):
                continue
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                continue
            problems.append(f"{dotted} line {node.lineno}: .{node.attr}")
    assert not problems, "\n".join(problems)


def test_the_architecture_test_sees_a_violation(tmp_path):
    """The scan finds an upward import and a private reach when there is one."""
    path = tmp_path / "bad.py"
    path.write_text("from ..widgets._form import Form\nfrom ..client._node import NodeCore\n")
    found = _imports("catalog.bad", path)
    targets = [".".join(t) for _, t in found]
    assert targets == ["widgets._form", "client._node"]


def test_the_private_name_scan_sees_a_violation(tmp_path):
    """The scan finds a private name imported from another layer, and not one of its own."""
    path = tmp_path / "bad.py"
    path.write_text("from ..examples import _helper\nfrom ._form import _field\n")
    found = [(".".join(t), n) for _, t, n in _names_imported("widgets.bad", path)]
    assert found == [("examples", "_helper"), ("widgets._form", "_field")]
    with pytest.raises(AssertionError, match="private name _helper from examples"):
        test_no_private_name_is_imported_from_another_layer("widgets.bad", path)


def _reached_from(start: str, graph: dict[str, set[str]]) -> set[str]:
    """Every module `start` imports, directly or through others (in functions and under
    TYPE_CHECKING too)."""
    reached: set[str] = set()
    todo = [start]
    while todo:
        for target in graph.get(todo.pop(), set()) - reached:
            reached.add(target)
            todo.append(target)
    return reached


def test_the_tape_file_module_imports_nothing_above_it():
    """The tape's file format (`client._tapefile`) is plain functions over paths, bytes and
    dicts: it reaches neither the `Tape` object (`client._tape`) nor any module that reaches it
    (the node, settings, gateway), so the format can be read and changed on its own."""
    graph = {dotted: {".".join(t) for _, t in _imports(dotted, path)} for dotted, path in MODULES}
    above = {"client._tape"} | {m for m in graph if "client._tape" in _reached_from(m, graph)}
    reached = _reached_from("client._tapefile", graph)
    assert "client._node" in above and "client._settings" in above  # the scan sees them
    assert not reached & above, sorted(reached & above)


# Packages whose modules keep their private names to themselves: another module of the package
# reaches them only through a public name (the client's turn comes with its transport seam).
PRIVATE_TO_THEIR_MODULE = ("workloads",)


@pytest.mark.parametrize("package", PRIVATE_TO_THEIR_MODULE)
def test_no_module_reaches_into_another_modules_private_names(package):
    """``from ._bulk import _all_same`` or ``work._run(...)`` in another module (a Dask
    partition running a workload's private run) ties the reader to what its owner may change at
    will: a name one module shares is public in it."""
    modules = [(dotted, path) for dotted, path in MODULES if _layer(dotted) == package]
    defined = {
        dotted: {
            node.name
            for node in nodes(path)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        }
        for dotted, path in modules
    }
    module_names = {dotted.split(".")[-1] for dotted, _ in modules}
    problems = []
    for dotted, path in modules:
        elsewhere = set().union(*(names for other, names in defined.items() if other != dotted))
        for line, _, name in _names_imported(dotted, path):
            if name.startswith("_") and not name.startswith("__") and name not in module_names:
                problems.append(f"{dotted} line {line}: imports the private name {name}")
        for node in nodes(path):
            reached = isinstance(node, ast.Attribute) and node.attr.startswith("_")
            if not reached or node.attr.startswith("__") or node.attr in defined[dotted]:
                continue
            if node.attr in elsewhere and ast.unparse(node.value) not in ("self", "cls"):
                problems.append(f"{dotted} line {node.lineno}: reaches {ast.unparse(node)}")
    assert not problems, "\n".join(problems)
