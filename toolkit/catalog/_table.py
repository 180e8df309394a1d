"""The method catalog: every method and path of the gateway spec, declared once as data.

Each `Method` names its chains, surface (JSON-RPC, REST POST/GET, platform), path, parameters
(kind, default, limits), cross-parameter rules, result kind (the check an answer must pass and its
typed value), RU rule and cache pinning. Everything else reads it: validation (`Method.bind`), the
RU estimator, the client's helpers (generated from the entry unless one is written by hand), the
response cache, the widgets' forms, the sandbox's routes (it refuses to start when a method has no
handler) and the method table of docs/methods.md. Adding a method is one entry here and one
sandbox handler; tests/architecture/test_one_entry.py proves it by counting.

Besides the spec's methods (sections A to F) the catalog has the read methods that real clients
call first (web3.py's ``eth_chainId``, tronpy's ``wallet/getnowblock``, ...), marked
``in_spec=False``: real gateway nodes answer a chain's whole read interface.
"""

from __future__ import annotations

from typing import Any

from ._bounds import DEBUG_PRINT_BLOCK_FLOOR, MAX_LATEST_BLOCKS, MAX_LOG_RANGE
from ._inputs import REQUIRED, Arg, token_name_as_hex, transaction_as_text
from ._kinds import (
    ADDRESS_LIST,
    ASSET_ID,
    BLOCK,
    BLOCK_NUMBER,
    BOOL,
    EVM_ADDRESS,
    EVM_ADDRESSES,
    HASH32,
    HEX_DATA,
    INT,
    JSON_OBJECT,
    OBJECT,
    QUANTITY,
    QUANTITY_U64,
    QUANTITY_U256,
    SOLANA_TX,
    STATE_BLOCK,
    TEXT,
    TON_ADDRESS,
    TON_ADDRESS_AS_GIVEN,
    TOPICS,
    TRON_ADDRESS,
    Param,
)
from ._model import ALWAYS, Method, Surface
from ._pricing import PUBLIC, SPEC, ArchiveByBlock, ByInnerMethod, Fixed, Rule
from ._rules import (
    _debug_print_block_floor,
    _log_range,
    _one_gas_price,
    _root_hash_range,
    _simulate_rules,
    _ton_inner_method,
    _tron_address_form,
    _tron_text_value,
)

EVM_CHAINS = ("ethereum", "arbitrum", "polygon", "hyperliquid")

_ADDRESS = Param("address", EVM_ADDRESS, "account address")
_BLOCK = Param("block", BLOCK, "block number or tag", default="latest")
# State reads also take a block hash (EIP-1898), as real nodes do.
_STATE_BLOCK = Param("block", STATE_BLOCK, "block number, tag or hash", default="latest")

CALL_OBJECT_FIELDS = (
    Param("to", EVM_ADDRESS, "wallet or contract"),
    Param("from", EVM_ADDRESS, "sender", required=False),
    Param("gas", QUANTITY_U64, "maximum gas", required=False),
    Param("gasprice", QUANTITY_U256, "gas price in wei (the spec's spelling)", required=False),
    Param("gasPrice", QUANTITY_U256, "gas price in wei (Ethereum's spelling)", required=False),
    Param("value", QUANTITY_U256, "value sent, in wei", required=False),
    Param("data", HEX_DATA, "function selector and ABI-encoded arguments", required=False),
)

LOG_FILTER_FIELDS = (
    Param("fromBlock", BLOCK, "first block", required=False, server_default="latest"),
    Param("toBlock", BLOCK, "last block", required=False, server_default="latest"),
    Param("address", EVM_ADDRESSES, "emitting contract(s)", required=False),
    Param("topics", TOPICS, "topic filter by position", required=False),
    Param("blockHash", HASH32, "one block, instead of a range", required=False),
)

SIMULATE_CONFIG_FIELDS = (
    Param(
        "encoding",
        TEXT,
        "transaction encoding (base58 is deprecated)",
        required=False,
        server_default="base58",
        choices=("base58", "base64"),
    ),
    Param(
        "commitment",
        TEXT,
        "bank state to simulate against",
        required=False,
        server_default="finalized",
        choices=("processed", "confirmed", "finalized"),
    ),
    Param("sigVerify", BOOL, "verify signatures", required=False, server_default=False),
    Param(
        "replaceRecentBlockhash",
        BOOL,
        "replace the blockhash with the bank's most recent one",
        required=False,
        server_default=False,
    ),
    Param("minContextSlot", INT, "minimum slot to evaluate at", required=False, minimum=0),
    Param(
        "innerInstructions",
        BOOL,
        "include inner instructions",
        required=False,
        server_default=False,
    ),
    Param(
        "accounts",
        OBJECT,
        "accounts to return after simulation",
        required=False,
        fields=(
            Param("addresses", ADDRESS_LIST, "addresses to return"),
            Param(
                "encoding",
                TEXT,
                "account data encoding",
                required=False,
                choices=("base64", "base64+zstd", "jsonParsed"),
            ),
        ),
    ),
)

# The helpers always send `visible` (False unless told), so an answer's form never depends on
# a server default; see the TronMethods docstring.
_VISIBLE_FALSE = Param(
    "visible",
    BOOL,
    "addresses as base58 (true) or hex (false)",
    required=False,
    server_default=False,
    helper_default=False,
)


def _token_name_args(name: str) -> tuple[Arg, ...]:
    """A TRON asset lookup's helper arguments: the name or id as `name`, and `visible`."""
    return (Arg(name, "value", REQUIRED, positional=True), Arg("visible", "visible", False))


# --- row constructors: what rows of one chain family share, so each row says only its own -----
# Every row is keywords: name, params, result kind, summary, helper, then what differs from its
# family's defaults (RU rule, checks, cache pinning, in_spec).

_NO_BLOCK_RU = Fixed(1, PUBLIC + ": calls without a block parameter are 1 RU")
_TRON_RU = Fixed(1, PUBLIC + ": TRON requests are 1 RU each")
_TON_RU = Fixed(1, "toolkit assumption: 1 RU, like every other TON request")
_PLATFORM_RU = Fixed(
    0, "toolkit assumption: the platform API is not a node request and costs no RU"
)


def _archive(param: str, source: str) -> ArchiveByBlock:
    """The archive rule on the block parameter `param`, with its source."""
    return ArchiveByBlock(param, source)


def _evm(
    name: str,
    *params: Param,
    chains: tuple[str, ...] = EVM_CHAINS,
    ru: Rule = _NO_BLOCK_RU,
    **row: Any,
) -> Method:
    """An EVM JSON-RPC method (section A unless said), on every EVM chain unless said."""
    row.setdefault("section", "A")
    return Method(name, chains, Surface.JSONRPC, params, ru=ru, **row)


def _tron(name: str, *params: Param, visible: Param | None = _VISIBLE_FALSE, **row: Any) -> Method:
    """A TRON wallet/ REST method (POST, a JSON body) at its own path; `visible` is appended."""
    params += (visible,) if visible is not None else ()
    row.update(ru=_TRON_RU, section="D", path="/" + name)
    return Method(name, ("tron",), Surface.REST_POST, params, **row)


def _ton(name: str, *params: Param, **row: Any) -> Method:
    """A TON toncenter v2 method (GET, query parameters) at its own path."""
    row.setdefault("ru", _TON_RU)
    return Method(name, ("ton",), Surface.REST_GET, params, section="E", path="/" + name, **row)


METHODS: tuple[Method, ...] = (
    # A. EVM JSON-RPC
    _evm("eth_blockNumber", result="quantity",
         summary="Latest block number.", helper="block_number"),
    _evm("eth_getBalance", _ADDRESS, _STATE_BLOCK, result="quantity",
         ru=_archive("block", SPEC + ": archive billing for eth_getBalance"),
         summary="Balance in wei at a block.", helper="get_balance"),
    _evm("eth_getStorageAt",
         Param("address", EVM_ADDRESS, "contract address"),
         Param("slot", QUANTITY, "storage position"),
         _STATE_BLOCK,
         result="data", ru=_archive("block", SPEC + ": archive billing for eth_getStorageAt"),
         summary="The 32-byte word at a storage slot.", helper="get_storage_at"),
    _evm("eth_call", Param("call", OBJECT, "call object", fields=CALL_OBJECT_FIELDS), _STATE_BLOCK,
         result="data", ru=_archive("block", SPEC + ": archive billing for eth_call"),
         summary="Execute a call without a transaction; returns the return data.",
         helper="call_contract", checks=(_one_gas_price,),
         args=(Arg("to", "call.to", REQUIRED, positional=True),
               Arg("data", "call.data", positional=True),
               Arg("block", "block", "latest"),
               Arg("sender", "call.from"),
               Arg("value", "call.value"),
               Arg("gas", "call.gas"),
               Arg("gasprice", "call.gasprice")),
         notes=("A plain transfer simulation (no `data`, a `value`) returns ``0x`` on success; "
                "the `sender` must hold enough for the value and the fee.",)),
    _evm("web3_clientVersion", result="text",
         summary="The node's client version.", helper="client_version"),
    _evm("debug_printBlock",
         Param("number", BLOCK_NUMBER, f"block number, {DEBUG_PRINT_BLOCK_FLOOR:,} or later"),
         chains=("arbitrum",), result="text",
         ru=Fixed(2, PUBLIC + ": every debug_* method is 2 RU"),
         summary="A verbose dump of a whole block (Arbitrum; needs the debug namespace).",
         helper="print_block", checks=(_debug_print_block_floor,),
         notes=("The answer is Go's ``spew.Sdump`` of the block; "
                "`toolkit.frames.evm_printed_blocks` reads it.",
                "Earlier blocks need the arbtrace_* methods (`call_raw`).")),
    # A+. EVM read methods real clients call first (web3.py: eth_chainId before eth_call)
    _evm("eth_chainId", result="quantity",
         summary="The chain id (EIP-155).", helper="chain_id", pinned_by=ALWAYS, in_spec=False),
    _evm("net_version", result="decimal-text",
         summary="The network id, as decimal text.", helper="net_version",
         pinned_by=ALWAYS, in_spec=False),
    _evm("eth_gasPrice", result="quantity",
         summary="The node's gas price suggestion, in wei.", helper="gas_price", in_spec=False),
    _evm("eth_getCode", _ADDRESS, _STATE_BLOCK, result="data",
         ru=_archive("block", PUBLIC + ": the archive rule covers eth_getCode"),
         summary="The code at an address (0x for an account without code).", helper="get_code",
         in_spec=False),
    _evm("eth_getTransactionCount", _ADDRESS, _STATE_BLOCK, result="quantity",
         ru=_archive("block", PUBLIC + ": the archive rule covers state reads"),
         summary="The number of transactions an account has sent (its nonce) at a block.",
         helper="get_transaction_count", in_spec=False),
    _evm("eth_getBlockByNumber",
         _BLOCK, Param("full", BOOL, "whole transactions (true) or their hashes", default=False),
         result="evm-block",
         ru=_archive("block", PUBLIC + ": the archive rule covers eth_getBlockByNumber"),
         summary="A block's header and transactions (null above the head).", helper="get_block",
         in_spec=False),
    _evm("eth_getLogs", Param("filter", OBJECT, "log filter", fields=LOG_FILTER_FIELDS),
         result="log-list",
         ru=ArchiveByBlock(
             "fromBlock",
             PUBLIC + ": eth_getLogs is billed by fromBlock, by toBlock without one",
             fallback=("toBlock", "blockHash"),
         ),
         summary=f"Event logs of a block range (at most {MAX_LOG_RANGE:,} blocks) or of one block.",
         helper="get_logs", checks=(_log_range,), pinned_by="filter.toBlock", in_spec=False),
    # B. Polygon bridge client
    _evm("bor_getRootHash",
         Param("from", INT, "first block of the range", minimum=0),
         Param("to", INT, "last block of the range", minimum=0),
         chains=("polygon",), section="B", result="root-hash",
         summary="Root hash of a block range (64 hex digits, no 0x).", helper="get_root_hash",
         checks=(_root_hash_range,),
         args=(Arg("from_block", "from", REQUIRED, positional=True),
               Arg("to_block", "to", REQUIRED, positional=True)),
         pinned_by="to",  # the root of a range is fixed once its last block is final
         notes=("The range is capped by a node-configured limit the spec does not give.",)),
    # C. Solana
    Method("simulateTransaction", ("solana",), Surface.JSONRPC,
           (Param("transaction", SOLANA_TX, "encoded transaction"),
            Param("config", OBJECT, "options", required=False, fields=SIMULATE_CONFIG_FIELDS)),
           result="simulation",
           ru=Fixed(1, "toolkit assumption: 1 RU, the spec gives no archive rule for Solana"),
           summary="Execute a transaction without sending it and report logs, units, balances.",
           helper="simulate_transaction", section="C", checks=(_simulate_rules,),
           args=(Arg("transaction", "transaction", REQUIRED, positional=True, python="Any"),
                 Arg("encoding", "config.encoding", "base64"),
                 Arg("commitment", "config.commitment"),
                 Arg("sig_verify", "config.sigVerify"),
                 Arg("replace_recent_blockhash", "config.replaceRecentBlockhash"),
                 Arg("min_context_slot", "config.minContextSlot"),
                 Arg("inner_instructions", "config.innerInstructions"),
                 Arg("accounts", "config.accounts.addresses"),
                 Arg("accounts_encoding", "config.accounts.encoding")),
           inputs=(transaction_as_text,),
           notes=("`transaction` is encoded text, its bytes, or a solders transaction object, "
                  "encoded with `encoding` (base64 unless told: the spec deprecates base58).",
                  "The result is as the node sends it, ``{\"context\": ..., \"value\": ...}``; "
                  "see `toolkit.frames`.")),
    # D. TRON
    _tron("wallet/getassetissuebyname",
          Param("value", TEXT, "token name (hex of UTF-8 when visible is false)"),
          result="asset-issue",
          summary="A TRC-10 asset by its name (an error when the name is not unique).",
          helper="get_asset_issue_by_name", checks=(_tron_text_value(default_visible=False),),
          args=_token_name_args("name"), inputs=(token_name_as_hex,),
          notes=("java-tron answers the bare record and the spec shows it as "
                 "``{\"assetIssue\": [record]}``: either way the helper returns the record "
                 "(``{}`` when no asset has the name).",
                 "Several assets with the name raise `AmbiguousAssetName`: list them with "
                 "`get_asset_issue_list_by_name` and look the one you want up by id.")),
    _tron("wallet/getassetissuelistbyname",
          Param("value", TEXT, "token name or pattern (hex of UTF-8 when visible is false)"),
          visible=Param("visible", BOOL, "plain-text value", required=False, server_default=True,
                        helper_default=False),
          result="asset-issue-list", summary="All TRC-10 assets matching a name.",
          helper="get_asset_issue_list_by_name", checks=(_tron_text_value(default_visible=True),),
          args=_token_name_args("name"), inputs=(token_name_as_hex,)),
    _tron("wallet/getassetissuebyid", Param("value", ASSET_ID, "token id"),
          result="asset-issue", summary="A TRC-10 asset by its unique id.",
          helper="get_asset_issue_by_id", args=_token_name_args("asset_id")),
    _tron("wallet/gettransactioninfobyblocknum", Param("num", INT, "block number", minimum=0),
          result="transaction-info-list",
          summary="Transaction info (fees, receipts, logs) of every transaction in a block.",
          helper="get_transaction_info_by_block_num", pinned_by="num",
          notes=("The helper returns a list: the node's ``{}`` (for block 0) becomes ``[]``.",)),
    _tron("wallet/getblockbylatestnum",
          Param("num", INT, "how many latest blocks", minimum=1, maximum=MAX_LATEST_BLOCKS),
          result="block-list", summary=f"The latest blocks (at most {MAX_LATEST_BLOCKS}).",
          helper="get_block_by_latest_num"),
    _tron("wallet/proposaldelete",
          Param("owner_address", TRON_ADDRESS, "the proposal's creator (base58 or hex)"),
          Param("proposal_id", INT, "proposal id", minimum=1),
          result="unsigned-transaction",
          summary="An unsigned transaction deleting a proposal (sign and broadcast it yourself).",
          helper="proposal_delete", checks=(_tron_address_form("owner_address"),),
          notes=("Only the creator may delete, before the proposal is executed; sign and "
                 "broadcast the returned transaction yourself.",)),
    _evm("web3_sha3", Param("data", HEX_DATA, "bytes to hash"),
         chains=("tron",), section="D", path="/jsonrpc", ru=_TRON_RU, result="data",
         summary="Keccak-256 of the given bytes (TRON /jsonrpc).", helper="sha3",
         pinned_by=ALWAYS),
    # D+. TRON read methods real clients call first (tronpy: getnowblock, getaccount)
    _tron("wallet/getnowblock", result="tron-block",
          summary="The latest block.", helper="get_now_block", in_spec=False),
    _tron("wallet/getblockbynum", Param("num", INT, "block number", minimum=0),
          result="tron-block", summary="One block by its number ({} above the head).",
          helper="get_block_by_num", pinned_by="num", in_spec=False),
    _tron("wallet/getnodeinfo", result="tron-node-info",
          summary="The node's version, peers, and its view of the chain.",
          helper="get_node_info", in_spec=False),
    _tron("wallet/getaccount", Param("address", TRON_ADDRESS, "account (base58 or hex)"),
          result="tron-account",
          summary="An account: balance, assets, resources ({} for an account not on chain).",
          helper="get_account", checks=(_tron_address_form("address"),), in_spec=False),
    # E. TON
    _ton("api/v2/getTokenData", Param("address", TON_ADDRESS, "token contract address"),
         result="token-data", ru=Fixed(1, SPEC + ": getTokenData is always a full request, 1 RU"),
         summary="Token (jetton) data: name, symbol, decimals, supply.", helper="get_token_data"),
    Method("api/v2/jsonRPC", ("ton",), Surface.JSONRPC_NAMED,
           (Param("method", TEXT, "inner method, for example unpackAddress"),
            Param("params", JSON_OBJECT, "named parameters", required=False, default={})),
           result="any",
           ru=ByInnerMethod(
               (("getTransactions", 2),),
               1,
               PUBLIC + ": jsonRPC is priced by the method it carries, getTransactions 2 RU; "
               "others 1 RU, like every other TON request (toolkit assumption)",
           ),
           summary="TON JSON-RPC with named parameters (for example unpackAddress).",
           helper="json_rpc", section="E", path="/api/v2/jsonRPC", checks=(_ton_inner_method,),
           args=(Arg("method", "method", REQUIRED, positional=True),
                 Arg("params", "params", collects=True))),
    # E+. TON read methods real clients call first (toncenter's SDK: GET, like getTokenData)
    _ton("api/v2/getMasterchainInfo", result="masterchain-info",
         summary="The latest masterchain block (its seqno is TON's head).",
         helper="get_masterchain_info", in_spec=False),
    _ton("api/v2/detectAddress",
         Param("address", TON_ADDRESS_AS_GIVEN, "any form of a TON address"),
         result="address-forms",
         summary="Every form of an address: raw, bounceable, non-bounceable.",
         helper="detect_address", pinned_by=ALWAYS, in_spec=False),
    # F. Platform
    Method("v2/nodes/", ("platform",), Surface.PLATFORM,
           (Param("ordering", TEXT, "sort order", required=False,
                  choices=("name", "-name", "created_at", "-created_at")),
            Param("page", INT, "page number", required=False, minimum=1)),
           result="node-page",
           ru=_PLATFORM_RU,
           summary="One page of the organization's nodes.", helper="list_nodes_page",
           section="F", path="/v2/nodes/", args=(Arg("ordering", "ordering"), Arg("page", "page"))),
)  # fmt: skip
