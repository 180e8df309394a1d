"""Conventions a user relies on across the toolkit, enforced on the source."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.docstrings import public_docstrings
from tests.source_trees import nodes

PACKAGE = Path(__file__).resolve().parents[2] / "toolkit"


def test_every_frame_accessor_is_a_property():
    """`gw.ledger.frame`, `preview.frame`, `explorer.frame`, `presentation.frame`: a table a
    handle holds is read as `.frame`, never called, whichever class holds it."""
    methods = []
    for path in PACKAGE.rglob("*.py"):
        for node in nodes(path):
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
        for node in nodes(path):
            if isinstance(node, ast.ClassDef):
                found.setdefault(node.name, str(path.relative_to(PACKAGE.parent)))
    return found


def test_no_class_name_means_two_things_across_client_and_sandbox():
    """The client and the sandbox both speak of answers, endpoints and nodes; a class name in both
    (an `Answer` the client reads and one the sandbox writes) would make either's code misread."""
    client, sandbox = _class_names("client"), _class_names("sandbox")
    shared = sorted(client.keys() & sandbox.keys())
    assert not shared, [(name, client[name], sandbox[name]) for name in shared]


def test_no_class_name_means_two_things_within_a_package():
    """Two classes of one name in one package (the workloads' `Journal` of a dataset's rows and
    `Journal` of a distributed run's spending, once) make a reader take one for the other."""
    twice = []
    for package in sorted(p for p in PACKAGE.iterdir() if (p / "__init__.py").exists()):
        seen: dict[str, str] = {}
        for path in sorted(package.rglob("*.py")):
            for node in nodes(path):
                if isinstance(node, ast.ClassDef):
                    where = str(path.relative_to(PACKAGE.parent))
                    if seen.setdefault(node.name, where) != where:
                        twice.append(f"{node.name}: {seen[node.name]} and {where}")
    assert not twice, twice


def _private_module_names() -> set[str]:
    return {
        path.stem for path in PACKAGE.rglob("_*.py") if path.stem not in ("__init__", "__main__")
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
        for where, doc in public_docstrings()
        for line in doc.splitlines()
        if private.search(line)
    ]
    assert not found, "\n".join(found)


def test_the_drivers_ask_a_transport_nothing_but_the_contract():
    """`drive_sync` and `drive_async` call `send`/`asend` on whatever transport they are given
    (the network's, a tape's, a user's): the only type they test is the step's (`Sleep`)."""
    tree = ast.parse((PACKAGE / "client" / "_transport.py").read_text())
    drivers = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.name in ("drive_sync", "drive_async")
    ]
    assert len(drivers) == 2
    tested = {
        ast.unparse(call.args[0])
        for driver in drivers
        for call in ast.walk(driver)
        if isinstance(call, ast.Call) and ast.unparse(call.func) in ("isinstance", "type")
    }
    assert tested == {"step"}, tested
    used = {
        node.attr
        for driver in drivers
        for node in ast.walk(driver)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "transport"
    }
    assert used <= {"send", "asend"}, used
