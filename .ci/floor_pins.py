"""Print pyproject.toml's floors as exact pins, one a line: ``name==floor`` for the runtime
dependencies and the extras named on the command line (``make test-floors`` installs the toolkit
under them as pip constraints: what uv calls ``--resolution lowest-direct``, with pip alone).

    python .ci/floor_pins.py [EXTRA ...]

A dependency without a ``>=`` floor is an error: nothing would say which oldest version works.
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]


def floor_pins(extras: list[str]) -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lines = list(project["dependencies"])
    for extra in extras:
        lines += project["optional-dependencies"][extra]
    pins = []
    for line in lines:
        requirement = Requirement(line)
        floors = [spec.version for spec in requirement.specifier if spec.operator == ">="]
        if len(floors) != 1:
            raise SystemExit(f"{line!r} in pyproject.toml has no single >= floor")
        # Constraints take no extras: the extras come with the requirement itself.
        pins.append(f"{requirement.name}=={floors[0]}")
    return pins


if __name__ == "__main__":
    print("\n".join(floor_pins(sys.argv[1:])))
