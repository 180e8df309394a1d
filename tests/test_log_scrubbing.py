"""The toolkit scrubs its own log records and those of the libraries it drives, and leaves the
user's logging as it found it: no record factory, no filter on the user's loggers or handlers,
no logger made before its library, unless the user asks (`toolkit.scrub_logging`)."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys

import pytest

import toolkit
from toolkit._redact import LOGGER_FAMILIES, ScrubSecrets

USER_PROCESS = """\
import asyncio, logging

factory = logging.getLogRecordFactory()
import toolkit
from toolkit.sandbox import Sandbox

assert logging.getLogRecordFactory() is factory is logging.LogRecord
# No library's logger is made before the library: a logging.config.dictConfig of the user's
# (which disables the loggers that exist) would silence it.
made = {"httpx", "httpcore.http11", "aiohttp.client", "uvicorn.error"}
made &= set(logging.root.manager.loggerDict)
assert not made, made

lines = []

class Keep(logging.Handler):
    def emit(self, record):
        lines.append((record.name, self.format(record)))

handler = Keep()
logging.basicConfig(level=logging.INFO, handlers=[handler], format="%(message)s")
mine = logging.getLogger("myapp")

with Sandbox(seed=3, head_pace=0) as sandbox:
    info = sandbox.info
    url = info["nodes"]["ethereum-mainnet"]
    key = url.rsplit("/", 1)[-1]
    gw = toolkit.Gateway(info["platform_url"], info["api_key"], nodes=info["nodes"])
    eth = gw.node("ethereum-mainnet")
    eth.block_number()

    async def aio():
        await eth.aio.block_number()
        await eth.aio.aclose()

    asyncio.run(aio())
    gw.nodes()
    mine.info("my own line, with %s", url)
    try:
        raise ValueError(f"my own error: {key}")
    except ValueError:
        mine.exception("mine failed")
    assert logging.getLogRecordFactory() is logging.LogRecord
    assert mine.filters == [] and handler.filters == [] and logging.getLogger().filters == []
    users = [text for name, text in lines if name == "myapp"]
    assert users[0] == f"my own line, with {url}", users  # untouched
    assert users[1].startswith("mine failed") and f"ValueError: my own error: {key}" in users[1]
    requests = [text for name, text in lines if name == "httpx"]
    assert len(requests) >= 2 and all(key not in text for text in requests), requests
    assert all(info["api_key"] not in text for name, text in lines if name != "myapp")

    toolkit.scrub_logging()  # the root logger's handlers, on request
    mine.info("again, with %s", url)
    assert lines[-1] == ("myapp", "again, with " + url.replace(key, "***")), lines[-1]
gw.close()
print("ok")
"""


def test_a_users_own_logging_is_untouched_unless_asked():
    done = subprocess.run(
        [sys.executable, "-c", USER_PROCESS], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().endswith("ok")


def test_every_logger_of_the_libraries_the_toolkit_drives_is_scrubbed(sandbox):
    """Each logger of httpx, httpcore, aiohttp and uvicorn that exists once they were used, the
    children included (a filter on a parent does not see its children's records), and no
    other logger."""
    info = sandbox.info
    for transport in ("aiohttp", "httpx"):
        eth = toolkit.node(
            info["nodes"]["ethereum-mainnet"],
            chain="ethereum",
            cache=False,
            async_transport=transport,
        )
        eth.block_number()

        async def aio(node):
            await node.aio.block_number()
            await node.aio.aclose()

        asyncio.run(aio(eth))
        eth.close()
    loggers = {
        name: logger
        for name, logger in logging.root.manager.loggerDict.items()
        if isinstance(logger, logging.Logger)
    }
    for expected in ("httpx", "httpcore.http11", "httpcore.connection", "aiohttp.client"):
        assert expected in loggers
    for expected in ("uvicorn.error", "uvicorn.access"):
        assert expected in loggers
    ours = {name for name in loggers if name.split(".")[0] in LOGGER_FAMILIES}
    unscrubbed = [
        name for name in ours if not any(isinstance(f, ScrubSecrets) for f in loggers[name].filters)
    ]
    assert not unscrubbed
    others = [
        name
        for name, logger in loggers.items()
        if name not in ours and any(isinstance(f, ScrubSecrets) for f in logger.filters)
    ]
    assert not others


def test_scrub_logging_takes_handlers_once_each():
    handler = logging.Handler()
    toolkit.scrub_logging(handler)
    toolkit.scrub_logging(handler)
    assert [type(f) for f in handler.filters] == [ScrubSecrets]
    with pytest.raises(TypeError, match="handlers, not Logger"):
        toolkit.scrub_logging(logging.getLogger("myapp"))


def test_a_scrubbed_handler_after_one_that_formatted_the_traceback_still_scrubs_it():
    """A formatter keeps the traceback it wrote on the record (`exc_text`), and the next
    handler writes that text: a handler given to `scrub_logging` after an unscrubbed one must
    scrub it there too."""
    import io

    from toolkit._redact import register_secret

    key = "TracebackKey0a1b2c3d4e5f"
    register_secret(key)
    logger = logging.getLogger("myapp.traceback")
    logger.propagate = False
    mine, scrubbed = io.StringIO(), io.StringIO()
    handlers = [logging.StreamHandler(mine), logging.StreamHandler(scrubbed)]
    toolkit.scrub_logging(handlers[1])
    for handler in handlers:
        logger.addHandler(handler)
    try:
        raise ValueError(f"refused {key}")
    except ValueError:
        logger.exception("failed")
    finally:
        for handler in handlers:
            logger.removeHandler(handler)
        logger.propagate = True
    assert f"refused {key}" in mine.getvalue()  # the user's own handler: untouched
    assert "ValueError: refused ***" in scrubbed.getvalue() and key not in scrubbed.getvalue()
