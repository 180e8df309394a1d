"""The classroom's JupyterLite site (`make lite`), built once a session into a temporary folder,
and the wheels a kernel in it would take (docs/classroom.md)."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


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
