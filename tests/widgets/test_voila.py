"""The demo link: notebook 06 as a Voilà dashboard (`make demo`), in headless Chromium.

Voilà runs the notebook in a kernel of its own and shows its outputs without its code: the
explorer and the workload builder, live. `make demo` has Voilà pre-heat a kernel (run the
notebook before anyone asks), so the page comes as soon as that kernel is ready; from then, a
visitor must be able to use the explorer within 10 s. Against the embedded sandbox, and from the
notebook's tape with no sandbox at all.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.widgets.test_browser import (
    REPO,
    SIX,
    free_port,
    headless_chromium,
    require_browser_tools,
    sandbox_secrets,
)

pytestmark = pytest.mark.browser

READY_S = 10  # from the page's arrival (its kernel ready) to a visitor's first preview
START_S = 120  # Voilà itself listening, on a busy 2-core machine
TAPE = REPO / "notebooks" / "tapes" / f"{SIX.stem}.tape.gz"


def voila(tmp_path: Path, env: dict[str, str]) -> tuple[subprocess.Popen, str, Path]:
    """Voilà serving notebook 06 on loopback, as `make demo` does; its process, URL and log."""
    require_browser_tools()
    if subprocess.run([sys.executable, "-c", "import voila"], check=False).returncode:
        pytest.fail("voila is not installed (it is in the lab extra)")
    port = free_port()
    home = tmp_path / "home"
    home.mkdir()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("NODE_GATEWAY_")},
        "HOME": str(home),
        "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
        "JUPYTER_DATA_DIR": str(tmp_path / "data"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
        "IPYTHONDIR": str(home / ".ipython"),
        **env,
    }
    log_path = tmp_path / "voila.log"
    command = [
        sys.executable,
        "-m",
        "voila",
        str(SIX),
        "--no-browser",
        f"--port={port}",
        "--Voila.ip=127.0.0.1",
        "--preheat_kernel=True",  # as `make demo` serves it
    ]
    with log_path.open("w") as log:
        server = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    return server, f"http://127.0.0.1:{port}/", log_path


def wait_for_log(server: subprocess.Popen, log_path: Path, pattern: str, seconds: float) -> float:
    """When `pattern` first appeared in the log (time.monotonic()), waiting up to `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if re.search(pattern, log_path.read_text()):
            return time.monotonic()
        if server.poll() is not None:
            pytest.fail(f"Voilà exited:\n{log_path.read_text()[-3000:]}")
        time.sleep(0.05)
    pytest.fail(f"no {pattern!r} from Voilà in {seconds} s:\n{log_path.read_text()[-3000:]}")


def wait_until_listening(server: subprocess.Popen, url: str, log_path: Path) -> None:
    wait_for_log(server, log_path, re.escape(url), START_S)


@pytest.fixture(scope="module")
def chromium(tmp_path_factory):
    require_browser_tools()
    profile = tmp_path_factory.mktemp("chromium-profile")
    with headless_chromium(profile, timeout_ms=START_S * 1000, size=(1280, 800)) as context:
        yield context


def use_the_explorer(chromium, server, url: str, log_path: Path) -> tuple[float, str]:
    """Open the dashboard, pick the Ethereum node and eth_getBalance in the explorer and read
    its RU preview. Returns the seconds from the page's arrival (its pre-heated kernel has run
    the notebook) to that preview, and the page's text."""
    from playwright.sync_api import expect

    page = chromium.new_page()
    page.set_default_timeout(START_S * 1000)
    try:
        wait_for_log(server, log_path, r"Kernel pool .* is filled", START_S)
        page.goto(url, wait_until="domcontentloaded")  # sent once the kernel has run it all
        kernel_ready = time.monotonic()
        explorer = page.locator(".toolkit-explorer").first
        expect(explorer).to_be_visible()
        nodes = explorer.locator(".toolkit-node-list select")
        option = nodes.locator("option", has_text="ethereum-mainnet")
        nodes.select_option(value=option.get_attribute("value"))
        methods = explorer.locator(".toolkit-method-picker select")
        # The node's methods, not the list of the node the notebook left picked.
        expect(methods.locator("option", has_text="eth_getBalance")).to_have_count(1)
        methods.select_option("eth_getBalance")
        expect(explorer.locator(".toolkit-ru-preview")).to_contain_text("1 RU")
        ready = time.monotonic() - kernel_ready
        # Every cell has run: the provenance at the notebook's foot is on the page.
        expect(page.locator("body")).to_contain_text("Provenance")
        return ready, page.locator("body").inner_text() + page.content()
    finally:
        page.close()


def stop(server: subprocess.Popen) -> None:
    server.terminate()  # Voilà shuts its kernels down on SIGTERM
    try:
        server.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


@pytest.mark.timeout(2 * START_S + 60)
@pytest.mark.parametrize("source", ["sandbox", "tape"])
def test_the_demo_dashboard_is_usable_within_ten_seconds_of_its_kernel(source, chromium, tmp_path):
    env = {}
    if source == "tape":
        env = {"NODE_GATEWAY_TAPE": str(TAPE), "NODE_GATEWAY_TAPE_MODE": "replay"}
    server, url, log_path = voila(tmp_path, env)
    try:
        wait_until_listening(server, url, log_path)
        ready_s, shown = use_the_explorer(chromium, server, url, log_path)
    finally:
        stop(server)
    assert ready_s <= READY_S, f"the explorer took {ready_s:.1f} s to be usable"
    assert "gw = toolkit.connect()" not in shown  # a dashboard: the code is hidden
    for secret in sandbox_secrets():
        assert secret not in shown
    if source == "tape":
        assert "replayed from the tape" in shown  # the provenance says where answers came from
    # What the server logged while serving; once stopped (signal 15), a kernel still replying
    # may find its socket closed under it (ZMQError), which is the shutdown's, not the page's.
    log = log_path.read_text().split("Handle signal 15")[0]
    assert "Traceback" not in log, log[-3000:]
