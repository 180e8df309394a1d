"""Packaging a user can trust: the sdist and the wheel are built as a release would build them
(`python -m build`, isolated), hold the whole package and nothing half-shipped, carry their
metadata, and each installs into a fresh venv, dependencies from the package index, where a
smoke test runs the sandbox, a call, a frame and a plot. binder/postBuild installs with an old
setuptools in the image.
"""

from __future__ import annotations

import email
import json
import shutil
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("pyproject.toml", "README.md", "CHANGELOG.md", "LICENSE", "MANIFEST.in", "toolkit")
INSTALL_S = 600  # dependencies from the index on a busy 2-core machine

SMOKE = """
import importlib.resources, json, sys
import matplotlib
matplotlib.use("Agg")
import toolkit
from toolkit import frames, plots
from toolkit.sandbox import DEMO
assert sys.prefix in toolkit.__file__, toolkit.__file__  # the installed copy, not the checkout
gw = toolkit.connect()
eth = gw.node("ethereum-mainnet")
alice = DEMO.evm.accounts["alice"]
records = [(alice, block, eth.get_balance(alice, block=hex(block))) for block in (1, 2, 3)]
figure, _ = plots.plot_balances(frames.evm_balances(records))
print(json.dumps({
    "typed": importlib.resources.files("toolkit").joinpath("py.typed").is_file(),
    "version": toolkit.__version__,
    "ledger": len(gw.ledger.frame),
    "axes": len(figure.axes),
}))
"""


def package_files() -> set[str]:
    """The toolkit's files as git knows them (new files included), relative to the root."""
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return {p for p in listed if p.startswith("toolkit/") and (ROOT / p).exists()}


def copy_sources(names: tuple[str, ...], destination: Path) -> Path:
    destination.mkdir(parents=True)
    for name in names:
        if (ROOT / name).is_dir():
            ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
            shutil.copytree(ROOT / name, destination / name, ignore=ignore)
        else:
            shutil.copy2(ROOT / name, destination / name)
    return destination


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory) -> dict[str, Path]:
    """The sdist, and the wheel built from it, from a copy of the sources (no build files are
    written into the checkout)."""
    work = tmp_path_factory.mktemp("packaging")
    source = copy_sources(SOURCES, work / "source")
    dist = work / "dist"
    # Isolated, the build requirements in an environment of their own, made with uv where
    # there is one (as `pip_install` installs): build's pip took 20 s of CPU for it, uv 4.
    installer = ["--installer=uv"] if uv_command() else []
    built = subprocess.run(
        [sys.executable, "-m", "build", *installer, "--outdir", str(dist), str(source)],
        capture_output=True,
        text=True,
        timeout=INSTALL_S,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (sdist,), (wheel,) = dist.glob("*.tar.gz"), dist.glob("*.whl")
    return {"sdist": sdist, "wheel": wheel}


def test_the_sdist_ships_the_package_whole_and_no_half_test_suite(artifacts):
    with tarfile.open(artifacts["sdist"]) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    assert package_files() <= names  # every module, py.typed included
    assert {"LICENSE", "README.md", "CHANGELOG.md", "pyproject.toml", "PKG-INFO"} <= names
    assert not [n for n in names if n.startswith(("tests/", "bench/", "notebooks/", "binder/"))]
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]


def test_the_wheel_holds_every_module_and_its_metadata(artifacts):
    with zipfile.ZipFile(artifacts["wheel"]) as wheel:
        names = set(wheel.namelist())
        (metadata_name,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        metadata = email.message_from_bytes(wheel.read(metadata_name))
    assert package_files() <= names
    assert metadata["Name"] == "node-gateway-toolkit"
    assert metadata["Requires-Python"] == ">=3.11"
    assert metadata["License-Expression"] == "MIT"
    assert metadata["Author"] or metadata["Author-email"]
    classifiers = metadata.get_all("Classifier")
    assert "Typing :: Typed" in classifiers
    tested = {f"Programming Language :: Python :: 3.{minor}" for minor in (11, 12, 13)}
    assert tested <= set(classifiers)
    urls = dict(url.split(", ", 1) for url in metadata.get_all("Project-URL"))
    assert set(urls) == {"Homepage", "Documentation", "Changelog", "Issues"}
    assert all(url.startswith("https://") for url in urls.values())
    assert urls["Changelog"].endswith("/CHANGELOG.md")
    requires = metadata.get_all("Requires-Dist")
    assert any(r.startswith("httpx") and "<1" in r for r in requires), requires


def test_the_changelog_has_the_current_version():
    import re

    from toolkit import __version__

    headings = re.findall(r"^## (.+)$", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert headings[0] == "Unreleased" or headings[0].startswith(__version__)
    assert any(heading.split()[0] == __version__ for heading in headings), headings


def fresh_venv(where: Path, *, with_pip: bool = False) -> Path:
    venv.EnvBuilder(with_pip=with_pip).create(where)
    return where / "bin" / "python"


def uv_command() -> str | None:
    """uv (a dev tool), from this venv or the PATH, if there is one."""
    return shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")


def pip_install(python: Path, *arguments: str) -> None:
    """Install into the venv of ``python`` as a user would, from the package index: with uv (a
    dev tool, which resolves as pip does in a fraction of the time) or pip where uv is missing."""
    uv = uv_command()
    command = (
        [uv, "pip", "install", "--quiet", "--python", str(python)]
        if uv
        else [str(python), "-m", "pip", "install", "--quiet"]
    )
    done = subprocess.run([*command, *arguments], capture_output=True, text=True, timeout=INSTALL_S)
    assert done.returncode == 0, done.stderr[-3000:]


def smoke_test(python: Path) -> None:
    smoke = subprocess.run(
        [str(python), "-c", SMOKE], capture_output=True, text=True, timeout=120, cwd=python.parent
    )
    assert smoke.returncode == 0, smoke.stderr[-3000:]
    report = json.loads(smoke.stdout.strip().splitlines()[-1])
    assert report["typed"] is True and report["axes"] >= 1
    assert report["ledger"] >= 3  # the three balances (and the head the archive rule asked)
    assert (python.parent / "node-gateway-toolkit").exists()  # the console script


@pytest.fixture(scope="module")
def wheel_venv(artifacts, tmp_path_factory) -> Path:
    """A fresh venv with the wheel and the dependencies it declares, from the package index."""
    python = fresh_venv(tmp_path_factory.mktemp("wheel") / "venv")
    pip_install(python, str(artifacts["wheel"]))
    return python


def test_the_wheel_installs_into_a_fresh_venv_with_its_dependencies_and_runs(wheel_venv):
    smoke_test(wheel_venv)


def test_the_sdist_builds_and_installs_into_a_fresh_venv_and_runs(artifacts, wheel_venv, tmp_path):
    python = fresh_venv(tmp_path / "venv")
    # The dependencies the wheel's venv resolved, visible after this venv's own packages (the
    # toolkit itself comes from the sdist): installing them twice would add minutes, not truth.
    (site,) = python.parent.parent.glob("lib/python3.*/site-packages")
    (dependencies,) = wheel_venv.parent.parent.glob("lib/python3.*/site-packages")
    (site / "dependencies.pth").write_text(f"{dependencies}\n")
    pip_install(python, "--no-deps", str(artifacts["sdist"]))
    smoke_test(python)


def test_binder_post_build_installs_with_an_old_setuptools(tmp_path):
    """repo2docker images may have an old setuptools (70 was seen); postBuild must not need 77."""
    checkout = copy_sources((*SOURCES, "binder"), tmp_path / "checkout")
    bin_dir = fresh_venv(tmp_path / "venv", with_pip=True).parent  # postBuild runs pip
    pip_install(bin_dir / "python", "setuptools==70.3.0")
    path = f"{bin_dir}:/usr/bin:/bin"
    done = subprocess.run(
        ["bash", "binder/postBuild"],
        cwd=checkout,
        env={"PATH": path, "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=INSTALL_S,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    shown = subprocess.run(
        [str(bin_dir / "python"), "-m", "pip", "show", "node-gateway-toolkit"],
        capture_output=True,
        text=True,
    )
    assert "Editable project location" in shown.stdout
