"""`toolkit.examples`: sandbox inputs answer against the sandbox; real-world inputs are well formed
by the catalog's own validation; node names are chosen per chain as documented."""

import base64
from pathlib import Path

import pytest
from eth_abi import decode, encode
from eth_hash.auto import keccak
from solders.pubkey import Pubkey

import toolkit
from toolkit import solana_tx
from toolkit.examples import (
    CHAIN_NAMES,
    REAL_WORLD,
    SANDBOX_NODES,
    _real_examples,
    examples,
    real_node_names,
)

ANY_BLOCKHASH = "11111111111111111111111111111111"


@pytest.fixture
def gw(gateway):
    return gateway


@pytest.fixture
def ex(gw):
    return examples(gw)


def _selector(signature: str) -> bytes:
    return keccak(signature.encode())[:4]


# --- sandbox mode: every value answers --------------------------------------------------------


def test_sandbox_mode_names_the_sandbox_nodes(gw, ex):
    assert ex.sandbox is True
    assert dict(ex.nodes) == dict(SANDBOX_NODES)
    assert set(ex.nodes.values()) <= set(gw.node_names)
    assert [ex.node_name(chain) for chain in CHAIN_NAMES] == list(SANDBOX_NODES.values())
    assert "sandbox demo inputs" in repr(ex)
    assert all(ex.sources.values())


def test_sandbox_evm_accounts_and_token_answer(gw, ex):
    eth = gw.node(ex.node_name("ethereum"))
    assert all(eth.get_balance(address) > 0 for address in ex.evm.accounts.values())
    decimals = eth.call_contract(ex.evm.token, _selector("decimals()"))
    assert decode(["uint8"], bytes.fromhex(decimals[2:]))[0] == ex.evm.token_decimals
    symbol = eth.call_contract(ex.evm.token, _selector("symbol()"))
    assert decode(["string"], bytes.fromhex(symbol[2:]))[0] == ex.evm.token_symbol


def test_sandbox_storage_slots_agree_with_eth_call(gw, ex):
    eth = gw.node(ex.node_name("ethereum"))
    block = eth.head() - 1_000
    holder = ex.evm.token_holder
    supply = eth.call_contract(ex.evm.token, _selector("totalSupply()"), block=block)
    word = eth.get_storage_at(ex.evm.token, ex.evm.token_total_supply_slot, block=block)
    assert int(word, 16) == int(supply, 16) > 0

    data = _selector("balanceOf(address)") + encode(["address"], [holder])
    balance = eth.call_contract(ex.evm.token, data, block=block)
    slot = keccak(encode(["address", "uint256"], [holder, ex.evm.token_balances_slot]))
    word = eth.get_storage_at(ex.evm.token, int.from_bytes(slot), block=block)
    assert int(word, 16) == int(balance, 16) > 0


def test_sandbox_tron_lookup_flow_and_ambiguity(gw, ex):
    tron = gw.node(ex.node_name("tron"))
    listed = tron.get_asset_issue_list_by_name(ex.tron.asset_name)["assetIssue"]
    assert ex.tron.asset_id in {asset["id"] for asset in listed} and len(listed) > 1
    assert tron.get_asset_issue_by_id(ex.tron.asset_id)["id"] == ex.tron.asset_id
    assert ex.tron.ambiguous_is_certain
    with pytest.raises(toolkit.AmbiguousAssetName):
        tron.get_asset_issue_by_name(ex.tron.ambiguous_name)


def test_sandbox_ton_jettons_answer_and_the_non_jetton_is_refused(gw, ex):
    ton = gw.node(ex.node_name("ton"))
    assert ex.ton.jetton in ex.ton.jettons.values()
    for address in ex.ton.jettons.values():
        assert ton.get_token_data(address)["contract_type"] == "jetton_master"
    with pytest.raises(toolkit.TonError) as refused:
        ton.get_token_data(ex.ton.not_a_jetton)
    assert refused.value.code == 409


def test_sandbox_solana_signed_and_unsigned_simulations_succeed(gw, ex):
    sol = gw.node(ex.node_name("solana"))
    wallet = ex.solana
    assert wallet.can_sign and str(wallet.payer_keypair().pubkey()) == wallet.payer
    assert wallet.payer_keypair_seed not in repr(wallet)  # demo value, but kept out of reprs

    signed = solana_tx.transfer(
        wallet.payer_keypair(), wallet.recipient, 1_000, wallet.recent_blockhash
    )
    assert sol.simulate_transaction(signed, sig_verify=True)["value"]["err"] is None

    payer = Pubkey.from_string(wallet.payer)
    unsigned = solana_tx.transfer(payer, wallet.recipient, 1_000, ANY_BLOCKHASH, sign=False)
    rescued = sol.simulate_transaction(unsigned, replace_recent_blockhash=True)["value"]
    assert rescued["err"] is None and rescued["replacementBlockhash"]

    moved = solana_tx.transfer_tokens(
        wallet.payer_keypair(),
        wallet.mint,
        wallet.recipient,
        1,
        wallet.mint_decimals,
        wallet.recent_blockhash,
    )
    assert wallet.payer_holds_mint
    assert sol.simulate_transaction(moved)["value"]["err"] is None

    size = solana_tx.get_account_data_size(payer, wallet.mint, ANY_BLOCKHASH, sign=False)
    value = sol.simulate_transaction(size, replace_recent_blockhash=True)["value"]
    returned = base64.b64decode(value["returnData"]["data"][0])
    assert int.from_bytes(returned, "little") == 165


# --- real mode: public values, well formed by the catalog -------------------------------------


@pytest.fixture
def real():
    return _real_examples({chain: f"{chain}-mainnet" for chain in CHAIN_NAMES})


def test_every_real_world_value_has_a_source_note():
    assert REAL_WORLD
    for key, (value, source) in REAL_WORLD.items():
        assert value not in (None, ""), key
        assert isinstance(source, str) and len(source) > 10, key


def test_real_evm_values_bind(real):
    lookup = toolkit.lookup
    assert not real.sandbox and "public mainnet inputs" in repr(real)
    assert len(real.evm.accounts) >= 6  # notebooks 02 and 08 take the first 4 and 6
    for address in real.evm.accounts.values():  # EIP-55 checksums are checked by the catalog
        lookup("eth_getBalance").bind(address, "latest")
    assert real.evm.token_holder in real.evm.accounts.values()
    lookup("eth_getStorageAt").bind(real.evm.token, real.evm.token_balances_slot, "latest")
    lookup("eth_getStorageAt").bind(real.evm.token, real.evm.token_total_supply_slot, "latest")
    data = _selector("balanceOf(address)") + encode(["address"], [real.evm.token_holder])
    lookup("eth_call").bind({"to": real.evm.token, "data": "0x" + data.hex()}, "latest")
    assert real.evm.token_decimals == 6 and real.evm.token_symbol == "USDT"


def test_real_tron_values_bind(real):
    toolkit.lookup("wallet/getassetissuelistbyname").bind(value=real.tron.asset_name)
    toolkit.lookup("wallet/getassetissuebyid").bind(value=real.tron.asset_id)
    toolkit.lookup("wallet/getassetissuebyname").bind(value=real.tron.ambiguous_name, visible=True)
    assert not real.tron.ambiguous_is_certain


def test_real_ton_values_bind(real):
    assert real.ton.jetton in real.ton.jettons.values() and real.ton.not_a_jetton is None
    for address in real.ton.jettons.values():  # pytoniq checks the CRC of user-friendly forms
        toolkit.lookup("api/v2/getTokenData").bind(address=address)
        toolkit.lookup("api/v2/jsonRPC").bind("unpackAddress", {"address": address})


def test_real_solana_values_build_transactions_that_bind(real):
    wallet = real.solana
    assert not wallet.can_sign and wallet.recent_blockhash is None
    with pytest.raises(toolkit.ValidationError, match="own funded keypair"):
        wallet.payer_keypair()
    payer = Pubkey.from_string(wallet.payer)
    for transaction in (
        solana_tx.transfer(payer, wallet.recipient, 1_000, ANY_BLOCKHASH, sign=False),
        solana_tx.get_account_data_size(payer, wallet.mint, ANY_BLOCKHASH, sign=False),
    ):
        toolkit.lookup("simulateTransaction").bind(
            transaction, {"encoding": "base64", "replaceRecentBlockhash": True}
        )


def test_a_real_gateway_gets_public_values_and_its_own_running_mainnet_nodes(sandbox):
    info = sandbox.info  # the sandbox's platform API, reached as any real gateway would be
    with toolkit.Gateway(info["platform_url"], info["api_key"]) as real_gw:
        found = examples(real_gw)
        assert not found.sandbox
        assert dict(found.nodes) == dict(SANDBOX_NODES)  # the running mainnet node of each
        assert found.evm.token == REAL_WORLD["evm.token"][0]
        assert real_gw.ledger.total_ru == 0  # listing nodes is free


# --- choosing node names on a real gateway ----------------------------------------------------


def _record(name, protocol, status="running", network="mainnet"):
    return {"name": name, "protocol": protocol, "status": status, "network": network}


def test_a_running_mainnet_node_is_preferred_to_a_testnet_one():
    records = [
        _record("eth-test", "ethereum", network="sepolia"),
        _record("eth-main", "ethereum"),
        _record("eth-down", "ethereum", status="stopped"),
    ]
    assert real_node_names(records, {}) == {"ethereum": "eth-main"}


def test_a_running_node_given_in_the_environment_comes_first():
    records = [_record("eth-main", "ethereum"), _record("my eth", "ethereum", network="sepolia")]
    environ = {"NODE_GATEWAY_NODE_MY_ETH": "https://node.example/key"}
    assert real_node_names(records, environ)["ethereum"] == "my eth"


def test_a_stopped_node_is_used_only_when_given_and_nothing_runs():
    records = [_record("tron-a", "tron", status="stopped")]
    assert real_node_names(records, {}) == {}
    environ = {"NODE_GATEWAY_NODE_TRON_A": "https://node.example/key"}
    assert real_node_names(records, environ) == {"tron": "tron-a"}


def test_names_only_in_the_environment_count_when_they_say_their_chain():
    environ = {
        "NODE_GATEWAY_NODE_TON_MAINNET": "https://node.example/key",
        "NODE_GATEWAY_NODE_MYSTERY": "https://node.example/key",
        "NODE_GATEWAY_NODE_SOLANA_MAIN": "",  # empty: not given
    }
    assert real_node_names([], environ) == {"ton": "ton-mainnet"}


def test_protocol_labels_are_read_through_the_catalog_aliases():
    records = [
        _record("a", "eth"),
        _record("b", "matic"),
        _record("c", "bitcoin"),  # not a chain the toolkit serves: ignored
        {"name": None, "protocol": "tron", "status": "running"},
    ]
    assert real_node_names(records, {}) == {"ethereum": "a", "polygon": "b"}


def test_a_chain_without_a_node_names_what_was_found_and_what_to_set(real):
    partial = _real_examples({"ethereum": "eth-main"})
    with pytest.raises(toolkit.ValidationError, match="NODE_GATEWAY_NODE_") as missing:
        partial.node_name("tron")
    assert "ethereum: eth-main" in str(missing.value)


def test_inputs_call_every_method_of_the_spec_on_the_sandbox(gw, ex):
    for method in toolkit.METHODS:
        (chain,) = method.chains[:1]
        client = gw.platform if chain == "platform" else gw.node(ex.node_name(chain))
        head = client.head() if ex.needs_head(method.name) else None
        assert client.call(method.name, **ex.inputs(method.name, head=head)) is not None


def test_real_gateway_inputs_pass_the_catalogs_validation():
    ex = toolkit.examples._real_examples({})
    for method in toolkit.METHODS:
        if method.name == "wallet/proposaldelete":
            with pytest.raises(toolkit.ValidationError, match="proposal"):
                ex.inputs(method.name)
            continue
        head = 1_000_000_000 if ex.needs_head(method.name) else None
        method.bind(**ex.inputs(method.name, head=head))


# --- one way in for demo inputs -------------------------------------------------------------------


def test_demo_says_where_solanas_inputs_are():
    """`DEMO` has no Solana part (the simulator's wallets follow the seed): asking it for one
    names the way in that has them, rather than a bare AttributeError."""
    from toolkit.sandbox import DEMO

    with pytest.raises(AttributeError, match=r"examples\(gw\)\.solana") as raised:
        DEMO.solana  # noqa: B018
    assert "from toolkit.examples import examples" in str(raised.value)
    assert not hasattr(DEMO, "solana")


def test_the_docs_take_their_inputs_from_examples(ex):
    """The README and every guide take demo inputs from `examples(gw)`, the one way in that has
    every chain's (Solana's too) and works on a real gateway: no page teaches `DEMO`'s instead."""
    root = Path(__file__).resolve().parents[1]
    pages = [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    teaching_demo = [p.name for p in pages if "import DEMO" in p.read_text()]
    assert teaching_demo == []
    assert ex.solana.can_sign and ex.solana.recent_blockhash  # what those pages point to
