"""The sandbox's EVM chains: accounts whose balances move over history, and one ERC-20 token.

Every demo account's balance on every chain is a random walk that steps once every `period` blocks
(its "transfer schedule"), so archive reads at old blocks return different, stable numbers. The
token ("Sandbox Dollar", SBXD, 6 decimals) lives at the same address on every chain, answers
`balanceOf`, `totalSupply`, `decimals`, `symbol` and `name` through `eth_call`, keeps OpenZeppelin's
storage layout for `eth_getStorageAt`, and does not exist before its deployment block. Errors use
geth's words: "header not found" above the head, "execution reverted", "insufficient funds ...".
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from math import isqrt
from typing import Any

from ..catalog import BoundCall, Chain
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
TREASURY = "treasury"  # the token's deployer; holds what the demo accounts do not
TOKEN_NAME = "Sandbox Dollar"
TOKEN_SYMBOL = "SBXD"
TOKEN_DECIMALS = 6
TOKEN_FUNCTIONS = ("balanceOf(address)", "totalSupply()", "decimals()", "symbol()", "name()")
_WORD = 32

Handler = Callable[[BoundCall, int], Any]


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
    """One balance's history on one chain: zero before `born`, then a walk of one step per
    `period` blocks around `opening` (never below zero)."""

    key: tuple
    born: int
    period: int
    opening: int
    step: int

    def at(self, seeded: Seeded, number: int) -> int:
        if number < self.born:
            return 0
        epoch = (number - self.born) // self.period
        return max(0, self.opening + seeded.walk(self.key, epoch, self.step))


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
        self.profile = PROFILES[chain.name]
        self.seeded = seeded
        self.timeline = timeline
        self.root_hash_cap = root_hash_cap

    def handlers(self) -> dict[str, Handler]:
        return {
            "eth_blockNumber": lambda call, head: enc.to_quantity(head),
            "eth_getBalance": self._get_balance,
            "eth_getStorageAt": self._get_storage_at,
            "eth_call": self._call,
            "web3_clientVersion": lambda call, head: self.profile.client_version,
            "debug_printBlock": self._print_block,
            "bor_getRootHash": self._root_hash,
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
        """Token holdings by lower-case address, the treasury's 1,000 times larger."""
        deployed = self.profile.token_deployed_at
        holdings = {
            address_of(name).lower(): self._holding("token", name, deployed, TOKEN_DECIMALS)
            for name in ACCOUNT_NAMES
        }
        holdings[address_of(TREASURY).lower()] = self._holding(
            "token", TREASURY, deployed, TOKEN_DECIMALS + 3, born=deployed
        )
        return holdings

    def _holding(
        self, asset: str, name: str, earliest: int, decimals: int, born: int | None = None
    ) -> Holding:
        rng = self.seeded.rng(self.chain.name, asset, name)
        period_s = rng.choice((600, 1_800, 3_600, 4 * 3_600, 12 * 3_600, 86_400))
        period = max(1, round(period_s / self.chain.block_time_s))
        if born is None:
            born = earliest + rng.randrange(max(1, (self.profile.base_head - earliest) // 2))
        opening = int(10 ** rng.uniform(-1.3, 3.7) * 10**6) * 10 ** (decimals - 6)
        # Sized so the walk wanders about half the opening balance by the base head.
        epochs = max(1, (self.profile.base_head - born) // period)
        step = max(1, opening // (2 * isqrt(epochs) + 1))
        return Holding((self.chain.name, asset, name), born, period, opening, step)

    def balance(self, address: str, number: int) -> int:
        holding = self._coin.get(address.lower())
        return holding.at(self.seeded, number) if holding else 0

    def token_balance(self, address: str, number: int) -> int:
        holding = self._token.get(address.lower())
        return holding.at(self.seeded, number) if holding else 0

    def total_supply(self, number: int) -> int:
        return sum(holding.at(self.seeded, number) for holding in self._token.values())

    def token_exists(self, address: str, number: int) -> bool:
        return address.lower() == token_address().lower() and (
            number >= self.profile.token_deployed_at
        )

    def block_at(self, block: str, head: int) -> int:
        """A block tag or 0x number as a number; above the head is geth's "header not found"."""
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
        from eth_abi import decode, encode

        function = _selectors().get(data[:4])
        arguments = data[4:]
        if function == "balanceOf(address)":
            try:
                (holder,) = decode(["address"], arguments)
            except Exception:  # eth-abi raises several types for short or malformed data
                raise RpcError(SERVER_ERROR, "execution reverted") from None
            return encode(["uint256"], [self.token_balance(holder, number)])
        if function == "totalSupply()":
            return encode(["uint256"], [self.total_supply(number)])
        if function == "decimals()":
            return encode(["uint8"], [TOKEN_DECIMALS])
        if function in ("symbol()", "name()"):
            return encode(["string"], [TOKEN_SYMBOL if function == "symbol()" else TOKEN_NAME])
        raise RpcError(SERVER_ERROR, "execution reverted")  # no such function, no fallback

    # --- debug_printBlock (Arbitrum) ---------------------------------------------------------

    def _print_block(self, call: BoundCall, head: int) -> str:
        number = int(call.arguments["number"], 16)
        if number > head:
            raise RpcError(SERVER_ERROR, f"block #{number} not found")
        return self.block_dump(number)

    def block_dump(self, number: int) -> str:
        """The block in the format of geth's `types.Block.String()` (a Go struct dump)."""
        header = self.header(number)
        rng = self.seeded.rng(self.chain.name, "block-body", number)
        transactions = [self._internal_tx(number)] + [
            self._user_tx(rng, number, index) for index in range(rng.randrange(7))
        ]
        gas_used = sum(int(tx["GasLimit"], 16) * 3 // 4 for tx in transactions)
        bloom = bytearray(256)
        for _ in range(3 * len(transactions)):
            bloom[rng.randrange(256)] |= 1 << rng.randrange(8)
        fields = (
            ("ParentHash:", header.parent_hash),
            ("UncleHash:", "0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347"),
            ("Coinbase:", self.profile.coinbase),
            ("Root:", "0x" + self.seeded.hex(self.chain.name, "state-root", number)),
            ("TxSha", "0x" + header.tx_root.hex()),
            ("ReceiptSha:", "0x" + header.receipt_root.hex()),
            ("Bloom:", "0x" + bloom.hex()),
            ("Difficulty:", "1"),
            ("Number:", str(number)),
            ("GasLimit:", str(self.profile.gas_limit)),
            ("GasUsed:", str(gas_used)),
            ("Time:", str(header.time)),
            ("Extra:", "0x" + self.seeded.hex(self.chain.name, "send-root", number)),
            ("MixDigest:", "0x" + self.seeded.hex(self.chain.name, "mix", number)),
            ("Nonce:", "0x" + self.seeded.hex(self.chain.name, "nonce", number, size=8)),
            ("BaseFee:", str(self.profile.base_fee_wei)),
        )
        header_lines = "\n".join(f"\t{label}\t    {value}" for label, value in fields)
        tx_text = "\n".join(
            "\n".join(f"\t{label}{value}" for label, value in _tx_lines(tx)) for tx in transactions
        )
        size = 700 + sum(110 + len(tx["Data"]) // 2 for tx in transactions)
        return (
            f"Block(#{number}): Size: {_storage_size(size)} {{\n"
            f"MinerHash: 0x{self.seeded.hex(self.chain.name, 'seal-hash', number)}\n"
            f"Header({header.hash}):\n[\n{header_lines}\n]\n"
            f"Transactions:\n[\n{tx_text}\n]\n"
            f"Uncles:\n[]\n}}\n"
        )

    def _internal_tx(self, number: int) -> dict[str, str]:
        """ArbOS's start-of-block transaction, the first of every Arbitrum block."""
        arbos = "0x00000000000000000000000000000000000a4b05"
        data = "0x6bf6a42d" + self.seeded.hex(self.chain.name, "l1-info", number, size=96)
        return self._tx(number, 0, arbos, arbos, 0, 0, 0, data)

    def _user_tx(self, rng: Any, number: int, index: int) -> dict[str, str]:
        sender = address_of(rng.choice(ACCOUNT_NAMES))
        if rng.random() < 0.5:
            recipient = address_of(rng.choice(ACCOUNT_NAMES))
            value, gas, data = rng.randrange(10**15, 10**18), 21_000, "0x"
        else:
            recipient, value, gas = token_address(), 0, 65_000
            amount = rng.randrange(10**6, 10**10)
            data = "0xa9059cbb" + address_of(rng.choice(ACCOUNT_NAMES))[2:].lower().rjust(64, "0")
            data += f"{amount:064x}"
        gas_price = self.profile.base_fee_wei + rng.randrange(10**7)
        return self._tx(number, index + 1, sender, recipient, value, gas, gas_price, data)

    def _tx(
        self,
        number: int,
        index: int,
        sender: str,
        recipient: str,
        value: int,
        gas: int,
        gas_price: int,
        data: str,
    ) -> dict[str, str]:
        parts = (self.chain.name, "tx", number, index)
        return {
            "TX": "0x" + self.seeded.hex(*parts, "hash"),
            "Contract": "false",  # geth prints true only for contract creations
            "From": sender.lower(),
            "To": recipient.lower(),
            "Nonce": str(self.seeded.integer(*parts, "nonce", below=5_000)),
            "GasPrice": hex(gas_price),
            "GasLimit": hex(gas),
            "Value": hex(value),
            "Data": data,
            "V": hex(self.seeded.integer(*parts, "v", below=2)),
            "R": "0x" + self.seeded.hex(*parts, "r"),
            "S": "0x" + self.seeded.hex(*parts, "s"),
        }

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


def _tx_lines(tx: dict[str, str]) -> list[tuple[str, str]]:
    """geth's `Transaction.String()` labels, with its ragged alignment."""
    return [
        ("TX(", tx["TX"] + ")"),
        ("Contract: ", tx["Contract"]),
        ("From:     ", tx["From"]),
        ("To:       ", tx["To"]),
        ("Nonce:    ", tx["Nonce"]),
        ("GasPrice: ", tx["GasPrice"]),
        ("GasLimit  ", tx["GasLimit"]),
        ("Value:    ", tx["Value"]),
        ("Data:     ", tx["Data"]),
        ("V:        ", tx["V"]),
        ("R:        ", tx["R"]),
        ("S:        ", tx["S"]),
    ]


def _storage_size(size: int) -> str:
    """geth's `common.StorageSize` text."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size > scale:
            return f"{size / scale:.2f} {unit}"
    return f"{size:.2f} B"


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
