"""The sandbox's TRON node: TRC-10 assets, blocks with fees and receipts, proposals, web3_sha3.

It answers the way java-tron's HTTP API does: protobuf rendered as JSON, so zero and empty fields
are absent; errors are HTTP 200 with an ``Error`` string naming the Java exception class; with
``visible: false`` addresses are hex (``41...``) and asset texts are hex of UTF-8, with ``visible:
true`` they are base58 and plain text, on every endpoint that takes it. The asset list by name
asked without ``visible`` follows the spec's table: base58 addresses, hex texts. Transaction ids
are real: SHA-256 of the protobuf-serialised `raw_data`.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .._errors import ValidationError
from ..catalog import BoundCall, Method
from ..catalog import encoding as enc
from . import _protobuf as protobuf
from ._clock import Timeline
from ._jsonrpc import load_json
from ._randomness import Seeded
from ._response import Reply

AMBIGUOUS_NAME_ERROR = (
    "class org.tron.core.exception.NonUniqueObjectException : "
    "To get more than one asset, please use getAssetIssueById syntax"
)
FIRST_ASSET_ID = 1_000_001
BASE_HEAD = 72_000_000
WITNESS_COUNT = 27
SUN_PER_ENERGY = 210
TRANSFER_TOPIC = "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
ACCOUNT_NAMES = ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi")

_ADDRESS_KEYS = frozenset({"owner_address", "to_address", "contract_address", "witness_address"})
_TEXT_KEYS = frozenset({"name", "abbr", "description", "url", "asset_name"})


def tron_address(label: str) -> str:
    """A deterministic TRON address in hex form (``41`` + 20 bytes), the same for every seed."""
    return "41" + hashlib.sha256(b"toolkit-sandbox/tron/" + label.encode()).digest()[:20].hex()


# --- TRC-10 assets ------------------------------------------------------------------------------


@dataclass(frozen=True)
class AssetSpec:
    name: str
    abbr: str
    total_supply: int
    precision: int = 0
    description: str = ""
    frozen: tuple[tuple[int, int], ...] = ()  # (frozen_amount, frozen_days)
    free_net: int = 0
    public_free_net: int = 0

    @property
    def url(self) -> str:
        return f"https://{self.abbr.lower()}.sandbox.example"


AMBIGUOUS_NAME = "Tether USD"
ASSETS = (
    AssetSpec("SandCoin", "SAND", 10**14, 6, "The first token", ((10**9, 30),), 1_500, 30_000),
    AssetSpec(AMBIGUOUS_NAME, "USDT", 10**13, 6, "A dollar token", (), 5_000, 50_000),
    AssetSpec("Seashell", "SHELL", 21_000_000, 0, "Shells washed up on the dunes"),
    AssetSpec(
        "DuneToken", "DUNE", 10**12, 6, "Dune council", ((5 * 10**10, 90), (5 * 10**10, 365))
    ),
    AssetSpec("Mirage", "MRG", 500_000_000, 2, "Now you see it"),
    AssetSpec("OasisPoints", "OASIS", 77_000_000_000, 3, "Loyalty points", free_net=1_000),
    AssetSpec("Tumbleweed", "TMBL", 999_999_999),
    AssetSpec("Cactus", "CCTS", 4_200_000_000_000, 6, "Prickly but stable"),
    AssetSpec("Camel", "CAMEL", 3_000_000_000, 1, "Carries value", ((100_000_000, 180),)),
    AssetSpec("Scarab", "SCRB", 88_888_888_888, 4, "A lucky charm"),
    AssetSpec("Sirocco", "SRCO", 15 * 10**12, 6, "A warm wind of liquidity"),
    AssetSpec(AMBIGUOUS_NAME, "USDT", 5 * 10**13, 6, "Same name, other token", ((10**12, 10),)),
    AssetSpec("Quartz", "QRTZ", 7_000_000_000, 6, "Crystal clear"),
    AssetSpec("Caravan", "CRVN", 250_000_000_000, 6, "Slow, carries much", public_free_net=10**5),
    AssetSpec("Nomad", "NMD", 12_345_678_901, 3, "Never stays long"),
    AssetSpec("Sphinx", "SPHX", 1_000_000, 0, "Answers riddles"),
    AssetSpec("Obelisk", "OBLK", 6 * 10**13, 6, "Tall and pointy", ((10**13, 1_095),)),
    AssetSpec("Mesa", "MESA", 90_000_000_000, 5, "Flat on top"),
    AssetSpec("Arroyo", "ARYO", 33_000_000, 0, "Dry most of the year"),
    AssetSpec("Café Crème", "CAFE", 2_000_000_000, 2, "Non-ASCII names travel as UTF-8 hex"),
    AssetSpec("沙币", "SHA", 8_000_000_000_000, 6, "沙漠里的代币"),
    AssetSpec("Gold Dust", "GDST", 10**19 + 7, 6, "A supply above 2**63: exact integers matter"),
    AssetSpec("Sandstorm", "STRM", 640_000_000_000, 6, "Comes and goes", (), 2_000, 20_000),
    AssetSpec("Dromedary", "DROM", 1_200_000_000, 2, "One hump"),
    AssetSpec("Fennec", "FNC", 5_000_000_000_000, 6, "Big ears, small cap"),
)


def asset_id(index: int) -> str:
    return str(FIRST_ASSET_ID + index)


def _asset_record(index: int, spec: AssetSpec) -> dict[str, Any]:
    """The full record in java-tron's field order, texts hex, zero fields omitted."""
    start_ms = 1_530_000_000_000 + index * 2_592_000_000  # mid-2018, one sale a month
    record: dict[str, Any] = {
        "owner_address": tron_address(f"asset-owner/{index}"),
        "name": enc.utf8_to_hex(spec.name),
        "abbr": enc.utf8_to_hex(spec.abbr),
        "total_supply": spec.total_supply,
        "frozen_supply": [{"frozen_amount": a, "frozen_days": d} for a, d in spec.frozen],
        "trx_num": 1_000_000,
        "precision": spec.precision,
        "num": 1 + index * 37 % 1_000,
        "start_time": start_ms,
        "end_time": start_ms + 31_536_000_000,  # sales ran for a year
        "description": enc.utf8_to_hex(spec.description),
        "url": enc.utf8_to_hex(spec.url),
        "free_asset_net_limit": spec.free_net,
        "public_free_asset_net_limit": spec.public_free_net,
        "id": asset_id(index),
    }
    return {key: value for key, value in record.items() if value not in (0, "", [])}


# Fields the spec's table shows in the list-by-name result but not in the by-name one.
_LIST_ONLY_FIELDS = frozenset(
    {"precision", "free_asset_net_limit", "public_free_asset_net_limit", "frozen_supply"}
)


# --- proposals ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Proposal:
    id: int
    creator: str  # hex address of a witness
    state: str  # PENDING, APPROVED, DISAPPROVED, CANCELED
    expiration_ms: int


_DAY_MS = 86_400_000
_ANCHOR_MS = 1_748_736_000_000  # the base head's time (see _clock.ANCHOR_UNIX_S)


def witness_address(index: int) -> str:
    return tron_address(f"witness/{index}")


# (creator witness, state, expiration relative to the base head's time, in days)
_PROPOSAL_TABLE = (
    (0, "APPROVED", -400),
    (3, "DISAPPROVED", -350),
    (5, "CANCELED", -300),
    (1, "APPROVED", -210),
    (8, "APPROVED", -120),
    (2, "DISAPPROVED", -60),
    (6, "CANCELED", -20),
    (9, "APPROVED", -5),
    (4, "PENDING", 2),
    (7, "PENDING", 3),
    (10, "CANCELED", 3),
    (11, "PENDING", 3),
)
PROPOSALS = tuple(
    Proposal(number, witness_address(creator), state, _ANCHOR_MS + days * _DAY_MS)
    for number, (creator, state, days) in enumerate(_PROPOSAL_TABLE, start=1)
)


# --- the node -----------------------------------------------------------------------------------


def _java_error(exception_class: str, message: str) -> dict[str, str]:
    return {"Error": f"class {exception_class} : {message}"}


def _render(value: Any, *, addresses: bool, texts: bool) -> Any:
    """Show hex-form data as a `visible` request wants: base58 addresses, plain-text names."""
    if not (addresses or texts):
        return value
    if isinstance(value, list):
        return [_render(item, addresses=addresses, texts=texts) for item in value]
    if not isinstance(value, dict):
        return value
    shown = {}
    for key, item in value.items():
        if addresses and key in _ADDRESS_KEYS and isinstance(item, str):
            shown[key] = enc.tron_to_base58(item)
        elif texts and key in _TEXT_KEYS and isinstance(item, str):
            shown[key] = enc.hex_to_utf8(item)
        else:
            shown[key] = _render(item, addresses=addresses, texts=texts)
    return shown


def _visible(data: Any, visible: bool) -> Any:
    return _render(data, addresses=visible, texts=visible)


def _log_addresses_base58(info: dict[str, Any]) -> dict[str, Any]:
    if "log" not in info:
        return info
    logs = [{**log, "address": enc.tron_to_base58("41" + log["address"])} for log in info["log"]]
    return {**info, "log": logs}


class TronChain:
    """The TRON node's state and endpoints: `rest` for /wallet/*, `handlers` for /jsonrpc."""

    def __init__(self, seeded: Seeded, timeline: Timeline):
        self.seeded = seeded
        self.timeline = timeline
        self.assets = [_asset_record(i, spec) for i, spec in enumerate(ASSETS)]
        self._block = functools.lru_cache(maxsize=2048)(self._make_block)
        self._rest: dict[str, Callable[[BoundCall, int], Any]] = {
            "wallet/getassetissuebyname": self._asset_by_name,
            "wallet/getassetissuelistbyname": self._asset_list_by_name,
            "wallet/getassetissuebyid": self._asset_by_id,
            "wallet/gettransactioninfobyblocknum": self._transaction_info,
            "wallet/getblockbylatestnum": self._latest_blocks,
            "wallet/proposaldelete": self._proposal_delete,
            "wallet/getnowblock": lambda call, head: self._block_by_num(head, call),
            "wallet/getblockbynum": lambda call, head: self._block_by_num(
                call.arguments["num"], call, head
            ),
            "wallet/getnodeinfo": self._node_info,
            "wallet/getaccount": self._account,
        }

    def handlers(self) -> dict[str, Callable[[BoundCall, int], Any]]:
        """Every catalog method of TRON, by name: the /wallet/ paths and /jsonrpc's."""
        return {**self._rest, "web3_sha3": self._sha3}

    def rest(
        self,
        method: Method,
        handler: Callable[[BoundCall, int], Any],
        body: bytes,
        query: Mapping[str, str],
        head: int,
    ) -> Reply:
        """A POST to a /wallet/ path: always HTTP 200, errors as ``{"Error": ...}``."""
        return Reply(self._rest_body(method, handler, body, head))

    def _rest_body(
        self, method: Method, handler: Callable[[BoundCall, int], Any], body: bytes, head: int
    ) -> Any:
        try:
            payload = load_json(body or b"{}")
        except ValueError as error:  # not JSON, or nested too deep (never a RecursionError)
            return _java_error("com.alibaba.fastjson.JSONException", f"syntax error, {error}")
        if not isinstance(payload, dict):
            return _java_error("com.alibaba.fastjson.JSONException", "the body must be an object")
        num = payload.get("num")
        if (
            method.name == "wallet/gettransactioninfobyblocknum"
            and isinstance(num, int)
            and num <= 0
        ):
            return {}  # java-tron answers an empty object for num <= 0
        try:
            call = method.bind(**payload)
        except ValidationError as error:
            return _java_error("java.lang.IllegalArgumentException", error.detail)
        except TypeError:  # a body key that collides with bind's own signature ("self")
            return _java_error("java.lang.IllegalArgumentException", "unexpected field")
        return handler(call, head)

    # --- assets --------------------------------------------------------------------------------

    def _matching(self, call: BoundCall, default_visible: bool) -> list[dict[str, Any]]:
        value = call.arguments["value"]
        visible = call.arguments.get("visible", default_visible)
        wanted = enc.utf8_to_hex(value) if visible else value.lower()
        return [record for record in self.assets if record["name"] == wanted]

    def _asset_by_name(self, call: BoundCall, head: int) -> Any:
        matches = self._matching(call, default_visible=False)
        if len(matches) > 1:
            return {"Error": AMBIGUOUS_NAME_ERROR}
        if not matches:
            return {}
        record = {k: v for k, v in matches[0].items() if k not in _LIST_ONLY_FIELDS}
        return {"assetIssue": [_visible(record, call.arguments.get("visible", False))]}

    def _asset_list_by_name(self, call: BoundCall, head: int) -> Any:
        matches = self._matching(call, default_visible=True)
        if not matches:
            return {}
        if "visible" in call.arguments:  # java-tron's JsonFormat: addresses and texts alike
            return {"assetIssue": _visible(matches, call.arguments["visible"])}
        # Not given: the spec's defaults for this method, base58 addresses and hex texts.
        return {"assetIssue": _render(matches, addresses=True, texts=False)}

    def _asset_by_id(self, call: BoundCall, head: int) -> Any:
        for record in self.assets:
            if record["id"] == call.arguments["value"]:
                return _visible(record, call.arguments.get("visible", False))
        return {}

    # --- blocks --------------------------------------------------------------------------------

    def block_id(self, number: int) -> str:
        """A block hash whose first 8 bytes are the block number, as on TRON."""
        return f"{number:016x}" + self.seeded.hex("tron", "block-id", number)[16:]

    def _transaction_info(self, call: BoundCall, head: int) -> Any:
        number = call.arguments["num"]
        if number > head:
            return []
        _, infos = self._block(number)
        visible = call.arguments.get("visible", False)
        if visible:  # java-tron also shows each log's 20-byte EVM address as a base58 address
            infos = [_log_addresses_base58(info) for info in infos]
        return _visible(infos, visible)

    def _latest_blocks(self, call: BoundCall, head: int) -> Any:
        first = head - call.arguments["num"] + 1
        blocks = [self._block(number)[0] for number in range(first, head + 1)]
        return {"block": _visible(blocks, call.arguments.get("visible", False))}

    def _block_by_num(self, number: int, call: BoundCall, head: int | None = None) -> Any:
        if head is not None and number > head:
            return {}  # java-tron's answer for a block it does not have
        return _visible(self._block(number)[0], call.arguments.get("visible", False))

    def _node_info(self, call: BoundCall, head: int) -> dict[str, Any]:
        """java-tron's NodeInfo as its servlet prints it (fastjson: keys in alphabetical order,
        zeros printed): tronpy reads the head from ``block`` ("Num:N,ID:...") and the solidified
        head from ``solidityBlock``; the peers are ``peerList``."""
        solid = head - 19  # java-tron solidifies a block after 2/3 of 27 witnesses confirm it
        peers = [self._peer(head, index) for index in range(8)]
        return {
            "activeConnectCount": 6,
            "beginSyncNum": head - 1,
            "block": f"Num:{head},ID:{self.block_id(head)}",
            "cheatWitnessInfoMap": {},
            "configNodeInfo": {
                "activeNodeSize": 0,
                "allowAdaptiveEnergy": 1,
                "allowCreationOfContracts": 1,
                "backupListenPort": 10001,
                "backupMemberSize": 0,
                "backupPriority": 0,
                "codeVersion": "4.8.0",
                "dbVersion": 2,
                "discoverEnable": True,
                "listenPort": 18888,
                "maxConnectCount": 30,
                "maxTimeRatio": 5.0,
                "minParticipationRate": 15,
                "minTimeRatio": 0.0,
                "p2pVersion": "11111",
                "passiveNodeSize": 0,
                "sameIpMaxConnectCount": 2,
                "sendNodeSize": 0,
                "supportConstant": True,
                "versionNum": "19550",
            },
            "currentConnectCount": len(peers),
            "machineInfo": {
                "cpuCount": 16,
                "cpuRate": 0.125,
                "deadLockThreadCount": 0,
                "deadLockThreadInfoList": [],
                "freeMemory": 1_073_741_824,
                "javaVersion": "1.8.0_412",
                "jvmFreeMemory": 6_442_450_944,
                "jvmTotalMemory": 17_179_869_184,
                "memoryDescInfoList": [
                    {
                        "initSize": 2_555_904,
                        "maxSize": 268_435_456,
                        "name": "Code Cache",
                        "useRate": 0.25,
                        "useSize": 67_108_864,
                    },
                    {
                        "initSize": 0,
                        "maxSize": -1,  # Metaspace has no limit
                        "name": "Metaspace",
                        "useRate": 0.9,
                        "useSize": 83_886_080,
                    },
                ],
                "osName": "Linux 5.15.0-105-generic",
                "processCpuRate": 0.0625,
                "threadCount": 120,
                "totalMemory": 68_719_476_736,
            },
            "passiveConnectCount": len(peers) - 6,
            "peerList": peers,
            "solidityBlock": f"Num:{solid},ID:{self.block_id(solid)}",
            "totalFlow": 0,
        }

    def _peer(self, head: int, index: int) -> dict[str, Any]:
        """One connected peer as java-tron's PeerInfo prints it (its host with java's "/")."""
        rng = self.seeded.rng("tron", "peer", index)
        both = head - rng.randrange(3)
        behind = rng.random() < 0.25
        return {
            "active": True,
            "avgLatency": float(rng.randrange(5, 400)),
            "blockInPorcSize": 0,
            "connectTime": self.timeline.time_ms(head - 20 * 60 * 24 - rng.randrange(20 * 60)),
            "disconnectTimes": rng.randrange(4),
            "headBlockTimeWeBothHave": 0,
            "headBlockWeBothHave": f"Num:{both},ID:{self.block_id(both)}",
            "host": "/" + ".".join(str(rng.randrange(1, 255)) for _ in range(4)),
            "inFlow": 0,
            "lastBlockUpdateTime": self.timeline.time_ms(both),
            "lastSyncBlock": f"Num:{both - 200},ID:{self.block_id(both - 200)}" if behind else "",
            "localDisconnectReason": "TIME_OUT" if behind else "",
            "needSyncFromPeer": False,
            "needSyncFromUs": False,
            "nodeCount": 96,
            "nodeId": self.seeded.hex("tron", "peer-id", index, size=64),
            "port": 18888,
            "remainNum": 0,
            "remoteDisconnectReason": "",
            "score": 0,
            "syncBlockRequestedSize": 0,
            "syncFlag": False,
            "syncToFetchSize": 0,
            "syncToFetchSizePeekNum": -1,
            "unFetchSynNum": 0,
        }

    def _account(self, call: BoundCall, head: int) -> dict[str, Any]:
        """A demo account (``{}`` for any other address, as java-tron answers an account that
        is not on chain). Zero-valued fields are left out, as java-tron's JSON does."""
        address = enc.tron_to_hex(call.arguments["address"])
        names = {tron_address(f"account/{name}"): name for name in ACCOUNT_NAMES}
        name = names.get(address)
        if name is None:
            return {}
        rng = self.seeded.rng("tron", "account", name)
        created_ms = self.timeline.time_ms(BASE_HEAD // 2 + rng.randrange(BASE_HEAD // 4))
        held = [asset_id(index) for index in rng.sample(range(len(ASSETS)), 2)]
        shown = enc.tron_to_base58(address) if call.arguments.get("visible", False) else address
        key = [{"address": shown, "weight": 1}]
        # java-tron's field order; zero-valued fields (an empty bandwidth stake, a usage of 0) are
        # left out, so frozenV2 lists {} for bandwidth and only the type of the others.
        return {
            "address": shown,
            "balance": rng.randrange(1, 10**6) * 10**6,
            "create_time": created_ms,
            "latest_opration_time": self.timeline.time_ms(head - rng.randrange(5_000)),
            "free_net_usage": rng.randrange(1, 600),
            "latest_consume_free_time": self.timeline.time_ms(head - rng.randrange(28_800)),
            "net_window_size": 28_800_000,
            "net_window_optimized": True,
            "account_resource": {
                "latest_consume_time_for_energy": created_ms,
                "energy_window_size": 28_800_000,
                "energy_window_optimized": True,
            },
            "owner_permission": {"permission_name": "owner", "threshold": 1, "keys": key},
            "active_permission": [
                {
                    "type": "Active",
                    "id": 2,
                    "permission_name": "active",
                    "threshold": 1,
                    "operations": "7fff1fc0033efb0f" + "0" * 48,
                    "keys": key,
                }
            ],
            "frozenV2": [{}, {"type": "ENERGY"}, {"type": "TRON_POWER"}],
            "assetV2": [{"key": held_id, "value": rng.randrange(1, 10**9)} for held_id in held],
            "free_asset_net_usageV2": [{"key": held_id, "value": 0} for held_id in held],
            "asset_optimized": True,
        }

    def _make_block(self, number: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """A block and the transaction info of each of its transactions, in hex form."""
        rng = self.seeded.rng("tron", "block", number)
        time_ms = self.timeline.time_ms(number)
        count = 0 if rng.random() < 0.15 else rng.randint(1, 10)
        pairs = [self._transaction(rng, number, time_ms, index) for index in range(count)]
        transactions = [tx for tx, _ in pairs]
        tx_root = (
            hashlib.sha256(b"".join(bytes.fromhex(tx["txID"]) for tx in transactions)).hexdigest()
            if transactions
            else "00" * 32
        )
        block: dict[str, Any] = {
            "blockID": self.block_id(number),
            "block_header": {
                "raw_data": {
                    "number": number,
                    "txTrieRoot": tx_root,
                    "witness_address": witness_address(number % WITNESS_COUNT),
                    "parentHash": self.block_id(number - 1),
                    "version": 32,
                    "timestamp": time_ms,
                },
                "witness_signature": self.seeded.hex("tron", "witness-sig", number, size=65),
            },
        }
        if transactions:
            block["transactions"] = transactions
        return block, [info for _, info in pairs]

    def _transaction(self, rng: Any, number: int, time_ms: int, index: int) -> tuple[dict, dict]:
        kind = rng.choices(("transfer", "asset", "trigger"), weights=(45, 15, 40))[0]
        sender, receiver = rng.sample(ACCOUNT_NAMES, 2)
        owner, to = tron_address(f"account/{sender}"), tron_address(f"account/{receiver}")
        ref = number - 1 - rng.randrange(20)
        raw: dict[str, Any] = {
            "contract": [],
            "ref_block_bytes": f"{ref & 0xFFFF:04x}",
            "ref_block_hash": self.block_id(ref)[16:32],
            "expiration": time_ms + 57_000 + rng.randrange(3_000),
            "timestamp": time_ms - rng.randrange(3_000),
        }
        if kind == "transfer":
            contract_type = "TransferContract"
            value = {"amount": rng.randrange(1, 50_000) * 10_000, "owner_address": owner}
            value["to_address"] = to
            outcome = _bandwidth_outcome(rng, 267)
        elif kind == "asset":
            contract_type = "TransferAssetContract"
            token_id = asset_id(rng.randrange(len(ASSETS)))
            value = {"amount": rng.randrange(1, 10**9), "asset_name": enc.utf8_to_hex(token_id)}
            value.update(owner_address=owner, to_address=to)
            outcome = _bandwidth_outcome(rng, 283)
        else:
            contract_type = "TriggerSmartContract"
            contract = tron_address("contract/" + rng.choice(("SBXD", "swap-router")))
            amount = rng.randrange(1, 10**11)
            data = "a9059cbb" + to[2:].rjust(64, "0") + f"{amount:064x}"
            value = {"contract_address": contract, "data": data, "owner_address": owner}
            raw["fee_limit"] = rng.choice((50, 100, 150, 225)) * 1_000_000
            outcome = _contract_outcome(rng, contract, owner, to, amount)
        raw["contract"] = [
            {
                "parameter": {"value": value, "type_url": protobuf.TYPE_URL_PREFIX + contract_type},
                "type": contract_type,
            }
        ]
        raw_bytes = protobuf.raw_data(raw)
        tx_id = hashlib.sha256(raw_bytes).hexdigest()
        transaction = {
            "ret": [{"contractRet": "REVERT" if outcome.get("result") == "FAILED" else "SUCCESS"}],
            "signature": [self.seeded.hex("tron", "tx-sig", number, index, size=65)],
            "txID": tx_id,
            "raw_data": raw,
            "raw_data_hex": raw_bytes.hex(),
        }
        info = {"id": tx_id, "fee": outcome.pop("fee"), "blockNumber": number}
        info.update(blockTimeStamp=time_ms, **outcome)
        return transaction, {k: v for k, v in info.items() if v not in (0, [], None)}

    # --- proposals -----------------------------------------------------------------------------

    def _proposal_delete(self, call: BoundCall, head: int) -> Any:
        owner = enc.tron_to_hex(call.arguments["owner_address"])
        proposal_id = call.arguments["proposal_id"]
        now_ms = self.timeline.time_ms(head)
        problem = _proposal_delete_problem(owner, proposal_id, now_ms)
        if problem:
            return _java_error("org.tron.core.exception.ContractValidateException", problem)
        visible = call.arguments.get("visible", False)
        contract_type = "ProposalDeleteContract"
        raw = {
            "contract": [
                {
                    "parameter": {
                        "value": {"owner_address": owner, "proposal_id": proposal_id},
                        "type_url": protobuf.TYPE_URL_PREFIX + contract_type,
                    },
                    "type": contract_type,
                }
            ],
            "ref_block_bytes": f"{head & 0xFFFF:04x}",
            "ref_block_hash": self.block_id(head)[16:32],
            "expiration": now_ms + 60_000,
            "timestamp": now_ms,
        }
        raw_bytes = protobuf.raw_data(raw)
        return {
            "visible": visible,
            "txID": hashlib.sha256(raw_bytes).hexdigest(),
            "raw_data": _visible(raw, visible),
            "raw_data_hex": raw_bytes.hex(),
            "signature": [],
        }

    # --- /jsonrpc ------------------------------------------------------------------------------

    def _sha3(self, call: BoundCall, head: int) -> str:
        return "0x" + enc.keccak256(bytes.fromhex(call.arguments["data"][2:])).hex()


def _proposal_delete_problem(owner: str, proposal_id: int, now_ms: int) -> str | None:
    """java-tron's ProposalDeleteActuator.validate, in its order and words (None = valid)."""
    if owner not in _known_accounts():
        return f"Account[{owner}] not exists"
    if owner not in _witnesses():
        return f"Witness[{owner}] not exists"
    if proposal_id > len(PROPOSALS):
        return f"Proposal[{proposal_id}] not exists"
    proposal = PROPOSALS[proposal_id - 1]
    if proposal.creator != owner:
        return f"Proposal[{proposal_id}] is not proposed by {owner}"
    if now_ms >= proposal.expiration_ms:
        return f"Proposal[{proposal_id}] expired"
    if proposal.state == "CANCELED":
        return f"Proposal[{proposal_id}] canceled"
    return None


@functools.cache
def _witnesses() -> frozenset[str]:
    return frozenset(witness_address(i) for i in range(WITNESS_COUNT))


@functools.cache
def _known_accounts() -> frozenset[str]:
    accounts = {tron_address(f"account/{name}") for name in ACCOUNT_NAMES}
    accounts |= {tron_address(f"asset-owner/{i}") for i in range(len(ASSETS))}
    return _witnesses() | accounts


def _bandwidth_outcome(rng: Any, bytes_used: int) -> dict[str, Any]:
    """Fee and receipt of a plain transfer: free bandwidth, burned TRX, or a new account."""
    roll = rng.random()
    if roll < 0.6:
        return {"fee": 0, "contractResult": [""], "receipt": {"net_usage": bytes_used}}
    net_fee = bytes_used * 1_000
    fee = net_fee + (1_000_000 if roll > 0.9 else 0)  # activating a new account costs 1 TRX
    return {"fee": fee, "contractResult": [""], "receipt": {"net_fee": net_fee}}


def _contract_outcome(rng: Any, contract: str, owner: str, to: str, amount: int) -> dict:
    """Fee, receipt and logs of a TRC-20 transfer; about one in eight reverts."""
    failed = rng.random() < 0.12
    total = rng.choice((14_650, 29_650, 64_285, 130_285)) // (3 if failed else 1)
    staked = rng.randrange(total + 1) if rng.random() < 0.4 else 0
    origin = rng.randrange(total - staked + 1) if rng.random() < 0.3 else 0
    burned = total - staked - origin
    net_usage = 345 if rng.random() < 0.5 else 0
    receipt = {
        "energy_usage": staked,
        "energy_fee": burned * SUN_PER_ENERGY,
        "origin_energy_usage": origin,
        "energy_usage_total": total,
        "net_usage": net_usage,
        "net_fee": 0 if net_usage else 345_000,
        "result": "REVERT" if failed else "SUCCESS",
    }
    outcome: dict[str, Any] = {
        "fee": receipt["energy_fee"] + receipt["net_fee"],
        "contractResult": [
            _revert_data("SafeMath: subtraction overflow") if failed else "0" * 63 + "1"
        ],
        "contract_address": contract,
        "receipt": {k: v for k, v in receipt.items() if v},
    }
    if failed:
        outcome.update(result="FAILED", resMessage=enc.utf8_to_hex("REVERT opcode executed"))
    else:
        topics = [TRANSFER_TOPIC, owner[2:].rjust(64, "0"), to[2:].rjust(64, "0")]
        outcome["log"] = [{"address": contract[2:], "topics": topics, "data": f"{amount:064x}"}]
    return outcome


def _revert_data(reason: str) -> str:
    """ABI-encoded Error(string), as a reverting contract returns it."""
    text = reason.encode()
    padded = text.ljust((len(text) + 31) // 32 * 32, b"\0")
    return "08c379a0" + f"{32:064x}" + f"{len(text):064x}" + padded.hex()
