"""The Solana node: `simulateTransaction`, delegated to `_solana_world.SolanaWorld` (LiteSVM).

Setting LiteSVM up takes a while, so the simulator is imported and built on the first Solana
request, not at start-up (`demo()` needs none of it); the app runs its calls in a worker thread,
off the event loop. Where LiteSVM cannot run (a browser tab: no solders there, or
``NODE_GATEWAY_BROWSER=1``), the notebooks' simulations are answered from recordings
(`_solana_recorded`) and any other is an error saying it needs a CPython kernel. The catalog
has validated the call already: the sigVerify/replaceRecentBlockhash conflict is a -32602 before
anything is simulated.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from .._browser import in_browser
from ..catalog import BoundCall
from ._jsonrpc import INTERNAL_ERROR, RpcError
from ._solana_demo import MAX_PROCESSING_AGE, SlotClock, demo_facts

NEEDS_CPYTHON = (
    "live Solana simulation needs a CPython kernel (the sandbox runs it in solders' LiteSVM, "
    "which has no build in a browser tab); here the sandbox answers only the notebooks' "
    "example transactions, from recordings"
)


class SolanaChain:
    blocking = True  # handlers may take long: run them off the event loop

    def __init__(self, seed: int, clock: Callable[[], float] | None = None):
        """`clock` drives the slot (seconds); None advances it by one per call (deterministic)."""
        self.seed = seed
        self.clock = clock
        self._world: Any = None
        self._recorded_slots: SlotClock | None = None  # the slots of answers from recordings
        self._lock = threading.Lock()

    def handlers(self) -> dict[str, Callable[[BoundCall, int | None], Any]]:
        return {"simulateTransaction": self._simulate}

    def demo(self) -> dict[str, Any]:
        """The simulator's demo facts (wallets, mint, token accounts, a recent blockhash)."""
        world = self._world
        return world.demo() if world is not None else demo_facts(self.seed)

    def _simulate(self, call: BoundCall, head: int | None) -> Any:
        transaction = call.arguments["transaction"]
        config = dict(call.arguments.get("config", {}))
        world = self._load()
        if world is None:
            from ._solana_recorded import recorded_answer

            answer = recorded_answer(self.seed, transaction, config)
            if answer is None:
                raise RpcError(INTERNAL_ERROR, NEEDS_CPYTHON)
            return self._at_this_slot(answer, config)
        return world.simulate(transaction, config)  # may raise RpcError

    def _at_this_slot(self, answer: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
        """A recorded answer dated as LiteSVM would date it now (`SlotClock`): the slot of the
        recording was the recording's, not this sandbox's."""
        with self._lock:
            if self._recorded_slots is None:
                self._recorded_slots = SlotClock(self.clock)
            slot = self._recorded_slots.advance()
        min_slot = config.get("minContextSlot")
        if min_slot is not None and min_slot > slot:
            message = "Minimum context slot has not been reached"
            raise RpcError(-32016, message, {"contextSlot": slot})
        value = dict(answer["value"])
        if value.get("replacementBlockhash"):
            replaced = {**value["replacementBlockhash"]}
            replaced["lastValidBlockHeight"] = slot + MAX_PROCESSING_AGE
            value["replacementBlockhash"] = replaced
        return {"context": {**answer["context"], "slot": slot}, "value": value}

    def _load(self) -> Any:
        """LiteSVM's world, made on first use; None where it cannot run."""
        if in_browser():
            return None
        with self._lock:
            if self._world is None:
                try:
                    from ._solana_world import SolanaWorld
                except ImportError:  # solders is not installed
                    return None
                self._world = SolanaWorld(self.seed, clock=self.clock)
            return self._world
