"""The classroom's static JupyterLite site (`make lite`): the notebooks in a browser tab.

Run by the Python of the lite tools' venv (jupyterlite-core and the Pyodide kernel, see the
Makefile). The site holds:

- the toolkit's wheel, built from a copy of the sources (a build writes nothing into the
  checkout), and the pure-Python wheels it needs that neither Pyodide 314's distribution nor the
  kernel's own index holds, from PyPI, all in the site's package index (``pypi/all.json``), so
  ``%pip install node-gateway-toolkit`` in a notebook resolves from the site itself;
- the ten notebooks, each with a cell after its title that installs the toolkit and says how
  to replay its tape, their tapes in ``tapes/`` beside them, and ``00_start_here.ipynb``.

Pyodide itself (the interpreter and its packages: numpy, pandas...) comes from the kernel's
default CDN when the site is opened, unless ``--pyodide`` names a Pyodide release tarball to put
in the site (then nothing is fetched from elsewhere).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import urllib.parse
import urllib.request
import zipfile
from email.parser import BytesParser
from pathlib import Path
from typing import BinaryIO

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name, parse_wheel_filename
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
LITE = ROOT / "lite"
# Pyodide 314's package list, as the tests read it (tests/fixtures/pyodide/README.md).
PYODIDE_PACKAGES = ROOT / "tests" / "fixtures" / "pyodide" / "pyodide-314-packages.json"
PYPI = "https://pypi.org/pypi"
# The sources a wheel is built from (MANIFEST.in and pyproject.toml say what goes in).
WHEEL_SOURCES = ("pyproject.toml", "README.md", "LICENSE", "MANIFEST.in", "toolkit")
SETUP_CELL_TAG = "lite-setup"
# The Pyodide kernel's name in JupyterLite ("python3" is the CPython kernel's).
PYODIDE_KERNELSPEC = {"display_name": "Python (Pyodide)", "language": "python", "name": "python"}
# The cell each notebook in the site gains after its title. A kernel in JupyterLite is one
# browser worker per notebook, so each notebook installs the toolkit itself (from the site: a
# second time, from the browser's cache). Its cwd is the notebook's folder, where tapes/ is.
SETUP_CELL = """\
# In the browser (JupyterLite): the toolkit from this site's own package index; pandas, numpy
# and matplotlib come from Pyodide's distribution as they are first needed.
%pip install -q node-gateway-toolkit
# This notebook runs live, on the in-process sandbox (no server, no key). To replay it from its
# tape instead (the answers its committed outputs show), remove the # of the next two lines.
# import os
# os.environ.update(NODE_GATEWAY_TAPE="tapes/{tape}", NODE_GATEWAY_TAPE_MODE="replay")
"""


def pyodide_environment(extra: str = "") -> dict[str, str]:
    """PEP 508 marker values inside a JupyterLite kernel (Pyodide 314: CPython 3.14, wasm32)."""
    info = json.loads(PYODIDE_PACKAGES.read_text())["info"]
    full = info["python"]
    return {
        "sys_platform": "emscripten",
        "platform_system": "Emscripten",
        "platform_machine": "wasm32",
        "os_name": "posix",
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
        "python_version": ".".join(full.split(".")[:2]),
        "python_full_version": full,
        "extra": extra,
    }


def provided_names(kernel_index: Path | None) -> set[str]:
    """The packages a kernel in the site gets without our index: Pyodide's distribution, and
    the kernel's own wheels (its ipykernel and widgetsnbextension stand-ins, piplite)."""
    names = set(json.loads(PYODIDE_PACKAGES.read_text())["packages"])
    if kernel_index is not None:
        names |= set(json.loads(kernel_index.read_text()))
    return {canonicalize_name(name) for name in names}


def build_toolkit_wheel(uv: str, out: Path) -> Path:
    """The toolkit's wheel, built from a copy of its sources (setuptools writes build/ and
    egg-info beside the sources it builds)."""
    with tempfile.TemporaryDirectory(prefix="lite-wheel-") as scratch:
        source = Path(scratch) / "src"
        for name in WHEEL_SOURCES:
            path = ROOT / name
            if path.is_dir():
                shutil.copytree(path, source / name, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                source.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, source / name)
        subprocess.run(
            [uv, "build", "--quiet", "--wheel", "--out-dir", str(out), str(source)], check=True
        )
    (wheel,) = out.glob("node_gateway_toolkit-*.whl")
    return wheel


def wheel_requirements(wheel: Path | BinaryIO) -> list[Requirement]:
    """A wheel's Requires-Dist, markers kept."""
    with zipfile.ZipFile(wheel) as archive:
        (name,) = (n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = BytesParser().parsebytes(archive.read(name))
    return [Requirement(line) for line in metadata.get_all("Requires-Dist") or []]


def _pypi_json(name: str) -> dict:
    with urllib.request.urlopen(f"{PYPI}/{name}/json", timeout=60) as answer:
        return json.load(answer)


def _pure_wheel(files: list[dict]) -> dict | None:
    for file in files:
        if file["packagetype"] == "bdist_wheel" and not file.get("yanked"):
            _, _, _, tags = parse_wheel_filename(file["filename"])
            if any(tag.abi == "none" and tag.platform == "any" for tag in tags):
                return file
    return None


def newest_pure_release(requirement: Requirement, python: str) -> tuple[str, dict] | None:
    """The newest release `requirement` allows that has a pure-Python wheel for `python`."""
    releases = _pypi_json(requirement.name)["releases"]
    for text in sorted(releases, key=_version_or_oldest, reverse=True):
        version = _version_or_oldest(text)
        if version.is_prerelease or not requirement.specifier.contains(version):
            continue
        wheel = _pure_wheel(releases[text])
        if wheel is None:
            continue
        requires_python = wheel.get("requires_python")
        if requires_python and not SpecifierSet(requires_python).contains(python):
            continue
        return text, wheel
    return None


def _version_or_oldest(text: str) -> Version:
    try:
        return Version(text)
    except ValueError:
        return Version("0.dev0")


def pure_wheels_needed(
    requirements: list[Requirement],
    provided: set[str],
    cache: Path,
    pins: dict[str, str] | None = None,
) -> tuple[list[Path], list[str]]:
    """The pure-Python wheels (downloaded into `cache`, reused from it) that `requirements`
    need in a kernel beyond `provided`, followed through their own dependencies, at the version
    `pins` names for a package (else the newest allowed); and the requirements that have neither
    (a build for Pyodide nor a pure wheel), as messages."""
    python = pyodide_environment()["python_full_version"]
    wheels: list[Path] = []
    unmet: list[str] = []
    seen: set[str] = set()
    pending = list(requirements)
    while pending:
        requirement = pending.pop(0)
        name = canonicalize_name(requirement.name)
        marker = requirement.marker
        if marker is not None and not marker.evaluate(pyodide_environment()):
            continue
        if name in provided or name in seen:
            continue
        seen.add(name)
        if pins and name in pins:
            requirement.specifier = SpecifierSet(f"=={pins[name]}")
        found = newest_pure_release(requirement, python)
        if found is None:
            unmet.append(f"{requirement}: neither in Pyodide 314 nor a pure-Python wheel on PyPI")
            continue
        _, file = found
        wheel = cache / file["filename"]
        if not wheel.exists():
            cache.mkdir(parents=True, exist_ok=True)
            url = urllib.parse.urljoin(f"{PYPI}/{requirement.name}/json", file["url"])
            with urllib.request.urlopen(url, timeout=120) as answer:
                wheel.with_suffix(".part").write_bytes(answer.read())
            wheel.with_suffix(".part").rename(wheel)
        wheels.append(wheel)
        for dependency in wheel_requirements(wheel):  # the wheel's own metadata
            if dependency.marker is not None:
                extras = requirement.extras or {""}
                if not any(dependency.marker.evaluate(pyodide_environment(e)) for e in extras):
                    continue
                dependency.marker = None  # evaluated here, with the extras that asked for it
            pending.append(dependency)
    return wheels, unmet


def setup_cell(notebook: Path) -> dict:
    """The cell `notebook` gains in the site after its title (SETUP_CELL, naming its tape)."""
    source = SETUP_CELL.format(tape=notebook.stem + ".tape.gz")
    return {
        "cell_type": "code",
        "execution_count": None,
        "id": SETUP_CELL_TAG,
        "metadata": {"tags": [SETUP_CELL_TAG]},
        "outputs": [],
        "source": source.splitlines(keepends=True),
    }


def stage_contents(contents: Path) -> list[str]:
    """The notebooks (a setup cell first), their tapes and the class's landing notebook."""
    contents.mkdir(parents=True)
    shutil.copy2(LITE / "00_start_here.ipynb", contents / "00_start_here.ipynb")
    names = []
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        document = json.loads(notebook.read_text())
        cells = document["cells"]
        title = 1 if cells and cells[0]["cell_type"] == "markdown" else 0
        cells.insert(title, setup_cell(notebook))  # after the notebook's title
        document["metadata"]["kernelspec"] = PYODIDE_KERNELSPEC
        (contents / notebook.name).write_text(json.dumps(document, indent=1) + "\n")
        names.append(notebook.name)
    shutil.copytree(ROOT / "notebooks" / "tapes", contents / "tapes")
    return names


def build(out: Path, uv: str, cache: Path, pyodide: str | None) -> None:
    kernel_index = _kernel_index()
    with tempfile.TemporaryDirectory(prefix="lite-") as scratch:
        staging = Path(scratch)
        wheel = build_toolkit_wheel(uv, staging / "wheel")
        wheels, unmet = pure_wheels_needed(
            wheel_requirements(wheel), provided_names(kernel_index), cache
        )
        for message in unmet:
            print(f"lite: WARNING {message}: `%pip install` in the site cannot resolve it")
        stage_contents(staging / "contents")
        site_config = staging / "jupyter-lite.json"
        shutil.copy2(LITE / "jupyter-lite.json", site_config)
        command = [sys.executable, "-m", "jupyterlite_core", "build"]
        command += ["--lite-dir", str(staging), "--contents", str(staging / "contents")]
        command += ["--output-dir", str(out), "--no-sourcemaps"]  # a third of the size
        for path in [wheel, *wheels]:
            command += ["--piplite-wheels", str(path)]
        if pyodide:
            command += ["--pyodide", pyodide]
        if out.exists():
            shutil.rmtree(out)
        subprocess.run(command, check=True, cwd=staging)
    print(f"lite: the site is in {out}: {wheel.name} and {len(wheels)} pure-Python wheels")
    for path in wheels:
        print(f"lite:   {path.name}")


def _kernel_index() -> Path | None:
    """The Pyodide kernel's own wheel index, installed with its JupyterLab extension."""
    share = Path(sys.prefix) / "share" / "jupyter" / "labextensions" / "@jupyterlite"
    found = sorted(share.glob("pyodide-kernel-extension/static/pypi/all.json"))
    return found[0] if found else None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="the site's folder (replaced)")
    parser.add_argument("--uv", default="uv", help="the uv that builds the toolkit's wheel")
    parser.add_argument("--cache", type=Path, required=True, help="downloaded wheels, reused")
    parser.add_argument("--pyodide", help="a Pyodide release tarball (path or URL) to host too")
    args = parser.parse_args(argv)
    build(args.out.resolve(), args.uv, args.cache.resolve(), args.pyodide)


if __name__ == "__main__":
    main()
