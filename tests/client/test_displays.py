"""Short printouts: the gateway, a node and the ledger show summaries in HTML, never a row per
call, and no key or node URL."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from toolkit.workloads import Workload

ADDRESSES = [f"0x{index:040x}" for index in range(1, 41)]


@pytest.fixture
def secrets(sandbox):
    info = sandbox.info
    keys = [urlsplit(url).path.strip("/") for url in info["nodes"].values()]
    return [info["api_key"], *keys, *info["nodes"].values()]


def test_gateway_node_and_ledger_show_summaries_in_html_without_keys(make_gateway, secrets):
    gateway = make_gateway()
    eth = gateway.node("ethereum-mainnet")
    head = eth.head()
    Workload().grid(eth, "eth_getBalance", ADDRESSES[:40], [head]).run(progress=False)
    gateway.set_budget(gateway.ledger.counted_ru + 5)
    shown = {
        "gateway": gateway._repr_html_(),
        "node": eth._repr_html_(),
        "ledger": gateway.ledger._repr_html_(),
    }
    for html in shown.values():
        assert not [secret for secret in secrets if secret in html]
        assert len(html) < 4_000  # a summary, not a row per call
    assert "ethereum-mainnet" in shown["gateway"] and "5 of " in shown["gateway"]
    assert f"{head:,}" in shown["node"] and "evm" in shown["node"].lower()
    assert "eth_getBalance" in shown["ledger"] and ">41<" in shown["ledger"]  # 40 + the head
    assert "none yet" in make_gateway()._repr_html_()  # no client opened yet


def test_an_empty_ledger_shows_its_totals():
    from toolkit.client import Ledger

    assert ">0<" in Ledger()._repr_html_()
