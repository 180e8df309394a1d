"""The sandbox's Solana world: real LiteSVM simulations in the shape real nodes answer with."""

from __future__ import annotations

import base64
import json
import struct
import threading

import pytest
from solders.address_lookup_table_account import AddressLookupTableAccount
from solders.hash import Hash
from solders.keypair import Keypair
from solders.message import MessageHeader, MessageV0
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.system_program import TransferParams
from solders.system_program import transfer as system_transfer
from solders.transaction import Transaction, VersionedTransaction

from toolkit import solana_tx
from toolkit.sandbox._jsonrpc import RpcError
from toolkit.sandbox._solana_world import SolanaWorld, _zstd_frame

FEE = 5000  # lamports per signature
STALE_BLOCKHASH = str(Hash.default())
B64 = {"encoding": "base64"}


@pytest.fixture
def world() -> SolanaWorld:
    return SolanaWorld(seed=7)


@pytest.fixture
def demo(world: SolanaWorld) -> dict:
    return world.demo()


@pytest.fixture
def alice(world: SolanaWorld) -> Keypair:
    return world.keypair("alice")


def pubkey(demo: dict, name: str) -> str:
    return demo["wallets"][name]["pubkey"]


def test_transfer_succeeds_with_logs_fee_and_balance_changes(world, demo, alice):
    tx = solana_tx.transfer(alice, pubkey(demo, "carol"), 12_345, demo["recent_blockhash"])

    result = world.simulate(tx, B64)

    assert set(result) == {"context", "value"}
    assert result["context"]["apiVersion"].startswith("2.")
    value = result["value"]
    assert value["err"] is None
    assert value["logs"] == [
        "Program 11111111111111111111111111111111 invoke [1]",
        "Program 11111111111111111111111111111111 success",
    ]
    assert value["unitsConsumed"] > 0
    assert value["fee"] == FEE
    # keys: alice (payer), carol, the System program
    assert value["preBalances"] == [100 * 10**9, 10**9, 1]
    assert value["postBalances"] == [100 * 10**9 - 12_345 - FEE, 10**9 + 12_345, 1]
    assert value["accounts"] is None
    assert value["innerInstructions"] is None
    assert value["returnData"] is None
    assert value["replacementBlockhash"] is None
    assert value["preTokenBalances"] == value["postTokenBalances"] == []
    assert value["loadedAddresses"] == {"writable": [], "readonly": []}


def test_insufficient_funds_fails_in_the_program_and_still_charges_the_fee(world, demo):
    carol = world.keypair("carol")
    tx = solana_tx.transfer(carol, pubkey(demo, "bob"), 5 * 10**9, demo["recent_blockhash"])

    config = {**B64, "accounts": {"addresses": [pubkey(demo, "bob")]}}
    value = world.simulate(tx, config)["value"]

    assert value["err"] == {"InstructionError": [0, {"Custom": 1}]}
    assert any("insufficient lamports" in line for line in value["logs"])
    assert value["logs"][-1].endswith("failed: custom program error: 0x1")
    assert value["fee"] == FEE
    assert value["postBalances"] == [10**9 - FEE, 25 * 10**9, 1]
    assert value["accounts"] == [None]  # real nodes give no post-state for a failed simulation


def test_inner_instructions_only_when_asked(world, demo, alice):
    tx = solana_tx.create_associated_token_account(
        alice, pubkey(demo, "carol"), demo["mint"]["address"], demo["recent_blockhash"]
    )

    without = world.simulate(tx, B64)["value"]
    asked = world.simulate(tx, {**B64, "innerInstructions": True})["value"]

    assert without["innerInstructions"] is None
    assert without["err"] is None and asked["err"] is None
    [group] = asked["innerInstructions"]
    assert group["index"] == 0
    steps = [(ix["program"], ix["parsed"]["type"]) for ix in group["instructions"]]
    assert steps == [
        ("spl-token", "getAccountDataSize"),
        ("system", "createAccount"),
        ("spl-token", "initializeImmutableOwner"),
        ("spl-token", "initializeAccount3"),
    ]
    new_account = str(
        solana_tx.associated_token_address(pubkey(demo, "carol"), demo["mint"]["address"])
    )
    create = group["instructions"][1]
    assert create["parsed"]["info"] == {
        "lamports": 2_039_280,
        "newAccount": new_account,
        "owner": str(solana_tx.TOKEN_PROGRAM_ID),
        "source": str(alice.pubkey()),
        "space": 165,
    }
    assert {ix["stackHeight"] for ix in group["instructions"]} == {2}


def test_a_transaction_without_calls_has_an_empty_inner_instruction_list(world, demo, alice):
    tx = solana_tx.transfer(alice, pubkey(demo, "bob"), 1, demo["recent_blockhash"])
    assert (
        world.simulate(tx, {**B64, "innerInstructions": True})["value"]["innerInstructions"] == []
    )


def test_return_data_is_the_programs_answer(world, demo, alice):
    tx = solana_tx.get_account_data_size(alice, demo["mint"]["address"], demo["recent_blockhash"])

    value = world.simulate(tx, B64)["value"]

    assert value["returnData"]["programId"] == str(solana_tx.TOKEN_PROGRAM_ID)
    encoded, label = value["returnData"]["data"]
    assert label == "base64"
    assert base64.b64decode(encoded) == struct.pack("<Q", 165)  # a token account's size
    assert f"Program return: {solana_tx.TOKEN_PROGRAM_ID} {encoded}" in value["logs"]


def test_memo_is_logged(world, demo, alice):
    tx = solana_tx.memo(alice, "hello sandbox", demo["recent_blockhash"])
    value = world.simulate(tx, B64)["value"]
    assert value["err"] is None
    assert "Program log: Memo (len 13)" in value["logs"]
    assert "Program log: hello sandbox" in value["logs"]


def test_token_transfer_shows_token_balances_before_and_after(world, demo, alice):
    mint = demo["mint"]["address"]
    tx = solana_tx.transfer_tokens(
        alice, mint, pubkey(demo, "bob"), 1_500_000, 6, demo["recent_blockhash"]
    )

    value = world.simulate(tx, B64)["value"]

    assert value["err"] is None

    def amounts(balances):
        return {b["owner"]: b["uiTokenAmount"] for b in balances}

    before, after = amounts(value["preTokenBalances"]), amounts(value["postTokenBalances"])
    alice_key, bob_key = str(alice.pubkey()), pubkey(demo, "bob")
    assert before[alice_key] == {
        "uiAmount": 750000.0,
        "decimals": 6,
        "amount": "750000000000",
        "uiAmountString": "750000",
    }
    assert after[alice_key]["amount"] == "749998500000"
    assert after[alice_key]["uiAmountString"] == "749998.5"
    assert after[bob_key]["uiAmountString"] == "250001.5"
    for entry in value["postTokenBalances"]:
        assert entry["mint"] == mint
        assert entry["programId"] == str(solana_tx.TOKEN_PROGRAM_ID)
        # accountIndex points into the message's keys: there sits a rent-exempt token account
        assert value["postBalances"][entry["accountIndex"]] == 2_039_280


def test_a_created_token_account_appears_only_after(world, demo, alice):
    tx = solana_tx.create_associated_token_account(
        alice, pubkey(demo, "carol"), demo["mint"]["address"], demo["recent_blockhash"]
    )
    value = world.simulate(tx, B64)["value"]
    assert value["preTokenBalances"] == []
    [created] = value["postTokenBalances"]
    assert created["owner"] == pubkey(demo, "carol")
    assert created["uiTokenAmount"]["amount"] == "0"
    assert value["preBalances"][created["accountIndex"]] == 0
    assert value["postBalances"][created["accountIndex"]] == 2_039_280


def test_requested_accounts_come_back_in_request_order_with_missing_as_null(world, demo, alice):
    tx = solana_tx.transfer(alice, pubkey(demo, "carol"), 500, demo["recent_blockhash"])
    missing = str(Keypair.from_seed(bytes(32)).pubkey())
    addresses = [pubkey(demo, "carol"), missing, str(alice.pubkey())]

    accounts = world.simulate(tx, {**B64, "accounts": {"addresses": addresses}})["value"][
        "accounts"
    ]

    carol, absent, payer = accounts
    assert absent is None
    assert carol == {
        "lamports": 10**9 + 500,  # the state after the simulation
        "data": ["", "base64"],
        "owner": "11111111111111111111111111111111",
        "executable": False,
        "rentEpoch": 2**64 - 1,
        "space": 0,
    }
    assert payer["lamports"] == 100 * 10**9 - 500 - FEE


def test_account_data_encodings(world, demo, alice):
    tx = solana_tx.memo(alice, "read", demo["recent_blockhash"])
    token_account = demo["token_accounts"]["alice"]["address"]

    def account(encoding):
        config = {**B64, "accounts": {"addresses": [token_account], "encoding": encoding}}
        return world.simulate(tx, config)["value"]["accounts"][0]

    plain = account("base64")
    raw = base64.b64decode(plain["data"][0])
    assert plain["space"] == len(raw) == 165
    assert raw[:32] == bytes(Pubkey.from_string(demo["mint"]["address"]))
    assert struct.unpack_from("<Q", raw, 64)[0] == 750_000 * 10**6
    assert plain["owner"] == str(solana_tx.TOKEN_PROGRAM_ID)
    # jsonParsed falls back to base64, as real nodes do for data they do not parse
    assert account("jsonParsed") == plain
    packed = account("base64+zstd")
    assert packed["data"][1] == "base64+zstd"
    assert base64.b64decode(packed["data"][0]) == _zstd_frame(raw)


def test_zstd_frame_layout():
    data = bytes(range(256)) * 600  # more than one 128 KiB block
    frame = _zstd_frame(data)
    assert frame[:4] == bytes.fromhex("28b52ffd")  # the Zstandard magic number
    assert struct.unpack_from("<Q", frame, 5)[0] == len(data)  # declared content size
    assert len(frame) == 13 + 2 * 3 + len(data)  # header, two block headers, stored bytes


def test_zstd_frame_decompresses_with_a_real_decoder():
    zstandard = pytest.importorskip("zstandard")
    for size in (0, 165, 200_000):
        data = bytes(i % 251 for i in range(size))
        assert zstandard.ZstdDecompressor().decompress(_zstd_frame(data)) == data


def test_too_many_requested_accounts_is_invalid_params(world, demo, alice):
    tx = solana_tx.transfer(alice, pubkey(demo, "bob"), 1, demo["recent_blockhash"])
    addresses = [pubkey(demo, name) for name in ("alice", "bob", "carol", "alice")]
    with pytest.raises(RpcError) as caught:
        world.simulate(tx, {**B64, "accounts": {"addresses": addresses}})
    assert caught.value.code == -32602
    assert caught.value.message == "Too many accounts provided; max 3"


def test_stale_blockhash_is_not_found(world, demo, alice):
    tx = solana_tx.transfer(alice, pubkey(demo, "bob"), 1, STALE_BLOCKHASH)

    value = world.simulate(tx, B64)["value"]

    assert value["err"] == "BlockhashNotFound"
    assert value["logs"] == []
    assert value["unitsConsumed"] == 0
    assert value["fee"] is None  # never loaded, so nothing charged
    assert value["preBalances"] == value["postBalances"]


def test_replace_recent_blockhash_rescues_a_stale_transaction(world, demo, alice):
    tx = solana_tx.transfer(alice, pubkey(demo, "bob"), 1, STALE_BLOCKHASH, sign=False)

    result = world.simulate(tx, {**B64, "replaceRecentBlockhash": True})

    assert result["value"]["err"] is None
    assert result["value"]["replacementBlockhash"] == {
        "blockhash": demo["recent_blockhash"],
        "lastValidBlockHeight": result["context"]["slot"] + 150,
    }


def test_replace_recent_blockhash_works_for_legacy_transactions(world, demo, alice):
    instruction = system_transfer(
        TransferParams(from_pubkey=alice.pubkey(), to_pubkey=alice.pubkey(), lamports=1)
    )
    legacy = Transaction.new_signed_with_payer(
        [instruction], alice.pubkey(), [alice], Hash.default()
    )
    config = {**B64, "replaceRecentBlockhash": True}
    value = world.simulate(solana_tx.encode(legacy), config)["value"]
    assert value["err"] is None
    assert value["replacementBlockhash"]["blockhash"] == demo["recent_blockhash"]


def test_sig_verify_rejects_a_wrong_signature(world, demo, alice):
    blockhash = demo["recent_blockhash"]

    def pay_self(lamports):
        params = TransferParams(
            from_pubkey=alice.pubkey(), to_pubkey=alice.pubkey(), lamports=lamports
        )
        return VersionedTransaction.from_bytes(
            solana_tx.build(alice, [system_transfer(params)], blockhash)
        )

    signed, other = pay_self(1), pay_self(2)
    forged = VersionedTransaction.populate(signed.message, other.signatures)

    assert (
        world.simulate(solana_tx.encode(signed), {**B64, "sigVerify": True})["value"]["err"] is None
    )
    with pytest.raises(RpcError) as caught:
        world.simulate(solana_tx.encode(forged), {**B64, "sigVerify": True})
    assert (caught.value.code, caught.value.message) == (
        -32003,
        "Transaction signature verification failure",
    )
    assert caught.value.to_json() == {
        "code": -32003,
        "message": "Transaction signature verification failure",
    }


def test_unsigned_transactions_pass_only_without_sig_verify(world, demo, alice):
    tx = solana_tx.transfer(
        alice.pubkey(), pubkey(demo, "bob"), 1, demo["recent_blockhash"], sign=False
    )
    assert world.simulate(tx, B64)["value"]["err"] is None
    with pytest.raises(RpcError) as caught:
        world.simulate(tx, {**B64, "sigVerify": True})
    assert caught.value.code == -32003


def test_base58_is_the_default_and_base64_gives_the_same_answer(demo, alice):
    args = (alice, demo["wallets"]["bob"]["pubkey"], 99, demo["recent_blockhash"])
    as_base58 = solana_tx.transfer(*args, encoding="base58")
    as_base64 = solana_tx.transfer(*args)

    first = SolanaWorld(seed=7).simulate(as_base58, {})
    second = SolanaWorld(seed=7).simulate(as_base64, B64)

    assert first == second
    assert first["value"]["err"] is None


def test_undecodable_transactions_are_invalid_params(world):
    with pytest.raises(RpcError) as caught:
        world.simulate(base64.b64encode(b"\x01\x02\x03").decode(), B64)
    assert caught.value.code == -32602
    assert "failed to deserialize" in caught.value.message


def test_same_seed_same_json_and_another_seed_another_world(demo, alice):
    tx = solana_tx.create_associated_token_account(
        alice, demo["wallets"]["carol"]["pubkey"], demo["mint"]["address"], demo["recent_blockhash"]
    )
    config = {
        **B64,
        "innerInstructions": True,
        "accounts": {"addresses": [demo["mint"]["address"]]},
    }

    first = json.dumps(SolanaWorld(seed=7).simulate(tx, config))
    second = json.dumps(SolanaWorld(seed=7).simulate(tx, config))

    assert first == second
    assert SolanaWorld(seed=8).demo()["wallets"]["alice"] != demo["wallets"]["alice"]


def test_simulation_changes_no_state(world, demo, alice):
    tx = solana_tx.transfer(alice, pubkey(demo, "bob"), 10**9, demo["recent_blockhash"])

    first = world.simulate(tx, B64)
    second = world.simulate(tx, B64)

    assert first["value"] == second["value"]
    assert second["value"]["preBalances"][:2] == [100 * 10**9, 25 * 10**9]


def test_the_slot_advances_and_min_context_slot_is_enforced(world, demo, alice):
    tx = solana_tx.memo(alice, "slot", demo["recent_blockhash"])
    slot = world.simulate(tx, B64)["context"]["slot"]
    assert slot == demo["slot"] + 1

    with pytest.raises(RpcError) as caught:
        world.simulate(tx, {**B64, "minContextSlot": slot + 1000})
    assert caught.value.code == -32016
    assert caught.value.message == "Minimum context slot has not been reached"
    assert caught.value.data == {"contextSlot": slot + 1}

    reached = world.simulate(tx, {**B64, "minContextSlot": slot, "commitment": "processed"})
    assert reached["context"]["slot"] == slot + 2


def test_a_clock_drives_the_slot():
    now = [0.0]
    world = SolanaWorld(clock=lambda: now[0])
    alice = world.keypair("alice")
    demo = world.demo()
    tx = solana_tx.memo(alice, "tick", demo["recent_blockhash"])

    assert world.simulate(tx, B64)["context"]["slot"] == demo["slot"]
    now[0] = 4.0  # ten 400 ms slots later
    assert world.simulate(tx, B64)["context"]["slot"] == demo["slot"] + 10


def test_lookup_tables_load_addresses(world, demo, alice):
    table = AddressLookupTableAccount(
        Pubkey.from_string(demo["lookup_table"]["address"]),
        [Pubkey.from_string(a) for a in demo["lookup_table"]["addresses"]],
    )
    bob = Pubkey.from_string(pubkey(demo, "bob"))
    instruction = system_transfer(
        TransferParams(from_pubkey=alice.pubkey(), to_pubkey=bob, lamports=7)
    )
    tx = solana_tx.build(alice, [instruction], demo["recent_blockhash"], lookup_tables=[table])

    value = world.simulate(solana_tx.encode(tx), B64)["value"]

    assert value["err"] is None
    assert value["loadedAddresses"] == {"writable": [str(bob)], "readonly": []}
    # balances cover the loaded address too, after the message's own keys
    assert value["preBalances"][-1] == 25 * 10**9
    assert value["postBalances"][-1] == 25 * 10**9 + 7


def test_an_unknown_fee_payer_is_not_loaded(world, demo):
    stranger = Keypair.from_seed(bytes([9]) * 32)
    tx = solana_tx.transfer(stranger, pubkey(demo, "bob"), 1, demo["recent_blockhash"])
    value = world.simulate(tx, B64)["value"]
    assert value["err"] == "AccountNotFound"
    assert value["fee"] is None


def test_concurrent_simulations_are_serialised(world, demo, alice):
    tx = solana_tx.transfer(alice, pubkey(demo, "bob"), 3, demo["recent_blockhash"])
    results: list[dict] = []
    errors: list[BaseException] = []

    def run():
        try:
            for _ in range(25):
                results.append(world.simulate(tx, B64))
        except BaseException as error:  # surfaced below: a thread's failure must fail the test
            errors.append(error)

    threads = [threading.Thread(target=run) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert len(results) == 200
    assert all(result["value"] == results[0]["value"] for result in results)
    slots = sorted(result["context"]["slot"] for result in results)
    assert slots == list(range(demo["slot"] + 1, demo["slot"] + 201))


def test_demo_facts_match_the_world(world, demo):
    assert demo["programs"]["associated_token"] == str(solana_tx.ASSOCIATED_TOKEN_PROGRAM_ID)
    assert demo["programs"]["memo"] == str(solana_tx.MEMO_PROGRAM_ID)
    for name, wallet in demo["wallets"].items():
        rebuilt = Keypair.from_seed(bytes.fromhex(wallet["keypair_seed"]))
        assert str(rebuilt.pubkey()) == wallet["pubkey"] == str(world.keypair(name).pubkey())
    assert demo["token_accounts"]["alice"]["address"] == str(
        solana_tx.associated_token_address(pubkey(demo, "alice"), demo["mint"]["address"])
    )


def test_signing_needs_a_keypair(alice, demo):
    with pytest.raises(ValueError, match="Keypair"):
        solana_tx.transfer(alice.pubkey(), pubkey(demo, "bob"), 1, demo["recent_blockhash"])


def test_a_malformed_message_is_invalid_params(world, demo):
    # The header claims two signers, but the message has one key and one signature.
    header = MessageHeader(2, 0, 0)
    message = MessageV0(
        header, [Pubkey.default()], Hash.from_string(demo["recent_blockhash"]), [], []
    )
    tx = VersionedTransaction.populate(message, [Signature.default()])
    with pytest.raises(RpcError) as caught:
        world.simulate(solana_tx.encode(tx), B64)
    assert caught.value.to_json() == {
        "code": -32602,
        "message": "invalid transaction: Transaction failed to sanitize accounts offsets correctly",
    }
