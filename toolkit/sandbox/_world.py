"""The sandbox world: its nodes and keys, each chain's head, and the chain services.

Everything is derived from one seed: access keys and the platform API key (long hex tokens), node
records, heads, balances, blocks. Entities that notebooks name (accounts, the token, assets,
proposals, jettons) are the same for every seed and listed in `DEMO`; the seed changes their
histories. Seven nodes are served (status ``running``); seven more exist only in the platform's
node list, one per other status, and their endpoints answer 503.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from ..catalog import CHAINS
from . import _evm, _ton, _tron
from ._clock import ANCHOR_UNIX_S, Clock, Timeline
from ._demo import Demo, demo
from ._evm import EvmChain
from ._randomness import Seeded
from ._solana_node import SolanaChain
from ._ton import TonChain
from ._tron import TronChain

SERVED_NODES = (
    ("ethereum-mainnet", "ethereum"),
    ("arbitrum-mainnet", "arbitrum"),
    ("polygon-mainnet", "polygon"),
    ("hyperliquid-mainnet", "hyperliquid"),
    ("solana-mainnet", "solana"),
    ("tron-mainnet", "tron"),
    ("ton-mainnet", "ton"),
)
# (name, chain, network, status): in the platform's list only.
LISTED_ONLY_NODES = (
    ("ethereum-sepolia", "ethereum", "sepolia", "pending"),
    ("polygon-amoy", "polygon", "amoy", "maintenance"),
    ("arbitrum-sepolia", "arbitrum", "sepolia", "failed"),
    ("solana-devnet", "solana", "devnet", "error"),
    ("tron-nile", "tron", "nile", "stopping"),
    ("ton-testnet", "ton", "testnet", "stopped"),
    ("ethereum-holesky", "ethereum", "holesky", "starting"),
)
RUNNING = "running"
_BASE_HEADS = {
    **{chain: profile.base_head for chain, profile in _evm.PROFILES.items()},
    "tron": _tron.BASE_HEAD,
    "ton": _ton.BASE_HEAD,
}
_CLOUDS = (
    ("CC-0001", "aws", "us-east-1"),
    ("CC-0002", "gcloud", "europe-west3"),
    ("CC-0003", "azure", "southeastasia"),
    ("CC-0004", "aws", "eu-central-1"),
)


@dataclass(frozen=True)
class NodeRecord:
    """A node of the organization: what the platform lists, and the key its endpoint takes."""

    name: str
    chain: str  # a catalog chain name
    key: str
    status: str
    network: str
    node_id: str
    project: str
    cloud: str
    provider: str
    region: str
    blockchain: str
    created_at: datetime  # orders the platform list; not part of the record

    @property
    def serving(self) -> bool:
        return self.status == RUNNING


class World:
    """Nodes, keys, heads and chain services for one seed.

    `clock` is what moves sandbox time, and with it the heads: ``"requests"`` (each node request
    served is a second) or ``"wall"`` (wall time since the sandbox started); `head_pace` scales
    it (1.0 = each chain's real block time, 0 = frozen); `root_hash_cap` is Polygon's
    `bor_getRootHash` range limit, in blocks.
    """

    def __init__(
        self,
        seed: int = 0,
        *,
        head_pace: float = 1.0,
        clock: str = "requests",
        root_hash_cap: int = 1024,
        now: Callable[[], float] = time.monotonic,
    ):
        self.seed = seed
        self.seeded = Seeded(seed)
        self.clock = Clock(head_pace, now, kind=clock)
        self.api_key = self.seeded.hex("platform-api-key")
        self.nodes = self._make_nodes()
        self._by_key = {node.key: node for node in self.nodes}
        self.timelines = {
            chain: Timeline(
                base + self.seeded.integer("base-head", chain, below=50_000),
                CHAINS[chain].block_time_s,
                self.clock,
            )
            for chain, base in _BASE_HEADS.items()
        }
        self.services: dict[str, Any] = {
            chain: EvmChain(CHAINS[chain], self.seeded, self.timelines[chain], root_hash_cap)
            for chain in _evm.PROFILES
        }
        self.services["tron"] = TronChain(self.seeded, self.timelines["tron"])
        self.services["ton"] = TonChain(self.seeded, self.timelines["ton"])
        self.services["solana"] = SolanaChain(
            seed, clock=None if self.clock.frozen else self.clock.elapsed
        )

    @property
    def served_nodes(self) -> list[NodeRecord]:
        return [node for node in self.nodes if node.serving]

    def node(self, name: str) -> NodeRecord:
        for node in self.nodes:
            if node.name == name:
                return node
        raise KeyError(f"no node named {name!r}; nodes: {', '.join(n.name for n in self.nodes)}")

    def node_by_key(self, key: str) -> NodeRecord | None:
        """The node whose access key is `key`. Every key is compared, each in constant time
        (`hmac.compare_digest`), so the answer's timing tells nothing about how much of a key
        was right (a dict lookup compares the bytes of a hash-bucket match)."""
        import hmac

        given = key.encode("utf-8", "surrogatepass")
        found = None
        for node in self._by_key.values():
            if hmac.compare_digest(node.key.encode(), given):
                found = node
        return found

    def head(self, chain: str) -> int | None:
        """The chain's head now; None for Solana, whose slots are the simulator's business."""
        timeline = self.timelines.get(chain)
        return timeline.head() if timeline else None

    def demo(self) -> Demo:
        """The named demo inputs (the same for every seed): see `toolkit.sandbox.DEMO`."""
        return demo()

    def solana_demo(self) -> dict[str, Any]:
        """Solana's demo facts (seed-dependent keys, a recent blockhash); starts the simulator."""
        return self.services["solana"].demo()

    def _make_nodes(self) -> list[NodeRecord]:
        listed = [(name, chain, "mainnet", RUNNING) for name, chain in SERVED_NODES]
        listed += list(LISTED_ONLY_NODES)
        nodes = []
        for index, (name, chain, network, status) in enumerate(listed):
            cloud, provider, region = _CLOUDS[self.seeded.integer("cloud", name, below=4)]
            created = datetime.fromtimestamp(ANCHOR_UNIX_S, UTC) - timedelta(
                days=400 - 20 * index, seconds=self.seeded.integer("created", name, below=86_400)
            )
            nodes.append(
                NodeRecord(
                    name=name,
                    chain=chain,
                    key=self.seeded.hex("access-key", name, size=16),
                    status=status,
                    network=network,
                    node_id="ND-" + self._digits("node", name, groups=3),
                    project="PR-" + self._digits("project", network == "mainnet", groups=2),
                    cloud=cloud,
                    provider=provider,
                    region=region,
                    blockchain="BC-" + self._digits("blockchain", chain, network, groups=3),
                    created_at=created,
                )
            )
        return nodes

    def _digits(self, *parts: object, groups: int) -> str:
        """``123-456-789``-style identifiers."""
        number = self.seeded.integer(*parts, below=1000**groups)
        return "-".join(f"{number // 1000**i % 1000:03d}" for i in reversed(range(groups)))
