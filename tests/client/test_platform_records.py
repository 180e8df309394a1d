"""Platform node records of the wrong shape: a `PlatformError` naming the record and the field,
never an `AttributeError`, served by a real platform stand-in on loopback."""

import json

import pytest

import toolkit

KEY = "3c6e0b8a9c15224a8228b9a98ca1531d"
# A key only ever in answers of the wrong shape: the toolkit is never told of it (KEY is
# registered as a secret once a test makes a node from a record).
UNTOLD = "5b7d9f1e3c2a4b6d8f0e1c3a5b7d9f1e"
UNTOLD_DETAILS = {"https_endpoint": f"https://nd-1.example.com/{UNTOLD}"}


def _record(number: int, name: str, **fields):
    record = {
        "id": f"ND-{number}",
        "name": name,
        "status": "running",
        "protocol": "ethereum",
        "network": "mainnet",
        "details": {"https_endpoint": f"https://nd-{number}.example.com/{KEY}"},
    }
    record.update(fields)
    return record


def _platform(loopback_server, *pages):
    """A platform API whose `v2/nodes/` answers `pages` in order, linked by `next`."""

    def answer(request):
        path = request[1]
        number = int(path.partition("page=")[2] or 1)
        page = pages[number - 1]
        server_next = f"{server.url}/v2/nodes/?page={number + 1}" if number < len(pages) else None
        body = {"count": sum(map(len, pages)), "next": server_next, "previous": None}
        return 200, {"Content-Type": "application/json"}, json.dumps({**body, "results": page})

    server = loopback_server(lambda request: _encoded(answer(request)))
    return server


def _encoded(answer):
    status, headers, body = answer
    return status, headers, body.encode()


def _gateway(server):
    return toolkit.connect(server.url, "k" * 32, cache=False)


@pytest.mark.parametrize(
    ("broken", "field", "problem"),
    [
        ({"details": [1, 2]}, "details", "expected an object"),
        ({"details": {"https_endpoint": 42}}, "details.https_endpoint", "expected a URL as text"),
        ({"details": {"wss_endpoint": ["wss://x"]}}, "details.wss_endpoint", "expected a URL"),
        ({"protocol": ["ethereum"]}, "protocol", "expected text"),
        ({"status": {"state": "running"}}, "status", "expected text"),
        ({"id": 3.5}, "id", "expected text"),
        # What the wrong type holds may be a key: an endpoint URL, or credentials in JSON text.
        (
            {"details": {"https_endpoint": [f"https://nd-2.example.com/{UNTOLD}"]}},
            "details.https_endpoint",
            "expected a URL as text",
        ),
        (
            {"details": {"wss_endpoint": {"url": f"wss://nd-2.example.com/{UNTOLD}"}}},
            "details.wss_endpoint",
            "expected a URL",
        ),
        ({"details": json.dumps({"auth_key": UNTOLD})}, "details", "expected an object"),
    ],
)
def test_a_record_of_the_wrong_shape_is_a_platform_error_naming_record_and_field(
    loopback_server, broken, field, problem
):
    server = _platform(loopback_server, [_record(1, "eth-a"), _record(2, "eth-b", **broken)])
    gateway = _gateway(server)
    for attempt in (gateway.nodes, lambda: gateway.node("eth-a")):
        with pytest.raises(toolkit.PlatformError) as caught:
            attempt()
        assert caught.value.field == field
        assert caught.value.record.startswith("node record #2 (name 'eth-b'")
        assert f"{field} " in str(caught.value) and problem in str(caught.value)
        assert KEY not in str(caught.value) and UNTOLD[:8] not in str(caught.value)
    gateway.close()


def test_a_record_that_is_not_an_object_is_named_by_its_place(loopback_server):
    server = _platform(loopback_server, [_record(1, "eth-a"), "ND-2"])
    gateway = _gateway(server)
    with pytest.raises(toolkit.PlatformError) as caught:
        gateway.node("eth-a")
    assert (caught.value.record, caught.value.field) == ("node record #2", "record")
    assert "is str 'ND-2'; expected an object" in str(caught.value)
    gateway.close()


def test_a_bad_record_on_a_later_page_is_named_by_its_place_in_the_listing(loopback_server):
    pages = [[_record(1, "eth-a"), _record(2, "eth-b")], [_record(3, "eth-c", details=[])]]
    server = _platform(loopback_server, *pages)
    gateway = _gateway(server)
    with pytest.raises(toolkit.PlatformError) as caught:
        gateway.nodes()
    assert caught.value.record.startswith("node record #3 (name 'eth-c'")
    assert len(server.requests) == 2  # both pages read, nothing else sent
    gateway.close()


def test_a_protocol_the_toolkit_does_not_serve_is_named_when_the_node_is_asked_for(
    loopback_server,
):
    server = _platform(
        loopback_server, [_record(1, "eth-a"), _record(2, "btc", protocol="bitcoin")]
    )
    gateway = _gateway(server)
    assert [record["protocol"] for record in gateway.nodes()] == ["ethereum", "bitcoin"]
    with pytest.raises(toolkit.PlatformError) as caught:
        gateway.node("btc")
    assert (caught.value.field, caught.value.record) == (
        "protocol",
        "node record #2 (name 'btc', id 'ND-2')",
    )
    assert "'bitcoin', not a chain this toolkit serves" in str(caught.value)
    # the caller can still say which chain the node speaks
    assert gateway.node("btc", chain="ethereum").chain.name == "ethereum"
    gateway.close()


def test_a_well_formed_record_still_gives_its_node(loopback_server):
    no_endpoint = _gateway(
        _platform(loopback_server, [_record(1, "eth-a", details={"https_endpoint": None})])
    )
    with pytest.raises(toolkit.ValidationError, match="has no https_endpoint"):
        no_endpoint.node("eth-a")
    unread_fields = _gateway(
        _platform(loopback_server, [_record(1, "eth-a", details=None, wss_endpoint=7)])
    )
    assert unread_fields.nodes()[0]["name"] == "eth-a"  # fields it does not read pass
    plain = _gateway(_platform(loopback_server, [_record(1, "eth-a")]))
    assert plain.node("eth-a").chain.name == "ethereum"
    for gateway in (no_endpoint, unread_fields, plain):
        gateway.close()


@pytest.mark.parametrize(
    "page",
    [
        {"details": {"auth_key": UNTOLD, "https_endpoint": "https://nd-1.example.com"}},  # a record
        [{"details": UNTOLD_DETAILS, "name": "eth-a"}],  # the records without their page
        {"results": {"details": UNTOLD_DETAILS, "name": "eth-a"}},  # one record, not a list
    ],
    ids=["a v1 record", "a bare list", "results a record"],
)
def test_a_page_of_the_wrong_shape_is_malformed_and_quotes_no_key(loopback_server, page):
    """What the error quotes of the answer hides credentials and the keys of endpoint URLs, which
    the toolkit was never told of."""
    body = json.dumps(page).encode()
    server = loopback_server(lambda request: (200, {"Content-Type": "application/json"}, body))
    gateway = _gateway(server)
    with pytest.raises(toolkit.MalformedResponse, match="expected a node list page") as caught:
        gateway.nodes()
    assert UNTOLD[:8] not in str(caught.value)
    gateway.close()


def test_endpoint_keys_of_listed_records_show_in_no_repr_and_still_work(loopback_server):
    """`gw.nodes()` typed in a cell shows its records: their endpoints' keys, which the toolkit
    was not told of before the listing, are kept usable but shown as ``***`` (and scrubbed
    wherever else they show); an endpoint without a key shows as it is."""
    key = "8e6c4a2f0d1b3e5c7a9f8e6c4a2f0d1b"
    keyed = f"https://nd-7.example.com/{key}"
    records = [
        _record(7, "eth-a", details={"https_endpoint": keyed, "wss_endpoint": "wss://ws.example"}),
    ]
    gateway = _gateway(_platform(loopback_server, records))
    (listed,) = gateway.nodes()
    assert listed["details"]["https_endpoint"] == keyed  # the value works as its text
    assert "'https_endpoint': 'https://nd-7.example.com/***'" in repr(listed)
    assert "'wss://ws.example'" in repr(listed) and key not in repr(gateway.nodes())
    assert key not in str(toolkit.GatewayError(f"refused {keyed}"))
    assert gateway.node("eth-a").chain.name == "ethereum"
    gateway.close()
