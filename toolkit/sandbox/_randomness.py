"""Deterministic randomness: every value in the sandbox world is a pure function of the seed.

`Seeded` hashes ``(seed, *parts)`` with SHA-256, so any value (block 70,000,123 of TRON, a balance
at some old block) is computed on its own, in any order, without replaying history. Two worlds with
the same seed therefore answer byte for byte the same, whatever was asked of them before.
"""

from __future__ import annotations

import hashlib
import random
import struct
from math import isqrt

# A sum of four uniform 16-bit draws, centred, approximates a normal distribution well enough for
# balances that wander; its standard deviation is 65536 * sqrt(4 / 12), about 37,837.
_IRWIN_HALL_STD = 37_837
NORMAL_SCALE = 4096
_FOUR_DRAWS = struct.Struct(">4H")  # the four 16-bit draws at the start of a digest
# The largest |normal()| can be: four draws all 0 or all 65535, scaled as `normal` scales them.
_NORMAL_MAX = -(-131_070 * NORMAL_SCALE // _IRWIN_HALL_STD)
"""`Seeded.normal` returns standard-normal draws multiplied by this (integers keep it exact)."""


class Seeded:
    """Deterministic values named by parts: ``seeded.integer("tron", "block", 7, below=10)``."""

    def __init__(self, seed: int):
        self.seed = seed

    def digest(self, *parts: object) -> bytes:
        return hashlib.sha256(repr((self.seed, *parts)).encode()).digest()

    def bytes(self, *parts: object, size: int = 32) -> bytes:
        """`size` deterministic bytes (SHA-256 in counter mode for more than 32)."""
        out = b"".join(self.digest(*parts, block) for block in range((size + 31) // 32))
        return out[:size]

    def hex(self, *parts: object, size: int = 32) -> str:
        return self.bytes(*parts, size=size).hex()

    def integer(self, *parts: object, below: int) -> int:
        return int.from_bytes(self.digest(*parts), "big") % below

    def rng(self, *parts: object) -> random.Random:
        """A private random generator for one object (a block, a page of records)."""
        return random.Random(int.from_bytes(self.digest(*parts), "big"))

    def normal(self, *parts: object) -> int:
        """An approximately standard-normal draw, times NORMAL_SCALE, as an exact integer."""
        total = sum(_FOUR_DRAWS.unpack_from(self.digest(*parts)))
        return (total - 131_070) * NORMAL_SCALE // _IRWIN_HALL_STD

    def walk(self, key: tuple, index: int, step: int, depth: int = 32) -> int:
        """Position `index` of a random walk that starts at 0 and moves about `step` per index.

        Built top-down as a Brownian bridge: each interval's midpoint is the mean of its ends plus
        noise scaled to the interval's length. Any index costs `depth` hashes, yet every index sees
        the same path, so a balance at block N needs no sum over all earlier blocks.
        """
        lo, hi = 0, 1 << depth
        at_lo, at_hi = 0, self.normal(*key, "end") * step * isqrt(hi) // NORMAL_SCALE
        while hi - lo > 1:
            mid = (lo + hi) // 2
            noise = self.normal(*key, lo, hi) * step * isqrt(hi - lo) // (2 * NORMAL_SCALE)
            at_mid = (at_lo + at_hi) // 2 + noise
            if index < mid:
                hi, at_hi = mid, at_mid
            else:
                lo, at_lo = mid, at_mid
        return at_lo

    @staticmethod
    def walk_bound(step: int, depth: int = 32) -> int:
        """The most |`walk`| can be at any index, whatever the seed: the end's largest draw plus
        each halving's largest noise (the mean of two ends is no further out than the further
        end), one unit per floor division on top."""
        end = _NORMAL_MAX * step * isqrt(1 << depth) // NORMAL_SCALE + 1
        noises = sum(
            _NORMAL_MAX * step * isqrt(1 << level) // (2 * NORMAL_SCALE) + 2
            for level in range(1, depth + 1)
        )
        return end + noises
