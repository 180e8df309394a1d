"""Finding a catalog entry by its spec name."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._errors import ValidationError
from ._kinds import _close_matches, _shown
from ._model import _SORTED_JSON, Method
from ._table import METHODS

CATALOG: dict[str, Method] = {m.name: m for m in METHODS}


def key_params(name: str, params: Any) -> Any:
    """The params of a call to the catalog entry `name` (a JSON-RPC method, or a REST path with
    or without its leading slash) in the form every key of the call is made of
    (`Method.key_params`); those of a call outside the catalog as they are."""
    method = CATALOG.get(name) or CATALOG.get(name.lstrip("/")) if type(name) is str else None
    return method.key_params(params) if method is not None else params


def key_json(name: str, params: Any) -> str:
    """`key_params` as compact JSON with sorted keys: the text `BoundCall.key_json` has for
    the same call (a dataset's rows are matched by it)."""
    return _SORTED_JSON.encode(key_params(name, params))


def lookup(name: str) -> Method:
    """The catalog entry for a spec name; a leading slash on REST paths is accepted."""
    if type(name) is str:
        method = CATALOG.get(name)
        if method is not None:
            return method
    if isinstance(name, Mapping):
        raise ValidationError(
            "the first argument of call() is the spec's method name, not a call object: for "
            "web3.py's eth.call({...}) use call_contract(to, data, block=...), or "
            "call('eth_call', {...}, 'latest')",
            param="method",
            rule="type",
        )
    if not isinstance(name, str):
        raise ValidationError(
            f"the method name must be a string like 'eth_getBalance', got "
            f"{type(name).__name__} {_shown(name)}",
            param="method",
            rule="type",
        )
    method = CATALOG.get(name) or CATALOG.get(name.lstrip("/"))
    if method is None:
        close = _close_matches(name, CATALOG, n=2)
        hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
        raise ValidationError(
            f"{_shown(name)} is not a method of the spec.{hint} "
            "Use call_raw for JSON-RPC methods outside the spec.",
            rule="unknown-method",
        )
    return method
