"""`Sandbox`: the gateway app served by uvicorn on loopback, in a daemon thread, or in process.

`start()` binds the socket itself (port 0 picks a free one), so the URLs are known before the
server thread runs, and returns once the server accepts connections (a few tens of milliseconds).
`in_process()` serves nothing: its URLs name port 0 (where nothing listens) and requests are
handed to the gateway's core directly (the client's in-process transport).
`shared_sandbox()` starts one process-wide sandbox on first use; `toolkit.connect()` uses it.
"""

from __future__ import annotations

import asyncio
import atexit
import socket
import threading
import time
from collections.abc import Mapping
from typing import Any

from .._browser import in_browser
from .._errors import NeedsCPython
from .._redact import scrub_logs
from ..catalog.encoding import is_loopback_host
from ._app import SandboxApp, create_app
from ._faults import TRANSPORT_STATE_KEY, Faults
from ._limits import Limits
from ._metering import PLATFORM, Metering
from ._world import World

_START_TIMEOUT_S = 10.0
IN_PROCESS_PORT = 0  # the port of an in-process sandbox's URLs: nothing can listen there
SERVER_KEEPALIVE_S = 5  # an idle connection is closed after this long (see `Sandbox.start`)


def _protocol_class() -> type:
    """uvicorn's h11 protocol, handing each connection's transport to the app (scope state),
    so that the `drop` fault can close a socket without sending a single byte."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class TransportSharingH11Protocol(H11Protocol):
        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self.app_state = {**self.app_state, TRANSPORT_STATE_KEY: transport}

    return TransportSharingH11Protocol


class Sandbox:
    """An embedded gateway with seven nodes, a platform API, RU metering and fault knobs.

        >>> from toolkit.sandbox import Sandbox
        >>> with Sandbox(seed=0) as sandbox:
        ...     sandbox.info["nodes"]["ethereum-mainnet"]   # the node's URL, its key in the path
        'http://127.0.0.1:...'

    `clock` moves the chain heads: ``"requests"`` (each node request served is a second of
    sandbox time: the same calls see the same heads) or ``"wall"``; `head_pace` scales it (0
    freezes them); `root_hash_cap` is the
    `bor_getRootHash` range limit. `batch_limit` (off by default) is the most calls a JSON-RPC
    batch may hold: a larger one is refused as geth refuses it (``--rpc.batch-request-limit``),
    one -32600 "batch too large" error for the whole batch, billed as received.
    A plan's limits are off by default. `plan` (``"Developer"``) puts every node on that plan of
    `toolkit.DEFAULT_PRICING`: its request rate (25 calls a second, a batch of N counting N)
    and its eth_getLogs cap (100 blocks a call); `rate_limits` sets nodes' own ceilings
    (``{"arbitrum-mainnet": 250}``; None lifts one). Over its ceiling a node answers at once
    in the `rate_limit_reply` shape (``"rate-limit"``: HTTP 429 with Retry-After;
    ``"rate-limit-html"``: nginx's 429 page; ``"rate-limit-rpc"``: a JSON-RPC -32005 error with
    ``data.try_again_in``), not billed; an oversized log range is refused in the words of
    `log_range_error` (``"infura"``, ``"alchemy"``, ``"tenderly"`` or ``"reth"``).
    `in_process()` instead of `start()`: no socket and no thread (what a browser's Python
    allows), its URLs at port 0. Non-loopback
    hosts need `allow_remote=True`: the sandbox has no TLS and hands its keys to anyone who asks
    `info`.
    """

    def __init__(
        self,
        seed: int = 0,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        head_pace: float = 1.0,
        clock: str = "requests",
        root_hash_cap: int = 1024,
        batch_limit: int | None = None,
        allow_remote: bool = False,
        plan: str | None = None,
        rate_limits: Mapping[str, float | None] | None = None,
        rate_limit_reply: str = "rate-limit",
        log_range_error: str = "infura",
    ):
        if batch_limit is not None and (type(batch_limit) is not int or batch_limit < 1):
            raise ValueError(
                f"batch_limit must be a whole number of calls, 1 or more: {batch_limit!r}"
            )
        if not allow_remote and not is_loopback_host(host):
            raise ValueError(
                f"refusing to serve on {host!r}: the sandbox has no TLS and no real secrets, and "
                "anyone who can reach the port can use it; pass allow_remote=True if you mean it"
            )
        self.host = host
        self.requested_port = port
        self.world = World(seed, head_pace=head_pace, clock=clock, root_hash_cap=root_hash_cap)
        names = [node.name for node in self.world.served_nodes]
        self.meter = Metering(names)
        self.faults = Faults(seed, [*names, PLATFORM])
        self.limits = Limits(
            names,
            plan=plan,
            rate_limits=rate_limits,
            rate_limit_reply=rate_limit_reply,
            log_range_error=log_range_error,
        )
        self.app = create_app(
            self.world,
            meter=self.meter,
            faults=self.faults,
            batch_limit=batch_limit,
            limits=self.limits,
        )
        self.gateway: SandboxApp = self.app.state.gateway  # the core both ways in share
        self.reachable_in_process = False
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None

    # --- life cycle ----------------------------------------------------------------------------

    def start(self) -> Sandbox:
        if self._thread is not None:
            return self
        if in_browser():
            raise NeedsCPython(
                "serving the sandbox on a socket (Sandbox.start, shared_sandbox(serve=True)) needs "
                "a CPython kernel: a browser tab opens no server socket and starts no thread. "
                "Here use Sandbox().in_process(), which toolkit.connect() uses with no key"
            )
        import uvicorn

        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        # proto=IPPROTO_TCP matters: only then does asyncio set TCP_NODELAY on accepted
        # connections; without it every keep-alive request waits 40 ms for a delayed ACK.
        sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, self.requested_port))
        sock.listen(512)
        config = uvicorn.Config(
            self.app,
            log_level="warning",
            access_log=False,
            lifespan="off",
            http=_protocol_class(),
            # An idle connection is closed after 5 s, as uvicorn and Node's http do by default
            # (the client keeps one for less: `client._http.KEEPALIVE_S`).
            timeout_keep_alive=SERVER_KEEPALIVE_S,
            timeout_graceful_shutdown=2,
        )
        server = uvicorn.Server(config)
        scrub_logs()  # uvicorn's loggers, made by its import and its logging config
        thread = threading.Thread(
            target=_serve, args=(server, sock), name="toolkit-sandbox", daemon=True
        )
        self._server, self._socket, self._thread = server, sock, thread
        thread.start()
        deadline = time.monotonic() + _START_TIMEOUT_S
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the sandbox server did not start")
            time.sleep(0.002)
        return self

    def in_process(self) -> Sandbox:
        """Serve in this process only: no socket, no thread. The URLs name port 0, where nothing
        listens, unless `start()` serves it on loopback too."""
        self.reachable_in_process = True
        return self

    def stop(self) -> None:
        self.reachable_in_process = False
        if self._thread is None:
            return
        self._server.should_exit = True
        self._thread.join(timeout=5)
        if self._socket is not None:
            self._socket.close()
        self._server = self._thread = self._socket = None

    def __enter__(self) -> Sandbox:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # --- what users read -----------------------------------------------------------------------

    @property
    def port(self) -> int:
        """The port it serves on, or 0 when it is reachable in process only."""
        if self._socket is None:
            if self.reachable_in_process:
                return IN_PROCESS_PORT
            raise RuntimeError("the sandbox is not running: call start() or in_process() first")
        return self._socket.getsockname()[1]

    @property
    def platform_url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def info(self) -> dict[str, Any]:
        """``{"platform_url", "api_key", "nodes": {name: base URL with access key}}``."""
        return self._info(self.platform_url)

    @property
    def in_process_info(self) -> dict[str, Any]:
        """`info` at the addresses reached in process (port 0), served on loopback too or not:
        what `toolkit.connect()` uses, so that it opens no socket once another process (a Dask
        worker) has had the sandbox served for it."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return self._info(f"http://{host}:{IN_PROCESS_PORT}")

    def _info(self, platform_url: str) -> dict[str, Any]:
        return {
            "platform_url": platform_url,
            "api_key": self.world.api_key,
            "nodes": {n.name: f"{platform_url}/{n.key}" for n in self.world.served_nodes},
        }

    @property
    def ceilings(self) -> dict[str, float]:
        """Calls a second each node allows, for the nodes with a ceiling (`plan`,
        `rate_limits`): what a client connected in process holds itself to by default."""
        return self.limits.rates

    def metering(self) -> dict[str, dict[str, Any]]:
        """Usage per node name (and "platform"): requests, calls, ru, by_method."""
        return self.meter.snapshot()

    def reset_metering(self) -> dict[str, dict[str, Any]]:
        return self.meter.reset()

    def __repr__(self) -> str:
        state = self.platform_url if self._socket else "stopped"
        if self._socket is None and self.reachable_in_process:
            state = "in process"
        return f"<Sandbox seed={self.world.seed} {state}>"


def _serve(server: Any, sock: socket.socket) -> None:
    """Run uvicorn on a loop this thread makes and owns. Not `server.run()`: that calls
    ``asyncio.run(..., loop_factory=...)``, which the original nest-asyncio replaces with a
    version lacking `loop_factory` on Python 3.12+, so the server would never start."""
    loop = asyncio.new_event_loop()
    try:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(server.serve(sockets=[sock]))
    finally:
        asyncio.set_event_loop(None)
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()


_shared: Sandbox | None = None
_shared_lock = threading.Lock()


def shared_sandbox(*, serve: bool = True) -> Sandbox:
    """The process-wide sandbox, made on first call (thread-safe): served on loopback, or with
    ``serve=False`` reachable in process only (until a call asks for it served)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = Sandbox().in_process()
            atexit.register(_shared.stop)
        if serve:
            _shared.start()
        return _shared
