"""The presenters by result kind, on real published bodies (tests/fixtures/real/, SOURCES.md) and
on the sandbox's answers through the method explorer."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.fixtures.real_bodies import real_result as real
from toolkit import frames, lookup
from toolkit.catalog import RESULT_KINDS
from toolkit.frames._tron_state import ACCOUNT_COLUMNS
from toolkit.widgets import MethodExplorer, sandbox_examples
from toolkit.widgets._results import BY_RESULT_KIND, present

CASES = [
    pytest.param(
        "wallet/getaccount",
        {"address": "TZ4UXDV5ZhNW7fb2AMSbgfAEZ7hWsnYS2g"},
        "tron_getaccount_visible_getblock.json",
        [("Account", frames.tron_account), ("TRC-10 holdings", frames.tron_account_assets)],
        id="tron-account",
    ),
    pytest.param(
        "wallet/getnodeinfo",
        {},
        "tron_getnodeinfo_mainnet_getblock.json",
        [("Node", frames.tron_node_info), ("Peers", frames.tron_node_peers)],
        id="tron-node-info",
    ),
    pytest.param(
        "api/v2/getMasterchainInfo",
        {},
        "ton_getmasterchaininfo_toncenter_docs.json",
        [("Masterchain head", frames.ton_masterchain_info)],
        id="masterchain-info",
    ),
    pytest.param(
        "api/v2/detectAddress",
        {"address": "EQDXZ2c5LnA12Eum-DlguTmfYkMOvNeFCh4rBD0tgmwjcFI-"},
        "ton_detectaddress_getblock_older.json",
        [("Address forms", frames.ton_address_forms)],
        id="address-forms",
    ),
    pytest.param(
        "eth_getBlockByNumber",
        {"block": "latest", "full": True},
        "evm_eth_getblockbynumber_latest_full_execution_apis.json",
        [("Block", frames.evm_blocks), ("Transactions", frames.evm_block_transactions)],
        id="evm-block",
    ),
    pytest.param(
        "wallet/getnowblock",
        {},
        "tron_getnowblock_nile.jsonc",
        [("Blocks", frames.tron_blocks), ("Transactions", frames.tron_block_transactions)],
        id="tron-block",
    ),
]


@pytest.mark.parametrize(("method", "arguments", "fixture", "expected"), CASES)
def test_real_bodies_are_presented_with_their_frames(method, arguments, fixture, expected):
    body = real(fixture)
    presentation = present(lookup(method).bind(**arguments), body)
    assert [caption for caption, _ in presentation.tables] == [c for c, _ in expected]
    for (_, shown), (_, function) in zip(presentation.tables, expected, strict=True):
        pd.testing.assert_frame_equal(shown, function(body))
    assert len(presentation.frame) == 1 and presentation.figure is None


def test_every_result_kind_of_the_new_read_methods_has_a_presenter():
    kinds = ("evm-block", "log-list", "tron-block", "tron-account", "tron-node-info")
    for kind in (*kinds, "masterchain-info", "address-forms"):
        assert kind in BY_RESULT_KIND and kind in RESULT_KINDS


def test_an_account_not_on_chain_is_an_empty_account_table():
    bound = lookup("wallet/getaccount").bind(address="41" + "00" * 20)
    presentation = present(bound, {})
    assert presentation.frame.empty and tuple(presentation.frame.columns) == ACCOUNT_COLUMNS


@pytest.mark.parametrize(
    ("node", "method", "caption", "column"),
    [
        ("tron-mainnet", "wallet/getaccount", "TRC-10 holdings", "asset_id"),
        ("tron-mainnet", "wallet/getnodeinfo", "Peers", "host"),
        ("ton-mainnet", "api/v2/getMasterchainInfo", "Masterchain head", "seqno"),
        ("ton-mainnet", "api/v2/detectAddress", "Address forms", "raw_form"),
    ],
)
def test_the_explorer_shows_sandbox_answers_as_the_new_frames(gw, node, method, caption, column):
    explorer = MethodExplorer(gw.node(node), examples=sandbox_examples(gw.sandbox))
    explorer.select(method)
    explorer.run()
    assert explorer.error is None, explorer.error
    tables = dict(explorer.result.presentation.tables)
    assert tables[caption][column].notna().all() and len(tables[caption]) >= 1
    assert caption in explorer.result.tables.value


def test_tables_write_numbers_for_people_and_the_frame_keeps_them_exact():
    from toolkit.widgets._html import frame_table

    wei = 3_522_081_942_996_582_135 * 10**9  # past 2**63
    frame = pd.DataFrame(
        {
            "block": [20_000_000],
            "wei": pd.Series([wei], dtype=object),
            "sol": [1e-9],
            "supply": [5e18],
            "name": pd.Series([pd.NA], dtype="string"),
            "hex": ["0x1e"],
        }
    )
    table = frame_table(frame)
    assert "20,000,000" in table and f"{wei:,}" in table
    assert "0.000000001" in table and "5,000,000,000,000,000,000" in table
    assert "e-09" not in table and "e+18" not in table
    assert ">NA<" in table and "0x1e" in table
    assert frame["wei"][0] == wei  # the exact value is still in the frame


def test_tables_show_hash_columns_after_the_others():
    from toolkit.widgets._html import frame_table, key_columns_first

    infos = frames.tron_transaction_infos(real("tron_gettransactioninfobyblocknum_nile.json"))
    order = key_columns_first(infos)
    assert order[-1] == "id" and order[0] == "block_number"
    assert sorted(order) == sorted(infos.columns)
    table = frame_table(infos)
    assert table.index("<th>block_number</th>") < table.index("<th>id</th>")
    balance = pd.DataFrame({"address": ["0x" + "ab" * 20], "wei": [1]})
    assert key_columns_first(balance) == ["address", "wei"]  # an address is a key, not a hash


def test_tables_shorten_long_text_but_never_a_number():
    from toolkit._redact import register_secret
    from toolkit.widgets._html import MAX_CELL_CHARS, frame_table

    raw = "0a02" + "ef" * 209  # a TRON raw_data_hex: 422 characters
    big = 2**256 - 1  # 78 digits, 103 characters with separators: shown whole
    secret = "k" * 20 + "SECRETSECRET"
    register_secret(secret)
    frame = pd.DataFrame({"raw": [raw], "wei": pd.Series([big], dtype=object)})
    table = frame_table(frame)
    assert raw not in table and raw[: MAX_CELL_CHARS - 1] + "…" in table
    assert f"{big:,}" in table
    assert frame["raw"][0] == raw  # the frame keeps it whole
    # A secret is scrubbed before the cut, so not even its first part shows.
    cut = frame_table(pd.DataFrame({"note": ["x" * 60 + secret]}))
    assert "kkkkkkkk" not in cut


@pytest.mark.parametrize(
    ("block", "number"),
    [
        ("0x" + "ab" * 32, None),
        ({"blockHash": "0x" + "ab" * 32}, None),
        ({"blockNumber": 5}, 5),
        ("latest", None),
        (7, 7),
    ],
)
def test_a_balance_at_a_block_hash_has_no_block_number(block, number):
    bound = lookup("eth_getBalance").bind("0x" + "11" * 20, block)
    frame = present(bound, "0x10").tables[0][1]
    shown = frame["block"].iloc[0]
    assert (None if pd.isna(shown) else int(shown)) == number
    assert int(frame["wei"].iloc[0]) == 16
