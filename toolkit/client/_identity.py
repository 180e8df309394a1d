"""A call's identity: the one key the response cache, a dataset's resume and tapes use.

A call's identity is (gateway, node name, method, canonical params), so an answer kept through
one gateway is never taken for another gateway's answer to a node of the same name. The gateway
part is a digest of the node URL's host and the chain: never the access key (it changes when a
key is rotated and must not be written anywhere), never the port (the embedded sandbox listens
on a new one each time) and never the path (where keys live). The params part is the catalog's
one canonical form (`catalog.key_json`): an address checksummed or not, a block as an int or in
hex, TRON's hex or base58 and TON's raw or user-friendly forms are one call.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any, NamedTuple
from urllib.parse import urlsplit

from ..catalog import key_json

if TYPE_CHECKING:
    from ..catalog import BoundCall


class CallKey(NamedTuple):
    """One call's identity (see the module doc); `params` is the canonical JSON text."""

    gateway: str | None  # None: a dataset row written before gateways were recorded
    node: str
    method: str
    params: str


def gateway_identity(url: str, chain: str) -> str:
    """16 hex digits naming the gateway host and chain that `url` reaches."""
    host = (urlsplit(url).hostname or "").lower()
    return hashlib.sha256(f"{host}\n{chain}".encode()).hexdigest()[:16]


def call_key(gateway: str | None, node: str, bound: BoundCall) -> CallKey:
    """The identity of a call validated by the catalog (its canonical params made once)."""
    return CallKey(gateway, node, bound.method.name, bound.key_json)


def canonical_params(method: str, params: Any) -> str:
    """The params of a call to `method` (a catalog name, a REST path or a method outside the
    catalog) as every key of the call has them; what `call_key` reads from a bound call."""
    return key_json(method, params)
