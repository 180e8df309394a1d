"""`Reply`: what a sandbox endpoint says back, before faults may distort it.

Endpoints build Answers instead of Starlette responses so that the fault layer can cut, relabel or
replace a body after the fact, and so that every JSON body is serialised in one place, the same
way: compact separators and keys in insertion order, which keeps equal worlds byte-identical.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from starlette.responses import Response

JSON = "application/json"
HTML = "text/html; charset=utf-8"


def json_bytes(body: Any) -> bytes:
    """`body` as compact JSON in UTF-8. A batch's plain JSON-RPC successes (an int id and a text
    result: quantities, hashes, data), most of what a batch answers, are written directly:
    the encoder's work per object costs more than formatting the whole of one. The text is the
    encoder's, byte for byte (`_json_text`)."""
    if type(body) is not list:
        return _json_text(body).encode()
    parts = []
    for item in body:
        if type(item) is dict and tuple(item) == _SUCCESS_KEYS:
            id_, result = item["id"], item["result"]
            if type(id_) is int and type(result) is str and item["jsonrpc"] == "2.0":
                parts.append(_SUCCESS % (id_, _json_string(result)))
                continue
        parts.append(_json_text(item))
    return ("[" + ",".join(parts) + "]").encode()


def _json_text(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


_SUCCESS_KEYS = ("jsonrpc", "id", "result")  # a JSON-RPC success, as `_jsonrpc.Style` makes it
_SUCCESS = '{"jsonrpc":"2.0","id":%d,"result":%s}'
_json_string = json.encoder.encode_basestring  # a str as the encoder writes it (not ASCII-only)


@dataclass
class Reply:
    body: Any = None  # a JSON value, unless `raw` is set
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = JSON
    raw: bytes | None = None

    @classmethod
    def html(cls, page: str, status: int, **headers: str) -> Reply:
        return cls(status=status, headers=headers, content_type=HTML, raw=page.encode())

    def content(self) -> bytes:
        return self.raw if self.raw is not None else json_bytes(self.body)

    def to_response(self) -> Response:
        return Response(
            self.content(), self.status, headers=self.headers, media_type=self.content_type
        )

    def sent(self) -> tuple[int, list[tuple[str, str]], bytes]:
        """(status, headers, body) as a server sends them: the response's own, so that an
        answer handed over in process has the headers one off the socket has."""
        response = self.to_response()
        headers = [
            (name.decode("latin-1"), value.decode("latin-1"))
            for name, value in response.raw_headers
        ]
        return response.status_code, headers, bytes(response.body)


def error_body(code: str, message: str) -> dict[str, Any]:
    """The platform-style error object: ``{"error": {"code": ..., "message": ...}}``."""
    return {"error": {"code": code, "message": message}}
