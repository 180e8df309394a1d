"""`pip install node-gateway-toolkit` must resolve in Pyodide 314 (JupyterLite's Python).

Every hard requirement that applies there (its marker evaluated as Pyodide's) must be one of
Pyodide 314's own packages, at a version its range admits, or a pure-Python wheel (the installed
distribution's WHEEL tags say ``none-any``) whose requirements pass the same test in turn.
Pyodide's package list is tests/fixtures/pyodide/pyodide-314-packages.json (from the npm
package's pyodide-lock.json).
"""

from __future__ import annotations

import json
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
PYODIDE = json.loads((ROOT / "tests/fixtures/pyodide/pyodide-314-packages.json").read_text())
PYODIDE_PYTHON = PYODIDE["info"]["python"]
PYODIDE_PACKAGES = {canonicalize_name(name): p for name, p in PYODIDE["packages"].items()}

# What markers see in Pyodide 314: Emscripten on wasm32, its Python.
PYODIDE_ENVIRONMENT = {
    **default_environment(),
    "sys_platform": "emscripten",
    "platform_system": "Emscripten",
    "platform_machine": "wasm32",
    "os_name": "posix",
    "implementation_name": "cpython",
    "platform_python_implementation": "CPython",
    "python_version": ".".join(PYODIDE_PYTHON.split(".")[:2]),
    "python_full_version": PYODIDE_PYTHON,
}
LEFT_OUT_IN_THE_BROWSER = {"solders", "uvicorn"}


def _hard_requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return [Requirement(line) for line in project["dependencies"]]


def _applies_in_pyodide(requirement: Requirement, extras: set[str]) -> bool:
    if requirement.marker is None:
        return True
    return any(
        requirement.marker.evaluate({**PYODIDE_ENVIRONMENT, "extra": extra})
        for extra in (extras or {""})
    )


def _is_pure(dist: metadata.Distribution) -> bool:
    wheel = dist.read_text("WHEEL") or ""
    tags = [line.split(":", 1)[1].strip() for line in wheel.splitlines() if line.startswith("Tag:")]
    return bool(tags) and all(tag.endswith("-none-any") for tag in tags)


def _problems(requirement: Requirement, seen: set[str], path: str) -> list[str]:
    """Why `requirement` cannot be installed in Pyodide 314 (nothing when it can)."""
    name = canonicalize_name(requirement.name)
    where = f"{path} -> {requirement}" if path else str(requirement)
    packaged = PYODIDE_PACKAGES.get(name)
    if packaged is not None:  # Pyodide's build: its own requirements are Pyodide's business
        if not requirement.specifier.contains(packaged["version"], prereleases=True):
            return [f"{where}: Pyodide 314 has {name} {packaged['version']}, outside the range"]
        return []
    if name in seen:
        return []
    seen.add(name)
    try:
        dist = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return [f"{where}: not in Pyodide 314, and not installed here to check it is pure Python"]
    if not _is_pure(dist):
        return [f"{where}: not in Pyodide 314 and not a pure-Python wheel"]
    requires_python = dist.metadata.get("Requires-Python")
    if requires_python and not SpecifierSet(requires_python).contains(PYODIDE_PYTHON):
        return [f"{where}: requires Python {requires_python}, Pyodide 314 has {PYODIDE_PYTHON}"]
    problems = []
    for line in dist.requires or []:
        inner = Requirement(line)
        if _applies_in_pyodide(inner, requirement.extras):
            problems += _problems(inner, seen, where)
    return problems


def test_every_hard_dependency_installs_in_pyodide_314():
    seen: set[str] = set()
    problems = []
    for requirement in _hard_requirements():
        if _applies_in_pyodide(requirement, set()):
            problems += _problems(requirement, seen, "")
    assert problems == []


def test_what_cannot_run_in_a_browser_is_left_out_there_and_kept_on_cpython():
    cpython = {**default_environment(), "sys_platform": "linux"}
    marked = {
        canonicalize_name(r.name) for r in _hard_requirements() if not _applies_in_pyodide(r, set())
    }
    assert marked == LEFT_OUT_IN_THE_BROWSER
    for requirement in _hard_requirements():  # a plain install on CPython stays complete
        assert requirement.marker is None or requirement.marker.evaluate(cpython), requirement


def test_solders_really_has_no_browser_build():
    # uvicorn is pure Python but serves on sockets; solders has no Pyodide build at all. If
    # Pyodide ships one some day, its marker should go.
    assert "solders" not in PYODIDE_PACKAGES
    assert not _is_pure(metadata.distribution("solders"))


def test_the_check_catches_a_package_without_a_browser_build():
    problems = _problems(Requirement("solders>=0.29"), set(), "")
    assert problems == ["solders>=0.29: not in Pyodide 314 and not a pure-Python wheel"]
    assert _problems(Requirement("pandas>=3.1"), set(), "") == [
        "pandas>=3.1: Pyodide 314 has pandas 3.0.2, outside the range"
    ]
