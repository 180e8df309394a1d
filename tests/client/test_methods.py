"""Every method of the spec, by its exact name and by its typed helper, sync and async."""

import asyncio
from dataclasses import dataclass
from typing import Any

import pytest
from solders.keypair import Keypair

import toolkit
from toolkit import frames, solana_tx
from toolkit.client import NODE_CLASSES, Platform
from toolkit.sandbox import DEMO
from toolkit.sandbox._solana_world import SolanaWorld

ALICE = DEMO.evm.accounts["alice"]
TOKEN = DEMO.evm.token
TRON_ALICE = DEMO.tron.accounts["alice"]
SOLANA = SolanaWorld(0).demo()


def _transfer() -> str:
    payer = Keypair.from_seed(bytes.fromhex(SOLANA["wallets"]["alice"]["keypair_seed"]))
    to = SOLANA["wallets"]["bob"]["pubkey"]
    return solana_tx.transfer(payer, to, 1_000, SOLANA["recent_blockhash"])


def _pending_proposal():
    return next(p for p in DEMO.tron.proposals if p.state == "PENDING")


@dataclass
class Case:
    node: str
    method: str
    args: tuple = ()
    kwargs: dict | None = None
    helper_args: tuple = ()
    helper_kwargs: dict | None = None


def check(method: str, raw: Any, typed: Any) -> None:
    """What the raw result (by exact name) and the typed helper's result must be, per method."""
    match method:
        case "eth_blockNumber":
            assert typed == int(raw, 16) > 1_000_000
        case "eth_getBalance":
            assert raw.startswith("0x") and typed == int(raw, 16) > 0
        case "eth_getStorageAt":
            assert len(raw) == 66 and raw == typed
        case "eth_call":
            assert int(raw, 16) == DEMO.evm.token_decimals == int(typed, 16)
        case "web3_clientVersion":
            assert raw == typed and "/" in raw
        case "debug_printBlock":
            assert raw == typed and raw.startswith("(*types.Block)(0xc")
            assert frames.evm_printed_blocks(raw)["number"][0] == 22_207_815
        case "bor_getRootHash":
            assert raw == typed and len(raw) == 64 and not raw.startswith("0x")
        case "simulateTransaction":
            assert raw["value"]["err"] is None and typed["value"]["unitsConsumed"] > 0
        case "wallet/getassetissuebyname":
            # the raw answer as the node sent it; the helper's value is the one record
            assert raw["assetIssue"][0]["id"] == typed["id"] == "1000001"
        case "wallet/getassetissuelistbyname":
            # the helper asked with visible=False: same assets, text and addresses in hex
            assert [a["id"] for a in raw["assetIssue"]] == [a["id"] for a in typed["assetIssue"]]
            assert len(raw["assetIssue"]) == 2
            assert typed["assetIssue"][0]["name"] == b"Tether USD".hex()
        case "wallet/getassetissuebyid":
            assert raw["id"] == "1000001" == typed["id"]
        case "wallet/gettransactioninfobyblocknum":
            assert isinstance(raw, list) and raw and typed == raw
        case "wallet/getblockbylatestnum":
            assert len(raw["block"]) == 3 == len(typed["block"])
        case "wallet/proposaldelete":
            assert raw["txID"] == typed["txID"] and raw["signature"] == []
        case "web3_sha3":
            assert raw == typed == KECCAK_HELLO
        case "api/v2/getTokenData":
            assert raw == typed and "total_supply" in raw
        case "api/v2/jsonRPC":
            assert raw == typed == TON_JETTON.raw
        case "v2/nodes/":
            assert raw == typed and raw["count"] >= 7
        case _:
            pytest.fail(f"no check for {method}")


KECCAK_HELLO = "0x1c8aff950685c2ed4bc3174f3472287b56d9517b9c948127319a09a7a36deac8"
TON_JETTON = DEMO.ton.jettons[0]
TON_TOKEN = TON_JETTON.address
HELLO = "0x68656c6c6f"

CASES = [
    Case("ethereum-mainnet", "eth_blockNumber"),
    Case("hyperliquid-mainnet", "eth_blockNumber"),
    Case("ethereum-mainnet", "eth_getBalance", (ALICE, "latest"), helper_args=(ALICE,)),
    Case("ethereum-mainnet", "eth_getStorageAt", (TOKEN, "0x2", "latest"), helper_args=(TOKEN, 2)),
    Case(
        "polygon-mainnet",
        "eth_call",
        ({"to": TOKEN, "data": "0x313ce567"}, "latest"),  # decimals()
        helper_args=(TOKEN, "0x313ce567"),
    ),
    Case("arbitrum-mainnet", "web3_clientVersion"),
    Case("arbitrum-mainnet", "debug_printBlock", (22_207_815,), helper_args=(hex(22_207_815),)),
    Case("polygon-mainnet", "bor_getRootHash", (1000, 1100), helper_args=(1000, 1100)),
    Case(
        "solana-mainnet",
        "simulateTransaction",
        (_transfer(), {"encoding": "base64"}),
        helper_args=(_transfer(),),
    ),
    Case(
        "tron-mainnet",
        "wallet/getassetissuebyname",
        kwargs={"value": "SandCoin", "visible": True},
        helper_args=("SandCoin",),
    ),
    Case(
        "tron-mainnet",
        "wallet/getassetissuelistbyname",
        kwargs={"value": "Tether USD"},
        helper_args=("Tether USD",),
        helper_kwargs={"visible": False},
    ),
    Case("tron-mainnet", "wallet/getassetissuebyid", ("1000001",), helper_args=(1000001,)),
    Case(
        "tron-mainnet",
        "wallet/gettransactioninfobyblocknum",
        kwargs={"num": 66_000_000},
        helper_args=(66_000_000,),
    ),
    Case("tron-mainnet", "wallet/getblockbylatestnum", kwargs={"num": 3}, helper_args=(3,)),
    Case(
        "tron-mainnet",
        "wallet/proposaldelete",
        kwargs={
            "owner_address": _pending_proposal().creator,
            "proposal_id": _pending_proposal().id,
        },
        helper_args=(_pending_proposal().creator, _pending_proposal().id),
    ),
    Case("tron-mainnet", "web3_sha3", (HELLO,), helper_args=(bytes.fromhex(HELLO[2:]),)),
    Case(
        "ton-mainnet",
        "api/v2/getTokenData",
        kwargs={"address": TON_TOKEN},
        helper_args=(TON_TOKEN,),
    ),
    Case(
        "ton-mainnet",
        "api/v2/jsonRPC",
        ("unpackAddress", {"address": TON_TOKEN}),
        helper_args=(TON_TOKEN,),
    ),
    Case("platform", "v2/nodes/", kwargs={"ordering": "name", "page": 1}),
]

HELPER_OVERRIDES = {"api/v2/jsonRPC": "unpack_address"}  # the catalog's helper is json_rpc


def _client(gateway, case):
    return gateway.platform if case.node == "platform" else gateway.node(case.node)


def _helper(client, case):
    method = toolkit.lookup(case.method)
    helper = getattr(client, HELPER_OVERRIDES.get(case.method, method.helper))
    kwargs = dict(case.helper_kwargs or {})
    if case.method == "v2/nodes/":
        kwargs = {"ordering": "name", "page": 1}
    return helper(*case.helper_args, **kwargs)


def test_the_cases_cover_every_method_of_the_spec():
    assert {case.method for case in CASES} == {m.name for m in toolkit.METHODS if m.in_spec}


def _generated(method):
    """True when the method's helper is generated from its catalog entry (not hand-written)."""
    classes = [Platform] if method.chains == ("platform",) else [NODE_CLASSES[method.chains[0]]]
    return getattr(getattr(classes[0], method.helper), "generated_from", None) is method


def _example_inputs(ex, node, method):
    return ex.inputs(method.name, head=node.head() if ex.needs_head(method.name) else None)


@pytest.mark.parametrize(
    "method", [m for m in toolkit.METHODS if _generated(m) and not m.args], ids=lambda m: m.name
)
def test_a_generated_helper_sends_its_method_and_returns_the_typed_value(gateway, method):
    """No case above needed: the example inputs and the catalog entry are enough (for a helper
    that takes the parameters by their own names; the cases above call the others)."""
    from toolkit.catalog import RESULT_KINDS
    from toolkit.examples import examples

    ex = examples(gateway)
    node = gateway.node(ex.node_name(method.chains[0]))
    inputs = _example_inputs(ex, node, method)
    before = len(gateway.ledger.entries)
    raw = node.call(method.name, **inputs)
    typed = getattr(node, method.helper)(**inputs)
    awaited = asyncio.run(getattr(node.aio, method.helper)(**inputs))
    assert RESULT_KINDS[method.result].check(raw)
    assert type(typed) is type(method.typed(raw)) is type(awaited)
    names = [entry.method for entry in gateway.ledger.entries[before:]]
    assert names.count(method.name) == 3, names


@pytest.mark.parametrize("method", toolkit.METHODS, ids=lambda m: m.name)
def test_every_catalog_helper_exists_on_its_chains_clients(method):
    classes = (
        [Platform] if method.chains == ("platform",) else [NODE_CLASSES[c] for c in method.chains]
    )
    for cls in classes:
        assert callable(getattr(cls, method.helper)), (cls, method.helper)
        assert callable(getattr(cls.aio_class, method.helper))


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.node}:{c.method}")
def test_sync_by_name_and_by_helper(gateway, case):
    client = _client(gateway, case)
    raw = client.call(case.method, *case.args, **(case.kwargs or {}))
    check(case.method, raw, _helper(client, case))


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.node}:{c.method}")
def test_async_by_name_and_by_helper(gateway, case):
    client = _client(gateway, case).aio

    async def both():
        raw = await client.call(case.method, *case.args, **(case.kwargs or {}))
        return raw, await _helper(client, case)

    raw, typed = asyncio.run(both())
    check(case.method, raw, typed)


def test_hyperliquid_is_served_under_evm(gateway, sandbox):
    gateway.node("hyperliquid-mainnet").block_number()
    assert sandbox.metering()["hyperliquid-mainnet"]["requests"] == 1


def test_platform_pagination_as_list_and_iterator(gateway):
    first = gateway.platform.list_nodes_page()
    everything = gateway.platform.list_nodes(ordering="-name")
    assert first["next"] and len(everything) == first["count"] > len(first["results"])
    names = [record["name"] for record in everything]
    assert names == sorted(names, reverse=True)
    assert [r["id"] for r in gateway.platform.iter_nodes(ordering="-name")] == [
        r["id"] for r in everything
    ]

    async def collect():
        return [r["id"] async for r in gateway.platform.aio.iter_nodes(ordering="-name")]

    assert asyncio.run(collect()) == [r["id"] for r in everything]


def test_connect_with_no_arguments_uses_the_shared_sandbox():
    gw = toolkit.connect()
    assert gw.sandbox is not None and set(gw.node_names) >= {"ethereum-mainnet", "ton-mainnet"}
    assert gw.node("ethereum-mainnet").block_number() > 0
    assert toolkit.connect().sandbox is gw.sandbox  # reused, not restarted
