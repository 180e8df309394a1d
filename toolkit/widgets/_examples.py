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
    from ..examples import world_examples

    inputs = world_examples(sandbox.world)

    def examples(chain: str, method: str) -> dict[str, Any]:
        return inputs.inputs(method, head=sandbox.world.head(chain))

    return examples
