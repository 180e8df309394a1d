"""The sandbox's EVM chains: accounts whose balances move over history, and one ERC-20 token.

Every demo account's balance on every chain is a random walk that steps once every `period` blocks
on average (its "transfer schedule": a coin balance's on the dot, a token balance's at random blocks
of each day), so archive reads at old blocks return different, stable numbers. The
token ("Sandbox Dollar", SBXD, 6 decimals) lives at the same address on every chain, answers
`balanceOf`, `totalSupply`, `decimals`, `symbol` and `name` through `eth_call`, keeps
OpenZeppelin's storage layout for `eth_getStorageAt`, and does not exist before its deployment
block. Its Transfers explain its balances exactly: the treasury deploys it and is minted the whole
(constant) supply in that block, and each step of a holder's walk is a `transfer` in that block,
from the treasury to the holder or back, so the treasury holds what the holders do not. Approvals
are drawn at random and move nothing. Errors use geth's words: "header not found" above the head,
"execution reverted", "insufficient funds ...".
"""

from __future__ import annotations

import functools
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from math import isqrt
from typing import Any

from ..catalog import MAX_LOG_RANGE, BoundCall, Chain
from ..catalog import encoding as enc
from ._clock import Timeline
from ._jsonrpc import SERVER_ERROR, RpcError
from ._randomness import Seeded

ACCOUNT_NAMES = (
    "alice",
    "bob",
    "carol",
    "dave",
    "erin",
    "frank",
    "grace",
    "heidi",
    "ivan",
    "judy",
    "mallory",
    "trent",
)
TREASURY = "treasury"  # the token's deployer, minted its supply; holds what the others do not
TOKEN_NAME = "Sandbox Dollar"
TOKEN_SYMBOL = "SBXD"
TOKEN_DECIMALS = 6
TOKEN_FUNCTIONS = ("balanceOf(address)", "totalSupply()", "decimals()", "symbol()", "name()")
_WORD = 32
_TRANSFER_SELECTOR = bytes.fromhex("a9059cbb")  # transfer(address,uint256)
_APPROVE_SELECTOR = bytes.fromhex("095ea7b3")  # approve(address,uint256)
_TRANSFER_TOPIC = enc.keccak256(b"Transfer(address,address,uint256)")
_APPROVAL_TOPIC = enc.keccak256(b"Approval(address,address,uint256)")
_ZERO_ADDRESS = "0x" + "00" * 20
_TOKEN_GAS = 65_000  # a token call's gas limit in the sandbox's blocks


def gas_used_of(limit: int) -> int:
    """What a transaction of the sandbox's blocks uses of its gas limit: three quarters."""
    return limit * 3 // 4


TOKEN_GAS_USED = gas_used_of(_TOKEN_GAS)  # what a token transfer uses (eth_estimateGas says it)
_DEPLOYMENT_GAS = 1_600_000
# Seconds between the steps of a holder's token balance: short enough that a 100-block chunk of
# Ethereum (12 s blocks) holds tens of Transfers.
_TOKEN_PERIODS_S = (60, 120, 300, 600, 1_800, 3_600)
_COIN_PERIODS_S = (600, 1_800, 3_600, 4 * 3_600, 12 * 3_600, 86_400)

Handler = Callable[[BoundCall, int], Any]
_SEEN_MAX = 200_000


@functools.cache
def address_of(label: str) -> str:
    """The EIP-55 address of a named sandbox account; the same on every chain and seed."""
    raw = enc.keccak256(b"toolkit-sandbox/evm/" + label.encode())[-20:]
    return enc.to_checksum_address("0x" + raw.hex())


def token_address() -> str:
    return address_of("token/" + TOKEN_SYMBOL)


@dataclass(frozen=True)
class EvmProfile:
    """What differs between the EVM chains, besides the catalog's `Chain`."""

    base_head: int
    client_version: str
    token_deployed_at: int
    gas_limit: int
    base_fee_wei: int
    coinbase: str


PROFILES = {
    "ethereum": EvmProfile(
        21_400_000,
        "Geth/v1.14.12-stable-293a300d/linux-amd64/go1.22.9",
        18_000_000,
        36_000_000,
        4_200_000_000,
        "0x95222290dd7278aa3ddd389cc1e1d165cc4bafe5",
    ),
    "arbitrum": EvmProfile(
        300_000_000,
        "nitro/v3.2.1-d81324d/linux-amd64/go1.22.9",
        150_000_000,
        1_125_899_906_842_624,  # Arbitrum's fixed block gas limit, 2**50
        10_000_000,
        "0xa4b000000000000000000073657175656e636572",  # "sequencer" in ASCII
    ),
    "polygon": EvmProfile(
        65_000_000,
        "bor/v2.0.1-stable-f4ca8b8e/linux-amd64/go1.23.4",
        50_000_000,
        30_000_000,
        30_000_000_000,
        "0x0000000000000000000000000000000000000000",
    ),
    "hyperliquid": EvmProfile(
        10_000_000,
        "hyperliquid-evm/v1.0.4/linux-amd64",
        2_000_000,
        30_000_000,
        100_000_000,
        "0x0000000000000000000000000000000000000000",
    ),
}


@dataclass(frozen=True)
class Holding:
    """One balance's history on one chain: zero before `born`, then a walk around `opening`
    (never below zero) of one step per `period` blocks: every `period` blocks exactly, or, with
    a `session` (in blocks), ``session // period`` steps in each session at blocks drawn at
    random, so that how many fall in a stretch of blocks varies as a busy account's would."""

    key: tuple
    born: int
    period: int
    opening: int
    step: int
    session: int = 0

    def at(self, seeded: Seeded, number: int) -> int:
        if number < self.born:
            return 0
        steps = self._steps(seeded, number)
        return max(0, self.opening + _walk(seeded, self.key, steps, self.step))

    def steps_at(self, seeded: Seeded, number: int) -> bool:
        """Whether the balance may change in block `number` (its first block or a step's)."""
        if number < self.born:
            return False
        since = number - self.born
        if not self.session:
            return since % self.period == 0
        session, offset = divmod(since, self.session)
        blocks = _step_blocks(seeded, self.key, session, self.session, self.session // self.period)
        found = bisect_left(blocks, offset)
        return since == 0 or (found < len(blocks) and blocks[found] == offset)

    def _steps(self, seeded: Seeded, number: int) -> int:
        """How many steps the walk has taken by block `number` (at or after `born`)."""
        since = number - self.born
        if not self.session:
            return since // self.period
        per_session = self.session // self.period
        session, offset = divmod(since, self.session)
        blocks = _step_blocks(seeded, self.key, session, self.session, per_session)
        return session * per_session + bisect_right(blocks, offset)

    @property
    def ceiling(self) -> int:
        """The most this balance can ever be, for any seed and block."""
        return self.opening + Seeded.walk_bound(self.step)


@functools.lru_cache(maxsize=4096)
def _step_blocks(seeded: Seeded, key: tuple, session: int, length: int, count: int) -> list[int]:
    """The blocks (offsets into session number `session`) at which a walk steps, in order."""
    return sorted(seeded.rng(*key, "session", session).sample(range(length), count))


@functools.lru_cache(maxsize=1 << 16)
def _walk(seeded: Seeded, key: tuple, epoch: int, step: int) -> int:
    """A walk's position, remembered: a scan asks for each step's balance twice (after one
    step, before the next), and a step costs 32 hashes."""
    return seeded.walk(key, epoch, step)


@dataclass(frozen=True)
class Header:
    number: int
    hash: str
    parent_hash: str
    time: int
    tx_root: bytes
    receipt_root: bytes


class EvmChain:
    """One EVM chain's state and its JSON-RPC methods (`handlers`, keyed by catalog name)."""

    def __init__(self, chain: Chain, seeded: Seeded, timeline: Timeline, root_hash_cap: int):
        self.chain = chain
        assert chain.chain_id is not None  # every EVM chain profile has one
        self._chain_id = chain.chain_id
        self.profile = PROFILES[chain.name]
        self.seeded = seeded
        self.timeline = timeline
        self.root_hash_cap = root_hash_cap
        # Transaction hash -> block number, for every block body made (`_evm_beyond` finds a
        # transaction a client saw in a block by it); cleared when it grows past `_SEEN_MAX`.
        self.tx_seen: dict[str, int] = {}

    def handlers(self) -> dict[str, Handler]:
        return {
            "eth_blockNumber": lambda call, head: enc.to_quantity(head),
            "eth_getBalance": self._get_balance,
            "eth_getStorageAt": self._get_storage_at,
            "eth_call": self._call,
            "web3_clientVersion": lambda call, head: self.profile.client_version,
            "debug_printBlock": self._print_block,
            "bor_getRootHash": self._root_hash,
            "eth_chainId": lambda call, head: enc.to_quantity(self._chain_id),
            "net_version": lambda call, head: str(self.chain.chain_id),
            "eth_gasPrice": lambda call, head: enc.to_quantity(self.gas_price),
            "eth_getCode": self._get_code,
            "eth_getTransactionCount": self._get_transaction_count,
            "eth_getBlockByNumber": self._get_block,
            "eth_getLogs": self._get_logs,
        }

    # --- state -------------------------------------------------------------------------------

    @cached_property
    def _coin(self) -> dict[str, Holding]:
        """Native-coin holdings by lower-case address: 0.05 to 5,000 coins each."""
        return {
            address_of(name).lower(): self._holding("coin", name, self.profile.base_head // 10, 18)
            for name in ACCOUNT_NAMES
        }

    @cached_property
    def _token(self) -> dict[str, Holding]:
        """The demo accounts' token holdings by lower-case address (the treasury's is the rest)."""
        deployed = self.profile.token_deployed_at
        return {
            address_of(name).lower(): self._holding(
                "token", name, deployed, TOKEN_DECIMALS, _TOKEN_PERIODS_S, scattered=True
            )
            for name in ACCOUNT_NAMES
        }

    @cached_property
    def supply(self) -> int:
        """The token's supply, minted to the treasury at deployment and constant after: every
        holder's ceiling summed, rounded up to two significant digits, so the treasury's balance
        (the supply less the holders') is never negative, whatever the block."""
        ceilings = sum(holding.ceiling for holding in self._token.values())
        unit = 10 ** max(0, len(str(ceilings)) - 2)
        return -(-ceilings // unit) * unit

    def _holding(
        self,
        asset: str,
        name: str,
        earliest: int,
        decimals: int,
        periods_s: tuple[int, ...] = _COIN_PERIODS_S,
        scattered: bool = False,
    ) -> Holding:
        rng = self.seeded.rng(self.chain.name, asset, name)
        period_s = rng.choice(periods_s)
        period = max(1, round(period_s / self.chain.block_time_s))
        born = earliest + rng.randrange(max(1, (self.profile.base_head - earliest) // 2))
        # A token holder's steps fall at random blocks of each day; a coin's, every period.
        session = max(period, round(86_400 / self.chain.block_time_s)) if scattered else 0
        opening = int(10 ** rng.uniform(-1.3, 3.7) * 10**6) * 10 ** (decimals - 6)
        # Sized so the walk wanders about half the opening balance by the base head.
        epochs = max(1, (self.profile.base_head - born) // period)
        step = max(1, opening // (2 * isqrt(epochs) + 1))
        return Holding((self.chain.name, asset, name), born, period, opening, step, session)

    def balance(self, address: str, number: int) -> int:
        holding = self._coin.get(address.lower())
        return holding.at(self.seeded, number) if holding else 0

    def token_balance(self, address: str, number: int) -> int:
        holding = self._token.get(address.lower())
        if holding:
            return holding.at(self.seeded, number)
        if address.lower() == address_of(TREASURY).lower() and self._token_deployed(number):
            held = sum(holding.at(self.seeded, number) for holding in self._token.values())
            return self.supply - held
        return 0

    def total_supply(self, number: int) -> int:
        return self.supply if self._token_deployed(number) else 0

    def _token_deployed(self, number: int) -> bool:
        return number >= self.profile.token_deployed_at

    def token_exists(self, address: str, number: int) -> bool:
        return address.lower() == token_address().lower() and self._token_deployed(number)

    def block_at(self, block: Any, head: int) -> int:
        """A block tag, 0x number or block hash (EIP-1898, bare or as ``{"blockHash": ...}`` or
        ``{"blockNumber": ...}``) as a number; above the head is geth's "header not found", a
        hash of no block of the chain geth's "header for hash not found"."""
        if isinstance(block, dict):
            if "blockNumber" in block:
                return self.block_at(block["blockNumber"], head)
            block = block["blockHash"]
        if isinstance(block, str) and len(block) == 66:
            return self._number_of_hash(block, head, "header for hash not found")
        if block in ("latest", "pending"):
            return head
        if block == "safe":
            return max(0, head - self.chain.finality_depth // 2)
        if block == "finalized":
            return max(0, head - self.chain.finality_depth)
        if block == "earliest":
            return 0
        number = int(block, 16)
        if number > head:
            raise RpcError(SERVER_ERROR, "header not found")
        return number

    def header(self, number: int) -> Header:
        name = self.chain.name
        return Header(
            number=number,
            hash="0x" + self.seeded.hex(name, "block-hash", number),
            parent_hash="0x" + self.seeded.hex(name, "block-hash", number - 1),
            time=self.timeline.time_s(number),
            tx_root=self.seeded.bytes(name, "tx-root", number),
            receipt_root=self.seeded.bytes(name, "receipt-root", number),
        )

    # --- eth_* methods -----------------------------------------------------------------------

    def _get_balance(self, call: BoundCall, head: int) -> str:
        number = self.block_at(call.arguments["block"], head)
        return enc.to_quantity(self.balance(call.arguments["address"], number))

    def _get_storage_at(self, call: BoundCall, head: int) -> str:
        number = self.block_at(call.arguments["block"], head)
        word = self._storage(call.arguments["address"], int(call.arguments["slot"], 16), number)
        return "0x" + word.to_bytes(_WORD, "big").hex()

    def _storage(self, address: str, slot: int, number: int) -> int:
        """The token's storage in OpenZeppelin's ERC-20 layout; every other slot is zero.

        Slot 0 is the `_balances` mapping (entry at keccak(holder . slot)), 2 `_totalSupply`,
        3 `_name`, 4 `_symbol` (short strings: bytes left-aligned, length * 2 in the last byte).
        """
        if not self.token_exists(address, number):
            return 0
        if slot == 2:
            return self.total_supply(number)
        if slot in (3, 4):
            text = (TOKEN_NAME if slot == 3 else TOKEN_SYMBOL).encode()
            return int.from_bytes(text.ljust(_WORD - 1, b"\0") + bytes([2 * len(text)]), "big")
        holder = _balance_slots().get(slot)
        return self.token_balance(holder, number) if holder else 0

    def _call(self, call: BoundCall, head: int) -> str:
        number = self.block_at(call.arguments["block"], head)
        request = call.arguments["call"]
        value = int(request.get("value", "0x0"), 16)
        cost = value + int(request.get("gas", "0x0"), 16) * int(request.get("gasprice", "0x0"), 16)
        if cost:
            sender = request.get("from", "0x" + "00" * 20)
            have = self.balance(sender, number)
            if have < cost:
                raise RpcError(
                    SERVER_ERROR,
                    f"insufficient funds for gas * price + value: address {sender} "
                    f"have {have} want {cost}",
                )
        data = bytes.fromhex(request.get("data", "0x")[2:])
        if not data or not self.token_exists(request["to"], number):
            return "0x"  # a transfer, or a call to an account without code: empty return data
        if value:
            raise RpcError(SERVER_ERROR, "execution reverted")  # the token is not payable
        return "0x" + self._token_call(data, number).hex()

    def _token_call(self, data: bytes, number: int) -> bytes:
        function = _selectors().get(data[:4])
        arguments = data[4:]
        if function == "balanceOf(address)":
            try:
                holder = enc.abi_address(arguments)
            except ValueError:  # short or malformed data: the contract's decoder reverts
                raise RpcError(SERVER_ERROR, "execution reverted") from None
            return enc.abi_uint(self.token_balance(holder, number))
        if function == "totalSupply()":
            return enc.abi_uint(self.total_supply(number))
        if function == "decimals()":
            return enc.abi_uint(TOKEN_DECIMALS)
        if function in ("symbol()", "name()"):
            return enc.abi_string(TOKEN_SYMBOL if function == "symbol()" else TOKEN_NAME)
        raise RpcError(SERVER_ERROR, "execution reverted")  # no such function, no fallback

    @property
    def gas_price(self) -> int:
        return self.profile.base_fee_wei + self.profile.base_fee_wei // 10

    def _get_code(self, call: BoundCall, head: int) -> str:
        number = self.block_at(call.arguments["block"], head)
        if not self.token_exists(call.arguments["address"], number):
            return "0x"
        return "0x" + _token_code().hex()

    def _get_transaction_count(self, call: BoundCall, head: int) -> str:
        """A demo account's nonce: one transaction per step of its balance's walk."""
        number = self.block_at(call.arguments["block"], head)
        holding = self._coin.get(call.arguments["address"].lower())
        if holding is None or number < holding.born:
            return "0x0"
        return enc.to_quantity((number - holding.born) // holding.period + 1)

    def _get_block(self, call: BoundCall, head: int) -> dict[str, Any] | None:
        try:
            number = self.block_at(call.arguments["block"], head)
        except RpcError:
            return None  # geth answers null for a block above its head
        return self.block_json(number, full=call.arguments["full"])

    def block_json(self, number: int, *, full: bool) -> dict[str, Any]:
        """The block as geth's eth_getBlockByNumber answers it (London fields, no blobs)."""
        header = self.header(number)
        transactions, gas_used, bloom = self.body(number)
        block_hash = header.hash
        rendered = [
            self._transaction_json(tx, number, block_hash) if full else tx_hash(tx)
            for tx in transactions
        ]
        size = 700 + sum(110 + len(tx["data"]) for tx in transactions)
        name = self.chain.name
        return {
            "baseFeePerGas": enc.to_quantity(self.profile.base_fee_wei),
            "difficulty": "0x0",
            "extraData": "0x",
            "gasLimit": enc.to_quantity(self.profile.gas_limit),
            "gasUsed": enc.to_quantity(gas_used),
            "hash": block_hash,
            "logsBloom": "0x" + bloom.hex(),
            "miner": self.profile.coinbase,
            "mixHash": "0x" + self.seeded.hex(name, "mix", number),
            "nonce": "0x0000000000000000",
            "number": enc.to_quantity(number),
            "parentHash": header.parent_hash,
            "receiptsRoot": "0x" + header.receipt_root.hex(),
            "sha3Uncles": "0x" + _EMPTY_UNCLES_HASH,
            "size": enc.to_quantity(size),
            "stateRoot": "0x" + self.seeded.hex(name, "state-root", number),
            "timestamp": enc.to_quantity(header.time),
            "transactions": rendered,
            "transactionsRoot": "0x" + header.tx_root.hex(),
            "uncles": [],
        }

    def _transaction_json(self, tx: dict[str, Any], number: int, block_hash: str) -> dict:
        """A transaction as geth's RPCTransaction prints it: an EIP-1559 one carries its fee caps,
        the price it paid (base fee plus tip, at most the cap), an empty access list and yParity."""
        internal = "from" not in tx
        paid = min(tx.get("fee_cap", 0), self.profile.base_fee_wei + tx.get("tip", 0))
        rendered = {
            "blockHash": block_hash,
            "blockNumber": enc.to_quantity(number),
            "from": "0x00000000000000000000000000000000000a4b05" if internal else tx["from"],
            "gas": enc.to_quantity(tx["gas"]),
            "gasPrice": enc.to_quantity(self.profile.base_fee_wei if internal else paid),
        }
        if not internal:
            rendered["maxFeePerGas"] = enc.to_quantity(tx["fee_cap"])
            rendered["maxPriorityFeePerGas"] = enc.to_quantity(tx["tip"])
        rendered |= {
            "hash": tx_hash(tx),
            "input": "0x" + tx["data"].hex(),
            "nonce": enc.to_quantity(tx.get("nonce", 0)),
            "to": "0x00000000000000000000000000000000000a4b05" if internal else tx["to"],
            "transactionIndex": enc.to_quantity(tx["index"]),
            "value": enc.to_quantity(tx.get("value", 0)),
            "type": "0x6a" if internal else "0x2",
        }
        if not internal:
            rendered["accessList"] = []
        rendered |= {
            "chainId": enc.to_quantity(self._chain_id),
            "v": enc.to_quantity(tx.get("v", 0)),
            "r": enc.to_quantity(tx.get("r", 0)),
            "s": enc.to_quantity(tx.get("s", 0)),
        }
        if not internal:
            rendered["yParity"] = enc.to_quantity(tx["v"])
        return rendered

    def log_range(self, call: BoundCall, head: int) -> tuple[int, int] | None:
        """The first and last block an eth_getLogs call spans, its tags read at `head`; None
        for a call by ``blockHash`` (one block). A plan's cap (`_limits`) checks it first."""
        query = call.arguments["filter"]
        if "blockHash" in query:
            return None
        start = self.block_at(query.get("fromBlock", "latest"), head)
        return start, self.block_at(query.get("toBlock", "latest"), head)

    def _get_logs(self, call: BoundCall, head: int) -> list[dict[str, Any]]:
        """The token's logs: a Transfer for each token transfer in the blocks' bodies, an
        Approval for each approve."""
        query = call.arguments["filter"]
        blocks = self.log_range(call, head)
        if blocks is None:
            numbers: Sequence[int] = [self._number_of_hash(query["blockHash"], head)]
        else:
            start, end = blocks
            if end - start + 1 > MAX_LOG_RANGE:  # a range with tags: the node's own bound
                raise RpcError(SERVER_ERROR, f"query exceeds max block range {MAX_LOG_RANGE}")
            numbers = range(start, end + 1)
        wanted = query.get("address")
        addresses = {a.lower() for a in ([wanted] if isinstance(wanted, str) else wanted or [])}
        logs = []
        for number in numbers:
            logs += self._token_logs(number)
        return [
            log
            for log in logs
            if (not addresses or log["address"].lower() in addresses)
            and _topics_match(log["topics"], query.get("topics", []))
        ]

    def _number_of_hash(self, block_hash: str, head: int, missing: str = "unknown block") -> int:
        # Block hashes are seeded per number: search the recent blocks, as a demo needs no more.
        for number in range(head, max(-1, head - 10_000), -1):
            if self.header(number).hash == block_hash.lower():
                return number
        raise RpcError(SERVER_ERROR, missing)

    def _token_logs(self, number: int) -> list[dict[str, Any]]:
        """The block's logs, in order: each transaction's event (its `log`) with where it is."""
        transactions, _, _ = self.body(number)
        block_hash = self.header(number).hash
        logs: list[dict[str, Any]] = []
        for tx in transactions:
            if "log" not in tx:
                continue
            logs.append(
                tx["log"]
                | {
                    "blockNumber": enc.to_quantity(number),
                    "transactionHash": tx_hash(tx),
                    "transactionIndex": enc.to_quantity(tx["index"]),
                    "blockHash": block_hash,
                    "logIndex": enc.to_quantity(len(logs)),
                    "removed": False,
                }
            )
        return logs

    # --- debug_printBlock (Arbitrum) ---------------------------------------------------------

    def _print_block(self, call: BoundCall, head: int) -> str:
        # The catalog reads a decimal integer or 0x hex alike (the spec's text and its sample).
        number = call.arguments["number"]
        if number > head:
            raise RpcError(SERVER_ERROR, f"block #{number} not found")
        return self.block_dump(number)

    def block_dump(self, number: int) -> str:
        """The block as Nitro answers debug_printBlock: ``spew.Sdump`` of its ``*types.Block``.

        The layout is go-ethereum 1.14's (Nitro's base): the header's exported fields with their
        Go types, byte fields as spew's hex dumps, pointers with their addresses, and the block's
        caches (the hash behind an ``atomic.Pointer``, so not printed; the size as a uint64).
        """
        header = self.header(number)
        transactions, gas_used, bloom = self.body(number)
        go = _GoPrinter(self.seeded, self.chain.name, number)
        name = self.chain.name
        header_fields = [
            ("ParentHash", go.hash(header.parent_hash)),
            ("UncleHash", go.hash("0x" + _EMPTY_UNCLES_HASH)),
            ("Coinbase", go.address(self.profile.coinbase)),
            ("Root", go.hash("0x" + self.seeded.hex(name, "state-root", number))),
            ("TxHash", go.hash("0x" + header.tx_root.hex())),
            ("ReceiptHash", go.hash("0x" + header.receipt_root.hex())),
            ("Bloom", go.bytes("types.Bloom", bytes(bloom))),
            ("Difficulty", go.big(1)),
            ("Number", go.big(number)),
            ("GasLimit", f"(uint64) {self.profile.gas_limit}"),
            ("GasUsed", f"(uint64) {gas_used}"),
            ("Time", f"(uint64) {header.time}"),
            # Nitro keeps the send root in Extra and the send count and L1 block in MixDigest.
            ("Extra", go.bytes("[]uint8", self.seeded.bytes(name, "send-root", number))),
            ("MixDigest", go.hash("0x" + self.seeded.hex(name, "mix", number))),
            ("Nonce", go.bytes("types.BlockNonce", (number // 4).to_bytes(8, "big"))),
            ("BaseFee", go.big(self.profile.base_fee_wei)),
            ("WithdrawalsHash", "(*common.Hash)(<nil>)"),
            ("BlobGasUsed", "(*uint64)(<nil>)"),
            ("ExcessBlobGas", "(*uint64)(<nil>)"),
            ("ParentBeaconRoot", "(*common.Hash)(<nil>)"),
            ("RequestsHash", "(*common.Hash)(<nil>)"),
        ]
        size = 700 + sum(110 + len(tx["data"]) for tx in transactions)
        tx_dumps = [go.transaction(tx, header.time) for tx in transactions]
        block_fields = [
            ("header", go.struct("*types.Header", header_fields)),
            ("uncles", "([]*types.Header) <nil>"),
            ("transactions", go.slice("types.Transactions", tx_dumps)),
            ("withdrawals", "(types.Withdrawals) <nil>"),
            ("hash", go.atomic_pointer("common.Hash", go.pointer())),
            ("size", go.atomic_uint64(size)),
            ("ReceivedAt", "(time.Time) 0001-01-01 00:00:00 +0000 UTC"),
            ("ReceivedFrom", "(interface {}) <nil>"),
        ]
        return go.struct("*types.Block", block_fields) + "\n"

    def body(self, number: int) -> tuple[list[dict[str, Any]], int, bytes]:
        """A block's transactions, gas used and logs bloom: the same for debug_printBlock,
        eth_getBlockByNumber, eth_getLogs and the receipts.

        In order: Arbitrum's start-of-block transaction; the token's deployment in its block;
        the users' own (coin transfers and token approvals, drawn at random); then a token
        `transfer` for each holder whose balance steps in this block, from the treasury for a
        rise and to it for a fall, so the Transfers add up to the balances' changes.
        """
        rng = self.seeded.rng(self.chain.name, "block-body", number)
        transactions = [self._internal_tx(number)] if self.chain.name == "arbitrum" else []
        if number == self.profile.token_deployed_at:
            transactions.append(self._deployment_tx(number))
        for slot in range(rng.randrange(7)):
            tx = self._user_tx(rng, number, slot)
            if tx is not None:
                transactions.append(tx)
        if self._token_deployed(number):
            transactions += self._balance_transfers(number)
        for index, tx in enumerate(transactions):
            tx["index"] = index
        gas_used = sum(gas_used_of(tx["gas"]) for tx in transactions)
        if len(self.tx_seen) > _SEEN_MAX:
            self.tx_seen.clear()
        for tx in transactions:
            self.tx_seen[tx_hash(tx)] = number
        return transactions, gas_used, logs_bloom([tx["log"] for tx in transactions if "log" in tx])

    def _internal_tx(self, number: int) -> dict[str, Any]:
        """ArbOS's start-of-block transaction, the first of every Arbitrum block."""
        data = bytes.fromhex("6bf6a42d") + self.seeded.bytes(
            self.chain.name, "l1-info", number, size=96
        )
        return {"type": "*types.ArbitrumInternalTx", "data": data, "gas": 0}

    def _user_tx(self, rng: Any, number: int, slot: int) -> dict[str, Any] | None:
        """A user's own transaction, or None where the draw is a token transfer: the token's
        transfers are the balances' steps (`_balance_transfers`), never drawn."""
        sender = address_of(rng.choice(ACCOUNT_NAMES))  # not in the dump: geth caches it
        parts = (self.chain.name, "tx", number, slot + 1)
        if rng.random() < 0.5:
            recipient = address_of(rng.choice(ACCOUNT_NAMES))
            value, gas, data = rng.randrange(10**15, 10**18), 21_000, b""
            tip, event = rng.randrange(10**7), None
        else:
            amount = rng.randrange(10**6, 10**10)
            spender = address_of(rng.choice(ACCOUNT_NAMES))
            # Drawn even for a transfer left out, so the block's later draws stay as they were.
            tip = rng.randrange(10**7)
            # One token call in five an approve: drawn apart from `rng`, for the same reason.
            if self.seeded.integer(*parts, "approve", below=5) != 0:
                return None
            recipient, value, gas = token_address(), 0, _TOKEN_GAS
            data = _APPROVE_SELECTOR + _word(spender) + amount.to_bytes(_WORD, "big")
            approval = _APPROVAL_TOPIC, sender, spender, amount
            event = self._token_log(*approval) if self._token_deployed(number) else None
        return self._signed_tx(parts, sender, recipient, value, gas, data, tip, event)

    def _deployment_tx(self, number: int) -> dict[str, Any]:
        """The treasury creates the token, whose constructor mints it the whole supply."""
        treasury = address_of(TREASURY)
        parts = (self.chain.name, "tx", number, "deployment")
        mint = self._token_log(_TRANSFER_TOPIC, _ZERO_ADDRESS, treasury, self.supply)
        tip = self.seeded.integer(*parts, "tip", below=10**7)
        return self._signed_tx(
            parts, treasury, None, 0, _DEPLOYMENT_GAS, _token_code(), tip, mint, nonce=0
        )

    def _balance_transfers(self, number: int) -> list[dict[str, Any]]:
        """A token transfer for each holder whose balance changes in block `number`."""
        treasury = address_of(TREASURY)
        transfers = []
        for name in ACCOUNT_NAMES:
            holder = address_of(name)
            holding = self._token[holder.lower()]
            if not holding.steps_at(self.seeded, number):
                continue
            change = holding.at(self.seeded, number) - holding.at(self.seeded, number - 1)
            if change == 0:
                continue
            sender, recipient = (treasury, holder) if change > 0 else (holder, treasury)
            amount = abs(change)
            parts = (self.chain.name, "tx", number, "transfer", name)
            data = _TRANSFER_SELECTOR + _word(recipient) + amount.to_bytes(_WORD, "big")
            event = self._token_log(_TRANSFER_TOPIC, sender, recipient, amount)
            tip = self.seeded.integer(*parts, "tip", below=10**7)
            transfers.append(
                self._signed_tx(parts, sender, token_address(), 0, _TOKEN_GAS, data, tip, event)
            )
        return transfers

    @staticmethod
    def _token_log(topic: bytes, first: str, second: str, amount: int) -> dict[str, Any]:
        """An ERC-20 event of the token: Transfer(from, to, value) or Approval(owner, spender,
        value), both with their two addresses indexed."""
        return {
            "address": token_address().lower(),
            "topics": ["0x" + topic.hex(), "0x" + _word(first).hex(), "0x" + _word(second).hex()],
            "data": "0x" + amount.to_bytes(_WORD, "big").hex(),
        }

    def _signed_tx(
        self,
        parts: tuple,
        sender: str,
        to: str | None,
        value: int,
        gas: int,
        data: bytes,
        tip: int,
        event: dict[str, Any] | None,
        nonce: int | None = None,
    ) -> dict[str, Any]:
        """An EIP-1559 transaction (`to` None creates a contract), its log if it has one."""
        tx = {
            "type": "*types.DynamicFeeTx",
            "hash": "0x" + self.seeded.hex(*parts, "hash"),
            "from": sender,
            "nonce": self.seeded.integer(*parts, "nonce", below=5_000) if nonce is None else nonce,
            "tip": tip,
            "fee_cap": 2 * self.profile.base_fee_wei,
            "gas": gas,
            "to": to,
            "value": value,
            "data": data,
            "v": self.seeded.integer(*parts, "v", below=2),
            "r": int(self.seeded.hex(*parts, "r"), 16),
            "s": int(self.seeded.hex(*parts, "s"), 16),
        }
        if event is not None:
            tx["log"] = event
        return tx

    # --- bor_getRootHash (Polygon) -----------------------------------------------------------

    def _root_hash(self, call: BoundCall, head: int) -> str:
        start, end = call.arguments["from"], call.arguments["to"]
        size = end - start + 1
        if size > self.root_hash_cap:
            raise RpcError(
                SERVER_ERROR,
                f"block range too large: {size} blocks requested, this node's limit is "
                f"{self.root_hash_cap} blocks per bor_getRootHash call",
            )
        if end > head:
            raise RpcError(SERVER_ERROR, "header not found")
        return self.root_hash(start, end).hex()

    def root_hash(self, start: int, end: int) -> bytes:
        """Bor's checkpoint root: a Keccak Merkle tree over keccak(number, time, txHash,
        receiptHash) of each header, padded with zero leaves to a power of two."""
        level = []
        for number in range(start, end + 1):
            header = self.header(number)
            packed = number.to_bytes(_WORD, "big") + header.time.to_bytes(_WORD, "big")
            level.append(enc.keccak256(packed + header.tx_root + header.receipt_root))
        width = 1 << (len(level) - 1).bit_length()
        level += [bytes(_WORD)] * (width - len(level))
        while len(level) > 1:
            level = [enc.keccak256(level[i] + level[i + 1]) for i in range(0, len(level), 2)]
        return level[0]


_EMPTY_UNCLES_HASH = "1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347"
ARBITRUM_CHAIN_ID = 42161
_GO_PACKAGES = {
    "common": "github.com/ethereum/go-ethereum/common",
    "types": "github.com/ethereum/go-ethereum/core/types",
}


class _GoPrinter:
    """Prints values as github.com/davecgh/go-spew's Sdump does, one block dump at a time.

    Pointer addresses are made up but stable per block (Go heap addresses look like 0xc000...).
    """

    def __init__(self, seeded: Seeded, chain: str, number: int):
        self._seeded = seeded
        self._parts = (chain, "go-heap", number)
        self._count = 0

    def pointer(self) -> str:
        self._count += 1
        offset = self._seeded.integer(*self._parts, self._count, below=1 << 24) & ~0xF
        return f"0xc{offset + (self._count << 24):09x}"

    def hash(self, value: str) -> str:
        return f"(common.Hash) (len=32 cap=32) {value}"

    def address(self, value: str) -> str:
        # common.Address prints itself with its EIP-55 checksum.
        return f"(common.Address) (len=20 cap=20) {enc.to_checksum_address(value)}"

    def big(self, value: int) -> str:
        return f"(*big.Int)({self.pointer()})({value})"

    def bytes(self, go_type: str, data: bytes) -> str:
        """A byte slice or array: spew's hex dump, 16 bytes a row, with the printable ASCII."""
        if not data:
            return f"({go_type}) {{\n}}"
        rows = []
        for offset in range(0, len(data), 16):
            chunk = data[offset : offset + 16]
            pairs = " ".join(f"{b:02x}" for b in chunk[:8])
            if len(chunk) > 8:
                pairs += "  " + " ".join(f"{b:02x}" for b in chunk[8:])
            text = "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)
            rows.append(f" {offset:08x}  {pairs:<50}|{text}|")
        body = "\n".join(rows)
        return f"({go_type}) (len={len(data)} cap={len(data)}) {{\n{body}\n}}"

    def struct(self, go_type: str, fields: list[tuple[str, str]]) -> str:
        lines = ",\n".join(f"{name}: {value}" for name, value in fields)
        opening = (
            f"({go_type})({self.pointer()})({{" if go_type.startswith("*") else f"({go_type}) {{"
        )
        closing = "})" if go_type.startswith("*") else "}"
        return f"{opening}\n{_indent(lines)}\n{closing}"

    def slice(self, go_type: str, items: list[str]) -> str:
        if not items:
            return f"({go_type}) {{\n}}"
        body = _indent(",\n".join(items))
        return f"({go_type}) (len={len(items)} cap={len(items)}) {{\n{body}\n}}"

    def atomic_pointer(self, go_type: str, target: str) -> str:
        """sync/atomic.Pointer[T]: spew names T by its full package path."""
        package, name = go_type.split(".", 1)
        full = f"{_GO_PACKAGES[package]}.{name}"
        fields = [
            ("_", f"([0]*{go_type}) {{\n}}"),
            ("_", "(atomic.noCopy) {\n}"),
            ("v", f"(unsafe.Pointer) {target}"),
        ]
        lines = ",\n".join(f"{field}: {value}" for field, value in fields)
        return f"(atomic.Pointer[{full}]) {{\n{_indent(lines)}\n}}"

    def atomic_uint64(self, value: int) -> str:
        fields = [
            ("_", "(atomic.noCopy) {\n}"),
            ("_", "(atomic.align64) {\n}"),
            ("v", f"(uint64) {value}"),
        ]
        lines = ",\n".join(f"{name}: {text}" for name, text in fields)
        return f"(atomic.Uint64) {{\n{_indent(lines)}\n}}"

    def transaction(self, tx: dict[str, Any], time_s: int) -> str:
        if tx["type"] == "*types.ArbitrumInternalTx":
            inner = [
                ("ChainId", self.big(ARBITRUM_CHAIN_ID)),
                ("Data", self.bytes("[]uint8", tx["data"])),
            ]
        else:
            if tx["to"] is None:  # a contract creation
                to = "(*common.Address)(<nil>)"
            else:
                to = enc.to_checksum_address(tx["to"])
                to = f"(*common.Address)({self.pointer()})((len=20 cap=20) {to})"
            inner = [
                ("ChainID", self.big(ARBITRUM_CHAIN_ID)),
                ("Nonce", f"(uint64) {tx['nonce']}"),
                ("GasTipCap", self.big(tx["tip"])),
                ("GasFeeCap", self.big(tx["fee_cap"])),
                ("Gas", f"(uint64) {tx['gas']}"),
                ("To", to),
                ("Value", self.big(tx["value"])),
                ("Data", self.bytes("[]uint8", tx["data"])),
                ("AccessList", "(types.AccessList) {\n}"),
                ("V", self.big(tx["v"])),
                ("R", self.big(tx["r"])),
                ("S", self.big(tx["s"])),
            ]
        when = datetime.fromtimestamp(time_s, UTC).strftime("%Y-%m-%d %H:%M:%S +0000 UTC")
        fields = [
            ("inner", self.struct(tx["type"], inner)),
            ("time", f"(time.Time) {when}"),
            ("hash", self.atomic_pointer("common.Hash", self.pointer())),
            ("size", self.atomic_uint64(0)),
            ("from", self.atomic_pointer("types.sigCache", "<nil>")),
        ]
        return self.struct("*types.Transaction", fields)


def tx_hash(tx: dict[str, Any]) -> str:
    """A transaction's hash: seeded for user transactions, and for Arbitrum's internal one."""
    return tx.get("hash") or "0x" + enc.keccak256(b"arbitrum-internal" + tx["data"]).hex()


def logs_bloom(logs: list[dict[str, Any]]) -> bytes:
    """The logs bloom of `logs` (the yellow paper's: 3 bits per address and topic)."""
    bloom = bytearray(256)
    for log in logs:
        for item in [log["address"], *log["topics"]]:
            for position, bit in _bloom_bits(item):
                bloom[position] |= bit
    return bytes(bloom)


@functools.lru_cache(maxsize=1024)
def _bloom_bits(item: str) -> tuple[tuple[int, int], ...]:
    """(byte, bit) of an address's or topic's three bloom bits; the same few recur in a scan."""
    digest = enc.keccak256(bytes.fromhex(item[2:]))
    bits = [((digest[i] << 8) | digest[i + 1]) & 2047 for i in (0, 2, 4)]
    return tuple((255 - bit // 8, 1 << (bit % 8)) for bit in bits)


def _word(address: str) -> bytes:
    """An address as an ABI word (and an indexed topic): left-padded to 32 bytes."""
    return bytes.fromhex(address[2:].lower().rjust(2 * _WORD, "0"))


def _topics_match(topics: list[str], wanted: list[Any]) -> bool:
    for position, want in enumerate(wanted):
        if want is None:
            continue
        have = topics[position].lower() if position < len(topics) else None
        options = [w.lower() for w in (want if isinstance(want, list) else [want])]
        if have not in options:
            return False
    return True


@functools.cache
def _token_code() -> bytes:
    """The token's runtime code: a plausible solc prologue and a dispatch on its selectors."""
    dispatch = b"".join(b"\x80\x63" + selector + b"\x14" for selector in _selectors())
    return bytes.fromhex("6080604052348015600f57600080fd5b50") + dispatch + bytes.fromhex("00")


def _indent(text: str) -> str:
    """Indent every line of a nested value one space deeper, as spew does."""
    return "\n".join(" " + line for line in text.split("\n"))


@functools.cache
def _selectors() -> dict[bytes, str]:
    return {enc.keccak256(signature.encode())[:4]: signature for signature in TOKEN_FUNCTIONS}


@functools.cache
def _balance_slots() -> dict[int, str]:
    """Storage slot of each holder's `_balances` entry -> holder address."""
    holders = [address_of(name) for name in (*ACCOUNT_NAMES, TREASURY)]
    return {
        int.from_bytes(enc.keccak256(bytes.fromhex(h[2:].rjust(64, "0")) + bytes(_WORD)), "big"): h
        for h in holders
    }
