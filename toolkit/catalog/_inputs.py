"""What a method's typed helper takes, declared on its catalog entry.

A helper (``node.get_balance(a)``) is a convenience over the entry; ``node.call(name, ...)`` and
workloads send the parameters as given. The entry declares what its helper adds:

- its arguments (`Arg`): a Python name for a parameter or for a field of an object parameter
  (``sender`` fills ``eth_call``'s ``call.from``), positional or keyword-only, with a default of
  the helper's own (TRON's ``visible``: `Param.helper_default`). An entry that declares none
  takes its parameters by their own names, and an object's fields as keywords;
- its input transforms: what it does to a Python value before the call is bound (a TRC-10 name
  to hex of UTF-8, a solders transaction to base64 text). Each takes the call's arguments by
  parameter name and may change them, like the cross-parameter rules that run after binding.

Both helpers and raw calls then go through the same `Method.bind`.
"""

from __future__ import annotations

import base64
import contextlib
import keyword
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._errors import ValidationError
from . import encoding as enc
from ._bounds import SOLANA_MAX_TRANSACTION_BYTES
from ._kinds import _shown

if TYPE_CHECKING:
    from ._kinds import Param

REQUIRED: Any = type("Required", (), {"__repr__": lambda self: "REQUIRED"})()

Input = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class Arg:
    """One argument of a typed helper: its Python `name`, the parameter it `fills` (or an
    object parameter's field, ``call.from``, ``config.accounts.addresses``), and its `default`
    (REQUIRED: the caller must give it; None: nothing is sent unless given). `collects`: it
    takes every keyword the helper has no name for, as the object it fills (TON's jsonRPC
    ``params``). `python`: its annotation, where the helper takes more than the parameter's
    kind does (bytes or a solders object for a Solana transaction)."""

    name: str
    fills: str
    default: Any = None
    positional: bool = False
    collects: bool = False
    python: str = ""

    @property
    def required(self) -> bool:
        return self.default is REQUIRED


def _is_name(text: str) -> bool:
    return text.isidentifier() and not keyword.iskeyword(text)


def args_of_params(params: tuple[Param, ...]) -> tuple[Arg, ...]:
    """The arguments of a helper that declares none: each parameter by its own name, in the
    spec's order; then, by keyword, each field of an object parameter (``fromBlock`` for
    eth_getLogs's ``filter``) and each parameter with a helper default."""
    positional: list[Arg] = []
    keywords: list[Arg] = []
    names = {param.name for param in params}
    for param in params:
        if param.has_helper_default:
            keywords.append(Arg(param.name, param.name, param.helper_default))
            continue
        if param.has_default:
            default = param.default
        elif param.required and not param.fields:  # an object's fields may come as keywords
            default = REQUIRED
        else:
            default = None
        positional.append(Arg(param.name, param.name, default, positional=True))
        keywords += [
            Arg(field.name, f"{param.name}.{field.name}")
            for field in param.fields
            if _is_name(field.name) and field.name not in names
        ]
    return (*positional, *keywords)


def fill(arguments: dict[str, Any], path: str, value: Any) -> None:
    """Put `value` at `path` (``call.from``) in the call's arguments, inside copies of the
    objects already there, so a caller's dict is never changed."""
    *owners, last = path.split(".")
    target = arguments
    for depth, owner in enumerate(owners):
        current = target.get(owner)
        if current is None:
            current = {}
        elif not isinstance(current, Mapping):
            raise ValidationError(
                f"must be an object to take {last!r}, got {_shown(current)}",
                param=".".join(owners[: depth + 1]),
                rule="type",
            )
        target[owner] = dict(current)
        target = target[owner]
    target[last] = value


# --- input transforms ---------------------------------------------------------------------------


def token_name_as_hex(arguments: dict[str, Any]) -> None:
    """TRON: a TRC-10 name is given as plain text and sent as hex of its UTF-8 bytes, the form
    the node reads unless `visible` is true. Anything that is not encodable text is handed on
    unchanged, for the parameter's check to refuse by name."""
    name = arguments.get("value")
    if arguments.get("visible") or not isinstance(name, str):
        return
    with contextlib.suppress(UnicodeEncodeError):  # a lone surrogate: the check says why
        arguments["value"] = enc.utf8_to_hex(name)


def _transaction_bytes(transaction: Any) -> bytes:
    """The bytes of a transaction given as bytes or as an object that defines ``__bytes__``
    (solders transactions). Not ``bytes(x)`` on anything: ``bytes(42)`` is 42 zero bytes."""
    if isinstance(transaction, bytes | bytearray | memoryview):
        return bytes(transaction)
    if hasattr(type(transaction), "__bytes__"):
        try:
            return bytes(transaction)
        except Exception as error:
            raise ValidationError(
                f"could not be serialised: {type(error).__name__}",
                param="transaction",
                rule="type",
            ) from None
    raise ValidationError(
        "must be the encoded transaction (base64 or base58 text), its bytes, or a solders "
        f"transaction, got {type(transaction).__name__}",
        param="transaction",
        rule="type",
    )


def check_transaction_size(raw: bytes) -> None:
    """A Solana transaction is at most SOLANA_MAX_TRANSACTION_BYTES bytes, whatever it was
    given as (the helper's bytes, the decoded text of any call)."""
    if len(raw) > SOLANA_MAX_TRANSACTION_BYTES:
        raise ValidationError(
            f"is {len(raw):,} bytes; a Solana transaction is at most "
            f"{SOLANA_MAX_TRANSACTION_BYTES:,}",
            param="transaction",
            rule="max",
        )


def transaction_as_text(arguments: dict[str, Any]) -> None:
    """Solana: a transaction given as bytes or a solders object is sent as text in the call's
    encoding. Its size is checked before it is encoded: base58 encoding is quadratic."""
    transaction = arguments.get("transaction")
    if transaction is None or isinstance(transaction, str):
        return
    raw = _transaction_bytes(transaction)
    check_transaction_size(raw)
    config = arguments.get("config")
    encoding = config.get("encoding") if isinstance(config, Mapping) else None
    if encoding == "base58":
        arguments["transaction"] = enc.b58encode(raw)
        return
    arguments["transaction"] = base64.b64encode(raw).decode()
    if encoding is None:  # said, so the node does not read it as its default, base58
        fill(arguments, "config.encoding", "base64")
