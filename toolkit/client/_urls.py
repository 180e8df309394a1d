"""Node and platform addresses as the toolkit accepts them, checked before anything is sent.

A URL is text with a scheme (http or https) and a host; whitespace at either end is dropped (a
value from a file ends with a newline, which httpx would refuse with a bare `InvalidURL`), inside
it is refused. A URL that carries a key goes over HTTPS, or plain HTTP only to loopback, unless
`allow_insecure_http`: the rule, and what counts as carrying a key, is in docs/connecting.md,
"Keys and secrets".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._errors import ValidationError
from .._redact import key_material, redact_url, warn
from ..catalog.encoding import is_loopback_host
from ._http import LazyModule

if TYPE_CHECKING:
    import httpx
else:
    httpx = LazyModule("httpx", globals())  # imported on first use: see `_http.LazyModule`


def clean_url(url: object, *, param: str = "url", source: str = "") -> str:
    """`url` without surrounding whitespace, once it is an http(s) URL with a host; else a
    `ValidationError` naming `param` (and `source`, where the URL came from). The URL itself is
    never quoted: it may hold a key that is not registered as a secret yet."""
    where = f" ({source})" if source else ""
    if not isinstance(url, str):
        raise ValidationError(
            f"must be the http(s) URL as text{where}, got {type(url).__name__}",
            param=param,
            rule="type",
        )
    stripped = url.strip()
    if not stripped:
        raise ValidationError(f"is empty{where}", param=param, rule="type")
    if any(character.isspace() or not character.isprintable() for character in stripped):
        raise ValidationError(
            f"has whitespace or a control character inside the URL{where}; a URL has none",
            param=param,
            rule="url",
        )
    scheme, separator, _ = stripped.partition("://")
    if not separator or not scheme or "/" in scheme:
        raise ValidationError(
            f"has no scheme{where}: write it in full, as https://host/... ",
            param=param,
            rule="scheme",
        )
    if scheme.lower() not in ("http", "https"):
        raise ValidationError(
            f"must be an http:// or https:// URL{where}, not {scheme[:16]}://",
            param=param,
            rule="scheme",
        )
    try:
        parsed = httpx.URL(stripped)
    except httpx.InvalidURL:
        parsed = None
    if parsed is None or not parsed.host:
        raise ValidationError(f"is not a URL with a host{where}", param=param, rule="url")
    return stripped


def carries_key(url: str) -> bool:
    """Whether `url` holds what may be a key: a path, a ``user:password@`` or a key-like query
    parameter (by its name, or a value that reads as key material)."""
    parsed = httpx.URL(url)
    if parsed.userinfo or parsed.path.strip("/"):
        return True
    return bool(key_material(url))  # the one rule of what is key material (`_redact`)


def check_key_in_clear(
    url: str,
    *,
    param: str = "url",
    source: str = "",
    allow_insecure_http: bool = False,
    keyed: bool | None = None,
) -> None:
    """Refuse `url` (a `ValidationError`, rule ``https``) when it would send a key over plain
    HTTP to a host other than loopback; with `allow_insecure_http`, warn instead.

    `keyed` says whether a key goes with every request whatever the URL (the platform API's
    Bearer header); None works it out from the URL (`carries_key`)."""
    parsed = httpx.URL(url)
    if parsed.scheme == "https" or is_loopback_host(parsed.host):
        return
    if not (carries_key(url) if keyed is None else keyed):
        return
    where = f" ({source})" if source else ""
    shown = redact_url(url)
    if allow_insecure_http:
        warn(
            f"{param}{where}: the key goes over plain HTTP to {shown}, because "
            "allow_insecure_http=True; anyone on the network path can read it",
            stacklevel=3,
        )
        return
    raise ValidationError(
        f"needs HTTPS: {shown}{where} would send its key in clear over plain HTTP. Use "
        "https://; plain HTTP is allowed on loopback, or on a private network you trust with "
        "allow_insecure_http=True",
        param=param,
        rule="https",
    )


def checked_url(
    url: object,
    *,
    param: str = "url",
    source: str = "",
    allow_insecure_http: bool = False,
    keyed: bool | None = None,
) -> str:
    """`clean_url`, then `check_key_in_clear`: the URL to use."""
    cleaned = clean_url(url, param=param, source=source)
    check_key_in_clear(
        cleaned, param=param, source=source, allow_insecure_http=allow_insecure_http, keyed=keyed
    )
    return cleaned
