"""Running a notebook in a real kernel against the embedded sandbox, for the notebook tests."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
SECONDS_PER_NOTEBOOK = 240


def execute(path: Path, *, extra_cells: Iterable[str] = ()) -> nbformat.NotebookNode:
    """The notebook at `path`, run top to bottom (then `extra_cells`), its outputs in memory."""
    notebook = nbformat.read(path, as_version=4)
    notebook.cells.extend(nbformat.v4.new_code_cell(source) for source in extra_cells)
    NotebookClient(
        notebook,
        timeout=SECONDS_PER_NOTEBOOK,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    ).execute()
    return notebook


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
