"""Recorded Solana simulations: how the sandbox answers ``simulateTransaction`` with no LiteSVM.

solders (which ships LiteSVM) has no build where Python runs in a browser tab, so there the
sandbox answers the simulations the notebooks make from recordings of LiteSVM's own answers,
taken from the notebooks' tapes (the embedded sandbox, seed 0). Any other transaction is an error
that says live Solana simulation needs a CPython kernel. Refresh the recordings after the tapes
change (tests/sandbox check they match the committed tapes)::

    python -m toolkit.sandbox._solana_recorded notebooks/tapes
"""

from __future__ import annotations

import gzip
import json
import sys
from functools import cache
from pathlib import Path
from typing import Any

RECORDINGS = Path(__file__).with_name("solana_simulations.json")
SIMULATE = "simulateTransaction"


def recording_key(seed: int, transaction: str, config: dict[str, Any]) -> str:
    """One simulation's identity: the seed of its world and its wire params."""
    return json.dumps([seed, transaction, config], sort_keys=True, separators=(",", ":"))


@cache
def _recordings() -> dict[str, Any]:
    entries = json.loads(RECORDINGS.read_text(encoding="utf-8"))
    return {recording_key(e["seed"], *_split(e["params"])): e["result"] for e in entries}


def _split(params: list[Any]) -> tuple[str, dict[str, Any]]:
    return params[0], (params[1] if len(params) > 1 else {})


def recorded_answer(seed: int, transaction: str, config: dict[str, Any]) -> Any | None:
    """LiteSVM's recorded ``result`` for this simulation, or None when none was recorded."""
    return _recordings().get(recording_key(seed, transaction, config))


def extract(tapes: list[Path]) -> list[dict[str, Any]]:
    """The successful simulations of the sandbox's tapes, each once, in a stable order."""
    found: dict[str, dict[str, Any]] = {}
    for path in sorted(tapes):
        lines = gzip.decompress(path.read_bytes()).decode("utf-8").splitlines()
        seed = json.loads(lines[0]).get("sandbox_seed")
        if seed is None:  # recorded from a real gateway: not the sandbox's world
            continue
        for line in lines[1:]:
            entry = json.loads(line)
            if entry.get("call") != SIMULATE:
                continue
            params = json.loads(entry["params"])
            for answer in entry["answers"]:
                if "result" in answer["item"]:
                    key = recording_key(seed, *_split(params))
                    found.setdefault(
                        key, {"seed": seed, "params": params, "result": answer["item"]["result"]}
                    )
    return [found[key] for key in sorted(found)]


def main(folder: str) -> None:
    entries = extract(sorted(Path(folder).glob("*.tape.gz")))
    RECORDINGS.write_text(json.dumps(entries, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{len(entries)} simulations written to {RECORDINGS}")


if __name__ == "__main__":
    main(sys.argv[1])
