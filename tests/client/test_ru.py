"""Request units end to end: workload preview, ledger, budget under concurrency, and the client's
ledger against the sandbox's own server-side metering."""

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest
from solders.keypair import Keypair

import toolkit
from toolkit import solana_tx
from toolkit.sandbox import DEMO
from toolkit.sandbox._solana_world import SolanaWorld

ACCOUNTS = list(DEMO.evm.accounts.values())


def test_preview_counts_full_and_archive_calls_and_prices_them(gateway, server_requests):
    eth = gateway.node("ethereum-mainnet")
    head = eth.head()
    blocks = [head - 500, head - 128, head - 100, "latest"]
    preview = toolkit.Workload().grid(eth, "eth_getBalance", ACCOUNTS[:5], blocks).preview()
    assert (preview.calls, preview.ru_low, preview.ru_high) == (20, 30, 30)
    by_class = preview.frame.set_index("class")
    assert by_class.loc["archive", "calls"] == 10 and by_class.loc["full", "calls"] == 10
    assert preview.cost_usd == 0 and preview.min_time_s == pytest.approx(20 / 25)
    assert "20 calls, 30 RU" in str(preview)
    assert server_requests() == 1  # the head, once; the preview itself sends nothing


def test_preview_without_a_head_says_so(gateway, server_requests):
    eth = gateway.node("ethereum-mainnet")
    work = toolkit.Workload().grid(eth, "eth_getBalance", ACCOUNTS[:2], [1, 2, "latest"])
    preview = work.preview(fetch_heads=False, plan="growth")
    assert (preview.ru_low, preview.ru_high, preview.exact) == (6, 10, False)
    assert "head unknown" in str(preview) and "Growth" in str(preview)
    assert server_requests() == 0


def test_preview_money_over_the_included_units():
    plan = toolkit.PricingTable().plans["Pro"]
    assert toolkit.Preview(rows=[("n", "m", "fixed", 1, 1)] * 10, plan=plan).cost_usd == 199


def test_preview_refuses_an_unknown_plan_and_an_empty_workload(gateway):
    with pytest.raises(toolkit.ValidationError, match="Developer"):
        toolkit.Workload().add(
            gateway.node("tron-mainnet"), "wallet/getblockbylatestnum", num=1
        ).preview(plan="Free")
    with pytest.raises(toolkit.ValidationError, match="empty"):
        toolkit.Workload().preview()


def test_a_call_that_would_cross_the_budget_is_not_sent(gateway, server_requests):
    gateway.set_budget(2)
    tron = gateway.node("tron-mainnet")
    tron.get_block_by_latest_num(1)
    tron.get_block_by_latest_num(1)
    with pytest.raises(toolkit.BudgetExceeded) as caught:
        tron.get_block_by_latest_num(1)
    assert (caught.value.needed, caught.value.remaining) == (1, 0)
    assert server_requests() == 2 and gateway.budget.spent == 2


def test_an_archive_call_reserves_two_units(gateway):
    eth = gateway.node("ethereum-mainnet")
    eth.head()
    gateway.set_budget(gateway.ledger.total_ru + 1)
    with pytest.raises(toolkit.BudgetExceeded, match="may cost 2 RU"):
        eth.get_balance(ACCOUNTS[0], block=1)
    eth.get_balance(ACCOUNTS[0])  # 1 RU fits


def test_budget_holds_under_concurrent_async_use(gateway, sandbox):
    gateway.set_budget(40)
    tron = gateway.node("tron-mainnet").aio

    async def many():
        return await asyncio.gather(
            *(tron.get_block_by_latest_num(1) for _ in range(100)), return_exceptions=True
        )

    results = asyncio.run(many())
    refused = [r for r in results if isinstance(r, toolkit.BudgetExceeded)]
    assert len(refused) == 60 and len(results) - len(refused) == 40
    assert gateway.budget.spent == 40 == sandbox.metering()["tron-mainnet"]["ru"]


def test_budget_holds_under_threads(gateway, sandbox):
    gateway.set_budget(25)
    tron = gateway.node("tron-mainnet")

    def one(_):
        try:
            return tron.get_block_by_latest_num(1)
        except toolkit.BudgetExceeded as error:
            return error

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(one, range(60)))
    assert sum(isinstance(r, toolkit.BudgetExceeded) for r in results) == 35
    assert sandbox.metering()["tron-mainnet"]["ru"] == 25 == gateway.budget.spent


def test_the_ledger_equals_the_sandbox_metering_for_a_mixed_workload(gateway, sandbox):
    solana = SolanaWorld(0).demo()
    payer = Keypair.from_seed(bytes.fromhex(solana["wallets"]["alice"]["keypair_seed"]))
    transfer = solana_tx.transfer(
        payer, solana["wallets"]["bob"]["pubkey"], 5, solana["recent_blockhash"]
    )
    eth, arb, pol = (
        gateway.node(n) for n in ("ethereum-mainnet", "arbitrum-mainnet", "polygon-mainnet")
    )
    head = eth.head()
    for block in (head, head - 127, head - 128, head - 129, "earliest", "safe"):
        eth.get_balance(ACCOUNTS[1], block=block)
    eth.get_storage_at(DEMO.evm.token, 2, block=head - 1000)
    eth.call_contract(DEMO.evm.token, "0x18160ddd", block=head - 10)
    eth.batch([("eth_getBalance", a, head - 300) for a in ACCOUNTS[:4]])
    arb.print_block(arb.block_number() - 10)
    pol.get_root_hash(1000, 1010)
    gateway.node("hyperliquid-mainnet").client_version()
    gateway.node("solana-mainnet").simulate_transaction(transfer)
    tron = gateway.node("tron-mainnet")
    tron.get_asset_issue_list_by_name(DEMO.tron.ambiguous_name)
    with pytest.raises(toolkit.AmbiguousAssetName):
        tron.get_asset_issue_by_name(DEMO.tron.ambiguous_name)
    tron.sha3(b"abc")
    gateway.node("ton-mainnet").get_token_data(DEMO.ton.jettons[1].address)
    gateway.nodes()
    server = sandbox.metering()
    client = gateway.ledger.frame.groupby("node")["ru"].sum().to_dict()
    for name in (
        "ethereum-mainnet",
        "arbitrum-mainnet",
        "polygon-mainnet",
        "hyperliquid-mainnet",
        "solana-mainnet",
        "tron-mainnet",
        "ton-mainnet",
    ):
        assert client[name] == server[name]["ru"], name
    assert gateway.ledger.total_ru == sum(usage["ru"] for usage in server.values())
    assert client["ethereum-mainnet"] == 1 + (1 + 1 + 2 + 2 + 2 + 1) + 2 + 1 + 4 * 2


def test_ledger_frame_types(gateway):
    gateway.node("tron-mainnet").get_block_by_latest_num(1)
    frame = gateway.ledger.frame
    assert str(frame["time"].dtype) == "datetime64[ns, UTC]" or "UTC" in str(frame["time"].dtype)
    assert frame["ru"].dtype == "int64" and frame["cache_hit"].dtype == bool
    assert gateway.ledger.summary()["calls"].sum() == len(frame)


def test_provenance_names_nodes_and_hides_keys(gateway, sandbox):
    gateway.node("ethereum-mainnet").head()
    gateway.node("tron-mainnet").get_block_by_latest_num(1)
    record = toolkit.provenance(gateway)
    text = str(record) + record._repr_html_()
    assert "ethereum-mainnet" in text and "tron-mainnet" in text and "RU spent" in text
    assert f"head {gateway.node('ethereum-mainnet').head():,}" in text
    for url in sandbox.info["nodes"].values():
        assert url.rsplit("/", 1)[-1] not in text
    assert sandbox.info["api_key"] not in text


def test_a_head_fetched_by_block_number_prices_calls_without_another_fetch(
    gateway, server_requests
):
    eth = gateway.node("ethereum-mainnet")
    head = eth.block_number()
    estimate = eth.estimate("eth_getBalance", ACCOUNTS[0], head - 200)
    assert estimate.exact and estimate.ru == 2 and server_requests() == 1


def test_the_ledger_never_holds_a_key(gateway, sandbox):
    gateway.node("ethereum-mainnet").head()
    gateway.node("tron-mainnet").get_block_by_latest_num(1)
    gateway.nodes()
    text = gateway.ledger.frame.to_csv() + repr(gateway.ledger.entries)
    info = sandbox.info
    assert "ethereum-mainnet" in text and "platform" in text
    for secret in [info["api_key"], *(u.rsplit("/", 1)[-1] for u in info["nodes"].values())]:
        assert secret not in text


def test_provenance_counts_sent_refused_and_cached_calls_apart(make_gateway, tmp_path):
    gateway = make_gateway(cache=tmp_path / "cache.sqlite")
    eth = gateway.node("ethereum-mainnet")
    head = eth.head()  # 1 sent
    old = head - 1_000
    eth.get_balance(ACCOUNTS[0], old)  # 1 sent, and cached (final)
    eth.get_balance(ACCOUNTS[0], old)  # 1 from the cache
    gateway.set_budget(gateway.ledger.counted_ru)
    for _ in range(3):
        with pytest.raises(toolkit.BudgetExceeded):
            eth.get_balance(ACCOUNTS[1], old)  # 3 refused, never sent
    record = toolkit.provenance(gateway)
    assert (record.calls, record.sent, record.refused, record.cached) == (6, 2, 3, 1)
    assert "6: 2 sent, 3 refused by the budget, 1 from the cache" in str(record)
