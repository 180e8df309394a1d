"""Many clients at once: every request answered, and metering counts each one."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx

THREADS = 16
REQUESTS_EACH = 50


def test_parallel_clients_all_answered_and_metered(sandbox, nodes, demo):
    sandbox.reset_metering()
    targets = [
        (nodes["ethereum-mainnet"], "eth_getBalance"),
        (nodes["polygon-mainnet"], "eth_getBalance"),
        (nodes["arbitrum-mainnet"], "eth_getBalance"),
    ]

    def client(worker: int) -> list[int]:
        statuses = []
        with httpx.Client(timeout=30) as http:
            for i in range(REQUESTS_EACH):
                url, method = targets[(worker + i) % len(targets)]
                envelope = {
                    "jsonrpc": "2.0",
                    "id": i,
                    "method": method,
                    "params": [demo.evm.accounts["alice"], "latest"],
                }
                response = http.post(url, json=envelope)
                assert response.json()["id"] == i
                statuses.append(response.status_code)
        return statuses

    with ThreadPoolExecutor(THREADS) as pool:
        statuses = [s for batch in pool.map(client, range(THREADS)) for s in batch]
    assert statuses == [200] * THREADS * REQUESTS_EACH
    used = sandbox.metering()
    total = sum(used[url_name]["requests"] for url_name in used)
    assert total == THREADS * REQUESTS_EACH
    assert sum(used[name]["ru"] for name in used) == THREADS * REQUESTS_EACH
