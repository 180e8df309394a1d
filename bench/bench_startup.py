"""Benchmark: start-up, `import toolkit` against `import pandas`, and the sandbox's start.

Each measurement is a fresh subprocess of this same interpreter (so nothing is imported yet),
its wall time taken here from launch to end (or to the moment it is ready):

1. ``python -c "pass"``: the interpreter's own start (with ``site`` and the editable install's
   finder), the floor under every other row;
2. ``python -c "import pandas"`` and ``python -c "import toolkit"``;
3. the sandbox as a command, ``python -m toolkit sandbox --head-pace 0``: from launch until it
   printed its JSON line, and until it answered a first HTTP request (``eth_blockNumber`` sent to
   its Ethereum node, over a fresh connection);
4. the embedded sandbox, ``toolkit.connect()``, in a fresh process: from launch until
   ``import toolkit``, ``connect()`` (which starts the sandbox in the process) and a first call
   (``gw.node("ethereum-mainnet").head()``) are done; the time ``connect()`` alone took is
   measured inside that process.

Bytecode: the subprocesses write and read their ``.pyc`` files in a temporary folder of their own
(``PYTHONPYCACHEPREFIX``), whatever ``PYTHONDONTWRITEBYTECODE`` says here, so pandas and the
toolkit are both measured as a user runs them, from their bytecode caches (pip writes pandas'
when it installs; Python writes the toolkit's on its first import), and the tree gets no
``__pycache__``. One more row imports the toolkit compiled from its sources every time (its own
``.pyc`` files left out, everything else's kept): what a machine with ``PYTHONDONTWRITEBYTECODE=1``
set and no cache in the tree pays, as this project's 2-core machine does.

The contenders take turns: one warm-up round (which also writes the bytecode caches), then
`--rounds` timed rounds in each of which every contender runs once; each row is its best time
(the least disturbed by other work on the machine), with the median beside it. The target,
``import toolkit`` under half of ``import pandas``, is judged on the raw wall times, as
the README always did; the ratio with the interpreter's own start taken off both is printed too.
With ``--quick`` (the test suite's smoke run) there is one round and no warm-up: the script
and its report are checked, and its times include writing the caches.

    python bench/bench_startup.py [--rounds 8] [--quick]
"""

from __future__ import annotations

import argparse
import http.client
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

IMPORT_TARGET = 0.5  # import toolkit / import pandas
SANDBOX_TARGET_S = 1.0  # the sandbox ready to answer

CONNECT_CODE = """\
import time
started = time.perf_counter()
import toolkit
imported = time.perf_counter()
gw = toolkit.connect()
connected = time.perf_counter()
gw.node("ethereum-mainnet").head()
print(imported - started, connected - imported, time.perf_counter() - connected, flush=True)
"""

Contender = Callable[[], dict[str, float]]  # a measurement: its timings in seconds, by name


def python(*args: str) -> list[str]:
    return [sys.executable, *args]


def bytecode_env(prefix: Path, *, write: bool) -> dict[str, str]:
    """This environment with the subprocess's bytecode cache in `prefix`."""
    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(prefix)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if not write:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def run_to_end(argv: list[str], env: Callable[[], dict[str, str]]) -> Contender:
    def measure() -> dict[str, float]:
        environment = env()
        started = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=environment)
        return {"wall": time.perf_counter() - started}

    return measure


def sandbox_command(env: dict[str, str]) -> dict[str, float]:
    """Launch to JSON line, and launch to a first answer over HTTP."""
    started = time.perf_counter()
    process = subprocess.Popen(
        python("-m", "toolkit", "sandbox", "--head-pace", "0"),
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        info = json.loads(process.stdout.readline())
        printed = time.perf_counter()
        url = urlsplit(info["nodes"]["ethereum-mainnet"])
        connection = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber", "params": []})
        connection.request("POST", url.path, body, {"content-type": "application/json"})
        answer = connection.getresponse()
        assert answer.status == 200 and "result" in json.loads(answer.read()), answer.status
        answered = time.perf_counter()
        connection.close()
    finally:
        process.terminate()
        process.wait(timeout=10)
    return {"json": printed - started, "wall": answered - started}


def embedded_connect(env: dict[str, str]) -> dict[str, float]:
    """Launch until import, connect() and a first call are done, in a fresh process."""
    started = time.perf_counter()
    process = subprocess.Popen(
        python("-c", CONNECT_CODE), stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        line = process.stdout.readline()
        done = time.perf_counter()
        _, connect_s, _ = map(float, line.split())
    finally:
        process.terminate()
        process.wait(timeout=10)
    return {"wall": done - started, "connect": connect_s}


def contenders(workdir: Path) -> dict[str, Contender]:
    cached = bytecode_env(workdir / "pyc", write=True)
    package = Path(importlib.util.find_spec("toolkit").origin).parent

    def without_toolkit_bytecode() -> dict[str, str]:
        """The caches of the warm-up round, but for the toolkit's own (made once, on first use)."""
        prefix = workdir / "pyc-but-toolkit"
        if not prefix.exists():
            shutil.copytree(workdir / "pyc", prefix)
            shutil.rmtree(prefix / package.relative_to(package.anchor), ignore_errors=True)
        return bytecode_env(prefix, write=False)

    return {
        "pass": run_to_end(python("-c", "pass"), lambda: cached),
        "pandas": run_to_end(python("-c", "import pandas"), lambda: cached),
        "toolkit": run_to_end(python("-c", "import toolkit"), lambda: cached),
        "source": run_to_end(python("-c", "import toolkit"), without_toolkit_bytecode),
        "sandbox": lambda: sandbox_command(cached),
        "connect": lambda: embedded_connect(cached),
    }


def measure(rounds: int, *, warm_up: bool = True) -> dict[str, dict[str, list[float]]]:
    """Every timing of every contender over `rounds` timed rounds, taking turns, after a warm-up
    round that is thrown away (without it, the first round's times include writing the bytecode
    caches: a smoke check's numbers, not a measurement)."""
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as workdir:
        runs = contenders(Path(workdir))
        times: dict[str, dict[str, list[float]]] = {name: {} for name in runs}
        for round_number in range(rounds + 1 if warm_up else rounds):
            timed = round_number > 0 or not warm_up
            for name, contender in runs.items():
                if not timed and name == "source":
                    continue  # its caches are the warm-up round's, copied after it
                result = contender()
                if timed:
                    for key, seconds in result.items():
                        times[name].setdefault(key, []).append(seconds)
    return times


def met(ok: bool) -> str:
    return "**met**" if ok else "**not met**"


def report(times: dict[str, dict[str, list[float]]], rounds: int) -> str:
    every = [((name, key), values) for name, keys in times.items() for key, values in keys.items()]
    best = {timing: min(values) for timing, values in every}
    median = {timing: statistics.median(values) for timing, values in every}
    floor = best["pass", "wall"]
    rows = [
        ("pass", "wall", '`python -c "pass"` (the interpreter\'s own start)'),
        ("pandas", "wall", '`python -c "import pandas"`'),
        ("toolkit", "wall", '`python -c "import toolkit"`'),
        ("source", "wall", '`python -c "import toolkit"`, the toolkit compiled from source'),
        ("sandbox", "json", "`python -m toolkit sandbox --head-pace 0`: its JSON line printed"),
        ("sandbox", "wall", "`python -m toolkit sandbox --head-pace 0`: first HTTP answer"),
        ("connect", "wall", "fresh process: `import toolkit`, `connect()`, first call done"),
        ("connect", "connect", "`toolkit.connect()` alone (embedded sandbox), in that process"),
    ]
    lines = [
        f"**Start-up, best of {rounds} rounds taking turns (median beside it)**",
        "",
        "| measurement | best s | median s | best minus interpreter start s |",
        "|---|---:|---:|---:|",
    ]
    for name, key, label in rows:
        less = "-" if (name, key) == ("pass", "wall") or key == "connect" else ""
        less = less or f"{best[name, key] - floor:.3f}"
        lines.append(f"| {label} | {best[name, key]:.3f} | {median[name, key]:.3f} | {less} |")
    toolkit_s, pandas_s = best["toolkit", "wall"], best["pandas", "wall"]
    ratio = toolkit_s / pandas_s
    net_ratio = (toolkit_s - floor) / (pandas_s - floor)
    median_ratio = median["toolkit", "wall"] / median["pandas", "wall"]
    ready = best["sandbox", "wall"]
    lines += [
        "",
        f"`import toolkit` / `import pandas`: {ratio:.2f} on the raw wall times (target under "
        f"{IMPORT_TARGET}: {met(ratio < IMPORT_TARGET)}; {median_ratio:.2f} on the medians); "
        f"{net_ratio:.2f} with the interpreter's start ({floor:.3f} s) taken off both; "
        f"{best['source', 'wall'] / pandas_s:.2f} with the toolkit compiled from source.",
        f"Sandbox ready (launch to first HTTP answer): {ready:.3f} s (target under "
        f"{SANDBOX_TARGET_S:.0f} s: {met(ready < SANDBOX_TARGET_S)}); embedded, "
        f"`import toolkit` + `connect()` + a first call: {best['connect', 'wall']:.3f} s.",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=8, help="timed rounds (default 8)")
    parser.add_argument(
        "--quick", action="store_true", help="one round, no warm-up (a smoke check, not a measure)"
    )
    options = parser.parse_args(argv)
    rounds = 1 if options.quick else options.rounds
    text = report(measure(rounds, warm_up=not options.quick), rounds)
    print(text)
    return text


if __name__ == "__main__":
    main()
