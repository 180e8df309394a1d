"""Typed, documented helpers per chain, and the node classes built from them.

Each helper turns Python values into the spec's wire form and hands the call to `_request`, which
returns the result on a sync `Node` and an awaitable on an `AsyncNode`. So every helper works as
``node.get_balance(a)`` and as ``await node.aio.get_balance(a)``. Every catalog method's helper is
made from its entry (`generated_helper`): its name is `Method.helper`, its arguments and input
transforms are the entry's (`Method.helper_args`, `Method.inputs`), its docstring comes from the
summary, the RU rule and the notes, its value from the result kind. The classes below only give
each chain's helpers a home and a docstring.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .._errors import MalformedResponse
from ..catalog import METHODS, RESULT_KINDS, Arg, Method, abi
from ._node import AsyncNode, Node


class _Helpers:
    """What every chain's helpers build on: the node's `_request` (sync or async)."""

    _request: Callable[..., Any]  # declared for checkers only: `Node` or `AsyncNode` defines it


class EvmMethods(_Helpers):
    """EVM JSON-RPC (spec section A)."""

    # Hand-written: one eth_call, encoded and decoded by the function's signature.
    def read(
        self,
        address: str,
        signature: str | Mapping[str, Any],
        *args: Any,
        block: int | str | Mapping[str, Any] = "latest",
    ):
        """A contract's view function, by its signature: the decoded value (a tuple for several
        outputs). ``eth.read(token, "balanceOf(address)(uint256)", holder, block=19_000_000)``.

        `signature` is ``name(input types)(output types)`` or an ABI JSON fragment (a dict or
        its JSON text). Types: uintN, intN, address, bool, bytesN, bytes, string and arrays of
        them. Values come back as exact ints, checksummed addresses, bools, bytes and str.
        One ``eth_call``, priced like it (1 RU, or 2 RU when `block` is an archive block). A bad
        signature or a wrong argument count or type raises `ValidationError` before sending;
        return data that is not an encoding of the outputs raises `MalformedResponse`.
        """
        function, data = abi.function_call(signature, args)

        def decoded(result: Any) -> Any:
            try:
                return function.decode_output(result)
            except ValueError as error:
                raise MalformedResponse(
                    f"{function.signature}: the return data does not decode as "
                    f"({', '.join(str(p.type) for p in function.outputs)}): {error}",
                    method="eth_call",
                ) from None

        call = {"to": address, "data": data}
        return self._request("eth_call", (call, block), {}, convert=decoded)


class ArbitrumMethods(EvmMethods):
    """EVM JSON-RPC and Arbitrum's debug_printBlock."""


class PolygonMethods(EvmMethods):
    """EVM JSON-RPC and Polygon's bor_getRootHash."""


class SolanaMethods(_Helpers):
    """Solana JSON-RPC (spec section C)."""


class TronMethods(_Helpers):
    """TRON wallet HTTP API and /jsonrpc (spec section D).

    One rule for `visible` in every helper that has it: it defaults to False (hex addresses and,
    for asset texts, hex of UTF-8), the node's own default and the spec's for every method but
    the asset list by name; and the helper always sends it, so the answer's form never depends on
    a server default. Names are always given as plain text: the helper encodes them for the node.
    Pass ``visible=True`` for base58 addresses and plain-text names in the answer. The frames
    read either form.
    """


class TonMethods(_Helpers):
    """TON HTTP API v2 (spec section E)."""

    json_rpc: Callable[..., Any]  # declared for checkers only: generated from its entry below

    # The one helper written by hand: not a catalog entry, but one inner method of one.
    def unpack_address(self, address: str):
        """A user-friendly TON address in raw form, by the node (``unpackAddress``)."""
        return self.json_rpc("unpackAddress", address=address)


# What a checker sees of the helpers: their typed signatures, written into _helpers.pyi (`_stubs`
# says why).
if TYPE_CHECKING:
    from ._helpers import (
        ArbitrumHelpers,
        AsyncArbitrumHelpers,
        AsyncEvmHelpers,
        AsyncPolygonHelpers,
        AsyncSolanaHelpers,
        AsyncTonHelpers,
        AsyncTronHelpers,
        EvmHelpers,
        PolygonHelpers,
        SolanaHelpers,
        TonHelpers,
        TronHelpers,
    )
else:
    EvmHelpers = AsyncEvmHelpers = EvmMethods
    ArbitrumHelpers = AsyncArbitrumHelpers = ArbitrumMethods
    PolygonHelpers = AsyncPolygonHelpers = PolygonMethods
    SolanaHelpers = AsyncSolanaHelpers = SolanaMethods
    TronHelpers = AsyncTronHelpers = TronMethods
    TonHelpers = AsyncTonHelpers = TonMethods


class AsyncEvmNode(AsyncEvmHelpers, AsyncNode):
    """Async client for an EVM node."""


class AsyncArbitrumNode(AsyncArbitrumHelpers, AsyncNode):
    """Async client for an Arbitrum node."""


class AsyncPolygonNode(AsyncPolygonHelpers, AsyncNode):
    """Async client for a Polygon node."""


class AsyncSolanaNode(AsyncSolanaHelpers, AsyncNode):
    """Async client for a Solana node."""


class AsyncTronNode(AsyncTronHelpers, AsyncNode):
    """Async client for a TRON node."""


class AsyncTonNode(AsyncTonHelpers, AsyncNode):
    """Async client for a TON node."""


class EvmNode(EvmHelpers, Node):
    """Blocking client for an EVM node (Ethereum, Hyperliquid's EVM at /evm, ...)."""

    aio_class = AsyncEvmNode


class ArbitrumNode(ArbitrumHelpers, Node):
    """Blocking client for an Arbitrum node: EVM methods plus debug_printBlock."""

    aio_class = AsyncArbitrumNode


class PolygonNode(PolygonHelpers, Node):
    """Blocking client for a Polygon node: EVM methods plus bor_getRootHash."""

    aio_class = AsyncPolygonNode


class SolanaNode(SolanaHelpers, Node):
    """Blocking client for a Solana node."""

    aio_class = AsyncSolanaNode


class TronNode(TronHelpers, Node):
    """Blocking client for a TRON node."""

    aio_class = AsyncTronNode


class TonNode(TonHelpers, Node):
    """Blocking client for a TON node."""

    aio_class = AsyncTonNode


# The one chain table of the client: each chain's node class (its helpers are its first base).
NODE_CLASSES: dict[str, type[Node]] = {
    "ethereum": EvmNode,
    "hyperliquid": EvmNode,
    "arbitrum": ArbitrumNode,
    "polygon": PolygonNode,
    "solana": SolanaNode,
    "tron": TronNode,
    "ton": TonNode,
}


# --- helpers generated from the catalog -------------------------------------------------------


_POSITIONAL = inspect.Parameter.POSITIONAL_OR_KEYWORD
_KEYWORD = inspect.Parameter.KEYWORD_ONLY
_COLLECTS = inspect.Parameter.VAR_KEYWORD


def _annotation(method: Method, arg: Arg) -> str:
    """The type a helper takes for `arg`: its own, else its parameter kind's (or None)."""
    text = arg.python or method.param_at(arg.fills).kind.python
    if arg.default is None and text != "Any" and "None" not in text:
        text += " | None"
    return text


def _signature(method: Method) -> inspect.Signature:
    """The helper's signature, with its annotations, from the entry's `helper_args` and its
    result kind: `help()` shows them, and the typed stubs are written from them."""
    parameters = [inspect.Parameter("self", _POSITIONAL)]
    for arg in method.helper_args:
        if arg.collects:
            parameters.append(inspect.Parameter(arg.name, _COLLECTS, annotation="Any"))
            continue
        kind = _POSITIONAL if arg.positional else _KEYWORD
        default = inspect.Parameter.empty if arg.required else arg.default
        annotation = _annotation(method, arg)
        parameters.append(inspect.Parameter(arg.name, kind, default=default, annotation=annotation))
    return inspect.Signature(parameters, return_annotation=RESULT_KINDS[method.result].python)


_OUTSIDE_SPEC = "A read method real clients call first; not one of the gateway spec's."


def _docstring(method: Method) -> str:
    args: list[str] = []
    for arg in method.helper_args:
        param = method.param_at(arg.fills)
        optional = "" if arg.required else ", optional"
        sent_as = "" if arg.fills == arg.name else f", sent as ``{arg.fills}``"
        name = f"**{arg.name}" if arg.collects else arg.name
        args.append(f"- `{name}` ({param.kind.doc}{optional}{sent_as}): {param.doc}")
    sections = [
        [f"{method.summary} (``{method.name}``; {method.ru.describe()})"],
        args,
        [] if method.in_spec else [_OUTSIDE_SPEC],
        *([note] for note in method.notes),
    ]
    return "\n\n".join("\n".join(lines) for lines in sections if lines)


def generated_helper(method: Method) -> Callable[..., Any]:
    """The helper of a catalog method: take its arguments, validate, price, send, and return
    the typed value."""
    name, typed, signature = method.name, method.typed, _signature(method)

    def helper(self, *args: Any, **kwargs: Any) -> Any:
        given = signature.bind(self, *args, **kwargs).arguments
        return self._request(name, (), method.helper_arguments(given), typed)

    helper.__name__ = helper.__qualname__ = method.helper
    helper.__signature__ = signature  # type: ignore[attr-defined]
    helper.__doc__ = _docstring(method)
    helper.generated_from = method  # type: ignore[attr-defined]
    return helper


def _install_generated_helpers() -> None:
    """Each catalog method's helper, on the helper class of the first of its chains that has
    one (the others inherit it: Arbitrum's from the EVM's)."""
    for method in METHODS:
        for chain in method.chains:
            node_class = NODE_CLASSES.get(chain)
            if node_class is None:
                continue
            helpers = node_class.__bases__[0]
            if not hasattr(helpers, method.helper):
                setattr(helpers, method.helper, generated_helper(method))


_install_generated_helpers()
