"""Encodings the spec's chains use: hex quantities, Keccak-256, and address forms.

Pure functions with no I/O, shared by the client and the sandbox. Each check returns the value in
its canonical wire form or raises `ValueError` with a sentence a user can act on; the catalog turns
that sentence into a `ValidationError` naming the parameter. Heavy libraries load on first use.

Every check is strict and linear-time: ASCII digits and letters only (no full-width or superscript
digits, no ``_`` separators, no surrounding whitespace or trailing newline, all of which Python's
own ``int()`` and the ``base58`` library accept), and the length of the text is bounded before any
decoding (base58 decoding is quadratic in the length of its input).
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
from typing import NamedTuple

from ._bounds import SOLANA_MAX_TRANSACTION_BYTES

_HEX_QUANTITY = re.compile(r"0x(0|[1-9a-fA-F][0-9a-fA-F]*)")
_HEX_DATA = re.compile(r"0x([0-9a-fA-F]{2})*")
_EVM_ADDRESS = re.compile(r"0x[0-9a-fA-F]{40}")
_TRON_HEX_ADDRESS = re.compile(r"41[0-9a-fA-F]{40}")
_BASE58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_BASE58 = re.compile(f"[{_BASE58_ALPHABET}]+")
_TON_RAW = re.compile(r"(-1|0):[0-9a-fA-F]{64}")
_TON_FRIENDLY = re.compile(r"[A-Za-z0-9+/_-]{48}")

# Longest base58 text of n bytes: n leading zero bytes are n "1"s, else ceil(n * 8 / log2(58)).
BASE58_MAX_CHARS_PER_32_BYTES = 44
TRON_BASE58_ADDRESS_CHARS = 34  # base58check of 21 bytes starting 0x41 is always 34 characters
TON_WORKCHAINS = (0, -1)  # the basechain and the masterchain: the only workchains that exist


def base58_max_chars(n_bytes: int) -> int:
    """The longest base58 text that can decode to `n_bytes` bytes."""
    return max(n_bytes, -(-n_bytes * 8000 // 5858))  # log2(58) = 5.858; rounded to stay above


# --- hex quantities and data -------------------------------------------------------------------


def to_quantity(value: int) -> str:
    """An int as a JSON-RPC hex quantity (``0x`` and no leading zeros)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"expected a non-negative integer, got {value!r}")
    return hex(value)


def parse_quantity(text: str) -> int:
    """A JSON-RPC hex quantity as an exact int. Leading zeros are tolerated on the way in."""
    if not isinstance(text, str) or not re.fullmatch(r"0x[0-9a-fA-F]+", text):
        raise ValueError(f"expected a 0x-prefixed hex quantity, got {text!r}")
    return int(text, 16)


def is_hex_quantity(text: str) -> bool:
    return bool(_HEX_QUANTITY.fullmatch(text))


def is_hex_data(text: str) -> bool:
    """``0x`` followed by whole bytes (an even number of hex digits)."""
    return bool(_HEX_DATA.fullmatch(text))


def utf8_to_hex(text: str) -> str:
    """Text as hex of its UTF-8 bytes, no prefix: how TRON wants names when `visible` is false."""
    return text.encode().hex()


def hex_to_utf8(text: str) -> str:
    """The inverse of `utf8_to_hex`. Raises ValueError when the bytes are not UTF-8."""
    return bytes.fromhex(text.removeprefix("0x")).decode()


# --- Keccak-256 and EVM addresses -------------------------------------------------------------


def keccak256(data: bytes) -> bytes:
    """Keccak-256 (the pre-standard SHA-3 that Ethereum uses), via eth-hash."""
    from eth_hash.auto import keccak

    return keccak(data)


@functools.lru_cache(maxsize=4096)
def to_checksum_address(address: str) -> str:
    """EIP-55 mixed-case form of a 20-byte hex address. Remembered: a workload checks the same
    few addresses on each of its calls (a scan's contract on each of 10,000 chunks), and each
    check is a Keccak hash."""
    lower = address[2:].lower()
    digest = keccak256(lower.encode()).hex()
    return "0x" + "".join(
        char.upper() if int(digest[i], 16) >= 8 else char for i, char in enumerate(lower)
    )


def check_evm_address(address: str) -> str:
    """A 0x-prefixed 20-byte address. Mixed case must be a valid EIP-55 checksum."""
    if not isinstance(address, str) or not _EVM_ADDRESS.fullmatch(address):
        raise ValueError(f"must be 0x followed by 40 hex digits, got {address!r}")
    body = address[2:]
    if body != body.lower() and body != body.upper() and to_checksum_address(address) != address:
        raise ValueError(f"{address!r} has mixed case but an invalid EIP-55 checksum")
    return address


# --- base58 (TRON and Solana) -----------------------------------------------------------------


def b58decode(text: str, max_chars: int = 4096) -> bytes:
    """Base58 text as bytes. The text is bounded (`max_chars`) before decoding, which the
    library does in time quadratic in the length."""
    import base58

    if not isinstance(text, str):
        raise ValueError(f"expected base58 text, got {type(text).__name__}")
    if len(text) > max_chars:
        raise ValueError(f"is {len(text):,} characters of text; at most {max_chars:,} expected")
    if not _BASE58.fullmatch(text):
        raise ValueError(f"{_short(text)} is not base58 text")
    return base58.b58decode(text)


def _short(text: str, limit: int = 80) -> str:
    """`text` for a message: its repr, cut to `limit` characters."""
    shown = repr(text)
    return shown if len(shown) <= limit else shown[: limit - 5] + "...'"


def b58encode(data: bytes) -> str:
    import base58

    return base58.b58encode(data).decode()


# --- hosts ------------------------------------------------------------------------------------


def is_loopback_host(host: str) -> bool:
    """``localhost`` or a loopback IP (127.0.0.0/8, ::1): where plain HTTP and a server may be.
    A host is case-insensitive (RFC 3986, 3.2.2): ``LOCALHOST`` is loopback too."""
    host = host.lower()
    if host == "localhost":
        return True
    import ipaddress

    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


# --- TRON addresses ---------------------------------------------------------------------------


def tron_to_hex(address: str) -> str:
    """A TRON address (base58 ``T...`` or hex ``41...``) in hex form, lower case."""
    if not isinstance(address, str):
        raise ValueError(f"expected a TRON address string, got {address!r}")
    if _TRON_HEX_ADDRESS.fullmatch(address):
        return address.lower()
    import base58

    try:
        if len(address) != TRON_BASE58_ADDRESS_CHARS or not _BASE58.fullmatch(address):
            raise ValueError  # the library would strip whitespace and decode any length
        raw = base58.b58decode_check(address)
    except ValueError:
        raise ValueError(
            f"{_short(address)} is neither a base58 TRON address (T..., 34 characters with "
            "checksum) nor a hex one (41 followed by 40 hex digits)"
        ) from None
    if len(raw) != 21 or raw[0] != 0x41:
        raise ValueError(f"{address!r} is base58 but not a TRON address (no 0x41 prefix byte)")
    return raw.hex()


def tron_to_base58(address: str) -> str:
    """A TRON address (hex or base58) in base58check form ``T...``."""
    import base58

    return base58.b58encode_check(bytes.fromhex(tron_to_hex(address))).decode()


# --- Solidity ABI (the sandbox's token answers eth_call) --------------------------------------

ABI_WORD = 32


def abi_uint(value: int) -> bytes:
    """A ``uint256`` (or any ``uintN``: the same 32 bytes) as the ABI encodes it: big-endian."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**256:
        raise ValueError(f"{value!r} is not an unsigned 256-bit integer")
    return value.to_bytes(ABI_WORD, "big")


def abi_string(text: str) -> bytes:
    """A lone ``string`` return value as the ABI encodes it: the offset of its data (32), its
    length in bytes, then its UTF-8 bytes padded with zeros to whole words."""
    data = text.encode()
    padded = data + b"\0" * (-len(data) % ABI_WORD)
    return abi_uint(ABI_WORD) + abi_uint(len(data)) + padded


def abi_address(arguments: bytes) -> str:
    """The ``address`` in the first word of call data (after the selector), lower-case ``0x``
    hex; ValueError when the word is short or its 12 padding bytes are not zero."""
    word = arguments[:ABI_WORD]
    if len(word) < ABI_WORD or any(word[:12]):
        raise ValueError("not an ABI-encoded address")
    return "0x" + word[12:].hex()


# --- TON addresses ----------------------------------------------------------------------------


def ton_address(address: str) -> str:
    """Check a TON address (raw ``0:<hex>`` or 48-character user-friendly); return it as given."""
    parse_ton_address(address)
    return address


class TonAddress(NamedTuple):
    """A TON address read from its raw or user-friendly text (TEP-2): the workchain, the
    32-byte account id, and for a user-friendly text its flags (None for a raw one)."""

    workchain: int
    account: bytes
    bounceable: bool | None = None
    test_only: bool | None = None

    @property
    def raw(self) -> str:
        return f"{self.workchain}:{self.account.hex()}"

    def friendly(self, *, bounceable: bool = True, url_safe: bool = True) -> str:
        """The 48-character user-friendly form: tag (0x11 bounceable, 0x51 not), workchain,
        account id and their CRC-16/XMODEM, in base64url (or standard base64)."""
        body = bytes(
            [_TON_BOUNCEABLE if bounceable else _TON_NON_BOUNCEABLE, self.workchain & 0xFF]
        )
        body += self.account
        body += binascii.crc_hqx(body, 0).to_bytes(2, "big")
        encode = base64.urlsafe_b64encode if url_safe else base64.b64encode
        return encode(body).decode()


_TON_BOUNCEABLE, _TON_NON_BOUNCEABLE, _TON_TEST_ONLY = 0x11, 0x51, 0x80


def parse_ton_address(address: str) -> TonAddress:
    """Read a TON address: raw ``0:<64 hex digits>`` or ``-1:...``, or the 48-character
    user-friendly form in base64url or base64 (TEP-2: a known tag, possibly test-only, and a
    matching checksum). ValueError with a sentence otherwise."""
    if not isinstance(address, str):
        raise ValueError(f"expected a TON address string, got {address!r}")
    if _TON_RAW.fullmatch(address):
        chain_text, account = address.split(":")
        return TonAddress(int(chain_text), bytes.fromhex(account))
    data = b""
    if _TON_FRIENDLY.fullmatch(address):
        data = base64.b64decode(address.replace("-", "+").replace("_", "/"), validate=True)
    tag = data[0] & ~_TON_TEST_ONLY if data else None
    if tag not in (_TON_BOUNCEABLE, _TON_NON_BOUNCEABLE) or (
        binascii.crc_hqx(data[:34], 0).to_bytes(2, "big") != data[34:]
    ):
        raise ValueError(
            f"{_short(address)} is not a TON address (raw '0:<64 hex digits>' or '-1:<64 hex "
            "digits>', or 48-character user-friendly base64)"
        )
    workchain = int.from_bytes(data[1:2], "big", signed=True)
    if workchain not in TON_WORKCHAINS:
        raise ValueError(
            f"{_short(address)} is in workchain {workchain}; TON has workchains 0 and -1 only"
        )
    return TonAddress(workchain, data[2:34], tag == _TON_BOUNCEABLE, bool(data[0] & _TON_TEST_ONLY))


def ton_address_variants(address: str) -> dict[str, str]:
    """The raw and user-friendly (base64url) forms of a TON address: ``raw``, ``bounceable``,
    ``non_bounceable``."""
    parsed = parse_ton_address(address)
    return {
        "raw": parsed.raw,
        "bounceable": parsed.friendly(bounceable=True),
        "non_bounceable": parsed.friendly(bounceable=False),
    }


# --- Solana -----------------------------------------------------------------------------------


def check_solana_pubkey(address: str) -> str:
    """A base58 32-byte public key."""
    if not isinstance(address, str):
        raise ValueError(f"expected a base58 public key string, got {address!r}")
    try:
        raw = b58decode(address, BASE58_MAX_CHARS_PER_32_BYTES)
    except ValueError:
        raise ValueError(f"{_short(address)} is not a base58 public key (32 bytes)") from None
    if len(raw) != 32:
        raise ValueError(f"{address!r} decodes to {len(raw)} bytes, a public key has 32")
    return address


def decode_transaction(
    text: str, encoding: str, max_bytes: int = SOLANA_MAX_TRANSACTION_BYTES
) -> bytes:
    """The bytes of a wire transaction given as base64 or base58 text, at most `max_bytes`
    long (the text's length is checked first, so a huge string is refused at once)."""
    if not isinstance(text, str) or not text:
        raise ValueError("expected the encoded transaction as a non-empty string")
    limit = transaction_max_chars(encoding, max_bytes)
    if len(text) > limit:
        raise ValueError(
            f"is {len(text):,} characters; {encoding} of {max_bytes:,} bytes is at most {limit:,}"
        )
    if encoding == "base58":
        try:
            return b58decode(text, limit)
        except ValueError:
            raise ValueError(
                "is not base58; pass encoding='base64' for a base64 transaction"
            ) from None
    try:
        return base64.b64decode(text, validate=True)
    except ValueError:
        raise ValueError("is not valid base64") from None


def transaction_max_chars(encoding: str, max_bytes: int) -> int:
    """The longest text that can encode a transaction of `max_bytes` bytes."""
    if encoding == "base58":
        return base58_max_chars(max_bytes)
    return 4 * -(-max_bytes // 3)
