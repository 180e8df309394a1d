"""The embedded sandbox gateway: every endpoint of the spec on loopback, no key, no network.

    >>> from toolkit.sandbox import Sandbox
    >>> with Sandbox(seed=0) as sandbox:
    ...     sandbox.info["nodes"]["ethereum-mainnet"].startswith("http://127.0.0.1:")
    True

It shares the catalog, pricing and encoding helpers with the client, and never imports the client.

For inputs to call it with, every chain's and Solana's included, use
``toolkit.examples.examples(gw)``: it takes them from this world. `DEMO` is the world's own list
of the names that do not change with the seed (accounts, the token, assets, proposals, jettons);
it has no Solana part, whose wallets are derived from the seed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._app import Handling, MissingHandler, create_app
from ._demo import Demo
from ._faults import FaultKind, Faults
from ._metering import Metering
from ._server import Sandbox, shared_sandbox
from ._world import World

if TYPE_CHECKING:
    DEMO: Demo

__all__ = [
    "DEMO",
    "Demo",
    "FaultKind",
    "Faults",
    "Handling",
    "Metering",
    "MissingHandler",
    "Sandbox",
    "World",
    "create_app",
    "shared_sandbox",
]


def __getattr__(name: str) -> Any:
    # DEMO computes addresses with Keccak: built on first use, not at import.
    if name == "DEMO":
        from ._demo import demo

        return demo()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
