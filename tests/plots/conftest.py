"""Fixtures for the plot tests: frames built from the frame tests' saved responses."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import toolkit.frames as frames

DATA = Path(__file__).parents[1] / "frames" / "data"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _load(name: str):
    return json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))


@pytest.fixture
def transaction_infos() -> pd.DataFrame:
    return frames.tron_transaction_infos(_load("tron_transaction_info_by_block"))


@pytest.fixture
def solana_simulation_logs() -> pd.DataFrame:
    return frames.solana_simulation_logs(_load("solana_simulate_envelope"))


@pytest.fixture
def failed_simulation_logs() -> pd.DataFrame:
    return frames.solana_simulation_logs(_load("solana_simulate_failed_bare"))


@pytest.fixture
def nodes() -> pd.DataFrame:
    return frames.platform_nodes(_load("platform_nodes_pages"))


@pytest.fixture
def blocks() -> pd.DataFrame:
    """Three real published blocks (the execution-apis tests' chain; sources in
    tests/fixtures/real/SOURCES.md), out of order: numbers 54, 39 and 45."""
    from tests.fixtures.real_bodies import real_result

    names = ("latest_full", "shanghai_withdrawal", "hashes")
    return frames.evm_blocks(
        [real_result(f"evm_eth_getblockbynumber_{name}_execution_apis.json") for name in names]
    )


@pytest.fixture
def balances() -> pd.DataFrame:
    alice, bob = (
        "0x1f9090aae28b8a3dceadf281b0f12828e676c326",
        "0x388c818ca8b9251b393131c08a736a67ccb19297",
    )
    records = [(alice, 22207815 + 10 * i, (5 + i) * 10**18) for i in range(5)]
    records += [(bob, 22207815 + 10 * i, 2**70 - i * 10**20) for i in range(5)]
    return frames.evm_balances(records)


@pytest.fixture
def ledger() -> pd.DataFrame:
    """A ledger frame as the transport records it (columns per the RU ledger's contract)."""
    rng = np.random.default_rng(7)
    start = pd.Timestamp("2025-01-01 12:00", tz="UTC")
    methods = ["eth_getBalance", "eth_call", "debug_printBlock", "simulateTransaction"]
    rows = []
    for i in range(120):
        method = methods[i % len(methods)]
        rows.append(
            {
                "time": start + pd.Timedelta(seconds=5 * i),
                "node": "https://nd-123-456-789.p2pify.com/***",
                "method": method,
                "ru": 2 if method == "debug_printBlock" else 1,
                "latency_s": float(rng.random()),
                "status": "error" if i % 17 == 0 else "ok",
                "retries": int(i % 17 == 0),
                "cache_hit": bool(i % 5 == 0),
            }
        )
    return pd.DataFrame(rows)


@pytest.fixture
def render(tmp_path):
    """Render a figure to PNG (Agg) and return the bytes, failing on anything but a real image."""

    def _render(figure, name: str, min_bytes: int = 5_000) -> bytes:
        path = tmp_path / f"{name}.png"
        figure.savefig(path, dpi=72)
        data = path.read_bytes()
        assert data.startswith(PNG_SIGNATURE) and len(data) > min_bytes
        return data

    return _render
