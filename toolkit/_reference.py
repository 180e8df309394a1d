"""Reference text generated from the catalog: the README method table (a test keeps it in sync)."""

from __future__ import annotations

from ._catalog import METHODS, Param, Surface

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


def method_table() -> str:
    """Every catalog method as a markdown table: name, chains, surface, params, RU, helper."""
    lines = [
        "| spec name | chains | surface | params | RU | helper |",
        "|---|---|---|---|---|---|",
    ]
    for method in METHODS:
        surface = _SURFACE[method.surface] + (f" `{method.path}`" if method.path else "")
        params = ", ".join(_param(p) for p in method.params) or "—"
        lines.append(
            f"| `{method.name}` | {', '.join(method.chains)} | {surface} | {params} "
            f"| {method.ru.describe()} | `{method.helper}` |"
        )
    return "\n".join(lines)
