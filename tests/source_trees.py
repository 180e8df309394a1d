"""The syntax trees of source files, parsed once per process: the architecture tests read the
whole package, test after test (a parametrized test once parsed every module again for each of
its cases), and parsing was most of their time. Keyed by the file's text, so a file that
changes (a test's own package in tmp_path) is parsed again."""

from __future__ import annotations

import ast
import functools
from pathlib import Path


@functools.cache
def _tree(source: str, filename: str) -> ast.Module:
    return ast.parse(source, filename=filename)


@functools.cache
def _nodes(source: str, filename: str) -> tuple[ast.AST, ...]:
    return tuple(ast.walk(_tree(source, filename)))


def tree(path: Path) -> ast.Module:
    """`ast.parse` of the file at `path` (shared: do not change it)."""
    return _tree(path.read_text(), str(path))


def nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of the file's tree, as `ast.walk` gives them."""
    return _nodes(path.read_text(), str(path))
