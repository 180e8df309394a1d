"""Keys never show: URLs are redacted to scheme and host, registered secrets are scrubbed."""

import pytest

import toolkit
from toolkit._redact import redact_url, register_url, scrub

MARKER = "MARKERKEY0123456789abcdef"


def test_redact_url_keeps_only_scheme_and_host():
    assert redact_url(f"https://nd-1.example.com/{MARKER}") == "https://nd-1.example.com/***"
    assert redact_url(f"http://127.0.0.1:8545/{MARKER}/evm") == "http://127.0.0.1:8545/***"
    assert redact_url("https://host.example.com") == "https://host.example.com"
    assert redact_url(f"https://user:{MARKER}@h.example.com/x") == "https://h.example.com/***"


def test_scrub_removes_registered_url_and_key():
    url = f"https://nd-2.example.com/{MARKER}"
    register_url(url)
    text = scrub(f"POST {url}/wallet/x failed; key {MARKER}")
    assert MARKER not in text
    assert "***" in text


def test_node_repr_and_errors_hide_the_key():
    url = f"https://ethereum-mainnet.example.com/{MARKER}"
    eth = toolkit.node(url)
    assert MARKER not in repr(eth) and MARKER not in eth.name
    with pytest.raises(toolkit.ValidationError) as caught:
        eth.get_balance("0x" + "11" * 20, block="12")
    assert MARKER not in str(caught.value) and MARKER not in repr(caught.value)


def test_error_text_is_scrubbed_whatever_the_caller_put_in():
    register_url(f"https://x.example.com/{MARKER}")
    error = toolkit.GatewayError(f"boom {MARKER}", node=f"https://x.example.com/{MARKER}")
    assert MARKER not in str(error) and MARKER not in repr(error) and MARKER not in error.node


def test_log_lines_never_carry_a_key(caplog):
    import logging

    from toolkit.sandbox import Sandbox

    with Sandbox(seed=5, head_pace=0) as sandbox:
        info = sandbox.info
        gw = toolkit.Gateway(info["platform_url"], info["api_key"], nodes=info["nodes"])
        with caplog.at_level(logging.DEBUG):
            gw.node("tron-mainnet").get_block_by_latest_num(1)
            gw.node("ethereum-mainnet").block_number()
            gw.nodes()
        keys = [url.rsplit("/", 1)[-1] for url in info["nodes"].values()] + [info["api_key"]]
    assert "HTTP Request: POST" in caplog.text  # httpx did log the requests
    assert not [key for key in keys if key in caplog.text]


def test_credential_fields_are_secrets_that_still_work():
    from toolkit._redact import Secret, hide_credentials

    password = "pw-" + MARKER
    page = {"results": [{"name": "n", "details": {"auth_password": password, "mode": "archive"}}]}
    hidden = hide_credentials(page)
    value = hidden["results"][0]["details"]["auth_password"]
    assert isinstance(value, Secret) and value == password and f"{value}" == password
    assert password not in repr(hidden) and password not in str(hidden)
    assert hidden["results"][0]["details"]["mode"] == "archive"  # other fields untouched
    assert password not in scrub(f"login failed with {password}")


def test_labels_keep_the_host_and_the_node_name(sandbox):
    """The platform's URL (same host, no path) is no secret: a node's label keeps its host and
    hides only the key, and named nodes keep their names (they read ``***/***`` before)."""
    info = sandbox.info
    gw = toolkit.Gateway(info["platform_url"], info["api_key"], nodes=info["nodes"])
    url = info["nodes"]["ethereum-mainnet"]
    origin = url.rsplit("/", 1)[0]
    bare = toolkit.node(url, chain="ethereum", cache=False)
    for client, label in (
        (bare, f"{origin}/***"),
        (gw.node("ethereum-mainnet"), "ethereum-mainnet"),
    ):
        with pytest.raises(toolkit.RPCError) as caught:
            client.call_raw("no_such_method", [])
        assert caught.value.node == label
        assert str(caught.value).endswith(f"[method no_such_method, {label}]")
    assert scrub(f"POST {url}") == f"POST {origin}/***"
    assert scrub(info["platform_url"]) == info["platform_url"]
    gw.close()
    bare.close()


def test_a_url_without_a_path_registers_nothing():
    register_url("https://plain-host.example.com:8545")
    register_url("https://plain-host.example.com:8545/")
    assert scrub("https://plain-host.example.com:8545") == "https://plain-host.example.com:8545"


def test_query_and_password_of_a_url_are_secret():
    register_url("https://user:Passw0rd-secret@q.example.com/?apikey=QueryKey0123456789")
    text = scrub("GET https://q.example.com/?apikey=QueryKey0123456789 as Passw0rd-secret")
    assert "QueryKey0123456789" not in text and "Passw0rd-secret" not in text
