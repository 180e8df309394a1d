"""One call, one key: every spelling the catalog accepts for one value (an EVM address
checksummed, in lower or upper case; a block or a quantity as an int or as hex in either case,
with or without leading zeros where the kind takes them; TRON's hex and base58; TON's raw and
user-friendly forms) gives the call one key, whether the key is made from the bound call (the
response cache, a dataset's planned calls) or from the params on the wire (a tape, a dataset's
rows read back)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolkit.catalog import encoding as enc
from toolkit.catalog import key_json, lookup
from toolkit.client._cache_policy import key_text
from toolkit.client._identity import call_key

BLOCKS = st.integers(min_value=0, max_value=2**63 - 1)


def block_spellings(number: int) -> list[object]:
    return [number, hex(number), f"0x{number:X}"]


def evm_spellings(account: bytes) -> list[str]:
    lower = "0x" + account.hex()
    return [lower, enc.to_checksum_address(lower), "0x" + account.hex().upper()]


def one_key(name: str, spellings: list[tuple[tuple, dict]]) -> str:
    """The key every spelling of a call gets, made each way a key is made."""
    method = lookup(name)
    keys = set()
    for args, kwargs in spellings:
        bound = method.bind(*args, **kwargs)
        keys.add(("bound", bound.key_json))
        keys.add(("wire", key_json(name, bound.wire_params)))  # a tape's, a dataset row's
        keys.add(("cache", key_text(call_key(None, "", bound), bound.rpc_method)))
    assert len({text for way, text in keys if way != "cache"}) == 1, keys
    assert len({text for way, text in keys if way == "cache"}) == 1, keys
    return next(text for way, text in keys if way == "bound")


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(account=st.binary(min_size=20, max_size=20), other=st.binary(min_size=20, max_size=20),
       block=BLOCKS, slot=st.integers(min_value=0, max_value=2**256 - 1),
       data=st.binary(max_size=40))  # fmt: skip
def test_evm_calls_written_differently_have_one_key(account, other, block, slot, data):
    addresses, blocks = evm_spellings(account), block_spellings(block)
    for name in ("eth_getBalance", "eth_getCode", "eth_getTransactionCount"):
        key = one_key(name, [((a, b), {}) for a in addresses for b in blocks])
        if other != account:
            assert one_key(name, [(("0x" + other.hex(), block), {})]) != key
    slots = [slot, hex(slot), f"0x{slot:064x}", f"0x{slot:X}"]
    one_key("eth_getStorageAt", [((a, s, b), {}) for a in addresses for s in slots for b in blocks])
    datas = [data, "0x" + data.hex(), "0x" + data.hex().upper()]
    one_key(
        "eth_call",
        [(({"to": a, "data": d}, b), {}) for a in addresses for d in datas for b in blocks],
    )
    one_key(
        "eth_getLogs",
        [
            (({"address": [a, addresses[0]], "fromBlock": b, "toBlock": b},), {})
            for a in addresses
            for b in blocks
        ],
    )


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(account=st.binary(min_size=20, max_size=20), visible=st.booleans())
def test_tron_addresses_in_hex_and_base58_are_one_call(account, visible):
    hex_form = "41" + account.hex()
    spellings = [hex_form, "41" + account.hex().upper(), enc.tron_to_base58(hex_form)]
    one_key("wallet/getaccount", [((), {"address": a, "visible": visible}) for a in spellings])


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(account=st.binary(min_size=32, max_size=32), workchain=st.sampled_from([0, -1]))
def test_ton_addresses_raw_and_user_friendly_are_one_call(account, workchain):
    address = enc.TonAddress(workchain, account)
    spellings = [address.raw, f"{workchain}:{account.hex().upper()}"] + [
        address.friendly(bounceable=bounceable, url_safe=url_safe)
        for bounceable in (True, False)
        for url_safe in (True, False)
    ]
    one_key("api/v2/getTokenData", [((a,), {}) for a in spellings])
    # detectAddress answers which form it was asked about (given_type): each is its own call
    raw, bounceable, non_bounceable = spellings[0], spellings[2], spellings[4]
    detect = lookup("api/v2/detectAddress")
    assert len({detect.bind(a).key_json for a in (raw, bounceable, non_bounceable)}) == 3


def test_a_value_read_back_damaged_is_its_own_key():
    """A dataset row or tape record that is not what the kind sends keys as itself."""
    assert key_json("wallet/getaccount", {"address": "not an address", "visible": False}) == (
        '{"address":"not an address","visible":false}'
    )
    assert key_json("eth_getBalance", [5, {"x": 1}]) == '[5,{"x":1}]'
    assert key_json("no_such_method", [1, "0xAB"]) == '[1,"0xAB"]'
