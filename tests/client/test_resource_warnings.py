"""No ResourceWarning from ordinary use: async calls under repeated ``asyncio.run`` (each with
its own loop) and blocking clients dropped without ``close()`` leave no socket open."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import asyncio, gc, json, sys
import toolkit

info = json.loads(sys.argv[1])
for transport in ("aiohttp", "httpx"):
    node = toolkit.node(info["nodes"]["ethereum-mainnet"], chain="ethereum", cache=False,
                        async_transport=transport)

    async def call():
        try:
            return await node.aio.block_number()
        finally:
            await node.aio.aclose()

    for _ in range(5):
        asyncio.run(call())
for _ in range(5):  # a notebook cell run again and again, never closing its client
    toolkit.node(info["nodes"]["ethereum-mainnet"], chain="ethereum", cache=False).block_number()
gc.collect()
print("done")
"""


def test_repeated_asyncio_run_and_dropped_clients_leave_no_socket_open(sandbox):
    info = {"nodes": sandbox.info["nodes"]}
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [
            sys.executable,
            "-X",
            "dev",
            "-W",
            "error::ResourceWarning",
            "-c",
            SCRIPT,
            json.dumps(info),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "done" in done.stdout
    assert "ResourceWarning" not in done.stderr, done.stderr[-2000:]
