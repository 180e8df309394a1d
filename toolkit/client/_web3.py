"""A metered hand-off to web3.py: a `Web3` whose provider sends every call through a toolkit node.

Catalog methods go through `Node.call` (validated, priced, budgeted, cached, in the ledger), any
other through `Node.call_raw`; ``w3.batch_requests()`` is one JSON-RPC batch, metered as
`Node.batch` meters one (`make_batch_request`). A node's JSON-RPC error goes back to web3.py as an
error response, so web3.py raises its own exceptions; toolkit errors propagate as they are. The
user's guide is docs/web3.md.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

from .._errors import BatchRefused, GatewayError, RPCError, ValidationError
from ..catalog import CATALOG

if TYPE_CHECKING:
    from web3 import Web3

    from ._node import Node


def web3(node: Node) -> Web3:
    """A `web3.Web3` on `node` (an EVM node of a toolkit `Gateway`) whose calls are metered."""
    try:
        from web3 import Web3
        from web3.providers.base import JSONBaseProvider
    except ImportError:
        raise ImportError(
            "toolkit.web3 needs web3.py: pip install 'node-gateway-toolkit[web3]'"
        ) from None
    if node.chain.family != "evm":
        raise ValidationError(
            f"web3.py speaks to EVM nodes; {node.name} is a {node.chain.family} node",
            param="node",
            rule="chain",
        )
    return Web3(_provider_class(JSONBaseProvider)(node))


def _provider_class(base: type) -> type:
    class ToolkitProvider(base):
        """Sends web3.py's requests through a toolkit node (see the module's docstring)."""

        def __init__(self, node: Node):
            super().__init__()
            self.node = node
            self._ids = itertools.count(1)

        def make_request(self, method: str, params: Any) -> dict[str, Any]:
            return self._one(next(self._ids), method, list(params or []))

        def _one(self, request_id: int, method: str, params: list[Any]) -> dict[str, Any]:
            try:
                if _in_catalog(method, self.node):
                    result = self.node.call(method, *params)
                else:
                    result = self.node.call_raw(method, params)
            except RPCError as error:
                result = error
            return _answer(request_id, result)

        def make_batch_request(self, requests: Any) -> list[dict[str, Any]]:
            """``w3.batch_requests()``: one JSON-RPC batch request, catalog methods and others
            mixed (see `NodeCore.call_raw_batch`: each call validated or priced as a single
            call would be, the whole batch budgeted before sending, one ledger entry per
            call). To a node that refuses batches, the calls go one by one, each metered as
            `make_request` meters it. Answers come back in order."""
            calls = [(method, list(params or [])) for method, params in requests]
            ids = [next(self._ids) for _ in calls]
            node = self.node
            if calls and node.accepts_batches is not False:
                try:
                    results = node._run(node._core.call_raw_batch(calls))
                except BatchRefused:
                    pass
                else:
                    return [_answer(i, result) for i, result in zip(ids, results, strict=True)]
            pairs = zip(ids, calls, strict=True)
            return [self._one(i, method, params) for i, (method, params) in pairs]

        def is_connected(self, show_traceback: bool = False) -> bool:
            return True  # the node answers or raises a typed error on the first call

        def __repr__(self) -> str:
            return f"<ToolkitProvider {self.node.name}>"

    return ToolkitProvider


def _answer(request_id: int, result: Any) -> dict[str, Any]:
    """A call's answer as web3.py reads it: a node's JSON-RPC error as an error response; any
    other toolkit error (an item of a batch's answer of the wrong shape) raised as it is."""
    if isinstance(result, RPCError):
        failure: dict[str, Any] = {"code": result.code, "message": result.rpc_message}
        if result.data is not None:
            failure["data"] = result.data
        return {"jsonrpc": "2.0", "id": request_id, "error": failure}
    if isinstance(result, GatewayError):
        raise result
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def _in_catalog(method: str, node: Node) -> bool:
    entry = CATALOG.get(method)
    return entry is not None and node.chain.name in entry.chains
