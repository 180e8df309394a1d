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

    def read(
        self,
        address: str,
        signature: str | Mapping[str, Any],
        *args: Any,
        block: int | str | Mapping[str, Any] = ...,
    ) -> Any:
        """A contract's view function, by its signature: the decoded value (a tuple for several
        outputs). ``eth.read(token, "balanceOf(address)(uint256)", holder, block=19_000_000)``.

        `signature` is ``name(input types)(output types)`` or an ABI JSON fragment (a dict or
        its JSON text). Types: uintN, intN, address, bool, bytesN, bytes, string and arrays of
        them. Values come back as exact ints, checksummed addresses, bools, bytes and str.
        One ``eth_call``, priced like it (1 RU, or 2 RU when `block` is an archive block). A bad
        signature or a wrong argument count or type raises `ValidationError` before sending;
        return data that is not an encoding of the outputs raises `MalformedResponse`.
        """
        ...

    def block_number(self) -> int:
        """Latest block number. (``eth_blockNumber``; always 1 RU)"""
        ...

    def get_balance(self, address: str, block: int | str | Mapping[str, Any] = ...) -> int:
        """Balance in wei at a block. (``eth_getBalance``; 1 RU, or 2 RU when block is an archive block)

        - `address` (0x + 40 hex digits): account address
        - `block` (0x hex block number, a Python int, a tag, or a block hash (EIP-1898), optional): block number, tag or hash
        """
        ...

    def get_storage_at(
        self,
        address: str,
        slot: int | str,
        block: int | str | Mapping[str, Any] = ...,
    ) -> str:
        """The 32-byte word at a storage slot. (``eth_getStorageAt``; 1 RU, or 2 RU when block is an archive block)

        - `address` (0x + 40 hex digits): contract address
        - `slot` (0x hex quantity or a Python int, uint256): storage position
        - `block` (0x hex block number, a Python int, a tag, or a block hash (EIP-1898), optional): block number, tag or hash
        """
        ...

    def call_contract(
        self,
        to: str,
        data: str | bytes | bytearray | None = ...,
        *,
        block: int | str | Mapping[str, Any] = ...,
        sender: str | None = ...,
        value: int | str | None = ...,
        gas: int | str | None = ...,
        gasprice: int | str | None = ...,
    ) -> str:
        """Execute a call without a transaction; returns the return data. (``eth_call``; 1 RU, or 2 RU when block is an archive block)

        - `to` (0x + 40 hex digits, sent as ``call.to``): wallet or contract
        - `data` (0x-prefixed hex bytes, optional, sent as ``call.data``): function selector and ABI-encoded arguments
        - `block` (0x hex block number, a Python int, a tag, or a block hash (EIP-1898), optional): block number, tag or hash
        - `sender` (0x + 40 hex digits, optional, sent as ``call.from``): sender
        - `value` (0x hex quantity or a Python int, uint256 (sent without leading zeros), optional, sent as ``call.value``): value sent, in wei
        - `gas` (0x hex quantity or a Python int, uint64 (sent without leading zeros), optional, sent as ``call.gas``): maximum gas
        - `gasprice` (0x hex quantity or a Python int, uint256 (sent without leading zeros), optional, sent as ``call.gasprice``): gas price in wei (the spec's spelling)

        A plain transfer simulation (no `data`, a `value`) returns ``0x`` on success; the `sender` must hold enough for the value and the fee.
        """
        ...

    def client_version(self) -> str:
        """The node's client version. (``web3_clientVersion``; always 1 RU)"""
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

        - `filter` (object, optional): log filter
        - `fromBlock` (0x hex block number, a Python int, or a tag, optional, sent as ``filter.fromBlock``): first block
        - `toBlock` (0x hex block number, a Python int, or a tag, optional, sent as ``filter.toBlock``): last block
        - `address` (an EVM address or a list of them, optional, sent as ``filter.address``): emitting contract(s)
        - `topics` (up to 4 topics: null, a 32-byte hash, or a list, optional, sent as ``filter.topics``): topic filter by position
        - `blockHash` (0x + 64 hex digits, optional, sent as ``filter.blockHash``): one block, instead of a range

        A read method real clients call first; not one of the gateway spec's.
        """
        ...


class AsyncEvmMethods:
    """EVM JSON-RPC (spec section A)."""

    async def read(
        self,
        address: str,
        signature: str | Mapping[str, Any],
        *args: Any,
        block: int | str | Mapping[str, Any] = ...,
    ) -> Any:
        """A contract's view function, by its signature: the decoded value (a tuple for several
        outputs). ``eth.read(token, "balanceOf(address)(uint256)", holder, block=19_000_000)``.

        `signature` is ``name(input types)(output types)`` or an ABI JSON fragment (a dict or
        its JSON text). Types: uintN, intN, address, bool, bytesN, bytes, string and arrays of
        them. Values come back as exact ints, checksummed addresses, bools, bytes and str.
        One ``eth_call``, priced like it (1 RU, or 2 RU when `block` is an archive block). A bad
        signature or a wrong argument count or type raises `ValidationError` before sending;
        return data that is not an encoding of the outputs raises `MalformedResponse`.
        """
        ...

    async def block_number(self) -> int:
        """Latest block number. (``eth_blockNumber``; always 1 RU)"""
        ...

    async def get_balance(self, address: str, block: int | str | Mapping[str, Any] = ...) -> int:
        """Balance in wei at a block. (``eth_getBalance``; 1 RU, or 2 RU when block is an archive block)

        - `address` (0x + 40 hex digits): account address
        - `block` (0x hex block number, a Python int, a tag, or a block hash (EIP-1898), optional): block number, tag or hash
        """
        ...

    async def get_storage_at(
        self,
        address: str,
        slot: int | str,
        block: int | str | Mapping[str, Any] = ...,
    ) -> str:
        """The 32-byte word at a storage slot. (``eth_getStorageAt``; 1 RU, or 2 RU when block is an archive block)

        - `address` (0x + 40 hex digits): contract address
        - `slot` (0x hex quantity or a Python int, uint256): storage position
        - `block` (0x hex block number, a Python int, a tag, or a block hash (EIP-1898), optional): block number, tag or hash
        """
        ...

    async def call_contract(
        self,
        to: str,
        data: str | bytes | bytearray | None = ...,
        *,
        block: int | str | Mapping[str, Any] = ...,
        sender: str | None = ...,
        value: int | str | None = ...,
        gas: int | str | None = ...,
        gasprice: int | str | None = ...,
    ) -> str:
        """Execute a call without a transaction; returns the return data. (``eth_call``; 1 RU, or 2 RU when block is an archive block)

        - `to` (0x + 40 hex digits, sent as ``call.to``): wallet or contract
        - `data` (0x-prefixed hex bytes, optional, sent as ``call.data``): function selector and ABI-encoded arguments
        - `block` (0x hex block number, a Python int, a tag, or a block hash (EIP-1898), optional): block number, tag or hash
        - `sender` (0x + 40 hex digits, optional, sent as ``call.from``): sender
        - `value` (0x hex quantity or a Python int, uint256 (sent without leading zeros), optional, sent as ``call.value``): value sent, in wei
        - `gas` (0x hex quantity or a Python int, uint64 (sent without leading zeros), optional, sent as ``call.gas``): maximum gas
        - `gasprice` (0x hex quantity or a Python int, uint256 (sent without leading zeros), optional, sent as ``call.gasprice``): gas price in wei (the spec's spelling)

        A plain transfer simulation (no `data`, a `value`) returns ``0x`` on success; the `sender` must hold enough for the value and the fee.
        """
        ...

    async def client_version(self) -> str:
        """The node's client version. (``web3_clientVersion``; always 1 RU)"""
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

        - `filter` (object, optional): log filter
        - `fromBlock` (0x hex block number, a Python int, or a tag, optional, sent as ``filter.fromBlock``): first block
        - `toBlock` (0x hex block number, a Python int, or a tag, optional, sent as ``filter.toBlock``): last block
        - `address` (an EVM address or a list of them, optional, sent as ``filter.address``): emitting contract(s)
        - `topics` (up to 4 topics: null, a 32-byte hash, or a list, optional, sent as ``filter.topics``): topic filter by position
        - `blockHash` (0x + 64 hex digits, optional, sent as ``filter.blockHash``): one block, instead of a range

        A read method real clients call first; not one of the gateway spec's.
        """
        ...


class ArbitrumMethods(EvmMethods):
    """EVM JSON-RPC and Arbitrum's debug_printBlock."""

    def print_block(self, number: int | str) -> str:
        """A verbose dump of a whole block (Arbitrum; needs the debug namespace). (``debug_printBlock``; always 2 RU)

        - `number` (block number: a Python int or 0x hex, sent as a decimal int): block number, 22,207,815 or later

        The answer is Go's ``spew.Sdump`` of the block; `toolkit.frames.evm_printed_blocks` reads it.

        Earlier blocks need the arbtrace_* methods (`call_raw`).
        """
        ...


class AsyncArbitrumMethods(AsyncEvmMethods):
    """EVM JSON-RPC and Arbitrum's debug_printBlock."""

    async def print_block(self, number: int | str) -> str:
        """A verbose dump of a whole block (Arbitrum; needs the debug namespace). (``debug_printBlock``; always 2 RU)

        - `number` (block number: a Python int or 0x hex, sent as a decimal int): block number, 22,207,815 or later

        The answer is Go's ``spew.Sdump`` of the block; `toolkit.frames.evm_printed_blocks` reads it.

        Earlier blocks need the arbtrace_* methods (`call_raw`).
        """
        ...


class PolygonMethods(EvmMethods):
    """EVM JSON-RPC and Polygon's bor_getRootHash."""

    def get_root_hash(self, from_block: int, to_block: int) -> str:
        """Root hash of a block range (64 hex digits, no 0x). (``bor_getRootHash``; always 1 RU)

        - `from_block` (integer (int64), sent as ``from``): first block of the range
        - `to_block` (integer (int64), sent as ``to``): last block of the range

        The range is capped by a node-configured limit the spec does not give.
        """
        ...


class AsyncPolygonMethods(AsyncEvmMethods):
    """EVM JSON-RPC and Polygon's bor_getRootHash."""

    async def get_root_hash(self, from_block: int, to_block: int) -> str:
        """Root hash of a block range (64 hex digits, no 0x). (``bor_getRootHash``; always 1 RU)

        - `from_block` (integer (int64), sent as ``from``): first block of the range
        - `to_block` (integer (int64), sent as ``to``): last block of the range

        The range is capped by a node-configured limit the spec does not give.
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
        accounts: list[str] | tuple[str, ...] | None = ...,
        accounts_encoding: str | None = ...,
    ) -> dict[str, Any]:
        """Execute a transaction without sending it and report logs, units, balances. (``simulateTransaction``; always 1 RU)

        - `transaction` (encoded transaction (base64 or base58)): encoded transaction
        - `encoding` (string, optional, sent as ``config.encoding``): transaction encoding (base58 is deprecated)
        - `commitment` (string, optional, sent as ``config.commitment``): bank state to simulate against
        - `sig_verify` (true or false, optional, sent as ``config.sigVerify``): verify signatures
        - `replace_recent_blockhash` (true or false, optional, sent as ``config.replaceRecentBlockhash``): replace the blockhash with the bank's most recent one
        - `min_context_slot` (integer (int64), optional, sent as ``config.minContextSlot``): minimum slot to evaluate at
        - `inner_instructions` (true or false, optional, sent as ``config.innerInstructions``): include inner instructions
        - `accounts` (list of base58 addresses, optional, sent as ``config.accounts.addresses``): addresses to return
        - `accounts_encoding` (string, optional, sent as ``config.accounts.encoding``): account data encoding

        `transaction` is encoded text, its bytes, or a solders transaction object, encoded with `encoding` (base64 unless told: the spec deprecates base58).

        The result is as the node sends it, ``{"context": ..., "value": ...}``; see `toolkit.frames`.
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
        accounts: list[str] | tuple[str, ...] | None = ...,
        accounts_encoding: str | None = ...,
    ) -> dict[str, Any]:
        """Execute a transaction without sending it and report logs, units, balances. (``simulateTransaction``; always 1 RU)

        - `transaction` (encoded transaction (base64 or base58)): encoded transaction
        - `encoding` (string, optional, sent as ``config.encoding``): transaction encoding (base58 is deprecated)
        - `commitment` (string, optional, sent as ``config.commitment``): bank state to simulate against
        - `sig_verify` (true or false, optional, sent as ``config.sigVerify``): verify signatures
        - `replace_recent_blockhash` (true or false, optional, sent as ``config.replaceRecentBlockhash``): replace the blockhash with the bank's most recent one
        - `min_context_slot` (integer (int64), optional, sent as ``config.minContextSlot``): minimum slot to evaluate at
        - `inner_instructions` (true or false, optional, sent as ``config.innerInstructions``): include inner instructions
        - `accounts` (list of base58 addresses, optional, sent as ``config.accounts.addresses``): addresses to return
        - `accounts_encoding` (string, optional, sent as ``config.accounts.encoding``): account data encoding

        `transaction` is encoded text, its bytes, or a solders transaction object, encoded with `encoding` (base64 unless told: the spec deprecates base58).

        The result is as the node sends it, ``{"context": ..., "value": ...}``; see `toolkit.frames`.
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
        """A TRC-10 asset by its name (an error when the name is not unique). (``wallet/getassetissuebyname``; always 1 RU)

        - `name` (string, sent as ``value``): token name (hex of UTF-8 when visible is false)
        - `visible` (true or false, optional): addresses as base58 (true) or hex (false)

        java-tron answers the bare record and the spec shows it as ``{"assetIssue": [record]}``: either way the helper returns the record (``{}`` when no asset has the name).

        Several assets with the name raise `AmbiguousAssetName`: list them with `get_asset_issue_list_by_name` and look the one you want up by id.
        """
        ...

    def get_asset_issue_list_by_name(self, name: str, *, visible: bool = ...) -> dict[str, Any]:
        """All TRC-10 assets matching a name. (``wallet/getassetissuelistbyname``; always 1 RU)

        - `name` (string, sent as ``value``): token name or pattern (hex of UTF-8 when visible is false)
        - `visible` (true or false, optional): plain-text value
        """
        ...

    def get_asset_issue_by_id(self, asset_id: int | str, *, visible: bool = ...) -> dict[str, Any]:
        """A TRC-10 asset by its unique id. (``wallet/getassetissuebyid``; always 1 RU)

        - `asset_id` (TRC-10 token id (digits), sent as ``value``): token id
        - `visible` (true or false, optional): addresses as base58 (true) or hex (false)
        """
        ...

    def get_transaction_info_by_block_num(self, num: int, *, visible: bool = ...) -> list[Any]:
        """Transaction info (fees, receipts, logs) of every transaction in a block. (``wallet/gettransactioninfobyblocknum``; always 1 RU)

        - `num` (integer (int64)): block number
        - `visible` (true or false, optional): addresses as base58 (true) or hex (false)

        The helper returns a list: the node's ``{}`` (for block 0) becomes ``[]``.
        """
        ...

    def get_block_by_latest_num(self, num: int, *, visible: bool = ...) -> dict[str, Any]:
        """The latest blocks (at most 100). (``wallet/getblockbylatestnum``; always 1 RU)

        - `num` (integer (int64)): how many latest blocks
        - `visible` (true or false, optional): addresses as base58 (true) or hex (false)
        """
        ...

    def proposal_delete(
        self,
        owner_address: str,
        proposal_id: int,
        *,
        visible: bool = ...,
    ) -> dict[str, Any]:
        """An unsigned transaction deleting a proposal (sign and broadcast it yourself). (``wallet/proposaldelete``; always 1 RU)

        - `owner_address` (base58 T... or hex 41...): the proposal's creator (base58 or hex)
        - `proposal_id` (integer (int64)): proposal id
        - `visible` (true or false, optional): addresses as base58 (true) or hex (false)

        Only the creator may delete, before the proposal is executed; sign and broadcast the returned transaction yourself.
        """
        ...

    def sha3(self, data: str | bytes | bytearray) -> str:
        """Keccak-256 of the given bytes (TRON /jsonrpc). (``web3_sha3``; always 1 RU)

        - `data` (0x-prefixed hex bytes): bytes to hash
        """
        ...

    def get_now_block(self, *, visible: bool = ...) -> dict[str, Any]:
        """The latest block. (``wallet/getnowblock``; always 1 RU)

        - `visible` (true or false, optional): addresses as base58 (true) or hex (false)

        A read method real clients call first; not one of the gateway spec's.
        """
        ...

    def get_block_by_num(self, num: int, *, visible: bool = ...) -> dict[str, Any]:
        """One block by its number ({} above the head). (``wallet/getblockbynum``; always 1 RU)

        - `num` (integer (int64)): block number
        - `visible` (true or false, optional): addresses as base58 (true) or hex (false)

        A read method real clients call first; not one of the gateway spec's.
        """
        ...

    def get_node_info(self, *, visible: bool = ...) -> dict[str, Any]:
        """The node's version, peers, and its view of the chain. (``wallet/getnodeinfo``; always 1 RU)

        - `visible` (true or false, optional): addresses as base58 (true) or hex (false)

        A read method real clients call first; not one of the gateway spec's.
        """
        ...

    def get_account(self, address: str, *, visible: bool = ...) -> dict[str, Any]:
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
        """A TRC-10 asset by its name (an error when the name is not unique). (``wallet/getassetissuebyname``; always 1 RU)

        - `name` (string, sent as ``value``): token name (hex of UTF-8 when visible is false)
        - `visible` (true or false, optional): addresses as base58 (true) or hex (false)

        java-tron answers the bare record and the spec shows it as ``{"assetIssue": [record]}``: either way the helper returns the record (``{}`` when no asset has the name).

        Several assets with the name raise `AmbiguousAssetName`: list them with `get_asset_issue_list_by_name` and look the one you want up by id.
        """
        ...

    async def get_asset_issue_list_by_name(
        self,
        name: str,
        *,
        visible: bool = ...,
    ) -> dict[str, Any]:
        """All TRC-10 assets matching a name. (``wallet/getassetissuelistbyname``; always 1 RU)

        - `name` (string, sent as ``value``): token name or pattern (hex of UTF-8 when visible is false)
        - `visible` (true or false, optional): plain-text value
        """
        ...

    async def get_asset_issue_by_id(
        self,
        asset_id: int | str,
        *,
        visible: bool = ...,
    ) -> dict[str, Any]:
        """A TRC-10 asset by its unique id. (``wallet/getassetissuebyid``; always 1 RU)

        - `asset_id` (TRC-10 token id (digits), sent as ``value``): token id
        - `visible` (true or false, optional): addresses as base58 (true) or hex (false)
        """
        ...

    async def get_transaction_info_by_block_num(
        self,
        num: int,
        *,
        visible: bool = ...,
    ) -> list[Any]:
        """Transaction info (fees, receipts, logs) of every transaction in a block. (``wallet/gettransactioninfobyblocknum``; always 1 RU)

        - `num` (integer (int64)): block number
        - `visible` (true or false, optional): addresses as base58 (true) or hex (false)

        The helper returns a list: the node's ``{}`` (for block 0) becomes ``[]``.
        """
        ...

    async def get_block_by_latest_num(self, num: int, *, visible: bool = ...) -> dict[str, Any]:
        """The latest blocks (at most 100). (``wallet/getblockbylatestnum``; always 1 RU)

        - `num` (integer (int64)): how many latest blocks
        - `visible` (true or false, optional): addresses as base58 (true) or hex (false)
        """
        ...

    async def proposal_delete(
        self,
        owner_address: str,
        proposal_id: int,
        *,
        visible: bool = ...,
    ) -> dict[str, Any]:
        """An unsigned transaction deleting a proposal (sign and broadcast it yourself). (``wallet/proposaldelete``; always 1 RU)

        - `owner_address` (base58 T... or hex 41...): the proposal's creator (base58 or hex)
        - `proposal_id` (integer (int64)): proposal id
        - `visible` (true or false, optional): addresses as base58 (true) or hex (false)

        Only the creator may delete, before the proposal is executed; sign and broadcast the returned transaction yourself.
        """
        ...

    async def sha3(self, data: str | bytes | bytearray) -> str:
        """Keccak-256 of the given bytes (TRON /jsonrpc). (``web3_sha3``; always 1 RU)

        - `data` (0x-prefixed hex bytes): bytes to hash
        """
        ...

    async def get_now_block(self, *, visible: bool = ...) -> dict[str, Any]:
        """The latest block. (``wallet/getnowblock``; always 1 RU)

        - `visible` (true or false, optional): addresses as base58 (true) or hex (false)

        A read method real clients call first; not one of the gateway spec's.
        """
        ...

    async def get_block_by_num(self, num: int, *, visible: bool = ...) -> dict[str, Any]:
        """One block by its number ({} above the head). (``wallet/getblockbynum``; always 1 RU)

        - `num` (integer (int64)): block number
        - `visible` (true or false, optional): addresses as base58 (true) or hex (false)

        A read method real clients call first; not one of the gateway spec's.
        """
        ...

    async def get_node_info(self, *, visible: bool = ...) -> dict[str, Any]:
        """The node's version, peers, and its view of the chain. (``wallet/getnodeinfo``; always 1 RU)

        - `visible` (true or false, optional): addresses as base58 (true) or hex (false)

        A read method real clients call first; not one of the gateway spec's.
        """
        ...

    async def get_account(self, address: str, *, visible: bool = ...) -> dict[str, Any]:
        """An account: balance, assets, resources ({} for an account not on chain). (``wallet/getaccount``; always 1 RU)

        - `address` (base58 T... or hex 41...): account (base58 or hex)
        - `visible` (true or false, optional): addresses as base58 (true) or hex (false)

        A read method real clients call first; not one of the gateway spec's.
        """
        ...


class TonMethods:
    """TON HTTP API v2 (spec section E)."""

    def unpack_address(self, address: str) -> Any:
        """A user-friendly TON address in raw form, by the node (``unpackAddress``)."""
        ...

    def get_token_data(self, address: str) -> dict[str, Any]:
        """Token (jetton) data: name, symbol, decimals, supply. (``api/v2/getTokenData``; always 1 RU)

        - `address` (raw 0:<hex> or user-friendly): token contract address
        """
        ...

    def json_rpc(self, method: str, **params: Any) -> Any:
        """TON JSON-RPC with named parameters (for example unpackAddress). (``api/v2/jsonRPC``; 1 RU, by the method carried (getTransactions 2 RU))

        - `method` (string): inner method, for example unpackAddress
        - `**params` (object of JSON values, optional): named parameters
        """
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

    async def unpack_address(self, address: str) -> Any:
        """A user-friendly TON address in raw form, by the node (``unpackAddress``)."""
        ...

    async def get_token_data(self, address: str) -> dict[str, Any]:
        """Token (jetton) data: name, symbol, decimals, supply. (``api/v2/getTokenData``; always 1 RU)

        - `address` (raw 0:<hex> or user-friendly): token contract address
        """
        ...

    async def json_rpc(self, method: str, **params: Any) -> Any:
        """TON JSON-RPC with named parameters (for example unpackAddress). (``api/v2/jsonRPC``; 1 RU, by the method carried (getTransactions 2 RU))

        - `method` (string): inner method, for example unpackAddress
        - `**params` (object of JSON values, optional): named parameters
        """
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
