# Runs inside the real Pyodide core (tests/lite/test_pyodide.py): the toolkit replays a tape
# recorded on CPython through its call pipeline, in Emscripten, where no thread can start and no
# socket can connect. Prints one JSON line of what it saw.
import json
import sys
import threading

import toolkit
from toolkit.client._loop import run_sync

assert sys.platform == "emscripten", sys.platform
assert toolkit.client is not None
try:  # what Pyodide does to a new thread: the browser path must never ask for one
    threading.Thread(target=print).start()
    threads = "started"
except RuntimeError as error:
    threads = f"refused: {error}"

with open("/work/expected.json") as file:
    expected = json.load(file)
# In lower case: a mixed-case address's checksum is keccak, from pycryptodome, whose Pyodide
# build is not in the core (a kernel in the site loads it from Pyodide's distribution).
alice = expected["alice"].lower()
gw = toolkit.connect(tape="/work/lesson.tape.gz", tape_mode="replay")
eth = gw.node("ethereum-mainnet")
seen = {
    "block_number": eth.block_number(),
    "chain_id": eth.chain_id(),
    "balance": eth.get_balance(alice, expected["block"]),
}
try:
    eth.get_balance("not an address", "latest")
    refused = None
except toolkit.ValidationError as error:
    refused = type(error).__name__
try:
    eth.get_balance(alice, expected["block"] - 1)
    missed = None
except toolkit.TapeMiss as error:
    missed = type(error).__name__
entries = gw.ledger.entries
print(
    json.dumps(
        {
            "python": sys.version.split()[0],
            "platform": sys.platform,
            "threads": threads,
            "seen": seen,
            "async_block_number": await eth.aio.block_number(),  # noqa: F704 (top-level await)
            # A blocking call inside Pyodide's running WebLoop, as `Workload.run` makes one:
            # run in this thread on `HereLoop`, the WebLoop standing aside meanwhile.
            "here_block_number": run_sync(eth.aio.block_number()),
            "refused": refused,
            "missed": missed,
            "ledger": [[e.method, e.ru, e.recorded_ru, e.replayed, e.sent] for e in entries],
            "loaded": sorted({name.split(".")[0] for name in sys.modules}),
        }
    )
)
