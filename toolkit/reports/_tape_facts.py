"""What a report's footer says of its tape, read from the file alone: its SHA-256, the RU it
recorded, the nodes by name, their last heads, the toolkit that recorded it and when."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._errors import TapeError
from ..catalog import CHAINS
from ..client import parse_tape


@dataclass(frozen=True)
class TapeFacts:
    sha256: str
    ru: int
    unconfirmed_ru: int
    recorded: str  # ISO time, as the tape says
    toolkit_version: str
    gateway: str
    nodes: dict[str, str]  # name -> chain
    heads: dict[str, int]  # name -> the last head the recording read

    def rows(self) -> list[tuple[str, str]]:
        ru = f"{self.ru:,} RU" + (
            f" + {self.unconfirmed_ru:,} RU maybe billed" if self.unconfirmed_ru else ""
        )
        nodes = ", ".join(f"{name} ({chain})" for name, chain in self.nodes.items())
        heads = ", ".join(f"{name} {head:,}" for name, head in self.heads.items())
        return [
            ("tape SHA-256", self.sha256),
            ("RU recorded", ru),
            ("gateway", self.gateway),
            ("nodes", nodes or "none"),
            ("heads", heads or "none read"),
            ("recorded", f"{self.recorded} by node-gateway-toolkit {self.toolkit_version}"),
        ]


def tape_facts(path: Path) -> TapeFacts:
    """The facts of the tape at `path`; TapeError naming it when it is not a readable tape (read
    and checked as a replay reads it: a damaged or hostile file is refused, naming its line)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise TapeError(f"{path}: no such tape") from None
    except OSError as error:
        raise TapeError(f"{path} is not a readable tape ({error})") from None
    header, records = parse_tape(data, path)
    nodes = {name: str(info.get("chain", "")) for name, info in header.get("nodes", {}).items()}
    return TapeFacts(
        sha256=hashlib.sha256(data).hexdigest(),
        ru=int(header.get("ru", 0)),
        unconfirmed_ru=int(header.get("unconfirmed_ru", 0)),
        recorded=str(header.get("recorded", "unknown")),
        toolkit_version=str(header.get("toolkit_version", "unknown")),
        gateway=str(header.get("gateway") or "unknown"),
        nodes=nodes,
        heads=_heads(records, nodes),
    )


def _heads(records: list[Any], nodes: dict[str, str]) -> dict[str, int]:
    """Each node's last head in the recording: the last answer of its chain's head call."""
    heads: dict[str, tuple[str, int]] = {}
    for record in records:
        if not isinstance(record, dict) or record.get("node") not in nodes:
            continue
        chain = CHAINS.get(nodes[record["node"]])
        source = chain.head if chain is not None else None
        call = str(record.get("call", ""))
        if source is None or call.rsplit("/", 1)[-1] != source.method.rsplit("/", 1)[-1]:
            continue
        for answer in record.get("answers", []):
            result = _result(answer)
            try:
                head = source.read(result)
            except ValueError:
                continue
            at = str(answer.get("at", ""))
            if record["node"] not in heads or at >= heads[record["node"]][0]:
                heads[record["node"]] = (at, head)
    return {name: heads[name][1] for name in nodes if name in heads}


def _result(answer: dict[str, Any]) -> Any:
    """What a recorded answer holds: a JSON-RPC item's result, or a REST body (TON's inside its
    ``result``)."""
    if isinstance(answer.get("item"), dict):
        return answer["item"].get("result")
    body = answer.get("body")
    if isinstance(body, dict) and "result" in body and isinstance(body["result"], dict):
        return body["result"]
    return body
