"""Keeping secrets out of everything a person can see.

Node URLs carry the access key as a path segment, so the whole path of a node's base URL is treated
as secret; platform API keys are secret outright, and so are the credentials some platform node
records carry (`hide_credentials`). Every secret the toolkit meets is registered here, and `scrub`
removes all registered secrets from any text (exception messages, log lines, reprs).
"""

from __future__ import annotations

import logging
import threading
from typing import Any
from urllib.parse import urlsplit

REDACTED = "***"

# Shorter strings are too likely to occur by chance in ordinary text (hex data, numbers).
_MIN_SECRET_LENGTH = 6

_lock = threading.Lock()
_secrets: set[str] = set()
_ordered: tuple[str, ...] = ()


def register_secret(value: str | None) -> None:
    """Remember `value` so that `scrub` hides it wherever it appears."""
    global _ordered
    if not value or len(value) < _MIN_SECRET_LENGTH:
        return
    with _lock:
        if value in _secrets:
            return
        _secrets.add(value)
        # Longest first, so a URL is replaced whole before the key inside it.
        _ordered = tuple(sorted(_secrets, key=len, reverse=True))


def register_url(url: str) -> None:
    """Register a node URL: the whole URL and each path segment that could be a key."""
    register_secret(url)
    register_secret(url.rstrip("/"))
    for segment in urlsplit(url).path.split("/"):
        register_secret(segment)


# Fields of platform node records that hold credentials: the v1 API shows a node's
# auth_username, auth_password and auth_key in `details`.
CREDENTIAL_FIELDS = frozenset(
    {"auth_key", "auth_password", "auth_username", "api_key", "access_key", "password", "secret"}
)


class Secret(str):
    """A credential that works as its text (compare, format, send it) but whose repr is ``'***'``,
    so a record holding it can be printed, displayed or logged without showing it."""

    __slots__ = ()

    def __repr__(self) -> str:
        return repr(REDACTED)


def hide_credentials(record: Any) -> Any:
    """`record` (a node record, a page of them, or any JSON) with every credential field's value
    registered as a secret and wrapped in `Secret`; other values are left as they are."""
    if isinstance(record, list):
        return [hide_credentials(item) for item in record]
    if not isinstance(record, dict):
        return record
    hidden = {}
    for key, value in record.items():
        if key in CREDENTIAL_FIELDS and isinstance(value, str) and value:
            register_secret(value)
            hidden[key] = Secret(value)
        else:
            hidden[key] = hide_credentials(value)
    return hidden


def scrub(text: str) -> str:
    """Return `text` with every registered secret replaced by ``***``."""
    for secret in _ordered:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


def redact_url(url: str | None) -> str | None:
    """Show a node URL without its path: ``https://host/***``.

    The path is where access keys live, so all of it goes; scheme, host and port stay, because they
    tell the user which node is meant. A URL with no path has nothing to hide and is kept.
    """
    if url is None:
        return None
    parts = urlsplit(url)
    if not parts.netloc:
        return REDACTED
    host = parts.netloc.rsplit("@", 1)[-1]  # user:password@ is a secret too
    if parts.path.strip("/") or parts.query:
        return f"{parts.scheme}://{host}/{REDACTED}"
    return f"{parts.scheme}://{host}"


class ScrubbingFilter(logging.Filter):
    """Rewrites each log record with every registered secret scrubbed from its message.

    httpx logs every request URL at INFO, and node URLs carry access keys.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = scrub(message)
        if cleaned != message:
            record.msg, record.args = cleaned, ()
        return True


_FILTER = ScrubbingFilter()
LOGGERS = ("httpx", "httpcore", "toolkit", "uvicorn", "uvicorn.error", "uvicorn.access")


def scrub_logs() -> None:
    """Attach the scrubbing filter to the loggers that can see URLs (idempotent)."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
