"""Short printouts: a workload and its planned calls show summaries, never dumps. (The
explorer's: tests/widgets/test_explorer.py; the gateway's, a node's and the ledger's:
tests/client/test_displays.py.)"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from toolkit.workloads import Workload

ADDRESSES = [f"0x{index:040x}" for index in range(1, 201)]


@pytest.fixture
def secrets(sandbox):
    info = sandbox.info
    keys = [urlsplit(url).path.strip("/") for url in info["nodes"].values()]
    return [info["api_key"], *keys, *info["nodes"].values()]


@pytest.fixture
def big(make_gateway):
    """1,000 balance calls on one node and 10 TRON calls on another (no request is sent)."""
    gateway = make_gateway()
    eth, tron = gateway.node("ethereum-mainnet"), gateway.node("tron-mainnet")
    work = Workload().grid(eth, "eth_getBalance", ADDRESSES, [1, 2, 3, 4, "latest"])
    work.each(tron, "wallet/gettransactioninfobyblocknum", range(10), param="num")
    return gateway, work


def test_a_workloads_repr_is_a_short_summary(big, secrets):
    gateway, work = big
    text = repr(work)
    assert len(work) == 1_010
    assert len(text) < 300
    assert "1,010 calls" in text and "1,000 eth_getBalance on ethereum-mainnet" in text
    assert "10 wallet/gettransactioninfobyblocknum on tron-mainnet" in text
    assert str(work) == text
    for secret in secrets:
        assert secret not in text
    assert len(gateway.ledger) == 0  # a printout sends nothing


def test_a_workloads_html_counts_calls_by_node_and_method(big, secrets):
    _, work = big
    page = work._repr_html_()
    assert len(page) < 2_000
    assert "1,010 planned calls" in page and "2 nodes" in page
    assert page.count("<tr>") == 3  # the header and one row per node and method
    assert "1,000" in page and "<td style='text-align:right'>10</td>" in page
    for secret in secrets:
        assert secret not in page


def test_a_workload_with_many_pairs_says_how_many_more(make_gateway):
    gateway = make_gateway()
    tron, eth = gateway.node("tron-mainnet"), gateway.node("ethereum-mainnet")
    work = Workload()
    for index in range(3):
        work.add(tron, "wallet/gettransactioninfobyblocknum", num=index)
        work.add(tron, "wallet/getblockbylatestnum", num=index + 1)
    work.add(eth, "eth_blockNumber")
    assert repr(work).endswith("+1 more>")
    assert repr(Workload()) == "<Workload 0 calls>"
    assert "0 planned calls" in Workload()._repr_html_()


def test_a_planned_calls_repr_is_one_short_line(big, secrets):
    _, work = big
    text = repr(work.calls[0])
    assert text == "<PlannedCall eth_getBalance on ethereum-mainnet>"
