"""The call a node prepared: the catalog's bound call, with its node's name, price and receipt."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from ..catalog import BoundCall, Estimate
from ._transport import NOT_SENT, Receipt


# slots: a bulk run makes one per call, and a slotted instance is quicker to make
# (bench/bench_records.py)
@dataclass(eq=False, slots=True)
class PreparedCall:
    """A call validated against the catalog for one node: the second of the four call wrappers.

    It adds to the catalog's `BoundCall` (method and wire arguments) the name of the node it is
    for and what the pipeline found: after `node.price(call)` its `estimate`, after
    `node.send(call)` its `receipt` (billed `ru`, `unconfirmed_ru`, how it ended).

    Made once, by validation: `node.prepare(...)`, the handle a user gets, and `prepare_many`
    (the node core's `prepare_batch` for a batch). Read by the node's pricing and send paths
    (`price`, `estimate`, `send`, the cache lookup), and carried by a workload's `PlannedCall`
    and a bulk run's `Item`."""

    node: str  # the node's name (never its URL)
    bound: BoundCall
    estimate: Estimate | None = None
    receipt: Receipt = NOT_SENT  # shared until a send gives the call its own

    @property
    def method(self) -> str:
        return self.bound.method.name

    @property
    def arguments(self) -> dict[str, Any]:
        """The validated arguments by parameter name, in wire form."""
        return self.bound.arguments

    @property
    def params(self) -> Any:
        """The wire params: a JSON-RPC list, or the REST body or query (a copy: the call's own
        are shared by every call made of the same arguments)."""
        return copy.deepcopy(self.bound.wire_params)

    def __repr__(self) -> str:
        return f"<PreparedCall {self.method} on {self.node}>"
