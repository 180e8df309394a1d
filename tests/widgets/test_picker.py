"""NodePicker: every page of the platform API, in the chosen order; clients of running nodes."""

import pytest

from toolkit.widgets import NodePicker
from toolkit.widgets._picker import ORDERINGS


def listed_names(picker):
    return [value for _label, value in picker.list.options]


def test_lists_every_node_of_every_page(gw):
    first_page = gw.platform.list_nodes_page(ordering="name")
    assert first_page["next"] is not None  # the sandbox paginates, so one page is not all
    picker = NodePicker(gw)
    assert len(listed_names(picker)) == first_page["count"] > len(first_page["results"])
    assert "14 nodes, 7 running" in picker.count.value


def test_rows_show_protocol_network_region_and_status_but_no_endpoint(gw):
    picker = NodePicker(gw)
    records = {r["name"]: r for r in gw.nodes()}
    for label, name in picker.list.options:
        record = records[name]
        for key in ("name", "protocol", "network", "region", "status"):
            assert record[key] in label
        assert "http" not in label and "://" not in label


@pytest.mark.parametrize("ordering", [value for _label, value in ORDERINGS])
def test_each_ordering_is_the_platform_order(gw, ordering):
    picker = NodePicker(gw)
    picker.ordering.value = ordering
    assert listed_names(picker) == [r["name"] for r in gw.nodes(ordering=ordering)]


def test_descending_name_is_the_reverse_of_ascending(gw):
    picker = NodePicker(gw, ordering="name")
    ascending = listed_names(picker)
    picker.ordering.value = "-name"
    assert listed_names(picker) == ascending[::-1] == sorted(ascending, reverse=True)


def test_picking_a_running_node_yields_its_client_and_tells_the_callback(gw):
    picker = NodePicker(gw)
    heard = []
    picker.on_pick(heard.append)
    assert picker.node is None
    picker.pick("tron-mainnet")
    assert picker.node is gw.node("tron-mainnet")
    assert picker.node.name == "tron-mainnet" and picker.node.chain.name == "tron"
    assert heard == [picker.node]
    assert "running" in picker.message.value and "tk-ok" in picker.message.value


def test_the_pick_survives_a_reordering_without_telling_listeners(gw):
    picker = NodePicker(gw)
    picker.pick("ton-mainnet")
    heard = []
    picker.on_pick(heard.append)
    picker.ordering.value = "-created_at"
    assert picker.selected == "ton-mainnet" and picker.node.name == "ton-mainnet"
    assert heard == []  # same node, same client: nothing to hear


@pytest.mark.parametrize(
    ("name", "status"),
    [("ethereum-sepolia", "pending"), ("polygon-amoy", "maintenance"), ("ton-testnet", "stopped")],
)
def test_a_node_that_is_not_running_is_shown_as_such_and_gives_no_client(gw, name, status):
    picker = NodePicker(gw)
    label = next(label for label, value in picker.list.options if value == name)
    assert label.startswith("○") and status in label
    picker.pick("ethereum-mainnet")
    heard = []
    picker.on_pick(heard.append)
    picker.pick(name)
    assert picker.node is None and heard == [None]
    assert picker.record["status"] == status
    assert f"is <b>{status}</b>, not running" in picker.message.value


def test_running_nodes_are_marked_differently(gw):
    picker = NodePicker(gw)
    statuses = {r["name"]: r["status"] for r in gw.nodes()}
    for label, name in picker.list.options:
        assert label.startswith("●") == (statuses[name] == "running")


def test_an_unknown_name_is_refused(gw):
    with pytest.raises(ValueError, match="no node named"):
        NodePicker(gw).pick("bitcoin-mainnet")


def test_a_platform_failure_is_shown_not_raised(gw, sandbox):
    sandbox.faults.set(kind="server-error", node="platform")
    picker = NodePicker(gw)
    assert picker.list.options == ()
    assert "tk-error" in picker.message.value
    assert (
        "PlatformError" in picker.message.value and "Internal server error" in picker.message.value
    )
    sandbox.faults.clear()
    picker.reload()
    assert len(picker.list.options) == 14


def test_the_access_key_field_is_for_real_gateways_only(gw):
    assert NodePicker(gw).key.layout.display == "none"


def _all_widget_state() -> str:
    import json

    import ipywidgets

    return json.dumps(ipywidgets.Widget.get_manager_state(drop_defaults=False), default=str)


TYPED_KEY = "TypedAccessKey-0123456789abcdef"


def test_a_key_typed_before_any_pick_leaves_the_synced_state_and_serves_the_next_pick(gw):
    picker = NodePicker(gw)
    picker.key.value = TYPED_KEY  # typed while nothing is picked
    assert picker.key.value == ""
    assert TYPED_KEY not in _all_widget_state()
    assert "kept" in picker.message.value
    used = []
    original = gw.node
    gw.node = lambda name, **kw: used.append(kw.get("key")) or original(name)
    picker.pick("ethereum-mainnet")
    assert picker.node is not None and used == [TYPED_KEY]
    assert TYPED_KEY not in _all_widget_state()
    picker.pick("tron-mainnet")  # used once: the next pick goes without it
    assert used == [TYPED_KEY, None]


def test_a_key_typed_while_a_stopped_node_is_picked_is_not_kept_in_the_widget(gw):
    picker = NodePicker(gw)
    stopped = next(r["name"] for r in picker.records if r.get("status") != "running")
    picker.pick(stopped)
    picker.key.value = TYPED_KEY
    assert picker.node is None and picker.key.value == ""
    assert TYPED_KEY not in _all_widget_state()
