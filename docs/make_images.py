"""Render the guides' plot images from the embedded sandbox: `python docs/make_images.py`."""

from pathlib import Path

import toolkit
from toolkit import frames, plots
from toolkit.sandbox import DEMO, Sandbox

HERE = Path(__file__).resolve().parent / "images"


def main() -> None:
    HERE.mkdir(exist_ok=True)
    with Sandbox(seed=0, head_pace=0) as sandbox:
        info = sandbox.info
        gw = toolkit.Gateway(info["platform_url"], info["api_key"], nodes=info["nodes"])
        eth = gw.node("ethereum-mainnet")
        head = eth.head()
        blocks = range(head - 200_000, head + 1, 5_000)
        accounts = {name: DEMO.evm.accounts[name] for name in ("dave", "erin", "carol")}
        records = [
            (address, block, eth.get_balance(address, block=block))
            for address in accounts.values()
            for block in blocks
        ]
        figure, _ = plots.plot_balances(frames.evm_balances(records))
        figure.savefig(HERE / "balances.png", dpi=110, bbox_inches="tight")

        tron = gw.node("tron-mainnet")
        latest = tron.get_block_by_latest_num(1)["block"][0]["block_header"]["raw_data"]["number"]
        infos = [
            info
            for number in range(latest - 30, latest + 1)
            for info in tron.get_transaction_info_by_block_num(number)
        ]
        figure, _ = plots.plot_fees_per_block(frames.tron_transaction_infos(infos))
        figure.savefig(HERE / "tron_fees.png", dpi=110, bbox_inches="tight")
        print(gw.ledger.summary().to_string(index=False))


if __name__ == "__main__":
    main()
