"""The repo holds no stray cache files, and the session check that keeps it so sees a test's writes
(tests/conftest.py: a run that leaves new or changed files in the working tree fails); the
package's comments keep no measured figures (those belong to bench/)."""

import ast
import io
import re
import subprocess
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
    ).stdout


def test_no_sqlite_or_cache_file_is_tracked():
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    tracked = _git(ROOT, "ls-files").splitlines()
    with_magic = []
    for name in tracked:
        path = ROOT / name
        if path.is_file():
            with path.open("rb") as handle:
                if handle.read(16) == b"SQLite format 3\x00":
                    with_magic.append(name)
    assert with_magic == []


def test_stray_cache_files_are_ignored():
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    names = ["nope-dir/x", "answers.sqlite", "responses.sqlite-wal", "cache.db"]
    ignored = _git(ROOT, "check-ignore", "--no-index", *names).split()
    assert sorted(ignored) == sorted(names)


def test_the_session_check_sees_new_changed_and_ignored_files(tmp_path, working_tree_probe):
    tree_state, tree_changes = working_tree_probe
    _git(tmp_path, "init", "-q")
    (tmp_path / ".gitignore").write_text("*.sqlite\n")
    (tmp_path / "tracked.txt").write_text("one\n")
    (tmp_path / "__pycache__").mkdir()
    _git(tmp_path, "add", ".")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "start")
    before = tree_state(tmp_path)
    assert before is not None and tree_changes(before, tree_state(tmp_path)) == []

    (tmp_path / "nope-dir").mkdir()
    (tmp_path / "nope-dir" / "x").write_bytes(b"SQLite format 3\x00")
    (tmp_path / "answers.sqlite").write_bytes(b"")  # ignored, and still seen
    (tmp_path / "tracked.txt").write_text("two\n")
    (tmp_path / "__pycache__" / "m.pyc").write_bytes(b"")  # a tool cache: allowed
    changes = tree_changes(before, tree_state(tmp_path))
    assert changes == ["!! answers.sqlite", "?? nope-dir/", " M tracked.txt"]


def test_outside_a_git_checkout_there_is_no_state(tmp_path, working_tree_probe):
    tree_state, _ = working_tree_probe
    assert tree_state(tmp_path / "not-a-repo") is None


# A measured figure in the code's own words: a ratio ("1.3x"), a time per call or record, a share
# of a run ("3 % of", "a tenth of a run's time"), a rate ("330 call/s"), "twice the time". Spec
# facts and settings ("400 ms a slot", "at most 32 MiB", "waits 40 ms for a delayed ACK") are not
# measurements of ours and do not match.
TIMING_FIGURE = re.compile(
    r"""
    (?<![\w".])(?:[1-9]\d*|\d+\.\d+)\s?[x×](?!\w)                       # 1.3x, 7x
    | (?<![\w".])\d[\d.,]*\s?(?:ns|us|µs|μs)\b                           # 27 us
    | \d[\d.,]*\s?(?:ns|us|µs|μs|ms|s)\s(?:a|per|each)\s(?:call|request|row|answer|record)\b
    | \d\s?%\s(?:of|more|less|slower|faster|longer)\b                    # 3 % of a re-run
    | \d[\d.,]*\s?(?:calls?|requests?|rows?|answers?)/s\b               # 3.56 call/s
    | \b(?:twice|half|a\s(?:third|quarter|fifth|tenth|hundredth))(?:\sof)?\s(?:the|its|as)\s
      (?:time|long|fast|slow)                                            # twice the time
    | \b(?:twice|half|\d+(?:\.\d+)?\s?times)\s(?:as\s(?:long|fast|slow|quick)|faster|slower)\b
    | \b\d+(?:\.\d+)?\s?times\sthe\stime\b
    | \b(?:a\s(?:third|quarter|fifth|tenth|hundredth)|half)\sof\s[^.;:]*?\b(?:time|run|decoding)
    | \b(?:took|takes|take)\sas\slong\sas\b                              # as long as reading ...
    """,
    re.I | re.X,
)


def _comments_and_docstrings(path: Path) -> Iterator[tuple[int, str]]:
    source = path.read_text()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            docstring = ast.get_docstring(node, clean=False)
            if docstring is not None:
                first = node.body[0].lineno
                for offset, line in enumerate(docstring.splitlines()):
                    yield first + offset, line


def test_no_comment_in_the_package_carries_a_timing_figure():
    # Reasons stay in comments; figures go to bench/, which measures them on the interpreter of
    # the day (a figure in a comment goes stale with the next release, unseen).
    found = [
        f"{path.relative_to(ROOT)}:{line}: {text.strip()}"
        for path in sorted((ROOT / "toolkit").rglob("*.py"))
        for line, text in _comments_and_docstrings(path)
        if TIMING_FIGURE.search(text)
    ]
    assert found == []


@pytest.mark.parametrize(
    "text",
    [
        "# a frozen dataclass costs twice the time to make",
        "# slots: made a thousand at a time, half the time to make",
        "# the guard costs 1.3x json.loads",
        "# about 0.7 ms a call for calls sent one by one",
        "# collecting the nodes in a dict cost 3 % of a cached re-run",
        "# it showed 3.56 call/s for a run of about 330",
        "# a row per call made the journal a tenth of a fast run's time",
        "# pricing them again took as long as reading the answers",
        "# 27 us of our own CPU per call",
    ],
)
def test_the_figure_pattern_sees_a_measured_figure(text):
    assert TIMING_FIGURE.search(text)


@pytest.mark.parametrize(
    "text",
    [
        "# every keep-alive request waits 40 ms for a delayed ACK",
        "makes the slot follow it at 400 ms a slot.",
        "`memory_bytes` (an eighth of `max_bytes`, at most 32 MiB)",
        'Go\'s time.Duration text ("250ms", "1.5s", "100µs")',
        "# a 0x hex quantity, or ``0x`` and 64 hex digits",
        '# "auto", not "100%": the margins would overflow',
        "# a call to `bind` for each costs more than the whole join",
    ],
)
def test_the_figure_pattern_passes_facts_and_reasons(text):
    assert not TIMING_FIGURE.search(text)
