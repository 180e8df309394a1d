"""Every plot renders to PNG, draws the numbers of its frame, labels its units, leaks no URL."""

from __future__ import annotations

import io
import itertools
import json
import struct
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

import toolkit.plots as plots
from toolkit.plots._figure import readable_number, safe_text, short_label

ACCESS_KEY = "3c6e0b8a9c15224a8228b9a98ca1531d"


def _texts(figure: Figure) -> list[str]:
    """Every piece of text a reader can see: titles, axis labels, tick labels, legends, notes."""
    figure.draw_without_rendering()  # lays out the ticks so their labels exist
    texts = []
    for ax in figure.axes:
        texts += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
        texts += [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels()]
        texts += [t.get_text() for t in ax.texts]
        if ax.get_legend():
            texts += [t.get_text() for t in ax.get_legend().get_texts()]
    return [t for t in texts if t]


def _bar_widths(ax) -> list[float]:
    return [patch.get_width() for patch in ax.patches]


def test_importing_plots_does_not_import_matplotlib_and_plotting_avoids_pyplot():
    code = (
        "import sys, toolkit.plots, toolkit.frames\n"
        "assert 'matplotlib' not in sys.modules\n"
        "import pandas as pd\n"
        "df = pd.DataFrame({'block_number': [1, 2], 'fee_trx': [0.5, 1.0]})\n"
        "fig, ax = toolkit.plots.plot_fees_per_block(df)\n"
        "assert 'matplotlib' in sys.modules and 'matplotlib.pyplot' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_fees_per_block_bars_are_the_block_totals(transaction_infos, render):
    fig, ax = plots.plot_fees_per_block(transaction_infos)
    assert isinstance(fig, Figure) and ax.figure is fig
    heights = [patch.get_height() for patch in ax.patches]
    assert heights == pytest.approx([0.345 + 27.2559, 13.84485 + 1.1])  # a missing fee adds 0
    assert ax.get_ylabel() == "Total fee (TRX)" and ax.get_xlabel() == "Block number"
    render(fig, "fees_per_block")
    assert "62,000,000" in _texts(fig)  # block numbers with separators, no offset notation


def test_fees_per_block_becomes_a_line_for_many_blocks(render):
    blocks = np.arange(62_000_000, 62_000_200)
    fig, ax = plots.plot_fees_per_block(pd.DataFrame({"block_number": blocks, "fee_trx": 1.5}))
    assert not ax.patches and len(ax.lines) == 1
    assert ax.lines[0].get_ydata().tolist() == [1.5] * 200
    render(fig, "fees_per_block_line")


def test_fee_distribution_uses_a_log_scale_for_fees_spanning_decades(render):
    fees = pd.DataFrame({"fee_trx": [0.268] * 50 + [27.0] * 20 + [345.0] * 3 + [np.nan] * 4})
    fig, ax = plots.plot_fee_distribution(fees)
    assert ax.get_xscale() == "log"
    assert sum(patch.get_height() for patch in ax.patches) == 73
    assert "4 transactions without a fee not shown" in _texts(fig)
    render(fig, "fee_distribution")


def test_fee_distribution_of_similar_fees_is_linear(transaction_infos, render):
    fig, ax = plots.plot_fee_distribution(transaction_infos.assign(fee_trx=[1.0, 2.0, 3, 4, 5]))
    assert ax.get_xscale() == "linear" and ax.get_xlabel() == "Fee (TRX)"
    render(fig, "fee_distribution_linear")


def test_balances_one_line_per_address_in_block_order(balances, render):
    fig, ax = plots.plot_balances(balances.sample(frac=1, random_state=1))
    assert [line.get_label() for line in ax.lines] == ["0x1f90…c326", "0x388c…9297"]
    alice = ax.lines[0]
    assert alice.get_xdata().tolist() == [22207815 + 10 * i for i in range(5)]
    assert alice.get_ydata().tolist() == [5.0, 6.0, 7.0, 8.0, 9.0]
    assert ax.get_ylabel() == "Balance (ETH)"
    render(fig, "balances")


def test_block_gas_is_a_bar_per_block_under_its_gas_limit(blocks, render):
    fig, ax = plots.plot_block_gas(blocks)
    assert [patch.get_height() for patch in ax.patches] == [234_043, 431_552, 339_825]
    assert [patch.get_x() + patch.get_width() / 2 for patch in ax.patches] == [39, 45, 54]
    (limit,) = ax.lines
    assert limit.get_xdata().tolist() == [39, 45, 54]
    assert limit.get_ydata().tolist() == [200_000_000] * 3
    assert [text.get_text() for text in ax.get_legend().get_texts()] == ["Gas limit", "Gas used"]
    assert ax.get_ylabel() == "Gas" and ax.get_xlabel() == "Block number"
    assert "200,000,000" in _texts(fig) or "150,000,000" in _texts(fig)  # no offset notation
    render(fig, "block_gas")


def test_base_fee_is_each_blocks_fee_in_gwei(blocks, render):
    fig, ax = plots.plot_base_fee(blocks)
    (line,) = ax.lines
    assert line.get_xdata().tolist() == [39, 45, 54]
    assert line.get_ydata().tolist() == [0.202113271, 0.090870291, 0.027399063]
    assert ax.get_ylabel() == "Base fee (gwei)" and ax.get_title() == "Base fee per block"
    render(fig, "base_fee")


def test_base_fee_keeps_an_exact_fee_exact_and_counts_blocks_without_one(render):
    """A fee past a float's 53 bits still plots its gwei right, and a pre-London block (no
    base fee) is said, not drawn as 0."""
    huge = 2**80 + 1  # wei; as a float first, its gwei would be off in the 8th digit
    frame = pd.DataFrame(
        {"number": [10, 11, 12], "base_fee_wei": [None, 7 * 10**9, huge]}, dtype=object
    )
    fig, ax = plots.plot_base_fee(frame)
    assert ax.lines[0].get_xdata().tolist() == [11, 12]
    assert ax.lines[0].get_ydata().tolist() == [7.0, huge // 10**9 + (huge % 10**9) / 10**9]
    assert "1 block without a base fee not shown" in _texts(fig)
    fig, _ = plots.plot_base_fee(frame.iloc[:1])
    assert "No block has a base fee" in _texts(fig)
    render(fig, "base_fee_none", min_bytes=1_000)


def test_blocks_fetched_twice_are_plotted_once(blocks):
    _, ax = plots.plot_block_gas(pd.concat([blocks, blocks]))
    assert len(ax.patches) == 3


def test_many_blocks_become_lines(render):
    numbers = np.arange(21_000_000, 21_000_200)
    frame = pd.DataFrame(
        {
            "number": numbers,
            "gas_used": (numbers % 7) * 2_000_000,
            "gas_limit": 36_000_000,
            "base_fee_wei": pd.Series([4_200_000_000] * 200, dtype=object),
        }
    )
    fig, ax = plots.plot_block_gas(frame)
    assert not ax.patches and [line.get_label() for line in ax.lines] == ["Gas used", "Gas limit"]
    render(fig, "block_gas_line")


def test_blocks_are_two_panels_readable_at_a_notebooks_width(blocks, render):
    fig, axes = plots.plot_blocks(blocks)
    assert len(axes) == 2 and all(ax.figure is fig for ax in axes)
    titles = [ax.get_title() for ax in axes]
    assert titles == ["Gas used and gas limit per block", "Base fee per block"]
    px, text = _smallest_text_px(fig)
    assert px >= 11, f"{text!r} would be {px:.1f} px tall"
    render(fig, "blocks")


def test_mainnet_block_numbers_do_not_overlap_on_a_panel(render):
    numbers = np.arange(21_414_880, 21_414_921)
    frame = pd.DataFrame(
        {
            "number": numbers,
            "gas_used": 12_000_000,
            "gas_limit": 36_000_000,
            "base_fee_wei": pd.Series([4_200_000_000] * len(numbers), dtype=object),
        }
    )
    fig, axes = plots.plot_blocks(frame)
    fig.draw_without_rendering()  # lays the ticks out
    for ax in axes:
        boxes = [
            label.get_window_extent()
            for label in ax.get_xticklabels()
            if label.get_visible() and label.get_text()
        ]
        assert len(boxes) >= 3
        assert all(a.x1 < b.x0 for a, b in itertools.pairwise(boxes)), ax.get_title()


def test_compute_units_bar_per_invocation_in_call_order(solana_simulation_logs, render):
    fig, ax = plots.plot_compute_units(solana_simulation_logs)
    assert _bar_widths(ax) == [0, 20345, 1569, 0, 1405, 4188, 6200, 3961]
    labels = [label.get_text() for label in ax.get_yticklabels()]
    assert labels[:4] == ["Compute Budget", "Associated Token", "└ Token", "└ System"]
    assert "20,345 CU" in " ".join(_texts(fig))
    assert "Compute units (CU)" in ax.get_xlabel()
    render(fig, "compute_units")


def test_compute_units_marks_a_failed_invocation(failed_simulation_logs, render):
    fig, ax = plots.plot_compute_units(failed_simulation_logs)
    (bar,) = ax.patches[:1]
    assert bar.get_width() == 4381
    assert bar.get_facecolor() == pytest.approx((0.839, 0.153, 0.157, 1.0), abs=0.01)  # tab:red
    render(fig, "compute_units_failed")


def test_log_timeline_plots_every_line_at_its_depth(solana_simulation_logs, render):
    fig, ax = plots.plot_log_timeline(solana_simulation_logs)
    points = sum(len(collection.get_offsets()) for collection in ax.collections)
    assert points == len(solana_simulation_logs)
    step = ax.lines[0]
    assert step.get_ydata().tolist() == solana_simulation_logs["depth"].tolist()
    assert ax.get_ylabel() == "Invoke depth" and ax.get_xlabel() == "Log line"
    assert "Associated Token" in _texts(fig)
    render(fig, "log_timeline")


def test_cumulative_ru_ends_at_the_total(ledger, render):
    fig, ax = plots.plot_cumulative_ru(ledger.sample(frac=1, random_state=2))
    line = ax.lines[0]
    assert line.get_ydata()[-1] == ledger["ru"].sum() == 150
    assert np.all(np.diff(line.get_ydata()) >= 0)
    assert ax.get_ylabel() == "Cumulative request units (RU)"
    assert ax.get_xlabel() == "Time (UTC)"
    render(fig, "cumulative_ru")


def test_ru_by_method_stacks_statuses_to_the_method_total(ledger, render):
    fig, ax = plots.plot_ru_by_method(ledger)
    totals = ledger.groupby("method")["ru"].sum().sort_values()
    labels = [label.get_text() for label in ax.get_yticklabels()]
    assert labels == totals.index.tolist()  # largest at the top
    per_method = np.zeros(len(labels))
    for patch in ax.patches:
        per_method[round(patch.get_y() + patch.get_height() / 2)] += patch.get_width()
    assert per_method.tolist() == totals.tolist()
    render(fig, "ru_by_method")


def test_ru_ledger_is_two_panels(ledger, render):
    fig, axes = plots.plot_ru_ledger(ledger)
    assert len(axes) == 2 and all(ax.figure is fig for ax in axes)
    assert [ax.get_title() for ax in axes] == ["Request units spent", "Request units by method"]
    render(fig, "ru_ledger")


NOTEBOOK_WIDTH_PX = 900  # a JupyterLab output area at 1280 px with the file browser open


def _smallest_text_px(figure: Figure) -> tuple[float, str]:
    """The smallest visible text of `figure`, in px, shown NOTEBOOK_WIDTH_PX wide."""
    from matplotlib.text import Text

    figure.draw_without_rendering()
    scale = NOTEBOOK_WIDTH_PX / figure.get_figwidth()  # px per inch on screen
    sizes = [
        (text.get_fontsize() / 72 * scale, text.get_text())
        for text in figure.findobj(Text)
        if text.get_visible() and text.get_text().strip()
    ]
    return min(sizes)


def test_the_two_panel_ru_plot_is_readable_at_a_notebooks_width(ledger):
    fig, _ = plots.plot_ru_ledger(ledger)
    px, text = _smallest_text_px(fig)
    assert px >= 11, f"{text!r} would be {px:.1f} px tall"


def test_nodes_by_protocol_and_region_stacked_by_status(nodes, render):
    fig, axes = plots.plot_nodes(nodes)
    by_region = axes[1]
    labels = [label.get_text() for label in by_region.get_yticklabels()]
    assert labels == ["asia-southeast1", "eu-west-1", "us-east-1"]
    widths = {}
    for patch in by_region.patches:
        row = labels[round(patch.get_y() + patch.get_height() / 2)]
        widths[row] = widths.get(row, 0) + patch.get_width()
    assert widths == {"asia-southeast1": 1, "eu-west-1": 2, "us-east-1": 2}
    legend = [text.get_text() for text in axes[0].get_legend().get_texts()]
    assert legend == ["running", "pending", "maintenance", "failed"]
    assert axes[0].get_title() == "Nodes by protocol (5 nodes)"
    render(fig, "nodes")


def test_no_url_or_key_appears_in_any_text(nodes, ledger, render):
    revealed = nodes.assign(region=f"https://nd-1.p2pify.com/{ACCESS_KEY}")
    leaky = ledger.assign(method=f"https://nd-1.p2pify.com/{ACCESS_KEY}")
    figures = [plots.plot_nodes(revealed)[0], plots.plot_ru_ledger(leaky)[0]]
    for figure in figures:
        assert ACCESS_KEY not in " ".join(_texts(figure))
        assert not any("://" in ax.get_title() for ax in figure.axes)
        render(figure, "leak_check")


def test_plots_draw_on_given_axes():
    figure = Figure()
    left, right = figure.subplots(1, 2)
    frame = pd.DataFrame({"block_number": [1, 2], "fee_trx": [0.5, 1.0]})
    assert plots.plot_fees_per_block(frame, ax=right) == (figure, right)
    assert not left.patches and len(right.patches) == 2


@pytest.mark.parametrize(
    ("plot", "frame"),
    [
        (plots.plot_fees_per_block, pd.DataFrame({"block_number": [], "fee_trx": []})),
        (plots.plot_fee_distribution, pd.DataFrame({"fee_trx": [np.nan, 0.0]})),
        (plots.plot_balances, pd.DataFrame({"address": [], "block": [], "eth": []})),
        (plots.plot_block_gas, pd.DataFrame({"number": [], "gas_used": [], "gas_limit": []})),
        (plots.plot_base_fee, pd.DataFrame({"number": [], "base_fee_wei": []})),
        (plots.plot_cumulative_ru, pd.DataFrame({"time": [], "ru": [], "status": []})),
        (plots.plot_ru_by_method, pd.DataFrame({"method": [], "ru": [], "status": []})),
        (plots.plot_node_counts, pd.DataFrame({"protocol": [], "status": []})),
    ],
)
def test_empty_frames_say_so_instead_of_failing(plot, frame, render):
    fig, _ = plot(frame)
    assert any(text.startswith("No ") for text in _texts(fig))
    render(fig, "empty", min_bytes=1_000)


def test_a_plain_transfer_has_no_compute_unit_bars_but_says_why(render):
    import toolkit.frames as frames

    system = "11111111111111111111111111111111"
    logs = frames.solana_simulation_logs(
        [f"Program {system} invoke [1]", f"Program {system} success"]
    )
    fig, ax = plots.plot_compute_units(logs)
    assert not ax.patches  # no empty bar drawn
    assert "No compute-unit data: the programs invoked (System) report none" in _texts(fig)
    render(fig, "compute_units_none", min_bytes=1_000)


def test_empty_simulation_logs(render):
    import toolkit.frames as frames

    logs = frames.solana_simulation_logs([])
    for plot in (plots.plot_compute_units, plots.plot_log_timeline):
        fig, _ = plot(logs)
        assert any(text.startswith("No ") for text in _texts(fig))


@pytest.mark.parametrize(
    "plot",
    [
        plots.plot_fees_per_block,
        plots.plot_balances,
        plots.plot_block_gas,
        plots.plot_base_fee,
        plots.plot_blocks,
        plots.plot_compute_units,
        plots.plot_cumulative_ru,
        plots.plot_node_counts,
    ],
)
def test_a_frame_without_the_needed_columns_raises_value_error(plot):
    with pytest.raises(ValueError, match="missing columns"):
        plot(pd.DataFrame({"unrelated": [1]}))


def test_label_helpers():
    assert readable_number(1234567) == "1,234,567"
    assert readable_number(0.25) == "0.25"
    assert readable_number(2e-9) == "2e-09"
    assert readable_number(0) == "0"
    assert short_label("0x1f9090aae28b8a3dceadf281b0f12828e676c326") == "0x1f90…c326"
    assert short_label(pd.NA) == "unknown"
    assert safe_text(f"node https://h.example/{ACCESS_KEY}/x ok") == "node https://h.example/*** ok"
    assert json.dumps(short_label("short")) == '"short"'


def test_dollars_in_data_are_shown_as_written_not_read_as_mathtext(balances):
    assert safe_text("eth$$main") == r"eth\$\$main"
    assert short_label("$" * 20) == r"\$" * 6 + "…" + r"\$" * 4  # escaped after the cut
    fig, _ax = plots.plot_balances(balances)
    plots.add_caption(fig, "Source: eth$$main: 1 call · $x^2$ ·")
    fig.savefig(io.BytesIO(), format="png")  # mathtext would raise here on "$$"
    text, is_math = fig._supxlabel._preprocess_math(fig.get_supxlabel())
    assert (text, is_math) == ("Source: eth$$main: 1 call · $x^2$ ·", False)


def test_a_caption_is_written_at_the_foot_wrapped_and_without_urls(balances, render):
    fig, ax = plots.plot_balances(balances)
    source = f"Source: https://eth.example.com/{ACCESS_KEY}, ethereum-mainnet: 10 calls, " * 4
    assert plots.add_caption(fig, source) is fig
    caption = fig.get_supxlabel()
    assert ACCESS_KEY not in caption and "https://eth.example.com" in caption
    lines = caption.splitlines()
    assert len(lines) > 1 and all(len(line) <= 8 * 17 for line in lines)  # an 8-inch figure
    fig.draw_without_rendering()
    label = fig._supxlabel.get_window_extent()
    assert label.y1 <= ax.get_window_extent().y0  # below the axes, not over them
    render(fig, "balances with a caption")


def test_a_plot_unpacks_as_figure_and_axes_and_its_png_repr_is_its_figure(balances):
    plot = plots.plot_balances(balances)
    fig, ax = plot
    assert isinstance(fig, Figure) and ax is fig.axes[0]
    assert (plot.figure, plot.axes) == (fig, ax)
    png = plot._repr_png_()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = struct.unpack(">II", png[16:24])  # the IHDR chunk: the image's size
    assert width > 400 and height > 200
    # No text that differs between installs or runs (matplotlib's version, a time): the same plot
    # is the same image, so a notebook replayed from its tape shows the same bytes.
    assert b"Software" not in png and b"matplotlib" not in png and b"tIME" not in png
    assert png == plots.plot_balances(balances)._repr_png_()


def test_several_panels_unpack_as_figure_and_array_of_axes(ledger):
    fig, axes = plots.plot_ru_ledger(ledger)
    assert list(axes) == fig.axes and len(axes) == 2


KERNEL_SETUP = """
import pandas as pd
from toolkit import plots
frame = pd.DataFrame({"block_number": [1, 2], "fee_trx": [0.5, 1.0]})
"""


def _images(outputs: list[dict]) -> int:
    return sum("image/png" in output.get("data", {}) for output in outputs)


@pytest.mark.notebooks
@pytest.mark.timeout(120)
def test_a_cell_ending_in_a_plot_call_shows_exactly_one_image():
    from tests.notebooks.kernel import Kernel

    with Kernel(seconds=60) as kernel:
        kernel.run(KERNEL_SETUP)
        last_expression = kernel.run("plots.plot_fees_per_block(frame)")
        unpacked = kernel.run("fig, ax = plots.plot_fees_per_block(frame)")
        inline = kernel.run("%matplotlib inline\nplots.plot_fees_per_block(frame)")
        # On pyplot's axes the inline backend shows the figure at the cell's end; the plot
        # must not show it a second time.
        on_pyplot = kernel.run(
            "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\n"
            "plots.plot_fees_per_block(frame, ax=ax)"
        )
        errors = [o for o in last_expression + inline + on_pyplot if o["msg_type"] == "error"]
    assert not errors, errors
    assert _images(last_expression) == 1
    assert _images(unpacked) == 0
    assert _images(inline) == 1
    assert _images(on_pyplot) == 1


def test_labels_drawn_from_data_hide_registered_keys_whole():
    """A key the toolkit knows of (a node's, echoed by it into an answer) is hidden from every
    label, not only inside a URL; scrubbed before a long label is cut to its ends."""
    from toolkit._redact import register_secret

    key = "5f1e9d3c7b2a4f6e8d0c1b3a5f7e9d2c"
    register_secret(key)
    assert short_label(key) == "***" and safe_text(f"echo {key}") == "echo ***"
    nodes = pd.DataFrame({"provider": [f"echo {key}", "aws"], "status": ["running", "running"]})
    fig, _ax = plots.plot_node_counts(nodes, by="provider")
    assert "echo ***" in _texts(fig) and not [t for t in _texts(fig) if key[:6] in t]
