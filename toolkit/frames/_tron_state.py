"""TRON state as frames: accounts (``wallet/getaccount``) and the node's own view
(``wallet/getnodeinfo``).

An account is protobuf rendered as JSON, so every zero or empty field is left out: a missing
balance, usage or stake is 0, and a missing ``type`` is ``Normal`` (the enum's zero). Node info is
not protobuf: java-tron serialises its Java ``NodeInfo`` object, so zeros are printed, lists of
peers are ``peerList`` (vendor references say ``peerInfoList``; both are read), and blocks are text
like ``"Num:66987565,ID:0000000003fe262d..."``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import pandas as pd

from ._convert import (
    SUN_PER_TRX,
    FrameError,
    as_list,
    as_mapping,
    as_records,
    columns_from_rows,
    decode_hex_text,
    describe,
    exact_ints,
    frame,
    looks_like_hex,
    text_value,
    units_column,
)
from ._runs import takes_runs
from ._tron import tron_records

# --- accounts ----------------------------------------------------------------------------------

_ACCOUNT_FIELDS = frozenset(
    {"address", "balance", "create_time", "account_name", "type", "assetV2", "frozenV2"}
    | {"latest_opration_time", "latest_operation_time", "owner_permission", "account_resource"}
)
ACCOUNT_COLUMNS = (
    "address",
    "account_name",
    "type",
    "balance_sun",
    "balance_trx",
    "create_time",
    "latest_operation_time",
    "free_net_usage",
    "net_usage",
    "energy_usage",
    "staked_bandwidth_sun",
    "staked_energy_sun",
    "staked_tron_power_sun",
    "unfreezing_sun",
    "acquired_delegated_bandwidth_sun",
    "acquired_delegated_energy_sun",
    "asset_count",
    "is_witness",
    "account_name_raw",
)
_ACCOUNT_SCHEMA = {
    "address": "text",
    "account_name": "text",
    "type": "text",
    "balance_sun": "big_int",
    "create_time": "time_ms",
    "latest_operation_time": "time_ms",
    "free_net_usage": "int",
    "net_usage": "int",
    "energy_usage": "int",
    "staked_bandwidth_sun": "big_int",
    "staked_energy_sun": "big_int",
    "staked_tron_power_sun": "big_int",
    "unfreezing_sun": "big_int",
    "acquired_delegated_bandwidth_sun": "big_int",
    "acquired_delegated_energy_sun": "big_int",
    "asset_count": "int",
    "is_witness": "bool",
    "account_name_raw": "text",
}
# frozenV2 entries name their resource; the zero of the enum (BANDWIDTH) is left out.
_STAKE_COLUMNS = {
    "BANDWIDTH": "staked_bandwidth_sun",
    "ENERGY": "staked_energy_sun",
    "TRON_POWER": "staked_tron_power_sun",
}
ACCOUNT_ASSET_COLUMNS = ("address", "asset_id", "amount", "free_asset_net_usage")
_ACCOUNT_ASSET_SCHEMA = {
    "address": "text",
    "asset_id": "text",
    "amount": "big_int",
    "free_asset_net_usage": "int",
}


def _records(payload: Any, fields: frozenset[str], what: str) -> list[Mapping[str, Any]]:
    """The bare records of a TRON answer (an object, a list of them, ``{}`` for none)."""
    return tron_records(payload, list_key=None, record_fields=fields, what=what)


def _accounts(payload: Any) -> list[Mapping[str, Any]]:
    return _records(payload, _ACCOUNT_FIELDS, "a TRON account object")


@takes_runs("tron-account")
def tron_account(payload: Any) -> pd.DataFrame:
    """Accounts as ``wallet/getaccount`` answers them, one row per account.

    Accepts the account object, ``{}`` (TRON's answer for an address that is not on chain: no
    rows), a list of accounts, or an envelope; ``{"Error": ...}`` raises with TRON's message.
    Addresses stay in the form the request asked for (hex ``41...``, or base58 with ``visible``).

    Columns: address, account_name (string, decoded from hex when it is hex), type (string:
    Normal, AssetIssue, Contract), balance_sun (exact int), balance_trx (float), create_time,
    latest_operation_time (UTC; java-tron spells the key ``latest_opration_time``),
    free_net_usage, net_usage, energy_usage (Int64), staked_bandwidth_sun, staked_energy_sun,
    staked_tron_power_sun (exact ints, from ``frozenV2``), unfreezing_sun (exact int, the
    ``unfrozenV2`` amounts still waiting), acquired_delegated_bandwidth_sun,
    acquired_delegated_energy_sun (exact ints, Stake 2.0 resources others delegated to it),
    asset_count (Int64, TRC-10 tokens held), is_witness (boolean), account_name_raw (string, as
    received). Every amount, usage and count left out by TRON is 0, never NA.
    """
    rows = [_account_row(account) for account in _accounts(payload)]
    columns = columns_from_rows(rows, _ACCOUNT_SCHEMA)
    columns["balance_trx"] = units_column(columns["balance_sun"], SUN_PER_TRX, "balance")
    return frame(columns, ACCOUNT_COLUMNS)


def _account_row(account: Mapping[str, Any]) -> dict[str, Any]:
    resource = as_mapping(account.get("account_resource"), "account_resource")
    name_raw = text_value(account.get("account_name"), "account_name")
    row: dict[str, Any] = {
        "address": account.get("address"),
        "account_name": decode_hex_text(name_raw) if _is_hex(name_raw) else name_raw,
        "account_name_raw": name_raw,
        "type": account.get("type", "Normal"),
        "balance_sun": account.get("balance", 0),
        "create_time": account.get("create_time"),
        "latest_operation_time": account.get(
            "latest_opration_time", account.get("latest_operation_time")
        ),
        "free_net_usage": account.get("free_net_usage", 0),
        "net_usage": account.get("net_usage", 0),
        "energy_usage": resource.get("energy_usage", 0),
        "unfreezing_sun": _sum(account.get("unfrozenV2"), "unfreeze_amount", "unfrozenV2"),
        "acquired_delegated_bandwidth_sun": account.get(
            "acquired_delegated_frozenV2_balance_for_bandwidth", 0
        ),
        "acquired_delegated_energy_sun": resource.get(
            "acquired_delegated_frozenV2_balance_for_energy", 0
        ),
        "asset_count": len(_asset_entries(account.get("assetV2"), "assetV2")),
        "is_witness": account.get("is_witness", False),
    }
    stakes = dict.fromkeys(_STAKE_COLUMNS.values(), 0)
    for entry in as_records(account.get("frozenV2"), "frozenV2"):
        kind = text_value(entry.get("type", "BANDWIDTH"), "frozenV2.type")
        if kind in _STAKE_COLUMNS:
            stakes[_STAKE_COLUMNS[kind]] += _sum([entry], "amount", "frozenV2")
    row.update(stakes)
    return row


def _is_hex(text: str | None) -> bool:
    return bool(text and looks_like_hex(text))


def _sum(entries: Any, key: str, field: str) -> int:
    """The sum of `key` over a list of objects; absent entries and absent amounts are 0."""
    records = as_records(entries, field)
    return sum(v for v in exact_ints([r.get(key) for r in records], f"{field}.{key}") if v)


@takes_runs("tron-account")
def tron_account_assets(payload: Any) -> pd.DataFrame:
    """The TRC-10 tokens accounts hold (their ``assetV2``), one row per account and token.

    Same inputs as `tron_account`. java-tron prints the ``assetV2`` map as a list of ``{"key":
    token id, "value": amount}``; a plain ``{id: amount}`` object is read too.

    Columns: address (string, the holder), asset_id (string, the token id such as "1005416"),
    amount (exact int, in the token's smallest units: divide by 10**precision of
    `tron_asset_issues`), free_asset_net_usage (Int64, from ``free_asset_net_usageV2``; 0 when
    absent).
    """
    rows = []
    for account in _accounts(payload):
        usage_field = "free_asset_net_usageV2"
        usage = dict(_asset_entries(account.get(usage_field), usage_field))
        for asset_id, amount in _asset_entries(account.get("assetV2"), "assetV2"):
            rows.append(
                {
                    "address": account.get("address"),
                    "asset_id": asset_id,
                    "amount": 0 if amount is None else amount,
                    "free_asset_net_usage": usage.get(asset_id) or 0,
                }
            )
    return frame(columns_from_rows(rows, _ACCOUNT_ASSET_SCHEMA), ACCOUNT_ASSET_COLUMNS)


def _asset_entries(value: Any, field: str) -> list[tuple[str | None, Any]]:
    """A protobuf map as (key, value) pairs: java-tron's ``[{"key", "value"}]`` or an object."""
    if isinstance(value, Mapping):
        return [(text_value(k, field), v) for k, v in value.items()]
    return [
        (text_value(entry.get("key"), f"{field}.key"), entry.get("value"))
        for entry in as_records(value, field)
    ]


# --- node info ------------------------------------------------------------------------------------

_BLOCK_TEXT = re.compile(r"Num:(\d+),ID:([0-9a-fA-F]*)")
_NODE_INFO_FIELDS = frozenset(
    {"block", "solidityBlock", "beginSyncNum", "configNodeInfo", "machineInfo"}
    | {"currentConnectCount", "peerList", "peerInfoList"}
)
NODE_INFO_COLUMNS = (
    "block_number",
    "block_id",
    "solidity_block_number",
    "solidity_block_id",
    "begin_sync_num",
    "current_connect_count",
    "active_connect_count",
    "passive_connect_count",
    "peer_count",
    "total_flow",
    "code_version",
    "version_num",
    "p2p_version",
    "listen_port",
    "cpu_count",
    "cpu_rate",
    "process_cpu_rate",
    "total_memory",
    "free_memory",
    "jvm_total_memory",
    "jvm_free_memory",
    "thread_count",
    "dead_lock_thread_count",
    "java_version",
    "os_name",
)
_NODE_INFO_SCHEMA = {
    "block_number": "int",
    "block_id": "text",
    "solidity_block_number": "int",
    "solidity_block_id": "text",
    "begin_sync_num": "int",
    "current_connect_count": "int",
    "active_connect_count": "int",
    "passive_connect_count": "int",
    "peer_count": "int",
    "total_flow": "int",
    "code_version": "text",
    "version_num": "text",
    "p2p_version": "text",
    "listen_port": "int",
    "cpu_count": "int",
    "cpu_rate": "float",
    "process_cpu_rate": "float",
    "total_memory": "int",
    "free_memory": "int",
    "jvm_total_memory": "int",
    "jvm_free_memory": "int",
    "thread_count": "int",
    "dead_lock_thread_count": "int",
    "java_version": "text",
    "os_name": "text",
}
# Keys of configNodeInfo and machineInfo, by column.
_CONFIG_KEYS = {
    "code_version": "codeVersion",
    "version_num": "versionNum",
    "p2p_version": "p2pVersion",
    "listen_port": "listenPort",
}
_MACHINE_KEYS = {
    "cpu_count": "cpuCount",
    "cpu_rate": "cpuRate",
    "process_cpu_rate": "processCpuRate",
    "total_memory": "totalMemory",
    "free_memory": "freeMemory",
    "jvm_total_memory": "jvmTotalMemory",
    "jvm_free_memory": "jvmFreeMemory",
    "thread_count": "threadCount",
    "dead_lock_thread_count": "deadLockThreadCount",
    "java_version": "javaVersion",
    "os_name": "osName",
}
NODE_PEER_COLUMNS = (
    "host",
    "port",
    "node_id",
    "active",
    "avg_latency_ms",
    "connect_time",
    "last_block_update_time",
    "head_block_we_both_have",
    "last_sync_block",
    "remain_num",
    "need_sync_from_peer",
    "need_sync_from_us",
    "sync_flag",
    "disconnect_times",
    "local_disconnect_reason",
    "remote_disconnect_reason",
    "node_count",
    "score",
)
_NODE_PEER_SCHEMA = {
    "host": "text",
    "port": "int",
    "node_id": "text",
    "active": "bool",
    "avg_latency_ms": "float",
    "connect_time": "time_ms",
    "last_block_update_time": "time_ms",
    "head_block_we_both_have": "int",
    "last_sync_block": "int",
    "remain_num": "int",
    "need_sync_from_peer": "bool",
    "need_sync_from_us": "bool",
    "sync_flag": "bool",
    "disconnect_times": "int",
    "local_disconnect_reason": "text",
    "remote_disconnect_reason": "text",
    "node_count": "int",
    "score": "int",
}
# Peer keys that are the column's name in camelCase.
_PEER_KEYS = {
    "port": "port",
    "node_id": "nodeId",
    "active": "active",
    "avg_latency_ms": "avgLatency",
    "connect_time": "connectTime",
    "last_block_update_time": "lastBlockUpdateTime",
    "remain_num": "remainNum",
    "need_sync_from_peer": "needSyncFromPeer",
    "need_sync_from_us": "needSyncFromUs",
    "sync_flag": "syncFlag",
    "disconnect_times": "disconnectTimes",
    "node_count": "nodeCount",
    "score": "score",
}


def _node_infos(payload: Any) -> list[Mapping[str, Any]]:
    return _records(payload, _NODE_INFO_FIELDS, "TRON node info")


@takes_runs("tron-node-info")
def tron_node_info(payload: Any) -> pd.DataFrame:
    """The node's own view (``wallet/getnodeinfo``), one row per answer.

    Accepts the node info object, a list of them (one per node polled), ``{}`` (no rows) or an
    envelope.

    Columns: block_number (Int64), block_id (string), solidity_block_number (Int64: the last
    irreversible block), solidity_block_id (string), begin_sync_num, current_connect_count,
    active_connect_count, passive_connect_count, peer_count (Int64: peers listed), total_flow
    (Int64), code_version, version_num, p2p_version (string: 11111 is mainnet, 201910292 Nile),
    listen_port, cpu_count (Int64), cpu_rate, process_cpu_rate (float, 0..1), total_memory,
    free_memory, jvm_total_memory, jvm_free_memory (Int64, bytes), thread_count,
    dead_lock_thread_count (Int64), java_version, os_name (string). What an answer leaves out
    (publishers often shorten it) is NA.
    """
    rows = []
    for info in _node_infos(payload):
        config = as_mapping(info.get("configNodeInfo"), "configNodeInfo")
        machine = as_mapping(info.get("machineInfo"), "machineInfo")
        row = {
            "begin_sync_num": info.get("beginSyncNum"),
            "current_connect_count": info.get("currentConnectCount"),
            "active_connect_count": info.get("activeConnectCount"),
            "passive_connect_count": info.get("passiveConnectCount"),
            "total_flow": info.get("totalFlow"),
            "peer_count": _peer_count(info),
        }
        row["block_number"], row["block_id"] = _block_text(info.get("block"), "block")
        row["solidity_block_number"], row["solidity_block_id"] = _block_text(
            info.get("solidityBlock"), "solidityBlock"
        )
        row.update({column: config.get(key) for column, key in _CONFIG_KEYS.items()})
        row.update({column: machine.get(key) for column, key in _MACHINE_KEYS.items()})
        rows.append(row)
    return frame(columns_from_rows(rows, _NODE_INFO_SCHEMA), NODE_INFO_COLUMNS)


@takes_runs("tron-node-info")
def tron_node_peers(payload: Any) -> pd.DataFrame:
    """The peers a node lists in ``wallet/getnodeinfo``, one row per peer.

    Same inputs as `tron_node_info`; reads ``peerList`` (what java-tron answers) or
    ``peerInfoList`` (what vendor references show).

    Columns: host (string, without java's leading "/"), port (Int64), node_id (string), active
    (boolean), avg_latency_ms (float), connect_time, last_block_update_time (UTC),
    head_block_we_both_have, last_sync_block (Int64, block numbers; NA where the peer gives
    none), remain_num (Int64), need_sync_from_peer, need_sync_from_us, sync_flag (boolean),
    disconnect_times (Int64), local_disconnect_reason, remote_disconnect_reason (string; NA when
    there is none), node_count, score (Int64).
    """
    rows = []
    for info in _node_infos(payload):
        for peer in as_records(_peers(info), "peerList"):
            row = {column: peer.get(key) for column, key in _PEER_KEYS.items()}
            host = text_value(peer.get("host"), "peerList.host")
            row["host"] = None if host is None else host.removeprefix("/")
            row["head_block_we_both_have"], _ = _block_text(
                peer.get("headBlockWeBothHave"), "peerList.headBlockWeBothHave"
            )
            row["last_sync_block"], _ = _block_text(
                peer.get("lastSyncBlock"), "peerList.lastSyncBlock"
            )
            for column, key in (
                ("local_disconnect_reason", "localDisconnectReason"),
                ("remote_disconnect_reason", "remoteDisconnectReason"),
            ):
                row[column] = text_value(peer.get(key), f"peerList.{key}") or None
            rows.append(row)
    return frame(columns_from_rows(rows, _NODE_PEER_SCHEMA), NODE_PEER_COLUMNS)


def _peers(info: Mapping[str, Any]) -> Any:
    return info.get("peerList", info.get("peerInfoList"))


def _peer_count(info: Mapping[str, Any]) -> int | None:
    peers = _peers(info)
    return None if peers is None else len(as_list(peers, "peerList"))


def _block_text(value: Any, field: str) -> tuple[int | None, str | None]:
    """(number, id) of java-tron's ``"Num:66987565,ID:0000..."``; NA for "" or anything else."""
    text = text_value(value, field)
    if not text:
        return None, None
    match = _BLOCK_TEXT.fullmatch(text)
    if match is None:
        raise FrameError(f"{field}: expected text like 'Num:N,ID:<hex>', got {describe(text)}")
    return int(match[1]), match[2] or None
