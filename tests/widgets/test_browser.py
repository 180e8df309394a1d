"""End to end: the explorer in a real JupyterLab, driven by headless Chromium through Playwright.

It needs Debian's `chromium` at /usr/bin/chromium and the `playwright` package (never a browser
that Playwright downloads). When either is missing the test fails under ``CI=true`` and is skipped,
with the reason printed, anywhere else. JupyterLab runs on 127.0.0.1 with a token, its HOME and
Jupyter directories in a temporary folder, and is opened with ``?reset`` (a clean workspace).

The screenshot goes to the folder named by ``TOOLKIT_TEST_ARTIFACTS`` (the test's temporary folder
when unset, so a run never writes into the checkout); the README's copy,
docs/images/explorer.png, is written when missing or when ``TOOLKIT_UPDATE_DOCS_IMAGES=1``, so that
a test run does not change a tracked file every time.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",  # needed as root
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
REPO = Path(__file__).resolve().parents[2]
DOCS_IMAGE = REPO / "docs" / "images" / "explorer.png"
TIMEOUT_MS = 90_000  # a first import and sandbox start on a busy machine
START_S = 120  # a cold JupyterLab on a busy 2-core machine can take a minute to listen
NOTEBOOK = {
    "cells": [
        {
            "cell_type": "code",
            "execution_count": None,
            "id": "explorer",
            "metadata": {},
            "outputs": [],
            "source": ["import toolkit.widgets\n", "toolkit.widgets.explorer()"],
        }
    ],
    "metadata": {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}
    },
    "nbformat": 4,
    "nbformat_minor": 5,
}


def require_browser_tools() -> None:
    missing = []
    if not CHROMIUM.exists():
        missing.append(f"Chromium at {CHROMIUM} (apt-get install -y chromium)")
    for package in ("playwright", "jupyterlab"):
        if importlib.util.find_spec(package) is None:
            missing.append(f"the {package} package (pip install {package})")
    if not missing:
        return
    reason = "the browser test needs " + " and ".join(missing)
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(reason)
    print(reason)
    pytest.skip(reason)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def lab(tmp_path):
    """A JupyterLab server on loopback with every Jupyter directory under `tmp_path`."""
    require_browser_tools()
    notebooks, config = tmp_path / "notebooks", tmp_path / "config"
    for folder in (notebooks, config / "labconfig", tmp_path / "home", tmp_path / "data"):
        folder.mkdir(parents=True)
    (notebooks / "explorer.ipynb").write_text(json.dumps(NOTEBOOK))
    # The news prompt would cover the notebook, and it fetches from the internet.
    announcements = "@jupyterlab/apputils-extension:announcements"
    page_config = {"disabledExtensions": {announcements: True}}
    (config / "labconfig" / "page_config.json").write_text(json.dumps(page_config))
    env = {
        **os.environ,
        "HOME": str(tmp_path / "home"),
        "JUPYTER_CONFIG_DIR": str(config),
        "JUPYTER_DATA_DIR": str(tmp_path / "data"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
        "IPYTHONDIR": str(tmp_path / "home" / ".ipython"),
    }
    env = {k: v for k, v in env.items() if not k.startswith("NODE_GATEWAY_")}
    port, token = free_port(), os.urandom(16).hex()
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={port}",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={notebooks}",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.extension_manager=readonly",
        "--LabApp.news_url=None",
    ]
    if os.geteuid() == 0:
        command.append("--allow-root")
    log_path = tmp_path / "jupyterlab.log"
    with log_path.open("w") as log:
        server = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(server, f"{base}/api/status?token={token}", log_path)
        yield f"{base}/lab/tree/explorer.ipynb?reset&token={token}"
    finally:
        server.terminate()  # the server shuts its kernels down on SIGTERM
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def wait_until_serving(server: subprocess.Popen, status_url: str, log_path: Path) -> None:
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"JupyterLab exited:\n{log_path.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(status_url, timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    pytest.fail(f"JupyterLab did not start in {START_S} s:\n{log_path.read_text()[-3000:]}")


def sandbox_secrets() -> list[str]:
    """The keys of the sandbox the notebook's kernel starts (same default seed, never started)."""
    from toolkit.sandbox import Sandbox

    world = Sandbox().world
    return [world.api_key, *(node.key for node in world.nodes)]


def test_explorer_in_jupyterlab(lab, tmp_path):
    from playwright.sync_api import expect, sync_playwright

    artifacts = Path(os.environ.get("TOOLKIT_TEST_ARTIFACTS") or tmp_path / "artifacts")
    artifact = artifacts / "widgets" / "explorer.png"

    started = time.monotonic()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"),
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport={"width": 1400, "height": 1100},
        )
        try:
            page = browser.pages[0] if browser.pages else browser.new_page()
            page.set_default_timeout(TIMEOUT_MS)
            expect.set_options(timeout=TIMEOUT_MS)
            page.goto(lab)
            # The kernel's own status, not the notebook's indicator: that one reads "idle"
            # before any kernel exists, and a cell run then is lost.
            expect(page.locator(".jp-StatusBar-TextItem", has_text="(ipykernel)")).to_have_text(
                "Python 3 (ipykernel) | Idle"
            )
            page.keyboard.press("Control+b")  # hide the file browser: a wider notebook
            page.locator(".jp-Cell .jp-InputArea-editor").first.click()
            page.keyboard.press("Shift+Enter")

            explorer = page.locator(".toolkit-explorer")
            expect(explorer).to_have_count(1)  # rendered by the widgets extension, and once
            expect(explorer).to_contain_text("14 nodes, 7 running")

            nodes = page.locator(".toolkit-node-list select")
            nodes.select_option(
                value=nodes.locator("option", has_text="ethereum-mainnet").get_attribute("value")
            )
            methods = page.locator(".toolkit-method-picker select")
            expect(methods).to_be_enabled()
            methods.select_option("eth_getBalance")

            preview = page.locator(".toolkit-ru-preview")
            expect(preview).to_contain_text("1 RU: tag 'latest' is a full request")
            page.locator(".toolkit-param-block input").fill("0x1")
            expect(preview).to_contain_text("2 RU: block 1 is ")
            expect(preview).not_to_contain_text("1 RU")

            run = page.locator(".toolkit-run")
            run.click()
            result = page.locator(".toolkit-result table")
            expect(result).to_contain_text("0xDf9082b26B6033abd8d3814774A0fE3816490f2c")
            expect(page.locator(".toolkit-result")).to_contain_text("2 RU (archive)")
            expect(page.locator(".toolkit-ledger-table")).to_contain_text("eth_getBalance")

            # A block with money in it, for a screenshot worth showing.
            page.locator(".toolkit-param-block input").fill("20000000")
            expect(preview).to_contain_text("2 RU: block 20,000,000 is ")
            run.click()
            expect(result).to_contain_text("20,000,000")  # numbers written for people

            shown = explorer.inner_text()
            for secret in sandbox_secrets():
                assert secret not in shown and secret not in explorer.inner_html()
            assert "http://" not in shown

            artifact.parent.mkdir(parents=True, exist_ok=True)
            explorer.screenshot(path=str(artifact))
        except Exception:
            artifact.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(artifact.with_name("explorer-failure.png")))
            raise
        finally:
            browser.close()

    if not DOCS_IMAGE.exists() or os.environ.get("TOOLKIT_UPDATE_DOCS_IMAGES") == "1":
        DOCS_IMAGE.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(artifact, DOCS_IMAGE)
    elapsed = time.monotonic() - started
    print(f"browser part took {elapsed:.1f} s")
