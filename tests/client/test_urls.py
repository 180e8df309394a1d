"""Node and platform URLs: a key never leaves in clear.

The sandbox is served on this machine's own non-loopback address, so a plain-HTTP URL to it is
a real public-looking target that would answer: its meter proves that a refused URL sent nothing.
"""

import json
import socket
import warnings

import pytest

import toolkit
from toolkit.client._urls import carries_key, check_key_in_clear
from toolkit.sandbox import Sandbox

from ..conftest import FAST_RETRY


def _own_address() -> str | None:
    """This machine's address on its default route (no packet is sent for a UDP connect)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("198.51.100.1", 9))  # TEST-NET-2: routed, never reached
        except OSError:
            return None
        address = probe.getsockname()[0]
    return None if address.startswith("127.") or address == "0.0.0.0" else address


@pytest.fixture(scope="module")
def remote_sandbox():
    address = _own_address()
    if address is None:
        pytest.skip("this machine has no non-loopback address to serve on")
    with Sandbox(seed=0, host=address, head_pace=0, allow_remote=True) as running:
        yield running


@pytest.fixture
def remote(remote_sandbox):
    remote_sandbox.reset_metering()
    return remote_sandbox


def _requests(sandbox) -> int:
    return sum(usage["requests"] for usage in sandbox.metering().values())


def _node_key(sandbox, name="ethereum-mainnet") -> str:
    return sandbox.info["nodes"][name].rsplit("/", 1)[1]


def test_a_node_url_with_its_key_over_plain_http_to_a_public_host_is_refused(remote):
    url = remote.info["nodes"]["ethereum-mainnet"]
    with pytest.raises(toolkit.ValidationError, match="HTTPS") as caught:
        toolkit.node(url, chain="ethereum", cache=False)
    assert (caught.value.param, caught.value.rule) == ("url", "https")
    assert _node_key(remote) not in str(caught.value)
    assert _requests(remote) == 0


def test_the_platform_api_over_plain_http_to_a_public_host_is_refused(remote):
    info = remote.info
    with pytest.raises(toolkit.ValidationError, match="HTTPS") as caught:
        toolkit.connect(info["platform_url"], info["api_key"], cache=False)
    assert (caught.value.param, caught.value.rule) == ("platform_url", "https")
    assert _requests(remote) == 0


def test_connect_refuses_a_plain_http_node_url_it_is_given(remote):
    with pytest.raises(toolkit.ValidationError) as caught:
        toolkit.connect(
            "https://api.gateway.example",
            "k" * 32,
            nodes={"eth": remote.info["nodes"]["ethereum-mainnet"]},
            cache=False,
        )
    assert (caught.value.param, caught.value.rule) == ("url", "https")
    assert "nodes['eth']" in str(caught.value)
    assert _requests(remote) == 0


def test_an_environment_node_url_over_plain_http_is_refused_naming_the_variable(
    remote, monkeypatch
):
    monkeypatch.setenv(
        "NODE_GATEWAY_NODE_ETHEREUM_MAINNET", remote.info["nodes"]["ethereum-mainnet"]
    )
    gateway = toolkit.connect("https://api.gateway.example", "k" * 32, cache=False)
    with pytest.raises(toolkit.ValidationError) as caught:
        gateway.node("ethereum-mainnet")
    assert caught.value.rule == "https"
    assert "NODE_GATEWAY_NODE_ETHEREUM_MAINNET" in str(caught.value)
    assert _node_key(remote) not in str(caught.value)
    assert _requests(remote) == 0


def test_a_platform_record_with_a_plain_http_endpoint_does_not_get_the_key(
    remote, loopback_server, monkeypatch
):
    public_base = remote.platform_url  # a node record without its key, as the real API gives
    record = {
        "id": "ND-1",
        "name": "ethereum-mainnet",
        "status": "running",
        "protocol": "ethereum",
        "details": {"https_endpoint": public_base},
    }
    page = {"count": 1, "next": None, "previous": None, "results": [record]}
    platform = loopback_server(lambda request: (200, {}, json.dumps(page).encode()))
    monkeypatch.setenv("NODE_GATEWAY_KEY_ETHEREUM_MAINNET", _node_key(remote))
    gateway = toolkit.connect(platform.url, "k" * 32, cache=False, retry=FAST_RETRY)
    with pytest.raises(toolkit.ValidationError) as caught:
        gateway.node("ethereum-mainnet")
    assert caught.value.rule == "https"
    assert "platform's record of node 'ethereum-mainnet'" in str(caught.value)
    assert _node_key(remote) not in str(caught.value)
    assert [request[0] for request in platform.requests] == ["GET"]  # the listing only
    assert _requests(remote) == 0


def test_allow_insecure_http_sends_over_plain_http_with_a_warning(remote):
    info = remote.info
    with pytest.warns(UserWarning, match="plain HTTP") as warned:
        gateway = toolkit.connect(
            info["platform_url"],
            info["api_key"],
            nodes=info["nodes"],
            cache=False,
            retry=FAST_RETRY,
            allow_insecure_http=True,
        )
        head = gateway.node("ethereum-mainnet").block_number()
    gateway.close()
    assert isinstance(head, int) and head > 0
    assert remote.metering()["ethereum-mainnet"]["requests"] == 1
    shown = " ".join(str(warning.message) for warning in warned)
    assert info["api_key"] not in shown and _node_key(remote) not in shown
    # one warning for the platform, one for the node: not one per check
    assert len(warned) == 2


def test_allow_insecure_http_must_be_a_bool():
    with pytest.raises(toolkit.ValidationError) as caught:
        toolkit.node("https://h.example/KEY0123456789", chain="ethereum", allow_insecure_http=1)
    assert (caught.value.param, caught.value.rule) == ("allow_insecure_http", "type")


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8545/KEY0123456789",
        "http://127.9.9.9/KEY0123456789",
        "http://localhost:8545/KEY0123456789",
        "http://[::1]:8545/KEY0123456789",
        "https://nd-1.example.com/KEY0123456789",
        "http://10.0.0.5:8545",  # no path, no query: nothing that could be a key
        "http://10.0.0.5:8545/",
        "http://rpc.example.com/?network=ethereum",  # an ordinary word is no key
    ],
)
def test_urls_that_send_no_key_in_clear_pass_without_a_warning(url):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_key_in_clear(url)


@pytest.mark.parametrize(
    "url",
    [
        "http://nd-1.example.com/KEY0123456789",
        "http://10.0.0.5:8545/rpc",  # the whole path is treated as secret
        "http://lb.example.com/?network=ethereum&dkey=abc",  # dRPC's key parameter
        "http://lb.example.com/?apikey=abc",
        "http://lb.example.com/?id=3c6e0b8a9c15224a8228b9a98ca1531d",  # key material, any name
        "http://user:password@rpc.example.com",
        "http://localhost.example.com/KEY0123456789",  # only "localhost" itself is loopback
    ],
)
def test_urls_that_would_send_a_key_in_clear_are_refused(url):
    assert carries_key(url)
    with pytest.raises(toolkit.ValidationError) as caught:
        check_key_in_clear(url)
    assert caught.value.rule == "https"


# --- URLs stripped or refused -------------------------------------------------------------------


@pytest.mark.parametrize("tail", ["\n", " ", "\r\n", "\t "])
def test_an_environment_node_url_with_trailing_whitespace_is_stripped(sandbox, monkeypatch, tail):
    sandbox.reset_metering()
    info = sandbox.info
    monkeypatch.setenv(
        "NODE_GATEWAY_NODE_ETHEREUM_MAINNET", info["nodes"]["ethereum-mainnet"] + tail
    )
    gateway = toolkit.Gateway(info["platform_url"], info["api_key"], sandbox=sandbox, cache=False)
    assert gateway.node("ethereum-mainnet").block_number() > 0
    gateway.close()
    # the sandbox knows the node by its key: a key sent with the space would not have reached it
    assert sandbox.metering()["ethereum-mainnet"]["requests"] == 1


def test_environment_platform_url_and_api_key_with_a_newline_are_stripped(sandbox, monkeypatch):
    info = sandbox.info
    monkeypatch.setenv("NODE_GATEWAY_PLATFORM_URL", " " + info["platform_url"] + "\n")
    monkeypatch.setenv("NODE_GATEWAY_API_KEY", info["api_key"] + "\n")
    gateway = toolkit.connect(cache=False)
    names = [record["name"] for record in gateway.nodes()]
    gateway.close()
    assert "ethereum-mainnet" in names


def test_a_node_url_passed_with_surrounding_whitespace_is_stripped(sandbox):
    sandbox.reset_metering()
    url = "  " + sandbox.info["nodes"]["ethereum-mainnet"] + "\n"
    client = toolkit.node(url, chain="ethereum", cache=False)
    assert client.block_number() > 0
    client.close()
    assert sandbox.metering()["ethereum-mainnet"]["requests"] == 1


@pytest.mark.parametrize(
    "url",
    [
        "https://nd-1.example.com/KEY 0123456789",
        "https://nd-1.example.com/KEY\n0123456789",
        "https://nd-1.example.com/KEY\x000123456789",
        "https://nd-1.example.com/KEY\u200b0123456789",  # a zero-width space
    ],
)
def test_whitespace_or_a_control_character_inside_a_url_is_refused_clearly(url):
    with pytest.raises(
        toolkit.ValidationError, match="whitespace or a control character"
    ) as caught:
        toolkit.node(url, chain="ethereum", cache=False)
    assert (caught.value.param, caught.value.rule) == ("url", "url")
    assert "0123456789" not in str(caught.value)


@pytest.mark.parametrize(
    "key",
    [
        "0123456789abcdef\n0123456789",  # pasted across two lines
        "0123456789abcdef\x000123456789",
        "0123456789abcdef\u200b0123456789",  # a zero-width space, pasted from a web page
        "0123456789abcdéf0123456789",
    ],
)
@pytest.mark.parametrize("flavour", ["sync", "async"])
def test_an_api_key_with_a_character_no_header_can_carry_is_refused_clearly(
    loopback_server, key, flavour
):
    """httpx and aiohttp refuse such a header each in its own way (a bare ValueError or
    UnicodeEncodeError; a TransportError quoting the header, key and all): refused before."""
    import asyncio

    server = loopback_server(lambda request: (200, {}, b'{"results": [], "next": null}'))
    with pytest.raises(toolkit.ValidationError, match="api_key: has") as caught:
        platform = toolkit.client.platform(server.url, key)
        if flavour == "sync":
            platform.list_nodes()
        else:
            asyncio.run(platform.aio.list_nodes())
    assert (caught.value.param, caught.value.rule) == ("api_key", "key")
    assert "0123456789" not in str(caught.value) and not server.requests


def test_an_environment_url_with_whitespace_inside_names_the_variable(monkeypatch):
    monkeypatch.setenv("NODE_GATEWAY_NODE_ETHEREUM_MAINNET", "https://nd-1.example.com/K EY0123")
    gateway = toolkit.connect("https://api.gateway.example", "k" * 32, cache=False)
    with pytest.raises(toolkit.ValidationError) as caught:
        gateway.node("ethereum-mainnet")
    assert caught.value.rule == "url"
    assert "NODE_GATEWAY_NODE_ETHEREUM_MAINNET" in str(caught.value)


@pytest.mark.parametrize("url", ["nd-1.example.com/KEY0123456789", "localhost:8545/KEY0123456789"])
def test_a_node_url_without_a_scheme_says_so(url):
    with pytest.raises(toolkit.ValidationError, match="has no scheme") as caught:
        toolkit.node(url, chain="ethereum", cache=False)
    assert (caught.value.param, caught.value.rule) == ("url", "scheme")
    assert "KEY0123456789" not in str(caught.value)


def test_a_platform_url_without_a_scheme_says_so():
    with pytest.raises(toolkit.ValidationError, match="has no scheme") as caught:
        toolkit.connect("api.gateway.example", "k" * 32, cache=False)
    assert (caught.value.param, caught.value.rule) == ("platform_url", "scheme")
    assert "got ://" not in str(caught.value)


@pytest.mark.parametrize("url", ["ftp://nd-1.example.com/KEY", "wss://nd-1.example.com/KEY"])
def test_a_url_of_another_scheme_is_refused_naming_it(url):
    with pytest.raises(toolkit.ValidationError, match="http:// or https://") as caught:
        toolkit.node(url, chain="ethereum", cache=False)
    assert caught.value.rule == "scheme"


# --- a scheme or a host in capitals ---------------------------------------------------------------
# RFC 3986 makes both case-insensitive (3.1, 3.2.2): ``HTTPS://`` is ``https://``.


def test_a_record_endpoint_with_its_scheme_in_capitals_is_seen_as_carrying_a_key(loopback_server):
    key = "3c6e0b8a9c15224a8228b9a98ca1531d"  # the v1 record's auth_key (real_bodies)
    record = {
        "id": "ND-123-456-789",
        "name": "My Ethereum node",
        "status": "running",
        "protocol": "ethereum",
        "details": {
            "https_endpoint": f"HTTPS://nd-123-456-789.p2pify.com/{key}",
            "wss_endpoint": f"WSS://ws-nd-123-456-789.p2pify.com/{key}",
        },
    }
    page = {"count": 1, "next": None, "previous": None, "results": [record]}
    platform = loopback_server(lambda request: (200, {}, json.dumps(page).encode()))
    gateway = toolkit.connect(platform.url, "k" * 32, cache=False, retry=FAST_RETRY)
    listed = gateway.nodes()
    assert key not in repr(listed) and key not in str(listed)
    assert listed[0]["details"]["https_endpoint"].endswith(key)  # still usable
    assert key not in str(toolkit.frames.platform_nodes(listed))


@pytest.mark.parametrize(
    "url", ["HTTP://nd-1.example.com/KEY0123456789", "Http://lb.example.com/?dkey=abc"]
)
def test_a_plain_http_scheme_in_capitals_is_refused_as_plain_http(url):
    with pytest.raises(toolkit.ValidationError) as caught:
        toolkit.node(url, chain="ethereum", cache=False)
    assert (caught.value.param, caught.value.rule) == ("url", "https")


def test_localhost_in_capitals_is_loopback():
    from toolkit.catalog.encoding import is_loopback_host

    assert is_loopback_host("LOCALHOST") and is_loopback_host("LocalHost")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_key_in_clear("HTTP://LOCALHOST:8545/KEY0123456789")
    Sandbox(host="LOCALHOST")  # not refused as a remote host; not started
