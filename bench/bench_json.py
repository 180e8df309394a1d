"""Benchmark: what the JSON depth guard costs on an answer (the goal: at most 1.3x `json.loads`).

Every answer is read by `toolkit._json.load_bounded`: Python's decoder with NaN, Infinity and
numbers past a float's range refused, big integers exact, after a measure of the text's nesting
(refused past 128 levels, whatever the recursion limit). The guard used to cost 7-8x
`json.loads` on large answers (90 ms against 18 ms on 3 MiB).

Contenders, taking turns for `--rounds` rounds, each row its best time in CPU time of the thread
(`time.thread_time`: the machine's other work does not count), after a full garbage collection,
in the opposite order every other round:

- ``json.loads``: the standard library's decoder, no protection;
- ``load_bounded``: the toolkit's guarded reader;
- ``depth measure``: its nesting measure alone (part of ``load_bounded``).

Answers: ``eth_getLogs`` arrays of ERC-20 transfer-like logs at 178 KiB and 3 MiB (the sizes the
issue measured), and 3 MiB of Solana-like log text full of escaped quotes (the slower path: the
escapes are dropped before the measure).

    python bench/bench_json.py [--rounds 30] [--quick]
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from toolkit._json import MAX_DEPTH, _nests_deeper, load_bounded

TARGET = 1.3  # load_bounded / json.loads on the 3 MiB answer


def logs_answer(size: int, seed: int = 0) -> bytes:
    """A JSON-RPC answer of ``eth_getLogs`` of about `size` bytes."""
    rng = random.Random(seed)
    one = len(json.dumps(_log(rng, 0)))
    logs = [_log(rng, i) for i in range(max(1, size // (one + 2)))]
    return json.dumps({"jsonrpc": "2.0", "id": 1, "result": logs}).encode()


def _log(rng: random.Random, i: int) -> dict:
    def word(bits: int) -> str:
        return f"0x{rng.getrandbits(bits):0{bits // 4}x}"

    return {
        "address": word(160),
        "topics": [word(256), word(256), word(256)],
        "data": word(256),
        "blockNumber": hex(19_000_000 + i // 40),
        "transactionHash": word(256),
        "transactionIndex": hex(i % 40),
        "blockHash": word(256),
        "logIndex": hex(i),
        "removed": False,
    }


def escaped_answer(size: int) -> bytes:
    """A simulation-like answer of about `size` bytes of log lines with escaped quotes."""
    line = 'Program log: {"amount": "1000", "memo": "say \\"hi\\" [1]"}'
    lines = [f"{line} #{i}" for i in range(size // (len(line) + 16))]
    return json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"value": {"logs": lines}}}).encode()


CONTENDERS = {
    "json.loads": json.loads,
    "load_bounded": load_bounded,
    "depth measure": lambda text: _nests_deeper(text, MAX_DEPTH),
}


def measure(answers: dict[str, bytes], rounds: int) -> dict[str, dict[str, float]]:
    best: dict[str, dict[str, float]] = {name: {} for name in answers}
    turns = list(CONTENDERS.items())
    for round_ in range(rounds):
        for answer, text in answers.items():
            # Every other round in the other order, and a full collection before each read: a
            # decoder that runs right after another finds the collector in another state (one
            # order alone had load_bounded 1.47x json.loads, the other 1.07x).
            for name, read in turns if round_ % 2 else turns[::-1]:
                gc.collect()
                started = time.thread_time()
                read(text)
                took = time.thread_time() - started
                best[answer][name] = min(took, best[answer].get(name, took))
    return best


def report(answers: dict[str, bytes], best: dict[str, dict[str, float]], rounds: int) -> str:
    lines = [
        f"**Reading one answer, best of {rounds} rounds taking turns (CPU ms)**",
        "",
        "| answer | size | `json.loads` | `load_bounded` | ratio | depth measure alone |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for answer, text in answers.items():
        times = best[answer]
        ratio = times["load_bounded"] / times["json.loads"]
        lines.append(
            f"| {answer} | {len(text) / 2**20:.2f} MiB | {times['json.loads'] * 1e3:.2f} | "
            f"{times['load_bounded'] * 1e3:.2f} | {ratio:.2f} | "
            f"{times['depth measure'] * 1e3:.2f} |"
        )
    main = best["eth_getLogs, 3 MiB"]
    ratio = main["load_bounded"] / main["json.loads"]
    met = "**met**" if ratio <= TARGET else "**not met**"
    lines += [
        "",
        f"`load_bounded` / `json.loads` on the 3 MiB answer: {ratio:.2f}; target at most "
        f"{TARGET}: {met} (the guard it replaced: 7-8x).",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=30, help="rounds taking turns (default 30)")
    parser.add_argument("--quick", action="store_true", help="three rounds")
    options = parser.parse_args(argv)
    rounds = 3 if options.quick else options.rounds
    answers = {
        "eth_getLogs, 178 KiB": logs_answer(178 * 2**10),
        "eth_getLogs, 3 MiB": logs_answer(3 * 2**20),
        "log text with escapes, 3 MiB": escaped_answer(3 * 2**20),
    }
    for text in answers.values():  # the same values, whichever reads them
        assert load_bounded(text) == json.loads(text)
    text = report(answers, measure(answers, rounds), rounds)
    print(text, flush=True)
    return text


if __name__ == "__main__":
    main()
