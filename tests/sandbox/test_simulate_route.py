"""The Solana node's route: catalog validation before simulation, and delegation to the
simulator (toolkit.sandbox._solana_world, tested on its own elsewhere)."""

from __future__ import annotations

import base64

import pytest


def simulate(http, nodes, *params, id=1):
    envelope = {"jsonrpc": "2.0", "id": id, "method": "simulateTransaction", "params": list(params)}
    response = http.post(nodes["solana-mainnet"], json=envelope)
    assert response.status_code == 200
    return response.json()


def test_sig_verify_conflict_is_refused_before_simulating(http, nodes):
    config = {"encoding": "base64", "sigVerify": True, "replaceRecentBlockhash": True}
    error = simulate(http, nodes, "AQ==", config)["error"]
    assert error["code"] == -32602
    assert error["data"] == {"param": "config.sigVerify", "rule": "conflict"}


def test_other_validation_and_methods(http, nodes):
    error = simulate(http, nodes, "not base64!", {"encoding": "base64"})["error"]
    assert error["code"] == -32602 and error["data"]["param"] == "transaction"
    error = simulate(http, nodes, "AQ==", {"encoding": "base64", "colour": 1})["error"]
    assert error["code"] == -32602
    envelope = {"jsonrpc": "2.0", "id": 1, "method": "getBalance", "params": []}
    assert http.post(nodes["solana-mainnet"], json=envelope).json()["error"]["code"] == -32601


def test_a_transfer_is_simulated(http, nodes, sandbox):
    pytest.importorskip("toolkit.sandbox._solana_world")
    from solders.hash import Hash
    from solders.keypair import Keypair
    from solders.message import Message
    from solders.pubkey import Pubkey
    from solders.system_program import TransferParams, transfer
    from solders.transaction import Transaction

    facts = sandbox.world.solana_demo()
    payer = Keypair.from_seed(bytes.fromhex(facts["wallets"]["alice"]["keypair_seed"]))
    carol = Pubkey.from_string(facts["wallets"]["carol"]["pubkey"])
    blockhash = Hash.from_string(facts["recent_blockhash"])
    instruction = transfer(TransferParams(from_pubkey=payer.pubkey(), to_pubkey=carol, lamports=5))
    message = Message.new_with_blockhash([instruction], payer.pubkey(), blockhash)
    wire = base64.b64encode(bytes(Transaction([payer], message, blockhash))).decode()

    answer = simulate(http, nodes, wire, {"encoding": "base64", "sigVerify": True}, id="sim")
    assert answer["id"] == "sim"
    result = answer["result"]
    assert set(result) == {"context", "value"}
    assert result["value"]["err"] is None
    assert result["value"]["unitsConsumed"] > 0
    garbage = simulate(http, nodes, base64.b64encode(b"\x01" * 70).decode(), {"encoding": "base64"})
    assert garbage["error"]["code"] == -32602
