"""The embedded sandbox reached in process: no socket and no thread (what a browser's Python,
JupyterLite or Pyodide, allows), and several times quicker than loopback HTTP.

A request is handed to the sandbox's gateway core (`SandboxApp.handle_url`) as values; the core
routes it, checks its keys, draws its faults and meters it exactly as it does for a request off
the socket, and says what to do: wait a fault's delay, then drop the connection or answer. The
failures read as the wire's do (`_network` makes them): a delay past the call's deadline is a
`ReadTimeout`, a dropped connection a `RemoteProtocolError`.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from ._http import Answer, LazyModule, NoAnswer, Send, Transport
from ._network import deadline_passed, json_bytes, timed_out, too_large, unreachable

if TYPE_CHECKING:
    import asyncio

    import httpx

    from ..sandbox import Handling, Sandbox
else:
    asyncio = LazyModule("asyncio", globals())
    httpx = LazyModule("httpx", globals())  # imported on first use: see `_http.LazyModule`


def in_process_transport(sandbox: Sandbox | None, url: str) -> InProcessTransport | None:
    """The transport for `url` when it is an address of `sandbox` reached in process (its port
    is 0: nothing listens there); None when `url` is reached over the wire (a served sandbox's
    address among them: the wire itself is then what is used, or tested)."""
    if sandbox is None or urlsplit(url).port != 0:
        return None
    return InProcessTransport(sandbox)


def for_another_process(sandbox: Sandbox | None, url: str) -> str:
    """`url` as another process reaches it (a Dask worker's): an address of `sandbox` in
    process only is served on loopback for it, the sandbox started on first need."""
    if sandbox is None or urlsplit(url).port != 0:
        return url
    served = urlsplit(sandbox.start().platform_url).netloc
    return urlunsplit(urlsplit(url)._replace(netloc=served))


class InProcessTransport(Transport):
    """One sandbox's gateway, called directly: the same routing, keys, metering and faults as
    its loopback server, the same answers, without HTTP."""

    def __init__(self, sandbox: Sandbox):
        self.gateway = sandbox.gateway

    def send(self, step: Send) -> Answer | NoAnswer:
        handling, wait = self._hand_over(step)
        if wait:
            time.sleep(wait)
        return _outcome(handling, step)

    async def asend(self, step: Send) -> Answer | NoAnswer:
        handling, wait = self._hand_over(step)
        # Other tasks run, and a cancel lands, while the answer is awaited, as on the wire:
        # once handed over, a call cancelled here went out (metered, maybe billed).
        await asyncio.sleep(wait)
        return _outcome(handling, step)

    def _hand_over(self, step: Send) -> tuple[Handling | NoAnswer, float]:
        """How the gateway handles the step's request (or the error the call ends with), and
        how long to wait first: a fault's delay, or what is left of the deadline when the
        delay outlasts it."""
        if step.deadline <= time.monotonic():
            return deadline_passed(step), 0.0
        request = step.request
        url = request.url
        if request.params is not None:  # merged into the URL's query as httpx merges them
            url = str(httpx.URL(url).copy_merge_params(request.params))
        body = request.content
        if body is None:
            body = b"" if request.json is None else json_bytes(request.json)
        step.delivery.may_have_left = True  # from here on the gateway has it
        handling = self.gateway.handle_url(request.method, url, request.headers, body)
        left = step.deadline - time.monotonic()
        if handling.delay >= left:  # the answer would come after the deadline
            late = TimeoutError("the call's deadline passed")
            return timed_out(late, "ReadTimeout", step, sent=True), max(0.0, left)
        return handling, handling.delay

    def close(self) -> None:
        """Nothing to close: no connection is ever opened."""

    async def aclose(self) -> None:
        """Nothing to close: no connection is ever opened."""


def _outcome(handling: Handling | NoAnswer, step: Send) -> Answer | NoAnswer:
    if isinstance(handling, NoAnswer):
        return handling
    if handling.drop:
        dropped = ConnectionResetError("Server disconnected without sending a response.")
        return unreachable(dropped, "RemoteProtocolError", str(dropped), step, sent=True)
    status, headers, content = handling.reply().sent()
    if len(content) > step.max_bytes:
        return too_large(step.max_bytes, status)
    return Answer(status, httpx.Headers(headers), content)
