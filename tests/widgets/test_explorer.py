"""The combined explorer and the ledger view; no secret anywhere in the widgets' state."""

import json

import pytest
from ipywidgets.widgets.widget import _instances

import toolkit
from toolkit.sandbox import DEMO
from toolkit.widgets import LedgerView, explorer


@pytest.fixture
def ui(gw):
    return explorer(gw, show=False)


def run_balance(ui, block):
    ui.picker.pick("ethereum-mainnet")
    ui.methods.select("eth_getBalance")
    ui.methods.form.field("block").input.value = block
    ui.methods.run_button.click()


def test_the_sandbox_explorer_starts_with_working_demo_inputs(ui):
    ui.picker.pick("ethereum-mainnet")
    ui.methods.select("eth_getBalance")
    assert ui.methods.form.field("address").input.value == DEMO.evm.accounts["alice"]
    assert ui.methods.bound is not None and "1 RU" in ui.methods.preview.value


def test_picking_a_node_hands_its_client_to_the_method_explorer(ui, gw):
    ui.picker.pick("tron-mainnet")
    assert ui.methods.node is gw.node("tron-mainnet")
    ui.picker.pick("polygon-amoy")  # maintenance: no client
    assert ui.methods.node is None and ui.methods.run_button.disabled


def test_reordering_the_nodes_keeps_what_was_typed(ui):
    ui.picker.pick("ethereum-mainnet")
    ui.methods.select("eth_getBalance")
    ui.methods.form.field("block").input.value = "0x2"
    ui.picker.ordering.value = "-name"
    assert ui.methods.form.field("block").input.value == "0x2"


def test_a_run_lands_in_the_ledger_view(ui, gw):
    run_balance(ui, "0x1")
    assert ui.methods.error is None
    table = ui.ledger.table.value
    assert "eth_getBalance" in table and "ethereum-mainnet" in table
    assert f"{len(gw.ledger)} calls, {gw.ledger.total_ru} RU spent" in ui.ledger.totals.value
    assert gw.ledger.total_ru == 3  # the 2 RU archive call and the 1 RU head it needed


def test_the_ledger_view_sets_and_removes_the_budget(ui, gw):
    ui.ledger.budget_input.value = "10"
    ui.ledger.set_button.click()
    assert gw.budget.limit == 10
    run_balance(ui, "0x1")
    assert gw.budget.remaining == 10 - gw.ledger.total_ru
    assert f"{gw.budget.remaining} RU left" in ui.ledger.totals.value
    assert ui.ledger.gauge.value == gw.budget.spent and ui.ledger.gauge.max == 10
    assert f"budget {gw.budget.remaining} of 10 RU left" in ui.methods.status.value
    ui.ledger.clear_button.click()
    assert gw.budget is None and "no budget set" in ui.ledger.totals.value


def test_a_spent_budget_stops_runs(ui, gw):
    ui.picker.pick("ethereum-mainnet")
    ui.methods.select("eth_getBalance")
    ui.ledger.budget_input.value = "0"
    ui.ledger.set_button.click()
    ui.methods.run_button.click()
    assert isinstance(ui.methods.error, toolkit.BudgetExceeded)
    assert "0 RU left" in ui.ledger.totals.value
    assert ui.ledger.gauge.bar_style == "danger"


def test_the_ledger_view_works_on_a_single_nodes_meter(gw):
    node = gw.node("ton-mainnet")
    view = LedgerView(node.meter)
    node.get_token_data(DEMO.ton.jettons[0].address)
    view.refresh()
    assert "api/v2/getTokenData" in view.table.value


def test_explorer_connects_to_the_sandbox_when_given_no_gateway():
    ui = explorer(show=False)
    assert ui.gw.sandbox is not None and len(ui.picker.list.options) == 14


def test_explorer_can_start_on_a_node(gw):
    ui = explorer(gw, node="ton-mainnet", show=False)
    assert ui.methods.node.name == "ton-mainnet"


def widget_state_text():
    """Everything the widgets would send to a browser: every live widget's full state."""
    states = []
    for widget in list(_instances.values()):
        state = widget.get_state()
        for key, value in state.items():
            if isinstance(value, bytes | memoryview):
                state[key] = bytes(value).decode("latin-1")
        states.append(json.dumps(state, default=str))
    return "\n".join(states)


def test_no_key_or_url_in_any_widget_state(ui, gw, sandbox, secrets):
    for name in ("ethereum-mainnet", "solana-mainnet", "tron-mainnet", "ton-mainnet"):
        ui.picker.pick(name)
        for method in ui.methods.method_picker.options:
            ui.methods.select(method)
            ui.methods.run_button.click()
    sandbox.faults.set(kind="bad-gateway", node="polygon-mainnet")
    ui.picker.pick("polygon-mainnet")
    ui.methods.run_button.click()
    assert ui.methods.error is not None  # an error message is part of the scan
    sandbox.faults.set(kind="server-error", node="platform")
    ui.picker.reload_button.click()
    text = widget_state_text()
    # The scan sees what a browser would: node names, error messages, tables.
    for shown in ("ethereum-mainnet", "HTTPStatusError", "PlatformError", "<table"):
        assert shown in text
    for secret in secrets:
        assert secret not in text


def test_the_table_is_for_people_and_the_exact_value_is_on_the_widget(ui):
    run_balance(ui, "20000000")
    exact = int(ui.methods.result_value, 16)  # the node's hex answer
    assert exact > 2**53  # past what a float holds exactly
    wei = ui.methods.frame["wei"].iloc[0]
    assert type(wei) is int and wei == exact  # `frame` keeps the exact integer
    assert f"{exact:,}" in ui.methods.result.tables.value  # the table writes it for people


def test_the_tron_asset_by_name_form_opens_with_a_plain_name_and_visible_ticked(ui, gw):
    ui.picker.pick("tron-mainnet")
    ui.methods.select("wallet/getassetissuebyname")
    form = ui.methods.form
    assert form.field("value").input.value == DEMO.tron.unique_name  # "SandCoin", not its hex
    assert form.field("visible").input.value is True
    form.field("value").input.value = "Café Crème"  # a plain name, typed as a person would
    assert ui.methods.bound is not None, form.problem.value
    ui.methods.run_button.click()
    assert ui.methods.error is None
    assert ui.methods.frame["name"].tolist() == ["Café Crème"]


def test_the_explorer_outside_jupyter_prints_one_short_line(make_gateway, capsys, secrets):
    gateway = make_gateway()
    ui = explorer(gateway, node="ethereum-mainnet")  # no IPython shell here: plain text
    printed = capsys.readouterr().out
    assert printed == repr(ui) + "\n"
    assert len(printed) < 200 and "ethereum-mainnet" in printed
    for part in (ui, ui.picker, ui.methods, ui.ledger):
        assert len(repr(part)) < 200
    for secret in secrets:
        assert secret not in printed


def test_the_cost_badge_says_the_cost_once(ui):
    ui.picker.pick("ethereum-mainnet")
    ui.methods.select("eth_blockNumber")
    shown = ui.methods.preview.value.split("</style>")[-1]
    assert shown.count("1 RU") == 1 and "node.estimate()" not in shown
    assert "a fixed price" in shown


def test_the_explorer_lists_the_nodes_once_before_any_click(gw):
    from math import ceil

    from toolkit.sandbox._platform import PAGE_SIZE

    ui = explorer(gw, node="ethereum-mainnet", show=False)
    listed = gw.ledger.frame
    pages = ceil(len(ui.picker.records) / PAGE_SIZE)
    # The API has no page size: listing the nodes is a request per page, each page once, and
    # the ledger says they are one listing.
    assert listed["method"].eq("v2/nodes/").sum() == pages > 1
    notes = listed.loc[listed["method"] == "v2/nodes/", "note"].tolist()
    assert notes == [f"page {n} of one node listing" for n in range(1, pages + 1)]
    assert ui.ledger.budget_input.value == "" and "no budget set" in ui.ledger.totals.value
