"""Serves the classroom's JupyterLite site on 127.0.0.1 (`make lite-serve`) and prints its address.

Any static web server would do; this one only needs the Python that built it. Port 0 takes a
free port (the printed address says which).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import mimetypes
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

# Browsers load a module script only with a JavaScript type, and compile WebAssembly as it
# streams only with its own; older Pythons' tables know neither extension.
mimetypes.add_type("text/javascript", ".mjs")
mimetypes.add_type("application/wasm", ".wasm")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args(argv)
    if not (args.site / "index.html").is_file():
        parser.error(f"{args.site} holds no built site: run `make lite` first")
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(args.site))
    with ThreadingHTTPServer(("127.0.0.1", args.port), handler) as server:
        port = server.server_address[1]
        print(f"the classroom site: http://127.0.0.1:{port}/lab/index.html (Ctrl-C stops)")
        print(
            f"its landing notebook: http://127.0.0.1:{port}/lab/index.html?path=00_start_here.ipynb",
            flush=True,
        )
        with contextlib.suppress(KeyboardInterrupt):
            server.serve_forever()


if __name__ == "__main__":
    main()
