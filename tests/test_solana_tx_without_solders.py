"""`toolkit.solana_tx` builds Solana transactions in pure Python (it must work in a browser tab,
where solders has no build), byte for byte as solders builds them: solders is the oracle here."""

from __future__ import annotations

import base64
import hashlib
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from solders.address_lookup_table_account import AddressLookupTableAccount as SoldersTable
from solders.hash import Hash
from solders.instruction import AccountMeta as SoldersMeta
from solders.instruction import Instruction as SoldersInstruction
from solders.keypair import Keypair as SoldersKeypair
from solders.message import MessageV0
from solders.null_signer import NullSigner
from solders.pubkey import Pubkey
from solders.system_program import TransferParams
from solders.system_program import transfer as system_transfer
from solders.token.associated import get_associated_token_address
from solders.transaction import VersionedTransaction

from toolkit import solana_tx

seeds = st.binary(min_size=32, max_size=32)


def _address(seed: bytes) -> str:
    return str(SoldersKeypair.from_seed(hashlib.sha256(seed).digest()).pubkey())


def _solders_tx(payer, instructions, blockhash, *, sign, tables=()) -> bytes:
    message = MessageV0.try_compile(
        payer.pubkey() if sign else payer, instructions, list(tables), Hash.from_string(blockhash)
    )
    return bytes(VersionedTransaction(message, [payer if sign else NullSigner(payer)]))


@settings(max_examples=25, deadline=None)
@given(payer_seed=seeds, other=seeds, amount=st.integers(0, 2**64 - 1), sign=st.booleans())
def test_the_builders_give_solders_bytes(payer_seed, other, amount, sign):
    keypair = SoldersKeypair.from_seed(payer_seed)
    ours = solana_tx.Keypair.from_seed(payer_seed)
    assert ours.pubkey() == str(keypair.pubkey())
    to, mint, blockhash = _address(other), _address(other + b"m"), _address(other + b"h")
    payer = keypair if sign else keypair.pubkey()
    mine = ours if sign else ours.pubkey()

    moved = system_transfer(
        TransferParams(
            from_pubkey=keypair.pubkey(), to_pubkey=Pubkey.from_string(to), lamports=amount
        )
    )
    expected = _solders_tx(payer, [moved], blockhash, sign=sign)
    assert base64.b64decode(solana_tx.transfer(mine, to, amount, blockhash, sign=sign)) == expected
    # solders' own objects are accepted too
    assert solana_tx.build(payer, [moved], blockhash, sign=sign) == expected

    ata = get_associated_token_address(Pubkey.from_string(to), Pubkey.from_string(mint))
    assert solana_tx.associated_token_address(to, mint) == str(ata)
    create = solana_tx.create_associated_token_account(mine, to, mint, blockhash, sign=sign)
    keys = [
        str(k)
        for k in VersionedTransaction.from_bytes(base64.b64decode(create)).message.account_keys
    ]
    assert solana_tx.account_keys(create) == keys
    assert (
        solana_tx.account_keys(solana_tx.encode(base64.b64decode(create), "base58"), "base58")
        == keys
    )


@settings(max_examples=40, deadline=None)
@given(
    metas=st.lists(st.tuples(st.integers(0, 7), st.booleans(), st.booleans()), max_size=10),
    table_members=st.lists(st.integers(0, 7), max_size=8),
    data=st.binary(max_size=40),
)
def test_v0_messages_with_a_lookup_table_compile_as_solders_compiles_them(
    metas, table_members, data
):
    payer = SoldersKeypair.from_seed(bytes(32))
    keys = [Pubkey.from_string(_address(bytes([i]))) for i in range(8)]
    program = Pubkey.from_string(_address(b"program"))
    table = SoldersTable(Pubkey.from_string(_address(b"table")), [keys[i] for i in table_members])
    # no signer but the payer: the builders sign with one key
    accounts = [SoldersMeta(keys[i], False, writable) for i, _signer, writable in metas]
    instruction = SoldersInstruction(program, data, accounts)
    blockhash = _address(b"blockhash")
    expected = _solders_tx(payer.pubkey(), [instruction], blockhash, sign=False, tables=[table])

    ours = solana_tx.Instruction(
        str(program),
        data,
        [solana_tx.AccountMeta(str(a.pubkey), False, a.is_writable) for a in accounts],
    )
    ours_table = solana_tx.AddressLookupTableAccount(
        str(table.key), [str(a) for a in table.addresses]
    )
    built = solana_tx.build(
        str(payer.pubkey()), [ours], blockhash, sign=False, lookup_tables=[ours_table]
    )
    assert built == expected


def test_a_keypair_keeps_its_seed_out_of_its_repr_and_signs_as_solders():
    seed = hashlib.sha256(b"demo").digest()
    ours = solana_tx.Keypair.from_seed(seed)
    assert seed.hex() not in repr(ours) and ours.pubkey() in repr(ours)
    assert ours.sign_message(b"m") == bytes(SoldersKeypair.from_seed(seed).sign_message(b"m"))


def test_bad_input_names_the_parameter_before_anything_is_built():
    with pytest.raises(ValueError, match="recent_blockhash must be a base58 address"):
        solana_tx.transfer(solana_tx.SYSTEM_PROGRAM_ID, _address(b"x"), 1, "0OIl", sign=False)
    with pytest.raises(ValueError, match="signing needs the payer's Keypair"):
        solana_tx.transfer(_address(b"p"), _address(b"x"), 1, _address(b"h"))
    with pytest.raises(ValueError, match="a keypair's seed must be 32 bytes"):
        solana_tx.Keypair.from_seed(b"short")


def test_building_needs_no_solders():
    code = (
        "import sys; sys.modules['solders'] = None\n"  # any import of solders now fails
        "from toolkit import solana_tx\n"
        "k = solana_tx.Keypair.from_seed(bytes(32))\n"
        "tx = solana_tx.transfer(k, solana_tx.MEMO_PROGRAM_ID, 1, solana_tx.SYSTEM_PROGRAM_ID)\n"
        "print(solana_tx.account_keys(tx)[0] == k.pubkey())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "True"
