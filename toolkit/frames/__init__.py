"""Gateway responses as pandas DataFrames.

Every function here is a pure function of the response: it takes what a client call returned (the
JSON-RPC `result`, or the REST body) or the same JSON loaded from disk, envelope included, and does
no I/O. Frames follow the toolkit's data conventions: exact integers (Python ints in object columns
for wei, sun, lamports and supplies, plus float columns in ETH/TRX/SOL), timezone-aware UTC
timestamps, decoded hex text beside the raw value, and NA for anything missing. Input of the wrong
shape raises `FrameError` (a `ValueError`) saying which shape was expected.

Every frame function whose method a `Workload` can run also takes the frame of the run
(``frames.evm_balances(work.run())``): it reads the rows of its methods (`RUN_METHODS`), their
parameters and answers (`run_answers`).

`readable(frame)` shows a frame for people (thousands separators, no scientific notation, whole
texts) without changing its data.
"""

from typing import Any

from .._renamed import renamed_attribute
from ._contracts import EVM_EVENTS, evm_events, evm_reads
from ._convert import FrameError
from ._display import human_number, readable
from ._evm import (
    evm_balances,
    evm_block_transactions,
    evm_block_withdrawals,
    evm_blocks,
    evm_logs,
    evm_printed_blocks,
    evm_root_hashes,
    quantity,
)
from ._parquet import ParquetError, from_arrow, read_parquet, to_arrow, to_parquet
from ._platform import NODE_STATUSES, platform_nodes
from ._runs import RUN_METHODS, Answer, run_answers
from ._solana import (
    LOG_KINDS,
    solana_simulation_accounts,
    solana_simulation_balances,
    solana_simulation_inner_instructions,
    solana_simulation_logs,
    solana_simulation_return_data,
    solana_simulation_summary,
    solana_simulation_token_balances,
)
from ._ton import ton_address_forms, ton_masterchain_info, ton_token_data
from ._tron import (
    tron_asset_issues,
    tron_block_transactions,
    tron_blocks,
    tron_transaction,
    tron_transaction_infos,
)
from ._tron_state import tron_account, tron_account_assets, tron_node_info, tron_node_peers

# Frame functions are named <chain>_<what a row is> (evm_blocks, tron_account_assets); the old
# names of those that were not are kept one release, with a DeprecationWarning.
RENAMED = {
    "balances_frame": "evm_balances",
    "print_block_frame": "evm_printed_blocks",
    "root_hashes": "evm_root_hashes",
    "asset_issues": "tron_asset_issues",
    **{
        f"simulation_{rows}": f"solana_simulation_{rows}"
        for rows in (
            "summary",
            "logs",
            "balances",
            "token_balances",
            "accounts",
            "inner_instructions",
            "return_data",
        )
    },
}


def __getattr__(name: str) -> Any:
    return renamed_attribute(__name__, RENAMED, globals(), name)


__all__ = [
    "EVM_EVENTS",
    "LOG_KINDS",
    "NODE_STATUSES",
    "RUN_METHODS",
    "Answer",
    "FrameError",
    "ParquetError",
    "evm_balances",
    "evm_block_transactions",
    "evm_block_withdrawals",
    "evm_blocks",
    "evm_events",
    "evm_logs",
    "evm_printed_blocks",
    "evm_reads",
    "evm_root_hashes",
    "from_arrow",
    "human_number",
    "platform_nodes",
    "quantity",
    "read_parquet",
    "readable",
    "run_answers",
    "solana_simulation_accounts",
    "solana_simulation_balances",
    "solana_simulation_inner_instructions",
    "solana_simulation_logs",
    "solana_simulation_return_data",
    "solana_simulation_summary",
    "solana_simulation_token_balances",
    "to_arrow",
    "to_parquet",
    "ton_address_forms",
    "ton_masterchain_info",
    "ton_token_data",
    "tron_account",
    "tron_account_assets",
    "tron_asset_issues",
    "tron_block_transactions",
    "tron_blocks",
    "tron_node_info",
    "tron_node_peers",
    "tron_transaction",
    "tron_transaction_infos",
]
