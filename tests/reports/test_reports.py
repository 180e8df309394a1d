"""The pieces of `python -m toolkit report` that need no kernel: numbers in prose (`say`), the
parameters, the tape's facts for the footer, figures' stable identity, widgets drawn as static
HTML, and the command line's refusals (exit 2, before any kernel starts)."""

from __future__ import annotations

import gzip
import hashlib
import io
from pathlib import Path

import matplotlib
import matplotlib.figure
import nbformat
import pytest

import toolkit
from toolkit import ValidationError
from toolkit.__main__ import main
from toolkit._redact import register_secret
from toolkit.reports import EXIT_USAGE, markdown, parse_parameters, say, tape_facts
from toolkit.reports._run import figure_digest, shown, with_parameters
from toolkit.widgets import explorer, static_html, workload_builder

ROOT = Path(__file__).resolve().parents[2]
TAPE_08 = ROOT / "notebooks" / "tapes" / "08_budgeting_a_research_workload.tape.gz"


# --- numbers in prose ---------------------------------------------------------------------------


def test_say_formats_each_number_from_its_value_and_shows_text_as_it_is(capsys):
    text = markdown(
        "**{ru:,} RU** on {calls:,} calls ({share:.1%}), by `{who}`",
        ru=12345,
        calls=1002,
        share=0.4213,
        who="a_b*c",
    )
    assert text == r"**12,345 RU** on 1,002 calls (42.1%), by `a\_b\*c`"
    say("{n:,} blocks", n=50_000)  # outside IPython: printed
    assert capsys.readouterr().out == "50,000 blocks\n"
    toolkit.say("{n} said", n=3)
    assert capsys.readouterr().out == "3 said\n"


@pytest.mark.parametrize(
    ("template", "values", "says"),
    [
        ("{n:,} RU", {}, r"the field \{n\} has no value: pass n=..."),
        ("{} RU", {"n": 1}, "every field needs a name"),
        ("{0} RU", {"n": 1}, "every field needs a name"),
        ("{n} RU", {"n": 1, "m": 2}, "m: given but not in the template"),
    ],
)
def test_say_refuses_a_number_it_cannot_name(template, values, says):
    with pytest.raises(ValidationError, match=says):
        markdown(template, **values)


def test_say_scrubs_a_registered_key():
    key = "reportsecretkey0123456789abcdef"
    register_secret(key)
    assert key not in markdown("node {url}", url=f"https://host/{key}")


# --- parameters ---------------------------------------------------------------------------------


def test_parameters_are_read_as_literals_else_text_and_injected_after_the_tagged_cell():
    assert parse_parameters(["n=3", "share=0.5", "on=True", "name=alice", "xs=[1, 2]"]) == {
        "n": 3,
        "share": 0.5,
        "on": True,
        "name": "alice",
        "xs": [1, 2],
    }
    for bad in ("n", "=3", "1n=3", "a b=3"):
        with pytest.raises(ValidationError, match="name=value"):
            parse_parameters([bad])
    cells = [
        nbformat.v4.new_markdown_cell("# t"),
        nbformat.v4.new_code_cell("n = 1", metadata={"tags": ["parameters"]}),
        nbformat.v4.new_code_cell("print(n)"),
    ]
    notebook = nbformat.v4.new_notebook(cells=cells)
    injected = with_parameters(notebook, {"n": 5})
    assert [c.source for c in injected.cells][1:3] == ["n = 1", "# Parameters\nn = 5\n"]
    assert injected.cells[2].metadata.tags == ["injected-parameters"]
    assert len(notebook.cells) == 3  # the notebook given is left as it was
    untagged = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(n)")])
    assert with_parameters(untagged, {"n": 5}).cells[0].source == "# Parameters\nn = 5\n"


# --- the footer's facts -------------------------------------------------------------------------


def test_the_tape_facts_are_read_from_the_file_alone():
    facts = tape_facts(TAPE_08)
    assert facts.sha256 == hashlib.sha256(TAPE_08.read_bytes()).hexdigest()
    assert (facts.ru, facts.unconfirmed_ru) == (171, 0)
    assert facts.nodes == {"ethereum-mainnet": "ethereum", "tron-mainnet": "tron"}
    # The last head each chain's head call answered (eth_blockNumber 0x146c409).
    assert facts.heads == {"ethereum-mainnet": 0x146C409, "tron-mainnet": 72_019_766}
    assert facts.gateway == "embedded sandbox (seed 0)"
    shown_rows = dict(facts.rows())
    assert shown_rows["heads"] == "ethereum-mainnet 21,414,921, tron-mainnet 72,019,766"
    assert "127.0.0.1" not in str(facts.rows())  # nodes by name, never by host or URL


def test_a_file_that_is_not_a_tape_is_a_tape_error(tmp_path):
    (tmp_path / "x.gz").write_bytes(b"not gzip")
    with pytest.raises(toolkit.TapeError, match="not a tape that can be read"):
        tape_facts(tmp_path / "x.gz")
    # Read as a replay reads it: a hostile line is refused naming it, never decoded by recursion.
    header = gzip.decompress(TAPE_08.read_bytes()).splitlines()[0]
    (tmp_path / "deep.gz").write_bytes(gzip.compress(header + b"\n" + b"[" * 100_000))
    with pytest.raises(toolkit.TapeError, match="line 2"):
        tape_facts(tmp_path / "deep.gz")
    with pytest.raises(toolkit.TapeError, match="no such tape"):
        tape_facts(tmp_path / "missing.gz")


# --- figures and outputs as compared ------------------------------------------------------------


def _svg(monkeypatch, title: str) -> str:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    figure = matplotlib.figure.Figure()
    figure.subplots().plot([1, 3, 2])
    figure.axes[0].set_title(title)
    out = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": "node-gateway-toolkit report"}):
        figure.savefig(out, format="svg")
    return out.getvalue()


def test_a_figure_is_known_by_its_stable_svg(monkeypatch):
    assert figure_digest(_svg(monkeypatch, "a")) == figure_digest(_svg(monkeypatch, "a"))
    assert figure_digest(_svg(monkeypatch, "a")) != figure_digest(_svg(monkeypatch, "b"))


def test_outputs_compare_by_what_they_show_not_how_they_came():
    cell = nbformat.v4.new_code_cell("x")
    cell.outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="a"),
        nbformat.v4.new_output("stream", name="stdout", text="b\n"),
        nbformat.v4.new_output(
            "display_data",
            data={
                "application/vnd.jupyter.widget-view+json": {"model_id": "f00", "version_major": 2},
                "text/plain": "Box()",
            },
        ),
    ]
    again = nbformat.v4.new_code_cell("x")
    again.outputs = [nbformat.v4.new_output("stream", name="stdout", text="ab\n"), cell.outputs[2]]
    again.outputs[1] = nbformat.from_dict({**cell.outputs[2], "data": {**cell.outputs[2]["data"]}})
    again.outputs[1]["data"]["application/vnd.jupyter.widget-view+json"] = {"model_id": "bar"}
    assert shown(cell) == shown(again)


# --- widgets as static HTML ---------------------------------------------------------------------


def test_the_workload_builder_is_drawn_as_its_last_state(make_gateway):
    gw = make_gateway(head_ttl_s=3600)
    builder = workload_builder(gw, node="ethereum-mainnet", show=False)
    builder.run_button.click()
    assert builder.error is None
    page = static_html(builder)
    assert "<script" not in page
    assert "<option selected>ethereum-mainnet</option>" in page
    assert "<option selected>eth_getBalance</option>" in page
    assert "33 of 33 calls" in page  # the progress after the run
    assert '<progress value="33" max="33"></progress>' in page
    assert builder.result.headline.value in page  # the run's headline and table
    assert 'class="tk-table"' in page
    gw.close()


def test_the_explorer_is_drawn_without_what_is_hidden_nor_a_key(make_gateway, sandbox):
    gw = make_gateway()
    shown_explorer = explorer(gw, node="ethereum-mainnet", show=False)
    page = static_html(shown_explorer)
    assert "<script" not in page and "ethereum-mainnet" in page
    key = sandbox.info["api_key"]
    assert key not in page
    for url in sandbox.info["nodes"].values():
        assert url not in page
    gw.close()


def test_what_is_hidden_is_not_drawn():
    import ipywidgets

    box = ipywidgets.VBox(
        [ipywidgets.Label("seen"), ipywidgets.Label("unseen", layout={"display": "none"})]
    )
    page = static_html(box)
    assert "seen" in page and "unseen" not in page


# --- the command line refuses bad arguments before any kernel starts ----------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["report", "--tape", "t.gz"],  # no notebook
        ["report", "n.ipynb", "--tape", "t.gz"],  # no -o
        ["report", "n.ipynb", "--tape", "t.gz", "--verify", "r.html"],
        ["report", "n.ipynb", "--tape", "t.gz", "-o", "r.html", "-p", "no-equals"],
    ],
)
def test_report_refuses_bad_arguments_with_exit_2(argv, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == EXIT_USAGE
    assert "python -m toolkit report:" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_verify_refuses_a_page_that_is_not_a_report(tmp_path, capsys):
    page = tmp_path / "page.html"
    page.write_text("<html><body>hello</body></html>")
    assert main(["report", "--verify", str(page), "--tape", str(TAPE_08)]) == EXIT_USAGE
    assert "is not a report" in capsys.readouterr().err
    missing = tmp_path / "none.html"
    assert main(["report", "--verify", str(missing), "--tape", str(TAPE_08)]) == EXIT_USAGE


def test_a_name_a_report_gives_is_one_name_in_the_verification_folder():
    # A report from elsewhere names its notebook and tape: verify writes them into its own
    # temporary folder, never where a path in the payload points.
    from toolkit.reports._report import _plain_name

    assert _plain_name("../../home/user/.bashrc", "report.ipynb") == ".bashrc"
    assert _plain_name("/etc/passwd", "report.ipynb") == "passwd"
    assert _plain_name("..", "t.gz") == _plain_name(None, "t.gz") == "t.gz"
    assert _plain_name("paper.tape.gz", "t.gz") == "paper.tape.gz"
