"""End to end: the explorer in a real JupyterLab, driven by headless Chromium through Playwright,
the way people use it: JupyterLab's file browser stays open (it takes about 280 px on the left)
and the page is a laptop (1280×800), a projector (1024×768) or a desktop (1920×1080).

It needs Debian's `chromium` at /usr/bin/chromium and the `playwright` package (never a browser
that Playwright downloads). When either is missing the tests fail under ``CI=true`` and are
skipped, with the reason printed, anywhere else. One JupyterLab (127.0.0.1, a token, its HOME and
Jupyter directories in a temporary folder, opened with ``?reset``) and one page serve every test
of this module; the sizes are viewport changes of that page, so the module stays fast.

Screenshots (the explorer and the whole page at each size) go to the folder named by
``TOOLKIT_TEST_ARTIFACTS`` (a temporary folder when unset, so a run never writes into the
checkout); the README's copy, docs/images/explorer.png, is the 1280×800 run, written when missing
or when ``TOOLKIT_UPDATE_DOCS_IMAGES=1``, so that a test run does not change a tracked file.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
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
BUILDER_IMAGE = REPO / "docs" / "images" / "workload_builder.png"
TIMEOUT_MS = 90_000  # a first import and sandbox start on a busy machine
START_S = 120  # a cold JupyterLab on a busy 2-core machine can take a minute to listen
# Screens people have; "narrow" (a half-screen window) leaves a 368 px output area, where the
# form's inputs go below their labels and the node list scrolls in its own box.
SIZES = {
    "projector": (1024, 768),
    "laptop": (1280, 800),
    "desktop": (1920, 1080),
    "narrow": (800, 600),
}
DOCS_SIZE = "laptop"
# The method panel needs this much beside its picker (the Explorer's flex basis): below it the
# panels stack, and each then has the whole output area.
METHOD_PANEL_MIN_PX = 440
DEMO_ACCOUNT = "0xDf9082b26B6033abd8d3814774A0fE3816490f2c"  # alice of the sandbox's demo world
CODE_CELL_ACCOUNT = "0x6c5EFcEDFCaCed09Ce0C51719Ddb77d96973Cdc8"  # bob, on a node the panel avoids
SIX = REPO / "notebooks" / "06_interactive_explorer.ipynb"


def code_cell(cell_id: str, source: str) -> dict:
    return {
        "cell_type": "code",
        "execution_count": None,
        "id": cell_id,
        "metadata": {},
        "outputs": [],
        "source": source.splitlines(keepends=True),
    }


NOTEBOOK = {
    "cells": [
        code_cell(
            "explorer",
            "import toolkit\nimport toolkit.widgets\n\n"
            "gw = toolkit.connect()\nexplorer = toolkit.widgets.explorer(gw)",
        ),
        # A call from code, not from the panel: the explorer's ledger must show it anyway.
        code_cell(
            "code-call",
            f"gw.node('polygon-mainnet').get_balance('{CODE_CELL_ACCOUNT}', 'latest')",
        ),
        # The workload builder, started on its sandbox example: 3 accounts x 11 blocks.
        code_cell(
            "builder", "builder = toolkit.widgets.workload_builder(gw, node='ethereum-mainnet')"
        ),
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


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab server on loopback with every Jupyter directory in a temporary folder; its
    notebooks folder holds the explorer notebook above and notebook 06. Yields a URL maker."""
    require_browser_tools()
    tmp_path = tmp_path_factory.mktemp("lab")
    notebooks, config = tmp_path / "notebooks", tmp_path / "config"
    for folder in (notebooks, config / "labconfig", tmp_path / "home", tmp_path / "data"):
        folder.mkdir(parents=True)
    (notebooks / "explorer.ipynb").write_text(json.dumps(NOTEBOOK))
    shutil.copyfile(SIX, notebooks / SIX.name)
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
        yield lambda notebook: f"{base}/lab/tree/{notebook}?reset&token={token}"
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


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory) -> Path:
    where = os.environ.get("TOOLKIT_TEST_ARTIFACTS")
    folder = (Path(where) if where else tmp_path_factory.mktemp("artifacts")) / "widgets"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@contextlib.contextmanager
def headless_chromium(profile: Path, *, timeout_ms: float, size: tuple[int, int]):
    """Debian's Chromium driven by Playwright, with a profile of its own; `expect` waits up to
    `timeout_ms`."""
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=timeout_ms)
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile),
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport=dict(zip(("width", "height"), size, strict=True)),
        )
        try:
            yield context
        finally:
            context.close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    profile = tmp_path_factory.mktemp("chromium-profile")
    with headless_chromium(profile, timeout_ms=TIMEOUT_MS, size=SIZES[DOCS_SIZE]) as context:
        yield context


def open_notebook(browser, url: str):
    """A page with the notebook open and its kernel idle, the file browser left open."""
    from playwright.sync_api import expect

    page = browser.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(url)
    # The kernel's own status, not the notebook's indicator: that one reads "idle" before any
    # kernel exists, and a cell run then is lost.
    expect(page.locator(".jp-StatusBar-TextItem", has_text="(ipykernel)")).to_have_text(
        "Python 3 (ipykernel) | Idle"
    )
    expect(page.locator(".jp-FileBrowser")).to_be_visible()
    return page


def run_cell(page, index: int) -> None:
    page.locator(".jp-Cell .jp-InputArea-editor").nth(index).click()
    page.keyboard.press("Shift+Enter")


@pytest.fixture(scope="module")
def page(browser, lab, artifacts):
    """The explorer notebook's first cell run: one explorer on a page of the laptop size."""
    from playwright.sync_api import expect

    page = open_notebook(browser, lab("explorer.ipynb"))
    try:
        run_cell(page, 0)
        expect(page.locator(".toolkit-explorer")).to_have_count(1)  # rendered, and once
        yield page
    except Exception:
        page.screenshot(path=str(artifacts / "explorer-failure.png"))
        raise
    finally:
        page.close()


def resize(page, size: str) -> None:
    width, height = SIZES[size]
    page.set_viewport_size({"width": width, "height": height})
    page.wait_for_timeout(300)  # JupyterLab lays its panels out on the next animation frames


def no_secrets_in(explorer) -> None:
    shown, markup = explorer.inner_text(), explorer.inner_html()
    for secret in sandbox_secrets():
        assert secret not in shown and secret not in markup
    assert "http://" not in shown


def test_explorer_previews_runs_and_tabulates_a_call(page):
    """Pick a node and a method, watch the RU preview flip from 1 to 2 RU, run, read the table."""
    from playwright.sync_api import expect

    resize(page, DOCS_SIZE)
    explorer = page.locator(".toolkit-explorer")
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

    page.locator(".toolkit-run").click()
    result = page.locator(".toolkit-result table")
    expect(result).to_contain_text(DEMO_ACCOUNT)
    expect(page.locator(".toolkit-result")).to_contain_text("2 RU (archive)")
    expect(page.locator(".toolkit-ledger-table")).to_contain_text("eth_getBalance")

    # A block with money in it: the table (and the screenshots after this test) worth showing.
    page.locator(".toolkit-param-block input").fill("20000000")
    expect(preview).to_contain_text("2 RU: block 20,000,000 is ")
    page.locator(".toolkit-run").click()
    expect(result).to_contain_text("20,000,000")  # numbers written for people
    no_secrets_in(explorer)


# What the layout tests measure, in the page, for any widget (`root`): where it sits in its output
# area, and what in it is cut off, cramped or scrolls. Boxes are getBoundingClientRect() in CSS px.
FIT = """
root => {
  const box = e => e.getBoundingClientRect();
  const px = r => ({left: Math.round(r.left), right: Math.round(r.right),
                    top: Math.round(r.top), width: Math.round(r.width)});
  const output = root.closest('.jp-OutputArea-output');
  const scroller = root.closest('.jp-WindowedPanel-outer');
  const clips = e => getComputedStyle(e).overflowX !== 'visible';
  const scrolls = e => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX);

  // Each box meant to scroll sideways (a table's, the node list's): if its content is wider,
  // it must scroll, sit inside the output area, and have no ancestor (up to the output area)
  // that cuts it; scrolled to the end, the right edge of the last column (of the list) must be
  // inside the box.
  const scrollers = '.tk-table-scroll, .toolkit-node-listing';
  const boxes = [...root.querySelectorAll(scrollers)].filter(e => e.offsetParent !== null)
    .map(scroll => {
      const r = box(scroll);
      const cutBy = [];
      for (let e = scroll.parentElement; e && e !== output.parentElement; e = e.parentElement) {
        const a = box(e);
        if (clips(e) && (r.left < a.left - 1 || r.right > a.right + 1)) cutBy.push(e.className);
      }
      scroll.scrollLeft = scroll.scrollWidth;
      const cells = scroll.querySelectorAll('th, select');
      const last = box(cells[cells.length - 1]);
      const lastReached = last.right <= r.right + 1 && last.right > r.left;
      scroll.scrollLeft = 0;
      return {name: scroll.className, wider: scroll.scrollWidth > scroll.clientWidth,
              scrolls: scrolls(scroll), clientWidth: scroll.clientWidth,
              scrollWidth: scroll.scrollWidth, box: px(r), cutBy, lastReached};
    });

  // Clipped text: any element that hides what overflows it (overflow hidden or clip) while its
  // content is wider. Boxes that scroll sideways are listed too: apart from those meant to
  // (above), a panel scrolling sideways means something in it does not fit.
  // A text box scrolls its own value, so it is not judged by this but by its width: every
  // visible one must be wide enough to type in.
  const fields = 'input:not([type=checkbox]), textarea, select';
  const cramped = [...root.querySelectorAll(fields)]
    .filter(e => e.offsetParent !== null && box(e).width < 150)
    .map(e => `${e.tagName} ${Math.round(box(e).width)} px: ${e.value.slice(0, 40)}`);
  const clipped = [], sideways = [];
  for (const e of [root, ...root.querySelectorAll('*')]) {
    if (e.scrollWidth <= e.clientWidth + 1 || !clips(e) || e.matches(fields)) continue;
    const what = `${e.tagName}.${e.className} ${e.scrollWidth}>${e.clientWidth}: ` +
                 (e.innerText || e.value || '').slice(0, 60);
    if (!scrolls(e)) clipped.push(what);
    else if (!e.matches(scrollers)) sideways.push(what);
  }
  return {
    output: px(box(output)), root: px(box(root)), boxes, cramped, clipped, sideways,
    pageSideways: scroller.scrollWidth > scroller.clientWidth + 1 ||
                  document.documentElement.scrollWidth > innerWidth + 1,
  };
}
"""

# The explorer's own measures on top: its panels, and its method <select>: size, options, and
# whether its arrow end is on screen and on top (a select cut off by its panel shows no arrow and
# looks like a text box).
MEASURE = (
    """
explorer => {
  const box = e => e.getBoundingClientRect();
  const px = r => ({left: Math.round(r.left), right: Math.round(r.right),
                    top: Math.round(r.top), width: Math.round(r.width)});
  const select = explorer.querySelector('.toolkit-method-picker select');
  select.scrollIntoView({block: 'center'});
  const s = box(select);
  const arrow = document.elementFromPoint(s.right - 6, s.top + s.height / 2);
  const fit = ("""
    + FIT
    + """)(explorer);
  const panel = name => px(box(explorer.querySelector(name)));
  return {
    ...fit, explorer: fit.root,
    panels: panel('.toolkit-panels'), picker: panel('.toolkit-node-picker'),
    methods: panel('.toolkit-method-explorer'),
    select: {tag: select.tagName, width: Math.round(s.width), height: Math.round(s.height),
             right: Math.round(s.right), options: select.options.length,
             arrowOnTop: arrow === select, inViewport: s.right <= innerWidth && s.left >= 0},
  };
}
"""
)


def measure(page) -> dict:
    return page.locator(".toolkit-explorer").evaluate(MEASURE)


def assert_fits_its_output_area(m: dict) -> None:
    """What FIT measured: inside its output area, the notebook not scrolling sideways, every
    table (and the node list) reachable (wider than its box means its box scrolls, uncut by
    ancestors), no cramped text box, no clipped text, nothing else scrolling sideways."""
    output, root = m["output"], m["root"]
    assert root["left"] >= output["left"] - 1 and root["right"] <= output["right"] + 1, m
    assert not m["pageSideways"], "the notebook scrolls sideways"
    assert sum("tk-table-scroll" in b["name"] for b in m["boxes"]), "no table on show"
    for scroll in m["boxes"]:
        assert scroll["scrolls"] or not scroll["wider"], scroll
        assert not scroll["cutBy"] and scroll["lastReached"], scroll
        assert scroll["box"]["right"] <= output["right"] + 1, scroll
    assert not m["cramped"], m["cramped"]
    assert not m["clipped"], m["clipped"]
    assert not m["sideways"], m["sideways"]


def assert_fits(m: dict, size: str, methods: int = 12) -> None:
    """The explorer's layout at `size`, as measured by MEASURE; `methods` is how many the picked
    node's chain has (12 for ethereum)."""
    assert_fits_its_output_area(m)
    # The method panel is never cramped: beside the picker when both fit, below it when not,
    # and then as wide as the explorer (narrower than its basis only when the explorer is).
    side_by_side = m["methods"]["top"] == m["picker"]["top"]
    assert side_by_side == (size == "desktop"), m
    width, row = m["methods"]["width"], m["panels"]["width"]
    assert width >= METHOD_PANEL_MIN_PX or width >= row - 1, m
    # The method selector is a real dropdown, all of it on screen, its options there to pick.
    select = m["select"]
    assert select["tag"] == "SELECT" and select["options"] == methods, select
    assert select["width"] >= 200 and select["height"] >= 20, select
    assert select["arrowOnTop"] and select["inViewport"], select


@pytest.mark.parametrize("size", SIZES)
def test_explorer_fits_the_output_area_with_the_file_browser_open(page, artifacts, size):
    """At each size, with a result and then a long field error on show: nothing cut off."""
    from playwright.sync_api import expect

    resize(page, size)
    explorer = page.locator(".toolkit-explorer")
    expect(page.locator(".jp-FileBrowser")).to_be_visible()
    expect(page.locator(".toolkit-result table")).to_contain_text("20,000,000")
    shown = measure(page)
    print(size, {k: shown[k]["width"] for k in ("output", "explorer", "picker", "methods")})
    page.screenshot(path=str(artifacts / f"page-{size}.png"))
    screenshot_widget(
        page, ".toolkit-explorer", artifacts / f"explorer-{size}.png", size, DOCS_IMAGE
    )
    assert_fits(shown, size)

    # A long message from the catalog at the address field: it wraps, it is not cut.
    address = page.locator(".toolkit-param-address input")
    address.fill("0x" + "12345" * 9)
    error = page.locator(".tk-field-error")
    expect(error).to_contain_text("must be 0x followed by 40 hex digits")
    assert_fits(measure(page), size)
    fits = error.evaluate("e => e.scrollWidth <= e.clientWidth + 1 && e.clientWidth > 0")
    assert fits, error.inner_text()
    page.screenshot(path=str(artifacts / f"page-{size}-field-error.png"))
    address.fill(DEMO_ACCOUNT)
    expect(error).to_have_count(0)
    no_secrets_in(explorer)


def screenshot_widget(page, selector: str, path: Path, size: str, docs_image: Path) -> None:
    """The whole widget as laid out at `size`. A taller page for the picture (the widget is
    taller than a laptop screen), same width: checked, so the picture is the layout tested.
    At the README's size it is also the README's picture, when missing or asked for."""
    widget = page.locator(selector)
    width, height = SIZES[size]
    before = widget.evaluate(FIT)["root"]["width"]
    tall = max(height, int(widget.bounding_box()["height"]) + 400)
    page.set_viewport_size({"width": width, "height": tall})
    page.wait_for_timeout(300)
    widget.scroll_into_view_if_needed()
    page.evaluate("document.activeElement && document.activeElement.blur()")  # no focus ring
    assert widget.evaluate(FIT)["root"]["width"] == before
    widget.screenshot(path=str(path))
    resize(page, size)
    if size == DOCS_SIZE and (
        not docs_image.exists() or os.environ.get("TOOLKIT_UPDATE_DOCS_IMAGES") == "1"
    ):
        docs_image.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, docs_image)


def test_a_code_cell_call_shows_up_in_the_explorers_ledger(page):
    from playwright.sync_api import expect

    ledger = page.locator(".toolkit-ledger-table")
    expect(ledger).not_to_contain_text("polygon-mainnet")
    run_cell(page, 1)  # gw.node('polygon-mainnet').get_balance(...)
    expect(ledger).to_contain_text("polygon-mainnet")
    newest = ledger.locator("tbody tr").first
    expect(newest).to_contain_text("polygon-mainnet")
    expect(newest).to_contain_text("eth_getBalance")


def test_a_budget_set_in_the_panel_shows_next_to_run(page):
    from playwright.sync_api import expect

    page.locator(".toolkit-budget-input input").fill("5000")
    page.locator(".toolkit-ledger button", has_text="Set budget").click()
    status = page.locator(".toolkit-status")
    expect(status).to_contain_text(re.compile(r"budget [\d,]+ of 5,000 RU left"))
    page.locator(".toolkit-ledger button", has_text="No budget").click()
    expect(status).to_contain_text("no budget set")
    expect(page.locator(".toolkit-budget-input input")).to_have_value("")  # not a made-up 1000


@pytest.fixture(scope="module")
def builder(page, artifacts):
    """The builder cell run, its example workload run: a result and a plot on show."""
    from playwright.sync_api import expect

    run_cell(page, 2)
    builder = page.locator(".toolkit-workload-builder")
    expect(builder).to_have_count(1)
    builder.scroll_into_view_if_needed()
    preview = builder.locator(".toolkit-builder-preview")
    expect(preview).to_contain_text("33 calls")
    run = builder.locator(".toolkit-run")
    expect(run).to_be_enabled()
    run.click()
    expect(builder.locator(".toolkit-result")).to_contain_text("33 calls on ethereum-mainnet")
    expect(builder.locator(".toolkit-result img")).to_be_visible()  # the balances plot
    return builder


@pytest.mark.parametrize("size", SIZES)
def test_workload_builder_fits_the_output_area_with_the_file_browser_open(
    page, builder, artifacts, size
):
    """The builder after a run (preview, result table, plot, ledger) at each size: nothing cut
    off, every table reachable, every field wide enough; the plot no wider than the output."""
    from playwright.sync_api import expect

    resize(page, size)
    expect(page.locator(".jp-FileBrowser")).to_be_visible()
    builder.scroll_into_view_if_needed()
    shown = builder.evaluate(FIT)
    print(size, {k: shown[k]["width"] for k in ("output", "root")})
    page.screenshot(path=str(artifacts / f"builder-page-{size}.png"))
    screenshot_widget(
        page,
        ".toolkit-workload-builder",
        artifacts / f"builder-{size}.png",
        size,
        BUILDER_IMAGE,
    )
    assert_fits_its_output_area(shown)
    image = builder.locator(".toolkit-result img").bounding_box()
    assert image["x"] + image["width"] <= shown["output"]["right"] + 1, image
    no_secrets_in(builder)


def test_run_all_then_scroll_back_shows_a_clean_explorer(browser, lab, artifacts):
    """Notebook 06 with Run All, as a teacher does before class: scrolled back up, its explorer
    shows the last method with a valid form, Run enabled, a result, no error, and it fits."""
    from playwright.sync_api import expect

    page = open_notebook(browser, lab(SIX.name))
    try:
        resize(page, DOCS_SIZE)
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.locator(".lm-Menu-itemLabel").get_by_text("Run All Cells", exact=True).click()
        last = page.locator(".jp-CodeCell").last
        expect(last.locator(".jp-OutputArea-output")).to_contain_text("embedded sandbox")
        explorer = page.locator(".toolkit-explorer")
        expect(explorer).to_have_count(1)
        explorer.scroll_into_view_if_needed()
        methods = explorer.locator(".toolkit-method-picker select")
        expect(methods).to_have_value("wallet/getblockbylatestnum")
        expect(explorer.locator(".toolkit-run")).to_be_enabled()
        expect(explorer.locator(".toolkit-result table").first).to_be_visible()
        expect(explorer.locator(".tk-field-error")).to_have_count(0)
        expect(explorer.locator(".toolkit-result .tk-error")).to_have_count(0)
        # The notebook's own DataFrame outputs bring pandas' stylesheet: headers stay over
        # their (left-aligned) columns.
        header = explorer.locator(".toolkit-result th").first
        assert header.evaluate("th => getComputedStyle(th).textAlign") == "left"
        page.screenshot(path=str(artifacts / "notebook-06-after-run-all.png"))
        count = methods.evaluate("select => select.options.length")
        assert_fits(measure(page), DOCS_SIZE, methods=count)
        no_secrets_in(explorer)
    except Exception:
        page.screenshot(path=str(artifacts / "notebook-06-failure.png"))
        raise
    finally:
        page.close()
