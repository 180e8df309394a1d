"""The helpers made from catalog entries: what each sends, on the real sandbox over loopback.

What a helper sends is read from the call it prepares (the node's `prepare`, wrapped here to
keep each `BoundCall`); the call is then sent and answered as usual.
"""

import asyncio
import base64

import pytest
from solders.keypair import Keypair

import toolkit
from toolkit import solana_tx
from toolkit.catalog import encoding as enc
from toolkit.client import NODE_CLASSES
from toolkit.sandbox import DEMO
from toolkit.sandbox._solana_world import SolanaWorld

SOLANA = SolanaWorld(0).demo()


@pytest.fixture
def sent(monkeypatch):
    """The arguments of every call a node prepares, in order, as the catalog bound them."""
    from toolkit.client._core import NodeCore

    calls: list[tuple[str, dict]] = []
    prepare = NodeCore.prepare

    def keep(self, name, args, kwargs):
        call = prepare(self, name, args, kwargs)
        calls.append((call.method, call.bound.arguments))
        return call

    monkeypatch.setattr(NodeCore, "prepare", keep)
    return calls


def test_every_catalog_helper_is_made_from_its_entry():
    for method in toolkit.METHODS:
        for chain in method.chains:
            if chain in NODE_CLASSES:
                helper = getattr(NODE_CLASSES[chain], method.helper)
                assert helper.generated_from is method, (chain, method.name)


def test_the_platform_helper_takes_what_its_entry_declares():
    """Written by hand (its value is checked record by record), so checked against the entry."""
    import inspect

    from toolkit.client import Platform

    method = toolkit.lookup("v2/nodes/")
    parameters = list(inspect.signature(Platform.list_nodes_page).parameters.values())[1:]
    assert [(p.name, p.kind is p.KEYWORD_ONLY, p.default) for p in parameters] == [
        (arg.name, not arg.positional, arg.default) for arg in method.helper_args
    ]


TRON_HELPERS = [m for m in toolkit.METHODS if m.chains == ("tron",) and "visible" in m.param_names]


@pytest.mark.parametrize("method", TRON_HELPERS, ids=lambda m: m.name)
def test_every_tron_helper_sends_visible_false_unless_told(gateway, sent, method):
    from toolkit.examples import examples

    ex = examples(gateway)
    tron = gateway.node(ex.node_name("tron"))
    inputs = ex.inputs(method.name, head=tron.head() if ex.needs_head(method.name) else None)
    inputs.pop("visible", None)
    positional = [inputs[arg.fills] for arg in method.helper_args if arg.positional]
    helper = getattr(tron, method.helper)
    sent.clear()
    helper(*positional)
    asyncio.run(getattr(tron.aio, method.helper)(*positional))
    helper(*positional, visible=True)
    assert [arguments["visible"] for _, arguments in sent] == [False, False, True]


def test_a_token_name_is_sent_as_hex_unless_visible(gateway, sent):
    tron = gateway.node("tron-mainnet")
    name = DEMO.tron.unique_name
    record = tron.get_asset_issue_by_name(name)
    shown = tron.get_asset_issue_by_name(name, visible=True)
    assert [arguments["value"] for _, arguments in sent] == [enc.utf8_to_hex(name), name]
    assert enc.hex_to_utf8(record["name"]) == shown["name"] == name


def _transfer_bytes() -> bytes:
    payer = Keypair.from_seed(bytes.fromhex(SOLANA["wallets"]["alice"]["keypair_seed"]))
    to = SOLANA["wallets"]["bob"]["pubkey"]
    return base64.b64decode(solana_tx.transfer(payer, to, 1_000, SOLANA["recent_blockhash"]))


def test_a_transaction_given_as_bytes_is_sent_as_text_in_the_encoding_it_names(gateway, sent):
    solana = gateway.node("solana-mainnet")
    raw = _transfer_bytes()
    answers = [
        solana.simulate_transaction(raw, replace_recent_blockhash=True),
        solana.simulate_transaction(raw, encoding="base58", replace_recent_blockhash=True),
        # no encoding said: the node would read base58, so the helper says base64
        solana.simulate_transaction(raw, encoding=None, replace_recent_blockhash=True),
    ]
    texts = [(args["transaction"], args["config"]["encoding"]) for _, args in sent]
    assert texts == [
        (base64.b64encode(raw).decode(), "base64"),
        (enc.b58encode(raw), "base58"),
        (base64.b64encode(raw).decode(), "base64"),
    ]
    assert all(answer["value"]["err"] is None for answer in answers)


def test_pythonic_names_fill_the_spec_parameters_and_leave_the_callers_objects_alone(gateway, sent):
    ethereum = gateway.node("ethereum-mainnet")
    alice, token = DEMO.evm.accounts["alice"], DEMO.evm.token
    ethereum.call_contract(token, "0x18160ddd", sender=alice, block="latest")
    log_filter = {"address": token}
    ethereum.get_logs(log_filter, fromBlock=0, toBlock=1)
    assert log_filter == {"address": token}
    (_, call), (_, logs) = sent
    assert call == {"call": {"to": token, "data": "0x18160ddd", "from": alice}, "block": "latest"}
    assert logs["filter"] == {"address": token, "fromBlock": "0x0", "toBlock": "0x1"}


def test_a_helper_refuses_an_argument_it_does_not_take_before_sending(gateway, sent):
    ethereum = gateway.node("ethereum-mainnet")
    with pytest.raises(TypeError, match="frm"):
        ethereum.call_contract(DEMO.evm.token, frm=DEMO.evm.accounts["alice"])
    with pytest.raises(toolkit.ValidationError) as caught:
        ethereum.get_logs([1, 2], fromBlock=0)
    assert (caught.value.param, caught.value.rule) == ("filter", "type")
    assert sent == [] and len(gateway.ledger) == 0
