"""Inputs that work against the embedded sandbox, so that a demo can run any method at once.

They are `toolkit.examples`' inputs for the sandbox (its demo world, the Solana simulator's wallets
and blockhash, the chain heads), shaped like `ParamForm.values()`: by the spec's parameter names,
objects as nested dicts. A real gateway gets no examples in the widgets.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Examples = Callable[[str, str], dict[str, Any]]
"""(chain name, method name) -> example values for the form."""


def sandbox_examples(sandbox: Any) -> Examples:
    """Example inputs for every catalog method against `sandbox` (a running `Sandbox`)."""
    return _world_examples(sandbox.world)


def _world_examples(world: Any) -> Examples:
    from ..examples import _sandbox_examples

    inputs = _sandbox_examples(world)

    def examples(chain: str, method: str) -> dict[str, Any]:
        return inputs.inputs(method, head=world.head(chain))

    return examples


def gateway_examples(gw: Any) -> Examples | None:
    """Example inputs for `gw`'s sandbox: the live one, or the one the tape it replays was
    recorded from (a world made from the tape's seed, at its first heads); None for a real
    gateway."""
    if gw.sandbox is not None:
        return sandbox_examples(gw.sandbox)
    seed = gw.sandbox_seed
    if seed is None:
        return None
    from ..sandbox import World

    return _world_examples(World(seed))
