"""The workload builder, headless: its plan is the Workload code would build, its preview that
workload's preview, its run that workload's run; bad inputs and the budget stop it before
anything is sent; the plot carries the run's provenance; no secret reaches any of its widgets."""

import json
import time

import pandas as pd
import pytest

import toolkit
from toolkit import frames
from toolkit.widgets import WorkloadBuilder, workload_builder
from toolkit.workloads import Workload

EVM = "ethereum-mainnet"
TRON = "tron-mainnet"
BALANCE = "eth_getBalance"
TRON_INFOS = "wallet/gettransactioninfobyblocknum"


@pytest.fixture
def gw(make_gateway):
    # A long head TTL: the head the preview fetched still prices the run (no extra 1 RU fetch).
    return make_gateway(
        head_ttl_s=3600,
        retry=toolkit.RetryPolicy(attempts=2, backoff_s=0.01, backoff_max_s=0.02),
    )


@pytest.fixture
def builder(gw):
    return workload_builder(gw, node=EVM, show=False)


def addresses_of(builder):
    return [line for line in builder.addresses.value.splitlines() if line]


def code_built(builder, gw):
    """The workload a user would write for what the builder's form says."""
    blocks = range(builder.first.value, builder.last.value + 1, builder.step.value)
    node = gw.node(builder.node_picker.value)
    if builder.method_picker.value == BALANCE:
        return Workload().grid(node, BALANCE, addresses_of(builder), blocks)
    return Workload().each(node, TRON_INFOS, blocks, param="num")


def wait_for(condition, seconds=5.0):
    """The builder follows the ledger and the budget a moment after they change (`_live`)."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the builder did not follow the change"
        time.sleep(0.02)


# --- the form and the plan -------------------------------------------------------------------


def test_the_sandbox_builder_starts_with_a_plan_it_can_run(builder):
    assert len(addresses_of(builder)) == 3 and builder.step.value == 10_000
    assert builder.workload is not None and len(builder.workload) == 33
    assert not builder.run_button.disabled and builder.problems == {}
    assert repr(builder).startswith("<WorkloadBuilder on the embedded sandbox: <Workload 33 calls")


def test_nodes_and_methods_come_from_the_catalog(builder, gw):
    nodes = builder.node_picker.options
    # Running nodes of chains with a planned method: EVM chains and TRON; not Solana or TON,
    # and not a node that is not running (ethereum-sepolia is pending).
    assert {EVM, "arbitrum-mainnet", "polygon-mainnet", TRON} <= set(nodes)
    assert not {"solana-mainnet", "ton-mainnet", "ethereum-sepolia"} & set(nodes)
    builder.pick("arbitrum-mainnet")
    assert builder.method_picker.options == (BALANCE,)
    builder.pick(TRON)
    assert builder.method_picker.options == (TRON_INFOS,)
    assert builder.address_box.layout.display == "none"  # TRON blocks need no addresses


@pytest.mark.parametrize("plan", ["Developer", "Growth"])
def test_the_preview_is_the_code_built_workloads_preview(builder, gw, plan):
    builder.plan_picker.value = plan
    expected = code_built(builder, gw).preview(plan=plan)
    shown = builder.preview
    assert (shown.calls, shown.ru_low, shown.ru_high) == (expected.calls, expected.ru_low, 63)
    assert shown.cost_usd == expected.cost_usd and shown.min_time_s == expected.min_time_s
    pd.testing.assert_frame_equal(shown.frame, expected.frame)
    for line in expected.summary().splitlines():
        assert line in builder.preview_view.value
    assert [c.call.bound for c in builder.workload] == [
        c.call.bound for c in code_built(builder, gw)
    ]


def test_an_example_address_is_added_as_a_line(builder):
    builder.set_addresses([])
    alice = toolkit.sandbox.DEMO.evm.accounts["alice"]
    builder.example_picker.value = alice
    assert addresses_of(builder) == [alice] and builder.example_picker.value == ""
    assert len(builder.workload) == 11


def catalog_message(gw, address):
    with pytest.raises(toolkit.ValidationError) as refused:
        gw.node(EVM).prepare(BALANCE, address, 1)
    return refused.value.detail


BAD_INPUTS = {
    "an address that does not validate": (
        lambda b: b.set_addresses([*addresses_of(b)[:1], "0x12"]),
        "addresses",
        ["line 2: ", "address: must be 0x followed by 40 hex digits", "(rule: address)"],
    ),
    "a step of 0": (
        lambda b: b.set_blocks(100, 200, 0),
        "blocks",
        ["step: must be at least 1, got 0 (rule: min)"],
    ),
    "a last block before the first": (
        lambda b: b.set_blocks(200, 100, 10),
        "blocks",
        ["to: the last block 100 is before the first 200 (rule: range)"],
    ),
    "a negative block (the catalog's rule)": (
        lambda b: b.set_blocks(-5, 100, 10),
        "blocks",
        ["block: block number must not be negative, got -5 (rule: min)"],
    ),
    "too many calls": (
        lambda b: b.set_blocks(0, 100_000, 1),
        "calls",
        ["300,003 calls is more than this builder plans (10,000", "(rule: max-calls)"],
    ),
    "no address": (
        lambda b: b.set_addresses([]),
        "addresses",
        ["give at least one address, one per line (rule: required)"],
    ),
}


@pytest.mark.parametrize("case", BAD_INPUTS, ids=list(BAD_INPUTS))
def test_a_bad_input_is_named_at_its_field_disables_run_and_sends_nothing(builder, gw, case):
    change, field, parts = BAD_INPUTS[case]
    calls_before, ru_before = len(gw.ledger), gw.ledger.counted_ru
    change(builder)
    assert builder.workload is None and builder.preview is None
    assert builder.run_button.disabled and list(builder.problems) == [field]
    shown = builder.field_messages[field].value
    for part in parts:
        assert part in builder.problems[field] and part.replace("'", "&#x27;") in shown
    builder.run_button.click()  # a click reaches run() even so: it must refuse
    assert builder.results is None
    assert (len(gw.ledger), gw.ledger.counted_ru) == (calls_before, ru_before)


def test_the_address_message_is_the_catalogs_own(builder, gw):
    builder.set_addresses(["0x12"])
    assert catalog_message(gw, "0x12") in builder.problems["addresses"]


def test_fixing_the_input_enables_run_again(builder):
    builder.set_blocks(200, 100, 10)
    builder.set_blocks(100, 200, 10)
    assert builder.problems == {} and not builder.run_button.disabled


# --- running -----------------------------------------------------------------------------------


def test_run_gives_the_code_built_run_and_spends_the_previewed_ru(builder, gw, sandbox):
    preview = builder.preview
    before = gw.ledger.counted_ru
    sandbox.reset_metering()
    builder.run_button.click()
    assert builder.error is None
    spent = gw.ledger.counted_ru - before
    assert preview.ru_low <= spent <= preview.ru_high and spent == 63
    assert sum(usage["ru"] for usage in sandbox.metering().values()) == spent
    assert builder.progress.value == builder.progress.max == 33
    assert "33 of 33 calls" in builder.progress_label.value

    expected = code_built(builder, gw).run(progress=False)
    pd.testing.assert_frame_equal(builder.results, expected)
    blocks = range(builder.first.value, builder.last.value + 1, builder.step.value)
    pairs = [(address, block) for address in addresses_of(builder) for block in blocks]
    records = [(a, b, wei) for (a, b), wei in zip(pairs, expected["result"], strict=True)]
    pd.testing.assert_frame_equal(builder.frame, frames.evm_balances(records))
    assert "<b>33 calls</b> on <b>ethereum-mainnet</b>: 63 RU" in builder.result.headline.value


def test_a_tron_run_gives_transaction_infos_and_fees_per_block(builder, gw):
    builder.pick(TRON)
    builder.set_blocks(builder.first.value, builder.first.value + 4)
    expected_work = code_built(builder, gw)
    assert (builder.preview.calls, builder.preview.ru_high) == (5, 5)
    assert builder.preview.ru_high == expected_work.preview().ru_high
    builder.run()
    rows = expected_work.run(progress=False)
    infos = frames.tron_transaction_infos([r for result in rows["result"] for r in result])
    pd.testing.assert_frame_equal(builder.frame, infos)
    assert len(infos) > 0
    axes = builder.figure.axes[0]
    assert axes.get_title() == "TRON fees per block"


def test_the_plot_carries_the_runs_provenance(builder, gw):
    gw.node(TRON).get_now_block()  # earlier calls are not this run's
    builder.run()
    axes = builder.figure.axes[0]
    assert axes.get_title() == "Balance by block" and len(axes.get_lines()) == 3
    caption = builder.figure.get_supxlabel()
    assert caption.replace("\n", " ").startswith(
        "Source: embedded sandbox (seed 0), ethereum-mainnet"
    )
    assert "33 calls, 63 RU" in caption and TRON not in caption
    assert f"node-gateway-toolkit {toolkit.__version__}" in caption.replace("\n", " ")
    assert builder.result.image.value[:4] == b"\x89PNG"


def test_the_budget_guard_refuses_what_the_budget_cannot_pay(builder, gw):
    gw.set_budget(gw.ledger.counted_ru + 10)
    wait_for(lambda: builder.run_button.disabled)
    assert "Over budget" in builder.status.value
    refusal = "this workload may cost up to 63 RU and the budget has 10 RU left (rule: budget)"
    assert builder.problems == {"budget": refusal} and refusal in builder.status.value
    calls = len(gw.ledger)
    builder.run_button.click()
    assert builder.results is None and len(gw.ledger) == calls
    builder.ledger.set_budget(gw.ledger.counted_ru + 63)  # the builder's own ledger panel
    wait_for(lambda: not builder.run_button.disabled)
    assert builder.problems == {}
    builder.run()
    assert builder.error is None and gw.budget.remaining == 0


def test_a_failed_call_is_a_row_and_the_headline_says_so(builder, gw, sandbox):
    builder.set_blocks(builder.last.value - 1, builder.last.value)
    sandbox.faults.set(kind="server-error", node=EVM)
    builder.run()
    assert builder.error is None and builder.results["error"].notna().all()
    assert "6 failed" in builder.result.headline.value


# --- display and secrets -----------------------------------------------------------------------


def test_outside_ipython_it_prints_one_line(gw, capsys):
    workload_builder(gw, node=TRON)
    assert capsys.readouterr().out.startswith("<WorkloadBuilder on the embedded sandbox")


def descendants(widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from descendants(child)


def test_no_key_or_url_in_any_of_its_widgets(builder, gw, sandbox, secrets):
    builder.run()
    builder.pick(TRON)
    builder.run()
    sandbox.faults.set(kind="bad-gateway", node=TRON)
    builder.run()
    state = "\n".join(
        json.dumps(
            {
                key: bytes(value).decode("latin-1")
                if isinstance(value, bytes | memoryview)
                else value
                for key, value in widget.get_state().items()
            },
            default=str,
        )
        for widget in descendants(builder)
    )
    # The scan sees what a browser would: node names, an error message, tables, the plot.
    for expected in (EVM, TRON, "HTTPStatusError", "<table", "PNG"):
        assert expected in state
    caption = builder.figure.get_supxlabel()
    assert "Source: embedded sandbox" in caption
    for secret in secrets:
        assert secret not in state and secret not in caption


def test_an_interrupted_run_says_so_and_can_run_again(builder, monkeypatch):
    def interrupted(self, **options):
        raise KeyboardInterrupt

    monkeypatch.setattr(Workload, "run", interrupted)
    with pytest.raises(KeyboardInterrupt):
        builder.run()
    assert "Interrupted" in builder.result.headline.value
    assert not builder.run_button.disabled


def test_a_node_that_cannot_be_reached_is_named_at_the_node_field(builder, monkeypatch):
    def unreachable(name, **options):
        raise toolkit.ValidationError("no node named 'gone' in this organization", param="name")

    monkeypatch.setattr(builder.gw, "node", unreachable)
    builder.node_picker.options = [*builder.node_picker.options, "gone"]
    builder.pick("gone")
    assert builder.client is None and builder.workload is None and builder.run_button.disabled
    assert "no node named" in builder.field_messages["node"].value


def test_on_a_real_gateway_it_starts_empty_and_offers_public_example_accounts(sandbox):
    info = sandbox.info  # the sandbox reached as a real gateway: no demo world known
    with toolkit.Gateway(info["platform_url"], info["api_key"], nodes=info["nodes"]) as real:
        builder = WorkloadBuilder(real, node=EVM)
        assert builder.addresses.value == "" and builder.workload is None
        assert "give at least one address" in builder.problems["addresses"]
        vitalik = "0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045"  # examples.REAL_WORLD
        assert vitalik in dict(builder.example_picker.options).values()
        builder.example_picker.value = vitalik
        builder.set_blocks(100, 300, step=100)
        assert len(builder.workload) == 3 and not builder.run_button.disabled


def test_run_stays_disabled_while_the_run_is_under_way(builder, monkeypatch):
    seen = []
    real_run = Workload.run

    def watched(self, **options):
        builder.check_budget()  # what the ledger's follower does as the run's calls land
        seen.append(builder.run_button.disabled)
        return real_run(self, **options)

    monkeypatch.setattr(Workload, "run", watched)
    builder.run()
    assert seen == [True] and builder.error is None and not builder.run_button.disabled


def test_started_on_the_first_node_it_plans_at_once(gw):
    first = WorkloadBuilder(gw).node_picker.options[0]
    builder = workload_builder(gw, node=first, show=False)
    assert builder.node_picker.value == first
    assert builder.method_picker.value in (BALANCE, TRON_INFOS)
    assert builder.workload is not None and builder.preview is not None
    assert "RU" in builder.preview_view.value and not builder.run_button.disabled


def test_started_on_any_node_it_plans_at_once(gw):
    options = WorkloadBuilder(gw).node_picker.options
    assert len(options) > 1
    for name in options:
        builder = workload_builder(gw, node=name, show=False)
        assert builder.node_picker.value == name
        assert builder.method_picker.value in (BALANCE, TRON_INFOS), name
        assert builder.workload is not None and builder.preview is not None, name
        assert "RU" in builder.preview_view.value and not builder.run_button.disabled, name


@pytest.fixture
def dollar_gw(sandbox, make_gateway):
    """The sandbox with its Ethereum node also known by a name that holds ``$$`` (mathtext)."""
    info = sandbox.info
    gw = make_gateway(head_ttl_s=3600)
    name = "ethereum-$$main"
    gw._node_urls[name] = info["nodes"]["ethereum-mainnet"]
    listed = gw.nodes

    def nodes(**options):
        return [{"name": name, "protocol": "ethereum", "status": "running"}, *listed(**options)]

    gw.nodes = nodes
    return gw, name


def test_a_node_name_with_dollars_shows_in_the_plot_as_written(dollar_gw):
    import io

    import matplotlib

    gw, name = dollar_gw
    builder = workload_builder(gw, node=name, show=False)
    builder.run()
    assert builder.error is None, builder.error
    assert bytes(builder.result.image.value)[:4] == b"\x89PNG"  # drawn, after the run was paid
    svg = io.BytesIO()
    with matplotlib.rc_context({"svg.fonttype": "none"}):  # text stays text in the file
        builder.figure.savefig(svg, format="svg")
    assert name in svg.getvalue().decode()  # as written: not read as mathtext, no backslash
