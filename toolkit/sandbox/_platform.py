"""The platform API's node list: ``GET /v2/nodes/`` with `ordering` and 1-based `page`.

Pages hold `PAGE_SIZE` nodes, small on purpose so that the default world (14 nodes) spans four
pages and pagination code gets exercised. `next`/`previous` are absolute URLs (the previous link
to page 1 carries no `page`, as in Django REST framework). Records hold exactly the spec's Node
fields. Endpoints are built from the address the client used, with the node's access key in the
path; `beacon_endpoint` and `graphql_endpoint` (Ethereum, Polygon) are listed for realism but
not served.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from .._errors import ValidationError
from ..catalog import CATALOG
from ._response import Reply, error_body
from ._world import NodeRecord, World

PAGE_SIZE = 4
_NAMESPACES = {
    "ethereum": ["eth", "net", "web3", "txpool"],
    "arbitrum": ["eth", "net", "web3", "debug", "arbtrace"],
    "polygon": ["eth", "net", "web3", "txpool", "bor"],
    "hyperliquid": ["eth", "net", "web3"],
    "solana": ["solana"],
    "tron": ["wallet", "jsonrpc"],
    "ton": ["api/v2"],
}
_SORT_KEYS = {"name": lambda node: node.name, "created_at": lambda node: node.created_at}


def node_record(node: NodeRecord, base_url: str) -> dict[str, Any]:
    https = f"{base_url.rstrip('/')}/{node.key}"
    details: dict[str, Any] = {
        "api_namespaces": _NAMESPACES[node.chain],
        "https_endpoint": https,
        "wss_endpoint": "ws" + https.removeprefix("http"),
    }
    if node.chain == "ethereum":
        details["beacon_endpoint"] = https + "/beacon"
    if node.chain in ("ethereum", "polygon"):
        details["graphql_endpoint"] = https + "/graphql"
    return {
        "id": node.node_id,
        "name": node.name,
        "network": node.network,
        "protocol": node.chain,
        "project": node.project,
        "cloud": node.cloud,
        "region": node.region,
        "provider": node.provider,
        "status": node.status,
        "details": details,
        "blockchain": node.blockchain,
    }


def list_page(world: World, base_url: str, query: Mapping[str, str]) -> Reply:
    page_text = query.get("page", "1")
    if not page_text.isdigit() or int(page_text) < 1:
        return Reply(error_body("not_found", "Invalid page."), status=404)
    arguments: dict[str, Any] = {"page": int(page_text)}
    if "ordering" in query:
        arguments["ordering"] = query["ordering"]
    try:
        call = CATALOG["v2/nodes/"].bind(**arguments)
    except ValidationError as error:
        return Reply(error_body("invalid_parameter", error.detail), status=400)
    ordering = call.arguments.get("ordering", "created_at")
    nodes = sorted(
        world.nodes, key=_SORT_KEYS[ordering.lstrip("-")], reverse=ordering.startswith("-")
    )
    page = call.arguments["page"]
    pages = max(1, -(-len(nodes) // PAGE_SIZE))
    if page > pages:
        return Reply(error_body("not_found", "Invalid page."), status=404)
    shown = nodes[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]

    def link(number: int) -> str:
        params = {"ordering": query["ordering"]} if "ordering" in query else {}
        if number > 1:
            params["page"] = str(number)
        return f"{base_url.rstrip('/')}/v2/nodes/" + (f"?{urlencode(params)}" if params else "")

    return Reply(
        {
            "count": len(nodes),
            "next": link(page + 1) if page < pages else None,
            "previous": link(page - 1) if page > 1 else None,
            "results": [node_record(node, base_url) for node in shown],
        }
    )
