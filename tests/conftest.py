"""Fixtures shared by every test folder: no real gateway, one sandbox, fresh gateway handles,
and Anvil (a real EVM node installed from npm into .tools by `make test`)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import httpx
import pytest
from hypothesis import settings

import toolkit
from toolkit.sandbox import Sandbox

# Speed is measured in bench/, not asserted: a loaded CI machine must not fail a property test.
settings.register_profile("toolkit", deadline=None)
settings.load_profile("toolkit")


# --- property tests' example counts in the subsets ----------------------------------------------
# The property tests search their inputs in full once, in the main run on the default Python.
# The subsets of `make test` (another Python, the declared floors) ask a narrower question: does
# this code run on that interpreter or on those versions? A few examples answer it, so they pass
# `--examples-at-most` and every property test is cut to that many (never raised).


def pytest_addoption(parser):
    parser.addoption(
        "--examples-at-most",
        type=int,
        default=None,
        metavar="N",
        help="run each Hypothesis test with at most N examples (make test's subsets)",
    )


def cap_examples(item: pytest.Item, most: int) -> None:
    """Lower `item`'s Hypothesis example count to `most`, if it is a Hypothesis test. The
    settings a test was decorated with are read when it runs, from the attribute `@settings`
    writes (a test decorated twice is an error, so they cannot be applied again)."""
    test = getattr(item, "obj", None)
    own = getattr(test, "_hypothesis_internal_use_settings", None)
    if own is None or not hasattr(test, "hypothesis"):
        return
    if own.max_examples > most:
        test._hypothesis_internal_use_settings = settings(own, max_examples=most)


ROOT = Path(__file__).resolve().parents[1]
_TREE_KEY = pytest.StashKey[dict]()
FAST_RETRY = toolkit.RetryPolicy(attempts=4, backoff_s=0.005, backoff_max_s=0.02)


@pytest.fixture(autouse=True)
def _no_real_gateway(monkeypatch, tmp_path_factory):
    """Tests never reach a real gateway, whatever the environment says, and a response cache
    made with no path lands in a temporary folder, not in the user's ~/.cache."""
    for name in list(os.environ):
        if name.startswith("NODE_GATEWAY_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "xdg-cache"))


# --- no test writes into the working tree ------------------------------------------------------
# A session snapshots `git status` (untracked and ignored entries included) when it starts and
# fails when it finishes with entries that were not there before: a stray cache file, a notebook
# written in place, a modified tracked file. Tool caches (bytecode, pytest, hypothesis, ruff, the
# venvs and .tools) are the only writes allowed.

TOOL_CACHES = {"__pycache__", ".pytest_cache", ".hypothesis", ".ruff_cache", ".tools"}
TOOL_CACHES |= {".venv", ".venv-lab"}  # .venv-lab: the notebooks' kernels (tests/notebooks)


def tree_state(root: Path) -> dict[str, tuple[str, tuple[int, int] | None]] | None:
    """{path: (status code, (size, mtime) of a file)} for every entry `git status` shows in
    `root`, tool caches left out; None when `root` is not a git checkout."""
    command = ["git", "-C", str(root), "status", "--porcelain=v1", "-z"]
    command += ["--untracked-files=normal", "--ignored=matching"]
    try:
        done = subprocess.run(command, capture_output=True, timeout=60, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    entries = done.stdout.decode("utf-8", "surrogateescape").split("\0")
    state: dict[str, tuple[str, tuple[int, int] | None]] = {}
    skip_next = False
    for entry in entries:
        if skip_next or not entry:  # a rename's second field is its old path
            skip_next = False
            continue
        code, path = entry[:2], entry[3:]
        skip_next = code[0] in "RC"
        parts = Path(path).parts
        if any(part in TOOL_CACHES or part.endswith(".egg-info") for part in parts):
            continue
        try:
            stat = (root / path).stat()
            signature = (stat.st_size, stat.st_mtime_ns) if (root / path).is_file() else None
        except OSError:
            signature = None
        state[path] = (code, signature)
    return state


def tree_changes(before: dict, after: dict) -> list[str]:
    """What a run did to the working tree, one line per path."""
    changed = [f"{after[p][0]} {p}" for p in sorted(after) if before.get(p) != after[p]]
    return changed + [f"gone: {p}" for p in sorted(before.keys() - after.keys())]


def pytest_sessionstart(session):
    if session.config.option.collectonly:  # runs no test (`make test` warms the bytecode so)
        return
    session.config.stash[_TREE_KEY] = tree_state(ROOT)


def pytest_sessionfinish(session, exitstatus):
    before = session.config.stash.get(_TREE_KEY, None)
    after = tree_state(ROOT) if before is not None else None
    if before is None or after is None:
        return
    changes = tree_changes(before, after)
    if changes:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write("\n")
            reporter.write_sep("=", "the run changed the working tree (use tmp_path)", red=True)
            for line in changes:
                reporter.write_line(f"  {line}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


# --- parallel runs (pytest-xdist, `make test`) -------------------------------------------------
# Each xdist worker is a process of its own, with its own session and module fixtures. Under
# `--dist loadgroup` the tests of one group run on one worker, one after another, in collection
# order; every other test goes to whichever worker is free.
# - The tests that read a notebook's session runs (`executed`, `executed_again`) are one group,
#   "kernels": each notebook's runs are made once per run, on one worker, one test at a time.
#   Those that drive JupyterLab or Voila in Chromium (the `browser` mark) are another,
#   "browser", which keeps the browser module's one JupyterLab and page in order. Any other
#   test with real kernels of its own (the `notebooks` mark: the tapes' replays, the reports'
#   runs, the sync API in a running kernel) is grouped by its module, so that these modules
#   go to whichever worker is free instead of all queueing on the one worker that makes the
#   session runs. With two workers at most two tests run at once whatever the groups, as before:
#   what the notebooks show no longer depends on the machine keeping up (stream chunks are
#   joined before comparing, heads age by requests, not wall time; notebook 06's second-run
#   difference was pandas' process-wide display option, fixed), and the dashboard's 10 s holds
#   beside a notebook kernel as beside the in-process tests it used to run next to. A second
#   run that differs prints its line diff.
# - A module with a module-scoped fixture is a group of its own: the fixture is built once (a
#   build, a Dask cluster, Anvil's node), and its tests keep their order.
# - xdist hands out the groups first, the most tests first ("kernels" to one worker, then the
#   module groups and "browser" to the other), then the other tests in collection order. The
#   long tests of no group (the benchmarks' smoke runs, a test each, and the type
#   checkers) are moved to the front of those, so that a worker starts them early rather than
#   ending the run on one of them while the other worker sits idle.
LONG_ONES_FIRST = ("tests/test_bench.py", "tests/test_types.py")


def xdist_group_of(item: pytest.Item) -> str | None:
    """The xdist group `item` must share a worker with, or None."""
    if item.get_closest_marker("browser"):
        return "browser"
    module = item.nodeid.split("::", 1)[0]
    info = getattr(item, "_fixtureinfo", None)
    if info is not None and {"executed", "executed_again"} & set(info.names_closure):
        return "kernels"
    if item.get_closest_marker("notebooks"):
        return module
    if info is None:
        return None
    for definitions in info.name2fixturedefs.values():
        if any(definition.scope == "module" for definition in definitions):
            return module
    return None


@pytest.hookimpl(wrapper=True)  # marks before xdist reads them, ids checked after
def pytest_collection_modifyitems(config, items):
    most = config.getoption("examples_at_most")
    if most is not None:
        if most < 1:
            raise pytest.UsageError(f"--examples-at-most must be 1 or more, not {most}")
        for item in items:
            cap_examples(item, most)
    if not config.pluginmanager.hasplugin("xdist"):  # the subsets' venvs have no xdist
        return (yield)
    for item in items:
        group = xdist_group_of(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
    if hasattr(config, "workerinput"):  # every worker the same order, or xdist stops the run
        items.sort(key=lambda item: not item.nodeid.startswith(LONG_ONES_FIRST))  # stable
    result = yield
    if hasattr(config, "workerinput") and config.getvalue("loadgroup"):
        for item in items:
            names = {str(mark.args[0]) for mark in item.iter_markers("xdist_group")}
            if names:
                carry_xdist_group(item, "_".join(sorted(names)))
    return result


def carry_xdist_group(item: pytest.Item, group: str) -> None:
    """Make sure `item`'s node id ends in `@group` on an xdist worker: the id is the only way
    the group reaches the scheduler (`--dist loadgroup` reads it there). pytest-xdist (3.8)
    appends it by setting `item._nodeid`, which pytest 9.2 no longer reads (it keeps a
    structured id in `item._id`): the marks then have no effect at all, every test is
    scheduled on its own, and a module's tests (and its module fixtures) are split between
    workers (pytest-dev/pytest-xdist#1386). Here the suffix is set where pytest reads it, and
    a pytest on which neither works stops the run rather than silently ignoring the groups."""
    wanted = f"{item.nodeid.removesuffix(f'@{group}')}@{group}"
    if item.nodeid == wanted:  # xdist did it (pytest before 9.2, or a fixed xdist)
        return
    structured = getattr(item, "_id", None)
    if structured is not None and hasattr(structured, "parse"):
        item._id = type(structured).parse(wanted)
    else:
        item._nodeid = wanted
    if item.nodeid != wanted:
        raise pytest.UsageError(
            f"cannot give {item.nodeid} its xdist group {group!r} on this pytest: "
            "run the tests in one process (TEST_WORKERS=0)"
        )


# --- notebooks run in real kernels, once per session ---------------------------------------------
# Here, not in tests/notebooks, since tests of other folders read a notebook's run too.


@pytest.fixture(scope="session")
def executed():
    """`executed(path)`: the notebook run once this session against the sandbox, shared by every
    test that reads its outputs (do not change it)."""
    from tests.notebooks.kernel import execute

    runs = {}

    def get(path):
        if path not in runs:
            runs[path] = execute(path)
        return runs[path]

    return get


@pytest.fixture(scope="session")
def executed_again():
    """`executed_again(path)`: the notebook's second run this session, against a new sandbox,
    in a browser-like kernel (the browser path: tests/browser/harness.py), followed by its cells
    in `AFTER_RUN_ALL` (tests/notebooks/kernel.py); shared by the test that compares it with the
    first run and the tests that read what those cells show (do not change it)."""
    from tests.notebooks.kernel import AFTER_RUN_ALL, execute

    runs = {}

    def get(path):
        if path not in runs:
            extra = AFTER_RUN_ALL.get(path.name, ())
            runs[path] = execute(path, extra_cells=extra, browser=True)
        return runs[path]

    return get


@pytest.fixture
def working_tree_probe():
    """(tree_state, tree_changes), for the test that checks the check."""
    return tree_state, tree_changes


@pytest.fixture(scope="session")
def sandbox():
    """One sandbox for the whole run, with frozen heads: estimates and archive distances hold."""
    with Sandbox(seed=0, head_pace=0) as running:
        yield running


@pytest.fixture
def make_gateway(sandbox):
    """Fresh handles on the sandbox (own ledgers, fast retries), with clean faults and metering."""
    sandbox.faults.clear()
    sandbox.reset_metering()
    opened = []

    def make(**options) -> toolkit.Gateway:
        info = sandbox.info
        options.setdefault("retry", FAST_RETRY)
        gateway = toolkit.Gateway(
            info["platform_url"], info["api_key"], nodes=info["nodes"], sandbox=sandbox, **options
        )
        opened.append(gateway)
        return gateway

    yield make
    sandbox.faults.clear()
    for gateway in opened:
        gateway.close()
        if gateway.cache is not None:
            gateway.cache.close()


@pytest.fixture
def cache_path(tmp_path):
    """A response cache file of the test's own (client and workload tests)."""
    return tmp_path / "responses.sqlite"


@pytest.fixture
def gateway(make_gateway):
    return make_gateway()


ANVIL = ROOT / ".tools" / "node_modules" / ".bin" / "anvil"

# A contract assembled by hand, so no Solidity compiler is needed. The constructor stores 42 in
# slot 0; the runtime code answers every call with slot 0 as one 32-byte word:
#   runtime: PUSH1 0 SLOAD PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN
#   init:    PUSH1 42 PUSH1 0 SSTORE, then CODECOPY the 11 runtime bytes and RETURN them
RUNTIME = "6000546000526020" + "6000f3"
INIT_CODE = "0x602a600055" + "600b80601060003960" + "00f3" + RUNTIME


def _find_anvil() -> str | None:
    if ANVIL.exists():
        return str(ANVIL)
    return shutil.which("anvil")


class Anvil:
    init_code = INIT_CODE

    def __init__(self, url: str):
        self.url = url
        self.client = httpx.Client(timeout=10)

    def send(self, transaction: dict) -> dict:
        """Send a transaction and wait for its receipt (it can lag the send under load)."""
        tx_hash = self.rpc("eth_sendTransaction", transaction)
        deadline = time.monotonic() + 10
        while (receipt := self.rpc("eth_getTransactionReceipt", tx_hash)) is None:
            assert time.monotonic() < deadline, "Anvil did not mine the transaction"
            time.sleep(0.02)
        return receipt

    def rpc(self, method: str, *params):
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}
        answer = self.client.post(self.url, json=body).json()
        assert "error" not in answer, answer
        return answer["result"]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="session")
def anvil(tmp_path_factory):
    binary = _find_anvil()
    if binary is None:
        if os.environ.get("CI"):
            pytest.fail("Anvil is missing in CI: `make test` installs it with npm")
        pytest.skip("Anvil not installed (run `make anvil`)")
    cache = tmp_path_factory.mktemp("anvil-cache")
    port = _free_port()
    process = subprocess.Popen(
        [binary, "--host", "127.0.0.1", "--port", str(port), "--cache-path", str(cache)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "HOME": str(cache)},  # keeps ~/.foundry state out of the real home
    )
    node = Anvil(f"http://127.0.0.1:{port}")
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                node.rpc("eth_chainId")
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("Anvil did not start") from None
                time.sleep(0.05)
        yield node
    finally:
        process.terminate()
        process.wait(timeout=10)


# --- a small disk to fill ------------------------------------------------------------------------


class SmallDisk:
    """A 1 MiB tmpfs mounted at `path`, to run out of space on (`fill`) or to make read-only
    (`read_only`), as a user's disk does."""

    def __init__(self, path: Path):
        self.path = path
        self._filler = path / "filler"

    def fill(self, leave: int = 0) -> None:
        """Take all the free space but `leave` bytes."""
        free = os.statvfs(self.path).f_bavail * os.statvfs(self.path).f_frsize
        with open(self._filler, "ab") as filler:
            filler.write(b"\0" * max(0, free - leave))

    def free(self) -> None:
        self._filler.unlink(missing_ok=True)

    def remount(self, options: str) -> None:
        subprocess.run(["mount", "-o", f"remount,{options}", str(self.path)], check=True)


@pytest.fixture
def small_disk(tmp_path):
    """`SmallDisk` on a tmpfs of its own (root only: skipped, saying so, where mount is not
    allowed); unmounted after the test."""
    path = tmp_path / "small-disk"
    path.mkdir()
    try:
        command = ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(path)]
        subprocess.run(command, check=True, capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as error:
        pytest.skip(f"a full disk needs a small tmpfs, and mount is not permitted here: {error}")
    try:
        yield SmallDisk(path)
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True, timeout=30)
