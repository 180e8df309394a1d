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
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()


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


def error_body(code: str, message: str) -> dict[str, Any]:
    """The platform-style error object: ``{"error": {"code": ..., "message": ...}}``."""
    return {"error": {"code": code, "message": message}}
