"""What a typed helper takes, as each catalog entry declares it (catalog/_inputs.py)."""

import keyword

import pytest

import toolkit
from toolkit.catalog import REQUIRED, Arg
from toolkit.catalog._inputs import fill


@pytest.mark.parametrize("method", toolkit.METHODS, ids=lambda m: m.name)
def test_a_helpers_arguments_are_python_names_that_fill_the_entrys_parameters(method):
    names = [arg.name for arg in method.helper_args]
    assert len(set(names)) == len(names), names
    assert all(name.isidentifier() and not keyword.iskeyword(name) for name in names), names
    for arg in method.helper_args:
        method.param_at(arg.fills)  # a parameter or a field of one: raises when it is not
    filled = {arg.fills.split(".")[0] for arg in method.helper_args}
    required = {p.name for p in method.params if p.required and not p.has_default}
    assert required <= filled, f"a helper could not send {required - filled}"
    kinds = [(not arg.positional) + arg.collects for arg in method.helper_args]
    assert kinds == sorted(kinds), "positional, then keyword-only, then the collecting one"


def test_undeclared_arguments_are_the_parameters_then_an_objects_fields_by_keyword():
    logs = toolkit.lookup("eth_getLogs")
    assert not logs.args
    assert logs.helper_args[0] == Arg("filter", "filter", None, positional=True)
    assert Arg("fromBlock", "filter.fromBlock") in logs.helper_args
    balance = toolkit.lookup("eth_getBalance").helper_args
    assert balance == (
        Arg("address", "address", REQUIRED, positional=True),
        Arg("block", "block", "latest", positional=True),
    )
    now = toolkit.lookup("wallet/getnowblock").helper_args
    assert now == (Arg("visible", "visible", False),)  # a helper default: keyword-only


def test_helper_arguments_fill_nested_fields_apply_defaults_and_transforms():
    simulate = toolkit.lookup("simulateTransaction")
    arguments = simulate.helper_arguments(
        {"transaction": b"\x01\x02", "accounts": ["x"], "sig_verify": True}
    )
    assert arguments == {
        "transaction": "AQI=",
        "config": {"encoding": "base64", "sigVerify": True, "accounts": {"addresses": ["x"]}},
    }
    by_name = toolkit.lookup("wallet/getassetissuebyname")
    assert by_name.helper_arguments({"name": "Sand"}) == {"value": "53616e64", "visible": False}
    assert by_name.helper_arguments({"name": "Sand", "visible": True}) == {
        "value": "Sand",
        "visible": True,
    }


def test_a_refused_input_names_the_method_and_the_parameter():
    with pytest.raises(toolkit.ValidationError) as caught:
        toolkit.lookup("simulateTransaction").helper_arguments({"transaction": 42})
    error = caught.value
    assert (error.method, error.param, error.rule) == ("simulateTransaction", "transaction", "type")


def test_fill_copies_the_objects_it_writes_into_and_refuses_what_is_not_one():
    given = {"address": "0xabc"}
    arguments = {"filter": given}
    fill(arguments, "filter.fromBlock", 1)
    assert given == {"address": "0xabc"}
    assert arguments == {"filter": {"address": "0xabc", "fromBlock": 1}}
    with pytest.raises(toolkit.ValidationError) as caught:
        fill({"config": "base64"}, "config.accounts.addresses", ["x"])
    assert (caught.value.param, caught.value.rule) == ("config", "type")
