"""The gateway handle: the platform API, the nodes, and one meter (ledger, budget, pricing).

`connect()` with no arguments makes (or reuses) the embedded sandbox, reached in process; with a
platform URL and API key, or the environment variables below, it reaches a real gateway. The
variables, where a node's URL and key come from, and what their errors name are in
docs/connecting.md:

    NODE_GATEWAY_PLATFORM_URL, NODE_GATEWAY_API_KEY    the platform API, and its key
    NODE_GATEWAY_NODE_<NAME>, NODE_GATEWAY_KEY_<NAME>  a node's whole URL, or its key alone
    NODE_GATEWAY_CACHE                                 the response cache (`cache_word`)
"""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal, TypedDict, Unpack, overload

from .._errors import ValidationError
from .._redact import clip, key_material, register_secret, register_url, warn
from .._reprs import key_values_html
from ..catalog import CHAINS, Chain, PricingTable, chain_for
from ..catalog.encoding import is_loopback_host
from ._cache import CacheSetting, ResponseCache
from ._core import NodeCore, NodeSpec
from ._http import LazyModule
from ._ledger import Ledger
from ._node import Node, resolve_chain
from ._platform import Platform, bad_record, platform_core
from ._ratelimit import RateLimiter
from ._settings import (
    RateLimitSetting,
    Settings,
    SettingsOptions,
    Shared,
    settings_from,
    takes_settings,
)
from ._tape import Tape
from ._transport import ANY_FAILURE, KEY_REFUSED, Advice
from ._urls import check_key_in_clear, checked_url, clean_url

if TYPE_CHECKING:
    import httpx

    from ._chains import ArbitrumNode, EvmNode, PolygonNode, SolanaNode, TonNode, TronNode
else:
    httpx = LazyModule("httpx", globals())  # imported on first use: see `_http.LazyModule`

ENV_PLATFORM_URL = "NODE_GATEWAY_PLATFORM_URL"
ENV_API_KEY = "NODE_GATEWAY_API_KEY"
ENV_NODE_PREFIX = "NODE_GATEWAY_NODE_"
ENV_KEY_PREFIX = "NODE_GATEWAY_KEY_"
RUNNING = "running"  # the one node status the spec shows: a node that serves calls


def env_name(node_name: str) -> str:
    """``ethereum-mainnet`` -> ``ETHEREUM_MAINNET``."""
    return re.sub(r"[^A-Z0-9]", "_", node_name.upper())


def make_node(
    url: str,
    shared: Shared,
    *,
    chain: str | Chain | None = None,
    name: str | None = None,
    source: str = "",
    advice: tuple[Advice, ...] = (),
) -> Node:
    """A blocking client of the right class for the node's chain, on `shared` settings.
    `source` says where `url` came from, for an error about it; `advice` what explains a call
    that fails (`Advice`)."""
    from ._chains import NODE_CLASSES

    url = checked_url(url, source=source, allow_insecure_http=shared.settings.allow_insecure_http)
    register_url(url)
    resolved = resolve_chain(chain, url, name)
    core = NodeCore(url, resolved, shared=shared, name=name, advice=advice)
    return NODE_CLASSES[resolved.name](core)


def _check_chain(client: Node, chain: str | Chain) -> None:
    """A client made before for this name serves `chain`, as its typed signature promises."""
    wanted = chain if isinstance(chain, Chain) else chain_for(chain)
    if client.chain.name != wanted.name:
        raise ValidationError(
            f"node {client.name!r} serves {client.chain.name}, not {wanted.name}",
            param="chain",
            rule="chain",
        )


def open_nodes(specs: Iterable[NodeSpec], settings: Settings) -> dict[str, Node]:
    """Nodes by name, opened from their specs on one meter (one ledger, one budget), as a worker
    of a distributed run opens the coordinator's nodes."""
    specs = list(specs)
    shared = Shared(settings, remote=any(_is_remote(spec.url) for spec in specs))
    return {
        spec.name: make_node(spec.url, shared, chain=spec.chain, name=spec.name) for spec in specs
    }


def _environ(name: str) -> str | None:
    """An environment variable's value without surrounding whitespace (a value pasted from a
    file keeps its newline); None when unset or blank."""
    return os.environ.get(name, "").strip() or None


def _node_key(name: str, endpoint: str, key: str | None) -> tuple[str | None, str]:
    """The access key to append to a node record's `endpoint`, and where it came from: `key`,
    else ``NODE_GATEWAY_KEY_<NAME>``, only when the endpoint holds no key of its own (another
    key after it makes a path the node does not serve: HTTP 404)."""
    variable = ENV_KEY_PREFIX + env_name(name)
    holds_key = bool(key_material(endpoint))
    if key is not None:
        key = _checked_key(key, "key", "")
        if holds_key:
            raise ValidationError(
                f"the platform's record of node {name!r} holds a key in its endpoint already; a "
                "second one would make a path the node does not serve. Leave key= out, or pass "
                "the node's whole URL with url=...",
                param="key",
                rule="conflict",
            )
        return key, "key="
    from_environment = _environ(variable)
    if from_environment is None:
        return None, ""
    from_environment = _checked_key(from_environment, "key", variable)
    if holds_key:
        warn(
            f"{variable} is set, but the platform's record of node {name!r} holds a key in its "
            f"endpoint already: {variable} is not used (unset it; to use another key, pass the "
            "node's whole URL with url=... or NODE_GATEWAY_NODE_<NAME>)",
            stacklevel=4,
        )
        return None, ""
    return from_environment, variable


def _checked_key(key: object, param: str, source: str) -> str:
    """An access key as one path segment, without surrounding whitespace; else a
    `ValidationError` naming `param` and `source` (never quoting the key)."""
    where = f" ({source})" if source else ""
    if not isinstance(key, str):
        raise ValidationError(
            f"must be the access key as text{where}, got {type(key).__name__}",
            param=param,
            rule="type",
        )
    key = key.strip()
    register_secret(key)
    if not key:
        raise ValidationError(f"is empty{where}", param=param, rule="type")
    if any(c.isspace() or not c.isprintable() or c in "/?#" for c in key):
        raise ValidationError(
            f"must be the access key alone{where}: no whitespace, control character or any of "
            "/ ? # inside (for a whole URL, use url=... or NODE_GATEWAY_NODE_<NAME>)",
            param=param,
            rule="key",
        )
    return key


def _status_advice(name: str, status: object) -> list[Advice]:
    """A warning, and what a failed call will say, for a node the platform lists with a status
    other than ``running`` (the only status the spec shows; a stopped node answers 503)."""
    if status is None or status == RUNNING:
        return []
    listed = f"the platform lists node {name!r} as {clip(repr(status), 40)}, not {RUNNING!r}"
    warn(f"{listed}: its calls may fail until it runs", stacklevel=4)
    return [Advice(ANY_FAILURE, listed)]


def _is_remote(url: str) -> bool:
    return not is_loopback_host(httpx.URL(url).host)


class _Where(TypedDict, total=False):
    """`Gateway.node`'s keywords besides `chain`, as its overloads take them."""

    url: str | None
    key: str | None


class Gateway:
    """A connection to a gateway: `platform`, `node(name)`, and the shared `ledger` and budget.

    Every node client made here shares one meter, so the ledger and the budget cover them all.
    """

    @takes_settings
    def __init__(
        self,
        platform_url: str,
        api_key: str,
        *,
        nodes: dict[str, str] | None = None,
        sandbox: Any = None,
        settings: Settings | None = None,
        _sources: dict[str, str] | None = None,
        **options: Unpack[SettingsOptions],
    ):
        """The options are those of `connect` (the fields of `Settings`), or a whole
        `settings` (the options then change it). (`_sources` is `connect`'s: the environment
        variables `platform_url` and `api_key` came from, named by the errors about them.)"""
        register_secret(api_key)
        settings = settings_from(settings, dict(options), where="Gateway")
        sources = _sources or {}
        # Checked in platform_core; cleaned here for `_is_remote`.
        platform_url = clean_url(
            platform_url, param="platform_url", source=sources.get("platform_url", "")
        )
        if sandbox is not None and settings.trust_env:
            settings = settings.replace(trust_env=False)  # in this process: never via a proxy
        self.settings = settings
        self.sandbox = sandbox
        remote = sandbox is None and _is_remote(platform_url)
        self.shared = Shared(self.settings, remote=remote, sandbox=sandbox)
        self.meter = self.shared.meter
        self.platform = Platform(platform_core(platform_url, api_key, self.shared, sources=sources))
        self._node_urls: dict[str, str] = {}
        for node_name, url in dict(nodes or {}).items():
            cleaned = clean_url(url, source=f"nodes[{node_name!r}]")
            register_url(cleaned)
            if not settings.allow_insecure_http:  # allowed ones warn when their client is made
                check_key_in_clear(cleaned, source=f"nodes[{node_name!r}]")
            self._node_urls[node_name] = cleaned
        self._nodes: dict[str, Node] = {}
        if self.shared.tape is not None and self._recorded is None:
            self.shared.tape.header.update(
                gateway=self.description,
                sandbox_seed=self.sandbox_seed,
                # The nodes this handle knows without asking the platform: a replay knows them.
                known_nodes={n: httpx.URL(u).netloc.decode() for n, u in self._node_urls.items()},
            )
            if sandbox is not None:  # a replay counts time as the recording did
                self.shared.tape.header["request_s"] = sandbox.world.clock.request_s

    # --- nodes ---

    @property
    def clients(self) -> dict[str, Node]:
        """The node clients this handle has made so far, by name."""
        return dict(self._nodes)

    @property
    def node_names(self) -> list[str]:
        """Names of the nodes whose URLs this handle already knows (the sandbox's, or given)."""
        return list(self._node_urls)

    def nodes(self, *, ordering: str | None = None) -> list[dict[str, Any]]:
        """Every node of the organization, from the platform API (all pages)."""
        return self.platform.list_nodes(ordering=ordering)

    # A checker knows the node's class when `chain` names the chain: ``gw.node(name,
    # chain="ethereum")`` is an `EvmNode`, its helpers typed (tests/test_types.py).
    @overload
    def node(
        self, name: str, *, chain: Literal["ethereum", "hyperliquid"], **given: Unpack[_Where]
    ) -> EvmNode: ...
    @overload
    def node(
        self, name: str, *, chain: Literal["arbitrum"], **given: Unpack[_Where]
    ) -> ArbitrumNode: ...
    @overload
    def node(
        self, name: str, *, chain: Literal["polygon"], **given: Unpack[_Where]
    ) -> PolygonNode: ...
    @overload
    def node(
        self, name: str, *, chain: Literal["solana"], **given: Unpack[_Where]
    ) -> SolanaNode: ...
    @overload
    def node(self, name: str, *, chain: Literal["tron"], **given: Unpack[_Where]) -> TronNode: ...
    @overload
    def node(self, name: str, *, chain: Literal["ton"], **given: Unpack[_Where]) -> TonNode: ...
    @overload
    def node(
        self, name: str, *, chain: str | Chain | None = ..., **given: Unpack[_Where]
    ) -> Node: ...
    def node(
        self,
        name: str,
        *,
        url: str | None = None,
        key: str | None = None,
        chain: str | Chain | None = None,
    ) -> Node:
        """A client for the node called `name` (cached: the same name gives the same client).

        The node's URL comes from `url`, else the URLs this handle was given, else
        ``NODE_GATEWAY_NODE_<NAME>``, else the platform API's record of the node, to which the
        access key from `key` or ``NODE_GATEWAY_KEY_<NAME>`` is appended when the record's
        endpoint has none (docs/connecting.md, "Where a node's key comes from").
        """
        if chain is not None and name in self._nodes and url is None and key is None:
            _check_chain(self._nodes[name], chain)
        if not isinstance(name, str) or not name:
            raise ValidationError(
                f"must be a node's name (text), got {clip(repr(name), 60)}",
                param="name",
                rule="type",
            )
        if name in self._nodes and url is None and key is None:
            return self._nodes[name]
        record_chain, source = chain, ""
        advice: tuple[Advice, ...] = ()
        if url is None and name in self._node_urls:
            url, source = self._node_urls[name], f"nodes[{name!r}]"
        if url is None:
            variable = ENV_NODE_PREFIX + env_name(name)
            url, source = _environ(variable), variable
            if url is not None:
                advice = (Advice(KEY_REFUSED, f"the node's URL and its key came from {variable}"),)
        if url is None:
            url, record_chain, advice = self._url_from_platform(name, key, chain)
            source = f"the platform's record of node {name!r}"
        client = make_node(
            url, self.shared, chain=record_chain, name=name, source=source, advice=advice
        )
        self._nodes[name] = client
        return client

    def __getitem__(self, name: str) -> Node:
        """``gw[name]`` is ``gw.node(name)``."""
        return self.node(name)

    def _url_from_platform(
        self, name: str, key: str | None, chain: str | Chain | None
    ) -> tuple[str, str | Chain | None, tuple[Advice, ...]]:
        records = self.nodes()  # each an object with its fields' types checked (`checked_page`)
        position, record = next(
            ((i, r) for i, r in enumerate(records) if name in (r.get("name"), r.get("id"))),
            (0, None),
        )
        if record is None:
            known = ", ".join(sorted(str(r.get("name")) for r in records)) or "none"
            raise ValidationError(
                f"no node named {name!r} in this organization (nodes: {known})",
                param="name",
                rule="unknown-node",
            )
        endpoint = ((record.get("details") or {}).get("https_endpoint") or "").strip()
        if not endpoint:
            raise ValidationError(f"node {name!r} has no https_endpoint", param="name")
        advice = _status_advice(name, record.get("status"))
        key, source = _node_key(name, endpoint, key)
        if key:
            endpoint = endpoint.rstrip("/") + "/" + key
            fix = f"unset {source}" if source.startswith(ENV_KEY_PREFIX) else "leave out key="
            advice.append(
                Advice(
                    KEY_REFUSED,
                    f"the access key at the end of its URL came from {source}, appended to the "
                    f"https_endpoint of the platform's record of node {name!r}: if that endpoint "
                    f"holds the key already, {fix}; otherwise check the key (the platform's web "
                    "console shows it)",
                )
            )
        protocol = record.get("protocol")
        if chain is None and protocol:
            try:
                chain_for(protocol)
            except ValidationError:
                known = ", ".join(c for c in CHAINS if c != "platform")
                raise bad_record(
                    record,
                    position,
                    "protocol",
                    f"is {clip(repr(protocol), 40)}, not a chain this toolkit serves ({known}); "
                    "pass chain=... if the node speaks one of them",
                ) from None
        return endpoint, chain or protocol, tuple(advice)

    # --- money ---

    @property
    def ledger(self) -> Ledger:
        return self.meter.ledger

    @property
    def budget(self):
        return self.meter.budget

    def set_budget(self, ru: int | None) -> None:
        """Never spend more than `ru` request units from now on (RU already spent count)."""
        self.meter.set_budget(ru)

    @property
    def pricing(self) -> PricingTable:
        return self.meter.pricing

    @pricing.setter
    def pricing(self, table: PricingTable) -> None:
        self.meter.pricing = table

    # --- the response cache and the rate limit, shared by every node of this handle ---

    @property
    def cache(self) -> ResponseCache | None:
        """The response cache (None when off); see `set_cache`."""
        return self.shared.cache

    def set_cache(self, cache: CacheSetting) -> None:
        """Use another response cache: a path, True (the default file), a `ResponseCache`, or
        None/False to turn caching off, for this handle's nodes now and later."""
        self.shared.set_cache(cache)

    @property
    def rate_limit(self) -> RateLimiter | None:
        """The limiter all of this handle's nodes share (a number's); None when each node has
        its own at its plan's rate (`Node.rate_limiter`) or there is no limit."""
        return self.shared.limiter

    def set_rate_limit(self, rate_limit: RateLimitSetting) -> None:
        """How fast this handle's calls leave, now and later: a number of calls per second
        (or a `RateLimiter`) for all of its nodes together, a plan name such as "Developer"
        for each node at that plan's rate, "auto" for each node at its known ceiling, or None
        for no client-side limit (`Settings.rate_limit`)."""
        self.shared.set_rate_limit(rate_limit)

    def close(self) -> None:
        self.platform.close()
        for client in self._nodes.values():
            client.close()
        if self.shared.tape is not None:
            self.shared.tape.close()

    @property
    def tape(self) -> Tape | None:
        """The tape this handle records into or replays from (None: none)."""
        return self.shared.tape

    @property
    def _recorded(self) -> dict[str, Any] | None:
        """Replaying, what the tape says of the gateway it was recorded from (None: live)."""
        return None if self.shared.tape is None else self.shared.tape.recorded_gateway

    @property
    def sandbox_seed(self) -> int | None:
        """The seed of the embedded sandbox this handle talks to, or that the tape it replays
        was recorded from (its demo world is the same for one seed); None for a real gateway."""
        if self._recorded is not None:
            return self._recorded.get("sandbox_seed")
        return None if self.sandbox is None else self.sandbox.world.seed

    @property
    def description(self) -> str:
        """Which gateway this is, for a provenance record: the sandbox and its seed, or the
        platform's host; replaying, the gateway the tape was recorded from."""
        if self._recorded is not None:
            return self._recorded.get("gateway") or "a recorded gateway"
        if self.sandbox is not None:
            return f"embedded sandbox (seed {self.sandbox.world.seed})"
        return self.platform.name

    def __enter__(self):
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _where(self) -> str:
        """What the handle reaches, in a few words (never a URL, port or key)."""
        if self.shared.tape is not None and self._recorded is not None:
            return f"tape {self.shared.tape.path.name} (from {self.description})"
        return "embedded sandbox" if self.sandbox is not None else self.platform.name

    def __repr__(self) -> str:
        where = self._where()
        return (
            f"<Gateway {where}: {len(self._node_urls)} known nodes, "
            f"{self.ledger.total_ru:,} RU spent>"
        )

    def _repr_html_(self) -> str:
        """What the handle reaches and what it spent (node names only, never URLs or keys)."""
        budget = self.budget
        rows = [
            ("gateway", self._where()),
            ("known nodes", ", ".join(self._node_urls) or "none yet"),
            ("clients open", ", ".join(self._nodes) or "none yet"),
            ("calls", f"{len(self.ledger):,}"),
            ("RU spent", f"{self.ledger.total_ru:,}"),
            (
                "budget",
                f"{max(0, budget.remaining):,} of {budget.limit:,} RU left"
                if budget is not None
                else "none set",
            ),
        ]
        return key_values_html("Gateway", rows)


@takes_settings
def connect(
    platform_url: str | None = None,
    api_key: str | None = None,
    *,
    nodes: dict[str, str] | None = None,
    sandbox: bool | None = None,
    settings: Settings | None = None,
    **options: Unpack[SettingsOptions],
) -> Gateway:
    """A gateway handle.

    - ``connect()``: the embedded sandbox, made on first use and reused after, reached in
      process (no socket, no thread; ``gw.sandbox.start()`` serves it on loopback for others),
      unless ``NODE_GATEWAY_PLATFORM_URL`` and ``NODE_GATEWAY_API_KEY`` are both set, in which
      case the real gateway they name (``sandbox=True`` forces the sandbox).
    - ``connect(platform_url=..., api_key=...)``: a real gateway. `nodes` maps node names to
      their URLs (with access keys) when you have them.

    `cache`: answers that can never change are kept on disk and never paid for twice. The
    default, ``"auto"``, caches for a real gateway (in ``~/.cache/node-gateway-toolkit/``) and
    not for the sandbox (``NODE_GATEWAY_CACHE`` may say otherwise); ``True``, ``False``, a file
    path or a `ResponseCache` choose yourself, and text reads as the variable does: ``"off"``,
    ``"on"``, ``"auto"``, else a file path.
    `tape`, `tape_mode`: record the calls' answers into a tape file, or replay them from it with
    no key and no network (``"record"``, ``"replay"``, or ``"auto"``: replay when the file
    exists); by default from ``NODE_GATEWAY_TAPE`` and ``NODE_GATEWAY_TAPE_MODE``. A folder
    of tapes gives the notebook's own (``NODE_GATEWAY_NOTEBOOK`` or Jupyter names it; else the
    folder's only tape). Replaying, ``connect()`` needs no gateway at all: the tape names the
    nodes. See the Tapes guide.
    The other options (`budget`, `rate_limit`, `timeout`, ...) are the fields of `Settings`,
    which says what each means. The same options go to `node`, `platform` and `Gateway`;
    ``settings=`` passes them all at once (a `Settings`), the keywords then changing it.
    """
    settings = settings_from(settings, dict(options), where="connect")
    tape = settings.open_tape
    recorded = None if tape is None else tape.recorded_gateway
    if recorded is not None and platform_url is None and api_key is None:
        assert tape is not None  # replaying it: the tape names the nodes
        return replaying_gateway(tape, settings, nodes)
    sources: dict[str, str] = {}
    missing = ""
    if platform_url is None and api_key is None and sandbox is not True:
        platform_url, api_key = _environ(ENV_PLATFORM_URL), _environ(ENV_API_KEY)
        if platform_url and api_key:
            sources = {"platform_url": ENV_PLATFORM_URL, "api_key": ENV_API_KEY}
        elif platform_url or api_key:
            given, missing = (
                (ENV_PLATFORM_URL, ENV_API_KEY) if platform_url else (ENV_API_KEY, ENV_PLATFORM_URL)
            )
            if sandbox is None:
                warn(
                    f"{given} is set but {missing} is not: connect() uses the embedded "
                    "sandbox (set both to reach your gateway)"
                )
            platform_url = api_key = None
    if platform_url is None and api_key is None:
        if sandbox is False:
            unset = f" ({missing} is not set)" if missing else ""
            raise ValidationError(
                "sandbox=False needs platform_url and api_key (or the environment variables "
                f"{ENV_PLATFORM_URL} and {ENV_API_KEY}){unset}",
                param="platform_url",
            )
        from ..sandbox import shared_sandbox

        running = shared_sandbox(serve=False)  # reached in process: no socket, no thread
        info = running.in_process_info
        return Gateway(
            info["platform_url"],
            info["api_key"],
            nodes={**info["nodes"], **(nodes or {})},
            sandbox=running,
            settings=settings,
        )
    if not platform_url or not api_key:
        raise ValidationError(
            "a real gateway needs both platform_url and api_key", param="platform_url"
        )
    return Gateway(platform_url, api_key, nodes=nodes, settings=settings, _sources=sources)


def replaying_gateway(
    tape: Tape, settings: Settings, nodes: dict[str, str] | None = None
) -> Gateway:
    """A handle on what a tape recorded: its nodes by name, at their recorded hosts (so a
    dataset's call identity is the recording's), and an API key of its own; no socket is
    ever opened (every client answers from the tape)."""
    token = secrets.token_hex(8)

    def url(host: str, path: str) -> str:
        scheme = "http" if is_loopback_host(httpx.URL(f"http://{host}").host) else "https"
        return f"{scheme}://{host or 'tape.invalid'}{path}"

    recorded = tape.nodes
    platform = next((n for n in recorded.values() if n["chain"] == "platform"), {"host": ""})
    hosts = dict(tape.header.get("known_nodes") or {})
    hosts.update((n, info["host"]) for n, info in recorded.items() if info["chain"] != "platform")
    urls = {name: url(host, f"/{token}") for name, host in hosts.items()}
    return Gateway(
        url(platform["host"], ""), token, nodes={**urls, **(nodes or {})}, settings=settings
    )


class _NodeOptions(SettingsOptions, total=False):
    """`node`'s keywords besides `url` and `chain`, as its overloads take them."""

    name: str | None
    settings: Settings | None


# As `Gateway.node`: `chain` naming the chain tells a checker the node's class.
@overload
def node(
    url: str, *, chain: Literal["ethereum", "hyperliquid"], **options: Unpack[_NodeOptions]
) -> EvmNode: ...
@overload
def node(
    url: str, *, chain: Literal["arbitrum"], **options: Unpack[_NodeOptions]
) -> ArbitrumNode: ...
@overload
def node(
    url: str, *, chain: Literal["polygon"], **options: Unpack[_NodeOptions]
) -> PolygonNode: ...
@overload
def node(url: str, *, chain: Literal["solana"], **options: Unpack[_NodeOptions]) -> SolanaNode: ...
@overload
def node(url: str, *, chain: Literal["tron"], **options: Unpack[_NodeOptions]) -> TronNode: ...
@overload
def node(url: str, *, chain: Literal["ton"], **options: Unpack[_NodeOptions]) -> TonNode: ...
@overload
def node(url: str, *, chain: str | Chain | None = ..., **options: Unpack[_NodeOptions]) -> Node: ...
@takes_settings
def node(
    url: str,
    *,
    chain: str | Chain | None = None,
    name: str | None = None,
    settings: Settings | None = None,
    **options: Unpack[SettingsOptions],
) -> Node:
    """A standalone client for one node URL (its access key in the path), with its own ledger.

    The chain comes from `chain`, else from `name` or the URL's host (``ethereum-mainnet...``).
    The options (`budget`, `pricing`, `cache`, `rate_limit`, ..., or a whole ``settings=``) are
    those of `connect`.
    """
    settings = settings_from(settings, dict(options), where="node")
    url = clean_url(url)
    return make_node(url, Shared(settings, remote=_is_remote(url)), chain=chain, name=name)
