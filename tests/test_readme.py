"""The README stays true: its method table matches the catalog, and its Python examples run."""

import re
from pathlib import Path

from toolkit.catalog._reference import with_method_table

README = Path(__file__).resolve().parents[1] / "README.md"


def test_method_table_matches_the_catalog():
    text = README.read_text()
    assert with_method_table(text) == text, (
        "README's method table is out of date: run `python -m toolkit.catalog._reference README.md`"
    )


def test_quick_start_is_exactly_the_two_commands():
    quick_start = README.read_text().split("## Quick start", 1)[1].split("##", 1)[0]
    block = re.search(r"```\n(.*?)```", quick_start, re.S)[1]
    assert block.split("\n")[:-1] == ["make lab", "make test"]


def test_python_examples_run_in_order():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert len(blocks) >= 4
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(README), "exec"), namespace)
    assert namespace["preview"].ru_high == 30 and namespace["wei"] > 0
    builder = namespace["builder"]  # the workload builder's example: 18 RU previewed and spent
    assert builder.preview.ru_high == builder.results.attrs["summary"]["ru"] == 18
