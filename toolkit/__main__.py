"""Command line: ``python -m toolkit <command>``.

    python -m toolkit sandbox [--host 127.0.0.1] [--port 0] [--seed 0] [--head-pace 1.0]
                              [--plan Developer] [--rate-limit NODE=CALLS_PER_S ...]
                              [--rate-limit-reply rate-limit] [--log-range-error infura]
    python -m toolkit report NOTEBOOK --tape TAPE -o REPORT.html [-p name=value ...]
                             [--record] [--no-code]
    python -m toolkit report --verify REPORT.html --tape TAPE
    python -m toolkit --version
    python -m toolkit COMMAND --help

The sandbox command prints one JSON line (``{"platform_url", "api_key", "nodes"}``) first, then
serves until SIGINT or SIGTERM and exits 0. The report command's exit codes: 0 rendered or
verified; 1 a cell differs (verify names it); 2 bad arguments or files; 3 a cell of the notebook
raised (render); 4 every cell verified but the tape is not the report's (docs/reports.md).
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
    _add_report_command(commands)
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
    sandbox.add_argument(
        "--plan",
        help="enforce this plan's limits on every node: its request rate (a batch of N calls "
        "counts N) and its eth_getLogs block range (Developer: 25 calls/s, 100 blocks); off by "
        "default",
    )
    sandbox.add_argument(
        "--rate-limit",
        action="append",
        default=[],
        metavar="NODE=CALLS_PER_S",
        help="a node's own ceiling of calls a second, over the plan's (repeat for more nodes)",
    )
    sandbox.add_argument(
        "--rate-limit-reply",
        choices=("rate-limit", "rate-limit-html", "rate-limit-rpc"),
        default="rate-limit",
        help="how a node over its ceiling refuses: HTTP 429 with Retry-After, nginx's 429 page, "
        "or a JSON-RPC -32005 error with try_again_in (default %(default)s)",
    )
    sandbox.add_argument(
        "--log-range-error",
        choices=("infura", "alchemy", "tenderly", "reth"),
        default="infura",
        help="whose words refuse an eth_getLogs range over the plan's cap (default %(default)s)",
    )
    sandbox.set_defaults(run=_run_sandbox)


def _node_rates(given: list[str]) -> dict[str, float]:
    """``NODE=CALLS_PER_S`` options as a mapping; a malformed one is a ValueError naming it."""
    rates = {}
    for option in given:
        name, _, rate = option.partition("=")
        try:
            rates[name] = float(rate)
        except ValueError:
            raise ValueError(f"--rate-limit takes NODE=CALLS_PER_S, got {option!r}") from None
    return rates


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
    try:
        sandbox = Sandbox(
            args.seed,
            host=args.host,
            port=args.port,
            head_pace=args.head_pace,
            clock=args.clock,
            allow_remote=True,
            plan=args.plan,
            rate_limits=_node_rates(args.rate_limit),
            rate_limit_reply=args.rate_limit_reply,
            log_range_error=args.log_range_error,
        )
    except ValueError as error:
        print(f"python -m toolkit sandbox: {error}", file=sys.stderr)
        return 2
    with sandbox:
        # A process of its own: what it built to serve (modules, the world) stays until it
        # exits, so the garbage collector's full collections need not walk it again.
        gc.freeze()
        print(json.dumps(sandbox.info), flush=True)
        while not stop.wait(0.5):
            pass
    return 0


def _add_report_command(commands: argparse._SubParsersAction) -> None:
    report = commands.add_parser(
        "report",
        help="render a notebook from its tape as an HTML report, or verify one",
        description="Run NOTEBOOK replaying TAPE (or recording it, --record) and write one "
        "self-contained HTML report whose footer names the tape's SHA-256, RU, nodes and heads; "
        "or, with --verify, run a report's notebook again from TAPE offline (0 RU) and name "
        "each cell that shows something else. Exit codes: 0 done; 1 a cell differs; 2 bad "
        "arguments or files; 3 a cell raised; 4 verified, but from another tape.",
    )
    report.add_argument("notebook", nargs="?", metavar="NOTEBOOK", help="the .ipynb to render")
    report.add_argument("--tape", required=True, help="the tape to replay (or record)")
    report.add_argument("-o", "--output", metavar="REPORT.html", help="where to write the report")
    report.add_argument(
        "-p",
        "--parameter",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set a parameter, after the cell tagged `parameters` (a Python literal, else text)",
    )
    report.add_argument(
        "--record", action="store_true", help="record the tape (your key's calls are billed)"
    )
    report.add_argument("--no-code", action="store_true", help="hide the code cells' source")
    report.add_argument("--verify", metavar="REPORT.html", help="verify this report instead")
    report.set_defaults(run=_run_report)


def _run_report(args: argparse.Namespace) -> int:
    from ._errors import ValidationError
    from .reports import EXIT_USAGE, ReportError, parse_parameters, render, verify

    def usage(message: str) -> int:
        print(f"python -m toolkit report: {message}", file=sys.stderr)
        return EXIT_USAGE

    try:
        if args.verify:
            if args.notebook or args.output or args.parameter or args.record:
                return usage("--verify takes only the report and --tape")
            verdict = verify(args.verify, args.tape)
            print(verdict, file=sys.stderr if verdict.exit_code else sys.stdout)
            return verdict.exit_code
        if not args.notebook or not args.output:
            return usage("give a NOTEBOOK and -o REPORT.html (or --verify REPORT.html)")
        facts = render(
            args.notebook,
            args.tape,
            args.output,
            parameters=parse_parameters(args.parameter),
            record=args.record,
            code=not args.no_code,
        )
    except ValidationError as error:
        return usage(str(error))
    except ReportError as error:
        print(f"python -m toolkit report: {error}", file=sys.stderr)
        return error.exit_code
    print(f"{args.output}: from tape {facts.sha256[:16]}... ({facts.ru:,} RU recorded)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
