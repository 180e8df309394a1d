"""Inputs for the notebooks that work wherever you run them: the sandbox, or a real gateway.

    import toolkit
    from toolkit.examples import examples

    gw = toolkit.connect()
    ex = examples(gw)
    eth = gw.node(ex.node_name("ethereum"))
    eth.get_balance(ex.evm.token_holder)           # an account that holds the example token

Against the embedded sandbox (``gw.sandbox is not None``), or replaying a tape recorded from it,
every value comes from the sandbox's own demo world (`toolkit.sandbox.DEMO` and its Solana
simulator), so each one is guaranteed to answer.
Against a real gateway the values are well-known public mainnet facts, kept in one place below
(`REAL_WORLD`) with a source note for each. They are public addresses and ids, never keys, and
they were written down from public sources, not checked here against a live node: if one has
gone stale, change it in `REAL_WORLD` or pass your own values to the notebook.

Node names: the sandbox's are fixed (``ethereum-mainnet``, ...). On a real gateway they are
your organization's: for each chain, `examples` takes a running node whose URL you gave in the
environment (``NODE_GATEWAY_NODE_<NAME>``), else the first running mainnet node of that
protocol in the platform's node list (``gw.nodes()``, which costs 0 RU), else any running one
(see `real_node_names` for the last resorts). A chain with no node raises a `ValidationError`
from `Examples.node_name` that says what was found and what to set.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ._errors import ValidationError
from .catalog import chain_for, lookup
from .catalog import encoding as enc
from .client import ENV_NODE_PREFIX, env_name

if TYPE_CHECKING:
    from .client import Gateway
    from .solana_tx import Keypair

__all__ = [
    "CHAIN_NAMES",
    "REAL_WORLD",
    "SANDBOX_NODES",
    "EvmExamples",
    "Examples",
    "SolanaExamples",
    "TonExamples",
    "TronExamples",
    "examples",
    "real_node_names",
]

# The chains a notebook may ask a node for, in the order the quickstart visits them.
CHAIN_NAMES = ("ethereum", "arbitrum", "polygon", "hyperliquid", "solana", "tron", "ton")

# The methods whose example inputs are a block number just behind the chain's head, and how
# `Examples.inputs` makes them from the examples and that head.
HEAD_RELATIVE: Mapping[str, Callable[[Examples, int], dict[str, Any]]] = MappingProxyType(
    {
        "debug_printBlock": lambda ex, h: {"number": h - 5},
        "bor_getRootHash": lambda ex, h: {"from": h - 63, "to": h},
        "wallet/gettransactioninfobyblocknum": lambda ex, h: {"num": h - 1},
        "wallet/getblockbynum": lambda ex, h: {"num": h - 1},
        "eth_getLogs": lambda ex, h: {
            "filter": {"fromBlock": hex(h - 20), "toBlock": hex(h), "address": ex.evm.token}
        },
    }
)

# The sandbox serves exactly these nodes (see `toolkit.sandbox.World`).
SANDBOX_NODES: Mapping[str, str] = MappingProxyType({c: f"{c}-mainnet" for c in CHAIN_NAMES})


@dataclass(frozen=True)
class EvmExamples:
    """Accounts and an ERC-20 token on Ethereum (the sandbox has the same ones on every EVM chain).

    `token_balances_slot` is the storage slot of the token's balances mapping (a holder's entry
    lives at ``keccak256(pad32(holder) + pad32(slot))``) and `token_total_supply_slot` the slot of
    its total supply, so that ``eth_getStorageAt`` can be checked against ``eth_call``.
    """

    accounts: Mapping[str, str]  # label -> address (EIP-55)
    token: str
    token_name: str
    token_symbol: str
    token_decimals: int
    token_balances_slot: int
    token_total_supply_slot: int
    token_holder: str  # an account that holds the token


@dataclass(frozen=True)
class TronExamples:
    """TRC-10 assets for the spec's lookup flow: list by name, take the id, look up by id."""

    asset_name: str  # listed by name
    asset_id: str  # the id to look up
    ambiguous_name: str  # a name more than one asset has: by-name lookup answers an Error
    ambiguous_is_certain: bool  # True in the sandbox; on a real chain it depends on its state
    unique_name: str  # a name by-name lookup answers with one asset
    account: str  # an account that exists on chain (base58)
    proposal: tuple[str, int] | None = None  # (creator, id) of a deletable proposal; sandbox only


@dataclass(frozen=True)
class TonExamples:
    """Jetton masters (token contracts): ``getTokenData`` describes them."""

    jettons: Mapping[str, str]  # symbol -> user-friendly (bounceable) address
    jetton: str  # the one to start with
    not_a_jetton: str | None  # a valid address that is no jetton (sandbox only)


@dataclass(frozen=True)
class SolanaExamples:
    """A payer, a recipient and a token mint for transactions to simulate.

    In the sandbox the payer's keypair is known (demo values, not secrets) and `recent_blockhash`
    is one the simulator accepts, so transactions can be signed and simulated as they are. All of
    it is data, derived without solders (`toolkit.solana_tx` signs in pure Python), so it works
    in a browser tab too. On a
    real gateway there is no keypair and no blockhash here: simulation of an unsigned transaction
    with ``replace_recent_blockhash=True`` still works (signatures are not checked), but sending
    anything, or simulating with ``sig_verify=True``, needs your own funded keypair.
    """

    payer: str  # base58 public key
    recipient: str
    mint: str  # an SPL token mint
    mint_decimals: int
    payer_keypair_seed: str | None = field(default=None, repr=False)  # hex; sandbox only
    recent_blockhash: str | None = None  # sandbox only
    payer_holds_mint: bool = False  # True when the payer has a token account of `mint`

    @property
    def can_sign(self) -> bool:
        return self.payer_keypair_seed is not None

    def payer_keypair(self) -> Keypair:
        """The payer's keypair (sandbox only: a real gateway has none to give)."""
        if self.payer_keypair_seed is None:
            raise ValidationError(
                "no keypair on a real gateway: simulate unsigned with "
                "replace_recent_blockhash=True, or bring your own funded keypair",
                param="payer",
                rule="keypair",
            )
        from .solana_tx import Keypair

        return Keypair.from_seed(bytes.fromhex(self.payer_keypair_seed))


@dataclass(frozen=True)
class Examples:
    """Inputs for the notebooks, and which node to use for each chain.

    `sandbox` says where they come from; `sources` gives, per value, where it was taken from.
    """

    sandbox: bool
    nodes: Mapping[str, str]  # chain -> node name
    evm: EvmExamples
    tron: TronExamples
    ton: TonExamples
    solana: SolanaExamples
    sources: Mapping[str, str] = field(default_factory=dict)

    def node_name(self, chain: str) -> str:
        """The name of the node to use for `chain` (``ethereum``, ``tron``, ...)."""
        name = self.nodes.get(chain)
        if name is not None:
            return name
        where = ", ".join(f"{c}: {n}" for c, n in self.nodes.items()) or "none"
        raise ValidationError(
            f"no running {chain} node was found (nodes found: {where}); give one with the "
            f"environment variable {ENV_NODE_PREFIX}<NAME> set to its URL",
            param="chain",
            rule="unknown-node",
        )

    @staticmethod
    def needs_head(method: str) -> bool:
        """True when `inputs` needs the chain's head for `method` (a recent block number)."""
        return method in HEAD_RELATIVE

    def inputs(self, method: str, *, head: int | None = None) -> dict[str, Any]:
        """Keyword arguments (the spec's names, wire form) that make a good call of `method`:
        ``node.call(method, **ex.inputs(method, head=...))``. `head` is the chain's head, needed
        by the methods that take a recent block number (`HEAD_RELATIVE`, asked by `needs_head`).
        Any other method gets an example of each required parameter by its kind (an address, a
        block tag), so a new catalog method needs no entry here unless it takes something a kind
        cannot pick (a recent block number, a filter)."""
        evm, tron, ton = self.evm, self.tron, self.ton
        total_supply = "0x" + enc.keccak256(b"totalSupply()")[:4].hex()
        fixed: dict[str, Callable[[], dict[str, Any]]] = {
            "eth_getBalance": lambda: {"address": evm.token_holder, "block": "latest"},
            "eth_getStorageAt": lambda: {
                "address": evm.token,
                "slot": hex(evm.token_total_supply_slot),
                "block": "latest",
            },
            "eth_call": lambda: {
                "call": {"to": evm.token, "data": total_supply},
                "block": "latest",
            },
            "simulateTransaction": self._simulation_inputs,
            # a plain name with visible ticked: what a person types (hex is for visible=false)
            "wallet/getassetissuebyname": lambda: {"value": tron.unique_name, "visible": True},
            "wallet/getassetissuelistbyname": lambda: {"value": tron.asset_name},
            "wallet/getassetissuebyid": lambda: {"value": tron.asset_id},
            "wallet/getblockbylatestnum": lambda: {"num": 5},
            "wallet/proposaldelete": self._proposal_inputs,
            "web3_sha3": lambda: {"data": "0x" + b"hello".hex()},
            "api/v2/getTokenData": lambda: {"address": ton.jetton},
            "api/v2/jsonRPC": lambda: {
                "method": "unpackAddress",
                "params": {"address": ton.jetton},
            },
            "v2/nodes/": lambda: {"ordering": "name"},
        }
        by_head = HEAD_RELATIVE.get(method)
        if by_head is not None:
            if head is None:
                raise ValidationError(
                    f"{method} takes a recent block number: pass head=node.head()",
                    param="head",
                    rule="required",
                )
            return by_head(self, head)
        make = fixed.get(method)
        return make() if make is not None else self._by_kind(method)

    def _by_kind(self, name: str) -> dict[str, Any]:
        by_kind = {
            "evm-address": self.evm.token,
            "tron-address": self.tron.account,
            "ton-address": self.ton.jetton,
            "block": "latest",
        }
        inputs = {}
        for param in lookup(name).params:
            if not param.required or param.has_default:
                continue
            if param.kind.name not in by_kind:
                raise ValidationError(
                    f"no example for a {param.kind.name} parameter of {name}: pass your own",
                    param=param.name,
                    rule="unknown",
                )
            inputs[param.name] = by_kind[param.kind.name]
        return inputs

    def _simulation_inputs(self) -> dict[str, Any]:
        """A transfer: signed against the sandbox's blockhash, or unsigned with the blockhash
        replaced by the node's on a real gateway (no keypair is needed to simulate it)."""
        from . import solana_tx

        sol = self.solana
        payer: Any  # a keypair that signs, or the payer's address (not signed)
        if sol.can_sign and sol.recent_blockhash:
            payer, blockhash, config = sol.payer_keypair(), sol.recent_blockhash, {}
        else:
            payer, blockhash = sol.payer, "11111111111111111111111111111111"
            config = {"replaceRecentBlockhash": True}
        transaction = solana_tx.transfer(
            payer, sol.recipient, 1_000_000, blockhash, sign=sol.can_sign
        )
        return {
            "transaction": transaction,
            "config": {"encoding": "base64", "innerInstructions": True, **config},
        }

    def _proposal_inputs(self) -> dict[str, Any]:
        if self.tron.proposal is None:
            raise ValidationError(
                "no known deletable proposal on a real chain: give your own proposal's creator "
                "and id",
                param="proposal_id",
                rule="unknown",
            )
        creator, proposal_id = self.tron.proposal
        return {"owner_address": creator, "proposal_id": proposal_id}

    def __repr__(self) -> str:
        where = "sandbox demo inputs" if self.sandbox else "public mainnet inputs"
        nodes = ", ".join(f"{chain}={name}" for chain, name in self.nodes.items())
        return f"<Examples {where}; nodes: {nodes}>"


# --- the real world: every public value in one place, each with its source ----------------------

REAL_WORLD: Mapping[str, tuple[Any, str]] = MappingProxyType(
    {
        # Ethereum
        "evm.accounts.ethereum_foundation": (
            "0xde0B295669a9FD93d5F28D9Ec85E40f4cb697BAe",
            "the Ethereum Foundation's long-standing address (labelled 'EthDev' on Etherscan)",
        ),
        "evm.accounts.vitalik": (
            "0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045",
            "vitalik.eth: the ENS name resolves to this address",
        ),
        "evm.accounts.binance_14": (
            "0x28C6c06298d514Db089934071355E5743bf21d60",
            "an exchange hot wallet labelled 'Binance 14' on Etherscan; holds USDT",
        ),
        "evm.accounts.weth": (
            "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2",
            "the Wrapped Ether (WETH9) contract, whose ETH balance backs all WETH",
        ),
        "evm.accounts.beacon_deposit": (
            "0x00000000219ab540356cBB839Cbe05303d7705Fa",
            "the Ethereum proof-of-stake deposit contract, as published on ethereum.org",
        ),
        "evm.accounts.binance_7": (
            "0xBE0eB53F46cd790Cd13851d5EFf43D12404d33E8",
            "an exchange cold wallet labelled 'Binance 7' on Etherscan",
        ),
        "evm.token": (
            "0xdAC17F958D2ee523a2206206994597C13D831ec7",
            "Tether USD (USDT) ERC-20 contract, as published by Tether (tether.to)",
        ),
        "evm.token_name": ("Tether USD", "the contract's name()"),
        "evm.token_symbol": ("USDT", "the contract's symbol()"),
        "evm.token_decimals": (6, "the contract's decimals()"),
        "evm.token_total_supply_slot": (
            1,
            "TetherToken source (verified on Etherscan): Ownable.owner and Pausable.paused share "
            "slot 0, ERC20Basic._totalSupply is slot 1",
        ),
        "evm.token_balances_slot": (
            2,
            "TetherToken source (verified on Etherscan): BasicToken.balances is slot 2",
        ),
        # TRON
        "tron.asset_name": (
            "BitTorrent",
            "the TRC-10 BitTorrent token (BTT, id 1002000; shown as 'BTTOLD' on TRONSCAN since "
            "the 2021 redenomination, but a TRC-10 name cannot change on chain)",
        ),
        "tron.asset_id": ("1002000", "TRONSCAN's TRC-10 token page for BitTorrent (BTT)"),
        "tron.account": (
            "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
            "Tether USD (USDT) TRC-20 contract on TRON, as published by Tether (tether.to); a "
            "contract is an account too",
        ),
        "tron.ambiguous_name": (
            "BitTorrent",
            "copycat TRC-10 tokens reuse famous names; whether this one is shared depends on the "
            "chain's state, so the notebook handles both answers",
        ),
        # TON
        "ton.jettons.USDT": (
            "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs",
            "Tether USD₮ jetton master on TON, as published by Tether and listed by tonviewer",
        ),
        # Solana
        "solana.payer": (
            "5tzFkiKscXHK5ZXCGbXZxdw7gTjjD1mBwuoFbhUvuAi9",
            "a well-funded exchange hot wallet (labelled 'Binance 2' on Solscan), used only as "
            "the fee payer of unsigned simulations: nothing is signed or sent",
        ),
        "solana.recipient": (
            "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM",
            "another exchange wallet (labelled 'Binance' on Solscan), the recipient of simulated "
            "transfers",
        ),
        "solana.mint": (
            "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
            "USD Coin (USDC) SPL mint, as published by Circle",
        ),
        "solana.mint_decimals": (6, "the USDC mint's decimals"),
    }
)


def _real(key: str) -> Any:
    return REAL_WORLD[key][0]


def _real_examples(nodes: Mapping[str, str]) -> Examples:
    accounts = {
        key.rsplit(".", 1)[1]: value
        for key, (value, _source) in REAL_WORLD.items()
        if key.startswith("evm.accounts.")
    }
    jettons = {
        key.rsplit(".", 1)[1]: value
        for key, (value, _source) in REAL_WORLD.items()
        if key.startswith("ton.jettons.")
    }
    return Examples(
        sandbox=False,
        nodes=MappingProxyType(dict(nodes)),
        evm=EvmExamples(
            accounts=MappingProxyType(accounts),
            token=_real("evm.token"),
            token_name=_real("evm.token_name"),
            token_symbol=_real("evm.token_symbol"),
            token_decimals=_real("evm.token_decimals"),
            token_balances_slot=_real("evm.token_balances_slot"),
            token_total_supply_slot=_real("evm.token_total_supply_slot"),
            token_holder=accounts["binance_14"],
        ),
        tron=TronExamples(
            asset_name=_real("tron.asset_name"),
            asset_id=_real("tron.asset_id"),
            ambiguous_name=_real("tron.ambiguous_name"),
            ambiguous_is_certain=False,
            unique_name=_real("tron.asset_name"),
            account=_real("tron.account"),
        ),
        ton=TonExamples(
            jettons=MappingProxyType(jettons), jetton=jettons["USDT"], not_a_jetton=None
        ),
        solana=SolanaExamples(
            payer=_real("solana.payer"),
            recipient=_real("solana.recipient"),
            mint=_real("solana.mint"),
            mint_decimals=_real("solana.mint_decimals"),
        ),
        sources=MappingProxyType({key: source for key, (_value, source) in REAL_WORLD.items()}),
    )


# --- the sandbox --------------------------------------------------------------------------------

_SANDBOX_SOURCE = "toolkit.sandbox.DEMO (the embedded sandbox's demo world)"
_SANDBOX_SOLANA_SOURCE = "the sandbox's Solana simulator (World.solana_demo())"


def world_examples(world: Any) -> Examples:
    """The examples of a sandbox `World` (its demo accounts, its Solana simulator's wallets).

    Public within the package, not in `__all__`: `examples(gw)` is the user's way in; the widgets
    call this for a running sandbox they hold without a gateway."""
    from .sandbox import DEMO

    evm, tron, ton = DEMO.evm, DEMO.tron, DEMO.ton
    solana = world.solana_demo()
    wallets = solana["wallets"]
    sources = {
        "evm": _SANDBOX_SOURCE + ": the same accounts and token on every EVM chain",
        "evm.token_balances_slot": "OpenZeppelin ERC-20 layout: _balances is slot 0",
        "evm.token_total_supply_slot": "OpenZeppelin ERC-20 layout: _totalSupply is slot 2",
        "tron": _SANDBOX_SOURCE + ": two assets are named " + repr(tron.ambiguous_name),
        "ton": _SANDBOX_SOURCE,
        "solana": _SANDBOX_SOLANA_SOURCE + ": keypair seeds are demo values, not secrets",
    }
    return Examples(
        sandbox=True,
        nodes=SANDBOX_NODES,
        evm=EvmExamples(
            accounts=evm.accounts,
            token=evm.token,
            token_name=evm.token_name,
            token_symbol=evm.token_symbol,
            token_decimals=evm.token_decimals,
            token_balances_slot=0,
            token_total_supply_slot=2,
            token_holder=evm.accounts["alice"],
        ),
        tron=TronExamples(
            asset_name=tron.ambiguous_name,
            asset_id=tron.ambiguous_ids[-1],
            ambiguous_name=tron.ambiguous_name,
            ambiguous_is_certain=True,
            unique_name=tron.unique_name,
            account=tron.accounts["alice"],
            proposal=next((p.creator, p.id) for p in tron.proposals if p.deletable),
        ),
        ton=TonExamples(
            jettons=MappingProxyType({j.symbol: j.address for j in ton.jettons}),
            jetton=ton.jettons[0].address,
            not_a_jetton=ton.not_a_jetton,
        ),
        solana=SolanaExamples(
            payer=wallets["alice"]["pubkey"],
            recipient=wallets["bob"]["pubkey"],
            mint=solana["mint"]["address"],
            mint_decimals=solana["mint"]["decimals"],
            payer_keypair_seed=wallets["alice"]["keypair_seed"],
            recent_blockhash=solana["recent_blockhash"],
            payer_holds_mint=True,
        ),
        sources=MappingProxyType(sources),
    )


# --- node names on a real gateway -----------------------------------------------------------------


def _chain_of(label: Any) -> str | None:
    try:
        return chain_for(str(label)).name
    except ValidationError:
        return None


def _is_mainnet(record: Mapping[str, Any]) -> bool:
    network = str(record.get("network") or "").lower()
    return network in ("", "mainnet") or "mainnet" in network


def real_node_names(
    records: Sequence[Mapping[str, Any]], environ: Mapping[str, str]
) -> dict[str, str]:
    """Chain -> node name, from the platform's node records and the environment.

    Per chain, the first of: a running node of that protocol whose URL is in the environment
    (``NODE_GATEWAY_NODE_<NAME>``); a running mainnet node; any running node; a node whose URL is
    in the environment whatever its status; a name in the environment that no record has, when
    the name itself says the chain (``tron-mainnet``). Within each group, the platform's order.
    """
    given = {
        key[len(ENV_NODE_PREFIX) :]
        for key, value in environ.items()
        if key.startswith(ENV_NODE_PREFIX) and value
    }
    by_chain: dict[str, list[Mapping[str, Any]]] = {}
    for record in records:
        chain = _chain_of(record.get("protocol") or record.get("name") or "")
        if chain is not None and record.get("name"):
            by_chain.setdefault(chain, []).append(record)
    names: dict[str, str] = {}
    for chain in CHAIN_NAMES:
        candidates = by_chain.get(chain, [])
        running = [r for r in candidates if r.get("status") == "running"]
        in_environment = [r for r in candidates if env_name(str(r["name"])) in given]
        ranked = (
            [r for r in in_environment if r.get("status") == "running"],
            [r for r in running if _is_mainnet(r)],
            running,
            in_environment,
        )
        chosen = next((group[0]["name"] for group in ranked if group), None)
        if chosen is None:
            known = {env_name(str(r.get("name"))) for r in records}
            loose = sorted(
                suffix.lower().replace("_", "-")
                for suffix in given - known
                if _chain_of(suffix.lower().replace("_", "-")) == chain
            )
            chosen = loose[0] if loose else None
        if chosen is not None:
            names[chain] = str(chosen)
    return names


def examples(gw: Gateway) -> Examples:
    """Inputs for the notebooks on `gw`: the sandbox's demo world, or public mainnet values.

    On a real gateway this lists the organization's nodes once (a platform call, 0 RU) to choose
    a node per chain; see the module docstring.
    """
    seed = gw.sandbox_seed  # a live sandbox, or a tape recorded from one
    if seed is not None:
        from .sandbox import World

        world = gw.sandbox.world if gw.sandbox is not None else World(seed)
        return world_examples(world)
    return _real_examples(real_node_names(gw.nodes(ordering="name"), os.environ))
