"""Keeping secrets out of everything a person can see.

Node URLs carry the access key as a path segment, so the whole path of a node's base URL is treated
as secret; platform API keys are secret outright, and so are the credentials some platform node
records carry (`hide_credentials`). Every secret the toolkit meets is registered here, and `scrub`
removes all registered secrets from any text (exception messages, log lines, reprs).

This is the one scrubbing point for text that leaves the toolkit: errors scrub their message and
every attribute (`scrub_value`), error snippets scrub a body before cutting it, warnings go
through `warn`, and the records of the toolkit's loggers and of the HTTP libraries it drives are
scrubbed by a filter on those loggers (`scrub_logs`); `scrub_logging` extends that to a user's
own handlers, on request.
"""

from __future__ import annotations

import base64
import logging
import re
import threading
import traceback
import warnings
from typing import Any
from urllib.parse import SplitResult, quote, unquote, unquote_plus, urlsplit, urlunsplit

REDACTED = "***"

# Shorter strings are too likely to occur by chance in ordinary text (hex data, numbers).
_MIN_SECRET_LENGTH = 6

_lock = threading.Lock()
_secrets: set[str] = set()
_ordered: tuple[str, ...] = ()


def register_secret(value: str | None) -> None:
    """Remember `value` so that `scrub` hides it wherever it appears.

    A key read from a file often ends with a newline; it is also registered without the
    surrounding whitespace, which is how it shows in a header or a URL.
    """
    global _ordered
    if not isinstance(value, str):
        return
    forms = {value, value.strip()}
    forms = {form for form in forms if len(form) >= _MIN_SECRET_LENGTH and form not in _secrets}
    if not forms:
        return
    with _lock:
        _secrets.update(forms)
        # Longest first, so a URL is replaced whole before the key inside it.
        _ordered = tuple(sorted(_secrets, key=len, reverse=True))
    scrub_logs()  # a library imported since may have made loggers


def register_url(url: str) -> None:
    """Register the key material of a node URL (see `key_material`), as written,
    percent-decoded (a ``+`` read as a space too, as a server reads a query) and percent-encoded;
    and a ``user:password@``'s Basic Authorization header, in which it is sent.

    Only the key material: scheme, host, port and the words of the path or query (``polygon`` in
    Ankr's ``/polygon/<key>``, ``ethereum`` in dRPC's ``?network=ethereum&dkey=<key>``) are what
    tell the user which node is meant, and registered as secrets they were scrubbed from every
    node name and label (``***-mainnet``). `redact_key_material` hides the same pieces.
    """
    if not isinstance(url, str):
        return
    for piece in key_material(url.strip()):
        for form in {piece, unquote(piece), unquote_plus(piece), quote(unquote(piece), safe="")}:
            register_secret(form)
    parts = _split(url.strip())
    if parts is not None and (parts.username or parts.password):  # sent as its Basic header
        pair = f"{unquote(parts.username or '')}:{unquote(parts.password or '')}"
        register_secret(base64.b64encode(pair.encode()).decode())


# Fields of platform node records that hold credentials: the v1 API shows a node's
# auth_username, auth_password and auth_key in `details`.
CREDENTIAL_FIELDS = frozenset(
    {"auth_key", "auth_password", "auth_username", "api_key", "access_key", "password", "secret"}
)


_URL_SCHEMES = ("http://", "https://", "ws://", "wss://")
_LONGEST_SCHEME = max(map(len, _URL_SCHEMES))  # a slice that long is all `is_url` lowers


def is_url(text: str) -> bool:
    """Whether `text` is written as a URL of the toolkit's schemes (http, https, ws, wss), in
    any case: a scheme is case-insensitive (RFC 3986, 3.1), so ``HTTPS://host/<key>`` is one."""
    return text[:_LONGEST_SCHEME].lower().startswith(_URL_SCHEMES)


class Secret(str):
    """A credential that works as its text (compare, format, send it) but whose repr is ``'***'``,
    so a record holding it can be printed, displayed or logged without showing it."""

    __slots__ = ()

    def __repr__(self) -> str:
        return repr(REDACTED)


class SecretURL(Secret):
    """A URL that carries key material (a node's endpoint in the platform's list): it works as
    its text, and its repr shows it without the key (`redact_key_material`)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return repr(redact_key_material(self))


def hide_credentials(record: Any) -> Any:
    """`record` (a node record, a page of them, or any JSON) with every credential field's value
    registered as a secret and wrapped in `Secret`, and every URL that carries key material
    registered (`register_url`) and wrapped in `SecretURL`; other values are left as they are."""
    if isinstance(record, str):
        if is_url(record) and key_material(record):
            register_url(record)
            return SecretURL(record)
        return record
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


def registered_secrets() -> tuple[str, ...]:
    """Every registered secret, longest first (what `scrub` replaces, in its order)."""
    return _ordered


def scrub(text: str) -> str:
    """Return `text` with every registered secret replaced by ``***``."""
    for secret in _ordered:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


def holds_secret(text: str) -> bool:
    """Whether `text` contains a registered secret."""
    return any(secret in text for secret in _ordered)


_MAX_DEPTH = 200


def scrub_value(value: Any, _depth: int = 0, *, urls: bool = False) -> Any:
    """`value` with every registered secret scrubbed from its text, inside JSON-like containers
    too (an error's ``data``, echoed by a node, may hold a key anywhere). Other values, and
    containers without a secret, are returned as they are. `urls`: text from a gateway, whose
    URLs also lose their key material (`redact_text`), keys never registered included."""
    if isinstance(value, Secret):
        return value
    if isinstance(value, str):
        if urls and "://" in value:
            return redact_text(value)
        return scrub(value) if holds_secret(value) else value
    if _depth > _MAX_DEPTH:
        return REDACTED  # deeper than any answer the transport lets through
    if isinstance(value, dict):
        pairs = [
            (scrub_value(k, _depth + 1, urls=urls), scrub_value(v, _depth + 1, urls=urls))
            for k, v in value.items()
        ]
        changed = any(
            k is not new_k or v is not new_v
            for (k, v), (new_k, new_v) in zip(value.items(), pairs, strict=True)
        )
        return dict(pairs) if changed else value
    if isinstance(value, list | tuple):
        items = [scrub_value(item, _depth + 1, urls=urls) for item in value]
        if not _changed(value, items):
            return value
        return items if isinstance(value, list) else tuple(items)
    return value


def _changed(before: Any, after: Any) -> bool:
    return any(a is not b for a, b in zip(before, after, strict=True))


def clip(text: str, limit: int) -> str:
    """The first `limit` characters of `text` once scrubbed (`redact_text`: URLs in it lose
    their key material too, keys the toolkit was never told of included), with ``...`` when cut.

    Scrub first, then cut: cut first, and a key straddling the cut is no longer recognised, so
    its first characters would stay in the message."""
    cleaned = redact_text(text)
    return cleaned[:limit] + ("..." if len(cleaned) > limit else "")


def warn(message: str, category: type[Warning] = UserWarning, stacklevel: int = 2) -> None:
    """`warnings.warn` with the message scrubbed."""
    warnings.warn(scrub(message), category, stacklevel=stacklevel + 1)


def _split(url: str) -> SplitResult | None:
    """`url`'s parts, or None for text that does not parse as a URL (an IPv6 bracket left open
    in a gateway's answer): such text is hidden whole, never a ValueError."""
    try:
        return urlsplit(url)
    except ValueError:
        return None


def redact_url(url: str | None) -> str | None:
    """Show a node URL without its path: ``https://host/***``.

    The path is where access keys live, so all of it goes; scheme, host and port stay, because they
    tell the user which node is meant. A URL with no path has nothing to hide and is kept.
    """
    if url is None:
        return None
    parts = _split(url)
    if parts is None or not parts.netloc:
        return REDACTED
    host = parts.netloc.rsplit("@", 1)[-1]  # user:password@ is a secret too
    if parts.path.strip("/") or parts.query:
        return f"{parts.scheme}://{host}/{REDACTED}"
    return f"{parts.scheme}://{host}"


_KEY_PARAMETERS = re.compile(r"key|token|secret|auth|pass|sig|credential", re.IGNORECASE)


# A short key is a URL-safe token (RFC 3986's unreserved characters).
_TOKEN = re.compile(r"[A-Za-z0-9._~-]+")
# The parts of a URL's words that hold digits: a word then a number (``eth2``, ``erc721``,
# ``mainnet2``, ``v3``), a number then a word (``1inch``), a version (``v1beta1``), or three
# characters at most (``e2e``, ``l2s``). A random token mixes letters and digits in more runs.
_WORD_PART = re.compile(r"[A-Za-z]*[0-9]*|[0-9]+[A-Za-z]+|v[0-9]+[A-Za-z]+[0-9]*|.{0,3}")
_HEX_NUMBER = re.compile(r"0[xX][0-9a-fA-F]*")  # a chain id or a block in hex, not a key
_SEPARATORS = re.compile(r"[._~-]")


def looks_like_key(text: str) -> bool:
    """Whether a URL's path segment or query value looks like key material.

    16 characters or more without spaces: letters mixed with digits (hex, base58, base64 keys,
    UUIDs) or, for a key that happens to hold no digit, 20 letters or more with both cases well
    mixed. From 6 to 15 characters (a shorter text is never a secret: `register_secret`), a
    URL-safe token that mixes letters and digits the way random text does: not a word with a
    number before or after it, not a version, not a hex number.

    So the words of a URL (``polygon``, ``ethereum-mainnet``, ``v2``, ``jsonRPC``, ``eth2``,
    ``erc721``, ``v1beta1``, ``0xa4b1``, ``getTransactionInfoByBlockNum``) are never keys, and a
    gateway's short token (``k3yT0k9x``, ``a1b2c3d4e5``) is. A short key without a digit, or one
    that reads as a word and a number (``abc123``), cannot be told from a word and is not found."""
    if len(text) < _MIN_SECRET_LENGTH or any(c.isspace() for c in text):
        return False
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return False
    has_digit = any(c.isdigit() for c in text)
    if len(text) < 16:
        return (
            has_digit
            and _TOKEN.fullmatch(text) is not None
            and _HEX_NUMBER.fullmatch(text) is None
            and not all(_WORD_PART.fullmatch(part) for part in _SEPARATORS.split(text))
        )
    if has_digit:
        return True
    upper = sum(c.isupper() for c in letters)
    return len(letters) >= 20 and 0.3 <= upper / len(letters) <= 0.7


def _is_key_parameter(name: str, value: str) -> bool:
    return bool(value) and (
        bool(_KEY_PARAMETERS.search(unquote(name))) or looks_like_key(unquote(value))
    )


def key_material(url: str) -> list[str]:
    """The pieces of `url` that are key material, as written in it: path segments that look like
    keys (`looks_like_key`), values of key-like query parameters (``dkey``, ``apikey``,
    ``token``, ``auth``) or that look like keys, the password of ``user:password@`` and a user
    name that looks like a key (a token as the user name).

    This is the one rule: `register_url` registers these pieces as secrets and
    `redact_key_material` replaces them, so a URL's ordinary words (``polygon``, ``ethereum``,
    ``v2``) are never secrets. A key too short or too plain to be told from a word (see
    `looks_like_key`) is not found by it: labels hide a node URL's whole path anyway
    (`redact_url`)."""
    parts = _split(url)
    if parts is None:
        return []
    pieces = [segment for segment in parts.path.split("/") if looks_like_key(unquote(segment))]
    for pair in parts.query.split("&") if parts.query else ():
        name, equals, value = pair.partition("=")
        if equals and _is_key_parameter(name, value):
            pieces.append(value)
    try:
        password = parts.password
    except ValueError:  # a malformed port: the rest of the URL still counts
        password = None
    if password:
        pieces.append(password)
    if parts.username and looks_like_key(unquote(parts.username)):  # a token as the user name
        pieces.append(parts.username)
    return pieces


def redact_key_material(url: str) -> str:
    """`url` with its key material (`key_material`) replaced by ``***``, and registered secrets
    scrubbed. Scheme, host, port, the words of the path and the other query parameters stay:
    a link (a page's ``next``) keeps working. Not for display: `redact_url` shows a node URL
    without its path at all."""
    parts = _split(url)
    if parts is None:
        return REDACTED
    path = "/".join(
        REDACTED if looks_like_key(unquote(segment)) else segment
        for segment in parts.path.split("/")
    )
    pairs = []
    for pair in parts.query.split("&") if parts.query else ():
        name, equals, value = pair.partition("=")
        if equals and _is_key_parameter(name, value):
            value = REDACTED
        pairs.append(f"{name}{equals}{value}")
    host = parts.netloc.rsplit("@", 1)[-1]  # user:password@ is a secret too
    cleaned = urlunsplit((parts.scheme, host, path, "&".join(pairs), parts.fragment))
    return scrub(cleaned)


# A URL inside text: up to the first space or quote; punctuation that ends a sentence after it
# is the sentence's, not the URL's.
_URL_IN_TEXT = re.compile(r"(?:https?|wss?)://[^\s\"'<>`]+", re.IGNORECASE)
_SENTENCE_END = ".,;:!?)]}"


def redact_text(text: str) -> str:
    """Text from a gateway (an error message, a header, a body that is not JSON) as it may be
    kept or quoted: every URL in it without its key material (`redact_key_material`: a node
    echoes the URL it was called at, keys the toolkit was never told of included), registered
    secrets scrubbed."""
    if is_url(text) and not any(c.isspace() for c in text):
        return redact_key_material(text)  # one URL (or text that only starts like one): whole
    if "://" in text:
        text = _URL_IN_TEXT.sub(_redact_url_in_text, text)
    return scrub(text)


def _redact_url_in_text(match: re.Match[str]) -> str:
    url = match.group()
    kept = url.rstrip(_SENTENCE_END)
    if kept.count("[") > kept.count("]") and url[len(kept) :].startswith("]"):
        kept = url  # an IPv6 host's bracket, not the sentence's
    return redact_key_material(kept) + url[len(kept) :]


def redact_answer(value: Any) -> Any:
    """A JSON value from a gateway (an answer, or a part of one) as it may be kept or quoted:
    URLs without their key material, wherever they are in its text (`redact_text`: the
    platform's node list holds endpoint URLs with keys the toolkit was never told of, and an
    error message may quote the URL it was called at), the values of credential fields
    (`CREDENTIAL_FIELDS`) hidden, registered secrets scrubbed."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, list):
        return [redact_answer(item) for item in value]
    if isinstance(value, dict):
        return {
            scrub(str(key)): REDACTED
            if key in CREDENTIAL_FIELDS and isinstance(item, str) and item
            else redact_answer(item)
            for key, item in value.items()
        }
    return value


# --- log records ------------------------------------------------------------------------------
# The toolkit's own loggers and those of the libraries it drives carry its URLs: httpx logs each
# request URL at INFO, httpcore headers and redirect targets at DEBUG, uvicorn the paths the
# sandbox serves, dask a failed task's arguments. Their records are scrubbed by a filter on each
# of those loggers; every other logger, the user's own included, is left as it is, at no cost
# (a process-wide log record factory would tax each `log.info` of the user's, too).
# A filter on a logger sees only the records logged through that very logger (records of
# ``httpcore.http11`` reach ``httpcore``'s handlers without passing its filters), so the filter
# goes on every logger of those families, children included. The libraries make their loggers
# when imported, some after the toolkit (httpx on a first call, uvicorn with the sandbox), so
# `scrub_logs` looks again wherever one of them may just have been imported. No library's logger
# is made here: one made early is one that `logging.config.dictConfig` would disable.

LOGGER_FAMILIES = (
    "toolkit",
    "httpx",
    "httpcore",
    "aiohttp",
    "hpack",
    "h2",
    "uvicorn",
    "web3",
    "distributed",
)


def _scrub_record(record: logging.LogRecord) -> None:
    try:
        message = record.getMessage()
    except Exception:  # a broken format string: logging reports it; keep only scrubbed text
        message = f"{record.msg!r} % {record.args!r}"
        record.msg, record.args = scrub(message), ()
        return
    if holds_secret(message):
        # Keep the shape of `args` when scrubbing them is enough (formatters such as uvicorn's
        # access log read them); otherwise the message is kept formatted.
        args = record.args
        if isinstance(args, tuple) and isinstance(record.msg, str):
            scrubbed = tuple(scrub(a) if isinstance(a, str) else a for a in args)
            try:
                if not holds_secret(record.msg % scrubbed if scrubbed else record.msg):
                    record.msg, record.args = scrub(record.msg), scrubbed
                else:
                    record.msg, record.args = scrub(message), ()
            except Exception:
                record.msg, record.args = scrub(message), ()
        else:
            record.msg, record.args = scrub(message), ()
    if record.exc_info and not record.exc_text:
        text = "".join(traceback.format_exception(*record.exc_info)).rstrip("\n")
        if holds_secret(text):
            record.exc_text = scrub(text)
    elif record.exc_text and holds_secret(record.exc_text):  # kept by an earlier handler's
        record.exc_text = scrub(record.exc_text)  # formatter, which the next one writes as is
    if record.stack_info and holds_secret(record.stack_info):
        record.stack_info = scrub(record.stack_info)


class ScrubSecrets(logging.Filter):
    """A logging filter that removes every secret the toolkit knows of from a record (its
    message, arguments, traceback and stack) and lets it through."""

    def filter(self, record: logging.LogRecord) -> bool:
        if _ordered:
            _scrub_record(record)
        return True


_FILTER = ScrubSecrets()
_install_lock = threading.Lock()
# What the last look saw: how many loggers (none is ever removed), and the names in the families
# that were only placeholders (a parent named by a child, which becomes a logger when asked for).
_loggers_seen = 0
_placeholders: tuple[str, ...] = ()


def _add_first(filterer: logging.Filterer) -> None:
    # First, so that any other filter there already sees the record scrubbed.
    if _FILTER not in filterer.filters:
        filterer.filters.insert(0, _FILTER)


def scrub_logs() -> None:
    """Put the scrubbing filter on every logger of `LOGGER_FAMILIES` that exists (idempotent,
    and nearly free when no logger was made since the last time)."""
    global _loggers_seen, _placeholders
    loggers = logging.root.manager.loggerDict
    if len(loggers) == _loggers_seen and all(
        isinstance(loggers.get(name), logging.PlaceHolder) for name in _placeholders
    ):
        return
    with _install_lock:
        placeholders = []
        for name, logger in list(loggers.items()):
            if name.split(".", 1)[0] not in LOGGER_FAMILIES:
                continue
            if isinstance(logger, logging.Logger):
                _add_first(logger)
            else:
                placeholders.append(name)
        _loggers_seen, _placeholders = len(loggers), tuple(placeholders)


# The toolkit's own logger is made here, filtered from the start; a module of the toolkit that
# makes a child of it (`logging.getLogger(__name__)`) calls `scrub_logs` once it has.
_add_first(logging.getLogger("toolkit"))


def scrub_logging(*handlers: logging.Handler) -> None:
    """Scrub the toolkit's secrets from every record `handlers` write, whichever logger made
    it (your own included), or from what the root logger's handlers write when none is given.

    The toolkit's loggers and those of the HTTP libraries it drives are always scrubbed; your
    loggers are not touched unless you ask for it here."""
    if not handlers:
        handlers = tuple(logging.getLogger().handlers)
        if not handlers:
            raise ValueError(
                "the root logger has no handler yet: call logging.basicConfig() first, "
                "or pass the handlers to scrub"
            )
    for handler in handlers:
        if not isinstance(handler, logging.Handler):
            raise TypeError(
                f"scrub_logging takes logging handlers, not {type(handler).__name__}: a filter "
                "on a logger does not see the records of its children, a handler's sees them all"
            )
        _add_first(handler)
