"""Bounds: every limit a check enforces, each with the width or the reason it comes from.

Every number a kind accepts has an explicit width, the one the nodes decode it into; a wider value
is refused here instead of being sent, billed, and refused (or truncated) by the node.
"""

from __future__ import annotations

BLOCK_TAGS = ("latest", "safe", "finalized", "earliest", "pending")
DEBUG_PRINT_BLOCK_FLOOR = 22_207_815
MAX_LATEST_BLOCKS = 100
MAX_LOG_RANGE = 10_000  # eth_getLogs: blocks per call (a toolkit bound; providers cap it too)
INT64_MAX = 2**63 - 1  # Java's long (java-tron: num, proposal_id, token ids), Go's int64
UINT64_MAX = 2**64 - 1  # Go/Rust u64: gas, bor_getRootHash's range, Solana slots
UINT256_MAX = 2**256 - 1  # EVM words: wei values, gas prices, storage slots
MAX_BLOCK = INT64_MAX  # geth decodes a block parameter into rpc.BlockNumber, an int64
MAX_TEXT_CHARS = 1024  # names, tags, choices, inner method names: all far shorter
MAX_JSON_DEPTH = 32  # free-form JSON parameters (TON's named params) nest at most this deep
SOLANA_MAX_TRANSACTION_BYTES = 1232  # a Solana transaction fits one IPv6 packet (PACKET_DATA_SIZE)
