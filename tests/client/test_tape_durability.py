"""Tapes where users break them: two kernels recording one tape, a disk that fills up or is
read-only while a notebook records, and tape files torn or garbled at every byte."""

from __future__ import annotations

import copy
import gzip
import json
import random
import subprocess
import sys
import textwrap
import warnings

import pytest

import toolkit
from toolkit.client._tape import Tape
from toolkit.workloads._workload import Workload

ADDRESSES = [f"0x{index:040x}" for index in range(1, 41)]

# A kernel on a tape (mode: its 4th argument) that it saves after each answer (as a slow
# notebook's would be, a second apart), calling for the balances of its 3rd argument.
KERNEL_ON_A_TAPE = textwrap.dedent(
    """
    import json, os, signal, sys, warnings
    import toolkit
    from toolkit.client import _tape

    _tape.SAVE_SECONDS = 0
    info, tape, addresses = json.loads(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
    gateway = toolkit.Gateway(
        info["platform_url"], info["api_key"], nodes=info["nodes"], cache=False, tape=tape,
        tape_mode=sys.argv[4],
    )
    eth = gateway.node("ethereum-mainnet")
    """
)
# A kernel recording: every call that raises or warns told.
KERNEL = KERNEL_ON_A_TAPE + textwrap.dedent(
    """
    failed = []
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        for address in addresses:
            try:
                eth.get_balance(address, 100)
            except Exception as error:
                failed.append(repr(error))
        gateway.close()
    print(json.dumps(failed + [str(warning.message) for warning in warned]))
    """
)


def test_two_kernels_recording_one_tape_lose_no_paid_answer(make_gateway, sandbox, tmp_path):
    tape = tmp_path / "notebook.tape.gz"
    command = [sys.executable, "-c", KERNEL, json.dumps(sandbox.info), str(tape)]
    command += [json.dumps(ADDRESSES), "record"]
    kernels = [subprocess.Popen(command, stdout=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [kernel.communicate(timeout=60)[0] for kernel in kernels]
    assert [kernel.returncode for kernel in kernels] == [0, 0]
    assert [json.loads(output) for output in outputs] == [
        [],
        [],
    ]  # every call got its answer, every save its file
    # The tape is whole (the last save wins) and answers every call as the gateway did.
    replay = make_gateway(cache=False, tape=tape, tape_mode="replay").node("ethereum-mainnet")
    live = make_gateway(cache=False).node("ethereum-mainnet")
    assert [replay.get_balance(a, 100) for a in ADDRESSES] == [
        live.get_balance(a, 100) for a in ADDRESSES
    ]
    assert not list(tmp_path.glob(".*.tmp"))


@pytest.mark.parametrize("trouble", ["full", "read-only"])
def test_a_disk_that_cannot_take_the_tape_never_costs_an_answer(
    make_gateway, sandbox, small_disk, trouble
):
    tape = small_disk.path / "notebook.tape.gz"
    live = make_gateway(cache=False).node("ethereum-mainnet")
    expected = [live.get_balance(address, 100) for address in ADDRESSES[:5]]
    small_disk.fill() if trouble == "full" else small_disk.remount("ro")
    gateway = make_gateway(cache=False, tape=tape, tape_mode="record")
    eth = gateway.node("ethereum-mainnet")
    with pytest.warns(RuntimeWarning, match="could not be written") as caught:
        got = [eth.get_balance(address, 100) for address in ADDRESSES[:5]]
    assert got == expected  # each paid answer reached the caller
    assert str(tape) in str(caught[0].message) and "gw.tape.save()" in str(caught[0].message)
    with pytest.raises(toolkit.TapeError, match="could not be written") as raised:
        gateway.close()
    assert str(tape) in str(raised.value) and not tape.exists()
    small_disk.free() if trouble == "full" else small_disk.remount("rw")
    gateway.tape.save()  # what the error says to do: the answers were kept
    replay = make_gateway(cache=False, tape=tape, tape_mode="replay").node("ethereum-mainnet")
    assert [replay.get_balance(address, 100) for address in ADDRESSES[:5]] == expected


def test_a_tape_torn_or_garbled_anywhere_is_a_tape_error_naming_it(make_gateway, tmp_path):
    tape = tmp_path / "notebook.tape.gz"
    gateway = make_gateway(cache=False, tape=tape, tape_mode="record")
    eth = gateway.node("ethereum-mainnet")
    for address in ADDRESSES[:5]:
        eth.get_balance(address, 100)
    gateway.close()
    whole = tape.read_bytes()
    rng = random.Random(7)
    damaged = [whole[:cut] for cut in range(len(whole))]
    for _ in range(300):
        garbled = bytearray(whole)
        garbled[rng.randrange(len(whole))] ^= 1 << rng.randrange(8)
        damaged.append(bytes(garbled))
    errors = 0
    for data in damaged:
        tape.write_bytes(data)
        try:
            Tape(tape, "replay")  # a flipped bit in gzip's header (its time, its OS) is harmless
        except toolkit.TapeError as error:
            assert str(tape) in str(error) and "record it again" in str(error)
            errors += 1
    assert errors >= len(whole)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tape.write_bytes(whole[: len(whole) // 2])
        with pytest.raises(toolkit.TapeError, match="torn or damaged"):
            toolkit.connect(tape=tape, tape_mode="auto")


def test_a_save_killed_mid_write_leaves_nothing_once_the_tape_is_saved_again(
    make_gateway, tmp_path
):
    tape = tmp_path / "notebook.tape.gz"
    ended = subprocess.Popen(["true"])  # a kernel killed while it saved: its pid is free
    ended.wait()
    running = subprocess.Popen(["sleep", "30"])  # another kernel, saving as we speak
    try:
        left = tmp_path / f".{tape.name}.{ended.pid}-0badcafe.tmp"
        busy = tmp_path / f".{tape.name}.{running.pid}-5afe5afe.tmp"
        left.write_bytes(b"half a tape")
        busy.write_bytes(b"half a tape")
        gateway = make_gateway(cache=False, tape=tape, tape_mode="record")
        gateway.node("ethereum-mainnet").get_balance(ADDRESSES[0], 100)
        gateway.close()
        assert not left.exists() and busy.exists()
    finally:
        running.kill()
        running.wait()


# A kernel that records in auto mode (as NODE_GATEWAY_TAPE does) and dies (kill -9) part way.
DYING_KERNEL = KERNEL_ON_A_TAPE + textwrap.dedent(
    """
    for address in addresses:
        eth.get_balance(address, 100)
    os.kill(os.getpid(), signal.SIGKILL)
    """
)


def paid_balances(sandbox) -> int:
    usage = sandbox.metering().get("ethereum-mainnet", {"by_method": {}})
    return usage["by_method"].get("eth_getBalance", {}).get("calls", 0)


def test_a_recording_whose_kernel_died_records_on_without_paying_again(
    make_gateway, sandbox, tmp_path
):
    tape = tmp_path / "notebook.tape.gz"
    live = make_gateway(cache=False).node("ethereum-mainnet")
    expected = [live.get_balance(address, 100) for address in ADDRESSES]
    sandbox.reset_metering()
    command = [sys.executable, "-c", DYING_KERNEL, json.dumps(sandbox.info), str(tape)]
    died = subprocess.run([*command, json.dumps(ADDRESSES[:25]), "auto"], timeout=60)
    assert died.returncode == -9 and paid_balances(sandbox) == 25
    # Another copy of the file replays it meanwhile (a Dask task's, say): the copies of a file
    # share its parse (`_calls_of`), which recording on must leave as it is.
    replayed = Tape(tape, "replay")
    held = copy.deepcopy(replayed._calls)
    # The notebook runs again, as it was (auto mode): what the tape holds costs nothing.
    gateway = make_gateway(cache=False, tape=tape, tape_mode="auto")
    assert gateway.tape.resumed and not gateway.tape.replaying
    eth = gateway.node("ethereum-mainnet")
    work = Workload().grid(eth, "eth_getBalance", ADDRESSES, [100])  # async, one call a request
    assert work.run(progress=False, batch_size=1)["value"].tolist() == expected
    assert paid_balances(sandbox) == len(ADDRESSES)  # the 15 the dead kernel never sent
    assert replayed._calls == held
    gateway.close()
    # Finished now: the next run replays all of it.
    replay = make_gateway(cache=False, tape=tape, tape_mode="auto")
    assert replay.tape.replaying
    eth = replay.node("ethereum-mainnet")
    assert [eth.get_balance(address, 100) for address in ADDRESSES] == expected
    assert paid_balances(sandbox) == len(ADDRESSES)


# Which of the 40 calls a dying kernel answered: the first batch of 8 whole, all of the second
# but one, every other one of the third, none after. Run again in batches of 8, the calls it
# holds come from the tape and only the others are sent: one alone, four as a smaller batch,
# the last two batches whole.
HELD = [*range(8), *(index for index in range(8, 16) if index != 12), *range(16, 24, 2)]


def killed_recording(sandbox, tape) -> None:
    """A tape recorded in auto mode by a kernel killed after the calls `HELD` (it never
    finished), and the sandbox's metering reset after it."""
    held = [ADDRESSES[index] for index in HELD]
    sandbox.reset_metering()
    command = [sys.executable, "-c", DYING_KERNEL, json.dumps(sandbox.info), str(tape)]
    died = subprocess.run([*command, json.dumps(held), "auto"], timeout=60)
    assert died.returncode == -9 and paid_balances(sandbox) == len(HELD)
    sandbox.reset_metering()


def calls_on_tape(tape) -> dict[str, int]:
    """Each eth_getBalance call a tape holds (by its params), with how many answers it keeps."""
    return {
        params: len(record["answers"])
        for (_, _, call, params), record in Tape(tape, "replay")._calls.items()
        if call == "eth_getBalance"
    }


@pytest.mark.parametrize("flavour", ["workload", "batch"])
def test_a_batch_resumed_on_a_killed_recording_sends_only_the_calls_the_tape_lacks(
    make_gateway, sandbox, tmp_path, flavour
):
    tape = tmp_path / "notebook.tape.gz"
    live = make_gateway(cache=False).node("ethereum-mainnet")
    expected = values = [live.get_balance(address, 100) for address in ADDRESSES]
    as_sent = live.batch([("eth_getBalance", address, 100) for address in ADDRESSES])
    killed_recording(sandbox, tape)
    gateway = make_gateway(cache=False, tape=tape, tape_mode="auto")
    assert gateway.tape.resumed
    eth = gateway.node("ethereum-mainnet")
    if flavour == "workload":  # async, in batches of 8, as a bulk run sends them
        work = Workload().grid(eth, "eth_getBalance", ADDRESSES, [100])
        frame = work.run(progress=False, batch_size=8)
        got, rows_ru = frame["value"].tolist(), frame["ru"].tolist()
    else:  # node.batch, blocking, one batch of 8 at a time
        got = []
        for start in range(0, len(ADDRESSES), 8):
            part = ADDRESSES[start : start + 8]
            got += eth.batch([("eth_getBalance", address, 100) for address in part])
        expected = as_sent  # a batch's results are the node's, as it sent them
    assert got == expected
    missing = len(ADDRESSES) - len(HELD)
    usage = sandbox.metering()["ethereum-mainnet"]
    assert paid_balances(sandbox) == missing  # only the calls the tape lacked were sent
    assert usage["requests"] == 4  # one alone, a batch of 4, two batches of 8
    if flavour == "workload":  # each row says what it cost: nothing, for what the tape held
        assert sum(rows_ru) == usage["ru"] and {rows_ru[index] for index in HELD} == {0}
    balances = [e for e in gateway.ledger.entries if e.method == "eth_getBalance"]
    assert gateway.ledger.counted_ru == usage["ru"] == sum(entry.ru for entry in balances)
    assert len(balances) == len(ADDRESSES)  # one entry per call, none for a call sent next
    replayed = [entry for entry in balances if entry.replayed]
    assert len(replayed) == len(HELD) and sum(entry.sent for entry in balances) == missing
    assert all(entry.ru == 0 and entry.recorded_ru > 0 for entry in replayed)
    alone = [entry for entry in balances if entry.note.startswith("sent alone")]
    assert [json.loads(entry.params)[0] for entry in alone] == [ADDRESSES[12]]
    assert "the tape answered the rest" in alone[0].note
    assert {json.loads(entry.params)[0] for entry in replayed} == {
        ADDRESSES[index] for index in HELD
    }
    gateway.close()
    assert sorted(calls_on_tape(tape).values()) == [1] * len(ADDRESSES)  # each once
    replay = make_gateway(cache=False, tape=tape, tape_mode="auto")
    assert replay.tape.replaying
    work = Workload().grid(replay.node("ethereum-mainnet"), "eth_getBalance", ADDRESSES, [100])
    assert work.run(progress=False, batch_size=8)["value"].tolist() == values
    assert paid_balances(sandbox) == missing


def test_a_call_resumed_on_a_killed_recording_is_never_paid_again(make_gateway, sandbox, tmp_path):
    tape = tmp_path / "notebook.tape.gz"
    killed_recording(sandbox, tape)
    gateway = make_gateway(cache=False, tape=tape, tape_mode="auto")
    eth = gateway.node("ethereum-mainnet")
    for address in ADDRESSES[:16]:  # blocking, one call a request: 15 held, 1 not
        eth.get_balance(address, 100)
    assert paid_balances(sandbox) == 1
    assert gateway.ledger.counted_ru == sandbox.metering()["ethereum-mainnet"]["ru"]
    gateway.close()
    assert sorted(calls_on_tape(tape).values()) == [1] * (len(HELD) + 1)


def test_a_batch_of_which_the_tape_holds_one_error_is_not_a_batch_refusal(
    make_gateway, sandbox, tmp_path
):
    tape = tmp_path / "notebook.tape.gz"
    killed_recording(sandbox, tape)
    # The one call of the batch the tape holds was answered with an error, as a node answers
    # a block it lacks: alone in the tape's answer, with the first id, it reads as geth's
    # refusal of a whole batch, which it is not.
    lines = gzip.decompress(tape.read_bytes()).decode().splitlines()
    records = [json.loads(line) for line in lines[1:]]
    for record in records:
        if ADDRESSES[0] in record["params"]:
            record["answers"][0]["item"] = {"error": {"code": -32000, "message": "missing trie"}}
    text = "\n".join([lines[0], *map(json.dumps, records)]) + "\n"
    tape.write_bytes(gzip.compress(text.encode()))
    gateway = make_gateway(cache=False, tape=tape, tape_mode="auto")
    eth = gateway.node("ethereum-mainnet")
    calls = [("eth_getBalance", address, 100) for address in [ADDRESSES[0], *ADDRESSES[24:31]]]
    got = eth.batch(calls, return_exceptions=True)
    assert isinstance(got[0], toolkit.RPCError) and "missing trie" in str(got[0])
    assert not any(isinstance(result, Exception) for result in got[1:])
    assert paid_balances(sandbox) == 7 and eth.accepts_batches
    gateway.close()
    # Replayed, a batch of which the tape holds that one call alone reads it the same way.
    replay = make_gateway(cache=False, tape=tape, tape_mode="replay").node("ethereum-mainnet")
    lacking = ("eth_getBalance", ADDRESSES[39], 7)
    again = replay.batch([calls[0], lacking], return_exceptions=True)
    assert isinstance(again[0], toolkit.RPCError) and isinstance(again[1], toolkit.TapeMiss)
