"""Bulk runs on a real node (Anvil) that takes batches."""

from __future__ import annotations

import pytest

import toolkit
from toolkit.workloads._workload import Workload


@pytest.mark.anvil
def test_bulk_balances_on_anvil_go_in_batches_and_are_cached(anvil, tmp_path):
    anvil.rpc("anvil_mine", hex(150))
    head = int(anvil.rpc("eth_blockNumber"), 16)
    sender = anvil.rpc("eth_accounts")[0]
    addresses = [sender, *(f"0x{index:040x}" for index in range(1, 20))]
    blocks = range(head - 140, head - 40, 10)  # 10 blocks, the first ones final
    with toolkit.node(
        anvil.url, chain="ethereum", name="anvil", cache=tmp_path / "c.sqlite"
    ) as eth:
        work = Workload().grid(eth, "eth_getBalance", addresses, blocks)
        frame = work.run(progress=False, batch_size=50)
        assert frame["error"].isna().all() and len(frame) == 200
        assert eth.accepts_batches is True
        assert sum(e.note == "in a JSON-RPC batch of 50" for e in eth.ledger.entries) == 200
        assert frame["value"][0] == eth.get_balance(sender, block=blocks[0]) > 0
        final = [b for b in blocks if head - b > toolkit.CHAINS["ethereum"].finality_depth]
        again = work.run(progress=False, batch_size=50)
        assert again["cache_hit"].sum() == len(final) * len(addresses)
        assert again["value"].tolist() == frame["value"].tolist()
