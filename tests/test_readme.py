"""The README and the guides stay true: the method table matches the catalog, the Python examples
of the README, of every page of docs/ and of the public docstrings run, and the README's links
work on a package index."""

import doctest
import re
from pathlib import Path

import pytest

from tests.docstrings import example_blocks, public_docstrings
from toolkit.catalog._reference import with_method_table

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
GUIDES = sorted(path for path in DOCS.glob("*.md"))
HOMEPAGE = "https://github.com/node-gateway-toolkit/node-gateway-toolkit"


def _run_examples(path: Path) -> dict:
    blocks = re.findall(r"```python\n(.*?)```", path.read_text(), re.S)
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(path), "exec"), namespace)
    return namespace


def test_method_table_matches_the_catalog():
    path = DOCS / "methods.md"
    text = path.read_text()
    assert with_method_table(text) == text, (
        "docs/methods.md is out of date: run `python -m toolkit.catalog._reference docs/methods.md`"
    )


def test_quick_start_is_exactly_the_two_commands():
    quick_start = README.read_text().split("## Quick start", 1)[1].split("##", 1)[0]
    block = re.search(r"```\n(.*?)```", quick_start, re.S)[1]
    assert block.split("\n")[:-1] == ["make lab", "make test"]


def test_readme_is_a_front_page():
    text = README.read_text()
    assert len(text.splitlines()) <= 250
    assert "pip install node-gateway-toolkit" in text
    # On a package index relative links and images break: every target is absolute, under the
    # project's Homepage, or Binder's for the project's repository, opening a file it has.
    binder = "https://mybinder.org/v2/gh/" + HOMEPAGE.removeprefix("https://github.com/")
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    assert targets and all(t.startswith((HOMEPAGE + "/", binder + "/")) for t in targets), targets
    for target in targets:
        if target.startswith(binder):
            tail = re.sub(r"^/main\?urlpath=(lab/tree|voila/render)/", "", target[len(binder) :])
        else:
            tail = re.sub(r"^/(blob|tree|raw)/main/", "", target.removeprefix(HOMEPAGE))
        assert (ROOT / tail.split("#")[0]).exists(), target


def test_no_internal_log_text_where_users_read():
    pattern = re.compile(r"\b(session \d+|issue \d+|sessions? of 20\d\d)", re.I)
    texts = [README, ROOT / "CONTRIBUTING.md", *GUIDES, *(DOCS / "reference").glob("*.md")]
    texts += sorted((ROOT / "notebooks").glob("*.ipynb"))  # markdown and outputs alike
    texts += [ROOT / "CHANGELOG.md", *sorted((ROOT / "toolkit").rglob("*.py"))]  # docstrings
    texts += sorted((ROOT / "bench").glob("*.py"))  # what the benchmarks print and say
    found = [(path.name, m[0]) for path in texts for m in pattern.finditer(path.read_text())]
    assert found == []


def test_readme_examples_run_in_order():
    namespace = _run_examples(README)
    assert namespace["preview"].ru_high == 30 and namespace["wei"] > 0
    assert len(namespace["results"]) == 20


@pytest.mark.parametrize("path", GUIDES, ids=[path.stem for path in GUIDES])
def test_guide_examples_run_in_order(path):
    namespace = _run_examples(path)
    if path.stem == "budgets":
        assert namespace["preview"].ru_high == 30
    if path.stem == "widgets":  # the workload builder's example: 18 RU previewed and spent
        builder = namespace["builder"]
        assert builder.preview.ru_high == builder.results.attrs["summary"]["ru"] == 18
    if path.stem == "contracts-and-events":  # 10 chunks, the last one full, the others archive
        assert len(namespace["scan"]) == 10 and namespace["scan"].preview().ru_high == 19
        assert len(namespace["transfers"]) > 0 and namespace["balances"]["error"].isna().all()


def test_dependency_table_is_the_same_in_readme_and_docs():
    def table(text: str) -> str:
        return re.search(r"^\| dependency \|.*?\n(?!\|)", text, re.S | re.M)[0]

    assert table(README.read_text()) == table((DOCS / "dependencies.md").read_text())


DOCSTRING_EXAMPLES = {
    where: blocks for where, doc in public_docstrings() if (blocks := example_blocks(doc))
}


@pytest.mark.parametrize("where", sorted(DOCSTRING_EXAMPLES))
def test_docstring_examples_run(where):
    """What `help()` shows runs as shown, against the sandbox: each docstring's examples in
    order, in one namespace of their own (a ``>>>`` example is a doctest, its output checked)."""
    namespace: dict = {}
    for block in DOCSTRING_EXAMPLES[where]:
        if block.startswith(">>>"):
            test = doctest.DocTestParser().get_doctest(block, namespace, where, where, 0)
            runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
            runner.run(test, clear_globs=False)
            assert runner.summarize(verbose=False).failed == 0, block
        else:
            exec(compile(block, where, "exec"), namespace)


def _clauses(text: str) -> list[str]:
    """The prose of a page cut into clauses (at ``;`` and sentence ends), code blocks left out."""
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    return [c for p in re.split(r"\n\s*\n|\n- ", prose) for c in re.split(r";|\.\s", p)]


def test_the_docs_say_of_each_method_what_the_catalog_says():
    """A page that says a method is reached through `call_raw` (no helper) must not name a
    catalog method there, and one that says a method is outside the spec must not name a method
    of the spec: each page says what the catalog says (it once put `eth_getBlockByNumber`,
    which has the `get_block` helper, among the `call_raw` methods)."""
    from toolkit.catalog import METHODS

    in_catalog = {method.name: method for method in METHODS}
    wrong = []
    for path in [README, *GUIDES]:
        for clause in _clauses(path.read_text()):
            named = [n for n in re.findall(r"`([\w/]+)`", clause) if n in in_catalog]
            if "`call_raw`" in clause:
                wrong += [(path.name, n, "has a helper, not only call_raw") for n in named]
            if re.search(r"(outside|beyond) the spec", clause):
                spec = [n for n in named if in_catalog[n].in_spec]
                wrong += [(path.name, n, "is a spec method") for n in spec]
    assert wrong == []
