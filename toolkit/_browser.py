"""Whether Python runs in a browser tab (Pyodide, as in JupyterLite): no new threads, no sockets.

The browser path is chosen there, and under CPython when ``NODE_GATEWAY_BROWSER=1``, so that
tests (ours and anyone's) can exercise it. The variable is read at each question, so a test may
set it for one block of code.
"""

from __future__ import annotations

import os
import sys

BROWSER_VARIABLE = "NODE_GATEWAY_BROWSER"


def in_browser() -> bool:
    """True where the toolkit must start no thread and open no socket."""
    return sys.platform == "emscripten" or os.environ.get(BROWSER_VARIABLE) == "1"
