"""Running a notebook in a real kernel against the embedded sandbox, for the notebook tests."""

from __future__ import annotations

import copy
import difflib
import functools
import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
TAPES = ROOT / "notebooks" / "tapes"  # each notebook's tape, recorded from the sandbox
SECONDS_PER_NOTEBOOK = 240

# The Python of an environment with what `make lab` installs and nothing more (`make test` makes
# .venv-lab and names it here): the notebooks run in it, so that one importing a package only
# the test or dev extras bring fails as it would in a new user's JupyterLab. Unset (pytest run
# by hand), they run in this process's environment.
NOTEBOOK_PYTHON = os.environ.get("NODE_GATEWAY_NOTEBOOK_PYTHON")


@functools.cache
def _lab_kernel_specs() -> Path:
    """A kernel spec folder (made once per process) whose one kernel, `lab`, is
    `NOTEBOOK_PYTHON`'s."""
    specs = Path(tempfile.mkdtemp(prefix="lab-kernel-"))
    (specs / "lab").mkdir()
    argv = [NOTEBOOK_PYTHON, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    spec = {"argv": argv, "display_name": "make lab", "language": "python"}
    (specs / "lab" / "kernel.json").write_text(json.dumps(spec))
    return specs


def notebook_kernel() -> dict:
    """The arguments that give `NotebookClient` its kernel: the lab environment's Python when
    there is one, else the `python3` kernel of this environment."""
    if not NOTEBOOK_PYTHON:
        return {"kernel_name": "python3"}
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager

    specs = KernelSpecManager(kernel_dirs=[str(_lab_kernel_specs())])
    return {"km": KernelManager(kernel_name="lab", kernel_spec_manager=specs)}


# Cells typed after Run All on a notebook's second run against the sandbox (`executed_again`),
# for the tests that read a notebook's state once it has run: they run after every cell of the
# notebook, so its own cells show what they show on any run (the second-run test compares them
# all with the first run's), and they save those tests a run of the notebook of their own.
# - notebook 06: what its explorer and workload builders are left showing (test_demo_state.py);
SHOWN = """
def shown(b):
    return {
        "method": b.method_picker.value,
        "can_run": b.workload is not None and not b.run_button.disabled,
        "problems": b.problems,
        "has_result": b.frame is not None and len(b.frame) > 0,
        "has_figure": b.figure is not None,
        "error": None if b.error is None else type(b.error).__name__,
    }
"""
STATE = """
import json
m = explorer.methods
print(json.dumps({
    "method": m.method.name if m.method else None,
    "can_run": m.bound is not None and not m.run_button.disabled,
    "has_result": m.frame is not None and len(m.frame) > 0,
    "error": None if m.error is None else type(m.error).__name__,
    "builder": shown(builder),
    "fees": shown(fees),
    "ledger_budget": None if ledger.meter.budget is None else ledger.meter.budget.limit,
    "ledger_spent": ledger.meter.ledger.total_ru,
}))
"""
# - notebook 08: its `work.run()` cell run again once the budget is spent
#   (tests/workloads/test_in_a_kernel.py).
RUN_AGAIN = "results = work.run()\nresults.attrs['summary']"
AFTER_RUN_ALL = {
    "06_interactive_explorer.ipynb": [SHOWN, STATE],
    "08_budgeting_a_research_workload.ipynb": [RUN_AGAIN],
}


# An IPython startup file that makes a kernel browser-like (tests/browser/harness.py) from its
# first cell on; it names the harness by path, since the kernel's Python need not see `tests`.
BROWSER_LIKE_STARTUP = """
def _browser_like():
    import importlib.util, sys
    spec = importlib.util.spec_from_file_location("browser_harness", {harness!r})
    harness = sys.modules["browser_harness"] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(harness)
    harness.kernel_startup()
_browser_like()
del _browser_like
"""


@functools.cache
def _matplotlib_font_cache() -> None:
    """matplotlib builds its font cache at its first import in an environment, with a timer
    thread to say it takes a while (a fresh CI machine): matplotlib's first run, not the
    toolkit's, so it is done before a browser-like kernel judges the toolkit's threads."""
    import subprocess

    python = NOTEBOOK_PYTHON or sys.executable
    subprocess.run([python, "-c", "import matplotlib.font_manager"], check=True, timeout=300)


@functools.cache
def _harness_names() -> Path:
    """A folder (made once per process) where the browser-like kernels keep the module names
    the harness reads from their environment, for the next kernel to read back."""
    return Path(tempfile.mkdtemp(prefix="harness-names-"))


def browser_like_environment(folder: Path) -> dict[str, str]:
    """The environment of a browser-like kernel (`execute(browser=True)`), its IPython folder
    and the file its refusals go to made in `folder`."""
    _matplotlib_font_cache()
    startup = folder / "ipython" / "profile_default" / "startup"
    startup.mkdir(parents=True)
    harness = ROOT / "tests" / "browser" / "harness.py"
    (startup / "00-browser-like.py").write_text(BROWSER_LIKE_STARTUP.format(harness=str(harness)))
    return {
        "IPYTHONDIR": str(folder / "ipython"),
        "NODE_GATEWAY_BROWSER": "1",
        "NODE_GATEWAY_HARNESS_REFUSED": str(folder / "refused.json"),
        "NODE_GATEWAY_HARNESS_NAMES": str(_harness_names()),
    }


def execute(
    path: Path,
    *,
    extra_cells: Iterable[str] = (),
    tape_mode: str | None = None,
    browser: bool = False,
) -> nbformat.NotebookNode:
    """The notebook at `path`, run top to bottom (then `extra_cells`), its outputs in memory;
    with `tape_mode`, recording its tape in `TAPES` or replaying it, as Jupyter would with
    ``NODE_GATEWAY_TAPE`` set to the folder (the kernel learns its notebook's name from
    ``JPY_SESSION_NAME``). With `browser`, in a browser-like kernel (tests/browser/harness.py:
    no new thread, socket or process, no module without a Pyodide build, the browser path);
    the threads and sockets it refused (even where the code got over it) are in
    ``metadata["browser_refused"]``, the processes and modules in ``browser_processes`` and
    ``browser_unfound``."""
    notebook = nbformat.read(path, as_version=4)
    notebook.cells.extend(nbformat.v4.new_code_cell(source) for source in extra_cells)
    tape = {}
    if tape_mode is not None:
        tape = {
            "NODE_GATEWAY_TAPE": str(TAPES),
            "NODE_GATEWAY_TAPE_MODE": tape_mode,
            "JPY_SESSION_NAME": str(path),
        }
    folder = Path(tempfile.mkdtemp(prefix="browser-like-")) if browser else None
    if folder is not None:
        tape.update(browser_like_environment(folder))
    saved = {name: os.environ.get(name) for name in tape}
    os.environ.update(tape)  # the kernel starts with this process's environment
    try:
        NotebookClient(
            notebook,
            timeout=SECONDS_PER_NOTEBOOK,
            resources={"metadata": {"path": str(path.parent)}},
            **notebook_kernel(),
        ).execute(cleanup_kc=True)  # given a manager, nbclient would leave the kernel running
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    if folder is not None:
        refused = folder / "refused.json"
        never = {"refused": ["(the harness never ran)"], "processes": [], "unfound": []}
        answer = json.loads(refused.read_text()) if refused.exists() else never
        for kind, what in answer.items():
            notebook.metadata[f"browser_{kind}"] = what
        shutil.rmtree(folder, ignore_errors=True)
    return notebook


def differs_in_a_browser(cell: dict) -> bool:
    """Whether a cell asks ``toolkit.in_browser()``, and so shows something else on the browser
    path by design (notebook 09 skips its Dask cells there, with a printed reason)."""
    return "in_browser()" in cell.get("source", "")


def same_on_both_paths(cpython: list, browser: list) -> Iterable[tuple[dict, dict]]:
    """The pairs of cells a CPython run and a browser-like run of a notebook must show alike:
    those before the first cell that `differs_in_a_browser` (what it skipped there, a cluster's
    run, shows in later cells: the ledger's totals, the provenance)."""
    for before, after in zip(cpython, browser, strict=False):
        if differs_in_a_browser(before):
            return
        yield before, after


def errors_of(notebook: nbformat.NotebookNode) -> list[dict]:
    """The error outputs of a run notebook (none, when every cell ran)."""
    return [
        output
        for cell in notebook.cells
        for output in cell.get("outputs", [])
        if output.get("output_type") == "error"
    ]


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_ID = re.compile(r'"model_id": "[0-9a-f]+"')


def joined_streams(outputs: Iterable[dict]) -> list[dict]:
    """`outputs` (copied) with each run of stream outputs to one stream joined into one: how
    the kernel cuts its stdout into messages is timing."""
    joined: list[dict] = []
    for output in outputs:
        previous = joined[-1] if joined else None
        if (
            output.get("output_type") == "stream"
            and previous is not None
            and previous.get("output_type") == "stream"
            and previous["name"] == output["name"]
        ):
            previous["text"] += output["text"]
        else:
            joined.append(copy.deepcopy(output))
    return joined


# What a committed output may show otherwise than a run on another machine, though its tape is
# the same: the Python that ran it (in the provenance table, HTML and repr alike).
ELSEWHERE = [
    (re.compile(r"(>python</th><td[^>]*>)[^<]*"), r"\1?"),
    (re.compile(r"python_version='[^']*'"), "python_version='?'"),
]


def shown(cell, *, committed: bool = False) -> str:
    """What a cell shows, as text: its outputs, with stream chunks joined (how the kernel cuts
    its stdout into messages is timing) and ipywidgets' model ids (new in every kernel) left
    out. `committed`: in the form a committed notebook's outputs are compared in (see
    `with_outputs`), with a run on another machine: widgets by their text, the Python version
    left out, and a figure by its presence and its size and axes (its text, "<Figure size
    1000x400 with 2 Axes>"), not by its PNG: the pixels are matplotlib's and FreeType's, whose
    newest releases CI installs, and so is the PNG's size (cropped to the text's extents)."""
    outputs = []
    for output in joined_streams(cell.get("outputs", [])):
        if committed and "data" in output:
            data = {mime: value for mime, value in output["data"].items() if mime != WIDGET_VIEW}
            output["data"] = {**data, **({"image/png": "a figure"} if "image/png" in data else {})}
        outputs.append(output)
    text = WIDGET_ID.sub('"model_id": "?"', json.dumps(outputs, sort_keys=True))
    for pattern, replacement in ELSEWHERE if committed else []:
        text = pattern.sub(replacement, text)
    return text


def difference(before, after, *, names=("first run", "second run"), committed=False) -> str:
    """Why a cell shows something else on a second run: its source, then a line diff of what
    `shown` compares (each output's text, one line of it per line), for the failure message."""

    def lines(cell) -> list[str]:
        out = []
        for output in json.loads(shown(cell, committed=committed)):
            for field, value in sorted(output.items()):
                parts = sorted(value.items()) if isinstance(value, dict) else [("", value)]
                for mime, text in parts:
                    text = text if isinstance(text, str) else json.dumps(text, sort_keys=True)
                    where = f"{field}.{mime}" if mime else field
                    out += [f"{where}: {line}" for line in text.splitlines()]
        return out

    diff = difflib.unified_diff(lines(before), lines(after), *names, lineterm="")
    return before.get("source", "")[:200] + "\n" + "\n".join(list(diff)[:80])


def record_tapes(paths: Iterable[Path] = NOTEBOOKS) -> None:
    """Record each notebook's tape anew from the embedded sandbox (`make tapes`): after a
    notebook changes the calls it makes, its committed tape no longer answers them."""
    TAPES.mkdir(exist_ok=True)
    for path in paths:
        (TAPES / f"{path.stem}.tape.gz").unlink(missing_ok=True)
        execute(path, tape_mode="record")
        print(f"{path.name}: {(TAPES / f'{path.stem}.tape.gz').stat().st_size:,} bytes")


def with_outputs(path: Path, run: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The notebook at `path` as it is committed: its cells and metadata as they are, each code
    cell given the outputs and execution count of `run` (a replay of it). Nothing that changes
    from run to run goes in, so the file changes only when what its tape gives does: not the
    metadata nbclient writes (the cells' run times, the kernel's Python, the widgets' state),
    nor how the kernel cut a print into messages (`joined_streams`); and a widget by its text
    alone: its view names a model (by an id new in every kernel) that is nowhere once the
    kernel is gone, which JupyterLab would show as an error."""
    notebook = nbformat.read(path, as_version=4)
    for cell, ran in zip(notebook.cells, run.cells, strict=False):
        if cell.cell_type != "code":
            continue
        cell.outputs = joined_streams(ran.outputs)
        cell.execution_count = ran.execution_count
        for output in cell.outputs:
            output.get("data", {}).pop(WIDGET_VIEW, None)
    return notebook


def write_outputs(paths: Iterable[Path] = NOTEBOOKS) -> None:
    """Replay each notebook from its tape and write it back with its outputs (`make outputs`),
    for a reader who opens it where it is not run (the repository's web page); the replay tests
    fail when a committed output is not what its tape now gives."""
    for path in paths:
        run = execute(path, tape_mode="replay")
        if errors := errors_of(run):
            sys.exit(f"{path.name} raised on its tape: {json.dumps(errors)[:2000]}")
        nbformat.write(with_outputs(path, run), path)
        print(f"{path.name}: {path.stat().st_size:,} bytes")


if __name__ == "__main__":
    # `python -m tests.notebooks.kernel [--outputs] [NOTEBOOK ...]`: record the tapes, or with
    # --outputs write the outputs of the notebooks named (all of them when none is).
    arguments = sys.argv[1:]
    outputs = "--outputs" in arguments
    paths = [Path(name).resolve() for name in arguments if name != "--outputs"] or NOTEBOOKS
    (write_outputs if outputs else record_tapes)(paths)


class Kernel:
    """A live kernel to type cells into one by one, and to interrupt as the stop button does
    (the kernel manager's interrupt: SIGINT to the kernel process)."""

    def __init__(self, seconds: float = SECONDS_PER_NOTEBOOK):
        from jupyter_client.manager import start_new_kernel

        self.seconds = seconds
        self.manager, self.client = start_new_kernel(kernel_name="python3")

    def __enter__(self) -> Kernel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)

    def run(self, code: str, *, interrupt_after: float | None = None) -> list[dict]:
        """Run `code` as one cell; its outputs (iopub contents with their ``msg_type``), after
        interrupting it `interrupt_after` seconds in, if given."""
        import threading

        outputs: list[dict] = []

        def keep(message: dict) -> None:
            kind = message["header"]["msg_type"]
            if kind in ("stream", "error", "execute_result", "display_data"):
                outputs.append({"msg_type": kind, **message["content"]})

        timer = None
        if interrupt_after is not None:
            timer = threading.Timer(interrupt_after, self.manager.interrupt_kernel)
            timer.start()
        try:
            self.client.execute_interactive(code, output_hook=keep, timeout=self.seconds)
        finally:
            if timer is not None:
                timer.cancel()
        return outputs
