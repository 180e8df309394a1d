"""The real Pyodide core (the `pyodide` npm package: CPython 3.14 compiled to WebAssembly, its
standard library and nothing else), under Node, runs the toolkit's pure-Python layers from the
wheel the classroom's site serves, and replays a tape recorded here through the call pipeline.

What this proves: the toolkit's code (the package, the catalog, the client: connect, nodes,
validation, pricing, the ledger, the tape) parses and runs on Python 3.14 in Emscripten, where
`threading.Thread.start` raises and no socket connects, with the pure wheels of its
dependencies that the site's index serves or Pyodide's distribution holds (installed here from
PyPI at the distribution's versions); that a tape recorded on CPython replays there, sync and
`await`, with the same answers; that bad input and a call the tape lacks are refused there too;
and which modules that path loads (no pandas, numpy, aiohttp or pyarrow: Pyodide's builds of
those are not in the npm package and cannot be downloaded here).

What only a real browser with Pyodide's full distribution can show (docs/classroom.md): the
frames, plots, widgets and workloads (pandas, numpy, matplotlib, ipywidgets' front end), Keccak
(pycryptodome's build: the checksum of a mixed-case EVM address, so the replay here passes its
address in lower case), `%pip install` resolving from the site's index through piplite, the
in-process sandbox live (only the tape's path runs here), and the notebooks themselves (the
browser-like harness in tests/browser runs them under CPython with the browser's limits).
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import subprocess
import time
from pathlib import Path

import pytest
from packaging.utils import canonicalize_name

import toolkit
from toolkit.examples import examples

from .conftest import ROOT

pytestmark = pytest.mark.xdist_group("lite")  # one worker builds the site once for both modules

RUNNER = Path(__file__).with_name("run_in_pyodide.mjs")
SCRIPT = Path(__file__).with_name("replay_in_pyodide.py")
LOCK = ROOT / "tests" / "fixtures" / "pyodide" / "pyodide-314-packages.json"


def lite_build():
    """lite/build.py as a module: the site's own resolution of pure wheels."""
    spec = importlib.util.spec_from_file_location("lite_build", ROOT / "lite" / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pure_distribution_wheels(toolkit_wheel: Path, cache: Path) -> list[Path]:
    """The toolkit's hard dependencies that Pyodide's distribution holds as pure Python (its
    build of httpx, certifi...), with their own, as the same versions' wheels from PyPI: the
    npm package has the interpreter only, and Pyodide's CDN is not reachable here."""
    build = lite_build()
    packages = json.loads(LOCK.read_text())["packages"]
    pure = {canonicalize_name(n): p["version"] for n, p in packages.items() if p["pure"]}
    unbuilt = {canonicalize_name(n) for n, p in packages.items() if not p["pure"]}
    wanted = [
        requirement
        for requirement in build.wheel_requirements(toolkit_wheel)
        if canonicalize_name(requirement.name) in pure
    ]
    wheels, _ = build.pure_wheels_needed(wanted, unbuilt, cache, pins=pure)
    return wheels


def test_the_pure_layers_replay_a_tape_in_the_real_pyodide_core(lite_site, pyodide_core, tmp_path):
    # A lesson's calls recorded on CPython from the sandbox.
    tape = tmp_path / "lesson.tape.gz"
    recording = toolkit.connect(tape=tape, tape_mode="record")
    eth = recording.node("ethereum-mainnet")
    alice = examples(recording).evm.accounts["alice"]
    head = eth.block_number()
    recorded = {
        "block_number": head,
        "chain_id": eth.chain_id(),
        "balance": eth.get_balance(alice, head - 300),
    }
    asyncio.run(eth.aio.block_number())  # the replay's await asks again
    recording.close()
    expected = tmp_path / "expected.json"
    expected.write_text(json.dumps({"alice": alice, "block": head - 300}))

    site_wheels = sorted((lite_site / "pypi").glob("*.whl"))
    (toolkit_wheel,) = (wheel for wheel in site_wheels if wheel.name.startswith("node_gateway"))
    wheels = site_wheels + pure_distribution_wheels(toolkit_wheel, ROOT / ".tools" / "lite-wheels")
    started = time.monotonic()
    files = [*wheels, tape, expected]
    done = subprocess.run(
        ["node", str(RUNNER), str(pyodide_core), str(SCRIPT), *map(str, files)],
        capture_output=True,
        text=True,
        timeout=240,
    )
    print(f"Pyodide under Node: {time.monotonic() - started:.1f} s")
    assert done.returncode == 0, done.stderr[-4000:] + done.stdout[-4000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])

    assert seen["platform"] == "emscripten"
    assert seen["python"].startswith("3.14")
    assert seen["threads"].startswith("refused")  # no thread could have started on the path
    assert seen["seen"] == recorded
    assert seen["async_block_number"] == head
    assert seen["here_block_number"] == head
    assert seen["refused"] == "ValidationError"
    assert seen["missed"] == "TapeMiss"
    methods = [row[0] for row in seen["ledger"]]
    assert methods[:3] == ["eth_blockNumber", "eth_chainId", "eth_getBalance"]
    for _, ru, recorded_ru, replayed, sent in seen["ledger"][:3]:
        assert (ru, replayed, sent) == (0, True, False) and recorded_ru > 0
    assert not {"pandas", "numpy", "aiohttp", "pyarrow", "matplotlib"} & set(seen["loaded"])
    assert "_pyodide" in seen["loaded"] or "pyodide" in seen["loaded"]
