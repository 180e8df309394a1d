"""A response cache file torn or garbled at many byte offsets, then used the way a notebook
uses it: its answers looked up and stored, and its housekeeping (`len`, `summary`, `size_bytes`,
`repr`, `clear`). SQLite reads a page when it needs it, so damage may show only there: it must
never be a bare sqlite3 error, and a damaged file is moved aside for a fresh one, saying where."""

from __future__ import annotations

import hashlib
import random
import re
import warnings

from toolkit.client._cache import ResponseCache

ANSWERS = 600  # several pages of rows and of the index: damage lands in the middle of them


def keyed(index: int) -> tuple[bytes, str, str, str]:
    key = hashlib.sha256(index.to_bytes(4, "big")).digest()
    return key, f"node-{index % 3}", "eth_getBalance", hex(index * 10**15)


def test_a_cache_torn_or_garbled_anywhere_is_set_aside_and_never_raises(tmp_path):
    whole_path = tmp_path / "whole.sqlite"
    whole = ResponseCache(whole_path)
    whole.store(keyed(index) for index in range(ANSWERS))
    whole.close()
    data = whole_path.read_bytes()
    rng = random.Random(11)
    cases = [data[: rng.randrange(len(data))] for _ in range(10)]
    for _ in range(40):
        garbled = bytearray(data)
        at = rng.randrange(4096, len(data) - 16)  # past the header page, which open() checks
        garbled[at : at + 16] = bytes(rng.randrange(256) for _ in range(16))
        cases.append(bytes(garbled))
    keys = [keyed(index)[0] for index in range(ANSWERS)]
    set_aside = 0
    for number, case in enumerate(cases):
        path = tmp_path / f"case-{number}" / "responses.sqlite"
        path.parent.mkdir(mode=0o700)
        path.write_bytes(case)
        path.chmod(0o600)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            cache = ResponseCache(path)
            found = cache.lookup(keys)
            assert all(found[key] == keyed(i)[3] for i, key in enumerate(keys) if key in found)
            len(cache), cache.summary(), cache.size_bytes, repr(cache)
            cache.clear()
            cache.store([keyed(ANSWERS)])  # a fresh or cleared file keeps new answers
            cache.flush()
            assert cache.lookup([keyed(ANSWERS)[0]]) == {keyed(ANSWERS)[0]: keyed(ANSWERS)[3]}
            cache.close()
        for warning in caught:
            moved = re.search(r"moved to (\S+) and a fresh one", str(warning.message))
            if moved:
                assert (path.parent / moved.group(1)).exists()
                set_aside += 1
    assert set_aside >= 10  # damage found when opened, and later
