"""Solana simulateTransaction frames, in the wrapped, bare and enveloped shapes."""

from __future__ import annotations

import base64

import pandas as pd
import pytest

from toolkit.frames import (
    LOG_KINDS,
    FrameError,
    solana_simulation_accounts,
    solana_simulation_balances,
    solana_simulation_inner_instructions,
    solana_simulation_logs,
    solana_simulation_return_data,
    solana_simulation_summary,
    solana_simulation_token_balances,
)
from toolkit.frames._solana import (
    ACCOUNT_COLUMNS,
    BALANCE_COLUMNS,
    INNER_INSTRUCTION_COLUMNS,
    LOG_COLUMNS,
    RETURN_DATA_COLUMNS,
    SUMMARY_COLUMNS,
    TOKEN_BALANCE_COLUMNS,
)

TOKEN = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"
ATA = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL"
SYSTEM = "11111111111111111111111111111111"


def test_summary_of_a_wrapped_result_in_an_envelope(load):
    df = solana_simulation_summary(load("solana_simulate_envelope"))
    assert tuple(df.columns) == SUMMARY_COLUMNS
    row = df.iloc[0]
    assert row["slot"] == 318912345 and row["api_version"] == "2.1.13"
    assert row["success"] and pd.isna(row["err"])
    assert row["units_consumed"] == 34556
    assert row["fee_lamports"] == 5000 and row["fee_sol"] == 5e-06
    assert row["replacement_blockhash"] == "8Xy3gCkJ1LqU4d3Z9ZkqJSA3xYbzbV2Rfr4f6ivW1mfq"
    assert row["last_valid_block_height"] == 297000150
    assert row["log_count"] == 32
    assert str(df["success"].dtype) == "boolean" and df["fee_lamports"].dtype == object


def test_summary_of_a_failed_bare_value(load):
    row = solana_simulation_summary(load("solana_simulate_failed_bare")).iloc[0]
    assert not row["success"]
    assert row["err"] == '{"InstructionError":[0,{"Custom":1}]}'
    assert pd.isna(row["slot"]) and pd.isna(row["replacement_blockhash"])


def test_summary_with_a_string_error_and_a_null_fee():
    row = solana_simulation_summary(
        {"context": {"slot": 1}, "value": {"err": "BlockhashNotFound"}}
    ).iloc[0]
    assert row["err"] == "BlockhashNotFound" and not row["success"]
    assert pd.isna(row["fee_lamports"]) and pd.isna(row["fee_sol"]) and row["log_count"] == 0


def test_logs_track_the_program_stack(load):
    df = solana_simulation_logs(load("solana_simulate_envelope"))
    assert tuple(df.columns) == LOG_COLUMNS
    assert list(df["kind"].cat.categories) == list(LOG_KINDS)
    # "Program log:" lines belong to whichever program is running at the time.
    assert df.loc[3, ["kind", "program_id", "depth"]].tolist() == ["log", ATA, 1]
    assert df.loc[5, ["program_id", "depth", "message"]].tolist() == [
        TOKEN,
        2,
        "Instruction: GetAccountDataSize",
    ]
    # After the inner System program returns, the ATA program is running again.
    assert df.loc[11, ["program_id", "depth", "invocation"]].tolist() == [ATA, 1, 1]
    consumed = df[df["kind"] == "consumed"]
    assert consumed["units_consumed"].tolist() == [1569, 1405, 4188, 20345, 6200, 3961]
    assert consumed["units_budget"].iloc[0] == 194092
    returned = df[df["kind"] == "return"].iloc[0]
    assert returned["program_id"] == TOKEN and returned["message"] == "pQAAAAAAAAA="
    assert df[df["kind"] == "data"]["message"].tolist() == ["aGVsbG8gd29ybGQ="]
    assert df["invocation"].max() == 7  # eight invokes, counted from 0


def test_logs_of_a_failure_and_of_a_plain_list(load):
    failed = solana_simulation_logs(load("solana_simulate_failed_bare"))
    last = failed.iloc[-1]
    assert last["kind"] == "failed" and last["message"] == "custom program error: 0x1"
    lines = ["Log truncated", "Program log: success", f"Program {SYSTEM} invoke [1]"]
    df = solana_simulation_logs(lines)
    assert df["kind"].tolist() == ["other", "log", "invoke"]
    assert df["depth"].tolist() == [0, 0, 1]
    assert pd.isna(df["program_id"][0]) and df["message"][1] == "success"


def test_logs_null_gives_an_empty_frame(load):
    value = load("solana_simulate_failed_bare") | {"logs": None}
    df = solana_simulation_logs(value)
    assert df.empty and tuple(df.columns) == LOG_COLUMNS


def test_balances_with_account_keys(load):
    df = solana_simulation_balances(load("solana_simulate_envelope"), load("solana_account_keys"))
    assert tuple(df.columns) == BALANCE_COLUMNS
    assert df["account"][0] == "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM"
    assert df["delta_lamports"][0] == -2044280
    assert df["delta_sol"][1] == 0.00203928
    assert df["pre_lamports"].dtype == object


def test_balances_keep_big_values_exact_and_pad_uneven_lists():
    value = {"preBalances": [2**65, 1], "postBalances": [2**65 + 7]}
    df = solana_simulation_balances(value)
    assert df["delta_lamports"].tolist() == [7, pd.NA]
    assert pd.isna(df["post_lamports"][1]) and pd.isna(df["account"][0])


def test_balances_append_loaded_addresses_to_the_keys():
    value = {"preBalances": [1, 2, 3], "postBalances": [1, 2, 3]}
    value["loadedAddresses"] = {"writable": ["W"], "readonly": ["R"]}
    assert solana_simulation_balances(value, ["A"])["account"].tolist() == ["A", "W", "R"]


def test_token_balances_join_pre_and_post(load):
    df = solana_simulation_token_balances(
        load("solana_simulate_envelope"), load("solana_account_keys")
    )
    assert tuple(df.columns) == TOKEN_BALANCE_COLUMNS
    assert df["account_index"].tolist() == [1, 3]
    created, spent = df.iloc[0], df.iloc[1]
    assert pd.isna(created["pre_amount"]) and created["delta"] == 1_500_000
    assert spent["pre_amount"] == 25_000_000 and spent["delta"] == -1_500_000
    assert spent["delta_ui"] == -1.5 and spent["decimals"] == 6
    assert created["account"] == "3ZmG7h1pQ3bQb1y4Lq7Vw2KpFhtcQHzR5Pe9s3Z6tJvX"


def test_token_amounts_beyond_u64_stay_exact():
    entry = {"accountIndex": 0, "mint": "M", "uiTokenAmount": {"amount": str(2**80), "decimals": 0}}
    df = solana_simulation_token_balances({"preTokenBalances": [], "postTokenBalances": [entry]})
    assert df["post_amount"][0] == 2**80 and type(df["post_amount"][0]) is int


def test_requested_accounts_including_a_null(load):
    df = solana_simulation_accounts(load("solana_simulate_envelope"), addresses=["A1", "A2"])
    assert tuple(df.columns) == ACCOUNT_COLUMNS
    assert df["found"].tolist() == [True, False]
    assert df["address"].tolist() == ["A1", "A2"]
    assert df["rent_epoch"][0] == 2**64 - 1
    assert df["data_encoding"][0] == "base64"
    encoded = load("solana_simulate_envelope")["result"]["value"]["accounts"][0]["data"][0]
    assert df["data"][0] == base64.b64decode(encoded) and df["data_len"][0] == 52
    assert pd.isna(df["lamports"][1]) and pd.isna(df["data"][1])


def test_requested_accounts_in_json_parsed_form(load):
    row = solana_simulation_accounts(load("solana_simulate_json_parsed")).iloc[0]
    assert row["data_encoding"] == "jsonParsed" and row["data_program"] == "spl-token"
    assert row["data_parsed"]["type"] == "account" and row["data_len"] == 165


def test_inner_instructions_compiled_with_keys(load):
    df = solana_simulation_inner_instructions(
        load("solana_simulate_envelope"), account_keys=load("solana_account_keys")
    )
    assert tuple(df.columns) == INNER_INSTRUCTION_COLUMNS
    assert df["instruction_index"].tolist() == [1, 1, 1, 1]
    assert df["inner_index"].tolist() == [0, 1, 2, 3]
    assert df["program_id"].tolist() == [TOKEN, SYSTEM, TOKEN, TOKEN]
    assert df["accounts"][1] == [0, 1] and df["stack_height"][0] == 2


def test_inner_instructions_json_parsed(load):
    df = solana_simulation_inner_instructions(load("solana_simulate_json_parsed"))
    assert df["program"].tolist() == ["spl-token", "spl-memo"]
    assert df["parsed_type"][0] == "transferChecked" and df["parsed"][1] == "hello"
    assert df["parsed"].dtype == object


def test_return_data_decoded(load):
    df = solana_simulation_return_data(load("solana_simulate_envelope"))
    assert tuple(df.columns) == RETURN_DATA_COLUMNS
    row = df.iloc[0]
    assert row["data"] == (165).to_bytes(8, "little")
    assert row["data_hex"] == "a500000000000000" and pd.isna(row["data_utf8"])
    text = solana_simulation_return_data({"programId": "P", "data": ["aGk=", "base64"]})
    assert text["data_utf8"][0] == "hi"
    assert solana_simulation_return_data(load("solana_simulate_failed_bare")).empty


@pytest.mark.parametrize(
    ("function", "payload", "message"),
    [
        (solana_simulation_summary, {"unrelated": 1}, "simulateTransaction"),
        (solana_simulation_summary, {"context": {"slot": 1}, "value": None}, "value"),
        (solana_simulation_summary, [1], "expected a simulateTransaction result"),
        (solana_simulation_logs, {"logs": "text"}, "logs: expected a JSON array"),
        (solana_simulation_logs, {"logs": [{"a": 1}]}, "logs: expected text"),
        (solana_simulation_balances, {"preBalances": ["x"]}, "preBalances: expected an integer"),
        (
            solana_simulation_accounts,
            {"accounts": [{"data": ["AA==", "base64", "x"]}]},
            "data, encoding",
        ),
        (
            solana_simulation_return_data,
            {"returnData": {"programId": "P", "data": ["%%%", "base64"]}},
            "not valid base64",
        ),
        (solana_simulation_inner_instructions, {"innerInstructions": [3]}, "JSON objects"),
    ],
)
def test_bad_shapes_raise_frame_error(function, payload, message):
    with pytest.raises(FrameError, match=message):
        function(payload)
