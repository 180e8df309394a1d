"""Platform node lists (with endpoint redaction) and TON token data in both shapes."""

from __future__ import annotations

import pandas as pd
import pytest

from toolkit.frames import NODE_STATUSES, FrameError, platform_nodes, ton_token_data
from toolkit.frames._platform import NODE_COLUMNS
from toolkit.frames._ton import TOKEN_COLUMNS

ACCESS_KEY = "3c6e0b8a9c15224a8228b9a98ca1531d"

# --- platform nodes ------------------------------------------------------------------------------


def test_pages_give_one_row_per_node_with_details_flattened(load):
    df = platform_nodes(load("platform_nodes_pages"))
    assert tuple(df.columns) == NODE_COLUMNS
    assert df["id"].tolist() == [f"ND-123-456-{n}" for n in range(789, 794)]
    assert df["api_namespaces"][0] == "net,eth,web3,txpool,debug"
    assert pd.isna(df["api_namespaces"][2])  # an empty list
    assert df["protocol"].dtype == "string"
    assert pd.isna(df["beacon_endpoint"][1]) and pd.isna(df["graphql_endpoint"][3])


def test_endpoints_are_redacted_unless_revealed(load):
    df = platform_nodes(load("platform_nodes_pages"))
    assert df["https_endpoint"][0] == "https://nd-123-456-789.p2pify.com/***"
    assert df["wss_endpoint"][0] == "wss://ws-nd-123-456-789.p2pify.com/***"
    assert ACCESS_KEY not in df.to_string() and ACCESS_KEY not in df.to_json()
    revealed = platform_nodes(load("platform_nodes_pages"), reveal_endpoints=True)
    assert revealed["https_endpoint"][0].endswith(ACCESS_KEY)


def test_status_is_categorical_with_known_and_unseen_values(load):
    nodes = load("platform_nodes_pages")[0]["results"]
    nodes[0]["status"] = "deleting"
    df = platform_nodes(nodes)  # a plain list of node records
    assert isinstance(df["status"].dtype, pd.CategoricalDtype)
    assert list(df["status"].cat.categories) == [*NODE_STATUSES, "deleting"]
    assert df["status"].tolist() == ["deleting", "pending", "running"]


def test_single_page_single_node_and_empty_page(load):
    page = load("platform_nodes_pages")[1]
    assert len(platform_nodes(page)) == 2
    assert platform_nodes(page["results"][0])["name"].tolist() == ["tron-main"]
    empty = platform_nodes({"count": 0, "next": None, "previous": None, "results": []})
    assert empty.empty and tuple(empty.columns) == NODE_COLUMNS


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"error": {"code": "unauthorized", "message": "Invalid API key"}}, "unauthorized"),
        ({"results": "nope"}, "results: expected an array"),
        ({"details": {"https_endpoint": ["u"]}}, "https_endpoint: expected a URL as text"),
        ({"something": "else"}, "node list page"),
        (["text"], "node list page"),
    ],
)
def test_platform_errors_and_bad_shapes_raise_frame_error(payload, message):
    with pytest.raises(FrameError, match=message):
        platform_nodes(payload)


@pytest.mark.parametrize(
    ("details", "field"),
    [
        ([1, 2], "details: expected a JSON object"),
        ({"https_endpoint": 42}, "details.https_endpoint: expected a URL as text, got int 42"),
        ({"wss_endpoint": True}, "details.wss_endpoint: expected a URL as text"),
    ],
)
def test_a_node_record_of_the_wrong_shape_is_named_with_its_field(load, details, field):
    page = load("platform_nodes_pages")[0]
    page["results"][2]["details"] = details
    name = page["results"][2]["name"]
    with pytest.raises(FrameError) as caught:
        platform_nodes(page)
    assert f"node record #3 (name {name!r}, id 'ND-123-456-791')" in str(caught.value)
    assert field in str(caught.value)


def test_a_protocol_the_toolkit_does_not_serve_is_listed_as_it_is(load):
    page = load("platform_nodes_pages")[0]
    page["results"][0]["protocol"] = "bitcoin"
    assert platform_nodes(page)["protocol"][0] == "bitcoin"


# --- TON token data -------------------------------------------------------------------------------


def test_flat_spec_record(load):
    df = ton_token_data(load("ton_token_flat"))
    assert tuple(df.columns) == TOKEN_COLUMNS
    row = df.iloc[0]
    assert row["total_supply"] == 10**24 and type(row["total_supply"]) is int
    assert row["supply"] == 1e18 and row["decimals"] == 6
    assert row["mintable"] and row["burnable"] and row["symbol"] == "USD₮"
    assert str(df["decimals"].dtype) == "Int64" and str(df["mintable"].dtype) == "boolean"


def test_toncenter_shape_reads_the_jetton_content(load):
    row = ton_token_data(load("ton_token_toncenter")).iloc[0]
    assert row["name"] == "Notcoin" and row["symbol"] == "NOT"
    assert row["decimals"] == 9  # sent as the text "9"
    assert row["total_supply"] == 5 * 10**18 and row["supply"] == 5e9
    assert not row["mintable"] and pd.isna(row["burnable"])
    assert row["content_type"] == "onchain" and row["contract_type"] == "jetton_master"
    assert row["admin_address"].startswith("EQ")


def test_offchain_content_and_a_list_of_payloads_in_both_shapes(load):
    payloads = [
        load("ton_token_flat"),
        load("ton_token_toncenter"),
        load("ton_token_offchain_bare"),
    ]
    df = ton_token_data(payloads)
    assert len(df) == 3
    offchain = df.iloc[2]
    assert offchain["uri"] == "https://example.org/jetton.json"
    assert offchain["total_supply"] == 21 * 10**15 and pd.isna(offchain["supply"])


def test_token_data_envelope_and_empty():
    envelope = {"jsonrpc": "2.0", "id": 1, "result": {"ok": True, "result": {"total_supply": 5}}}
    assert ton_token_data(envelope)["total_supply"].tolist() == [5]
    assert ton_token_data({}).empty and ton_token_data([]).empty


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"ok": False, "code": 409, "error": "not a jetton"}, "not a jetton"),
        ({"ok": True, "result": "x"}, "result: expected a JSON object"),
        ({"totalSupply": "many"}, "total_supply: expected an integer"),
        ({"mintable": "yes", "name": "X"}, "mintable: expected true or false"),
        ({"jetton_content": {"data": 7}}, "jetton_content.data"),
        ({"irrelevant": 1}, "expected TON token data"),
        (3, "expected TON token data"),
    ],
)
def test_token_data_bad_shapes_raise_frame_error(payload, message):
    with pytest.raises(FrameError, match=message):
        ton_token_data(payload)


def test_toncenter_answers_get_the_address_that_was_asked_for(load):
    payload = load("ton_token_toncenter")
    df = ton_token_data(payload, address="EQ-asked")
    assert df["address"].tolist() == ["EQ-asked"]
    both = ton_token_data([payload, load("ton_token_flat")], address=["EQ-1", "EQ-2"])
    assert both["address"].iloc[0] == "EQ-1"
    assert both["address"].iloc[1] != "EQ-2"  # the flat record names its own address
