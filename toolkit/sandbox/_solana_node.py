"""The Solana node: `simulateTransaction`, delegated to `_solana.SolanaWorld` (LiteSVM).

Setting LiteSVM up takes a while, so the simulator is imported and built on the first Solana
request (or `demo()` call), not at start-up; the app runs its calls in a worker thread, off the
event loop. The catalog has validated the call already: the sigVerify/replaceRecentBlockhash
conflict is a -32602 before anything is simulated.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from ..catalog import BoundCall
from ._jsonrpc import INTERNAL_ERROR, RpcError


class SolanaChain:
    blocking = True  # handlers may take long: run them off the event loop

    def __init__(self, seed: int, clock: Callable[[], float] | None = None):
        """`clock` drives the slot (seconds); None advances it by one per call (deterministic)."""
        self.seed = seed
        self.clock = clock
        self._world: Any = None
        self._lock = threading.Lock()

    def handlers(self) -> dict[str, Callable[[BoundCall, int | None], Any]]:
        return {"simulateTransaction": self._simulate}

    def demo(self) -> dict[str, Any]:
        """The simulator's demo facts (wallets, mint, token accounts, a recent blockhash)."""
        return self._load().demo()

    def _simulate(self, call: BoundCall, head: int | None) -> Any:
        world = self._load()
        config = dict(call.arguments.get("config", {}))
        return world.simulate(call.arguments["transaction"], config)  # may raise RpcError

    def _load(self) -> Any:
        with self._lock:
            if self._world is None:
                try:
                    from ._solana_world import SolanaWorld
                except ImportError as error:
                    raise RpcError(
                        INTERNAL_ERROR, f"simulateTransaction is not available here: {error}"
                    ) from None
                self._world = SolanaWorld(self.seed, clock=self.clock)
            return self._world
