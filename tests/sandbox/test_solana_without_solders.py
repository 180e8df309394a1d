"""The sandbox's Solana where solders cannot run (a browser tab): the demo world's facts derived
in pure Python, the notebooks' simulations answered from recordings, any other refused plainly."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from toolkit.sandbox._solana_demo import demo_facts
from toolkit.sandbox._solana_recorded import RECORDINGS, extract
from toolkit.sandbox._solana_world import SolanaWorld

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("seed", [0, 1, 12345])
def test_the_demo_facts_without_litesvm_are_litesvms(seed):
    assert demo_facts(seed) == SolanaWorld(seed).demo()


def test_the_recordings_are_the_committed_tapes_simulations():
    # After `make tapes`: python -m toolkit.sandbox._solana_recorded notebooks/tapes
    committed = json.loads(RECORDINGS.read_text(encoding="utf-8"))
    assert committed == extract(sorted((ROOT / "notebooks" / "tapes").glob("*.tape.gz")))
    assert len(committed) >= 7  # notebook 04's six, and the quickstart's


BROWSER_RUN = """
import json, sys
if toolkit_in_browser := len(sys.argv) > 1:
    sys.modules["solders"] = None  # as in a browser tab: no solders build to import
import toolkit
from toolkit import solana_tx
from toolkit.examples import examples

gw = toolkit.connect()
ex = examples(gw)
S = ex.solana
sol = gw.node(ex.node_name("solana"))
tx = solana_tx.transfer(S.payer_keypair(), S.recipient, 250_000_000, S.recent_blockhash)
for _ in range(3):  # the slot moves on with each simulation
    result = sol.simulate_transaction(tx, accounts=[S.payer, S.recipient])
print(json.dumps(result, sort_keys=True))
if not toolkit_in_browser:
    sys.exit()
try:
    other = solana_tx.transfer(S.payer_keypair(), S.recipient, 7, S.recent_blockhash)
    sol.simulate_transaction(other)
except toolkit.GatewayError as error:
    print("refused:", error)
"""


def test_in_a_browser_the_notebooks_simulations_replay_and_others_say_they_need_cpython():
    def run(*browser: str) -> list[str]:
        environment = {k: v for k, v in os.environ.items() if not k.startswith("NODE_GATEWAY_")}
        if browser:
            environment["NODE_GATEWAY_BROWSER"] = "1"
        done = subprocess.run(
            [sys.executable, "-c", BROWSER_RUN, *browser],
            capture_output=True,
            text=True,
            env=environment,
            cwd=ROOT,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip().splitlines()

    recorded, refused = run("browser")
    # What LiteSVM answers live, to the slot: a recording is dated by this sandbox's slots.
    assert run() == [recorded]
    assert json.loads(recorded)["value"]["err"] is None
    assert refused.startswith("refused:")
    assert "live Solana simulation needs a CPython kernel" in refused


def test_serving_the_sandbox_on_a_socket_in_a_browser_says_what_works_there(monkeypatch):
    from toolkit import NeedsCPython
    from toolkit.sandbox import Sandbox

    monkeypatch.setenv("NODE_GATEWAY_BROWSER", "1")
    sandbox = Sandbox()
    with pytest.raises(NeedsCPython, match=r"needs a CPython kernel.*Sandbox\(\)\.in_process\(\)"):
        sandbox.start()
    assert sandbox.in_process().port == 0  # what works there
