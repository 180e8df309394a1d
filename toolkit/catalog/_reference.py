"""Reference text generated from the catalog: the method table of docs/methods.md (a test keeps it
in sync)."""

from __future__ import annotations

from ._kinds import Param
from ._model import Method, Surface
from ._table import METHODS

_SURFACE = {
    Surface.JSONRPC: "JSON-RPC",
    Surface.JSONRPC_NAMED: "JSON-RPC (named)",
    Surface.REST_POST: "POST",
    Surface.REST_GET: "GET",
    Surface.PLATFORM: "GET (platform)",
}


def _param(param: Param) -> str:
    text = param.name if param.required and not param.has_default else f"[{param.name}]"
    return text


def _helper(method: Method) -> str:
    """The helper as it is called: its positional arguments (optional ones in brackets), and
    ``…`` when it takes keywords besides."""
    shown = [
        arg.name if arg.required else f"[{arg.name}]"
        for arg in method.helper_args
        if arg.positional
    ]
    if any(not arg.positional for arg in method.helper_args):
        shown.append("…")
    return f"{method.helper}({', '.join(shown)})"


def method_table() -> str:
    """Every catalog method as a markdown table: name, where it comes from (the spec's section,
    or a read method real clients call first), chains, surface, params, RU, helper."""
    lines = [
        "| name | from | chains | surface | params | RU | helper |",
        "|---|---|---|---|---|---|---|",
    ]
    for method in METHODS:
        surface = _SURFACE[method.surface] + (f" `{method.path}`" if method.path else "")
        params = ", ".join(_param(p) for p in method.params) or "—"
        origin = f"spec {method.section}" if method.in_spec else "clients"
        lines.append(
            f"| `{method.name}` | {origin} | {', '.join(method.chains)} | {surface} | {params} "
            f"| {method.ru.describe()} | `{_helper(method)}` |"
        )
    return "\n".join(lines)


START, END = "<!-- methods:start -->", "<!-- methods:end -->"


def with_method_table(readme: str) -> str:
    """`readme` with the text between the method-table markers replaced by `method_table()`."""
    head, rest = readme.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{method_table()}\n{END}{tail}"


if __name__ == "__main__":  # python -m toolkit.catalog._reference docs/methods.md
    import sys
    from pathlib import Path

    path = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/methods.md")
    path.write_text(with_method_table(path.read_text()))
