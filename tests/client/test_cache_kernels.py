"""Kernels (processes) that open one response cache file at the same moment: each must get the
cache, not a warning that it is locked and calls run without it. The file does not exist yet,
so one of them sets it up (switching it to WAL, creating its tables) while the others wait."""

from __future__ import annotations

import json
import subprocess
import sys
import time

KERNELS = 4
FILES = 150  # one fresh file per round, all kernels opening it within a millisecond or so
ROUND_S = 0.04

KERNEL = r"""
import json, sys, time, warnings
from toolkit.client._cache import ResponseCache

folder, who = sys.argv[1], int(sys.argv[5])
start, files, round_s = float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
refused = []
for number in range(files):
    time.sleep(max(0.0, start + number * round_s - time.time()))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cache = ResponseCache(f"{folder}/{number}.sqlite", max_bytes=1024**2)
        cache.store([(bytes([who]) * 32, "node", "eth_getBalance", hex(who))])
        cache.close()
    refused += [str(warning.message) for warning in caught]
print(json.dumps(refused))
"""


def test_kernels_opening_a_new_cache_file_at_once_all_use_it(tmp_path):
    start = time.time() + 2.0  # every kernel imported and waiting by then
    kernels = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                KERNEL,
                str(tmp_path),
                str(start),
                str(FILES),
                str(ROUND_S),
                str(who),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        for who in range(KERNELS)
    ]
    refused = [
        message for kernel in kernels for message in json.loads(kernel.communicate(timeout=60)[0])
    ]
    assert refused == []
    from toolkit.client._cache import ResponseCache

    for number in range(FILES):  # each file holds every kernel's answer
        cache = ResponseCache(tmp_path / f"{number}.sqlite")
        assert len(cache) == KERNELS
        cache.close()
