"""One call key: a call written differently (an address checksummed or in lower case, a block
as an int or in hex, the node's URL with or without a trailing slash, another key or port) is
one call to the response cache, a dataset's resume and a tape; two gateways never share one.
The tape's key is read off the request the toolkit sends for the call (what a tape sees), and
is the very key the cache reads off the bound call."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolkit.catalog import chain_for, lookup
from toolkit.catalog import encoding as enc
from toolkit.client import CallKey, ResponseCache, canonical_params
from toolkit.client._http import Delivery, Send
from toolkit.client._identity import call_key, gateway_identity
from toolkit.client._protocol import request_for
from toolkit.client._tape import Tape, TapeNode
from toolkit.client._transport import Endpoint

ADDRESSES = st.binary(min_size=20, max_size=20).map(lambda raw: "0x" + raw.hex())
BLOCKS = st.integers(min_value=0, max_value=2**63 - 1)
HOSTS = st.from_regex(r"[a-z][a-z0-9-]{0,20}(\.[a-z][a-z0-9-]{0,10}){1,2}", fullmatch=True)
KEYS = st.from_regex(r"key_[A-Za-z0-9]{8,24}", fullmatch=True)  # never in a hex digest
PORTS = st.integers(min_value=1, max_value=65535)


def spellings(address: str, block: int) -> list[tuple[str, object]]:
    checksummed = enc.to_checksum_address(address)
    return [
        (address, block),
        (checksummed, hex(block)),
        (address.upper().replace("0X", "0x"), block),
    ]


def url(host: str, key: str, port: int | None = None, slash: bool = False) -> str:
    return f"https://{host}{'' if port is None else f':{port}'}/{key}" + ("/" if slash else "")


@pytest.fixture(scope="module")
def recording(tmp_path_factory):
    """A tape recording (never written: no answer reaches it), to read requests' keys off."""
    return Tape(tmp_path_factory.mktemp("tape") / "keys.tape.gz", "record")


def tape_key(tape: Tape, where: str, node: str, chain: str, bound) -> CallKey:
    """The key `tape` gives the request the toolkit sends for `bound` to the node at `where`."""
    request, _ = request_for(bound, Endpoint(where), chain_for(chain), {})
    transport = tape.transport(
        None, TapeNode(node, chain, where, lambda: None, lambda: datetime.now(UTC))
    )
    (call,), _ = transport._calls(Send(request, 0.0, Delivery()))
    return call.key


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(address=ADDRESSES, block=BLOCKS, host=HOSTS, key=KEYS, other_key=KEYS, port=PORTS)
def test_equal_calls_written_differently_have_one_key(address, block, host, key, other_key, port):
    method = lookup("eth_getBalance")
    urls = [url(host, key), url(host, other_key, port, slash=True), url(host.upper(), key)]
    keys = {
        call_key(gateway_identity(where, "ethereum"), "eth", method.bind(*spelt))
        for where in urls
        for spelt in spellings(address, block)
    }
    assert len(keys) == 1, keys
    (one,) = keys
    assert isinstance(one, CallKey) and key not in repr(one) and other_key not in repr(one)
    # A dataset row's params text and a tape's wire params are made canonical by the same
    # function: they land on the same key.
    for spelt in spellings(address, block):
        wire = method.bind(*spelt).wire_params
        assert canonical_params("eth_getBalance", wire) == one.params


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(address=ADDRESSES, block=BLOCKS, host=HOSTS, key=KEYS, other_key=KEYS, port=PORTS)
def test_a_tape_keys_a_call_as_the_cache_and_a_dataset_do(
    recording, address, block, host, key, other_key, port
):
    """Every spelling of the call, to the node's URL with another key, a port or a trailing
    slash: the tape's key for the request sent is the cache's key for the call, one for all;
    and a dataset row's params (the wire's, made canonical) are that key's params."""
    method = lookup("eth_getBalance")
    keys = set()
    for where in (url(host, key), url(host, other_key, port, slash=True), url(host.upper(), key)):
        gateway = gateway_identity(where, "ethereum")
        recording._nodes.pop("eth", None)  # the node as recorded at `where` (see `gateway_of`)
        for spelt in spellings(address, block):
            bound = method.bind(*spelt)
            on_tape = tape_key(recording, where, "eth", "ethereum", bound)
            assert on_tape == call_key(gateway, "eth", bound)
            assert canonical_params(bound.method.name, bound.wire_params) == on_tape.params
            keys.add(on_tape)
    assert len(keys) == 1, keys


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    address=ADDRESSES,
    block=BLOCKS,
    hosts=st.lists(HOSTS, min_size=2, max_size=2, unique_by=str.lower),
)
def test_two_gateways_never_share_a_key(address, block, hosts):
    bound = lookup("eth_getBalance").bind(address, block)
    first, second = (
        call_key(gateway_identity(url(h, "k"), "ethereum"), "eth", bound) for h in hosts
    )
    assert first != second
    chains = {
        call_key(gateway_identity(url(hosts[0], "k"), c), "eth", bound)
        for c in ("ethereum", "polygon")
    }
    assert len(chains) == 2  # one host serving two chains is two gateways


def test_the_cache_file_keys_by_the_call_key(tmp_path):
    """The cache's digest: one for every spelling through one gateway, another through another
    gateway; what the file stores names no host."""
    cache = ResponseCache(tmp_path / "c.sqlite")
    method = lookup("eth_getBalance")
    address = "0x" + "ab" * 20
    digests = {
        cache.digest(call_key(gateway_identity(where, "ethereum"), "eth", bound), bound.rpc_method)
        for where in (url("gw.example.com", "KEY1"), url("gw.example.com", "KEY2", 8443, True))
        for bound in (
            method.bind(address, 100),
            method.bind(enc.to_checksum_address(address), "0x64"),
        )
    }
    assert len(digests) == 1
    elsewhere = call_key(
        gateway_identity(url("other.example.com", "KEY1"), "ethereum"),
        "eth",
        method.bind(address, 100),
    )
    assert cache.digest(elsewhere, "eth_getBalance") not in digests
    cache.close()


TON_FRIENDLY = "EQDlLlW8lbYp2s1_XXP5gmZuRdO7wqABKhgZrZ2FMpn51yRV"
TRON_BASE58 = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"


@pytest.mark.parametrize(
    ("chain", "method", "spellings"),
    [
        # A REST body: TRON's base58 address and its hex are one account.
        ("tron", "wallet/getaccount", [(TRON_BASE58,), (enc.tron_to_hex(TRON_BASE58),)]),
        # A REST query (GET): TON's user-friendly and raw forms are one address.
        (
            "ton",
            "api/v2/getTokenData",
            [(TON_FRIENDLY,), (enc.ton_address_variants(TON_FRIENDLY)["raw"],)],
        ),
        # TON's jsonRPC: the inner method travels beside the params, and is in the key.
        ("ton", "api/v2/jsonRPC", [("unpackAddress", {"address": TON_FRIENDLY})]),
    ],
)
def test_a_tape_keys_rest_and_named_json_rpc_calls_as_the_cache_does(
    recording, chain, method, spellings
):
    where = url("gw.example.com", "KEY1", slash=True)
    keys = set()
    for spelt in spellings:
        bound = lookup(method).bind(*spelt)
        on_tape = tape_key(recording, where, chain, chain, bound)
        assert on_tape == call_key(gateway_identity(where, chain), chain, bound)
        keys.add(on_tape)
    assert len(keys) == 1


def test_two_inner_methods_of_tons_json_rpc_with_the_same_params_are_two_calls(recording):
    """The cache, a dataset and a tape tell TON's jsonRPC calls apart by their inner method:
    the key's params hold it (the request carries it beside them, in the envelope)."""
    json_rpc = lookup("api/v2/jsonRPC")
    where = url("gw.example.com", "KEY1")
    gateway = gateway_identity(where, "ton")
    calls = [
        json_rpc.bind(inner, {"address": TON_FRIENDLY})
        for inner in ("unpackAddress", "detectAddress")
    ]
    assert calls[0].wire_params == calls[1].wire_params
    assert call_key(gateway, "ton", calls[0]) != call_key(gateway, "ton", calls[1])
    assert tape_key(recording, where, "ton", "ton", calls[0]) != tape_key(
        recording, where, "ton", "ton", calls[1]
    )
