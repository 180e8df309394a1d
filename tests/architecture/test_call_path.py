"""The call path's shape, enforced (docs/architecture.md): no import circle, the
client's modules share no private names, no class or file grows past what one reader takes in,
and what a tape is doing is asked in few places."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.source_trees import nodes

PACKAGE = Path(__file__).resolve().parents[2] / "toolkit"
MAX_CLASS_LINES = 350  # in toolkit/client
MAX_FILE_LINES = 750  # hand-written files of toolkit/client and toolkit/workloads
# Outside the tape's own modules, the files that may ask whether a tape is replaying.
ASK_THE_TAPE = 2


def _modules(root: Path = PACKAGE) -> dict[str, Path]:
    """Every module of the package by its dotted name (a package by its own name)."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _targets(dotted: str, path: Path, node: ast.ImportFrom, known: dict[str, Path]) -> list[str]:
    """The package's modules that ``from ... import`` reads: a submodule when a name is one,
    else the module named."""
    package = dotted.split(".") if path.name == "__init__.py" else dotted.split(".")[:-1]
    if node.level:
        target = package[: len(package) - (node.level - 1)]
        target += node.module.split(".") if node.module else []
    elif node.module and node.module.split(".")[0] == PACKAGE.name:
        target = node.module.split(".")
    else:
        return []
    named = [".".join([*target, alias.name]) for alias in node.names]
    return [name if name in known else ".".join(target) for name in named]


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    """Module -> the package's modules it imports anywhere: at the top, inside a function, or
    under TYPE_CHECKING (each is a circle a reader must untie)."""
    known = _modules(root)
    graph: dict[str, set[str]] = {}
    for dotted, path in known.items():
        edges: set[str] = set()
        for node in nodes(path):
            if isinstance(node, ast.ImportFrom):
                edges.update(_targets(dotted, path, node, known))
            elif isinstance(node, ast.Import):
                edges.update(alias.name for alias in node.names)
        graph[dotted] = {edge for edge in edges if edge in known and edge != dotted}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    work.append((step, iter(sorted(graph[step]))))
                elif step in stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_no_module_of_the_package_imports_itself_round_a_circle():
    assert circles(import_graph()) == []


def test_the_circle_check_sees_one(tmp_path):
    package = tmp_path / PACKAGE.name
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "_a.py").write_text("from ._b import B\nA = 1\n")
    (package / "_b.py").write_text("def f():\n    from ._a import A\n    return A\nB = 2\n")
    assert circles(import_graph(package)) == [[f"{PACKAGE.name}._a", f"{PACKAGE.name}._b"]]


def test_no_client_module_imports_a_private_name_of_another():
    taken = []
    modules = {path.stem for path in (PACKAGE / "client").glob("*.py")}  # `from . import _http`
    for path in sorted((PACKAGE / "client").glob("*.py")):
        for node in nodes(path):
            if isinstance(node, ast.ImportFrom) and node.level:
                names = [a.name for a in node.names if a.name not in modules]
                private = [name for name in names if re.match(r"_[^_]", name)]
                taken += [f"{path.name}:{node.lineno} {name}" for name in private]
    assert taken == []


def _classes(path: Path) -> Iterator[tuple[str, int]]:
    for node in nodes(path):
        if isinstance(node, ast.ClassDef):
            assert node.end_lineno is not None
            yield node.name, node.end_lineno - node.lineno + 1


def test_no_class_of_the_client_outgrows_one_sitting():
    large = {
        f"{path.name}:{name}": lines
        for path in sorted((PACKAGE / "client").glob("*.py"))
        for name, lines in _classes(path)
        if lines > MAX_CLASS_LINES
    }
    assert large == {}


@pytest.mark.parametrize("package", ["client", "workloads"])
def test_no_hand_written_file_of_the_call_path_outgrows_one_sitting(package):
    # *.py only: `_helpers.pyi` is generated from the catalog (`python -m toolkit.client._stubs`).
    lengths = {p.name: len(p.read_text().splitlines()) for p in (PACKAGE / package).glob("*.py")}
    assert {name: n for name, n in lengths.items() if n > MAX_FILE_LINES} == {}


def test_few_places_ask_whether_a_tape_is_replaying():
    # Asked of a tape (`tape.replaying`, `shared.tape.replaying`); the clock a replay sets
    # (`GatewayClock.replaying`) is what everything else reads.
    asking = sorted(
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if "tape" not in path.name and re.search(r"\btape\.replaying", path.read_text())
    )
    assert len(asking) <= ASK_THE_TAPE, asking
