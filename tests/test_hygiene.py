"""The repo holds no stray cache files, and the session check that keeps it so sees a test's writes
(tests/conftest.py: a run that leaves new or changed files in the working tree fails)."""

import subprocess
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
