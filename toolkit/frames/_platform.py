"""Platform node lists (``GET /v2/nodes/``) as frames, with endpoint URLs redacted."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from .._redact import redact_url, register_secret
from ._convert import (
    FrameError,
    as_list,
    as_mapping,
    as_records,
    columns_from_rows,
    describe,
    describe_keys,
    frame,
    text_value,
)

# Seen in the real API; other values are kept too, appended after these.
NODE_STATUSES = (
    "running",
    "starting",
    "pending",
    "maintenance",
    "stopping",
    "stopped",
    "failed",
    "error",
)
ENDPOINT_FIELDS = ("https_endpoint", "wss_endpoint", "beacon_endpoint", "graphql_endpoint")
_NODE_TEXT_FIELDS = (
    "id",
    "name",
    "network",
    "protocol",
    "project",
    "cloud",
    "region",
    "provider",
    "blockchain",
)
_NODE_FIELDS = frozenset({*_NODE_TEXT_FIELDS, "status", "details"})
NODE_COLUMNS = (
    "id",
    "name",
    "network",
    "protocol",
    "status",
    "project",
    "cloud",
    "region",
    "provider",
    "blockchain",
    "api_namespaces",
    *ENDPOINT_FIELDS,
)


def platform_nodes(payload: Any, *, reveal_endpoints: bool = False) -> pd.DataFrame:
    """Nodes of an organization, one row per node.

    Accepts a node list page (``{count, next, previous, results}``), a list of such pages (as
    collected by following `next`), a plain list of node records, or a single node record.

    Endpoint URLs carry access keys, so each is shown as ``scheme://host/***`` unless
    `reveal_endpoints` is true (each is registered as a secret either way, so that a revealed one
    is still scrubbed from files, logs and messages).

    Columns: id, name, network, protocol (string), status (category: running, starting, pending,
    maintenance, stopping, stopped, failed, error, then any other value seen), project, cloud,
    region, provider, blockchain (string), api_namespaces (string, comma separated, e.g.
    ``"eth,net,web3"``), https_endpoint, wss_endpoint, beacon_endpoint, graphql_endpoint (string).
    """
    rows = []
    for position, node in enumerate(_nodes(payload)):
        try:
            rows.append(_node_row(node, reveal_endpoints))
        except FrameError as error:
            raise FrameError(f"{_record_label(node, position)}: {error.detail}") from None
    schema = {field: "text" for field in (*_NODE_TEXT_FIELDS, "api_namespaces", *ENDPOINT_FIELDS)}
    columns = columns_from_rows(rows, schema)
    statuses = [row["status"] for row in rows]
    seen = sorted({s for s in statuses if s is not None} - set(NODE_STATUSES))
    columns["status"] = pd.Categorical(statuses, categories=[*NODE_STATUSES, *seen])
    return frame(columns, NODE_COLUMNS)


def _node_row(node: Mapping[str, Any], reveal_endpoints: bool) -> dict[str, Any]:
    details = as_mapping(node.get("details"), "details")
    row = {field: node.get(field) for field in _NODE_TEXT_FIELDS}
    row["status"] = text_value(node.get("status"), "status")
    namespaces = [text_value(n, "details.api_namespaces") for n in _namespaces(details)]
    row["api_namespaces"] = ",".join(n for n in namespaces if n) if namespaces else None
    for field in ENDPOINT_FIELDS:
        url = details.get(field)
        if url is not None and not isinstance(url, str):
            # a number is no address: redacted, it would pass as one (``***``)
            raise FrameError(f"details.{field}: expected a URL as text, got {describe(url)}")
        if url is not None and redact_url(url) != url:
            register_secret(url)  # scrubbed wherever it goes: a saved file, a log line
        row[field] = url if reveal_endpoints else redact_url(url)
    return row


def _record_label(node: Mapping[str, Any], position: int) -> str:
    """A node record as an error names it: its place in the payload, its name and id."""
    known = [
        f"{field} {node[field]!r}"[:70]
        for field in ("name", "id")
        if isinstance(node.get(field), str | int) and not isinstance(node[field], bool)
    ]
    return f"node record #{position + 1}" + (f" ({', '.join(known)})" if known else "")


def _nodes(payload: Any) -> list[Mapping[str, Any]]:
    items = payload if isinstance(payload, list) else [payload]
    nodes: list[Mapping[str, Any]] = []
    for item in items:
        if not isinstance(item, Mapping):
            raise FrameError(f"expected a node list page or node records, got {describe(item)}")
        if "error" in item:
            error = as_mapping(item["error"], "error")
            raise FrameError(
                "the platform answered with an error: "
                f"{text_value(error.get('code'), 'error.code')}: "
                f"{text_value(error.get('message'), 'error.message')}"
            )
        if "results" in item:
            nodes += as_records(item["results"], "results")
        elif not _NODE_FIELDS.isdisjoint(item):
            nodes.append(item)
        elif item:
            raise FrameError(f"expected a node list page or a node, got {describe_keys(item)}")
    return nodes


def _namespaces(details: Mapping[str, Any]) -> list[Any]:
    value = details.get("api_namespaces")
    # Be lenient with a namespace list that was already joined into text.
    return value.split(",") if isinstance(value, str) else as_list(value, "details.api_namespaces")
