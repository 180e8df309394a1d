"""The finality-aware response cache: what is kept, what never is, and what a re-run costs."""

from __future__ import annotations

import copy
import json
import os
import pickle
import sqlite3
import stat
import warnings

import httpx
import pytest

import toolkit
from toolkit.client._cache import ResponseCache
from toolkit.sandbox import DEMO
from toolkit.workloads._workload import Workload

ALICE, BOB = DEMO.evm.accounts["alice"], DEMO.evm.accounts["bob"]
DEPTH = toolkit.CHAINS["ethereum"].finality_depth


def metered_ru(sandbox) -> int:
    return sum(usage["ru"] for usage in sandbox.metering().values())


def research(gateway) -> Workload:
    eth, tron = gateway.node("ethereum-mainnet"), gateway.node("tron-mainnet")
    head, tron_head = eth.head(), tron.head()
    work = Workload().grid(eth, "eth_getBalance", [ALICE, BOB], range(head - 1000, head - 900, 10))
    work.each(
        tron,
        "wallet/gettransactioninfobyblocknum",
        range(tron_head - 200, tron_head - 150),
        param="num",
    )
    work.add(tron, "web3_sha3", "0x68656c6c6f")
    return work


def test_a_rerun_costs_nothing_and_the_ledger_shows_the_hits(make_gateway, sandbox, cache_path):
    gateway = make_gateway(cache=cache_path)
    work = research(gateway)
    first = work.run(progress=False)
    assert first["error"].isna().all() and not first["cache_hit"].any()
    spent, metered = gateway.ledger.total_ru, metered_ru(sandbox)
    assert spent == metered
    preview = work.preview()
    assert preview.ru_high == 0 and set(preview.frame["class"]) == {"cached"}
    again = work.run(progress=False)
    assert again["cache_hit"].all() and again["ru"].eq(0).all()
    assert again["result"].tolist() == first["result"].tolist()
    assert again["value"].tolist() == first["value"].tolist()
    assert (gateway.ledger.total_ru, metered_ru(sandbox)) == (spent, metered)  # 0 RU, no request
    hits = [e for e in gateway.ledger.entries if e.cache_hit]
    assert len(hits) == len(work) and all(e.ru == 0 and e.status == "ok" for e in hits)
    # the same answers through the helpers, from a fresh handle on the same file
    other = make_gateway(cache=cache_path)
    block = work.calls[0].call.arguments["block"]
    assert other.node("ethereum-mainnet").get_balance(ALICE, block=block) == first["value"][0]
    assert other.ledger.entries[-1].cache_hit


def test_latest_and_shallow_blocks_are_never_cached_deep_ones_are(make_gateway, cache_path):
    gateway = make_gateway(cache=cache_path)
    eth = gateway.node("ethereum-mainnet")
    head = eth.head()
    shallow, deep = head - DEPTH, head - DEPTH - 1  # final means more than DEPTH blocks behind
    for _ in range(2):
        eth.get_balance(ALICE, block="latest")
        eth.get_balance(ALICE, block=shallow)
        eth.get_balance(ALICE, block=deep)
        eth.get_balance(ALICE, block="earliest")
    assert [e.cache_hit for e in gateway.ledger.entries[-4:]] == [False, False, True, False]
    assert len(gateway.cache) == 1


def test_tron_blocks_are_cached_once_final_by_a_billed_head(make_gateway, cache_path, sandbox):
    gateway = make_gateway(cache=cache_path)
    tron = gateway.node("tron-mainnet")
    depth = toolkit.CHAINS["tron"].finality_depth
    head = tron.head()
    gateway.ledger.clear()
    tron.forget_head()  # forget it: deciding finality must fetch it, billed
    tron.get_transaction_info_by_block_num(head - depth - 1)
    tron.get_transaction_info_by_block_num(head - depth)
    notes = [(e.method, e.ru, "chain head" in e.note) for e in gateway.ledger.entries]
    assert ("wallet/getblockbylatestnum", 1, True) in notes
    assert len(gateway.cache) == 1
    assert tron.get_transaction_info_by_block_num(head - depth - 1) is not None
    assert gateway.ledger.entries[-1].cache_hit


def test_a_tron_answer_is_kept_as_the_body_it_came_in_and_reads_back_the_same(
    make_gateway, cache_path, sandbox
):
    """A TRON REST answer's body is its result's JSON: the cache keeps that text as it came (not
    encoded again), and a new handle reads back the same result."""
    gateway = make_gateway(cache=cache_path)
    tron = gateway.node("tron-mainnet")
    number = tron.head() - toolkit.CHAINS["tron"].finality_depth - 5
    first = tron.get_transaction_info_by_block_num(number)
    gateway.cache.flush()
    url = sandbox.info["nodes"]["tron-mainnet"] + "/wallet/gettransactioninfobyblocknum"
    body = httpx.post(url, json={"num": number}).content.decode()
    with sqlite3.connect(cache_path) as db:
        stored = db.execute("SELECT result FROM responses").fetchall()
    assert stored == [(body,)] and first
    other = make_gateway(cache=cache_path).node("tron-mainnet")
    assert other.get_transaction_info_by_block_num(number) == first
    assert other.ledger.entries[-1].cache_hit


def test_an_answer_stored_with_its_text_reads_back_as_that_text_decodes(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    spaced = '{ "fee" : 123456789012345678901234567890,\n "log": [ ] }'
    cache.store(
        [
            (b"a" * 32, "node", "m", {"fee": 123456789012345678901234567890, "log": []}, spaced),
            (b"b" * 32, "node", "m", {"x": 1}, None),  # no text: the cache encodes the result
        ]
    )
    for flushed in (False, True):
        if flushed:
            cache.flush()
        found = cache.lookup([b"a" * 32, b"b" * 32])
        assert found == {
            b"a" * 32: {"fee": 123456789012345678901234567890, "log": []},
            b"b" * 32: {"x": 1},
        }
    reopened = ResponseCache(tmp_path / "c.sqlite")
    assert reopened.answers([b"a" * 32])[0]["fee"] == 123456789012345678901234567890
    cache.close()
    reopened.close()


def test_asset_lookups_by_id_are_not_cached(make_gateway, cache_path):
    gateway = make_gateway(cache=cache_path)
    tron = gateway.node("tron-mainnet")
    tron.get_asset_issue_by_id("1000001")
    tron.get_asset_issue_by_id("1000001")
    assert len(gateway.cache) == 0 and not gateway.ledger.entries[-1].cache_hit


def test_the_file_holds_no_access_key(make_gateway, sandbox, cache_path):
    gateway = make_gateway(cache=cache_path)
    research(gateway).run(progress=False)
    gateway.cache.close()
    stored = b"".join(p.read_bytes() for p in cache_path.parent.glob(cache_path.name + "*"))
    assert len(stored) > 10_000
    for url in sandbox.info["nodes"].values():
        key = url.rsplit("/", 1)[-1]
        assert key.encode() not in stored and key.upper().encode() not in stored
        assert bytes.fromhex(key) not in stored
    assert sandbox.info["api_key"].encode() not in stored


def test_a_final_answer_that_quotes_a_key_is_not_cached(loopback_server, cache_path):
    """A node may quote the request's path (its key) inside an answer worth caching: the file
    never holds the key, and the answer is not kept scrubbed either (it would be served as the
    node's answer): the next call asks the node again."""
    key = "EchoedCacheKey0a1b2c3d4e5f"

    def answer(request):
        call = json.loads(request[3])
        block = {"number": "0x1", "transactions": [], "extraNote": request[1]}
        result = "0x100000" if call["method"] == "eth_blockNumber" else block
        body = {"jsonrpc": "2.0", "id": call["id"], "result": result}
        return 200, {"Content-Type": "application/json"}, json.dumps(body).encode()

    server = loopback_server(answer)
    cache = ResponseCache(cache_path)
    eth = toolkit.node(f"{server.url}/{key}", chain="ethereum", cache=cache)
    for _ in range(2):
        assert eth.call("eth_getBlockByNumber", "0x1", False)["extraNote"] == f"/{key}"
    assert len(cache) == 0 and [e.cache_hit for e in eth.ledger.entries][-1] is False
    cache.close()
    stored = b"".join(p.read_bytes() for p in cache_path.parent.glob(cache_path.name + "*"))
    assert key.encode() not in stored
    eth.close()


def test_clear_and_disable(make_gateway, sandbox, cache_path):
    gateway = make_gateway(cache=cache_path)
    work = research(gateway)
    work.run(progress=False)
    held = len(gateway.cache)
    assert held > 0
    assert gateway.cache.clear(node="tron-mainnet") == held - 20  # the 20 EVM balances stay
    assert gateway.cache.clear() == 20 and len(gateway.cache) == 0
    spent = gateway.ledger.total_ru
    gateway.set_cache(None)
    assert gateway.node("ethereum-mainnet").cache is None
    frame = work.run(progress=False)
    assert not frame["cache_hit"].any() and gateway.ledger.total_ru > spent


def test_the_sandbox_is_not_cached_by_default_and_the_variable_can_turn_it_on(
    make_gateway, monkeypatch, tmp_path
):
    assert make_gateway().cache is None
    monkeypatch.setenv("NODE_GATEWAY_CACHE", str(tmp_path / "chosen.sqlite"))
    assert make_gateway().cache.path == tmp_path / "chosen.sqlite"
    monkeypatch.setenv("NODE_GATEWAY_CACHE", "off")
    assert make_gateway(cache="auto").cache is None


def _disk_bytes(path) -> int:
    """What the cache takes on disk: the database file and its write-ahead log."""
    wal = path.with_name(path.name + "-wal")
    return path.stat().st_size + (wal.stat().st_size if wal.exists() else 0)


def test_the_size_is_bounded_by_evicting_the_oldest(tmp_path):
    path = tmp_path / "small.sqlite"
    cache = ResponseCache(path, max_bytes=200_000)
    answers = [(i.to_bytes(32, "big"), "node", "m", "x" * 2000) for i in range(300)]
    for start in range(0, len(answers), 20):
        cache.store(answers[start : start + 20])
        cache.flush()
        assert cache.size_bytes <= 200_000 and _disk_bytes(path) <= 200_000
    held = cache.contains(key for key, *_ in answers)
    assert answers[-1][0] in held and answers[0][0] not in held
    assert 10 <= len(held) < 60  # a 2 kB answer takes a page and more: pages are what count
    size = cache.size_bytes
    cache.close()
    reopened = ResponseCache(path, max_bytes=200_000)
    assert reopened.size_bytes == size and len(reopened) == len(held)
    reopened.close()


def test_large_answers_count_by_the_pages_they_take_not_their_length(tmp_path):
    """Large answers live in overflow pages, and the log beside the file grows too: the bound
    is on both (they reached about 12 times the bound when only answer lengths counted)."""
    path = tmp_path / "large.sqlite"
    cache = ResponseCache(path, max_bytes=1_000_000)
    for i in range(60):
        cache.store([(i.to_bytes(32, "big"), "node", "m", ["y" * 100_000, i])])
        cache.flush()
        assert _disk_bytes(path) <= 1_000_000, f"after {i + 1} answers"
    assert 5 <= len(cache) < 10
    cache.close()


# --- fail-safe: the cache's trouble never costs an answer ----------------------------------------


class FailingWrites:
    """A cache database whose writes fail as on a full disk (reads still work)."""

    def __init__(self, db):
        self.db = db

    def __getattr__(self, name):
        return getattr(self.db, name)

    def __enter__(self):
        return self.db.__enter__()

    def __exit__(self, *exc):
        return self.db.__exit__(*exc)

    def executemany(self, *args):
        import sqlite3

        raise sqlite3.OperationalError("database or disk is full")


def test_a_damaged_file_is_moved_aside_and_a_fresh_one_used(make_gateway, cache_path):
    cache_path.write_bytes(b"this is not a database, it is a note from a text editor\n" * 100)
    with pytest.warns(RuntimeWarning, match="damaged"):
        gateway = make_gateway(cache=cache_path)  # connect() must not raise sqlite3 errors
    assert gateway.cache is not None and gateway.cache.disabled is None
    aside = list(cache_path.parent.glob(cache_path.name + ".damaged-*"))
    assert len(aside) == 1 and aside[0].read_bytes().startswith(b"this is not a database")
    frame = research(gateway).run(progress=False)
    assert frame["error"].isna().all() and len(gateway.cache) > 0


def test_a_file_damaged_inside_is_moved_aside_too(make_gateway, cache_path):
    ResponseCache(cache_path).close()
    data = bytearray(cache_path.read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)  # the schema page's body
    cache_path.write_bytes(bytes(data))
    with pytest.warns(RuntimeWarning, match="damaged"):
        gateway = make_gateway(cache=cache_path)
    assert gateway.cache is not None and len(gateway.cache) == 0


def test_a_read_only_file_means_no_cache_with_a_warning(make_gateway, cache_path, monkeypatch):
    import sqlite3

    from toolkit.client import _cache_file

    ResponseCache(cache_path).close()
    # Tests may run as root, for whom file modes do not forbid writing: open it read-only.
    read_only = lambda path: sqlite3.connect(f"file:{path}?mode=ro", uri=True)  # noqa: E731
    monkeypatch.setattr(_cache_file, "connect", read_only)
    with pytest.warns(RuntimeWarning, match="cannot be used"):
        gateway = make_gateway(cache=cache_path)
    assert gateway.cache is None
    with pytest.warns(RuntimeWarning, match="cannot be used"):
        direct = ResponseCache(cache_path)
    assert direct.disabled and "readonly" in direct.disabled
    assert len(direct) == 0 and direct.lookup([b"k" * 32]) == {}
    direct.store([(b"k" * 32, "node", "m", 1)])
    direct.close()
    frame = research(gateway).run(progress=False)
    assert frame["error"].isna().all()


def test_a_full_disk_under_a_folder_named_malformed_is_no_damage(make_gateway, tmp_path):
    """An OSError's text carries the path: a full disk under a folder whose name says
    "malformed" or "decode" was read as a damaged file, and the healthy file, with every answer
    paid for, was moved aside. It is a warning, and the file stays in use."""
    import errno

    folder = tmp_path / "malformed_decode_runs"
    folder.mkdir()
    path = folder / "responses.sqlite"

    class FullDisk(FailingWrites):
        def executemany(self, *args):
            raise OSError(errno.ENOSPC, "No space left on device", str(path))

    gateway = make_gateway(cache=path)
    eth = gateway.node("ethereum-mainnet")
    block = eth.head() - 1000
    eth.get_balance(ALICE, block)
    gateway.cache.flush()
    gateway.cache._file.db = FullDisk(gateway.cache._file.db)
    with pytest.warns(RuntimeWarning, match="could not store answers"):
        eth.get_balance(ALICE, block - 1)
        gateway.cache.flush()
    gateway.cache._file.db = gateway.cache._file.db.db
    assert not list(folder.glob("responses.sqlite.damaged-*"))
    gateway.cache._recent.forget()  # as in a new process: only the file holds the answer
    assert eth.in_cache([eth.prepare("eth_getBalance", ALICE, block)]) == [True]


def test_a_full_disk_loses_no_paid_answer_of_a_bulk_run(make_gateway, cache_path, sandbox):
    gateway = make_gateway(cache=cache_path)
    gateway.cache._file.db = FailingWrites(gateway.cache._file.db)
    work = research(gateway)
    with pytest.warns(RuntimeWarning, match="could not store answers"):
        frame = work.run(progress=False)
    assert len(frame) == len(work) and frame["error"].isna().all()
    assert frame["result"].notna().all() and frame["ru"].sum() > 0
    eth = gateway.node("ethereum-mainnet")
    head = eth.head()
    with pytest.warns(RuntimeWarning, match="could not store answers"):
        assert eth.get_balance(ALICE, head - 1000) == frame["value"].iloc[0]
        gateway.cache.flush()
    gateway.cache._file.db = gateway.cache._file.db.db


def test_a_failed_read_is_a_miss(make_gateway, cache_path):
    import sqlite3

    gateway = make_gateway(cache=cache_path)
    eth = gateway.node("ethereum-mainnet")
    block = eth.head() - 1000
    first = eth.get_balance(ALICE, block)
    gateway.cache.flush()

    class FailingReads(FailingWrites):
        def execute(self, *args):  # (a damaged file is another case: test_cache_durability.py)
            raise sqlite3.OperationalError("database is locked")

    gateway.cache._recent.forget()  # as in a new process: only the file holds the answer
    gateway.cache._file.db = FailingReads(gateway.cache._file.db)
    with pytest.warns(RuntimeWarning, match="could not be read"):
        assert eth.get_balance(ALICE, block) == first
    gateway.cache._file.db = gateway.cache._file.db.db


@pytest.mark.parametrize("block", ["latest", "pending", "safe", "finalized", "earliest"])
def test_tags_are_never_cacheable(make_gateway, cache_path, block):
    eth = make_gateway(cache=cache_path).node("ethereum-mainnet")
    assert eth.in_cache([eth.prepare("eth_getBalance", ALICE, block)]) == [False]
    assert not eth.needs_head(eth.prepare("eth_getBalance", ALICE, block), for_cache=True)


def test_cache_keys_are_the_json_of_name_method_and_params_with_sorted_keys(make_gateway):
    """`key_text` takes a short cut for params that are a list of scalars; the keys are the
    text of the params in their canonical form (`key_params`), which for params spelt that way
    (an address in lower case) is the text they always were, so the answers of files written
    before are still found."""
    import json

    from toolkit.client._cache_policy import key_text
    from toolkit.client._identity import call_key

    def cache_text(bound):
        return key_text(call_key(None, "", bound), bound.rpc_method)

    gateway = make_gateway(cache=False)
    eth, tron = gateway.node("ethereum-mainnet"), gateway.node("tron-mainnet")
    calls = [
        eth.prepare("eth_getBalance", ALICE, 12),
        eth.prepare("eth_getBalance", ALICE, "latest"),
        eth.prepare("eth_getLogs", {"fromBlock": 1, "toBlock": 2, "address": ALICE}),
        eth.prepare("eth_chainId"),
        tron.prepare("web3_sha3", "0x68656c6c6f"),
        tron.prepare("wallet/gettransactioninfobyblocknum", num=7),
    ]
    for call in calls:
        bound = call.bound
        text = json.dumps(
            [bound.method.name, bound.rpc_method, bound.key_params],
            sort_keys=True,
            separators=(",", ":"),
        )
        assert cache_text(bound) == text
    lower = eth.prepare("eth_getBalance", ALICE.lower(), 12).bound
    before = json.dumps(
        ["eth_getBalance", "eth_getBalance", lower.wire_params], separators=(",", ":")
    )
    assert cache_text(lower) == before == cache_text(calls[0].bound)


def test_a_prepared_calls_params_are_a_copy(make_gateway):
    """Calls of the same arguments share one validated call: changing the params a caller was
    shown must not change the calls."""
    eth = make_gateway(cache=False).node("ethereum-mainnet")
    call = eth.prepare("eth_getBalance", ALICE, 12)
    shown = call.params
    shown.append("oops")
    assert "oops" not in call.params
    assert "oops" not in eth.prepare("eth_getBalance", ALICE, 12).bound.wire_json


# --- the answers kept in memory in front of the file ----------------------------------------------


class CountingReads(FailingWrites):
    """A cache database that counts the queries sent to it (writes fail: none are expected)."""

    def __init__(self, db):
        super().__init__(db)
        self.queries = 0

    def execute(self, *args):
        self.queries += 1
        return self.db.execute(*args)


def test_a_rerun_in_the_same_process_reads_nothing_from_disk(make_gateway, cache_path, sandbox):
    gateway = make_gateway(cache=cache_path)
    work = research(gateway)
    first = work.run(progress=False)
    gateway.cache.flush()
    gateway.cache._file.db = counting = CountingReads(gateway.cache._file.db)
    try:
        again = work.run(progress=False)
        assert counting.queries == 0
    finally:
        gateway.cache._file.db = counting.db
    assert again["cache_hit"].all() and again["result"].tolist() == first["result"].tolist()
    # A new handle on the same file has nothing in memory: it reads the answers from disk.
    other = make_gateway(cache=cache_path)
    other.cache._file.db = counting = CountingReads(other.cache._file.db)
    try:
        assert research(other).run(progress=False)["cache_hit"].all()
        assert counting.queries > 0
    finally:
        other.cache._file.db = counting.db


def test_each_reader_gets_its_own_result_objects(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    key = b"k" * 32
    cache.store([(key, "node", "m", {"log": [1, 2]})])
    for flushed in (False, True):  # waiting to be written, then written and kept in memory
        if flushed:
            cache.flush()
        mine = cache.lookup([key])[key]
        mine["log"].append(3)
        assert cache.lookup([key])[key] == {"log": [1, 2]}
    cache.close()


def test_memory_is_bounded_and_the_oldest_answers_are_read_from_disk(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite", max_bytes=8 * 50_000)  # 50 kB in memory
    answers = [(i.to_bytes(32, "big"), "node", "m", "x" * 300) for i in range(300)]
    cache.store(answers)
    cache.flush()
    assert len(cache) == 300  # all on disk (short answers: nothing evicted)
    assert cache._recent.bytes <= cache.memory_bytes == 50_000
    in_memory, on_disk = cache._in_memory([key for key, *_ in answers])
    assert answers[-1][0] in in_memory and answers[0][0] in on_disk  # the newest are kept
    assert len(cache.lookup(key for key, *_ in answers)) == 300
    cache.close()


def test_clear_and_eviction_empty_the_memory_too(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite", max_bytes=200_000)
    first = [(i.to_bytes(32, "big"), "node", "m", "x" * 2000) for i in range(10)]
    cache.store(first)
    cache.flush()
    assert cache.contains(key for key, *_ in first) == {key for key, *_ in first}
    cache.clear()
    assert cache.lookup(key for key, *_ in first) == {}
    cache.store(first)
    cache.flush()
    for start in range(100, 400, 20):  # enough to evict the first ten from the file
        cache.store(
            (i.to_bytes(32, "big"), "node", "m", "x" * 2000) for i in range(start, start + 20)
        )
        cache.flush()
    assert not cache.contains(key for key, *_ in first)
    assert cache.lookup(key for key, *_ in first) == {}
    cache.close()


def test_receipts_say_not_sent_then_what_each_send_cost_then_cache_hit(make_gateway, cache_path):
    """Calls not sent yet, and calls the cache answered, share one receipt each (a bulk run
    makes none per call for them); it never changes, and every send gives its call its own."""
    from toolkit.client import CACHE_HIT, NOT_SENT, Receipt

    gateway = make_gateway(cache=cache_path)
    eth = gateway.node("ethereum-mainnet")
    block = eth.head() - 1000
    first, second = (eth.prepare("eth_getBalance", ALICE, block) for _ in range(2))
    assert first.receipt is second.receipt is NOT_SENT and NOT_SENT.ru == 0
    # copied (a notebook's deepcopy) or pickled, a shared receipt stays the one there is
    assert copy.deepcopy(first).receipt is pickle.loads(pickle.dumps(NOT_SENT)) is NOT_SENT
    with pytest.raises(AttributeError, match="shared receipt never changes"):
        first.receipt.ru += 1
    eth.send(first)
    sent = first.receipt
    assert type(sent) is Receipt and sent.ru > 0 and sent.status == "ok" and not sent.cache_hit
    eth.send(second)  # answered from the cache now
    assert second.receipt is CACHE_HIT and CACHE_HIT.cache_hit and CACHE_HIT.ru == 0
    with pytest.raises(AttributeError):
        second.receipt.status = "cancelled"
    gateway.cache.clear()
    eth.send(second)  # sent again: a receipt of its own, the shared one unchanged
    assert type(second.receipt) is Receipt and second.receipt.ru == sent.ru
    assert (CACHE_HIT.ru, CACHE_HIT.status, NOT_SENT.cache_hit) == (0, "ok", False)
    # a bulk run's rows: the cache's answers at 0 RU, the calls sent at what they cost
    work = Workload().grid(eth, "eth_getBalance", [ALICE, BOB], [block])
    frame = work.run(progress=False)
    assert frame["cache_hit"].tolist() == [True, False] and frame["ru"][0] == 0 < frame["ru"][1]
    assert work.calls[0].call.receipt is CACHE_HIT and work.calls[1].call.receipt.ru > 0


# --- what the file says is checked ---------------------------------------------------------------


def _damage(cache_path, method: str, text: str) -> int:
    with sqlite3.connect(cache_path) as db:
        return db.execute(
            "UPDATE responses SET result = ? WHERE method = ?", (text, method)
        ).rowcount


@pytest.mark.parametrize("damage", ['"0xzz"', '{"balance": "0x1"}', "[1, 2]", "0xzz", '"0x1'])
def test_a_row_damaged_into_the_wrong_kind_is_a_miss_deleted_with_one_warning(
    make_gateway, cache_path, sandbox, damage
):
    gateway = make_gateway(cache=cache_path)
    eth = gateway.node("ethereum-mainnet")
    block = eth.head() - 1000
    paid = eth.get_balance(ALICE, block)
    gateway.cache.close()
    assert _damage(cache_path, "eth_getBalance", damage) == 1
    other = make_gateway(cache=cache_path)  # a new handle: only the file holds the answer
    node = other.node("ethereum-mainnet")
    spent = metered_ru(sandbox)
    with pytest.warns(RuntimeWarning, match=r"held 1 damaged answer\(s\) \(eth_getBalance\)"):
        assert node.get_balance(ALICE, block) == paid  # asked again, not a ValueError
    assert metered_ru(sandbox) > spent and not other.ledger.entries[-1].cache_hit
    other.cache.flush()
    with sqlite3.connect(cache_path) as db:  # the damaged row is gone, the fresh answer stored
        assert db.execute("SELECT result FROM responses").fetchall() == [(json.dumps(hex(paid)),)]
    third = make_gateway(cache=cache_path).node("ethereum-mainnet")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # one warning: the next read is a plain hit
        assert third.get_balance(ALICE, block) == paid


def test_a_bulk_rerun_asks_again_only_for_the_damaged_rows(make_gateway, cache_path):
    gateway = make_gateway(cache=cache_path)
    work = research(gateway)
    first = work.run(progress=False)
    gateway.cache.close()
    damaged = _damage(cache_path, "wallet/gettransactioninfobyblocknum", '"not a list"')
    assert damaged > 1
    other = make_gateway(cache=cache_path)
    with pytest.warns(RuntimeWarning, match="damaged answer") as warned:
        again = research(other).run(progress=False)
    assert len([w for w in warned if "damaged" in str(w.message)]) == 1
    assert again["error"].isna().all()
    assert (~again["cache_hit"]).sum() == damaged
    assert again["result"].tolist() == first["result"].tolist()


def test_new_cache_files_are_readable_by_you_alone(tmp_path):
    old = os.umask(0o002)  # a common umask: group-writable files by default
    try:
        cache = ResponseCache(tmp_path / "fresh" / "c.sqlite")
        cache.store([(b"k" * 32, "node", "m", 1)])
        cache.flush()
        for name in ("c.sqlite", "c.sqlite-wal"):
            assert stat.S_IMODE((tmp_path / "fresh" / name).stat().st_mode) == 0o600
        assert stat.S_IMODE((tmp_path / "fresh").stat().st_mode) == 0o700
        cache.close()
    finally:
        os.umask(old)


def test_a_cache_others_may_write_is_moved_aside_for_a_private_one(tmp_path):
    path = tmp_path / "c.sqlite"
    planted = ResponseCache(path)
    planted.store([(b"k" * 32, "node", "m", "a planted answer")])
    planted.close()
    path.chmod(0o666)
    with pytest.warns(RuntimeWarning, match=r"writable by group or others \(mode 0o666\)"):
        cache = ResponseCache(path)
    assert cache.disabled is None and cache.lookup([b"k" * 32]) == {}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(list(tmp_path.glob("c.sqlite.untrusted-*"))) == 1
    cache.close()


@pytest.mark.skipif(not hasattr(os, "chown") or os.geteuid() != 0, reason="needs root to chown")
def test_a_cache_another_user_owns_is_left_alone_for_your_private_one(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home-cache"))
    shared = tmp_path / "shared.sqlite"
    ResponseCache(shared).close()
    os.chown(shared, 65534, 65534)
    before = shared.read_bytes()
    with pytest.warns(RuntimeWarning, match="belongs to user id 65534.*private cache") as warned:
        cache = ResponseCache(shared)
    assert str(tmp_path / "home-cache") in str(warned[0].message)
    assert cache.path == tmp_path / "home-cache" / "node-gateway-toolkit" / "responses.sqlite"
    assert cache.disabled is None and shared.read_bytes() == before  # not opened, not moved
    cache.close()
    # when the private cache is that very file, there is none to use instead
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "other"))
    default = tmp_path / "other" / "node-gateway-toolkit" / "responses.sqlite"
    default.parent.mkdir(parents=True)
    shared.rename(default)
    with pytest.warns(RuntimeWarning, match="Calls run without a cache"):
        assert toolkit.client._cache.resolve_cache(True, remote=True) is None


@pytest.mark.parametrize(
    "planted",
    [
        "NaN",  # Python's decoder takes these, JSON has no such numbers
        '{"balance": Infinity}',
        "1e400",  # beyond a float: read as infinity
        "[" * 100_000 + "]" * 100_000,  # would exhaust the stack
        b'"0x1"',  # bytes where the JSON text belongs (a BLOB)
    ],
    ids=["nan", "infinity", "1e400", "deep", "blob"],
)
def test_a_row_planted_with_what_json_cannot_hold_is_a_miss_deleted_with_one_warning(
    tmp_path, planted
):
    """Rows of a method whose answers may be anything ("any": no kind check after decoding),
    and one of a balance: neither is served, nor raises, and each is asked again."""
    path = tmp_path / "c.sqlite"
    cache = ResponseCache(path)
    cache.store([(b"a" * 32, "node", "api/v2/jsonRPC", {"ok": 1}), (b"b" * 32, "n", "m", "x")])
    cache.close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE responses SET result = ? WHERE key = ?", (planted, b"a" * 32))
    cache = ResponseCache(path)
    with pytest.warns(RuntimeWarning, match=r"held 1 damaged answer\(s\) \(api/v2/jsonRPC\)"):
        assert cache.lookup([b"a" * 32, b"b" * 32]) == {b"b" * 32: "x"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # deleted: the next read is a plain miss
        assert cache.lookup([b"a" * 32]) == {}
    cache.close()


def test_a_row_whose_method_is_damaged_too_is_named_as_read_not_a_type_error(tmp_path):
    path = tmp_path / "c.sqlite"
    cache = ResponseCache(path)
    cache.store([(b"a" * 32, "node", "eth_getBalance", "0x1")])
    cache.close()
    with sqlite3.connect(path) as db:  # the method a BLOB: no text to join into the warning
        db.execute("UPDATE responses SET method = ?", (b"eth_getBalance",))
    cache = ResponseCache(path)
    with pytest.warns(RuntimeWarning, match=r"held 1 damaged answer\(s\) \(b'eth_getBalance'\)"):
        assert cache.lookup([b"a" * 32]) == {}
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT count(*) FROM responses").fetchone() == (0,)
    cache.close()


def test_a_damaged_row_another_kernel_stored_again_meanwhile_is_not_deleted(tmp_path, monkeypatch):
    """Between reading a damaged row and deleting it, another kernel may store the call's
    answer again (it asked the node for it): that answer is good and stays."""
    path = tmp_path / "c.sqlite"
    key = b"k" * 32
    cache = ResponseCache(path)
    cache.store([(key, "node", "eth_getBalance", "0x1")])
    cache.close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE responses SET result = '\"0xzz\"'")
    mine, theirs = ResponseCache(path), ResponseCache(path)
    judge = toolkit.client._cache._stored_answer

    def judged_while_the_other_kernel_stores_it(method, text):
        verdict = judge(method, text)
        theirs.store([(key, "node", "eth_getBalance", "0x1")])
        theirs.flush()
        return verdict

    monkeypatch.setattr(
        toolkit.client._cache, "_stored_answer", judged_while_the_other_kernel_stores_it
    )
    with pytest.warns(RuntimeWarning, match=r"held 1 damaged answer\(s\)"):
        assert mine.lookup([key]) == {}  # what it read was damaged
    monkeypatch.undo()
    mine._recent.forget()
    assert mine.lookup([key]) == {key: "0x1"}  # the other kernel's answer, not deleted
    mine.close()
    theirs.close()


def test_rows_whose_texts_join_into_other_answers_are_not_served(tmp_path):
    path = tmp_path / "c.sqlite"
    cache = ResponseCache(path)
    keys = [bytes([n]) * 32 for n in range(3)]
    cache.store([(key, "node", "api/v2/jsonRPC", n) for n, key in enumerate(keys)])
    cache.close()
    with sqlite3.connect(path) as db:  # '[1', '2]', '3,4': joined, they read as [[1,2],3,4]
        for key, text in zip(keys, ["[1", "2]", "3,4"], strict=True):
            db.execute("UPDATE responses SET result = ? WHERE key = ?", (text, key))
    cache = ResponseCache(path)
    with pytest.warns(RuntimeWarning, match=r"held 3 damaged answer\(s\)"):
        assert cache.lookup(keys) == {}
    cache.close()


def test_a_planted_size_neither_breaks_eviction_nor_the_summary(tmp_path):
    path = tmp_path / "c.sqlite"
    cache = ResponseCache(path, max_bytes=200_000)
    cache.store([(b"p" * 32, "node", "m", "x")])
    cache.close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE responses SET size = 'large', stored_at = 0")
    cache = ResponseCache(path, max_bytes=200_000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for start in range(0, 300, 20):
            cache.store(
                [(i.to_bytes(32, "big"), "node", "m", "x" * 2000) for i in range(start, start + 20)]
            )
            cache.flush()
        assert cache.lookup([b"p" * 32]) == {}  # evicted as the oldest
        assert set(cache.summary()) == {"node m"}
    cache.close()


@pytest.mark.skipif(not hasattr(os, "chown") or os.geteuid() != 0, reason="needs root to chown")
def test_a_damaged_cache_swapped_for_a_link_to_another_users_file_is_not_reopened(tmp_path):
    path = tmp_path / "mine" / "c.sqlite"
    cache = ResponseCache(path)
    cache.store([(b"k" * 32, "node", "eth_getBalance", "0x1")])
    cache.flush()
    cache._recent.forget()  # the next lookup reads the file
    theirs = tmp_path / "theirs.sqlite"
    planted = ResponseCache(theirs)
    planted.store([(b"k" * 32, "node", "eth_getBalance", "0x5f5e100")])
    planted.close()
    os.chown(theirs, 65534, 65534)
    for part in path.parent.iterdir():  # damaged under the open connection (its log too)...
        with part.open("r+b") as file:
            file.write(b"garbage" * 1000)
    path.unlink()  # ... and swapped for a link to their file
    path.symlink_to(theirs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = [cache.lookup([b"k" * 32]) for _ in range(2)]  # the planted answer: never
    assert found == [{}, {}]
    assert any("belongs to user id 65534" in str(w.message) for w in caught)
    assert cache.disabled and "65534" in cache.disabled
    cache.close()
