"""Contract reads by signature (`eth.read`, `Workload.reads`, `frames.evm_reads`) against the
sandbox's token over loopback HTTP: encoded and decoded by the toolkit's ABI codec, priced as
eth_call, bad input refused before sending."""

from __future__ import annotations

import pytest

import toolkit
from toolkit import frames
from toolkit.sandbox import DEMO

TOKEN = DEMO.evm.token
HOLDERS = list(DEMO.evm.accounts.values())[:3]


def test_read_decodes_numbers_and_text_from_the_token(gateway, sandbox):
    eth = gateway.node("ethereum-mainnet")
    assert eth.read(TOKEN, "decimals()(uint8)") == DEMO.evm.token_decimals
    assert eth.read(TOKEN, "symbol()(string)") == DEMO.evm.token_symbol
    head = eth.head()
    balance = eth.read(TOKEN, "balanceOf(address)(uint256)", HOLDERS[0], block=head - 1000)
    raw = eth.call_contract(
        TOKEN,
        "0x70a08231" + "00" * 12 + HOLDERS[0][2:].lower(),
        block=head - 1000,
    )
    assert isinstance(balance, int) and balance == int(raw, 16) > 0


def test_read_is_priced_like_eth_call_archive_by_block(gateway):
    eth = gateway.node("ethereum-mainnet")
    head = eth.head()
    before = gateway.ledger.total_ru
    fragment = {
        "type": "function",
        "name": "balanceOf",
        "inputs": [{"name": "who", "type": "address"}],
        "outputs": [{"name": "", "type": "uint256"}],
    }
    eth.read(TOKEN, fragment, HOLDERS[0], block=head - 1000)  # archive: 2 RU
    eth.read(TOKEN, fragment, HOLDERS[0])  # latest: 1 RU
    assert gateway.ledger.total_ru - before == 3
    assert gateway.ledger.frame["method"].iloc[-1] == "eth_call"


@pytest.mark.parametrize(
    ("signature", "args", "param"),
    [
        ("balanceOf(adress)(uint256)", ("0x" + "11" * 20,), "signature"),
        ("balanceOf(address)(uint256)", (), "args"),
        ("balanceOf(address)(uint256)", ("0x" + "11" * 20, 5), "args"),
        ("balanceOf(address)(uint256)", (12,), "args"),
    ],
)
def test_bad_input_is_a_validation_error_before_sending(
    gateway, server_requests, signature, args, param
):
    eth = gateway.node("ethereum-mainnet")
    with pytest.raises(toolkit.ValidationError) as refused:
        eth.read(TOKEN, signature, *args)
    assert refused.value.param == param
    assert server_requests() == 0 and gateway.ledger.total_ru == 0


def test_return_data_that_does_not_decode_is_malformed(gateway):
    eth = gateway.node("ethereum-mainnet")
    # name() answers a string: its first word (the offset, 32) is no bool
    with pytest.raises(toolkit.MalformedResponse, match="does not decode"):
        eth.read(TOKEN, "name()(bool)")


def test_read_on_the_async_node(gateway):
    import asyncio

    eth = gateway.node("ethereum-mainnet")
    name = asyncio.run(eth.aio.read(TOKEN, "name()(string)"))
    assert name == DEMO.evm.token_name


def test_a_workload_of_reads_decodes_into_typed_columns(gateway):
    eth = gateway.node("ethereum-mainnet")
    head = eth.head()
    blocks = [head - 2000, head - 1000, head]
    work = toolkit.Workload().reads(
        eth, TOKEN, "balanceOf(address)(uint256)", [(h,) for h in HOLDERS], blocks
    )
    work.reads(eth, TOKEN, "symbol()(string)")
    assert len(work) == 10
    preview = work.preview()
    assert preview.ru_high == 3 * 2 * 2 + 3 * 1 + 1  # archive reads 2 RU, at the head 1 RU
    run = work.run(progress=False)
    balances = frames.evm_reads(run, "balanceOf(address)(uint256)")
    assert list(balances.columns) == ["address", "block", "arg0", "value", "error"]
    assert len(balances) == 9 and balances["error"].isna().all()
    assert balances["block"].dtype == "Int64" and balances["address"].iloc[0] == TOKEN
    assert list(balances["arg0"][:3]) == [HOLDERS[0]] * 3  # checksummed, read from call data
    expected = [
        eth.read(TOKEN, "balanceOf(address)(uint256)", holder, block=block)
        for holder in HOLDERS
        for block in blocks
    ]
    assert list(balances["value"]) == expected  # exact ints
    symbols = frames.evm_reads(run, "symbol()(string)")
    assert list(symbols["value"]) == [DEMO.evm.token_symbol]
    assert str(symbols["value"].dtype) == "string"


def test_reads_refuse_a_bad_argument_and_plan_nothing(gateway):
    eth = gateway.node("ethereum-mainnet")
    work = toolkit.Workload()
    with pytest.raises(toolkit.ValidationError, match="argument 0"):
        work.reads(eth, TOKEN, "balanceOf(address)(uint256)", [(HOLDERS[0],), ("nope",)])
    assert len(work) == 0
