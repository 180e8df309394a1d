"""Command line: ``python -m toolkit <command>``.

    python -m toolkit sandbox [--host 127.0.0.1] [--port 0] [--seed 0] [--head-pace 1.0]
    python -m toolkit --version
    python -m toolkit COMMAND --help

The sandbox command prints one JSON line (``{"platform_url", "api_key", "nodes"}``) first, then
serves until SIGINT or SIGTERM and exits 0.
"""

from __future__ import annotations

import argparse
import gc
import json
import signal
import sys
import threading

from ._version import __version__


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    return args.run(args)


def parser() -> argparse.ArgumentParser:
    """The command line: its commands, each with its own ``--help``."""
    command_line = argparse.ArgumentParser(
        prog="python -m toolkit",
        description="node-gateway-toolkit: a Jupyter toolkit for a hosted blockchain node gateway.",
        epilog="`python -m toolkit COMMAND --help` shows a command's options.",
    )
    command_line.add_argument(
        "--version", action="version", version=f"node-gateway-toolkit {__version__}"
    )
    commands = command_line.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_sandbox_command(commands)
    return command_line


def _add_sandbox_command(commands: argparse._SubParsersAction) -> None:
    sandbox = commands.add_parser(
        "sandbox",
        help="serve the embedded sandbox gateway",
        description="Serve the embedded sandbox gateway. The first stdout line is a JSON object "
        "with platform_url, api_key and the nodes' URLs; SIGINT or SIGTERM stops it.",
    )
    sandbox.add_argument(
        "--host", default="127.0.0.1", help="loopback address (default %(default)s)"
    )
    sandbox.add_argument("--port", type=int, default=0, help="0 picks a free port (default)")
    sandbox.add_argument("--seed", type=int, default=0, help="world seed (default %(default)s)")
    sandbox.add_argument(
        "--clock",
        choices=("requests", "wall"),
        default="requests",
        help="what moves the chain heads: each node request served is a second of sandbox time "
        "(requests: the same calls see the same heads), or wall time (default %(default)s)",
    )
    sandbox.add_argument(
        "--head-pace", type=float, default=1.0, help="head speed vs. real block times; 0 freezes"
    )
    sandbox.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a non-loopback host (no TLS; anyone reaching the port can use it)",
    )
    sandbox.set_defaults(run=_run_sandbox)


def _run_sandbox(args: argparse.Namespace) -> int:
    from .catalog.encoding import is_loopback_host
    from .sandbox import Sandbox

    if not args.allow_remote and not is_loopback_host(args.host):
        print(
            f"refusing to serve on {args.host}: the sandbox speaks plain HTTP and prints its keys, "
            "so anyone who can reach the port could use it. Use a loopback address "
            "(127.0.0.1, ::1, localhost) or pass --allow-remote if you really mean it.",
            file=sys.stderr,
        )
        return 2
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    sandbox = Sandbox(
        args.seed,
        host=args.host,
        port=args.port,
        head_pace=args.head_pace,
        clock=args.clock,
        allow_remote=True,
    )
    with sandbox:
        # A process of its own: what it built to serve (modules, the world) stays until it
        # exits, so the garbage collector's full collections need not walk it again.
        gc.freeze()
        print(json.dumps(sandbox.info), flush=True)
        while not stop.wait(0.5):
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
