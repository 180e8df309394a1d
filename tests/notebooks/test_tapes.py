"""Every notebook replays from its committed tape (notebooks/tapes/) as Jupyter would run it with
``NODE_GATEWAY_TAPE`` set to the folder: no sandbox is started, no gateway is reached, nothing is
spent. A notebook changed to make other calls fails here until `make tapes` records it again. The
notebooks are committed with the outputs their tapes give (`make outputs` writes them): a
committed output that is not what its tape now gives fails here too."""

import gzip
import json

import nbformat
import pytest

from tests.notebooks.kernel import (
    NOTEBOOKS,
    SECONDS_PER_NOTEBOOK,
    TAPES,
    difference,
    differs_in_a_browser,
    errors_of,
    execute,
    same_on_both_paths,
    shown,
)
from toolkit.sandbox import World

pytestmark = pytest.mark.notebooks

REPLAYED = """
assert gw.tape is not None and gw.tape.replaying, gw.tape
assert gw.sandbox is None  # no sandbox was started: every answer came from the tape
assert gw.ledger.total_ru == 0 and gw.ledger.unconfirmed_ru == 0
assert not any(entry.sent for entry in gw.ledger.entries)  # no request went out
print("replayed", len(gw.ledger), "calls")
"""


def test_every_notebook_has_a_tape_of_at_most_a_mebibyte_and_no_key_in_it_or_its_outputs():
    world = World(0)  # the sandbox the tapes were recorded from: its keys come from its seed
    keys = [world.api_key, *(node.key for node in world.nodes)]
    pieces = {key[i : i + 8] for key in keys for i in range(len(key) - 7)}
    for path in NOTEBOOKS:
        tape = TAPES / f"{path.stem}.tape.gz"
        assert tape.exists(), f"{path.name} has no tape: run `make tapes`"
        assert tape.stat().st_size <= 2**20
        text = gzip.decompress(tape.read_bytes()).decode()
        header = json.loads(text.splitlines()[0])
        assert header["gateway"] == "embedded sandbox (seed 0)" and header["sandbox_seed"] == 0
        # any(), not a list: the failure must not print the pieces it found
        assert not any(piece in text for piece in pieces), f"a key is on {tape.name}"
        # The committed outputs too, as a reader sees them (a PNG's base64 is text here, and
        # eight characters of a key in one by chance is a chance in about 10^6).
        shows = path.read_text()
        assert not any(piece in shows for piece in pieces), f"a key is in {path.name}"


def replayed_with_no_gateway(path, *, browser: bool) -> nbformat.NotebookNode:
    """The notebook replayed from its tape (then `REPLAYED`), with no error, nothing refused in
    a browser-like kernel, and the last cell saying it replayed."""
    notebook = execute(path, extra_cells=[REPLAYED], tape_mode="replay", browser=browser)
    errors = errors_of(notebook)
    assert not errors, json.dumps(errors)[:2000]
    if browser:
        assert notebook.metadata["browser_refused"] == [], "refused in the browser-like kernel"
    # One stdout stream, which the kernel may send in more than one message (`shown`).
    (last,) = json.loads(shown(notebook.cells[-1]))
    assert (last["name"], last["text"][:9]) == ("stdout", "replayed "), last
    return notebook


def assert_shows_what_is_committed(path, committed, cells) -> None:
    """What the committed notebook shows is what its tape gives (this run made on this
    machine, the committed outputs maybe on another: `shown(committed=True)` says what may
    differ)."""
    for saved, replayed in cells:
        assert shown(saved, committed=True) == shown(replayed, committed=True), (
            f"{path.name}: a committed output is not what its tape gives: run `make outputs`\n"
            + difference(saved, replayed, names=("committed", "replayed"), committed=True)
        )


@pytest.mark.timeout(2 * SECONDS_PER_NOTEBOOK)
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_replays_from_its_tape_with_no_gateway_and_shows_what_is_committed(path):
    """Replayed in a browser-like kernel (tests/browser/harness.py: the browser path, as a
    JupyterLite classroom replays it), the notebook starts nothing a browser tab refuses and
    shows what is committed: the outputs `make outputs` wrote from a CPython replay of the same
    tape. That one run answers three questions: the committed outputs are current, a replay
    shows the same every time (they come from an earlier one), and the browser path shows what
    CPython's does (`test_notebooks.py` also compares the two paths live, figures byte for
    byte). A notebook with a cell that shows otherwise in a browser (`differs_in_a_browser`) is
    compared up to it, then replayed in CPython too and compared with all of it."""
    committed = nbformat.read(path, as_version=4)
    in_a_browser = replayed_with_no_gateway(path, browser=True)
    assert_shows_what_is_committed(
        path, committed, same_on_both_paths(committed.cells, in_a_browser.cells)
    )
    if any(differs_in_a_browser(cell) for cell in committed.cells):
        in_cpython = replayed_with_no_gateway(path, browser=False)
        assert_shows_what_is_committed(
            path, committed, zip(committed.cells, in_cpython.cells, strict=False)
        )
