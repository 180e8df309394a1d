"""Gateway responses as pandas DataFrames.

Every function here is a pure function of the response: it takes what a client call returned (the
JSON-RPC `result`, or the REST body) or the same JSON loaded from disk, envelope included, and does
no I/O. Frames follow the toolkit's data conventions: exact integers (Python ints in object columns
for wei, sun, lamports and supplies, plus float columns in ETH/TRX/SOL), timezone-aware UTC
timestamps, decoded hex text beside the raw value, and NA for anything missing. Input of the wrong
shape raises `FrameError` (a `ValueError`) saying which shape was expected.

Every frame function whose method a `Workload` can run also takes the frame of the run
(``frames.balances_frame(work.run())``): it reads the rows of its methods (`RUN_METHODS`), their
parameters and answers (`run_answers`).

`readable(frame)` shows a frame for people (thousands separators, no scientific notation, whole
texts) without changing its data.
"""

from ._convert import FrameError
from ._display import human_number, readable
from ._evm import (
    balances_frame,
    evm_block_transactions,
    evm_block_withdrawals,
    evm_blocks,
    evm_logs,
    print_block_frame,
    quantity,
    root_hashes,
)
from ._parquet import ParquetError, from_arrow, read_parquet, to_arrow, to_parquet
from ._platform import NODE_STATUSES, platform_nodes
from ._runs import RUN_METHODS, Answer, run_answers
from ._solana import (
    LOG_KINDS,
    simulation_accounts,
    simulation_balances,
    simulation_inner_instructions,
    simulation_logs,
    simulation_return_data,
    simulation_summary,
    simulation_token_balances,
)
from ._ton import ton_address_forms, ton_masterchain_info, ton_token_data
from ._tron import (
    asset_issues,
    tron_block_transactions,
    tron_blocks,
    tron_transaction,
    tron_transaction_infos,
)
from ._tron_state import tron_account, tron_account_assets, tron_node_info, tron_node_peers

__all__ = [
    "LOG_KINDS",
    "NODE_STATUSES",
    "RUN_METHODS",
    "Answer",
    "FrameError",
    "ParquetError",
    "asset_issues",
    "balances_frame",
    "evm_block_transactions",
    "evm_block_withdrawals",
    "evm_blocks",
    "evm_logs",
    "from_arrow",
    "human_number",
    "platform_nodes",
    "print_block_frame",
    "quantity",
    "read_parquet",
    "readable",
    "root_hashes",
    "run_answers",
    "simulation_accounts",
    "simulation_balances",
    "simulation_inner_instructions",
    "simulation_logs",
    "simulation_return_data",
    "simulation_summary",
    "simulation_token_balances",
    "to_arrow",
    "to_parquet",
    "ton_address_forms",
    "ton_masterchain_info",
    "ton_token_data",
    "tron_account",
    "tron_account_assets",
    "tron_block_transactions",
    "tron_blocks",
    "tron_node_info",
    "tron_node_peers",
    "tron_transaction",
    "tron_transaction_infos",
]
