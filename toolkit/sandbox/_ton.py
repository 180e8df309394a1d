"""The sandbox's TON node: eight jettons behind toncenter's v2 API.

Bodies follow toncenter, not the spec's flat token record (see DESIGN §5): ``{"ok": true,
"result": ...}``, errors ``{"ok": false, "error": ..., "code": ...}`` with the code also used as
the HTTP status. ``getTokenData`` answers in toncenter v2's current shape: ``@type``
``ext.tokens.jettonMasterData``, the token's ``address``, ``contract_type``, ``total_supply`` as a
decimal string (supplies pass 2**64), ``mintable``, ``admin_address`` (absent when nobody may mint),
``jetton_content`` (on-chain metadata; its values are strings, ``decimals`` included, as on chain)
and ``jetton_wallet_code``. ``/api/v2/jsonRPC`` serves ``unpackAddress``, ``packAddress``,
``detectAddress``, ``getMasterchainInfo`` and ``getTokenData`` with named params, and echoes the
request id as a string, as toncenter types it (``TonResponseJsonRPC.id: str``). ``GET
/api/v2/getMasterchainInfo`` and ``GET /api/v2/detectAddress`` answer as their jsonRPC twins, in
the envelope (what toncenter's own SDK calls).
"""

from __future__ import annotations

import base64
import functools
import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .._errors import ValidationError
from ..catalog import BoundCall, Method
from ..catalog import encoding as enc
from ._clock import Timeline
from ._jsonrpc import INVALID_PARAMS, METHOD_NOT_FOUND, RpcError
from ._randomness import Seeded
from ._response import Reply

BASE_HEAD = 47_000_000  # masterchain seqno
NOT_A_JETTON = 409
BAD_ADDRESS = 416
MISSING_PARAMETER = 422
_MASTERCHAIN_SHARD = "-9223372036854775808"
# The mainnet zero state, as every toncenter masterchain answer shows it (its shard is "0", not
# the masterchain's -9223372036854775808: tests/fixtures/real/ton_getmasterchaininfo_*.json).
_ZERO_STATE = {
    "@type": "ton.blockIdExt",
    "workchain": -1,
    "shard": "0",
    "seqno": 0,
    "root_hash": "F6OpKZKqvqeFp6CQmFomXNMfMj2EnaUSOXN+Mh+wVWk=",
    "file_hash": "XplPz01CXAps5qeSWUtxcyBfdAo5zVb1N979KLSKD24=",
}


@dataclass(frozen=True)
class JettonSpec:
    name: str
    symbol: str
    decimals: int
    description: str
    supply: int  # in the smallest unit
    mintable: bool  # False: the admin gave up minting (admin_address is null)


JETTONS = (
    JettonSpec("Sandbox Dollar", "tSBXD", 6, "A dollar for TON demos", 2_500_000_000_000_000, True),
    JettonSpec("Wave", "WAVE", 9, "Rides the tide", 1_000_000_000 * 10**9, False),
    JettonSpec("Pearl", "PRL", 9, "Grown slowly in a shell", 21_000_000 * 10**9, False),
    JettonSpec("Coral", "CRL", 9, "A reef of liquidity", 777_000_000 * 10**9, True),
    JettonSpec("Kelp", "KELP", 6, "Grows fast, mintable", 50_000_000_000_000, True),
    JettonSpec("Anchor", "ANCR", 9, "Holds steady", 10**18, False),
    JettonSpec("Lighthouse", "LHT", 3, "Shows the way", 88_000_000_000, True),
    JettonSpec("Big Tide", "TIDE", 9, "A supply far above 2**64", 5 * 10**27, False),
)


def jetton_raw_address(symbol: str) -> str:
    """The jetton master's raw address ``0:<hex>``, the same for every seed."""
    return "0:" + hashlib.sha256(b"toolkit-sandbox/ton/jetton/" + symbol.encode()).hexdigest()


@functools.cache
def _jettons_by_raw() -> dict[str, JettonSpec]:
    return {jetton_raw_address(spec.symbol): spec for spec in JETTONS}


Handler = Callable[[BoundCall, int], Any]


def _ton_error(code: int, message: str) -> Reply:
    return Reply({"ok": False, "error": message, "code": code}, status=code)


class TonChain:
    """The TON node: `token_data` for GET getTokenData, `handlers` for jsonRPC."""

    def __init__(self, seeded: Seeded, timeline: Timeline):
        self.seeded = seeded
        self.timeline = timeline
        self._inner: dict[str, Callable[[dict[str, Any], int], Any]] = {
            "unpackAddress": lambda params, head: self._forms(params)["raw"],
            "packAddress": lambda params, head: self._forms(params)["bounceable"],
            "detectAddress": self._detect_address,
            "getMasterchainInfo": self._masterchain_info,
            "getTokenData": self._token_data_rpc,
        }

    def handlers(self) -> dict[str, Callable[[BoundCall, int], Any]]:
        """Every catalog method of TON, by name: the REST one and those on jsonRPC."""
        return {
            "api/v2/getTokenData": lambda call, head: self._token_data(
                call.arguments["address"], head
            ),
            "api/v2/jsonRPC": self._json_rpc,
            "api/v2/getMasterchainInfo": lambda call, head: self._masterchain_info({}, head),
            "api/v2/detectAddress": lambda call, head: self._detect_address(call.arguments, head),
        }

    def rest(
        self, method: Method, handler: Handler, body: bytes, query: Mapping[str, str], head: int
    ) -> Reply:
        """A GET on a REST path (``/api/v2/getTokenData?address=...``): toncenter's envelope."""
        try:
            call = method.bind(**query)
        except ValidationError as error:
            code = MISSING_PARAMETER if error.rule in ("required", "unknown-param") else BAD_ADDRESS
            return _ton_error(code, error.detail)
        except TypeError:  # a query key that collides with bind's own signature ("self")
            return _ton_error(MISSING_PARAMETER, "unexpected query parameter")
        try:
            return Reply({"ok": True, "result": handler(call, head)})
        except RpcError as error:
            return _ton_error(error.code, error.message)

    def _token_data(self, address: str, head: int) -> dict[str, Any]:
        forms = enc.ton_address_variants(address)
        spec = _jettons_by_raw().get(forms["raw"])
        if spec is None:
            raise RpcError(NOT_A_JETTON, "Smart contract is not Jetton or NFT")
        code_cell = bytes.fromhex("b5ee9c72") + self.seeded.bytes("ton", "wallet-code", size=45)
        data: dict[str, Any] = {
            "@type": "ext.tokens.jettonMasterData",
            "address": forms["bounceable"],
            "contract_type": "jetton_master",
            "total_supply": str(self.total_supply(spec, head)),
            "mintable": spec.mintable,
        }
        if spec.mintable:  # a jetton whose admin gave up minting has no admin address
            admin_raw = "0:" + self.seeded.hex("ton", "admin", spec.symbol)
            data["admin_address"] = enc.ton_address_variants(admin_raw)["bounceable"]
        data.update(
            jetton_content={
                "type": "onchain",
                "data": {
                    "name": spec.name,
                    "symbol": spec.symbol,
                    "decimals": str(spec.decimals),
                    "description": spec.description,
                    "image": f"https://jettons.sandbox.example/{spec.symbol.lower()}.png",
                },
            },
            jetton_wallet_code=base64.b64encode(code_cell).decode(),
        )
        return data

    def total_supply(self, spec: JettonSpec, seqno: int) -> int:
        """Mintable supplies drift hourly (720 masterchain blocks); the others are fixed."""
        if not spec.mintable:
            return spec.supply
        drift = self.seeded.walk(("ton", "supply", spec.symbol), seqno // 720, spec.supply // 500)
        return max(0, spec.supply + drift)

    # --- jsonRPC -------------------------------------------------------------------------------

    def _json_rpc(self, call: BoundCall, head: int) -> Any:
        name = call.arguments["method"]
        inner = self._inner.get(name)
        if inner is None:
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {name}")
        return inner(call.arguments.get("params", {}), head)

    def _forms(self, params: dict[str, Any]) -> dict[str, str]:
        address = params.get("address")
        if address is None:
            raise RpcError(INVALID_PARAMS, "params.address: is required")
        try:
            return enc.ton_address_variants(address)
        except ValueError as error:
            raise RpcError(BAD_ADDRESS, f"Incorrect address: {error}") from None

    def _detect_address(self, params: dict[str, Any], head: int) -> dict[str, Any]:
        forms = self._forms(params)
        given = enc.parse_ton_address(params["address"])
        if given.bounceable is None:
            given_type = "raw_form"
        else:
            given_type = "friendly_bounceable" if given.bounceable else "friendly_non_bounceable"

        def variant(bounceable: bool) -> dict[str, str]:
            return {
                "@type": "ext.utils.detectedAddressVariant",
                "b64": given.friendly(bounceable=bounceable, url_safe=False),
                "b64url": given.friendly(bounceable=bounceable, url_safe=True),
            }

        return {
            "@type": "ext.utils.detectedAddress",
            "raw_form": forms["raw"],
            "bounceable": variant(True),
            "non_bounceable": variant(False),
            "given_type": given_type,
            "test_only": False,
        }

    def _masterchain_info(self, params: dict[str, Any], head: int) -> dict[str, Any]:
        def b64(*parts: object) -> str:
            return base64.b64encode(self.seeded.bytes("ton", *parts)).decode()

        return {
            "@type": "blocks.masterchainInfo",
            "last": {
                "@type": "ton.blockIdExt",
                "workchain": -1,
                "shard": _MASTERCHAIN_SHARD,
                "seqno": head,
                "root_hash": b64("root-hash", head),
                "file_hash": b64("file-hash", head),
            },
            "state_root_hash": b64("state-root", head),
            "init": _ZERO_STATE,
        }

    def _token_data_rpc(self, params: dict[str, Any], head: int) -> dict[str, Any]:
        return self._token_data(self._forms(params)["raw"], head)
