"""ParamForm: inputs chosen from the catalog's kinds, values the catalog's `bind` accepts."""

import ipywidgets as widgets
import pytest

from toolkit import METHODS, ValidationError, lookup
from toolkit.catalog import BLOCK_TAGS
from toolkit.widgets import ParamForm
from toolkit.widgets._form import InputError


def form_for(name):
    return ParamForm(lookup(name).params)


@pytest.mark.parametrize("method", METHODS, ids=lambda m: m.name)
def test_every_catalog_method_gets_one_field_per_parameter(method):
    form = ParamForm(method.params)
    assert [field.param.name for field in form.fields] == [p.name for p in method.params]


def test_block_is_a_combobox_of_the_tags_with_the_catalog_default():
    block = form_for("eth_getBalance").field("block")
    assert isinstance(block.input, widgets.Combobox)
    assert tuple(block.input.options) == BLOCK_TAGS
    assert block.input.value == "latest"
    assert not block.input.ensure_option  # 0x numbers are typed freely


def test_an_untouched_form_gives_only_the_defaults():
    assert form_for("eth_getBalance").values() == {"block": "latest"}
    assert form_for("api/v2/jsonRPC").values() == {"params": {}}
    assert form_for("eth_blockNumber").values() == {}


def test_choices_become_a_dropdown_with_a_not_sent_option_showing_the_server_default():
    encoding = form_for("simulateTransaction").field("config.encoding")
    assert isinstance(encoding.input, widgets.Dropdown)
    labels = [label for label, _ in encoding.input.options]
    values = [value for _, value in encoding.input.options]
    assert values[1:] == ["base58", "base64"]
    assert "base58" in labels[0]  # what the node assumes when nothing is sent
    assert encoding.read() is None  # the first option sends nothing
    encoding.input.value = "base64"
    assert encoding.read() == "base64"
    accounts_encoding = form_for("simulateTransaction").field("config.accounts.encoding")
    assert [v for _, v in accounts_encoding.input.options][1:] == [
        "base64",
        "base64+zstd",
        "jsonParsed",
    ]


def test_bools_are_checkboxes_sent_only_when_they_differ_from_the_node_default():
    form = form_for("wallet/getassetissuelistbyname")
    visible = form.field("visible")
    assert isinstance(visible.input, widgets.Checkbox)
    assert visible.input.value is True  # the spec's default for list-by-name
    form.field("value").input.value = "SandCoin"
    assert form.values() == {"value": "SandCoin"}
    visible.input.value = False
    assert form.values() == {"value": "SandCoin", "visible": False}


def test_object_params_are_sub_forms_and_come_out_as_nested_dicts():
    form = form_for("eth_call")
    assert isinstance(form.field("call").input, ParamForm)
    form.field("call.to").input.value = "0x" + "11" * 20
    form.field("call.gas").input.value = "21000"
    assert form.values() == {"call": {"to": "0x" + "11" * 20, "gas": 21000}, "block": "latest"}
    lookup("eth_call").bind(**form.values())  # the catalog takes it as it is


def test_an_empty_optional_object_is_left_out():
    form = form_for("simulateTransaction")
    form.field("transaction").input.value = "AQ=="
    assert form.values() == {"transaction": "AQ=="}
    form.field("config.innerInstructions").input.value = True
    assert form.values() == {"transaction": "AQ==", "config": {"innerInstructions": True}}


def test_decimal_text_becomes_an_int_for_number_kinds_only():
    form = form_for("eth_getStorageAt")
    form.field("slot").input.value = "12"
    form.field("block").input.value = "0x10"
    form.field("address").input.value = "0x" + "22" * 20
    values = form.values()
    assert values["slot"] == 12 and values["block"] == "0x10"
    assert lookup("eth_getStorageAt").bind(**values).arguments["slot"] == "0xc"
    asset = form_for("wallet/getassetissuebyid")
    asset.field("value").input.value = "1000001"
    assert asset.values() == {"value": "1000001"}  # an asset id is digits as text


def test_json_objects_are_parsed_and_bad_json_names_the_field():
    form = form_for("api/v2/jsonRPC")
    form.field("method").input.value = "unpackAddress"
    form.field("params").input.value = '{"address": "EQx"}'
    assert form.values()["params"] == {"address": "EQx"}
    form.field("params").input.value = '{"address": '
    with pytest.raises(InputError) as raised:
        form.values()
    assert raised.value.path == "params"
    assert "not valid JSON" in str(raised.value)


def test_address_lists_split_on_lines_and_commas():
    form = form_for("simulateTransaction")
    form.field("config.accounts.addresses").input.value = "a1\nb2, c3"
    assert form.values()["config"] == {"accounts": {"addresses": ["a1", "b2", "c3"]}}


def test_set_values_fills_nested_fields_and_show_error_finds_them():
    form = form_for("eth_call")
    form.set_values({"call": {"to": "0xabc", "data": "0x12"}, "block": "0x1"})
    assert form.field("call.to").input.value == "0xabc"
    assert form.field("block").input.value == "0x1"
    with pytest.raises(ValidationError) as raised:
        lookup("eth_call").bind(**form.values())
    form.show_error(raised.value.param, raised.value.detail)
    assert raised.value.param == "call.to"
    assert "call.to" in form.field("call.to").error.value
    assert form.field("call.to").error.layout.display == ""
    assert form.field("block").error.value == ""
    assert form.messages() == {"call.to": raised.value.detail}
    form.clear_errors()
    assert form.field("call.to").error.value == ""
    assert form.messages() == {}


def test_an_error_naming_no_field_is_shown_under_the_form():
    form = form_for("eth_getBalance")
    form.show_error(None, "something about the whole call")
    assert "something about the whole call" in form.problem.value
    assert form.messages() == {"": "something about the whole call"}
