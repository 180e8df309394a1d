"""Fixtures for the frame tests: realistic gateway responses saved under ``data/``, and one frame of
every kind the toolkit makes (for the Parquet tests)."""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

DATA = Path(__file__).parent / "data"


def _load(name: str) -> Any:
    return json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))


@pytest.fixture
def load() -> Callable[[str], Any]:
    """Load ``data/<name>.json`` as the gateway returned it (a fresh copy each call)."""
    return _load


@pytest.fixture
def load_text() -> Callable[[str], str]:
    """Read ``data/<file name>`` as text (for results that are strings, like debug_printBlock)."""
    return lambda name: (DATA / name).read_text(encoding="utf-8")


def _sandbox_frames() -> dict[str, pd.DataFrame]:
    from solders.transaction import VersionedTransaction

    import toolkit
    from toolkit import frames, solana_tx
    from toolkit.examples import examples

    gw = toolkit.connect()
    ex = examples(gw)
    made: dict[str, pd.DataFrame] = {}

    eth = gw.node(ex.node_name("ethereum"))
    head = eth.block_number()
    accounts = list(ex.evm.accounts.values())[:3]
    made["evm_balances"] = frames.evm_balances(
        [(a, b, eth.get_balance(a, block=b)) for a in accounts for b in (head - 500, head)]
    )
    blocks = [eth.call("eth_getBlockByNumber", hex(n), True) for n in (head - 200, head - 1)]
    made["evm_blocks"] = frames.evm_blocks(blocks)
    made["evm_block_transactions"] = frames.evm_block_transactions(blocks)
    made["evm_block_withdrawals"] = frames.evm_block_withdrawals(blocks)
    made["evm_logs"] = frames.evm_logs(
        eth.call("eth_getLogs", {"fromBlock": hex(head - 50), "toBlock": hex(head)})
    )
    assert len(made["evm_logs"]) and len(made["evm_block_transactions"])
    arb = gw.node(ex.node_name("arbitrum"))
    made["evm_printed_blocks"] = frames.evm_printed_blocks(arb.print_block(arb.block_number()))
    pol = gw.node(ex.node_name("polygon"))
    start = pol.block_number() - 100
    made["evm_root_hashes"] = frames.evm_root_hashes(
        [(start, start + 63, pol.get_root_hash(start, start + 63))]
    )

    tron = gw.node(ex.node_name("tron"))
    made["tron_asset_issues"] = frames.tron_asset_issues(
        tron.get_asset_issue_list_by_name(ex.tron.asset_name)
    )
    account = tron.get_account(ex.tron.account, visible=True)
    made["tron_account"] = frames.tron_account(account)
    made["tron_account_assets"] = frames.tron_account_assets(account)
    assert len(made["tron_account_assets"])
    node_info = tron.get_node_info()
    made["tron_node_info"] = frames.tron_node_info(node_info)
    made["tron_node_peers"] = frames.tron_node_peers(node_info)
    made["tron_blocks"] = frames.tron_blocks(tron.get_block_by_latest_num(5))
    blocks = tron.get_block_by_latest_num(3)
    made["tron_block_transactions"] = frames.tron_block_transactions(blocks)
    latest = blocks["block"][-1]["block_header"]["raw_data"]["number"]
    infos = [
        i for n in range(latest - 10, latest + 1) for i in tron.get_transaction_info_by_block_num(n)
    ]
    made["tron_transaction_infos"] = frames.tron_transaction_infos(infos)

    ton = gw.node(ex.node_name("ton"))
    made["ton_token_data"] = frames.ton_token_data(
        [ton.get_token_data(j) for j in ex.ton.jettons.values()],
        address=list(ex.ton.jettons.values()),
    )
    made["ton_masterchain_info"] = frames.ton_masterchain_info(ton.get_masterchain_info())
    made["ton_address_forms"] = frames.ton_address_forms(
        [ton.detect_address(j) for j in ex.ton.jettons.values()]
    )
    made["platform_nodes"] = frames.platform_nodes(gw.nodes())

    sol = gw.node(ex.node_name("solana"))
    S = ex.solana
    payer, blockhash = S.payer_keypair(), S.recent_blockhash
    transfer = solana_tx.transfer(payer, S.recipient, 250_000_000, blockhash, sign=True)
    keys = [
        str(k)
        for k in VersionedTransaction.from_bytes(base64.b64decode(transfer)).message.account_keys
    ]
    result = sol.simulate_transaction(transfer, accounts=[S.payer, S.recipient])
    made["solana_simulation_summary"] = frames.solana_simulation_summary(result)
    made["solana_simulation_balances"] = frames.solana_simulation_balances(result, keys)
    made["solana_simulation_accounts"] = frames.solana_simulation_accounts(
        result, [S.payer, S.recipient]
    )
    made["solana_simulation_logs"] = frames.solana_simulation_logs(result)
    from solders.keypair import Keypair

    newcomer = Keypair.from_seed(hashlib.sha256(b"parquet newcomer").digest()).pubkey()
    create = solana_tx.create_associated_token_account(
        payer, newcomer, S.mint, blockhash, sign=True
    )
    ckeys = [
        str(k)
        for k in VersionedTransaction.from_bytes(base64.b64decode(create)).message.account_keys
    ]
    created = sol.simulate_transaction(create, inner_instructions=True)
    made["solana_simulation_inner_instructions"] = frames.solana_simulation_inner_instructions(
        created, ckeys
    )
    made["solana_simulation_token_balances"] = frames.solana_simulation_token_balances(
        created, ckeys
    )

    work = toolkit.Workload().grid(eth, "eth_getBalance", accounts, [head - 1_000, head - 10])
    work.each(tron, "wallet/gettransactioninfobyblocknum", range(latest - 3, latest), param="num")
    work.each(ton, "api/v2/getTokenData", list(ex.ton.jettons.values()), param="address")
    # A by-name lookup of a name two assets share fails: a row with its error, value None.
    work.add(tron, "wallet/getassetissuebyname", value=ex.tron.ambiguous_name, visible=True)
    made["workload_run"] = work.run(progress=False)
    reads = toolkit.Workload().reads(
        eth, ex.evm.token, "balanceOf(address)(uint256)", [(a,) for a in accounts], [head - 10]
    )
    made["evm_reads"] = frames.evm_reads(reads.run(progress=False), "balanceOf(address)(uint256)")
    scan = toolkit.Workload().logs(eth, address=ex.evm.token, from_block=head - 300, to_block=head)
    made["evm_events"] = frames.evm_events(scan.run(progress=False), event="Transfer")
    assert len(made["evm_reads"]) and len(made["evm_events"])
    assert made["workload_run"]["error"].notna().any()
    made["workload_preview"] = work.preview().frame
    made["ledger_frame"] = gw.ledger.frame
    made["ledger_summary"] = gw.ledger.summary()
    return made


def _fixture_frames() -> dict[str, pd.DataFrame]:
    from toolkit import frames

    return {
        "fixture_solana_simulation_logs": frames.solana_simulation_logs(
            _load("solana_simulate_envelope")
        ),
        "fixture_solana_simulation_return_data": frames.solana_simulation_return_data(
            _load("solana_simulate_envelope")
        ),
        "fixture_simulation_failed": frames.solana_simulation_summary(
            _load("solana_simulate_failed_bare")
        ),
        "fixture_platform_nodes": frames.platform_nodes(_load("platform_nodes_pages")),
        "fixture_tron_transaction_infos": frames.tron_transaction_infos(
            _load("tron_transaction_info_by_block")
        ),
        "fixture_tron_asset_issues": frames.tron_asset_issues(_load("tron_asset_list_by_name")),
        "fixture_ton_token_data": frames.ton_token_data(_load("ton_token_toncenter")),
        "fixture_tron_transaction": frames.tron_transaction(_load("tron_proposal_delete")),
    }


@pytest.fixture(scope="session")
def toolkit_frames() -> dict[str, pd.DataFrame]:
    """name -> a frame the toolkit made (each kind at least once)."""
    return {**_sandbox_frames(), **_fixture_frames()}
