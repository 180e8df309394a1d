"""`import toolkit` stays light: what it defers is not imported until used, so the start-up gain
(issue 17: `import toolkit` under half of `import pandas`, measured by `bench/bench_startup.py`)
cannot slip back unnoticed. These check which modules are loaded, never how long anything takes.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import toolkit

# Loaded on first use only: httpx (and click, which `import httpx` pulls in for httpx's command
# line), the standard library's network and event-loop stacks, the workloads, and the data stack.
DEFERRED = (
    "httpx",
    "click",
    "asyncio",
    "ssl",
    "socket",
    "urllib.request",
    "http.client",
    "email.utils",
    "difflib",
    "toolkit.workloads",
    "toolkit.frames",
    "toolkit.sandbox",
    "pandas",
    "numpy",
    "pyarrow",
)


def _fresh(code: str) -> object:
    """What `code` prints as JSON, run in a fresh interpreter."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_import_toolkit_leaves_the_deferred_modules_unimported():
    code = (
        f"import json, sys, toolkit; print(json.dumps([m for m in {DEFERRED} if m in sys.modules]))"
    )
    assert _fresh(code) == []


def test_every_public_name_is_there_and_loads_what_it_needs():
    code = (
        "import json, sys, toolkit\n"
        "missing = [n for n in toolkit.__all__ if getattr(toolkit, n, None) is None]\n"
        "from toolkit import Workload, read_dataset, provenance\n"
        "print(json.dumps([missing, 'toolkit.workloads' in sys.modules,"
        " toolkit.Workload is Workload]))"
    )
    assert _fresh(code) == [[], True, True]


def test_a_call_loads_httpx_and_puts_it_in_place_of_its_stand_in():
    code = (
        "import json, sys, toolkit\n"
        "from toolkit.client import _deadlines, _http, _network, _node\n"
        "before = [type(m.httpx).__name__ for m in (_http, _network, _node)]\n"
        "from toolkit.sandbox import Sandbox\n"
        "info = Sandbox().start().info  # over the wire: connect() reaches it in process\n"
        "gw = toolkit.Gateway(info['platform_url'], info['api_key'], nodes=info['nodes'])\n"
        "eth = gw.node('ethereum-mainnet')\n"
        "eth.head()\n"
        "import asyncio\n"
        "asyncio.run(eth.aio.get_balance('0x' + '0' * 40))  # the async path too\n"
        "after = [m.httpx is sys.modules['httpx'] for m in (_http, _network, _node)]\n"
        "print(json.dumps([before, after, _deadlines.asyncio is sys.modules['asyncio']]))"
    )
    before, after, asyncio_in_place = _fresh(code)
    assert before == ["LazyModule"] * 3
    assert after == [True] * 3
    assert asyncio_in_place


def test_the_lazy_names_are_the_public_ones():
    lazy = {name for name in toolkit.__all__ if name not in vars(toolkit)}
    # Whatever is not bound at import comes from a module loaded on first use, by name.
    assert lazy <= set(toolkit._LAZY_NAMES)


def test_the_start_up_bench_reports_both_targets():
    """`bench/bench_startup.py` (run by `make bench`) turns its timings into the table and the
    two verdicts; fed made-up timings here, so no process is started and nothing is timed."""
    path = Path(__file__).resolve().parents[2] / "bench" / "bench_startup.py"
    spec = importlib.util.spec_from_file_location("bench_startup", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    times = {
        "pass": {"wall": [0.03, 0.04]},
        "pandas": {"wall": [0.45, 0.5]},
        "toolkit": {"wall": [0.1, 0.2]},
        "source": {"wall": [0.15, 0.2]},
        "sandbox": {"json": [0.25, 0.3], "wall": [0.26, 0.3]},
        "connect": {"wall": [0.3, 0.4], "connect": [0.2, 0.2]},
    }
    text = bench.report(times, rounds=2)
    assert '| `python -c "import toolkit"` | 0.100 | 0.150 | 0.070 |' in text
    assert "`import toolkit` / `import pandas`: 0.22 on the raw wall times" in text
    assert "(target under 0.5: **met**" in text
    assert (
        "Sandbox ready (launch to first HTTP answer): 0.260 s (target under 1 s: **met**)" in text
    )
