"""Running a notebook for a report: in a kernel of this Python, its calls answered by a tape.

The kernel learns its tape as Jupyter's would (``NODE_GATEWAY_TAPE`` names the file,
``NODE_GATEWAY_TAPE_MODE`` says record or replay), so the notebook runs unchanged. Parameters go
in a cell after the one tagged ``parameters`` (at the top when none is), as papermill does. Two
cells of our own run around the notebook's and leave no trace in it: one first, which makes each
figure show an SVG too (the stable rendering reports compare: fixed ids, no date) and, offline,
blocks the network; one last, which draws the widgets the notebook displayed as static HTML and
says what the notebook's gateways spent.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from .._errors import ValidationError

SECONDS_PER_CELL = 600
PARAMETERS_TAG = "parameters"
INJECTED_TAG = "injected-parameters"  # papermill's name for the cell it adds
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
EPILOGUE_MIME = "application/vnd.node-gateway-toolkit.report-epilogue+json"
SVG_SALT = "node-gateway-toolkit report"

_SETUP = f"""
import matplotlib as _mpl
from IPython.core.pylabtools import select_figure_formats as _formats
_mpl.rcParams["svg.hashsalt"] = {SVG_SALT!r}
_mpl.rcParams["svg.fonttype"] = "none"
get_ipython().run_line_magic("config", "InlineBackend.figure_formats = ['png', 'svg']")
_formats(get_ipython(), {{"png", "svg"}})
del _mpl, _formats
"""
_OFFLINE = """
import socket as _socket

def _offline(*args, **kwargs):
    raise OSError("the network is blocked: `python -m toolkit report --verify` runs offline")

for _name in ("connect", "connect_ex", "sendto"):
    setattr(_socket.socket, _name, _offline)
_socket.create_connection = _socket.getaddrinfo = _offline
del _socket, _name
"""
_EPILOGUE = """
def _report_epilogue(model_ids):
    from IPython.display import display
    import toolkit
    from toolkit.widgets import snapshots
    gateways = [v for v in get_ipython().user_ns.values() if isinstance(v, toolkit.Gateway)]
    spent = {
        "ru": sum(g.ledger.total_ru + g.ledger.unconfirmed_ru for g in gateways),
        "sent": sum(entry.sent for g in gateways for entry in g.ledger.entries),
    }
    found = {"widgets": snapshots(model_ids), "spent": spent}
    display({%r: found}, raw=True)
    if %r:  # recording: each gateway writes its tape whole now, not when the kernel exits
        for gateway in gateways:
            gateway.close()

_report_epilogue(%s)
del _report_epilogue
"""


def parse_parameters(pairs: list[str]) -> dict[str, Any]:
    """``name=value`` pairs as papermill's ``-p`` reads them: the value as a Python literal
    (``3``, ``0.5``, ``True``, ``None``, ``'text'``, ``[1, 2]``) or else as text."""
    parameters: dict[str, Any] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        name = name.strip()
        if not sep or not name.isidentifier():
            raise ValidationError(
                f"must be name=value with a Python name, got {pair!r}", param="-p", rule="format"
            )
        try:
            parameters[name] = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            parameters[name] = text
    return parameters


def with_parameters(notebook: Any, parameters: dict[str, Any]) -> Any:
    """A copy of `notebook` with a cell setting `parameters` after the cell tagged
    ``parameters`` (first when no cell is), tagged ``injected-parameters``."""
    import nbformat

    notebook = copy.deepcopy(notebook)
    if not parameters:
        return notebook
    source = "# Parameters\n" + "".join(
        f"{name} = {value!r}\n" for name, value in parameters.items()
    )
    cell = nbformat.v4.new_code_cell(source, metadata={"tags": [INJECTED_TAG]})
    tagged = [
        index
        for index, each in enumerate(notebook.cells)
        if PARAMETERS_TAG in each.get("metadata", {}).get("tags", [])
    ]
    notebook.cells.insert(tagged[0] + 1 if tagged else 0, cell)
    return notebook


def _kernel_manager() -> Any:
    """A kernel manager for this very Python (whatever kernels the user has installed), so the
    kernel imports the toolkit the command runs."""
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager

    specs = Path(tempfile.mkdtemp(prefix="report-kernel-"))
    (specs / "report").mkdir()
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    spec = {"argv": argv, "display_name": "report", "language": "python"}
    (specs / "report" / "kernel.json").write_text(json.dumps(spec))
    return KernelManager(
        kernel_name="report", kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(specs)])
    )


def execute(
    notebook: Any, *, path: Path, workdir: Path, tape: Path, mode: str, offline: bool
) -> tuple[Any, dict[str, Any]]:
    """Run `notebook` (read from `path`), in `workdir`, against `tape` in `mode` ("replay" or
    "record"), every cell even after an error; the run notebook (our own cells taken out) and
    what the last cell found: ``{"widgets": {model_id: html}, "spent": {"ru", "sent"}}``."""
    import nbformat
    from nbclient import NotebookClient

    run = copy.deepcopy(notebook)
    setup = nbformat.v4.new_code_cell(_SETUP + (_OFFLINE if offline else ""))
    run.cells.insert(0, setup)
    env = dict(os.environ)
    if mode == "replay":  # a replay needs no key: none reaches the kernel
        env = {name: value for name, value in env.items() if not name.startswith("NODE_GATEWAY_")}
    env |= {
        "NODE_GATEWAY_TAPE": str(tape),
        "NODE_GATEWAY_TAPE_MODE": mode,
        "JPY_SESSION_NAME": str(path),
        "SOURCE_DATE_EPOCH": "0",  # matplotlib dates its SVGs with this, not the clock
    }
    client = NotebookClient(
        run,
        timeout=SECONDS_PER_CELL,
        allow_errors=True,
        km=_kernel_manager(),
        resources={"metadata": {"path": str(workdir)}},
    )
    with client.setup_kernel(env=env, cleanup_kc=True):  # else nbclient leaves it running
        for index, cell in enumerate(run.cells):
            client.execute_cell(cell, index)
        model_ids = sorted(
            {
                output["data"][WIDGET_VIEW]["model_id"]
                for cell in run.cells
                for output in cell.get("outputs", [])
                if WIDGET_VIEW in output.get("data", {})
            }
        )
        epilogue = nbformat.v4.new_code_cell(
            _EPILOGUE % (EPILOGUE_MIME, mode == "record", model_ids)
        )
        run.cells.append(epilogue)
        client.execute_cell(epilogue, len(run.cells) - 1)
    found: dict[str, Any] = {"widgets": {}, "spent": None}
    for output in epilogue.get("outputs", []):
        if EPILOGUE_MIME in output.get("data", {}):
            found = dict(output["data"][EPILOGUE_MIME])
    if setup.get("outputs") and any(o["output_type"] == "error" for o in setup.outputs):
        raise RuntimeError(f"the report's setup cell failed: {_errors(setup)}")
    run.cells = run.cells[1:-1]
    return run, found


def _errors(cell: Any) -> str:
    return "; ".join(
        f"{o.get('ename')}: {o.get('evalue')}"
        for o in cell.get("outputs", [])
        if o.get("output_type") == "error"
    )


def first_error(notebook: Any) -> tuple[int, str] | None:
    """(the cell's number, counted from 1 as Jupyter shows them, and its error), or None."""
    for number, cell in enumerate(notebook.cells, start=1):
        if cell.cell_type == "code" and _errors(cell):
            return number, _errors(cell)
    return None


_SVG_METADATA = re.compile(r"<metadata>.*?</metadata>", re.DOTALL)


def figure_digest(svg: str) -> str:
    """A figure's identity: the SHA-256 of its SVG, whose ids are fixed and whose date is not
    the clock's; its metadata (matplotlib's version) left out."""
    return "sha256:" + hashlib.sha256(_SVG_METADATA.sub("", svg).encode()).hexdigest()


def shown(cell: Any) -> list[dict[str, Any]]:
    """What a code cell shows, in the form reports compare: stream chunks joined (how the kernel
    cuts its stdout into messages is timing), errors by name and message, a figure by
    `figure_digest` (its PNG left out), a widget by its text (its model id is new each run)."""
    outputs: list[dict[str, Any]] = []
    for output in cell.get("outputs", []):
        kind = output.get("output_type")
        if kind == "stream":
            last = outputs[-1] if outputs else None
            if last is not None and last["output_type"] == "stream" and last["name"] == output.name:
                last["text"] += output.text
            else:
                outputs.append({"output_type": "stream", "name": output.name, "text": output.text})
        elif kind == "error":
            outputs.append({"output_type": "error", "ename": output.ename, "evalue": output.evalue})
        else:
            data = output.get("data", {})
            kept: dict[str, str] = {}
            for mime, value in data.items():
                if mime == EPILOGUE_MIME or (mime == "image/png" and "image/svg+xml" in data):
                    continue
                if mime == WIDGET_VIEW:
                    kept[mime] = "a widget"
                elif mime == "image/svg+xml":
                    kept[mime] = figure_digest(value)
                elif mime.startswith("image/"):
                    kept[mime] = "sha256:" + hashlib.sha256(str(value).encode()).hexdigest()
                else:
                    kept[mime] = value if isinstance(value, str) else json.dumps(value)
            outputs.append({"output_type": "display", "data": kept})
    return outputs
