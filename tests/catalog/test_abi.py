"""The toolkit's ABI codec against eth-abi (the oracle), and its refusals."""

from __future__ import annotations

import eth_abi
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.catalog import abi
from toolkit.catalog.encoding import to_checksum_address

# --- random types and values ---------------------------------------------------------------------

_INT_BITS = st.sampled_from([8, 16, 24, 64, 128, 160, 256])


def _elementary() -> st.SearchStrategy[str]:
    return st.one_of(
        _INT_BITS.map(lambda bits: f"uint{bits}"),
        _INT_BITS.map(lambda bits: f"int{bits}"),
        st.sampled_from(["address", "bool", "string", "bytes"]),
        st.integers(1, 32).map(lambda size: f"bytes{size}"),
    )


_TYPES = st.recursive(
    _elementary(),
    lambda inner: st.tuples(inner, st.sampled_from(["[]", "[1]", "[2]", "[3]"])).map("".join),
    max_leaves=3,
)


def _values(type_text: str) -> st.SearchStrategy:
    parsed = abi.parse_type(type_text)
    if parsed.dims:
        size = parsed.dims[-1]
        inner = _values(str(parsed.element))
        return st.lists(inner, min_size=size or 0, max_size=size or 3)
    base = parsed.base
    if base.startswith("uint"):
        return st.integers(0, 2 ** int(base[4:]) - 1)
    if base.startswith("int"):
        bits = int(base[3:])
        return st.integers(-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
    if base == "address":
        return st.binary(min_size=20, max_size=20).map(
            lambda b: to_checksum_address("0x" + b.hex())
        )
    if base == "bool":
        return st.booleans()
    if base == "string":
        return st.text(max_size=40)
    if base == "bytes":
        return st.binary(max_size=70)
    return st.binary(min_size=int(base[5:]), max_size=int(base[5:]))


@st.composite
def _types_and_values(draw) -> tuple[list[str], list]:
    types = draw(st.lists(_TYPES, min_size=1, max_size=4))
    return types, [draw(_values(t)) for t in types]


def _normal(value):
    """eth-abi's decoded values as the toolkit gives them: checksummed addresses."""
    if isinstance(value, tuple | list):
        return tuple(_normal(v) for v in value)
    if isinstance(value, str) and len(value) == 42 and value.startswith("0x"):
        return to_checksum_address(value)
    return value


@settings(max_examples=150, deadline=None)
@given(_types_and_values())
def test_encoding_and_decoding_match_eth_abi(case):
    types, values = case
    parsed = [abi.parse_type(t) for t in types]
    encoded = abi.encode(parsed, values)
    assert encoded == eth_abi.encode(types, values)
    assert abi.decode(parsed, encoded) == _normal(eth_abi.decode(types, encoded))


@settings(max_examples=100, deadline=None)
@given(_types_and_values(), st.data())
def test_damaged_data_is_refused_or_decoded_as_eth_abi_does(case, data):
    """Cut or flipped bytes: the codec either refuses with ValueError or agrees with eth-abi
    (never another exception, never a different value)."""
    types, values = case
    parsed = [abi.parse_type(t) for t in types]
    encoded = bytearray(abi.encode(parsed, values))
    if data.draw(st.booleans()) and encoded:
        encoded = encoded[: data.draw(st.integers(0, len(encoded) - 1))]
    elif encoded:
        index = data.draw(st.integers(0, len(encoded) - 1))
        encoded[index] ^= data.draw(st.integers(1, 255))
    try:
        mine = abi.decode(parsed, bytes(encoded))
    except ValueError:
        return
    try:
        theirs = eth_abi.decode(types, bytes(encoded), strict=False)
    except Exception:  # eth-abi is stricter on dynamic padding; both refusing is not required
        return
    assert mine == _normal(theirs)


def test_a_huge_length_in_hostile_data_is_refused_without_allocating():
    parsed = [abi.parse_type("uint256[]")]
    hostile = (32).to_bytes(32, "big") + (2**200).to_bytes(32, "big")
    with pytest.raises(ValueError, match="do not fit"):
        abi.decode(parsed, hostile)


# --- signatures -----------------------------------------------------------------------------


def test_a_function_signature_gives_the_selector_and_call_data_real_clients_send():
    balance_of = abi.function("balanceOf(address)(uint256)")
    holder = "0x" + "11" * 20
    assert balance_of.selector.hex() == "70a08231"
    assert balance_of.encode_call([holder]) == "0x70a08231" + "00" * 12 + "11" * 20
    assert balance_of.decode_output("0x" + (10**30).to_bytes(32, "big").hex()) == 10**30


def test_an_abi_json_fragment_is_the_same_function():
    fragment = {
        "type": "function",
        "name": "getReserves",
        "inputs": [],
        "outputs": [
            {"name": "reserve0", "type": "uint112"},
            {"name": "reserve1", "type": "uint112"},
            {"name": "blockTimestampLast", "type": "uint32"},
        ],
    }
    from_json = abi.function(fragment)
    from_text = abi.function("getReserves()(uint112,uint112,uint32)")
    assert from_json.selector == from_text.selector == bytes.fromhex("0902f1ac")
    data = "0x" + eth_abi.encode(["uint112", "uint112", "uint32"], [5, 6, 7]).hex()
    assert from_json.decode_output(data) == (5, 6, 7)
    assert from_json.output_names == ("reserve0", "reserve1", "blockTimestampLast")
    assert abi.function(__import__("json").dumps(fragment)).selector == from_json.selector


@pytest.mark.parametrize(
    ("signature", "says"),
    [
        ("balanceOf", "not a signature"),
        ("balanceOf(address", "do not close"),
        ("balanceOf(adress)(uint256)", "not an ABI type"),
        ("f(uint7)", "8 to 256 bits"),
        ("f(bytes33)", "bytes1 to bytes32"),
        ("f((uint256,address))", "tuple types are not supported"),
        ("f(uint256) uint256", "in parentheses"),
        ("f(address indexed a)", "only an event"),
        ({"type": "event", "name": "X", "inputs": []}, "not a function"),
    ],
)
def test_a_bad_signature_says_what_is_wrong(signature, says):
    with pytest.raises(ValueError, match=says):
        abi.function(signature)


def test_wrong_argument_count_and_type_are_refused_naming_the_argument():
    transfer = abi.function("transfer(address,uint256)(bool)")
    with pytest.raises(ValueError, match="takes 2 arguments, got 1"):
        transfer.encode_call(["0x" + "11" * 20])
    with pytest.raises(ValueError, match=r"argument 1 \(uint256\).*-1 is outside"):
        transfer.encode_call(["0x" + "11" * 20, -1])
    with pytest.raises(ValueError, match=r"argument 0 \(address\)"):
        transfer.encode_call(["0x1234", 1])


def test_an_event_signature_gives_topic0_and_decodes_topics_and_data():
    transfer = abi.event("Transfer(address indexed from,address indexed to,uint256 value)")
    # topic0 of ERC-20 Transfer, as every explorer shows it
    assert transfer.topic0 == "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
    sender, receiver = "0x" + "ab" * 20, "0x" + "cd" * 20
    topics = [transfer.topic0, "0x" + "00" * 12 + "ab" * 20, "0x" + "00" * 12 + "cd" * 20]
    decoded = transfer.decode_log(topics, "0x" + (7).to_bytes(32, "big").hex())
    assert decoded == {
        "from": to_checksum_address(sender),
        "to": to_checksum_address(receiver),
        "value": 7,
    }
    with pytest.raises(ValueError, match="2 indexed arguments; the log has 2 topics"):
        transfer.decode_log(topics[:2], "0x")
    with pytest.raises(ValueError, match="at most 3 indexed"):
        abi.event("E(uint8 indexed a,uint8 indexed b,uint8 indexed c,uint8 indexed d)")
