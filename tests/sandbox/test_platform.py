"""The platform API: Bearer auth, the node list, ordering and pagination, node records."""

from __future__ import annotations

import re

NODE_FIELDS = {
    "id",
    "name",
    "network",
    "protocol",
    "project",
    "cloud",
    "region",
    "provider",
    "status",
    "details",
    "blockchain",
}
STATUSES = {
    "running",
    "pending",
    "maintenance",
    "failed",
    "error",
    "stopping",
    "stopped",
    "starting",
}


def all_pages(http, url, auth, **params):
    pages = []
    response = http.get(url, headers=auth, params=params)
    while True:
        assert response.status_code == 200, response.text
        pages.append(response.json())
        if pages[-1]["next"] is None:
            return pages
        response = http.get(pages[-1]["next"], headers=auth)


def test_auth_is_required(http, info):
    url = info["platform_url"] + "/v2/nodes/"
    for headers, status, code in (
        ({}, 401, "not_authenticated"),
        ({"Authorization": "Token abc"}, 401, "not_authenticated"),
        ({"Authorization": "Bearer wrong"}, 403, "permission_denied"),
    ):
        response = http.get(url, headers=headers)
        assert response.status_code == status
        body = response.json()
        assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}
        assert body["error"]["code"] == code


def test_pages_follow_next_until_null(http, info, auth):
    pages = all_pages(http, info["platform_url"] + "/v2/nodes/", auth)
    assert len(pages) >= 3
    count = pages[0]["count"]
    results = [node for page in pages for node in page["results"]]
    assert len(results) == count == 14
    assert len({node["id"] for node in results}) == count
    assert pages[0]["previous"] is None
    no_slash = http.get(info["platform_url"] + "/v2/nodes", headers=auth)
    assert no_slash.json() == pages[0]
    assert pages[1]["previous"] == info["platform_url"] + "/v2/nodes/"
    assert pages[2]["previous"].endswith("page=2")
    assert all(set(page) == {"count", "next", "previous", "results"} for page in pages)


def test_node_records(http, info, auth):
    pages = all_pages(http, info["platform_url"] + "/v2/nodes/", auth)
    records = [node for page in pages for node in page["results"]]
    assert {node["status"] for node in records} == STATUSES
    for node in records:
        assert set(node) == NODE_FIELDS
        assert re.fullmatch(r"ND-\d+-\d+-\d+", node["id"])
        assert re.fullmatch(r"PR-.+", node["project"])
        assert re.fullmatch(r"CC-\d+", node["cloud"])
        assert re.fullmatch(r"BC-.+", node["blockchain"])
        details = node["details"]
        assert {"api_namespaces", "https_endpoint", "wss_endpoint"} <= set(details)
        assert details["wss_endpoint"].startswith("ws://")
    running = {node["name"]: node for node in records if node["status"] == "running"}
    assert {name: node["details"]["https_endpoint"] for name, node in running.items()} == info[
        "nodes"
    ]
    assert "beacon_endpoint" in running["ethereum-mainnet"]["details"]
    assert "graphql_endpoint" in running["polygon-mainnet"]["details"]
    assert "debug" in running["arbitrum-mainnet"]["details"]["api_namespaces"]


def test_ordering(http, info, auth):
    url = info["platform_url"] + "/v2/nodes/"

    def names(ordering):
        pages = all_pages(http, url, auth, ordering=ordering)
        assert all("ordering=" + ordering in p["next"] for p in pages[:-1])
        return [node["name"] for page in pages for node in page["results"]]

    assert names("name") == sorted(names("name"))
    assert names("-name") == list(reversed(names("name")))
    assert names("-created_at") == list(reversed(names("created_at")))
    assert names("created_at") != names("name")
    assert [n["name"] for p in all_pages(http, url, auth) for n in p["results"]] == names(
        "created_at"
    )


def test_bad_page_and_ordering(http, info, auth):
    url = info["platform_url"] + "/v2/nodes/"
    for params, status in (({"page": 99}, 404), ({"page": "x"}, 404), ({"ordering": "age"}, 400)):
        response = http.get(url, headers=auth, params=params)
        assert response.status_code == status
        assert set(response.json()["error"]) == {"code", "message"}


def test_listed_only_nodes_answer_503(http, info, auth):
    pages = all_pages(http, info["platform_url"] + "/v2/nodes/", auth)
    stopped = next(n for p in pages for n in p["results"] if n["status"] == "stopped")
    envelope = {"jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber", "params": []}
    response = http.post(stopped["details"]["https_endpoint"], json=envelope)
    assert response.status_code == 503
    assert "stopped" in response.json()["error"]["message"]
