"""A notebook rendered as one self-contained HTML report, and that report verified from its tape.

`render` runs the notebook against its tape (`_run.execute`), exports it with nbconvert (figures
inline, code shown or not), draws its widgets as static HTML, and adds a footer of the tape's
facts (`TapeFacts`). Into the page goes what a reader needs to check it, in a JSON script
element: the notebook's source, the parameters, what every code cell showed (`_run.shown`), and
the SHA-256 of the page without that element. `verify` runs the embedded notebook again from the
tape, offline, and names every cell that shows something else.
"""

from __future__ import annotations

import difflib
import hashlib
import html
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._errors import TapeError, ValidationError
from .._redact import register_secret, register_url, scrub
from .._version import __version__
from ._run import (
    WIDGET_VIEW,
    execute,
    first_error,
    shown,
    with_parameters,
)
from ._tape_facts import TapeFacts, tape_facts

FORMAT = "node-gateway-toolkit report"
VERSION = 1
_PAYLOAD_OPEN = '<script type="application/json" id="node-gateway-toolkit-report">'
_PAYLOAD = re.compile(re.escape(_PAYLOAD_OPEN) + r"(.*?)</script>\n?", re.DOTALL)

# Exit codes of `python -m toolkit report` (docs/reports.md).
EXIT_OK = 0
EXIT_DIFFERS = 1  # verify: a cell shows something else, the page was edited, or RU were spent
EXIT_USAGE = 2  # a bad argument, or a file that is not a notebook, tape or report
EXIT_CELL_FAILED = 3  # render: a cell of the notebook raised an error
EXIT_OTHER_TAPE = 4  # verify: every cell is the same, but the tape is not the report's


class ReportError(Exception):
    """A report could not be made or checked; `exit_code` says why, for the command line."""

    def __init__(self, message: str, exit_code: int):
        super().__init__(message)
        self.exit_code = exit_code


@dataclass
class Verdict:
    """What `verify` found: the cells that differ (their number and a diff), and notes."""

    differences: list[tuple[int, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    exit_code: int = EXIT_OK

    def __str__(self) -> str:
        lines = [f"cell {number} differs:\n{diff}" for number, diff in self.differences]
        lines += self.notes
        return "\n".join(lines) or "verified: every cell shows what the report shows"


def _register_keys() -> None:
    """Scrub the keys this process's environment holds from the page: the kernel (which read
    them to record) scrubs its own outputs; this is the last look before the file is written."""
    for name, value in os.environ.items():
        if name == "NODE_GATEWAY_API_KEY" or name.startswith("NODE_GATEWAY_KEY_"):
            register_secret(value)
        elif name == "NODE_GATEWAY_PLATFORM_URL" or name.startswith("NODE_GATEWAY_NODE_"):
            register_url(value)


def _read_notebook(path: Path) -> Any:
    import nbformat

    try:
        return nbformat.read(path, as_version=4)
    except FileNotFoundError:
        raise ReportError(f"{path}: no such notebook", EXIT_USAGE) from None
    except Exception as error:  # nbformat raises several kinds for a file that is not one
        raise ReportError(f"{path} is not a notebook ({error})", EXIT_USAGE) from None


def _facts(tape: Path) -> TapeFacts:
    try:
        return tape_facts(tape)
    except TapeError as error:
        raise ReportError(str(error), EXIT_USAGE) from None


def _static_widgets(notebook: Any, widgets: dict[str, str]) -> None:
    """Each widget output shown as the static HTML of its last state (`toolkit.widgets.
    static_html`), or as its text when the widget was closed: never as a live view, which
    a page with no kernel shows as "widget state not found"."""
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if WIDGET_VIEW in data:
                drawn = widgets.get(data[WIDGET_VIEW].get("model_id"))
                del data[WIDGET_VIEW]
                if drawn is not None:
                    data["text/html"] = drawn
            if "image/svg+xml" in data and "image/png" in data:
                del data["image/svg+xml"]  # compared by its SVG, shown by its (smaller) PNG
    notebook.metadata.pop("widgets", None)


def _footer(facts: TapeFacts, parameters: dict[str, str]) -> str:
    rows = [*facts.rows(), ("rendered by", f"node-gateway-toolkit {__version__}")]
    if parameters:
        rows.append(("parameters", ", ".join(f"{k} = {v}" for k, v in parameters.items())))
    cells = "".join(
        f"<tr><th style='text-align:left;padding-right:1em'>{html.escape(key)}</th>"
        f"<td style='font-family:monospace'>{html.escape(value)}</td></tr>"
        for key, value in rows
    )
    return (
        '<footer id="node-gateway-toolkit-provenance" style="margin:2em;padding-top:1em;'
        'border-top:1px solid #999;font-size:13px">'
        "<p>Every number above was computed from the tape below. Check it with "
        "<code>python -m toolkit report --verify THIS.html --tape TAPE</code> "
        "(offline, 0 RU).</p>"
        f"<table>{cells}</table></footer>\n"
    )


# JupyterLab's page, less the two scripts it loads from a CDN (require.js, for live widgets,
# which a report draws statically; MathJax): a report opens complete with no network.
_TEMPLATE = """{%- extends 'lab/index.html.j2' -%}
{%- block html_head_js_requirejs -%}{%- endblock html_head_js_requirejs -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
"""


def _export(notebook: Any, *, code: bool) -> str:
    import jinja2
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(
        extra_loaders=[jinja2.DictLoader({"report.html.j2": _TEMPLATE})],
        template_file="report.html.j2",
        embed_images=True,
        exclude_input=not code,
    )
    body, _ = exporter.from_notebook_node(notebook)
    return str(body)


def _page(body: str, footer: str, payload: dict[str, Any]) -> str:
    """The page: the export with the footer and the payload before ``</body>``; the payload
    holds the SHA-256 of the page without it."""
    at = body.rindex("</body>")
    page = body[:at] + footer + body[at:]
    payload["page_sha256"] = hashlib.sha256(page.encode()).hexdigest()
    # "</" cannot end the script element early; JSON reads "<\/" as "</".
    script = _PAYLOAD_OPEN + json.dumps(payload, sort_keys=True).replace("</", "<\\/")
    at = page.rindex("</body>")
    return page[:at] + script + "</script>\n" + page[at:]


def _compared(notebook: Any) -> list[dict[str, Any]]:
    return [
        {"cell": number, "shown": shown(cell)}
        for number, cell in enumerate(notebook.cells, start=1)
        if cell.cell_type == "code"
    ]


def render(
    notebook_path: str | os.PathLike[str],
    tape: str | os.PathLike[str],
    output: str | os.PathLike[str],
    *,
    parameters: dict[str, Any] | None = None,
    record: bool = False,
    code: bool = True,
) -> TapeFacts:
    """Run the notebook at `notebook_path` from `tape` (recording it when `record`), with
    `parameters`, and write its report to `output`; the tape's facts, as the footer says them.
    ReportError when a cell raised an error (nothing is written) or an input is not usable."""
    path, tape_path, out = Path(notebook_path), Path(tape), Path(output)
    source = _read_notebook(path)
    for cell in source.cells:  # the report embeds the source; its outputs are the run's
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    if not record:
        _facts(tape_path)  # a missing or damaged tape fails before a kernel starts
    parameters = dict(parameters or {})
    notebook = with_parameters(source, parameters)
    run, found = execute(
        notebook,
        path=path.resolve(),
        workdir=path.resolve().parent,
        tape=tape_path.resolve(),
        mode="record" if record else "replay",
        offline=not record,
    )
    failed = first_error(run)
    if failed is not None:
        number, error = failed
        raise ReportError(
            f"cell {number} raised {scrub(error)}; no report written", EXIT_CELL_FAILED
        )
    facts = _facts(tape_path)
    shown_parameters = {name: repr(value) for name, value in parameters.items()}
    payload = {
        "format": FORMAT,
        "version": VERSION,
        "toolkit_version": __version__,
        "notebook_name": path.name,
        "notebook": json.loads(json.dumps(source)),
        "parameters": shown_parameters,
        "code": code,
        "tape_sha256": facts.sha256,
        # A notebook may show its tape's file name (a gateway's repr does): verify replays the
        # reader's copy, whatever it is called now, under this name.
        "tape_name": tape_path.name,
        "cells": _compared(run),
    }
    _static_widgets(run, found.get("widgets") or {})
    _register_keys()
    page = _page(scrub(_export(run, code=code)), _footer(facts, shown_parameters), payload)
    out.write_text(page, encoding="utf-8")
    return facts


def _payload(report: Path) -> tuple[dict[str, Any], str]:
    """The payload a report embeds, and the page without it."""
    try:
        page = report.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ReportError(f"{report}: no such report", EXIT_USAGE) from None
    except (OSError, UnicodeDecodeError) as error:
        raise ReportError(f"{report} is not a readable report ({error})", EXIT_USAGE) from None
    match = _PAYLOAD.search(page)
    try:
        payload = json.loads(match.group(1)) if match else None
    except ValueError:
        payload = None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise ReportError(
            f"{report} is not a report of `python -m toolkit report` (no payload to re-run)",
            EXIT_USAGE,
        )
    if payload.get("version") != VERSION:
        raise ReportError(
            f"{report} is a report of version {payload.get('version')!r}; this toolkit reads "
            f"version {VERSION}",
            EXIT_USAGE,
        )
    assert match is not None
    return payload, page[: match.start()] + page[match.end() :]


def _diff(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> str:
    def lines(outputs: list[dict[str, Any]]) -> list[str]:
        out = []
        for output in outputs:
            for key, value in sorted(output.items()):
                parts = sorted(value.items()) if isinstance(value, dict) else [("", value)]
                for mime, text in parts:
                    where = f"{key}.{mime}" if mime else key
                    out += [f"{where}: {line}" for line in str(text).splitlines()]
        return out

    diff = difflib.unified_diff(lines(before), lines(after), "report", "replay", lineterm="")
    return "\n".join(list(diff)[:40])


def verify(report: str | os.PathLike[str], tape: str | os.PathLike[str]) -> Verdict:
    """Run the notebook `report` embeds again from `tape`, offline (sockets blocked, keys not
    passed on), and compare what each code cell shows with what the report recorded."""
    import nbformat

    payload, page = _payload(Path(report))
    facts = _facts(Path(tape))
    verdict = Verdict()
    if hashlib.sha256(page.encode()).hexdigest() != payload.get("page_sha256"):
        verdict.notes.append("the page was edited after it was rendered: its text is not the run's")
    source = nbformat.from_dict(payload["notebook"])
    parameters = {name: _literal(text) for name, text in payload.get("parameters", {}).items()}
    notebook = with_parameters(source, parameters)
    with tempfile.TemporaryDirectory(prefix="report-verify-") as workdir:
        replayed = Path(workdir) / _plain_name(payload.get("tape_name"), Path(tape).name)
        shutil.copyfile(tape, replayed)
        run, found = execute(
            notebook,
            path=Path(workdir) / _plain_name(payload.get("notebook_name"), "report.ipynb"),
            workdir=Path(workdir),
            tape=replayed,
            mode="replay",
            offline=True,
        )
    recorded = {entry["cell"]: entry["shown"] for entry in payload.get("cells", [])}
    again = {entry["cell"]: entry["shown"] for entry in _compared(run)}
    for number in sorted(set(recorded) | set(again)):
        before, after = recorded.get(number, []), again.get(number, [])
        if before != after:
            verdict.differences.append((number, _diff(before, after)))
    spent = found.get("spent") or {}
    if spent.get("ru") or spent.get("sent"):
        verdict.notes.append(f"the replay spent {spent.get('ru')} RU: it was not offline")
    other_tape = facts.sha256 != payload.get("tape_sha256")
    if other_tape:
        verdict.notes.append(
            f"the tape's SHA-256 is {facts.sha256}, the report's {payload.get('tape_sha256')}"
        )
    if verdict.differences or len(verdict.notes) > other_tape:
        verdict.exit_code = EXIT_DIFFERS
    elif other_tape:
        verdict.exit_code = EXIT_OTHER_TAPE
    return verdict


def _plain_name(name: Any, default: str) -> str:
    """A file name the report names, as one name in the verification's own folder: a report
    from elsewhere must not place a file outside it (``../`` or a path is cut to its name)."""
    plain = Path(name).name if isinstance(name, str) else ""
    return plain if plain not in ("", ".", "..") else default


def _literal(text: str) -> Any:
    import ast

    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        raise ValidationError(
            f"the report's parameter {text!r} is not a literal", param="parameters"
        ) from None
