"""The method model: `Method` (one catalog entry), `BoundCall` (a validated call in wire form),
and the memos that make binding the same plain call again free."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import chain, repeat
from typing import Any

from .._errors import ValidationError
from .._json import COMPACT_JSON
from .._redact import clip
from ._inputs import REQUIRED, Arg, Input, args_of_params, fill
from ._kinds import Param, _checked, _close_matches, _shown
from ._pricing import Rule
from ._results import TYPED_VALUES

ALWAYS = "always"  # Method.pinned_by: the answer never changes (a pure function of its inputs)


class Surface(StrEnum):
    JSONRPC = "jsonrpc"  # JSON-RPC 2.0, positional params, at the node's RPC path (or `path`)
    JSONRPC_NAMED = "jsonrpc-named"  # JSON-RPC 2.0 with an object of named params (TON)
    REST_POST = "rest-post"  # JSON body
    REST_GET = "rest-get"  # query parameters
    PLATFORM = "platform"  # GET on the platform API, Bearer auth


class _once:
    """`functools.cached_property` without its lock: before Python 3.12 it takes a lock on each
    first access, which cost more than the work it saved on a workload's hot path (two such
    properties per call). Harmless without the lock: the value is a pure function of an
    immutable object, so two threads computing it at once store equal values."""

    def __init__(self, func: Callable[[Any], Any]):
        self.func = func
        self.name = func.__name__
        self.__doc__ = func.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.func(instance)
        return value


# Each method's calls bound so far, by their arguments (`_memo_key`): one dict per method, found
# once per `bind_many`, so a call's key is its own arguments tuple and no key is made for it.
# Keyed by the method's id; the entry holds the method, so a reused id is never mistaken for it.
_BOUND: dict[int, tuple[Method, dict[tuple[Any, ...], BoundCall]]] = {}
_BOUND_MAX = 200_000  # calls remembered per method
_PLAIN = frozenset((str, int, type(None)))  # exact types: True is not 1 here, nor 1.0
# One parameter's wire value for a plain argument: a workload repeats its arguments (50
# addresses at 20 blocks are 70 values to check, not 2,000). Keyed by the parameter's id and the
# value's exact type; the entry keeps its parameter, so a reused id is never mistaken for it.
# The entry holds the wire value's JSON text too: a call's params text is then a join of its
# values' texts (see `Method._bind_positional`).
_CHECKED: dict[tuple[int, type, Any], tuple[Param, Any, str]] = {}
_CHECKED_MAX = 100_000
# JSON as compact as httpx sends it; one encoder, not one per call (json.dumps with options
# builds a new encoder each time, which costs more than the encoding of a short call).
_json_text = json.encoder.encode_basestring_ascii  # a str as JSON, as COMPACT_JSON writes it
_SORTED_JSON = json.JSONEncoder(sort_keys=True, separators=(",", ":"))  # call keys' JSON


def _checked_plain(param: Param, value: Any) -> Any:
    """`_checked` for a top-level parameter, remembered for plain values (text, ints, None:
    their check is a pure function of the value, and its wire form is immutable)."""
    kind = type(value)
    if kind not in _PLAIN:
        return _checked(param, value, param.name)
    key = (id(param), kind, value)
    known = _CHECKED.get(key)
    if known is not None and known[0] is param:
        return known[1]
    return _check_and_remember(param, value, key)[1]


def _check_and_remember(param: Param, value: Any, key: tuple[int, type, Any]) -> tuple[Any, ...]:
    """`_checked` for a plain value, as a `_CHECKED` entry: (param, wire value, its JSON text,
    or None when the wire value is not plain and the entry is not kept)."""
    wire = _checked(param, value, param.name)
    kind = type(wire)
    if kind not in _PLAIN:
        return (param, wire, None)
    text = _json_text(wire) if kind is str else "null" if wire is None else int.__repr__(wire)
    if len(_CHECKED) >= _CHECKED_MAX:
        _CHECKED.clear()
    known = _CHECKED[key] = (param, wire, text)
    return known


_new_object = object.__new__


def _memo_of(method: Method) -> dict[tuple[Any, ...], BoundCall]:
    """The calls of `method` bound so far, by `_memo_key`."""
    entry = _BOUND.get(id(method))
    if entry is None or entry[0] is not method:
        entry = _BOUND[id(method)] = (method, {})
    return entry[1]


def _remember(
    memo: dict[tuple[Any, ...], BoundCall], key: tuple[Any, ...], bound: BoundCall
) -> None:
    if len(memo) >= _BOUND_MAX:
        memo.clear()
    memo[key] = bound


def forget_validations() -> None:
    """Forget every remembered validation (the next bind checks from scratch): for benchmarks
    of a first run, and tests."""
    _BOUND.clear()
    _CHECKED.clear()


def _memo_key(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...] | None:
    """A key that tells calls apart exactly (types included), or None when an argument is not
    plain text, an int or None (a list, a dict, a bool, a float: validated every time). Plain
    positional arguments are their own key: no such tuple holds a tuple, as the key of a call
    with keywords does, so the two kinds of key never meet."""
    for value in args:
        if type(value) not in _PLAIN:
            return None
    if not kwargs:
        return args
    for value in kwargs.values():
        if type(value) not in _PLAIN:
            return None
    return (args, tuple(kwargs.items()))


@dataclass(frozen=True, init=False)
class BoundCall:
    """A validated call: the `Method` and its `arguments` by parameter name, in wire form, with
    no node, no cost and no outcome. The same object may stand for many calls (see
    `Method.bind`): never change `arguments`.

    The innermost of the four call wrappers, and the only one in the catalog. Made by
    `Method.bind` and `Method.bind_many`: for the client when a call is prepared, for the
    sandbox when it serves a request. Read by whatever works from the call alone: the `Pricer`
    (the block it reads), the protocol step (the request: `wire_params`, `rpc_method`), the
    response cache (its key and pinned block), the sandbox's handlers and meter.

    Each wrapper around it adds one stage: the client's `PreparedCall` adds the node it is for
    and what pricing and sending found (estimate, receipt); a workload's `PlannedCall` adds the
    `Node` that sends it; a bulk run's `Item` adds what became of it (result or error, the
    receipt of every send, batch retries)."""

    method: Method
    arguments: dict[str, Any]

    def __init__(self, method: Method, arguments: dict[str, Any]):
        # Set in the instance's dict: a frozen dataclass's own __init__ sets each field through
        # object.__setattr__, slower, and a fresh workload makes one per call.
        fields = self.__dict__
        fields["method"] = method
        fields["arguments"] = arguments

    @_once
    def wire_json(self) -> str:
        """`wire_params` as compact JSON text (see `params_json` for what frames show)."""
        params = self.wire_params
        if type(params) is not list:
            return COMPACT_JSON.encode(params)
        # A list of text and ints (most JSON-RPC calls), written as the encoder would: its
        # encode() sets up a C encoder per call, which costs more than this whole join.
        parts = []
        for value in params:
            kind = type(value)
            if kind is str:
                parts.append(_json_text(value))
            elif kind is int:
                parts.append(int.__repr__(value))
            else:
                return COMPACT_JSON.encode(params)
        return "[" + ",".join(parts) + "]"

    @_once
    def params_json(self) -> str:
        """The call's params as a workload frame's ``params`` column and the ledger show them:
        `wire_json`, and for TON's jsonRPC its inner method beside its params (sent in the
        envelope, it is what tells two such calls apart, as in `key_params`)."""
        if self.method.surface is Surface.JSONRPC_NAMED:
            return COMPACT_JSON.encode({"method": self.rpc_method, "params": self.wire_params})
        return self.wire_json

    @_once
    def wire_params(self) -> list[Any] | dict[str, Any]:
        """JSON-RPC params (positional list, trailing omissions dropped) or the REST body/query.
        Worked out once (pricing, the cache key and the request each read it): never change it."""
        method = self.method
        if method.surface is Surface.JSONRPC:
            if not method.checks:  # `_bind` added the arguments in the parameters' order
                return list(self.arguments.values())
            return [self.arguments[p.name] for p in method.params if p.name in self.arguments]
        if self.method.surface is Surface.JSONRPC_NAMED:
            return dict(self.arguments.get("params", {}))
        return dict(self.arguments)

    @_once
    def key_params(self) -> list[Any] | dict[str, Any]:
        """`wire_params` with each value in its one canonical form (`Method.key_params`). TON's
        jsonRPC sends its inner method beside its params, not in them: the key holds both, so
        two inner methods with the same params are two calls."""
        if self.method.surface is Surface.JSONRPC_NAMED:
            return {"method": self.rpc_method, "params": self.method.key_params(self.wire_params)}
        return self.method.key_params(self.wire_params)

    @_once
    def key_json(self) -> str:
        """`key_params` as compact JSON with sorted keys: the call's params as each of its keys
        (the response cache's, a dataset's resume, a tape's) has them, whatever the spelling."""
        params = self.key_params
        if type(params) is list and params == self.wire_params:
            for value in params:
                if type(value) not in _PLAIN:
                    break
            else:  # text and ints, as the wire has them: no keys to sort, its text is the key's
                return self.wire_json
        return _SORTED_JSON.encode(params)

    @property
    def rpc_method(self) -> str:
        """The JSON-RPC `method` field: the catalog name, or the inner method for TON's jsonRPC."""
        if self.method.surface is Surface.JSONRPC_NAMED:
            return self.arguments["method"]
        return self.method.name

    def argument(self, key: str | int) -> Any:
        """An argument by parameter name, position, or ``object.field`` path (how RU rules and
        cache pinning name their block parameter)."""
        if isinstance(key, int):
            params = self.wire_params
            return params[key] if isinstance(params, list) and key < len(params) else None
        name, _, inner = key.partition(".")
        value = self.arguments.get(name)
        return value.get(inner) if inner and isinstance(value, Mapping) else value


Check = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class Method:
    name: str  # the exact spec name: JSON-RPC method, or REST path without leading slash
    chains: tuple[str, ...]
    surface: Surface
    params: tuple[Param, ...]
    result: str  # result kind, read by helpers and frames
    ru: Rule
    summary: str
    helper: str  # the typed helper's name on the chain client
    section: str  # the spec's section letter
    path: str = ""  # REST path, or a fixed JSON-RPC path like /jsonrpc; "" = node's RPC path
    checks: tuple[Check, ...] = ()  # cross-parameter rules; they may normalise arguments
    notes: tuple[str, ...] = field(default=())
    # The argument that pins the answer to a block (a parameter name or ``object.field``), or
    # ALWAYS; None: the archive rule's block parameter, if any. See the client's response cache.
    pinned_by: str | None = None
    in_spec: bool = True  # False: a read method real clients call first, beyond the spec
    # The typed helper's arguments and input transforms, where it takes more than the
    # parameters by their own names (see _inputs.py); raw calls and workloads skip both.
    args: tuple[Arg, ...] = ()
    inputs: tuple[Input, ...] = ()

    @_once
    def param_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    @_once
    def pin(self) -> str | int | None:
        """Where the answer's block is (`pinned_by`, else the archive rule's block parameter),
        ALWAYS, or None: the answer depends on the present and is never cached."""
        if self.pinned_by is not None:
            return self.pinned_by
        return getattr(self.ru, "param", None)

    @_once
    def keyed(self) -> bool:
        """Whether a value of some parameter has spellings that are one (see `key_params`)."""
        return any(p.keyed for p in self.params)

    def key_params(self, params: Any) -> Any:
        """The call's params (wire form: a JSON-RPC list, a REST body or query; or read back
        from a dataset or a tape) with each value in its one canonical form (`Param.key`):
        a checksummed and a lower-case address, a TRON address in hex and in base58, a TON one
        raw and user-friendly are one value. Every key of a call is made of this, so one
        call written two ways is one call to the cache, a dataset and a tape."""
        if not self.keyed:
            return params
        if isinstance(params, list) and self.surface is Surface.JSONRPC:
            keyed = [p.key(value) for p, value in zip(self.params, params, strict=False)]
            return keyed + params[len(keyed) :]
        if isinstance(params, dict) and self.surface is not Surface.JSONRPC_NAMED:
            by_name = {p.name: p for p in self.params}
            return {
                name: by_name[name].key(value) if name in by_name else value
                for name, value in params.items()
            }
        return params

    @_once
    def helper_args(self) -> tuple[Arg, ...]:
        """The typed helper's arguments: the declared `args`, else the parameters'."""
        return self.args or args_of_params(self.params)

    def param_at(self, path: str) -> Param:
        """The parameter, or an object parameter's field, at ``name.field`` (an `Arg.fills`)."""
        name, *inner = path.split(".")
        param = self.param(name)
        for part in inner:
            param = next(f for f in param.fields if f.name == part)
        return param

    def helper_arguments(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """The call's arguments by parameter name, for `given` (a helper's arguments by Python
        name, as its caller gave them): each argument, or its default, where it `fills`, then
        the input transforms. `bind` checks the result as it checks a raw call."""
        arguments: dict[str, Any] = {}
        try:
            for arg in self.helper_args:
                value = given.get(arg.name, arg.default)
                if value is None or value is REQUIRED or (arg.collects and not value):
                    continue
                fill(arguments, arg.fills, value)
            for transform in self.inputs:
                transform(arguments)
        except ValidationError as error:
            error.method = self.name
            raise
        return arguments

    def typed(self, result: Any) -> Any:
        """The helper's value of a raw result that passed its kind's check (an int for a
        quantity, the one record of an asset lookup, ...); most kinds are the result itself."""
        convert = TYPED_VALUES.get(self.result)
        return convert(result) if convert is not None else result

    @property
    def http_method(self) -> str:
        return "GET" if self.surface in (Surface.REST_GET, Surface.PLATFORM) else "POST"

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def bind(self, *args: Any, **kwargs: Any) -> BoundCall:
        """Validate a call and return it in wire form; raise ValidationError naming the rule.

        Positional arguments follow the spec's parameter order; keywords use the spec's names.
        A keyword that is a field of exactly one object parameter (``encoding`` for
        simulateTransaction's ``config``) goes into that object.

        Validation is a pure function of the arguments, so a call made of plain text, ints and
        None is validated once: binding it again (a workload planned again, the same address at
        many blocks) returns the same `BoundCall`, and what is worked out from it (its cache
        key, its JSON) is worked out once too.
        """
        key = _memo_key(args, kwargs)
        if key is not None:
            memo = _memo_of(self)
            known = memo.get(key)
            if known is not None:
                return known
        if key is not None and not kwargs and self.surface is Surface.JSONRPC and not self.checks:
            bound = self._bind_positional(args)  # plain positional arguments
        else:
            bound = self._bind(args, kwargs)
        if key is not None:
            _remember(memo, key, bound)
        return bound

    def bind_many(self, calls: Iterable[tuple[tuple[Any, ...], dict[str, Any]]]) -> list[BoundCall]:
        """`bind` for many calls, given as ``(args, kwargs)`` pairs: a workload planned again
        finds its calls remembered without a call to `bind` for each (unpacking the arguments
        into `bind` was most of the time of re-planning). Raises on the first bad call, as
        `bind` would."""
        memo, plain = _memo_of(self), _PLAIN
        remembered = memo.get
        positional = self.surface is Surface.JSONRPC and not self.checks
        # Each position's values checked so far, by value (a grid repeats its values).
        seen: list[dict[Any, tuple[Any, ...]]] = [{} for _ in self.params]
        bound = []
        for args, kwargs in calls:
            if kwargs:
                key = _memo_key(args, kwargs)
            else:  # positional arguments (a grid): `_memo_key` inlined, a call less per call
                key = args
                for value in args:
                    if type(value) not in plain:
                        key = None
                        break
            if key is None:
                bound.append(self._bind(args, kwargs))
                continue
            known = remembered(key)
            if known is None:
                # Bound here, not through `bind`: that would work out the key again.
                if kwargs or not positional:
                    known = self._bind(args, kwargs)
                else:
                    known = self._bind_positional(args, seen)
                if len(memo) >= _BOUND_MAX:  # `_remember`, inlined
                    memo.clear()
                memo[key] = known
            bound.append(known)
        return bound

    def _bind_positional(
        self, args: tuple[Any, ...], seen: list[dict[Any, tuple[Any, ...]]] | None = None
    ) -> BoundCall:
        """`_bind` for a JSON-RPC call of plain positional arguments, one for each parameter
        and none of them None, on a method without cross-parameter checks (a grid's calls):
        each value checked through `_CHECKED`, and the call's wire params and their JSON text
        made as its arguments are, from the values' remembered texts (a first run reads both
        for every call). Any other call is bound by `_bind`. `seen`: each position's entries
        found so far, by value (plain values of exact types, so equal values are the same
        argument), for many calls bound in a row."""
        params = self.params
        if len(args) != len(params):
            return self._bind(args, {})
        if seen is None:
            seen = [{} for _ in params]
        arguments: dict[str, Any] = {}
        wire: list[Any] = []
        texts: list[str] = []
        for p, value, known_values in zip(params, args, seen, strict=True):
            known = known_values.get(value)
            if known is None:
                if value is None:
                    return self._bind(args, {})
                key = (id(p), type(value), value)
                known = _CHECKED.get(key)
                if known is None or known[0] is not p:
                    try:
                        known = _check_and_remember(p, value, key)
                    except ValidationError as error:
                        error.method = self.name
                        raise
                    if known[2] is None:  # a wire value that is not plain: no text for it
                        return self._bind(args, {})
                known_values[value] = known
            arguments[p.name] = value = known[1]
            wire.append(value)
            texts.append(known[2])
        bound = _new_object(BoundCall)
        # What `BoundCall.__init__` sets, and what `wire_params`, `wire_json` and `params_json`
        # would work out, set as they would store them.
        fields = bound.__dict__
        fields["method"] = self
        fields["arguments"] = arguments
        fields["wire_params"] = wire
        fields["wire_json"] = fields["params_json"] = "[" + ",".join(texts) + "]"
        return bound

    def _bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> BoundCall:
        if len(args) > len(self.params):
            raise ValidationError(
                f"takes at most {len(self.params)} parameters "
                f"({', '.join(p.name for p in self.params)}), got {len(args)}",
                method=self.name,
                rule="arity",
            )
        values: Iterable[Any]
        if kwargs:
            given: dict[str, Any] = dict(zip(self.param_names, args, strict=False))
            for key, value in kwargs.items():
                self._place_keyword(given, key, value)
            values = map(given.get, self.param_names)
        else:  # positional only (a grid): the values in order, None for those not given
            values = chain(args, repeat(None, len(self.params) - len(args)))
        arguments: dict[str, Any] = {}
        try:
            for p, value in zip(self.params, values, strict=True):
                if value is None and p.has_default:
                    value = p.default
                if value is None:
                    if p.required:
                        raise ValidationError("is required", param=p.name, rule="required")
                    continue
                arguments[p.name] = _checked_plain(p, value)
            for check in self.checks:
                check(arguments)
        except ValidationError as error:
            error.method = self.name
            raise
        return BoundCall(self, arguments)

    def _place_keyword(self, given: dict[str, Any], key: str, value: Any) -> None:
        if key in self.param_names:
            if key in given:
                raise ValidationError(
                    "given both by position and by keyword", param=key, rule="arity"
                )
            given[key] = value
            return
        owners = [p for p in self.params if any(f.name == key for f in p.fields)]
        if len(owners) == 1:
            owner = owners[0].name
            current = given.get(owner) or {}
            if not isinstance(current, Mapping):
                raise ValidationError(
                    f"must be an object to take the keyword {key!r}, got {current!r}",
                    param=owner,
                    rule="type",
                    method=self.name,
                )
            inner = dict(current)
            inner[key] = value
            given[owner] = inner
            return
        close = _close_matches(key, self.param_names, n=1)
        hint = (
            f"; did you mean {close[0]!r}?"
            if close
            else f"; it takes {', '.join(self.param_names)}"
        )
        raise ValidationError(
            f"unknown parameter {_shown(key)}{hint}",
            param=key if len(key) <= 64 else clip(key, 60),
            rule="unknown-param",
            method=self.name,
        )
