"""Measure what each runtime dependency costs on disk: the README's dependency table.

    python .ci/dep_sizes.py            # `pip install .` into a clean venv, then the table
    python .ci/dep_sizes.py --measure  # (inside that venv) the table of what is installed

Each runtime dependency of pyproject.toml is one row: its job in the toolkit, its own installed
size, and its size with the packages only it brings in (dependencies no other runtime dependency
needs). The total is every distribution the no-extras install put into site-packages, the toolkit
included, pip (and setuptools, if the venv has it) left out. Sizes are the files each
distribution's RECORD lists, in MiB (2**20 bytes). A dependency without a job below is an error:
a new one needs its line.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

JOBS = {
    "httpx": "the sync HTTP client (and the async one when asked for)",
    "certifi": "the CA roots both HTTP stacks verify with",
    "pandas": "every result as a DataFrame",
    "matplotlib": "the plots",
    "ipywidgets": "the explorer and the workload builder",
    "starlette": "the embedded sandbox gateway's routes",
    "uvicorn": "the sandbox served on a socket (`Sandbox.start`)",
    "solders": "the sandbox's live Solana simulations (LiteSVM)",
    "pycryptodome": "Ed25519: Solana keypairs and signatures (`toolkit.solana_tx`); Keccak",
    "eth-hash": "Keccak-256 (EVM addresses' checksums, `web3_sha3`)",
    "base58": "TRON addresses",
    "tqdm": "the bulk runs' progress bar",
    "jinja2": "pandas' Styler: readable tables",
    "aiohttp": "the async and bulk HTTP stack",
    "pyarrow": "Parquet files and datasets",
    "filelock": "one writer per dataset",
}
SKIP = {"pip", "setuptools", "wheel"}


def _key(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def measure() -> str:
    from importlib import metadata

    from packaging.requirements import Requirement

    dists = {}
    for dist in metadata.distributions():
        name = _key(dist.metadata["Name"])
        if name in SKIP:
            continue
        size = 0
        for file in dist.files or ():
            path = Path(dist.locate_file(file))
            if path.is_file():
                size += path.stat().st_size
        dists[name] = (size, [Requirement(line) for line in dist.requires or ()])

    def closure(requirement: Requirement) -> set[str]:
        # What a requirement installs: itself and, through the markers that hold for the extras
        # asked for (eth-hash[pycryptodome]), its dependencies, and theirs.
        seen: set[str] = set()
        todo = [requirement]
        while todo:
            current = todo.pop()
            name = _key(current.name)
            if name in seen or name not in dists:
                continue
            seen.add(name)
            for sub in dists[name][1]:
                extras = current.extras or {""}
                if sub.marker is None or any(sub.marker.evaluate({"extra": e}) for e in extras):
                    todo.append(sub)
        return seen

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    requirements = {
        _key(Requirement(line).name): Requirement(line) for line in project["dependencies"]
    }
    direct = list(requirements)
    missing = [name for name in direct if name not in JOBS]
    if missing:
        raise SystemExit(f"no job written for {missing} in .ci/dep_sizes.py")
    closures = {name: closure(requirements[name]) for name in direct}
    mib = 2**20

    def size(value: float) -> str:
        return f"{value / mib:.1f}" if value >= 0.05 * mib else "< 0.1"

    rows = [
        "| dependency | its job in the toolkit | MiB | MiB with what only it brings |",
        "|---|---|---:|---:|",
    ]
    for name in sorted(direct, key=lambda n: -dists[n][0]):
        others = set().union(*(c for other, c in closures.items() if other != name))
        alone = sum(dists[d][0] for d in (closures[name] - others) | {name})
        rows.append(f"| `{name}` | {JOBS[name]} | {size(dists[name][0])} | {size(alone)} |")
    total = sum(bytes_ for bytes_, _ in dists.values())
    rows.append(
        f"| **all** | the no-extras install: {len(dists)} distributions | **{total / mib:.0f}** | |"
    )
    return "\n".join(rows)


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        venv = Path(folder) / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        python = str(venv / "bin" / "python")
        env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
        subprocess.run(
            [python, "-m", "pip", "install", "--quiet", str(ROOT), "packaging"], check=True, env=env
        )
        table = subprocess.run(
            [python, str(Path(__file__).resolve()), "--measure"],
            check=True,
            capture_output=True,
            text=True,
            cwd=folder,
        ).stdout
    print(table, end="")


if __name__ == "__main__":
    print(measure()) if "--measure" in sys.argv else main()
