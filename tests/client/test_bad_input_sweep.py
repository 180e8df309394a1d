"""A generated sweep of hostile input: for every parameter of every method (nested fields
included), values built from its kind (Unicode digits, widths one past the limit, whitespace,
Python-lenient spellings, type confusions) go through the client against the sandbox. Each is a
ValidationError naming that parameter, and the sandbox answers no request (0 RU)."""

from __future__ import annotations

import pytest

import toolkit
from toolkit.catalog import METHODS, Param
from toolkit.catalog.encoding import tron_to_base58

EVM = "0x" + "ab" * 20
TRON_HEX = "41" + "a6" * 20
TRON_B58 = tron_to_base58(TRON_HEX)
TON_RAW = "0:" + "ab" * 32
TX_B64 = "AQ=="
PUBKEY = "11111111111111111111111111111111"  # the system program: 32 zero bytes

# A valid call of each spec method with parameters, by keyword (each is bound below, so a sweep
# failure is the bad value's doing, not the rest of the call's); other methods take the
# sandbox's example inputs.
VALID: dict[str, dict] = {
    "eth_getBalance": {"address": EVM, "block": "latest"},
    "eth_getStorageAt": {"address": EVM, "slot": 0, "block": "latest"},
    "eth_call": {"call": {"to": EVM}, "block": "latest"},
    "debug_printBlock": {"number": 22_207_815},
    "bor_getRootHash": {"from": 1, "to": 2},
    "simulateTransaction": {
        "transaction": TX_B64,
        "config": {"encoding": "base64", "accounts": {"addresses": [PUBKEY]}},
    },
    "wallet/getassetissuebyname": {"value": "53616e64", "visible": False},
    "wallet/getassetissuelistbyname": {"value": "Sand", "visible": True},
    "wallet/getassetissuebyid": {"value": "1000001"},
    "wallet/gettransactioninfobyblocknum": {"num": 1},
    "wallet/getblockbylatestnum": {"num": 1},
    "wallet/proposaldelete": {"owner_address": TRON_HEX, "proposal_id": 1},
    "web3_sha3": {"data": "0x68"},
    "api/v2/getTokenData": {"address": TON_RAW},
    "api/v2/jsonRPC": {"method": "unpackAddress", "params": {"address": TON_RAW}},
    "v2/nodes/": {"ordering": "name", "page": 1},
}

# Type confusions every parameter must refuse (None is "not given", so it is not here).
CONFUSIONS = [1.5, float("nan"), b"\x01", [1], {"a": 1}, object(), True]

FULL_WIDTH_1 = "\uff11"
ARABIC_1 = "\u0661"
SUPERSCRIPT_2 = "\u00b2"
WHITESPACE = [" ", "\n", "\t", "\u00a0", "\u2003"]


def _spaced(valid: str) -> list[str]:
    return [w + valid for w in WHITESPACE[:2]] + [valid + w for w in WHITESPACE]


def _bad_for(kind: str, valid) -> list:
    """Hostile values for one kind of parameter (`valid` is the sweep's own good value)."""
    text = [SUPERSCRIPT_2, ARABIC_1 + ARABIC_1, FULL_WIDTH_1, "", "\ud800"]
    if kind in ("block", "block-number"):
        return [
            2**63,
            2**64,
            2**256,
            -1,
            "0x8000000000000000",
            "0x_1",
            "0X1",
            "0x" + FULL_WIDTH_1,
            "0x01",
            "0x" + "1" * 17,
            "1_000",
            *_spaced("0x1"),
            *text,
            *CONFUSIONS,
        ] + (["latest\n", "LATEST", " latest"] if kind == "block" else ["latest"])
    if kind == "quantity":  # slot, value, gasprice: uint256; gas: uint64 (see below)
        return [
            2**256,
            -1,
            "0x" + "1" * 65,
            "0x_1",
            "0X1",
            "0x",
            "0x" + FULL_WIDTH_1,
            "0x1" + SUPERSCRIPT_2,
            "12",
            *_spaced("0x1"),
            *text,
            *CONFUSIONS,
        ]
    if kind == "int":
        return [2**63, -(2**63) - 1, 10**4400, "5", ARABIC_1, "0x1", *CONFUSIONS]
    if kind == "bool":
        return ["true", "false", 1, 0, 1.0, b"", [], {}]
    if kind == "text":
        return ["", "\ud800", "x" * 1025, 5, b"name", ["a"], *CONFUSIONS[:-1]]
    if kind == "hex":
        return ["0x123", "0x" + FULL_WIDTH_1 * 2, "0x_12", "68", *_spaced("0x68"), 5, [1]]
    if kind == "evm-address":
        return [
            EVM + "ab",
            EVM[:-2],
            EVM[2:],
            EVM[:-1] + FULL_WIDTH_1,
            "0x" + "aB" * 20,
            *_spaced(EVM),
            int(EVM, 16),
            EVM.encode(),
            *CONFUSIONS,
        ]
    if kind == "tron-address":
        return [
            "T" + "1" * 33,
            "T" * 60_000,
            TRON_HEX + "ab",
            TRON_HEX[:-1] + FULL_WIDTH_1,
            *_spaced(TRON_HEX),
            *_spaced(TRON_B58),
            TRON_B58[:-1] + "\uff21",
            *text,
            *CONFUSIONS,
        ]
    if kind == "ton-address":
        return [
            "5:" + "ab" * 32,
            "1:" + "ab" * 32,
            "-2:" + "ab" * 32,
            "0:" + "ab" * 33,
            "0:" + "ab" * 31,
            "00:" + "ab" * 32,
            "0:" + "ab" * 31 + FULL_WIDTH_1 * 2,
            *_spaced(TON_RAW),
            "E" * 48,
            *text,
            *CONFUSIONS,
        ]
    if kind == "asset-id":
        return [
            ARABIC_1 * 3,
            SUPERSCRIPT_2,
            FULL_WIDTH_1 * 7,
            "0123",
            "1_000_001",
            "-1",
            2**63,
            -1,
            "9" * 20,
            *_spaced("1000001"),
            "",
            *CONFUSIONS,
        ]
    if kind == "solana-tx":
        return [42, "z" * 60_000, "A" * 1700, "AQ==\n", " AQ==", "AQ" + FULL_WIDTH_1, *text[:-1]]
    if kind == "address-list":
        return [PUBKEY, [PUBKEY + "\n"], [" " + PUBKEY], [1], ["z" * 60_000], [None], 5]
    if kind == "object":
        return ["x", [1], 5, True, b"{}"]
    if kind == "hash":
        word = "0x" + "ab" * 32
        return [word[:-2], word + "ab", word[2:], word[:-1] + FULL_WIDTH_1, *_spaced(word), *text]
    if kind == "evm-addresses":
        return [EVM[:-2], [EVM, EVM[:-2]], [EVM + "\n"], [5], *text, *CONFUSIONS[:3]]
    if kind == "topics":
        word = "0x" + "ab" * 32
        return ["x", [word[:-2]], [[word, "0x1"]], [word] * 5, [5], 5, word, b"x"]
    raise AssertionError(f"no hostile values for kind {kind!r}: add them to the sweep")


def _cases():
    """(method, path, kwargs) for every parameter and nested field, every hostile value."""
    for method in METHODS:
        if not method.params:
            continue
        valid = VALID.get(method.name) or _example(method.name)
        for param in method.params:
            for path, bad in _param_values(param, valid.get(param.name)):
                kwargs = _with(valid, path, bad)
                yield method, path, kwargs


def _example(name: str) -> dict:
    """A valid call of a method the table above does not list: the sandbox's example inputs."""
    from toolkit.examples import world_examples
    from toolkit.sandbox import Sandbox

    examples = world_examples(Sandbox().world)
    return examples.inputs(name, head=1_000_000 if examples.needs_head(name) else None)


def _param_values(param: Param, valid):
    values = list(_bad_for(param.kind.name, valid))
    if param.name == "gas":
        values += [2**64, "0x1" + "0" * 16]
    if param.choices:
        first = param.choices[0]
        if isinstance(first, str):
            values += [first.upper(), first + "\n", " " + first, _full_width(first)]
    if param.name == "params":  # TON's free-form JSON: only JSON values, bounded nesting
        deep: dict = {}
        for _ in range(40):
            deep = {"a": deep}
        values = ["x", [1], {"address": float("nan")}, {1: "x"}, {"a": {1, 2}}, deep]
    for bad in values:
        yield param.name, bad
    for field in param.fields:
        inner = (valid or {}).get(field.name)
        for path, bad in _param_values(field, inner):
            yield f"{param.name}.{path}", bad


def _full_width(text: str) -> str:
    """The same word in full-width letters (U+FF01...), which look alike and are not ASCII."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def _with(valid: dict, path: str, bad) -> dict:
    """A copy of `valid` with the value at dotted `path` replaced by `bad`."""
    head, _, rest = path.partition(".")
    out = dict(valid)
    if not rest:
        out[head] = bad
    else:
        out[head] = _with(dict(valid.get(head) or {}), rest, bad)
    return out


CASES = list(_cases())
BY_PARAM: dict[tuple[str, str], list] = {}
for _method, _path, _kwargs in CASES:
    BY_PARAM.setdefault((_method.name, _path), []).append(_kwargs)


def test_every_valid_call_binds_and_every_kind_is_swept():
    for name, kwargs in VALID.items():
        next(m for m in METHODS if m.name == name).bind(**kwargs)
    swept = {(m.name, path.split(".")[0]) for m, path, _ in CASES}
    for method in METHODS:
        for param in method.params:
            assert (method.name, param.name) in swept
    assert len(CASES) >= 600


def _node_of(method) -> str:
    chain = method.chains[0]
    return "platform" if chain == "platform" else f"{chain}-mainnet"


@pytest.mark.parametrize(("method", "path"), list(BY_PARAM), ids=lambda v: str(v))
def test_hostile_values_are_refused_naming_the_parameter(gateway, server_requests, method, path):
    catalog_method = next(m for m in METHODS if m.name == method)
    node = _node_of(catalog_method)
    client = gateway.platform if node == "platform" else gateway.node(node)
    wrong = []
    for kwargs in BY_PARAM[(method, path)]:
        try:
            client.call(method, **kwargs)
        except toolkit.ValidationError as error:
            if error.param != path or not str(error).startswith(f"{path}: "):
                wrong.append(f"{kwargs!r:.120}: named {error.param!r} ({error})")
        except Exception as error:  # any other type is the failure this looks for
            wrong.append(f"{kwargs!r:.120}: {type(error).__name__}: {error}")
        else:
            wrong.append(f"{kwargs!r:.120}: accepted and sent")
    assert wrong == []
    assert server_requests() == 0
    assert gateway.ledger.total_ru == 0 and len(gateway.ledger) == 0
