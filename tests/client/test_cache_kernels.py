"""Kernels (processes) sharing one response cache file at the same moment. Opening it: each must
get the cache, not a warning that it is locked and calls run without it (the file does not exist
yet, so one of them sets it up while the others wait). Moving it aside as damaged: the others
follow it to the fresh file. Storing, evicting and reading it at once: no answer read is taken
for damaged, none is another's."""

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


# A kernel that keeps one cache open while another kernel sets the file aside as damaged.
KEEPER = r"""
import json, sys, warnings
from toolkit.client._cache import ResponseCache
from toolkit.client._identity import CallKey

def key(cache, n):
    call = CallKey("gateway", "node", "eth_getBalance", json.dumps([f"0x{n:040x}", "0x1"]))
    return cache.digest(call, "eth_getBalance")

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    cache = ResponseCache(sys.argv[1])
    cache.store([(key(cache, 0), "node", "eth_getBalance", "0x0")])
    cache.flush()
    print("open", flush=True)
    sys.stdin.readline()  # the other kernel has set the file aside meanwhile
    cache.store([(key(cache, 1), "node", "eth_getBalance", "0x1")])
    cache.flush()
    cache.close()
print(json.dumps([str(warning.message) for warning in caught]))
"""


def test_a_kernel_whose_cache_another_set_aside_as_damaged_keeps_its_answers_in_the_fresh_one(
    tmp_path,
):
    import warnings

    from toolkit.client._cache import ResponseCache
    from toolkit.client._identity import CallKey

    path = tmp_path / "responses.sqlite"
    keeper = subprocess.Popen(
        [sys.executable, "-c", KEEPER, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert keeper.stdout is not None and keeper.stdout.readline() == "open\n"
    mine = ResponseCache(path)
    mine.store([(b"m" * 32, "node", "eth_getBalance", "0x2")])
    mine.flush()
    mine._recent.forget()  # the next lookup reads the file
    for part in tmp_path.iterdir():  # damaged under both kernels' connections
        with part.open("r+b") as file:
            file.write(b"garbage" * 1000)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert mine.lookup([b"m" * 32]) == {}
    assert any("damaged" in str(warning.message) for warning in caught)
    moved = sorted(path.name for path in tmp_path.glob("responses.sqlite.damaged-*"))
    assert len(moved) == 3 and moved[1:] == [f"{moved[0]}-shm", f"{moved[0]}-wal"]
    said = json.loads(keeper.communicate("\n", timeout=30)[0])
    assert said == []  # the other kernel said it already
    call = CallKey("gateway", "node", "eth_getBalance", json.dumps([f"0x{1:040x}", "0x1"]))
    later = mine.digest(call, "eth_getBalance")
    # Its answer stored after the move is in the fresh file, under the key every kernel uses.
    assert mine.lookup([later]) == {later: "0x1"}
    mine.close()


# A kernel that sets its cache file aside as damaged, pausing after the file is moved and before
# its -wal and -shm are, then stores an answer in the fresh file.
MOVER = r"""
import sqlite3, sys, warnings
from pathlib import Path
from toolkit.client._cache import ResponseCache

warnings.simplefilter("ignore")
cache = ResponseCache(sys.argv[1])
cache.store([(b"a" * 32, "node", "eth_getBalance", "0xa")])
cache.flush()
rename = Path.replace

def pausing(self, target):
    moved = rename(self, target)
    Path.replace = rename
    print("moved", flush=True)
    sys.stdin.readline()
    return moved

Path.replace = pausing
cache._file._replace_damaged(sqlite3.DatabaseError("file is not a database"))
cache.store([(b"b" * 32, "node", "eth_getBalance", "0xb")])
cache.flush()
cache.close()
"""

OPENER = r"""
import sys, warnings
from toolkit.client._cache import ResponseCache

warnings.simplefilter("ignore")
cache = ResponseCache(sys.argv[1])
cache.store([(b"c" * 32, "node", "eth_getBalance", "0xc")])
cache.flush()
print(len(cache), flush=True)
sys.stdin.readline()
cache.close()
"""


def test_a_kernel_opening_the_cache_while_another_sets_it_aside_waits_and_shares_the_fresh_file(
    tmp_path,
):
    # Before the file lock, the opener made its own file at the path in the gap, the mover then
    # deleted that file's log under it and started another: two logs writing one file's pages.
    from toolkit.client._cache import ResponseCache

    path = tmp_path / "responses.sqlite"

    def start(script):
        return subprocess.Popen(
            [sys.executable, "-c", script, str(path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    mover = start(MOVER)
    assert mover.stdout is not None and mover.stdout.readline() == "moved\n"
    opener = start(OPENER)
    time.sleep(1.0)  # the opener is up and asking for the path meanwhile
    mover.communicate("\n", timeout=30)
    assert opener.stdout is not None
    seen_by_opener = int(opener.stdout.readline())
    opener.communicate("\n", timeout=30)
    assert mover.returncode == 0 and opener.returncode == 0
    assert seen_by_opener == 2  # the mover's fresh answer and its own: one file
    cache = ResponseCache(path)
    assert sorted(cache.lookup([b"b" * 32, b"c" * 32]).values()) == ["0xb", "0xc"]
    cache.close()
    assert len(list(tmp_path.glob("responses.sqlite.damaged-*[0-9]"))) == 1


# A kernel that stores and reads answers in a small cache that other kernels fill at the same
# time, so that every write evicts; its memory is dropped before each read, so what it reads
# comes from the file, checked as any row read back is (a damaged one warns).
EVICTING_KERNEL = r"""
import json, random, sys, time, warnings
from toolkit.client._cache import ResponseCache

path, who, start = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
rounds, max_bytes = int(sys.argv[4]), int(sys.argv[5])

def answer(n):  # what a node answers for call n: balances, call data past a page, blocks
    if n % 3 == 0:
        return "eth_getBalance", hex(n * 10**15)
    if n % 3 == 1:
        return "eth_call", "0x" + f"{n:064x}" * (1 + n % 150)
    txs = [{"hash": f"0x{n + t:064x}", "value": hex(t)} for t in range(n % 40)]
    return "eth_getBlockByNumber", {"number": hex(n), "transactions": txs}

class Counted(ResponseCache):
    evictions = 0
    def _evict(self):
        evicted = super()._evict()
        Counted.evictions += evicted
        return evicted

rng, read, wrong = random.Random(who), 0, []
time.sleep(max(0.0, start - time.time()))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    cache = Counted(path, max_bytes=max_bytes)
    for _ in range(rounds):
        stored = rng.sample(range(400), 20)  # the others store some of them too
        cache.store([(n.to_bytes(32, "big"), "node", *answer(n)) for n in stored])
        cache.flush()
        cache._recent.forget()
        asked = stored + rng.sample(range(400), 20)
        found = cache.lookup([n.to_bytes(32, "big") for n in asked])
        read += len(found)
        wrong += [n for key, value in found.items()
                  if value != answer(n := int.from_bytes(key, "big"))[1]]
    cache.close()
print(json.dumps({"warnings": [str(w.message) for w in caught], "wrong": wrong,
                  "read": read, "evictions": Counted.evictions}))
"""


def test_kernels_evicting_from_one_small_cache_at_once_read_no_damage(tmp_path):
    """Four kernels storing, evicting and reading back one small file at once: every answer
    read is the one stored, and none is taken for damaged (the file holds only answers its
    kernels stored; another kernel's eviction is a miss, not damage)."""
    path, max_bytes, rounds = tmp_path / "responses.sqlite", 96 * 1024, 40
    start = time.time() + 2.0
    kernels = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                EVICTING_KERNEL,
                *map(str, (path, who, start, rounds, max_bytes)),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        for who in range(KERNELS)
    ]
    said = [json.loads(kernel.communicate(timeout=120)[0]) for kernel in kernels]
    assert [kernel["warnings"] for kernel in said] == [[]] * KERNELS
    assert [kernel["wrong"] for kernel in said] == [[]] * KERNELS
    # Each kernel evicted over and over and read many answers back from the file meanwhile.
    assert all(kernel["evictions"] > rounds // 3 and kernel["read"] > rounds for kernel in said)
    from toolkit.client._cache import ResponseCache

    cache = ResponseCache(path, max_bytes=max_bytes)
    assert 0 < len(cache) < 400 and cache.size_bytes <= max_bytes
    cache.close()
