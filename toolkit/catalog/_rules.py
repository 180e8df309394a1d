"""Cross-parameter rules: checks of a whole call that one parameter's kind cannot make (a
conflict, a range, a size in another parameter's encoding). They may normalise arguments."""

from __future__ import annotations

import re
from typing import Any

from .._errors import ValidationError
from . import encoding as enc
from ._bounds import DEBUG_PRINT_BLOCK_FLOOR, MAX_LOG_RANGE, SOLANA_MAX_TRANSACTION_BYTES
from ._inputs import check_transaction_size
from ._kinds import _shown
from ._model import Check

_TRON_HEX_TEXT = re.compile(r"(?:[0-9a-fA-F]{2})+")
_INNER_METHOD = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}")


def _debug_print_block_floor(arguments: dict[str, Any]) -> None:
    number = arguments["number"]
    if number < DEBUG_PRINT_BLOCK_FLOOR:
        raise ValidationError(
            f"block {number:,} is below {DEBUG_PRINT_BLOCK_FLOOR:,}: debug_printBlock works only "
            f"for blocks {DEBUG_PRINT_BLOCK_FLOOR:,} and later; use the arbtrace_* methods "
            "(call_raw) for earlier blocks",
            param="number",
            rule="floor",
        )


def _root_hash_range(arguments: dict[str, Any]) -> None:
    if arguments["from"] > arguments["to"]:
        raise ValidationError(
            f"range start {arguments['from']:,} is after its end {arguments['to']:,}",
            param="from",
            rule="range",
        )


def _one_gas_price(arguments: dict[str, Any]) -> None:
    if {"gasprice", "gasPrice"} <= arguments["call"].keys():
        raise ValidationError(
            "give the gas price once: gasprice (the spec) or gasPrice (Ethereum), not both",
            param="call.gasPrice",
            rule="conflict",
        )


def _simulate_rules(arguments: dict[str, Any]) -> None:
    config = arguments.get("config", {})
    if config.get("sigVerify") and config.get("replaceRecentBlockhash"):
        raise ValidationError(
            "sigVerify and replaceRecentBlockhash cannot both be true",
            param="config.sigVerify",
            rule="conflict",
        )
    encoding = config.get("encoding", "base58")
    text = arguments["transaction"]
    longest = enc.transaction_max_chars(encoding, SOLANA_MAX_TRANSACTION_BYTES)
    if len(text) > longest:  # before decoding: base58 decoding is quadratic in the length
        raise ValidationError(
            f"is {len(text):,} characters; {encoding} of a Solana transaction (at most "
            f"{SOLANA_MAX_TRANSACTION_BYTES:,} bytes) is at most {longest:,}",
            param="transaction",
            rule="max",
        )
    try:
        raw = enc.decode_transaction(text, encoding, SOLANA_MAX_TRANSACTION_BYTES)
    except ValueError as error:
        default = "" if "encoding" in config else ", the spec default"
        raise ValidationError(
            f"{error} (encoding {encoding!r}{default})",
            param="transaction",
            rule="encoding",
        ) from None
    check_transaction_size(raw)


def _tron_text_value(default_visible: bool) -> Check:
    """`value` is plain text when visible is true and hex of UTF-8 when it is false."""

    def check(arguments: dict[str, Any]) -> None:
        visible = arguments.get("visible", default_visible)
        value = arguments["value"]
        if not visible and not _TRON_HEX_TEXT.fullmatch(value):
            example = enc.utf8_to_hex(value) if len(value) <= 40 else "..."
            raise ValidationError(
                f"{_shown(value)} must be hex of UTF-8 (ASCII hex digits, whole bytes, no "
                f"spaces) when visible is false (for example {example!r}); or pass "
                "visible=True, or use the helper, which encodes for you",
                param="value",
                rule="hex-text",
            )

    return check


def _tron_address_form(name: str) -> Check:
    """Send the address `name` in the form `visible` says the node expects (base58 or hex)."""

    def check(arguments: dict[str, Any]) -> None:
        if arguments.get("visible"):
            arguments[name] = enc.tron_to_base58(arguments[name])

    return check


def _log_range(arguments: dict[str, Any]) -> None:
    """eth_getLogs: a block hash or a range, never both; a numeric range in order and at most
    MAX_LOG_RANGE blocks (a range with a tag is bounded by the node)."""
    query = arguments["filter"]
    if "blockHash" in query and ({"fromBlock", "toBlock"} & query.keys()):
        raise ValidationError(
            "give blockHash or a fromBlock/toBlock range, not both",
            param="filter.blockHash",
            rule="conflict",
        )
    numbers = [query.get(end) for end in ("fromBlock", "toBlock")]
    if not all(isinstance(n, str) and enc.is_hex_quantity(n) for n in numbers):
        return
    start, end = (int(n, 16) for n in numbers)
    if start > end:
        raise ValidationError(
            f"range start {start:,} is after its end {end:,}",
            param="filter.fromBlock",
            rule="range",
        )
    if end - start + 1 > MAX_LOG_RANGE:
        raise ValidationError(
            f"asks for {end - start + 1:,} blocks; at most {MAX_LOG_RANGE:,} per call: split the "
            "range into several calls",
            param="filter.toBlock",
            rule="max-range",
        )


def _ton_inner_method(arguments: dict[str, Any]) -> None:
    if not _INNER_METHOD.fullmatch(arguments["method"]):
        raise ValidationError(
            f"must be a method name (ASCII letters, digits and _, at most 64), "
            f"got {_shown(arguments['method'])}",
            param="method",
            rule="method-name",
        )
    if arguments["method"] == "unpackAddress":
        address = arguments.get("params", {}).get("address")
        try:
            enc.ton_address(address)
        except ValueError as error:
            raise ValidationError(str(error), param="params.address", rule="address") from None
