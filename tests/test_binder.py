"""Binder launches must install what the notebooks need, pinned within pyproject's ranges."""

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]


def _pins() -> dict[str, Requirement]:
    lines = (ROOT / "binder" / "requirements.txt").read_text().splitlines()
    requirements = [
        Requirement(line) for line in lines if line.strip() and not line.startswith("#")
    ]
    return {canonicalize_name(r.name): r for r in requirements}


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _notebook_extras(project: dict) -> list[str]:
    """JupyterLab, and Dask for notebook 09's cluster run."""
    extras = project["optional-dependencies"]
    return extras["lab"] + extras["scale"]


def test_every_runtime_and_lab_dependency_is_pinned_within_its_range():
    pins = _pins()
    project = _project()
    wanted = project["dependencies"] + _notebook_extras(project)
    for line in wanted:
        requirement = Requirement(line)
        pin = pins.get(canonicalize_name(requirement.name))
        assert pin is not None, f"{requirement.name} is not pinned in binder/requirements.txt"
        (spec,) = pin.specifier
        assert spec.operator == "==", f"{pin} is not an exact pin"
        assert requirement.specifier.contains(spec.version), f"{pin} is outside {requirement}"
        assert requirement.extras <= pin.extras, f"{pin} lacks the extras of {requirement}"


def test_nothing_is_pinned_that_the_project_does_not_ask_for():
    project = _project()
    names = {
        canonicalize_name(Requirement(line).name)
        for line in project["dependencies"] + _notebook_extras(project)
    }
    assert set(_pins()) <= names


def test_runtime_and_post_build():
    assert (ROOT / "binder" / "runtime.txt").read_text().strip() == "python-3.12"
    post_build = ROOT / "binder" / "postBuild"
    assert post_build.stat().st_mode & 0o111, "postBuild must be executable"
    assert re.search(r"pip install .*-e \.", post_build.read_text())
