"""`make lite` builds a static site holding the notebooks, their tapes and the toolkit's wheel,
and `make lite-serve` serves them on 127.0.0.1 (real HTTP GETs against the make target)."""

from __future__ import annotations

import json
import urllib.request
import zipfile
from io import BytesIO

import nbformat
import pytest
from packaging.utils import canonicalize_name

from .conftest import ROOT

pytestmark = pytest.mark.xdist_group("lite")  # one worker builds the site once for both modules

NOTEBOOKS = sorted(path.name for path in (ROOT / "notebooks").glob("*.ipynb"))


def get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as answer:
        assert answer.status == 200
        return answer.read()


def test_the_site_serves_the_lab_and_its_landing_notebook(served):
    assert b"<html" in get(f"{served}/lab/index.html").lower()
    config = json.loads(get(f"{served}/jupyter-lite.json"))["jupyter-config-data"]
    assert config["defaultKernelName"] == "python"  # Pyodide's kernel
    with urllib.request.urlopen(f"{served}/bootstrap.js", timeout=30) as script:
        assert script.headers["Content-Type"] in {"text/javascript", "application/javascript"}
    landing = json.loads(get(f"{served}/files/00_start_here.ipynb"))
    nbformat.validate(landing)
    text = "".join("".join(cell["source"]) for cell in landing["cells"])
    assert "%pip install -q node-gateway-toolkit" in text
    assert "01_quickstart" in text


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_each_notebook_is_served_with_its_setup_cell_and_its_tape(served, name):
    notebook = json.loads(get(f"{served}/files/{name}"))
    nbformat.validate(notebook)  # a cell id of its own, the Pyodide kernel's spec
    original = json.loads((ROOT / "notebooks" / name).read_text())
    setup = notebook["cells"][1]
    assert setup["metadata"]["tags"] == ["lite-setup"]
    tape = name.removesuffix(".ipynb") + ".tape.gz"
    assert "%pip install -q node-gateway-toolkit" in "".join(setup["source"])
    assert f'NODE_GATEWAY_TAPE="tapes/{tape}"' in "".join(setup["source"])
    assert notebook["cells"][:1] + notebook["cells"][2:] == original["cells"]
    assert notebook["metadata"]["kernelspec"]["name"] == "python"
    assert get(f"{served}/files/tapes/{tape}") == (ROOT / "notebooks" / "tapes" / tape).read_bytes()


def test_the_site_index_serves_the_toolkit_wheel_and_the_pure_wheels_it_needs(served):
    index = json.loads(get(f"{served}/pypi/all.json"))
    (release,) = index["node-gateway-toolkit"]["releases"].values()
    wheel = get(f"{served}/pypi/{release[0]['url'].rsplit('/', 1)[-1]}")
    with zipfile.ZipFile(BytesIO(wheel)) as archive:
        assert "toolkit/client/_gateway.py" in archive.namelist()
    # What Pyodide 314's distribution lacks, from PyPI, pure Python (the rest, pandas and numpy
    # among them, come from Pyodide's own packages when the site is opened).
    assert {"base58", "filelock", "eth-hash", "ipywidgets", "comm"} <= set(index)
    packages = json.loads((ROOT / "tests/fixtures/pyodide/pyodide-314-packages.json").read_text())
    assert not set(index) & set(packages["packages"])
    for name, entry in index.items():
        for files in entry["releases"].values():
            assert all(file["url"].endswith("-none-any.whl") for file in files), name


def test_each_requirement_of_the_toolkit_resolves_in_a_kernel_of_the_site(served):
    """What `%pip install node-gateway-toolkit` asks for in the site's kernel (each served
    wheel's requirements, their markers evaluated as Pyodide 314 would) is in Pyodide's
    distribution, the kernel's own index or the site's: none is missing, none goes to PyPI."""
    from .test_pyodide import lite_build

    build = lite_build()
    index = json.loads(get(f"{served}/pypi/all.json"))
    kernel = "extensions/@jupyterlite/pyodide-kernel-extension/static/pypi/all.json"
    provided = build.provided_names(None) | set(json.loads(get(f"{served}/{kernel}")))
    unmet = []
    for name, entry in index.items():
        for files in entry["releases"].values():
            wheel = get(f"{served}/pypi/{files[0]['url'].rsplit('/', 1)[-1]}")
            for requirement in build.wheel_requirements(BytesIO(wheel)):
                marker = requirement.marker
                if marker is not None and not marker.evaluate(build.pyodide_environment()):
                    continue
                if canonicalize_name(requirement.name) not in provided | set(index):
                    unmet.append(f"{name} needs {requirement}")
    assert unmet == []
