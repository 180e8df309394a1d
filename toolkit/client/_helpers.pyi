"""The typed signatures of the node helpers, for checkers and editors only (never imported).

Generated from the catalog and `_chains.py` by `python -m toolkit.client._stubs`: do not edit.
"""

from collections.abc import Mapping
from typing import Any

from ._chains import (
    AsyncArbitrumNode,
    AsyncEvmNode,
    AsyncPolygonNode,
    AsyncSolanaNode,
    AsyncTonNode,
    AsyncTronNode,
)


class EvmMethods:
    """EVM JSON-RPC (spec section A)."""

    def block_number(self) -> int:
        """The latest block number, as an int (``eth_blockNumber``)."""
        ...

    def get_balance(self, address: str, block: int | str = ...) -> int:
        """The balance in wei, as an exact int (``eth_getBalance``).

        `block` is an int, a 0x hex number or a tag. A block 128 or more behind the head is an
        archive request (2 RU instead of 1).
        """
        ...

    def get_storage_at(self, address: str, slot: int | str, block: int | str = ...) -> str:
        """The 32-byte word at a storage slot, as 0x hex (``eth_getStorageAt``; archive rule)."""
        ...

    def call_contract(
        self,
        to: str,
        data: str | bytes | None = ...,
        *,
        block: int | str = ...,
        sender: str | None = ...,
        value: int | str | None = ...,
        gas: int | str | None = ...,
        gasprice: int | str | None = ...,
    ) -> str:
        """Execute a call without a transaction; returns the 0x return data (``eth_call``).

        A plain transfer simulation (no `data`, a `value`) returns ``0x`` on success; the `sender`
        must hold enough for the value and the fee. Archive rule applies to `block`.
        """
        ...

    def client_version(self) -> str:
        """The node's client version string (``web3_clientVersion``)."""
        ...

    def chain_id(self) -> int:
        """The chain id (EIP-155). (``eth_chainId``; always 1 RU)

        A read method real clients call first; not one of the gateway spec's.
        """
        ...

    def net_version(self) -> str:
        """The network id, as decimal text. (``net_version``; always 1 RU)

        A read method real clients call first; not one of the gateway spec's.
        """
        ...

    def gas_price(self) -> int:
        """The node's gas price suggestion, in wei. (``eth_gasPrice``; always 1 RU)

        A read method real clients call first; not one of the gateway spec's.
        """
        ...

    def get_code(self, address: str, block: int | str | Mapping[str, Any] = ...) -> str:
        """The code at an address (0x for an account without code). (``eth_getCode``; 1 RU, or 2 RU when block is an archive block)

        - `address` (0x + 40 hex digits): account address
        - `block` (0x hex block number, a Python int, a tag, or a block hash (EIP-1898), optional): block number, tag or hash

        A read method real clients call first; not one of the gateway spec's.
        """
        ...

    def get_transaction_count(
        self,
        address: str,
        block: int | str | Mapping[str, Any] = ...,
    ) -> int:
        """The number of transactions an account has sent (its nonce) at a block. (``eth_getTransactionCount``; 1 RU, or 2 RU when block is an archive block)

        - `address` (0x + 40 hex digits): account address
        - `block` (0x hex block number, a Python int, a tag, or a block hash (EIP-1898), optional): block number, tag or hash

        A read method real clients call first; not one of the gateway spec's.
        """
        ...

    def get_block(self, block: int | str = ..., full: bool = ...) -> dict[str, Any] | None:
        """A block's header and transactions (null above the head). (``eth_getBlockByNumber``; 1 RU, or 2 RU when block is an archive block)

        - `block` (0x hex block number, a Python int, or a tag, optional): block number or tag
        - `full` (true or false, optional): whole transactions (true) or their hashes

        A read method real clients call first; not one of the gateway spec's.
        """
        ...

    def get_logs(
        self,
        filter: Mapping[str, Any] | None = ...,
        *,
        fromBlock: int | str | None = ...,
        toBlock: int | str | None = ...,
        address: str | list[str] | tuple[str, ...] | None = ...,
        topics: list[Any] | tuple[Any, ...] | None = ...,
        blockHash: str | None = ...,
    ) -> list[dict[str, Any]]:
        """Event logs of a block range (at most 10,000 blocks) or of one block. (``eth_getLogs``; 1 RU, or 2 RU when fromBlock is an archive block)

        - `filter` (object): log filter
          - `fromBlock`: first block
          - `toBlock`: last block
          - `address`: emitting contract(s)
          - `topics`: topic filter by position
          - `blockHash`: one block, instead of a range

        A read method real clients call first; not one of the gateway spec's.
        """
        ...


class AsyncEvmMethods:
    """EVM JSON-RPC (spec section A)."""

    async def block_number(self) -> int:
        """The latest block number, as an int (``eth_blockNumber``)."""
        ...

    async def get_balance(self, address: str, block: int | str = ...) -> int:
        """The balance in wei, as an exact int (``eth_getBalance``).

        `block` is an int, a 0x hex number or a tag. A block 128 or more behind the head is an
        archive request (2 RU instead of 1).
        """
        ...

    async def get_storage_at(self, address: str, slot: int | str, block: int | str = ...) -> str:
        """The 32-byte word at a storage slot, as 0x hex (``eth_getStorageAt``; archive rule)."""
        ...

    async def call_contract(
        self,
        to: str,
        data: str | bytes | None = ...,
        *,
        block: int | str = ...,
        sender: str | None = ...,
        value: int | str | None = ...,
        gas: int | str | None = ...,
        gasprice: int | str | None = ...,
    ) -> str:
        """Execute a call without a transaction; returns the 0x return data (``eth_call``).

        A plain transfer simulation (no `data`, a `value`) returns ``0x`` on success; the `sender`
        must hold enough for the value and the fee. Archive rule applies to `block`.
        """
        ...

    async def client_version(self) -> str:
        """The node's client version string (``web3_clientVersion``)."""
        ...

    async def chain_id(self) -> int:
        """The chain id (EIP-155). (``eth_chainId``; always 1 RU)

        A read method real clients call first; not one of the gateway spec's.
        """
        ...

    async def net_version(self) -> str:
        """The network id, as decimal text. (``net_version``; always 1 RU)

        A read method real clients call first; not one of the gateway spec's.
        """
        ...

    async def gas_price(self) -> int:
        """The node's gas price suggestion, in wei. (``eth_gasPrice``; always 1 RU)

        A read method real clients call first; not one of the gateway spec's.
        """
        ...

    async def get_code(self, address: str, block: int | str | Mapping[str, Any] = ...) -> str:
        """The code at an address (0x for an account without code). (``eth_getCode``; 1 RU, or 2 RU when block is an archive block)

        - `address` (0x + 40 hex digits): account address
        - `block` (0x hex block number, a Python int, a tag, or a block hash (EIP-1898), optional): block number, tag or hash

        A read method real clients call first; not one of the gateway spec's.
        """
        ...

    async def get_transaction_count(
        self,
        address: str,
        block: int | str | Mapping[str, Any] = ...,
    ) -> int:
        """The number of transactions an account has sent (its nonce) at a block. (``eth_getTransactionCount``; 1 RU, or 2 RU when block is an archive block)

        - `address` (0x + 40 hex digits): account address
        - `block` (0x hex block number, a Python int, a tag, or a block hash (EIP-1898), optional): block number, tag or hash

        A read method real clients call first; not one of the gateway spec's.
        """
        ...

    async def get_block(self, block: int | str = ..., full: bool = ...) -> dict[str, Any] | None:
        """A block's header and transactions (null above the head). (``eth_getBlockByNumber``; 1 RU, or 2 RU when block is an archive block)

        - `block` (0x hex block number, a Python int, or a tag, optional): block number or tag
        - `full` (true or false, optional): whole transactions (true) or their hashes

        A read method real clients call first; not one of the gateway spec's.
        """
        ...

    async def get_logs(
        self,
        filter: Mapping[str, Any] | None = ...,
        *,
        fromBlock: int | str | None = ...,
        toBlock: int | str | None = ...,
        address: str | list[str] | tuple[str, ...] | None = ...,
        topics: list[Any] | tuple[Any, ...] | None = ...,
        blockHash: str | None = ...,
    ) -> list[dict[str, Any]]:
        """Event logs of a block range (at most 10,000 blocks) or of one block. (``eth_getLogs``; 1 RU, or 2 RU when fromBlock is an archive block)

        - `filter` (object): log filter
          - `fromBlock`: first block
          - `toBlock`: last block
          - `address`: emitting contract(s)
          - `topics`: topic filter by position
          - `blockHash`: one block, instead of a range

        A read method real clients call first; not one of the gateway spec's.
        """
        ...


class ArbitrumMethods(EvmMethods):
    def print_block(self, number: int | str) -> str:
        """A verbose text dump of a whole block (``debug_printBlock``, 2 RU): Go's
        ``spew.Sdump`` of the block; `toolkit.frames.evm_printed_blocks` reads it.

        `number` is an int or 0x hex and is sent as a decimal integer, as the gateway documents
        the parameter. Only for blocks 22,207,815 and later; earlier blocks need the arbtrace_*
        methods (`call_raw`). The node must have the debug namespace enabled.
        """
        ...


class AsyncArbitrumMethods(AsyncEvmMethods):
    async def print_block(self, number: int | str) -> str:
        """A verbose text dump of a whole block (``debug_printBlock``, 2 RU): Go's
        ``spew.Sdump`` of the block; `toolkit.frames.evm_printed_blocks` reads it.

        `number` is an int or 0x hex and is sent as a decimal integer, as the gateway documents
        the parameter. Only for blocks 22,207,815 and later; earlier blocks need the arbtrace_*
        methods (`call_raw`). The node must have the debug namespace enabled.
        """
        ...


class PolygonMethods(EvmMethods):
    def get_root_hash(self, from_block: int, to_block: int) -> str:
        """The root hash of a block range, 64 hex digits without 0x (``bor_getRootHash``).

        The node caps the range length; the cap is node configuration the spec does not give.
        """
        ...


class AsyncPolygonMethods(AsyncEvmMethods):
    async def get_root_hash(self, from_block: int, to_block: int) -> str:
        """The root hash of a block range, 64 hex digits without 0x (``bor_getRootHash``).

        The node caps the range length; the cap is node configuration the spec does not give.
        """
        ...


class SolanaMethods:
    """Solana JSON-RPC (spec section C)."""

    def simulate_transaction(
        self,
        transaction: Any,
        *,
        encoding: str = ...,
        commitment: str | None = ...,
        sig_verify: bool | None = ...,
        replace_recent_blockhash: bool | None = ...,
        min_context_slot: int | None = ...,
        inner_instructions: bool | None = ...,
        accounts: list[str] | None = ...,
        accounts_encoding: str | None = ...,
    ) -> dict[str, Any]:
        """Execute a transaction without sending it (``simulateTransaction``).

        `transaction` is encoded text, raw bytes, or a solders transaction object (encoded with
        `encoding`, base64 by default because the spec deprecates base58). Returns the result
        as the node sends it, ``{"context": ..., "value": ...}``; see `toolkit.frames`.
        `sig_verify` and `replace_recent_blockhash` cannot both be true.
        """
        ...


class AsyncSolanaMethods:
    """Solana JSON-RPC (spec section C)."""

    async def simulate_transaction(
        self,
        transaction: Any,
        *,
        encoding: str = ...,
        commitment: str | None = ...,
        sig_verify: bool | None = ...,
        replace_recent_blockhash: bool | None = ...,
        min_context_slot: int | None = ...,
        inner_instructions: bool | None = ...,
        accounts: list[str] | None = ...,
        accounts_encoding: str | None = ...,
    ) -> dict[str, Any]:
        """Execute a transaction without sending it (``simulateTransaction``).

        `transaction` is encoded text, raw bytes, or a solders transaction object (encoded with
        `encoding`, base64 by default because the spec deprecates base58). Returns the result
        as the node sends it, ``{"context": ..., "value": ...}``; see `toolkit.frames`.
        `sig_verify` and `replace_recent_blockhash` cannot both be true.
        """
        ...


class TronMethods:
    """TRON wallet HTTP API and /jsonrpc (spec section D).

    One rule for `visible` in every helper that has it: it defaults to False (hex addresses and,
    for asset texts, hex of UTF-8), the node's own default and the spec's for every method but
    the asset list by name; and the helper always sends it, so the answer's form never depends on
    a server default. Names are always given as plain text: the helper encodes them for the node.
    Pass ``visible=True`` for base58 addresses and plain-text names in the answer. The frames
    read either form.
    """

    def get_asset_issue_by_name(self, name: str, *, visible: bool = ...) -> dict[str, Any]:
        """The TRC-10 asset with this name, as one record (``wallet/getassetissuebyname``).

        java-tron answers the bare record and the spec shows it as ``{"assetIssue": [record]}``:
        either way this returns the record (``{}`` when no asset has the name). Raises
        `AmbiguousAssetName` when several assets share the name; then list them with
        `get_asset_issue_list_by_name` and look the one you want up by id.
        """
        ...

    def get_asset_issue_list_by_name(self, name: str, *, visible: bool = ...) -> dict[str, Any]:
        """All TRC-10 assets with this name (``wallet/getassetissuelistbyname``)."""
        ...

    def get_asset_issue_by_id(self, asset_id: str | int, *, visible: bool = ...) -> dict[str, Any]:
        """The TRC-10 asset with this id (``wallet/getassetissuebyid``): ids are unique."""
        ...

    def get_transaction_info_by_block_num(self, num: int, *, visible: bool = ...) -> list[Any]:
        """Transaction info of every transaction in block `num`, as a list
        (``wallet/gettransactioninfobyblocknum``; the node's ``{}`` for block 0 becomes []).
        """
        ...

    def get_block_by_latest_num(self, num: int, *, visible: bool = ...) -> dict[str, Any]:
        """The latest `num` blocks, 1 to 100 (``wallet/getblockbylatestnum``)."""
        ...

    def proposal_delete(
        self,
        owner_address: str,
        proposal_id: int,
        *,
        visible: bool = ...,
    ) -> dict[str, Any]:
        """An unsigned transaction deleting a proposal (``wallet/proposaldelete``).

        Only the creator may delete, before the proposal is executed; sign and broadcast the
        returned transaction yourself. `owner_address` may be base58 or hex either way.
        """
        ...

    def sha3(self, data: bytes | str) -> str:
        """Keccak-256 of `data` (bytes or 0x hex), as 0x hex (``web3_sha3`` on /jsonrpc)."""
        ...

    def get_now_block(self, visible: bool | None = ...) -> dict[str, Any]:
        """The latest block. (``wallet/getnowblock``; always 1 RU)

        - `visible` (true or false, optional): addresses as base58 (true) or hex (false)

        A read method real clients call first; not one of the gateway spec's.
        """
        ...

    def get_block_by_num(self, num: int, visible: bool | None = ...) -> dict[str, Any]:
        """One block by its number ({} above the head). (``wallet/getblockbynum``; always 1 RU)

        - `num` (integer (int64)): block number
        - `visible` (true or false, optional): addresses as base58 (true) or hex (false)

        A read method real clients call first; not one of the gateway spec's.
        """
        ...

    def get_node_info(self, visible: bool | None = ...) -> dict[str, Any]:
        """The node's version, peers, and its view of the chain. (``wallet/getnodeinfo``; always 1 RU)

        - `visible` (true or false, optional): addresses as base58 (true) or hex (false)

        A read method real clients call first; not one of the gateway spec's.
        """
        ...

    def get_account(self, address: str, visible: bool | None = ...) -> dict[str, Any]:
        """An account: balance, assets, resources ({} for an account not on chain). (``wallet/getaccount``; always 1 RU)

        - `address` (base58 T... or hex 41...): account (base58 or hex)
        - `visible` (true or false, optional): addresses as base58 (true) or hex (false)

        A read method real clients call first; not one of the gateway spec's.
        """
        ...


class AsyncTronMethods:
    """TRON wallet HTTP API and /jsonrpc (spec section D).

    One rule for `visible` in every helper that has it: it defaults to False (hex addresses and,
    for asset texts, hex of UTF-8), the node's own default and the spec's for every method but
    the asset list by name; and the helper always sends it, so the answer's form never depends on
    a server default. Names are always given as plain text: the helper encodes them for the node.
    Pass ``visible=True`` for base58 addresses and plain-text names in the answer. The frames
    read either form.
    """

    async def get_asset_issue_by_name(self, name: str, *, visible: bool = ...) -> dict[str, Any]:
        """The TRC-10 asset with this name, as one record (``wallet/getassetissuebyname``).

        java-tron answers the bare record and the spec shows it as ``{"assetIssue": [record]}``:
        either way this returns the record (``{}`` when no asset has the name). Raises
        `AmbiguousAssetName` when several assets share the name; then list them with
        `get_asset_issue_list_by_name` and look the one you want up by id.
        """
        ...

    async def get_asset_issue_list_by_name(
        self,
        name: str,
        *,
        visible: bool = ...,
    ) -> dict[str, Any]:
        """All TRC-10 assets with this name (``wallet/getassetissuelistbyname``)."""
        ...

    async def get_asset_issue_by_id(
        self,
        asset_id: str | int,
        *,
        visible: bool = ...,
    ) -> dict[str, Any]:
        """The TRC-10 asset with this id (``wallet/getassetissuebyid``): ids are unique."""
        ...

    async def get_transaction_info_by_block_num(
        self,
        num: int,
        *,
        visible: bool = ...,
    ) -> list[Any]:
        """Transaction info of every transaction in block `num`, as a list
        (``wallet/gettransactioninfobyblocknum``; the node's ``{}`` for block 0 becomes []).
        """
        ...

    async def get_block_by_latest_num(self, num: int, *, visible: bool = ...) -> dict[str, Any]:
        """The latest `num` blocks, 1 to 100 (``wallet/getblockbylatestnum``)."""
        ...

    async def proposal_delete(
        self,
        owner_address: str,
        proposal_id: int,
        *,
        visible: bool = ...,
    ) -> dict[str, Any]:
        """An unsigned transaction deleting a proposal (``wallet/proposaldelete``).

        Only the creator may delete, before the proposal is executed; sign and broadcast the
        returned transaction yourself. `owner_address` may be base58 or hex either way.
        """
        ...

    async def sha3(self, data: bytes | str) -> str:
        """Keccak-256 of `data` (bytes or 0x hex), as 0x hex (``web3_sha3`` on /jsonrpc)."""
        ...

    async def get_now_block(self, visible: bool | None = ...) -> dict[str, Any]:
        """The latest block. (``wallet/getnowblock``; always 1 RU)

        - `visible` (true or false, optional): addresses as base58 (true) or hex (false)

        A read method real clients call first; not one of the gateway spec's.
        """
        ...

    async def get_block_by_num(self, num: int, visible: bool | None = ...) -> dict[str, Any]:
        """One block by its number ({} above the head). (``wallet/getblockbynum``; always 1 RU)

        - `num` (integer (int64)): block number
        - `visible` (true or false, optional): addresses as base58 (true) or hex (false)

        A read method real clients call first; not one of the gateway spec's.
        """
        ...

    async def get_node_info(self, visible: bool | None = ...) -> dict[str, Any]:
        """The node's version, peers, and its view of the chain. (``wallet/getnodeinfo``; always 1 RU)

        - `visible` (true or false, optional): addresses as base58 (true) or hex (false)

        A read method real clients call first; not one of the gateway spec's.
        """
        ...

    async def get_account(self, address: str, visible: bool | None = ...) -> dict[str, Any]:
        """An account: balance, assets, resources ({} for an account not on chain). (``wallet/getaccount``; always 1 RU)

        - `address` (base58 T... or hex 41...): account (base58 or hex)
        - `visible` (true or false, optional): addresses as base58 (true) or hex (false)

        A read method real clients call first; not one of the gateway spec's.
        """
        ...


class TonMethods:
    """TON HTTP API v2 (spec section E)."""

    def get_token_data(self, address: str) -> dict[str, Any]:
        """Token (jetton) data for a token contract (``api/v2/getTokenData``, 1 RU)."""
        ...

    def json_rpc(self, method: str, **params: Any) -> Any:
        """Any method of the TON JSON-RPC endpoint, with named params (``api/v2/jsonRPC``)."""
        ...

    def unpack_address(self, address: str) -> Any:
        """A user-friendly TON address in raw form, by the node (``unpackAddress``)."""
        ...

    def get_masterchain_info(self) -> dict[str, Any]:
        """The latest masterchain block (its seqno is TON's head). (``api/v2/getMasterchainInfo``; always 1 RU)

        A read method real clients call first; not one of the gateway spec's.
        """
        ...

    def detect_address(self, address: str) -> dict[str, Any]:
        """Every form of an address: raw, bounceable, non-bounceable. (``api/v2/detectAddress``; always 1 RU)

        - `address` (raw 0:<hex> or user-friendly): any form of a TON address

        A read method real clients call first; not one of the gateway spec's.
        """
        ...


class AsyncTonMethods:
    """TON HTTP API v2 (spec section E)."""

    async def get_token_data(self, address: str) -> dict[str, Any]:
        """Token (jetton) data for a token contract (``api/v2/getTokenData``, 1 RU)."""
        ...

    async def json_rpc(self, method: str, **params: Any) -> Any:
        """Any method of the TON JSON-RPC endpoint, with named params (``api/v2/jsonRPC``)."""
        ...

    async def unpack_address(self, address: str) -> Any:
        """A user-friendly TON address in raw form, by the node (``unpackAddress``)."""
        ...

    async def get_masterchain_info(self) -> dict[str, Any]:
        """The latest masterchain block (its seqno is TON's head). (``api/v2/getMasterchainInfo``; always 1 RU)

        A read method real clients call first; not one of the gateway spec's.
        """
        ...

    async def detect_address(self, address: str) -> dict[str, Any]:
        """Every form of an address: raw, bounceable, non-bounceable. (``api/v2/detectAddress``; always 1 RU)

        - `address` (raw 0:<hex> or user-friendly): any form of a TON address

        A read method real clients call first; not one of the gateway spec's.
        """
        ...


class EvmHelpers(EvmMethods):
    """The helpers of `EvmNode`, and its async twin."""

    @property
    def aio(self) -> AsyncEvmNode:
        """The async twin of this client: same node, meter, ledger and settings."""
        ...


class AsyncEvmHelpers(AsyncEvmMethods):
    """The helpers of `AsyncEvmNode`."""


class ArbitrumHelpers(ArbitrumMethods):
    """The helpers of `ArbitrumNode`, and its async twin."""

    @property
    def aio(self) -> AsyncArbitrumNode:
        """The async twin of this client: same node, meter, ledger and settings."""
        ...


class AsyncArbitrumHelpers(AsyncArbitrumMethods):
    """The helpers of `AsyncArbitrumNode`."""


class PolygonHelpers(PolygonMethods):
    """The helpers of `PolygonNode`, and its async twin."""

    @property
    def aio(self) -> AsyncPolygonNode:
        """The async twin of this client: same node, meter, ledger and settings."""
        ...


class AsyncPolygonHelpers(AsyncPolygonMethods):
    """The helpers of `AsyncPolygonNode`."""


class SolanaHelpers(SolanaMethods):
    """The helpers of `SolanaNode`, and its async twin."""

    @property
    def aio(self) -> AsyncSolanaNode:
        """The async twin of this client: same node, meter, ledger and settings."""
        ...


class AsyncSolanaHelpers(AsyncSolanaMethods):
    """The helpers of `AsyncSolanaNode`."""


class TronHelpers(TronMethods):
    """The helpers of `TronNode`, and its async twin."""

    @property
    def aio(self) -> AsyncTronNode:
        """The async twin of this client: same node, meter, ledger and settings."""
        ...


class AsyncTronHelpers(AsyncTronMethods):
    """The helpers of `AsyncTronNode`."""


class TonHelpers(TonMethods):
    """The helpers of `TonNode`, and its async twin."""

    @property
    def aio(self) -> AsyncTonNode:
        """The async twin of this client: same node, meter, ledger and settings."""
        ...


class AsyncTonHelpers(AsyncTonMethods):
    """The helpers of `AsyncTonNode`."""
