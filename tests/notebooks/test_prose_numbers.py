"""Notebook prose never states a number the notebook does not show (issue 14): after Run All, every
number a markdown cell quotes appears in the outputs of the code cells next to it (the run of code
cells just before it and just after it), or in their source (an input the text restates: "one
block every 20,000" beside ``head - 20_000 * step``), or is a fact listed in `FACTS` with why.

Numbers in digits count, and so do the number words from "three" up ("six accounts", "fifty
blocks"); "one" and "two" are left out, as they are mostly idiom ("one row per call"). Not quotes:
inline code and code blocks, heading and list ordinals, powers (``2**64``, ``10⁻¹⁸``), parts of
names (ERC-20, 64-bit) and references (HTTP 200, notebook 04, Python 3.11).
"""

from __future__ import annotations

import html
import re

import nbformat
import pytest

from tests.notebooks.kernel import NOTEBOOKS, SECONDS_PER_NOTEBOOK

pytestmark = pytest.mark.notebooks

# Numbers the prose states as facts of the chains, the spec's pricing or the widget's design:
# nothing in the notebook computes them. Each needs its reason; a fact the prose no longer quotes
# fails `test_every_listed_fact_is_still_quoted`.
FACTS: dict[str, dict[str, str]] = {
    "02_evm_history.ipynb": {"32": "an EVM storage slot is 32 bytes"},
    "03_tron_assets_and_fees.ipynb": {"1": "the pricing rule: a TRON request is 1 RU"},
    "06_interactive_explorer.ipynb": {
        "3": "the explorer's design: three panels",
        "2": "the pricing rule: an archive read is 2 RU",
    },
    "07_ton_tokens.ipynb": {
        "1": "the pricing rule: a TON call is 1 RU",
        "36": "a user-friendly TON address is 36 bytes",
    },
}

UNITS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
TEENS = [
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
WORDS = {word: value for value, word in enumerate(UNITS[2:] + TEENS, start=3)}
WORDS |= {word: 10 * value for value, word in enumerate(TENS, start=2)} | {"hundred": 100}
WORDS |= {
    f"{ten}-{unit}": WORDS[ten] + value for ten in TENS for value, unit in enumerate(UNITS, start=1)
}
SUPERSCRIPTS = "⁰¹²³⁴⁵⁶⁷⁸⁹⁻"
NUMBER = re.compile(
    rf"(?<![\w.\-])(\d{{1,3}}(?:,\d{{3}})+|\d+)(\.\d+)?(?![\w\-{SUPERSCRIPTS}]|\.\d)"
)
WORD = re.compile(rf"\b({'|'.join(sorted(WORDS, key=len, reverse=True))})\b", re.IGNORECASE)
NOT_QUOTES = [
    re.compile(r"```.*?```", re.DOTALL),  # code blocks
    re.compile(r"`[^`]*`"),  # inline code
    re.compile(r"\]\([^)]*\)"),  # link targets
    re.compile(r"^#+\s+\d+\.", re.MULTILINE),  # "## 5. The ledger"
    re.compile(r"^\s*\d+\.\s", re.MULTILINE),  # "2. **Pick a method.**"
    re.compile(r"\d+\*\*\d+"),  # 2**64
    re.compile(r"\b(?:HTTP|Python)\s+[\d.]*\d"),  # HTTP 200, Python 3.11
    re.compile(r"\b[Nn]otebooks?\s+\d+(?:(?:,|\s+and)\s+\d+(?![.\d]))*"),  # notebooks 02 and 08
]


def quoted_numbers(markdown: str) -> list[tuple[str, str]]:
    """(number as digits without separators, the line quoting it) for each number `markdown`
    quotes."""
    for pattern in NOT_QUOTES:
        markdown = pattern.sub(" ", markdown)
    found = []
    for line in markdown.splitlines():
        found += [
            (m.group(1).replace(",", "") + (m.group(2) or ""), line) for m in NUMBER.finditer(line)
        ]
        found += [(str(WORDS[m.group(1).lower()]), line) for m in WORD.finditer(line)]
    return found


def shown_text(cell: nbformat.NotebookNode) -> str:
    """What a code cell shows (streams, text and HTML), thousands separators removed."""
    parts = []
    for output in cell.get("outputs", []):
        parts.append(output.get("text", ""))
        for kind, value in output.get("data", {}).items():
            if kind.startswith("text/"):
                parts.append(value if isinstance(value, str) else "".join(value))
    return html.unescape("\n".join(parts)).replace(",", "")


def neighbours(cells: list, index: int) -> list:
    """The code cells right before and right after the markdown cell at `index`."""
    near = []
    for step in (-1, 1):
        position = index + step
        while 0 <= position < len(cells) and cells[position].cell_type == "code":
            near.append(cells[position])
            position += step
    return near


def appears(number: str, text: str) -> bool:
    pattern = rf"(?<![\d.]){re.escape(number)}{'0*' if '.' in number else ''}(?!\d)"
    return re.search(pattern, text) is not None


def unbacked_numbers(notebook: nbformat.NotebookNode, facts: dict[str, str]) -> list[str]:
    unbacked = []
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "markdown":
            continue
        near = neighbours(notebook.cells, index)
        shown = "\n".join(shown_text(code) for code in near)
        source = "\n".join(code.source for code in near).replace("_", "")
        for number, line in quoted_numbers(cell.source):
            if number in facts or appears(number, shown) or appears(number, source):
                continue
            unbacked.append(f"cell {index}: {number} in {line.strip()!r}")
    return unbacked


@pytest.mark.timeout(SECONDS_PER_NOTEBOOK)
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_number_the_prose_quotes_is_shown_next_to_it(path, executed):
    unbacked = unbacked_numbers(executed(path), FACTS.get(path.name, {}))
    assert not unbacked, (
        f"{path.name} quotes numbers its cells do not show: print them, or list a fact in FACTS:\n"
        + "\n".join(unbacked)
    )


def test_every_listed_fact_is_still_quoted():
    by_name = {path.name: path for path in NOTEBOOKS}
    for name, facts in FACTS.items():
        notebook = nbformat.read(by_name[name], as_version=4)
        quoted = {
            number
            for cell in notebook.cells
            if cell.cell_type == "markdown"
            for number, _ in quoted_numbers(cell.source)
        }
        assert set(facts) <= quoted, f"{name}: facts no longer quoted: {set(facts) - quoted}"


def test_what_counts_as_a_quoted_number():
    text = (
        "## 5. The ledger\n2. **Pick** the `head - 500` block: **96 calls** of 1,388 RU, "
        "six accounts, seventy-two calls, one row, ERC-20, 64-bit, 2**64 wei, 10⁻¹⁸ ETH, HTTP 200, "
        "notebooks 02 and 08, Python 3.11, 0.25 SOL."
    )
    assert [number for number, _ in quoted_numbers(text)] == ["96", "1388", "0.25", "6", "72"]
    assert appears("0.25", "0.250000 SOL") and appears("1388", "1388 RU")
    assert not appears("38", "1388") and not appears("0.25", "0.255")
