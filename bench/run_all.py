"""Every benchmark of the project in one run, printed as markdown (``make bench``).

    python bench/run_all.py            # full size: a few minutes on 2 cores
    python bench/run_all.py --quick    # small sizes and one timed round, for a smoke check
    python bench/run_all.py --quick bench_tape.py bench_json.py   # only these

Each benchmark is also a script of its own in this folder, with its own options.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

# (script, title, its arguments at full size, its arguments with --quick). The quick sizes are the
# test suite's smoke run (tests/test_bench.py): each script runs through every contender and
# prints its report, not a measurement, so they are as small as that allows (the Dask cluster's
# start is most of the datasets' smoke run whatever its size).
BENCHMARKS = [
    ("bench_startup.py", "Start-up", [], ["--quick"]),
    ("bench_bulk.py", "Bulk workloads", [], ["--quick", "--calls", "50"]),
    ("bench_frames.py", "Frames", [], ["--records", "2000", "--runs", "1"]),
    ("load.py", "Load on the sandbox", [], ["--seconds", "1", "--threads", "4"]),
    ("bench_in_process.py", "The sandbox in process", [], ["--quick"]),
    ("bench_dataset.py", "Datasets and Dask", [], ["--calls", "500", "--rows", "100000"]),
    ("bench_tape.py", "Tapes", [], ["--quick"]),
    ("bench_logging.py", "Logging", [], ["--quick"]),
    ("bench_json.py", "Reading answers", [], ["--quick"]),
    ("bench_records.py", "Per-call records", [], ["--quick"]),
    ("bench_ceiling.py", "Throughput at a plan's ceiling", [], ["--seconds", "0.5"]),
    (
        "bench_scan_plan.py",
        "Planning a long event scan",
        [],
        ["--blocks", "100000", "--repeats", "1"],
    ),
]


def _module(script: str):
    spec = importlib.util.spec_from_file_location(Path(script).stem, HERE / script)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, one timed round")
    parser.add_argument("scripts", nargs="*", metavar="SCRIPT", help="only these (all if none)")
    options = parser.parse_args(argv)
    unknown = set(options.scripts) - {script for script, *_ in BENCHMARKS}
    if unknown:
        parser.error(f"no such benchmark: {', '.join(sorted(unknown))}")
    for script, title, full, quick in BENCHMARKS:
        if options.scripts and script not in options.scripts:
            continue
        if not (HERE / script).exists():
            print(f"## {title}\n\n(skipped: {script} is missing)\n")
            continue
        print(f"## {title} (`bench/{script}`)\n", flush=True)
        started = time.monotonic()
        _module(script).main(quick if options.quick else full)
        print(f"\n_{time.monotonic() - started:.0f} s_\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
