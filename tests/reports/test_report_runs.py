"""`python -m toolkit report` end to end, in real kernels: a small notebook recorded from the
embedded sandbox, rendered with its parameters, a widget's last state and a sentence of
`toolkit.say`; verified from its tape; caught when its tape or its page is changed. Then notebook
08's report, rendered from its committed tape, and the sample report in docs/ verified against
that tape (what `docs/reports.md` promises a reader)."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import nbformat
import pytest

from toolkit.__main__ import main
from toolkit.reports import (
    EXIT_CELL_FAILED,
    EXIT_DIFFERS,
    EXIT_OK,
    EXIT_OTHER_TAPE,
    tape_facts,
)
from toolkit.sandbox import World

pytestmark = pytest.mark.notebooks

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK_08 = ROOT / "notebooks" / "08_budgeting_a_research_workload.ipynb"
TAPE_08 = ROOT / "notebooks" / "tapes" / "08_budgeting_a_research_workload.tape.gz"
SAMPLE_08 = ROOT / "docs" / "report-08-budgeting.html"
PAYLOAD = '<script type="application/json" id="node-gateway-toolkit-report">'

CELLS = [
    ("markdown", "# A small report"),
    ("parameters", "blocks_back = 10"),
    (
        "code",
        "import toolkit\nfrom toolkit.sandbox import DEMO\n"
        "gw = toolkit.connect()\neth = gw.node('ethereum-mainnet')\nhead = eth.head()\n"
        "balance = eth.get_balance(DEMO.evm.accounts['alice'], head - blocks_back)",
    ),
    (
        "code",
        "toolkit.say('Alice held **{wei:,} wei** at block {block:,}.', wei=balance, "
        "block=head - blocks_back)",
    ),
    (
        "code",
        "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\n"
        "ax.bar(['alice'], [balance / 1e18])\nplt.show()",
    ),
    ("code", "import ipywidgets\nslider = ipywidgets.IntSlider(description='back')\nslider"),
    ("code", "slider.value = blocks_back"),
]


def _notebook(path: Path, extra: str = "") -> Path:
    cells = []
    for kind, source in CELLS:
        if kind == "markdown":
            cells.append(nbformat.v4.new_markdown_cell(source))
        else:
            tags = ["parameters"] if kind == "parameters" else []
            cells.append(nbformat.v4.new_code_cell(source, metadata={"tags": tags}))
    if extra:
        cells.append(nbformat.v4.new_code_cell(extra))
    nbformat.write(nbformat.v4.new_notebook(cells=cells), path)
    return path


def _tampered(tape: Path, out: Path, method: str) -> Path:
    """A copy of `tape` with the first recorded answer of `method` changed (one hex digit)."""
    lines = gzip.decompress(tape.read_bytes()).decode().splitlines()
    for number, line in enumerate(lines[1:], start=1):
        record = json.loads(line)
        if record.get("call") == method:
            result = record["answers"][0]["item"]["result"]
            digit = "1" if result[2] != "1" else "2"  # its leading digit: a plot shows it
            record["answers"][0]["item"]["result"] = result[:2] + digit + result[3:]
            lines[number] = json.dumps(record, sort_keys=True)
            break
    else:
        raise AssertionError(f"no {method} on {tape}")
    out.write_bytes(gzip.compress("\n".join(lines).encode() + b"\n"))
    return out


def _key_pieces() -> set[str]:
    world = World(0)  # the sandbox the tapes are recorded from: its keys come from its seed
    keys = [world.api_key, *(node.key for node in world.nodes)]
    return {key[i : i + 8] for key in keys for i in range(len(key) - 7)}


def _child_processes() -> set[int]:
    return {
        int(pid)
        for task in Path("/proc/self/task").iterdir()
        for pid in (task / "children").read_text().split()
    }


def test_a_report_is_recorded_rendered_verified_and_caught_when_changed(tmp_path, capsys):
    before = _child_processes()
    notebook, tape, report = (
        _notebook(tmp_path / "small.ipynb"),
        tmp_path / "t.gz",
        tmp_path / "r.html",
    )
    argv = [str(notebook), "--tape", str(tape), "-o", str(report), "-p", "blocks_back=20"]
    assert main(["report", *argv, "--record"]) == EXIT_OK
    page = report.read_text()
    facts = tape_facts(tape)
    assert facts.sha256 in page and f"{facts.ru:,} RU" in page
    assert "blocks_back = 20" in page  # the injected parameters cell, shown
    assert re.search(r"Alice held <strong>[\d,]+ wei</strong> at block [\d,]+\.", page)
    assert re.search(r'<input disabled=""? ?value="20"/?>', page)  # the slider's last state
    shown = page.split(PAYLOAD)[0]  # the page a reader sees, without what verify reads
    assert "widget state not found" not in shown.lower() and "widget-view+json" not in shown
    assert not re.search(r"""<script[^>]+src=|<link[^>]+href=["']http""", page)
    assert 'src="data:image/png;base64,' in page  # the figure, inline
    assert not [piece for piece in _key_pieces() if piece in page]

    assert main(["report", "--verify", str(report), "--tape", str(tape)]) == EXIT_OK
    assert "verified" in capsys.readouterr().out

    # One recorded answer changed: the cells showing what it fed differ, and are named.
    changed = _tampered(tape, tmp_path / "changed.gz", "eth_getBalance")
    assert main(["report", "--verify", str(report), "--tape", str(changed)]) == EXIT_DIFFERS
    said = capsys.readouterr().err
    assert "cell 5 differs" in said and "Alice held" in said  # the say cell (after 3 above it)
    assert "cell 6 differs" in said  # the figure
    assert "the tape's SHA-256 is" in said

    # The same answers in another file (compressed again): every cell verifies, but the tape
    # is not the one the report names.
    same = tmp_path / "same.gz"
    same.write_bytes(gzip.compress(gzip.decompress(tape.read_bytes()), mtime=1))
    assert main(["report", "--verify", str(report), "--tape", str(same)]) == EXIT_OTHER_TAPE
    assert "the tape's SHA-256 is" in capsys.readouterr().err

    # A number edited on the page, its payload left alone.
    edited = tmp_path / "edited.html"
    edited.write_text(page.replace("Alice held <strong>", "Alice held <strong>9", 1))
    assert main(["report", "--verify", str(edited), "--tape", str(tape)]) == EXIT_DIFFERS
    assert "the page was edited" in capsys.readouterr().err

    # A cell that raises: no report, the cell named.
    failing, out = _notebook(tmp_path / "failing.ipynb", "1 / 0"), tmp_path / "f.html"
    assert (
        main(["report", str(failing), "--tape", str(tape), "-o", str(out), "-p", "blocks_back=20"])
        == EXIT_CELL_FAILED
    )
    assert "cell 9 raised ZeroDivisionError" in capsys.readouterr().err
    assert not out.exists()
    assert _child_processes() <= before, "a report's kernel outlived its run"


@pytest.mark.timeout(240)
def test_notebook_08_renders_from_its_tape_and_the_docs_sample_verifies(tmp_path, capsys):
    report = tmp_path / "08.html"
    argv = [str(NOTEBOOK_08), "--tape", str(TAPE_08), "-o", str(report), "--no-code"]
    assert main(["report", *argv]) == EXIT_OK
    page = report.read_text()
    facts = tape_facts(TAPE_08)
    footer = page[page.index('<footer id="node-gateway-toolkit-provenance"') :]
    for shown in (facts.sha256, "171 RU", "ethereum-mainnet (ethereum)", "21,414,921"):
        assert shown in footer
    assert "127.0.0.1" not in footer
    assert "widget state not found" not in page.lower() and "<progress" in page  # its run's bar
    assert "results = work.run(concurrency=1)" not in page.split("<script", 1)[0]  # --no-code
    assert not [piece for piece in _key_pieces() if piece in page]

    # The sample in docs/ is what this tape gives (refresh it as docs/reports.md says).
    assert main(["report", "--verify", str(SAMPLE_08), "--tape", str(TAPE_08)]) == EXIT_OK, (
        capsys.readouterr().err
    )
    assert not [piece for piece in _key_pieces() if piece in SAMPLE_08.read_text()]

    # A copy of its tape with one recorded balance changed (under another name, as a reader's
    # download may be): the sample no longer verifies, and only the cells that showed that
    # balance are named (not cell 2, which shows the tape's name: replayed under the report's).
    changed = _tampered(TAPE_08, tmp_path / "changed-08.gz", "eth_getBalance")
    verdict = main(["report", "--verify", str(SAMPLE_08), "--tape", str(changed)])
    said = capsys.readouterr().err
    assert verdict == EXIT_DIFFERS and re.search(r"cell \d+ differs", said), said[-2000:]
    assert "cell 2 differs" not in said, said[-2000:]
