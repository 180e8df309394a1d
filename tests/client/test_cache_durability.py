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
from toolkit.client._cache_file import CacheFile

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


def test_two_kernels_opening_one_damaged_cache_both_keep_their_answers(tmp_path, monkeypatch):
    path = tmp_path / "responses.sqlite"
    path.write_bytes(b"a note from a text editor, not a database\n" * 100)
    path.chmod(0o600)
    from toolkit.client import _cache_file

    damaged, others = _cache_file.damaged, []

    def another_kernel_moves_it_first(error):
        # Both found the file damaged; the other kernel moves it aside and makes a fresh one.
        if not others:
            others.append(None)
            others[0] = ResponseCache(path)
        return damaged(error)

    monkeypatch.setattr(_cache_file, "damaged", another_kernel_moves_it_first)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mine = ResponseCache(path)
    monkeypatch.setattr(_cache_file, "damaged", damaged)
    (other,) = others
    assert mine.disabled is None and other.disabled is None
    for number, cache in enumerate((mine, other)):
        cache.store([keyed(number)])
        cache.flush()
    mine.close(), other.close()
    # One file holds both kernels' answers; the damaged one is aside, whole.
    both = ResponseCache(path)
    assert both.lookup([keyed(0)[0], keyed(1)[0]]) == {keyed(0)[0]: "0x0", keyed(1)[0]: hex(10**15)}
    both.close()
    (aside,) = path.parent.glob("responses.sqlite.damaged-*")
    assert aside.read_bytes().startswith(b"a note from a text editor")


def test_a_damaged_cache_another_kernel_moves_aside_meanwhile_is_replaced_all_the_same(
    tmp_path, monkeypatch
):
    path = tmp_path / "responses.sqlite"
    path.write_bytes(b"a note from a text editor, not a database\n" * 100)
    path.chmod(0o600)
    move_aside = CacheFile._move_aside

    def another_kernel_moves_it_just_before(cache, why):
        path.replace(path.with_name("responses.sqlite.damaged-by-the-other-kernel"))
        return move_aside(cache, why)

    monkeypatch.setattr(CacheFile, "_move_aside", another_kernel_moves_it_just_before)
    cache = ResponseCache(path)
    assert cache.disabled is None  # it used a fresh file, not none
    cache.store([keyed(0)])
    cache.flush()
    assert len(cache) == 1
    cache.close()
