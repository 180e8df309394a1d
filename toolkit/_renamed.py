"""Old public names kept for one release after a rename: using one warns (DeprecationWarning)
and gives the new name's object. Each module that renamed something maps old to new names and
asks `renamed_attribute` from its module `__getattr__`."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any


def renamed_attribute(
    module: str, names: Mapping[str, str], namespace: Mapping[str, Any], old: str
) -> Any:
    """The object `old` now goes by (in `namespace`), with a DeprecationWarning pointing at the
    caller's line; AttributeError when `old` was never a name of `module`."""
    if old not in names:
        raise AttributeError(f"module {module!r} has no attribute {old!r}")
    new = names[old]
    warnings.warn(
        f"{module}.{old} is renamed {module}.{new}; the old name goes in the next release",
        DeprecationWarning,
        stacklevel=3,  # the line that named the attribute, past the module's __getattr__
    )
    return namespace[new]
