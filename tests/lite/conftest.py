"""The classroom's JupyterLite site (`make lite`), built and served once a session from a
temporary folder, and the real Pyodide core (docs/classroom.md). Session fixtures: the two
modules that use them share one xdist group ("lite"), so one worker builds the site once."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYODIDE = ROOT / ".tools" / "node_modules" / "pyodide"


@pytest.fixture(scope="session")
def lite_site(tmp_path_factory) -> Path:
    """The site, as `make lite` builds it (the lite tools' venv and the downloaded wheels are
    kept in .tools, so only the first build of a checkout installs and downloads)."""
    site = tmp_path_factory.mktemp("lite") / "site"
    started = time.monotonic()
    done = subprocess.run(
        ["make", "--no-print-directory", "lite", f"LITE_OUT={site}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode:
        pytest.fail(f"make lite failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}")
    print(f"make lite built the site in {time.monotonic() - started:.1f} s")
    return site


@pytest.fixture(scope="session")
def served(lite_site, tmp_path_factory):
    """The site's address, from `make lite-serve` on a free port (the address it prints)."""
    log = tmp_path_factory.mktemp("serve") / "stderr.txt"
    server = subprocess.Popen(
        ["make", "--no-print-directory", "lite-serve", f"LITE_OUT={lite_site}", "LITE_PORT=0"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=log.open("w"),  # the requests' log, and make's word when the server is stopped
        text=True,
        start_new_session=True,
    )
    try:
        for line in server.stdout:
            found = re.search(r"(http://127\.0\.0\.1:\d+)/lab/index\.html \(", line)
            if found:
                yield found.group(1)
                break
        else:
            pytest.fail(f"make lite-serve printed no address:\n{log.read_text()[-4000:]}")
    finally:
        os.killpg(server.pid, signal.SIGTERM)  # make and the server it started
        server.wait(timeout=30)


@pytest.fixture(scope="session")
def pyodide_core() -> Path:
    """The `pyodide` npm package in .tools (`make pyodide-core`)."""
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"{' and '.join(missing)} not found: the real Pyodide core cannot run here")
    if not (PYODIDE / "pyodide.asm.wasm").exists():
        subprocess.run(
            ["make", "--no-print-directory", "pyodide-core"], cwd=ROOT, check=True, timeout=600
        )
    return PYODIDE
