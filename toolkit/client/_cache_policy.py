"""The response cache's policy: which answers may be kept, when, and under which key. Pure
functions of a call and the chain head; the storage (SQLite, memory) is `_cache`.

What is cached (decided per call from the catalog and the chain's finality depth):

- Calls pinned to a block, once that block is final: more than `Chain.finality_depth` blocks
  behind the chain head when the answer arrives. Which argument pins the block is the catalog's
  `Method.pin`: the block parameter of an archive-priced method (``eth_getBalance``,
  ``eth_call``, ``eth_getBlockByNumber``, ...) unless the entry says otherwise
  (``bor_getRootHash`` and ``eth_getLogs`` by the end of their range, TRON's blocks by ``num``).
  Deciding finality needs the head: the cached one, else one fetch (billed, in the ledger).
- Answers that never change, always (``pinned_by=ALWAYS``): ``web3_sha3``, ``eth_chainId``,
  ``net_version``, TON's ``detectAddress``.

What is never cached: block tags (``latest``, ``pending``, ``safe``, ``finalized``, and also
``earliest``: the spec defines it as the "earliest *available*" block, which moves on a pruning
node and may differ between the nodes behind one endpoint); asset records looked up by id (a
TRC-10 issuer can still update the description, URL and bandwidth limits); anything else whose
answer depends on the present (heads, latest blocks, token data, simulations); errors; the
platform API; raw calls outside the catalog (`call_raw`).

A hit is checked before pricing and sending, costs 0 RU, and is recorded in the ledger with
``cache_hit=True``. Keys are a SHA-256 of the call's identity (`_identity.CallKey`): the gateway
(host and chain, under an HMAC with a random salt kept in the file, so the file names no host
and never holds an access key), the method and its parameters in their one canonical form (an
address checksummed or not, TRON's hex or base58, TON's raw or user-friendly form are one
call). A new key or port for the same gateway keeps its answers; another gateway's node of the
same name does not see them. The node's name is not hashed: the files written before keep
answering.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from .._json import COMPACT_JSON
from ..catalog import ALWAYS
from ..catalog.encoding import is_hex_quantity

if TYPE_CHECKING:
    from ..catalog import BoundCall
    from ._identity import CallKey


class Cacheable(NamedTuple):
    """A call whose answer may be cached: its key, and the block that must be final first
    (None: a pure function, always cacheable)."""

    key: bytes
    block: int | None


def pinned_block(bound: BoundCall) -> int | str | None:
    """The block number the call's answer is pinned to, `ALWAYS`, or None (never cacheable)."""
    where = bound.method.pin
    if where is None or where == ALWAYS:
        return where
    value = bound.argument(where)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and len(value) <= 18 and is_hex_quantity(value):
        return int(value, 16)
    return None  # a tag (the answer follows the chain), or a block hash (EIP-1898: not cached)


def must_be_final(pinned: int | str) -> int | None:
    """The block that must be final before a pinned answer is kept (None: kept at once)."""
    return None if pinned == ALWAYS else int(pinned)


def is_final(block: int, head: int, finality_depth: int) -> bool:
    """True when `block` is more than `finality_depth` blocks behind `head`."""
    return head - block > finality_depth


def keeps(block: int | None, head: int | None, finality_depth: int) -> bool:
    """Whether an answer that must wait for `block` (None: none) is kept, `head` known now."""
    return block is None or (head is not None and is_final(block, head, finality_depth))


def key_text(key: CallKey, rpc_method: str) -> str:
    """The call as its cache key hashes it, beside the gateway: ``[method, rpc method,
    params]`` as compact JSON with sorted keys, the params in their canonical form (a
    lower-case address where a checksummed one was used before is the same call, not one paid
    for again). The rpc method tells TON's ``jsonRPC`` calls apart by their inner method."""
    names = (key.method, rpc_method)
    head = _KEY_HEADS.get(names)
    if head is None:
        if len(_KEY_HEADS) >= 1024:
            _KEY_HEADS.clear()
        head = _KEY_HEADS[names] = COMPACT_JSON.encode(list(names))[:-1]
    return f"{head},{key.params}]"


_KEY_HEADS: dict[tuple[str, str], str] = {}  # '["method","rpc method"' per pair
