"""EVM read methods beyond the spec: what a web3.py user calls right after `get_block`.

The gateway's spec lists no ``eth_getTransactionByHash``, ``eth_getTransactionReceipt``,
``eth_feeHistory`` or ``eth_estimateGas``, but every real EVM node answers them, and web3.py's
``w3.eth.get_transaction``, ``get_transaction_receipt``, ``fee_history`` and ``estimate_gas`` ask
for them. The sandbox answers them as geth does, from the same blocks it serves:

- a transaction found by its hash is the one in its block's body (as ``eth_getBlockByNumber``
  with full transactions shows it); an unknown hash is ``null``, as geth answers. A transaction is
  found when its block was served since the sandbox started, or is among the 1,000 blocks under
  the head;
- its receipt: status 1, gas used three quarters of its gas (what the block's ``gasUsed`` sums),
  the running total of the block, the price it paid, and its log, the token's Transfer or
  Approval (the same log, index and all, as ``eth_getLogs`` gives), with that log's bloom (the
  block's ``logsBloom`` is its receipts' ORed); the token's deployment names it as the
  ``contractAddress`` it created;
- ``eth_feeHistory``: the chain's base fee (constant in the sandbox), each block's gas used
  ratio, and the tips paid at the percentiles asked for; at most 1,024 blocks, as geth;
- ``eth_estimateGas``: 21,000 plus calldata gas for a call to an account without code, the gas a
  token transfer uses in the sandbox's blocks for one to the token, "insufficient funds for
  transfer" when the sender's balance does not cover the value.

They take JSON-RPC params as geth does (no catalog entry to validate them by), and the meter
prices them by the pricing table's rule for their name, as the client does through `call_raw`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..catalog import encoding as enc
from ._jsonrpc import INVALID_PARAMS, SERVER_ERROR, RpcError

if TYPE_CHECKING:
    from ._evm import EvmChain

RawHandler = Callable[[list[Any], int], Any]
SCAN_BLOCKS = 1_000  # blocks under the head searched for a transaction not seen yet
MAX_FEE_HISTORY = 1_024  # geth's cap on a fee history's block count


def beyond_spec_handlers(chain: EvmChain) -> dict[str, RawHandler]:
    """The methods beyond the spec for `chain`, as ``(params, head) -> result``."""
    methods = _Beyond(chain)
    return {
        "eth_getTransactionByHash": methods.transaction,
        "eth_getTransactionReceipt": methods.receipt,
        "eth_feeHistory": methods.fee_history,
        "eth_estimateGas": methods.estimate_gas,
    }


def _param(params: list[Any], index: int, name: str, default: Any = ...) -> Any:
    if not isinstance(params, list):
        raise RpcError(INVALID_PARAMS, "Invalid params: must be an array")
    if index < len(params):
        return params[index]
    if default is ...:
        raise RpcError(INVALID_PARAMS, f"missing value for required argument {index} ({name})")
    return default


def _hash(value: Any) -> str:
    if not (isinstance(value, str) and len(value) == 66 and value[:2] == "0x"):
        raise RpcError(INVALID_PARAMS, "invalid argument 0: hex string has length != 64")
    try:
        int(value, 16)
    except ValueError:
        raise RpcError(INVALID_PARAMS, "invalid argument 0: invalid hex string") from None
    return value.lower()


def _number(value: Any, what: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if isinstance(value, str):
        try:
            return int(value, 16) if value[:2] == "0x" else int(value)
        except ValueError:
            pass
    raise RpcError(INVALID_PARAMS, f"invalid argument: {what} must be a quantity")


class _Beyond:
    def __init__(self, chain: EvmChain):
        self.chain = chain

    # --- finding a transaction ----------------------------------------------------------------

    def _find(self, wanted: str, head: int) -> tuple[dict[str, Any], int] | None:
        from ._evm import tx_hash

        chain = self.chain
        number = chain.tx_seen.get(wanted)
        if number is None:
            for candidate in range(head, max(-1, head - SCAN_BLOCKS), -1):
                chain.body(candidate)  # records its transactions' hashes
                if wanted in chain.tx_seen:
                    number = chain.tx_seen[wanted]
                    break
        if number is None or number > head:
            return None
        for tx in chain.body(number)[0]:
            if tx_hash(tx) == wanted:
                return tx, number
        return None

    def transaction(self, params: list[Any], head: int) -> dict[str, Any] | None:
        found = self._find(_hash(_param(params, 0, "hash")), head)
        if found is None:
            return None
        tx, number = found
        return self.chain._transaction_json(tx, number, self.chain.header(number).hash)

    def receipt(self, params: list[Any], head: int) -> dict[str, Any] | None:
        from ._evm import gas_used_of, logs_bloom, token_address, tx_hash

        found = self._find(_hash(_param(params, 0, "hash")), head)
        if found is None:
            return None
        tx, number = found
        chain = self.chain
        rendered = chain._transaction_json(tx, number, chain.header(number).hash)
        own_hash = tx_hash(tx)
        cumulative = 0
        for other in chain.body(number)[0]:  # the block's transactions, in order, up to this one
            cumulative += gas_used_of(other["gas"])
            if tx_hash(other) == own_hash:
                break
        logs = [log for log in chain._token_logs(number) if log["transactionHash"] == own_hash]
        return {
            "blockHash": rendered["blockHash"],
            "blockNumber": rendered["blockNumber"],
            # A creation's receipt names the contract it made: only the token's deployment.
            "contractAddress": token_address().lower() if tx.get("to", "") is None else None,
            "cumulativeGasUsed": enc.to_quantity(cumulative),
            "effectiveGasPrice": rendered["gasPrice"],
            "from": rendered["from"],
            "gasUsed": enc.to_quantity(gas_used_of(tx["gas"])),
            "logs": logs,
            "logsBloom": "0x" + logs_bloom(logs).hex(),
            "status": "0x1",
            "to": rendered["to"],
            "transactionHash": own_hash,
            "transactionIndex": rendered["transactionIndex"],
            "type": rendered["type"],
        }

    # --- fees -----------------------------------------------------------------------------------

    def fee_history(self, params: list[Any], head: int) -> dict[str, Any]:
        count = _number(_param(params, 0, "blockCount"), "blockCount")
        newest = _param(params, 1, "newestBlock")
        if isinstance(newest, int) and not isinstance(newest, bool):
            newest = enc.to_quantity(newest)
        if not isinstance(newest, str):
            raise RpcError(INVALID_PARAMS, "invalid argument 1: a block number or tag")
        try:
            last = self.chain.block_at(newest, head)
        except ValueError:
            raise RpcError(INVALID_PARAMS, "invalid argument 1: a block number or tag") from None
        percentiles = _param(params, 2, "rewardPercentiles", None)
        if percentiles is not None and (
            not isinstance(percentiles, list)
            or not all(isinstance(p, int | float) and 0 <= p <= 100 for p in percentiles)
            or percentiles != sorted(percentiles)
        ):
            raise RpcError(INVALID_PARAMS, "invalid reward percentiles: 0 to 100, ascending")
        count = min(count, MAX_FEE_HISTORY, last + 1)
        if count == 0:
            return {"oldestBlock": "0x0", "baseFeePerGas": [], "gasUsedRatio": []}
        first = last - count + 1
        profile = self.chain.profile
        ratios, rewards = [], []
        for number in range(first, last + 1):
            transactions, gas_used, _ = self.chain.body(number)
            ratios.append(gas_used / profile.gas_limit)
            if percentiles is not None:
                rewards.append(self._rewards(transactions, percentiles))
        history: dict[str, Any] = {
            "oldestBlock": enc.to_quantity(first),
            "baseFeePerGas": [enc.to_quantity(profile.base_fee_wei)] * (count + 1),
            "gasUsedRatio": ratios,
        }
        if percentiles is not None:
            history["reward"] = rewards
        return history

    def _rewards(self, transactions: list[dict[str, Any]], percentiles: list[float]) -> list[str]:
        """The tips paid at each percentile of gas used, as geth weighs them."""
        from ._evm import gas_used_of

        base = self.chain.profile.base_fee_wei
        paid = sorted(
            (min(tx["tip"], tx["fee_cap"] - base), gas_used_of(tx["gas"]))
            for tx in transactions
            if "tip" in tx
        )
        if not paid:
            return ["0x0"] * len(percentiles)
        total = sum(gas for _, gas in paid)
        rewards = []
        for percentile in percentiles:
            threshold, spent, index = total * percentile / 100, 0, 0
            for index, (_, gas) in enumerate(paid):  # noqa: B007 (the last index is used)
                spent += gas
                if spent >= threshold:
                    break
            rewards.append(enc.to_quantity(paid[index][0]))
        return rewards

    def estimate_gas(self, params: list[Any], head: int) -> str:
        from ._evm import TOKEN_GAS_USED, token_address

        call = _param(params, 0, "transaction")
        if not isinstance(call, dict):
            raise RpcError(INVALID_PARAMS, "invalid argument 0: a transaction object")
        block = _param(params, 1, "block", "latest")
        number = self.chain.block_at(block if isinstance(block, str) else "latest", head)
        try:
            value = int(call.get("value", "0x0"), 16)
            data = bytes.fromhex(str(call.get("data", call.get("input", "0x")))[2:])
        except (TypeError, ValueError):
            raise RpcError(INVALID_PARAMS, "invalid argument 0: hex fields") from None
        sender = call.get("from", "0x" + "00" * 20)
        if value and self.chain.balance(sender, number) < value:
            raise RpcError(SERVER_ERROR, "insufficient funds for transfer")
        to = str(call.get("to") or "")
        if to.lower() == token_address().lower() and self.chain.token_exists(to, number):
            if value:
                raise RpcError(SERVER_ERROR, "execution reverted")  # the token is not payable
            return enc.to_quantity(TOKEN_GAS_USED)
        calldata = sum(16 if byte else 4 for byte in data)
        return enc.to_quantity(21_000 + calldata)
