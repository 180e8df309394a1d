"""The few lines that replace eth-abi (the sandbox token's answers) and pytoniq-core (TON address
forms), checked against published known answers, and against those libraries where installed.

Sources of the vectors:
- Solidity ABI: the examples of the Contract ABI Specification,
  https://docs.soliditylang.org/en/latest/abi-spec.html#examples (``baz(uint32,bool)`` with 69
  and true; the dynamic part of ``sam(bytes,bool,uint256[])`` with ``"dave"``); the ERC-20
  ``balanceOf(address)`` selector 0x70a08231, https://eips.ethereum.org/EIPS/eip-20.
- TON: the TON Cookbook, https://docs.ton.org/v3/guidelines/dapps/cookbook ("Working with
  contract addresses": EQDKbjIc... is 0:ca6e321c...), and the ``ton_smart_contract_address``
  crate's documentation, https://lib.rs/crates/ton_smart_contract_address (0:ba60bfbd... with
  its bounceable and non-bounceable forms). Format: TEP-2,
  https://github.com/ton-blockchain/TEPs/blob/master/text/0002-address.md.
"""

from __future__ import annotations

import base64
import binascii
import random

import pytest

from toolkit.catalog import encoding as enc

WORD = 32


def test_abi_words_match_the_specifications_examples():
    # baz(uint32,bool) with 69 and true
    call = enc.keccak256(b"baz(uint32,bool)")[:4] + enc.abi_uint(69) + enc.abi_uint(1)
    assert call.hex() == (
        "cdcd77c0"
        "0000000000000000000000000000000000000000000000000000000000000045"
        "0000000000000000000000000000000000000000000000000000000000000001"
    )
    # "dave": its length word, then its bytes padded to a word; a lone return value's offset is 32
    assert enc.abi_string("dave").hex() == (
        "0000000000000000000000000000000000000000000000000000000000000020"
        "0000000000000000000000000000000000000000000000000000000000000004"
        "6461766500000000000000000000000000000000000000000000000000000000"
    )
    assert enc.keccak256(b"balanceOf(address)")[:4].hex() == "70a08231"


def test_abi_edges():
    assert enc.abi_uint(2**256 - 1) == b"\xff" * WORD and enc.abi_uint(0) == b"\0" * WORD
    for bad in (2**256, -1, True, 1.0):
        with pytest.raises(ValueError):
            enc.abi_uint(bad)
    assert enc.abi_string("") == enc.abi_uint(32) + enc.abi_uint(0)
    assert len(enc.abi_string("x" * 33)) == 4 * WORD  # 33 bytes take two words
    assert enc.abi_string("é")[2 * WORD : 2 * WORD + 2] == "é".encode()
    holder = "0x" + "ab" * 20
    word = b"\0" * 12 + bytes.fromhex("ab" * 20)
    assert enc.abi_address(word) == holder
    assert enc.abi_address(word + b"\x01" * 7) == holder  # trailing data is not read
    for bad in (word[:31], b"\x01" + word[1:], b""):
        with pytest.raises(ValueError, match="not an ABI-encoded address"):
            enc.abi_address(bad)


def test_abi_agrees_with_eth_abi():
    eth_abi = pytest.importorskip("eth_abi")
    rng = random.Random(4)
    for _ in range(200):
        value = rng.getrandbits(rng.choice([8, 64, 256]))
        assert enc.abi_uint(value) == eth_abi.encode(["uint256"], [value])
        text = "".join(rng.choice("ab é€\U0001f600") for _ in range(rng.randrange(70)))
        assert enc.abi_string(text) == eth_abi.encode(["string"], [text])
        address = "0x" + bytes(rng.getrandbits(8) for _ in range(20)).hex()
        encoded = eth_abi.encode(["address"], [address])
        assert enc.abi_address(encoded) == eth_abi.decode(["address"], encoded)[0]


TON_VECTORS = [  # raw, bounceable, non-bounceable (None where the source gives no such form)
    (
        "0:ca6e321c7cce9ecedf0a8ca2492ec8592494aa5fb5ce0387dff96ef6af982a3e",
        "EQDKbjIcfM6ezt8KjKJJLshZJJSqX7XOA4ff-W72r5gqPrHF",
        None,
    ),
    (
        "0:ba60bfbd527c0cd2d70c6396630c50a498af015b987adaad1d4a9e287f604536",
        "EQC6YL-9UnwM0tcMY5ZjDFCkmK8BW5h62q0dSp4of2BFNvnA",
        "UQC6YL-9UnwM0tcMY5ZjDFCkmK8BW5h62q0dSp4of2BFNqQF",
    ),
]


@pytest.mark.parametrize(("raw", "bounceable", "non_bounceable"), TON_VECTORS)
def test_ton_forms_match_published_addresses(raw, bounceable, non_bounceable):
    for given in filter(None, (raw, raw.upper().replace("0X", "0x"), bounceable, non_bounceable)):
        forms = enc.ton_address_variants(given)
        assert forms["raw"] == raw and forms["bounceable"] == bounceable
        if non_bounceable:
            assert forms["non_bounceable"] == non_bounceable
    standard = bounceable.replace("-", "+").replace("_", "/")  # the base64 (not url) form
    assert enc.parse_ton_address(standard).raw == raw
    assert enc.parse_ton_address(raw).friendly(url_safe=False) == standard
    assert enc.parse_ton_address(bounceable).bounceable is True
    if non_bounceable:
        assert enc.parse_ton_address(non_bounceable).bounceable is False


def test_ton_refuses_what_tep2_refuses():
    good = "EQDKbjIcfM6ezt8KjKJJLshZJJSqX7XOA4ff-W72r5gqPrHF"
    data = base64.urlsafe_b64decode(good)

    def text(body: bytes, crc: bool = True) -> str:
        if crc:
            body = body[:34] + binascii.crc_hqx(body[:34], 0).to_bytes(2, "big")
        return base64.urlsafe_b64encode(body).decode()

    for bad in (
        good[:-1] + "G",  # checksum
        text(b"\x22" + data[1:]),  # an unknown tag
        "1:" + "ab" * 32,  # a raw workchain that does not exist
        "0:" + "ab" * 31,  # short
        " " + good,
        good + "=",
    ):
        with pytest.raises(ValueError, match="is not a TON address"):
            enc.ton_address_variants(bad)
    with pytest.raises(ValueError, match="is in workchain 1; TON has workchains 0 and -1 only"):
        enc.ton_address_variants(text(data[:1] + b"\x01" + data[2:]))
    test_only = enc.parse_ton_address(text(bytes([data[0] | 0x80]) + data[1:]))
    assert test_only.test_only and test_only.bounceable and test_only.raw.startswith("0:ca6e")
    masterchain = enc.ton_address_variants("-1:" + "33" * 32)
    assert masterchain["bounceable"] == "Ef8zMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzM0vF"


def test_ton_agrees_with_pytoniq():
    pytoniq = pytest.importorskip("pytoniq_core")
    rng = random.Random(7)
    for _ in range(200):
        raw = f"{rng.choice([0, -1])}:{rng.getrandbits(256):064x}"
        theirs = pytoniq.Address(raw)
        ours = enc.parse_ton_address(raw)
        for bounceable in (True, False):
            for url_safe in (True, False):
                expected = theirs.to_str(True, is_url_safe=url_safe, is_bounceable=bounceable)
                assert ours.friendly(bounceable=bounceable, url_safe=url_safe) == expected
                assert enc.parse_ton_address(expected).raw == theirs.to_str(False)
