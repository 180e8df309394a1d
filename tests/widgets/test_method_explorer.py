"""MethodExplorer: catalog validation inline, the estimate's own text as the preview, Run."""

import pandas as pd
import pytest

import toolkit
from toolkit import frames, lookup
from toolkit.client import HEAD_NOTE
from toolkit.sandbox import DEMO
from toolkit.widgets import MethodExplorer, sandbox_examples

ALICE = DEMO.evm.accounts["alice"]


@pytest.fixture
def eth(gw):
    return gw.node("ethereum-mainnet")


@pytest.fixture
def balance(eth):
    explorer = MethodExplorer(eth)
    explorer.select("eth_getBalance")
    explorer.form.field("address").input.value = ALICE
    return explorer


def head_fetches(ledger):
    return [e for e in ledger.entries if e.note == HEAD_NOTE]


def test_lists_the_catalog_methods_of_the_nodes_chain(gw):
    explorer = MethodExplorer(gw.node("polygon-mainnet"))
    assert list(explorer.method_picker.options) == [
        m.name for m in toolkit.CHAINS["polygon"].methods
    ]
    assert "bor_getRootHash" in explorer.method_picker.options
    assert "debug_printBlock" not in explorer.method_picker.options


def test_without_a_node_nothing_can_run():
    explorer = MethodExplorer()
    assert explorer.method_picker.disabled and explorer.run_button.disabled
    assert "Pick a running node" in explorer.title.value


def test_the_preview_is_the_estimates_text_and_flips_to_archive(balance, eth):
    # The badge says the cost, then the estimate's reason (its text less the cost, said once).
    assert "1 RU" in balance.preview.value
    latest = eth.estimate("eth_getBalance", ALICE, "latest")
    assert latest.reason in balance.preview.value.replace("&#x27;", "'")
    balance.form.field("block").input.value = "0x1"
    expected = eth.estimate("eth_getBalance", ALICE, "0x1")
    assert str(expected).startswith("2 RU: block 1 is ") and "behind head" in expected.reason
    assert expected.reason in balance.preview.value
    assert balance.preview.value.count("2 RU") == 1
    assert "1 RU" not in balance.preview.value
    assert balance.estimate.archive is True and balance.estimate.ru == 2


def test_a_decimal_block_is_priced_like_its_hex(balance):
    balance.form.field("block").input.value = "1"
    assert balance.estimate.ru == 2 and balance.bound.arguments["block"] == "0x1"


def test_pricing_fetches_the_head_once_billed_and_cached(balance, gw):
    for block in ("0x1", "0x2", "0x3", "earliest", "0x4"):
        balance.form.field("block").input.value = block
    fetches = head_fetches(gw.ledger)
    assert len(fetches) == 1 and fetches[0].ru == 1 and fetches[0].method == "eth_blockNumber"


def test_without_the_head_the_preview_gives_the_range_and_says_why(balance, gw):
    gw.set_budget(0)  # fetching the head would cost 1 RU
    balance.form.field("block").input.value = "0x1"
    assert balance.estimate.low == 1 and balance.estimate.high == 2
    assert "1-2 RU" in balance.preview.value
    assert "head could not be fetched" in balance.preview.value
    assert "BudgetExceeded" in balance.preview.value


def test_catalog_messages_appear_at_the_field_they_name(balance):
    balance.form.field("address").input.value = "0x1234"
    with pytest.raises(toolkit.ValidationError) as raised:
        lookup("eth_getBalance").bind(address="0x1234")
    shown = balance.form.field("address").error.value
    assert raised.value.detail.split(": ", 1)[1] in shown.replace("&#x27;", "'")
    assert balance.form.field("block").error.value == ""
    assert balance.run_button.disabled and balance.bound is None
    assert "Fix the marked input" in balance.preview.value
    balance.form.field("address").input.value = ALICE
    assert balance.form.field("address").error.value == ""
    assert not balance.run_button.disabled


def test_a_bad_block_is_explained_by_the_catalog(balance):
    balance.form.field("block").input.value = "newest"
    assert "0x hex block number or one of the tags" in balance.form.field("block").error.value


def test_nested_and_cross_parameter_rules(gw):
    call = MethodExplorer(gw.node("ethereum-mainnet"))
    call.select("eth_call")
    assert "is required" in call.form.field("call.to").error.value

    simulate = MethodExplorer(gw.node("solana-mainnet"), examples=sandbox_examples(gw.sandbox))
    simulate.select("simulateTransaction")
    assert simulate.bound is not None
    simulate.form.field("config.sigVerify").input.value = True
    simulate.form.field("config.replaceRecentBlockhash").input.value = True
    message = simulate.form.field("config.sigVerify").error.value
    assert "cannot both be true" in message and simulate.run_button.disabled


def test_run_shows_the_frame_of_the_result_and_updates_ledger_and_status(balance, gw):
    balance.form.field("block").input.value = "0x1"
    calls_before = len(gw.ledger)
    balance.run_button.click()
    assert balance.error is None
    expected = frames.evm_balances([(ALICE, "0x1", balance.result_value)])
    pd.testing.assert_frame_equal(balance.frame, expected)
    tables = balance.result.tables.value
    assert "<table" in tables and ALICE in tables and "wei" in tables
    assert "2 RU (archive)" in balance.result.headline.value
    assert "ethereum-mainnet" in balance.result.headline.value
    last = gw.ledger.entries[-1]
    assert (last.method, last.ru, last.archive) == ("eth_getBalance", 2, True)
    assert len(gw.ledger) > calls_before
    assert f"{len(gw.ledger)} calls, {gw.ledger.total_ru} RU" in balance.status.value


def test_run_tells_the_ledger_listeners(balance):
    heard = []
    balance.on_ledger_change(lambda: heard.append(True))
    balance.run()
    assert heard


def test_errors_are_shown_readably_by_their_own_message(balance, sandbox):
    sandbox.faults.set(kind="server-error", node="ethereum-mainnet")
    balance.run_button.click()
    assert isinstance(balance.error, toolkit.ResponseError)
    shown = balance.result.headline.value
    assert type(balance.error).__name__ in shown and "tk-error" in shown
    assert "ethereum-mainnet" in shown
    assert "http" not in shown.split("</style>")[1]
    assert balance.result.tables.value == "" and balance.frame is None


def test_a_budget_too_small_is_warned_about_and_refused(balance, gw):
    gw.set_budget(gw.ledger.total_ru)  # nothing left
    balance.refresh()
    assert "Over budget" in balance.preview.value
    balance.run()
    assert isinstance(balance.error, toolkit.BudgetExceeded)
    assert "BudgetExceeded" in balance.result.headline.value
    assert "0 of" in balance.status.value


def test_switching_nodes_keeps_the_method_when_the_chain_serves_it(balance, gw):
    balance.node = gw.node("arbitrum-mainnet")
    assert balance.method.name == "eth_getBalance"
    assert "arbitrum-mainnet" in balance.title.value
    balance.node = gw.node("tron-mainnet")
    assert balance.method.name == lookup("wallet/getassetissuebyname").name


def test_a_method_without_parameters_says_so_and_runs(gw):
    explorer = MethodExplorer(gw.node("ethereum-mainnet"))
    explorer.select("eth_blockNumber")
    assert "No parameters" in explorer.form_box.children[0].children[0].value
    explorer.run()
    assert explorer.frame.loc[0, "value"] == int(explorer.result_value, 16)


EVERY_SANDBOX_METHOD = [
    pytest.param(f"{chain}-mainnet", method.name, id=f"{chain}:{method.name}")
    for chain in ("ethereum", "arbitrum", "polygon", "hyperliquid", "solana", "tron", "ton")
    for method in toolkit.CHAINS[chain].methods
]


@pytest.mark.parametrize(("node", "method"), EVERY_SANDBOX_METHOD)
def test_every_method_runs_with_the_sandbox_examples_into_a_frame(gw, node, method):
    explorer = MethodExplorer(gw.node(node), examples=sandbox_examples(gw.sandbox))
    explorer.select(method)
    assert explorer.bound is not None, explorer.form.problem.value
    explorer.run()
    assert explorer.error is None, explorer.error
    assert isinstance(explorer.frame, pd.DataFrame) and len(explorer.frame) >= 1
    assert "<table" in explorer.result.tables.value


@pytest.mark.parametrize(
    ("node", "method"),
    [
        ("solana-mainnet", "simulateTransaction"),
        ("tron-mainnet", "wallet/gettransactioninfobyblocknum"),
    ],
)
def test_results_that_fit_a_plot_get_one(gw, node, method):
    explorer = MethodExplorer(gw.node(node), examples=sandbox_examples(gw.sandbox))
    explorer.select(method)
    explorer.run()
    assert bytes(explorer.result.image.value).startswith(b"\x89PNG")
    assert explorer.result.image.layout.display == ""
    explorer.node = gw.node("ton-mainnet")  # a new form clears the old result
    assert explorer.result.image.layout.display == "none"
