"""Bad input is refused before any request is sent: a specific error naming the parameter and the
rule, and the sandbox's own request counter still at zero afterwards (so it cost 0 RU)."""

import pytest

import toolkit

EVM = "0x" + "ab" * 20
TRON_HEX = "41" + "a6" * 20
TON_RAW = "0:" + "ab" * 32
TX_B64 = "AQ=="

# (node, method, args, kwargs, param, rule)
BAD_INPUTS = [
    # EVM blocks and addresses
    ("ethereum-mainnet", "eth_getBalance", (EVM, "123"), {}, "block", "hex-prefix"),
    ("ethereum-mainnet", "eth_getBalance", (EVM, "latests"), {}, "block", "block"),
    ("ethereum-mainnet", "eth_getBalance", (EVM, "0x"), {}, "block", "block"),
    ("ethereum-mainnet", "eth_getBalance", (EVM, "0xzz"), {}, "block", "block"),
    ("ethereum-mainnet", "eth_getBalance", (EVM, -1), {}, "block", "min"),
    ("ethereum-mainnet", "eth_getBalance", (EVM, 1.5), {}, "block", "type"),
    ("ethereum-mainnet", "eth_getBalance", ("0x1234", "latest"), {}, "address", "address"),
    ("ethereum-mainnet", "eth_getBalance", (EVM[2:], "latest"), {}, "address", "address"),
    ("ethereum-mainnet", "eth_getBalance", ("0x" + "aB" * 20, "latest"), {}, "address", "address"),
    ("ethereum-mainnet", "eth_getBalance", (), {}, "address", "required"),
    ("ethereum-mainnet", "eth_getBalance", (EVM,), {"blok": "latest"}, "blok", "unknown-param"),
    ("ethereum-mainnet", "eth_getBalance", (EVM, "latest", 1), {}, None, "arity"),
    ("ethereum-mainnet", "eth_getStorageAt", (EVM, "12", "latest"), {}, "slot", "hex-prefix"),
    (
        "ethereum-mainnet",
        "eth_getStorageAt",
        (EVM, "0x" + "0" * 65, "latest"),
        {},
        "slot",
        "quantity",
    ),
    ("ethereum-mainnet", "eth_getStorageAt", (EVM, 0, "11"), {}, "block", "hex-prefix"),
    # eth_call object
    ("ethereum-mainnet", "eth_call", ({},), {}, "call.to", "required"),
    ("ethereum-mainnet", "eth_call", ({"to": "0x12"},), {}, "call.to", "address"),
    ("ethereum-mainnet", "eth_call", ({"to": EVM, "gasprise": 1},), {}, "call", "unknown-field"),
    (
        "ethereum-mainnet",
        "eth_call",
        ({"to": EVM, "gasPrice": 1, "gasprice": 1},),
        {},
        "call.gasPrice",
        "conflict",
    ),
    ("ethereum-mainnet", "eth_call", ({"to": EVM, "data": "0x123"},), {}, "call.data", "hex-data"),
    (
        "ethereum-mainnet",
        "eth_call",
        ({"to": EVM, "value": "100"},),
        {},
        "call.value",
        "hex-prefix",
    ),
    ("ethereum-mainnet", "eth_call", ({"to": EVM, "gas": -5},), {}, "call.gas", "min"),
    ("ethereum-mainnet", "eth_call", ("not an object",), {}, "call", "type"),
    ("ethereum-mainnet", "eth_call", (True,), {"value": 1}, "call", "type"),  # found by hypothesis
    ("ethereum-mainnet", "eth_call", ({"to": EVM}, "100"), {}, "block", "hex-prefix"),
    # chains: methods belong to their chains
    ("ethereum-mainnet", "debug_printBlock", (22_207_815,), {}, None, "chain"),
    ("ethereum-mainnet", "bor_getRootHash", (1, 2), {}, None, "chain"),
    ("tron-mainnet", "eth_getBalance", (EVM, "latest"), {}, None, "chain"),
    ("ethereum-mainnet", "eth_getBalanceOf", (EVM,), {}, None, "unknown-method"),
    # Arbitrum debug_printBlock
    ("arbitrum-mainnet", "debug_printBlock", (22_207_814,), {}, "number", "floor"),
    ("arbitrum-mainnet", "debug_printBlock", ("0x1",), {}, "number", "floor"),
    ("arbitrum-mainnet", "debug_printBlock", ("latest",), {}, "number", "block-number"),
    ("arbitrum-mainnet", "debug_printBlock", ("22207815",), {}, "number", "type"),
    # Polygon bor_getRootHash
    ("polygon-mainnet", "bor_getRootHash", (200, 100), {}, "from", "range"),
    ("polygon-mainnet", "bor_getRootHash", (-1, 100), {}, "from", "min"),
    ("polygon-mainnet", "bor_getRootHash", ("0x1", 100), {}, "from", "type"),
    ("polygon-mainnet", "bor_getRootHash", (1,), {}, "to", "required"),
    # Solana simulateTransaction
    (
        "solana-mainnet",
        "simulateTransaction",
        (TX_B64,),
        {"encoding": "base64", "sigVerify": True, "replaceRecentBlockhash": True},
        "config.sigVerify",
        "conflict",
    ),
    (
        "solana-mainnet",
        "simulateTransaction",
        (TX_B64,),
        {"encoding": "base32"},
        "config.encoding",
        "choice",
    ),
    ("solana-mainnet", "simulateTransaction", ("0OIl",), {}, "transaction", "encoding"),
    (
        "solana-mainnet",
        "simulateTransaction",
        ("!!!",),
        {"encoding": "base64"},
        "transaction",
        "encoding",
    ),
    ("solana-mainnet", "simulateTransaction", ("",), {}, "transaction", "type"),
    (
        "solana-mainnet",
        "simulateTransaction",
        (TX_B64,),
        {"commitment": "max"},
        "config.commitment",
        "choice",
    ),
    (
        "solana-mainnet",
        "simulateTransaction",
        (TX_B64,),
        {"sigVerify": "yes"},
        "config.sigVerify",
        "type",
    ),
    (
        "solana-mainnet",
        "simulateTransaction",
        (TX_B64,),
        {"minContextSlot": -1},
        "config.minContextSlot",
        "min",
    ),
    (
        "solana-mainnet",
        "simulateTransaction",
        (TX_B64,),
        {"encoding": "base64", "accounts": {"addresses": ["nope"]}},
        "config.accounts.addresses",
        "address",
    ),
    (
        "solana-mainnet",
        "simulateTransaction",
        (TX_B64,),
        {"encoding": "base64", "accounts": {"addresses": [], "encoding": "json"}},
        "config.accounts.encoding",
        "choice",
    ),
    (
        "solana-mainnet",
        "simulateTransaction",
        (TX_B64,),
        {"sigverify": True},
        "sigverify",
        "unknown-param",
    ),
    (
        "solana-mainnet",
        "simulateTransaction",
        ("A" * 1700,),
        {"encoding": "base64"},
        "transaction",
        "max",
    ),
    # TRON
    ("tron-mainnet", "wallet/getblockbylatestnum", (), {"num": 101}, "num", "max"),
    ("tron-mainnet", "wallet/getblockbylatestnum", (), {"num": 0}, "num", "min"),
    ("tron-mainnet", "wallet/getblockbylatestnum", (), {"num": "5"}, "num", "type"),
    ("tron-mainnet", "wallet/getblockbylatestnum", (), {}, "num", "required"),
    ("tron-mainnet", "wallet/gettransactioninfobyblocknum", (), {"num": -3}, "num", "min"),
    ("tron-mainnet", "wallet/gettransactioninfobyblocknum", (), {"num": True}, "num", "type"),
    ("tron-mainnet", "wallet/getassetissuebyname", (), {"value": "SandCoin"}, "value", "hex-text"),
    (
        "tron-mainnet",
        "wallet/getassetissuelistbyname",
        (),
        {"value": "Tether", "visible": False},
        "value",
        "hex-text",
    ),
    ("tron-mainnet", "wallet/getassetissuebyid", (), {"value": "SAND"}, "value", "asset-id"),
    (
        "tron-mainnet",
        "wallet/proposaldelete",
        (),
        {"owner_address": "T123", "proposal_id": 1},
        "owner_address",
        "address",
    ),
    (
        "tron-mainnet",
        "wallet/proposaldelete",
        (),
        {"owner_address": TRON_HEX, "proposal_id": 0},
        "proposal_id",
        "min",
    ),
    (
        "tron-mainnet",
        "wallet/proposaldelete",
        (),
        {"owner_address": TRON_HEX},
        "proposal_id",
        "required",
    ),
    ("tron-mainnet", "web3_sha3", ("hello",), {}, "data", "hex-data"),
    ("tron-mainnet", "web3_sha3", ("0x123",), {}, "data", "hex-data"),
    # TON
    (
        "ton-mainnet",
        "api/v2/getTokenData",
        (),
        {"address": "EQ-not-an-address"},
        "address",
        "address",
    ),
    ("ton-mainnet", "api/v2/getTokenData", (), {"address": "0:xyz"}, "address", "address"),
    ("ton-mainnet", "api/v2/getTokenData", (), {}, "address", "required"),
    (
        "ton-mainnet",
        "api/v2/jsonRPC",
        ("unpackAddress", {"address": "xyz"}),
        {},
        "params.address",
        "address",
    ),
    # hostile input (issue 15): widths, Python-lenient hex, Unicode digits, type confusions
    ("ethereum-mainnet", "eth_getBalance", (EVM, 2**64), {}, "block", "max"),
    ("ethereum-mainnet", "eth_getBalance", (EVM, "0x8000000000000000"), {}, "block", "max"),
    ("ethereum-mainnet", "eth_getBalance", (EVM, "0x_1"), {}, "block", "block"),
    ("ethereum-mainnet", "eth_getBalance", (EVM, "0x1\n"), {}, "block", "block"),
    ("ethereum-mainnet", "eth_getBalance", (EVM, "\u00b2"), {}, "block", "block"),
    ("ethereum-mainnet", "eth_getStorageAt", (EVM, 2**256, "latest"), {}, "slot", "max"),
    ("ethereum-mainnet", "eth_getStorageAt", (EVM, "0x_1", "latest"), {}, "slot", "quantity"),
    ("ethereum-mainnet", "eth_getStorageAt", (EVM, "0x\uff11"), {}, "slot", "quantity"),
    ("ethereum-mainnet", "eth_getStorageAt", (EVM, "0x1\n"), {}, "slot", "quantity"),
    ("ethereum-mainnet", "eth_call", ({"to": EVM, "gas": 2**64},), {}, "call.gas", "max"),
    ("ethereum-mainnet", "eth_call", ({"to": EVM, "value": 2**256},), {}, "call.value", "max"),
    ("ethereum-mainnet", 42, (), {}, "method", "type"),
    ("ethereum-mainnet", {"to": EVM, "data": "0x"}, (), {}, "method", "type"),
    ("polygon-mainnet", "bor_getRootHash", (1, 2**64), {}, "to", "max"),
    (
        "tron-mainnet",
        "wallet/getassetissuebyid",
        (),
        {"value": "\u0661\u0662"},
        "value",
        "asset-id",
    ),
    ("tron-mainnet", "wallet/getassetissuebyid", (), {"value": "\u00b9"}, "value", "asset-id"),
    ("tron-mainnet", "wallet/gettransactioninfobyblocknum", (), {"num": 2**64}, "num", "max"),
    ("tron-mainnet", "wallet/getassetissuebyname", (), {"value": "41 42"}, "value", "hex-text"),
    ("tron-mainnet", "wallet/getassetissuebyname", (), {"value": None}, "value", "required"),
    ("ton-mainnet", "api/v2/getTokenData", (), {"address": "5:" + "ab" * 32}, "address", "address"),
    ("ton-mainnet", "api/v2/getTokenData", (), {"address": TON_RAW + "ab"}, "address", "address"),
    ("solana-mainnet", "simulateTransaction", (42,), {}, "transaction", "type"),
    ("solana-mainnet", "simulateTransaction", ("z" * 60_000,), {}, "transaction", "max"),
    # Platform
    ("platform", "v2/nodes/", (), {"ordering": "size"}, "ordering", "choice"),
    ("platform", "v2/nodes/", (), {"ordering": "+name"}, "ordering", "choice"),
    ("platform", "v2/nodes/", (), {"page": 0}, "page", "min"),
    ("platform", "v2/nodes/", (), {"page": "2"}, "page", "type"),
]


def _client(gateway, node):
    return gateway.platform if node == "platform" else gateway.node(node)


def test_the_matrix_has_at_least_fifty_inputs():
    assert len(BAD_INPUTS) >= 50


@pytest.mark.parametrize(
    ("node", "method", "args", "kwargs", "param", "rule"),
    BAD_INPUTS,
    ids=[f"{str(row[1])[:20]}-{row[5]}-{index}" for index, row in enumerate(BAD_INPUTS)],
)
def test_bad_input_is_refused_before_sending(
    gateway, server_requests, node, method, args, kwargs, param, rule
):
    client = _client(gateway, node)
    with pytest.raises(toolkit.ValidationError) as caught:
        client.call(method, *args, **kwargs)
    error = caught.value
    assert (error.param, error.rule) == (param, rule), str(error)
    if param:
        assert str(error).startswith(f"{param}: ")
    assert server_requests() == 0
    assert gateway.ledger.total_ru == 0 and len(gateway.ledger) == 0


def test_helpers_validate_too(gateway, server_requests):
    with pytest.raises(toolkit.ValidationError, match="must be hex with the 0x prefix"):
        gateway.node("ethereum-mainnet").get_balance(EVM, block="17000000")
    with pytest.raises(toolkit.ValidationError, match="at most 100"):
        gateway.node("tron-mainnet").get_block_by_latest_num(500)
    with pytest.raises(toolkit.ValidationError, match="arbtrace_"):
        gateway.node("arbitrum-mainnet").print_block(1)
    with pytest.raises(toolkit.ValidationError, match="cannot both be true"):
        gateway.node("solana-mainnet").simulate_transaction(
            TX_B64, sig_verify=True, replace_recent_blockhash=True
        )
    assert server_requests() == 0


def test_helpers_refuse_hostile_input_too(gateway, server_requests):
    solana, tron = gateway.node("solana-mainnet"), gateway.node("tron-mainnet")
    cases = [
        (lambda: solana.simulate_transaction(42), "transaction", "type"),  # not 42 zero bytes
        (lambda: solana.simulate_transaction([1, 2]), "transaction", "type"),
        (lambda: solana.simulate_transaction(b"\x01" * 60_000), "transaction", "max"),
        (lambda: tron.get_asset_issue_by_name(None), "value", "required"),
        (lambda: tron.get_asset_issue_by_name(7), "value", "type"),
        (lambda: tron.get_asset_issue_by_name("\ud800"), "value", "utf-8"),
        (lambda: tron.get_asset_issue_list_by_name(b"x", visible=False), "value", "type"),
        (lambda: tron.get_asset_issue_by_id("\uff11\uff10"), "value", "asset-id"),
        (lambda: gateway.node("ethereum-mainnet").get_balance(EVM, "\u00b2"), "block", "block"),
    ]
    for call, param, rule in cases:
        with pytest.raises(toolkit.ValidationError) as caught:
            call()
        assert (caught.value.param, caught.value.rule) == (param, rule), str(caught.value)
    assert server_requests() == 0


def test_a_web3_style_call_object_points_to_call_contract(gateway):
    with pytest.raises(toolkit.ValidationError, match="call_contract") as caught:
        gateway.node("ethereum-mainnet").call({"to": EVM, "data": "0x"})
    assert caught.value.param == "method"


def test_a_60000_character_transaction_is_refused_fast(gateway):
    import time

    solana = gateway.node("solana-mainnet")
    started = time.perf_counter()
    for text in ("z" * 60_000, "1" * 60_000, "A" * 60_000):
        for encoding in ("base58", "base64"):
            with pytest.raises(toolkit.ValidationError, match="characters"):
                solana.simulate_transaction(text, encoding=encoding)
    # Linear: well under a second unloaded; the old quadratic decoder took ~15 s. The bound is
    # loose so a busy CI machine does not fail it; bench-style speed belongs in bench/.
    assert time.perf_counter() - started < 5


def test_a_bad_async_transport_is_refused_when_the_client_is_made():
    with pytest.raises(toolkit.ValidationError) as caught:
        toolkit.node("http://127.0.0.1:9/KEY0123456789", chain="ethereum", async_transport="curl")
    assert (caught.value.param, caught.value.rule) == ("async_transport", "choice")


@pytest.mark.parametrize("value", ["no", 0, None])
def test_trust_env_must_be_a_bool(value):
    # "no" would be truthy: refused rather than read as True.
    with pytest.raises(toolkit.ValidationError) as caught:
        toolkit.connect("https://api.example", "k" * 32, trust_env=value)
    assert (caught.value.param, caught.value.rule) == ("trust_env", "type")


@pytest.mark.parametrize(
    ("options", "param"),
    [
        ({"cache": 3}, "cache"),
        ({"rate_limit": 0}, "rate_limit"),
        ({"rate_limit": -2.5}, "rate_limit"),
    ],
)
def test_bad_client_options_are_refused_when_the_client_is_made(options, param):
    with pytest.raises(toolkit.ValidationError) as caught:
        toolkit.node("http://127.0.0.1:9/KEY0123456789", chain="ethereum", **options)
    assert caught.value.param == param


def test_the_platform_api_is_refused_over_plain_http_except_on_loopback():
    with pytest.raises(toolkit.ValidationError, match="HTTPS") as caught:
        toolkit.platform("http://api.example.com", "KEY0123456789")
    assert caught.value.rule == "https"
    toolkit.platform("http://127.0.0.1:9", "KEY0123456789")  # loopback: allowed
    toolkit.platform("https://api.example.com", "KEY0123456789")


@pytest.mark.parametrize("chain", [5, b"ethereum", ["ethereum"], 1.5])
def test_a_chain_that_is_not_text_is_a_validation_error(chain):
    with pytest.raises(toolkit.ValidationError) as caught:
        toolkit.node("http://127.0.0.1:9/KEY0123456789", chain=chain)
    assert (caught.value.param, caught.value.rule) == ("chain", "type")


def test_huge_names_are_refused_fast_with_short_messages(gateway, server_requests):
    import time

    node = gateway.node("ethereum-mainnet")
    started = time.perf_counter()
    with pytest.raises(toolkit.ValidationError) as unknown_method:
        node.call("x" * 100_000)
    with pytest.raises(toolkit.ValidationError) as unknown_keyword:
        node.call("eth_getBalance", EVM, **{"x" * 100_000: 1})
    with pytest.raises(toolkit.ValidationError) as unknown_field:
        node.call("eth_call", {"to": EVM, "y" * 100_000: 1})
    assert time.perf_counter() - started < 1  # no quadratic close-match search on huge names
    for caught in (unknown_method, unknown_keyword, unknown_field):
        assert len(str(caught.value)) < 400
    assert server_requests() == 0
