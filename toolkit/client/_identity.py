"""The identity of the gateway a node is reached through: one part of a call's identity.

A call's identity is (gateway, node name, method, canonical params). The response cache, a
dataset's resume and tapes key by it, so an answer kept through one gateway is never taken for
another gateway's answer to a node of the same name. The gateway part is a digest of the node
URL's host and the chain: never the access key (it changes when a key is rotated and must not be
written anywhere), never the port (the embedded sandbox listens on a new one each time) and never
the path (where keys live).
"""

from __future__ import annotations

import hashlib
from urllib.parse import urlsplit


def gateway_identity(url: str, chain: str) -> str:
    """16 hex digits naming the gateway host and chain that `url` reaches."""
    host = (urlsplit(url).hostname or "").lower()
    return hashlib.sha256(f"{host}\n{chain}".encode()).hexdigest()[:16]
