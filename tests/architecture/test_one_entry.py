"""Adding a method is one catalog entry and one sandbox handler, proved by counting.

For each method below, its name appears as a string in exactly two modules of the package: the
catalog (`toolkit/catalog/_table.py`) and one sandbox module (its handler). Everything else (the
helper, validation, pricing, cache pinning, the widgets' form, the example inputs, the docs'
method table) is read from the entry. And the sandbox refuses to start when a catalog method has no
handler, so an entry without a handler cannot pass unnoticed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import toolkit
from tests.source_trees import nodes
from toolkit.sandbox import MissingHandler, World, create_app

PACKAGE = Path(__file__).resolve().parents[2] / "toolkit"
CATALOG_MODULE = PACKAGE / "catalog" / "_table.py"
# The chain profiles name the one call that reads each chain's head (a chain's data, not a
# method's): that method's name may appear there too, and no other's.
CHAIN_MODULE = PACKAGE / "catalog" / "_chains.py"

# Methods added after the spec's. Those left out need one more line, each for a reason:
# eth_getLogs and wallet/getblockbynum take a recent block number, which `examples.inputs`
# (the notebooks' and widgets' example values) picks by hand.
ONE_ENTRY_METHODS = (
    "eth_chainId",
    "net_version",
    "eth_gasPrice",
    "eth_getCode",
    "eth_getTransactionCount",
    "eth_getBlockByNumber",
    "wallet/getnowblock",
    "wallet/getnodeinfo",
    "wallet/getaccount",
    "api/v2/getMasterchainInfo",
    "api/v2/detectAddress",
)


def _modules_naming(name: str) -> set[Path]:
    """The package's modules with a string constant equal to `name` (docstrings and comments
    that mention it do not count: they are not code that must change)."""
    found = set()
    for path in PACKAGE.rglob("*.py"):
        for node in nodes(path):
            if isinstance(node, ast.Constant) and node.value == name:
                found.add(path)
                break
    return found


@pytest.mark.parametrize("name", ONE_ENTRY_METHODS)
def test_a_method_is_named_by_its_entry_and_its_sandbox_handler_only(name):
    modules = _modules_naming(name)
    sandbox = {path for path in modules if path.parent.name == "sandbox"}
    assert CATALOG_MODULE in modules and len(sandbox) == 1, sorted(map(str, modules))
    heads = {c.head.method for c in toolkit.catalog.CHAINS.values() if c.head is not None}
    chains = {CHAIN_MODULE} if name in heads else set()
    assert modules == {CATALOG_MODULE, *chains, *sandbox}, sorted(map(str, modules))


@pytest.mark.parametrize("name", ONE_ENTRY_METHODS)
def test_everything_else_is_derived_from_the_entry(name):
    from toolkit.client import NODE_CLASSES
    from toolkit.examples import world_examples
    from toolkit.sandbox import Sandbox

    method = toolkit.lookup(name)
    for chain in method.chains:
        helper = getattr(NODE_CLASSES[chain], method.helper)
        assert helper.generated_from is method  # the helper
        assert method.summary.split(" (")[0].rstrip(".") in helper.__doc__
    method.bind(**world_examples(Sandbox().world).inputs(name))  # example inputs, by kind
    assert f"`{name}`" in (PACKAGE.parent / "docs" / "methods.md").read_text()  # the table


def test_the_sandbox_refuses_to_start_when_a_catalog_method_has_no_handler(monkeypatch):
    from toolkit.sandbox import _evm  # the test reaches in: it removes one handler

    handlers = _evm.EvmChain.handlers

    def without_chain_id(self):
        return {k: v for k, v in handlers(self).items() if k != "eth_chainId"}

    create_app(World(0))  # every method has its handler
    monkeypatch.setattr(_evm.EvmChain, "handlers", without_chain_id)
    with pytest.raises(MissingHandler, match=r"eth_chainId \(ethereum\)"):
        create_app(World(0))
