"""A user's checker knows what the toolkit gives back: the README's examples pass mypy and
pyright (basic) with 0 errors, and what the helpers return is typed, never Any (the signatures
come from the catalog, see `toolkit/client/_helpers.pyi`)."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("mypy", reason="mypy is a dev dependency")

# What a user writes after the README's tour, with the type each expression must have.
REVEALED = {
    "eth": "toolkit.client._chains.EvmNode",
    "wei": "int",
    "eth.chain_id()": "int",
    "eth.get_block(head)": "dict[str, Any] | None",
    "eth.get_logs(fromBlock=head - 10, toBlock=head)": ("list[dict[str, Any]]"),
    "eth.call_contract(alice)": "str",
    "eth.aio.get_balance(alice)": "typing.Coroutine[Any, Any, int]",
    "tron": "toolkit.client._chains.TronNode",
    "tron.get_now_block()": "dict[str, Any]",
    "gw.node('ton-mainnet', chain='ton').get_masterchain_info()": "dict[str, Any]",
    "gw.node('polygon-mainnet', chain='polygon').get_root_hash(1, 2)": "str",
    "gw.node('solana-mainnet', chain='solana').aio": "toolkit.client._chains.AsyncSolanaNode",
    "gw.node('some-node')": "toolkit.client._node.Node",
    "results": "pandas.core.frame.DataFrame",
}


def _mypy(script: Path) -> list[str]:
    """mypy's output on `script`, run where a user's script is (outside the checkout, with no
    path given): the toolkit is found as installed in this environment, as a user's checker
    finds it. With the project's settings and the cache `make typecheck` leaves, so that the
    toolkit's modules are not checked again."""
    env = {key: value for key, value in os.environ.items() if key != "MYPYPATH"}
    config = ["--config-file", str(ROOT / "pyproject.toml")]
    cache = ["--cache-dir", str(ROOT / ".mypy_cache")]
    completed = subprocess.run(
        [sys.executable, "-m", "mypy", *config, *cache, "--no-pretty", str(script)],
        capture_output=True,
        text=True,
        cwd=script.parent,
        env=env,
        timeout=280,
    )
    assert completed.returncode in (0, 1), completed.stderr
    return completed.stdout.splitlines()


def test_the_readme_examples_type_check_and_the_helpers_are_typed(tmp_path):
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    script = tmp_path / "readme_tour.py"
    # Assigned: a coroutine left unused would be an error of its own.
    lines = [*blocks, *(f"_{i} = reveal_type({e})" for i, e in enumerate(REVEALED))]
    script.write_text("\n".join(lines) + "\n")
    first = len("\n".join(blocks).splitlines()) + 2  # the line of the first reveal_type

    output = _mypy(script)
    errors = [line for line in output if ": error:" in line]
    assert errors == [], "\n".join(errors)
    revealed = {}
    for line in output:
        found = re.search(r":(\d+): note: Revealed type is \"(.*)\"$", line)
        if found:
            revealed[list(REVEALED)[int(found[1]) - first]] = found[2]
    assert revealed == REVEALED


PYRIGHT = ROOT / ".tools" / "node_modules" / ".bin" / "pyright"


def test_the_readme_examples_type_check_under_pyright_too(tmp_path):
    if not PYRIGHT.exists():
        pytest.skip("pyright comes from npm (make pyright)")
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    script = tmp_path / "readme_tour.py"
    script.write_text("\n".join([*blocks, *(f"reveal_type({e})" for e in REVEALED)]) + "\n")
    config = tmp_path / "pyrightconfig.json"
    # No extraPaths: pyright finds the toolkit in the environment, as a user's editor does.
    settings = {"typeCheckingMode": "basic", "pythonVersion": "3.11"}
    config.write_text(json.dumps({**settings, "include": [script.name]}))
    completed = subprocess.run(
        [str(PYRIGHT), "-p", str(config), "--pythonpath", sys.executable, "--outputjson"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=280,
    )
    report = json.loads(completed.stdout)
    diagnostics = report["generalDiagnostics"]
    errors = [d["message"] for d in diagnostics if d["severity"] == "error"]
    assert errors == []
    revealed = [
        re.search(r'^Type of ".*" is "(.*)"$', d["message"], re.S)[1]
        for d in diagnostics
        if d["severity"] == "information" and d["message"].startswith("Type of")
    ]
    # The same expressions as for mypy, each known: never Unknown or a bare Any.
    assert len(revealed) == len(REVEALED)
    assert not [t for t in revealed if "Unknown" in t or t == "Any"], revealed
