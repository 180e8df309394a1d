"""The helpers' typed signatures stay those of the catalog and the helpers (`_helpers.pyi`), and
`node(..., chain=...)` promises the class the chain's node really has."""

import ast
import inspect
import typing

import pytest

import toolkit
from toolkit.catalog import METHODS, RESULT_KINDS
from toolkit.client import _chains, _gateway
from toolkit.client._stubs import STUB, render

REGENERATE = "python -m toolkit.client._stubs"


def test_the_stub_is_written_from_the_catalog_and_helpers_as_they_are():
    assert STUB.read_text() == render(), f"toolkit/client/_helpers.pyi is out of date: {REGENERATE}"


def test_every_result_kind_says_its_value_type():
    for method in METHODS:
        assert RESULT_KINDS[method.result].python, method.name
    for method in METHODS:
        for param in (*method.params, *(f for p in method.params for f in p.fields)):
            assert param.kind.python, (method.name, param.name)


def _stub_members(title: str) -> dict[str, bool]:
    """The methods a class of the stub has, its bases' included: name -> whether async."""
    classes = {n.name: n for n in ast.parse(STUB.read_text()).body if isinstance(n, ast.ClassDef)}
    node = classes[title]
    members: dict[str, bool] = {}
    for base in node.bases:
        members.update(_stub_members(base.id))
    for item in node.body:
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
            members[item.name] = isinstance(item, ast.AsyncFunctionDef)
    return members


@pytest.mark.parametrize("node_class", sorted(set(_chains.NODE_CLASSES.values()), key=str))
def test_every_helper_of_a_node_class_is_in_the_stub_for_both_flavours(node_class):
    stem = node_class.__name__.removesuffix("Node")
    helpers = {
        name
        for name in dir(node_class.__mro__[1])
        if not name.startswith("_") and inspect.isfunction(getattr(node_class, name))
    }
    blocking = _stub_members(f"{stem}Helpers")
    assert blocking.pop("aio") is False  # the property: typed as the class's async twin
    assert blocking == dict.fromkeys(helpers, False)
    assert _stub_members(f"Async{stem}Helpers") == dict.fromkeys(helpers, True)


def _overloads(function):
    """Each overload's chain names (None: the fallback) and the class it promises."""
    names = {**vars(_chains), **vars(_gateway), **vars(typing)}
    found = []
    for overload in typing.get_overloads(function):
        hints = typing.get_type_hints(overload, globalns=names)
        literal = hints["chain"]
        chains = typing.get_args(literal) if typing.get_origin(literal) is typing.Literal else None
        found.append((chains, hints["return"]))
    return found


@pytest.mark.parametrize("function", [toolkit.Gateway.node, _gateway.node])
def test_the_overloads_of_node_promise_each_chains_node_class(function):
    found = _overloads(function)
    promised = {chain: cls for chains, cls in found if chains for chain in chains}
    assert promised == dict((chain, cls) for chain, cls in _chains.NODE_CLASSES.items()), (
        "an overload of node() disagrees with NODE_CLASSES"
    )
    assert found[-1] == (None, toolkit.Node)  # any other chain, or none: a Node


def test_node_with_a_chain_returns_that_chains_class_or_refuses():
    gw = toolkit.connect()
    assert type(gw.node("polygon-mainnet", chain="polygon")) is toolkit.PolygonNode
    assert type(gw.node("ethereum-mainnet")) is toolkit.EvmNode
    assert gw.node("ethereum-mainnet", chain="ethereum") is gw.node("ethereum-mainnet")
    with pytest.raises(toolkit.ValidationError, match="serves ethereum, not tron"):
        gw.node("ethereum-mainnet", chain="tron")
