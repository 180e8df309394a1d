"""One call key: a call written differently (an address checksummed or in lower case, a block
as an int or in hex, the node's URL with or without a trailing slash, another key or port) is
one call to the response cache, a dataset's resume and a tape; two gateways never share one."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolkit.catalog import encoding as enc
from toolkit.catalog import lookup
from toolkit.client import CallKey, ResponseCache, canonical_params
from toolkit.client._identity import call_key, gateway_identity

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
