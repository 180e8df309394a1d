"""Absurd numbers typed into any numeric field of the widgets' forms are named at their field,
and Run stays disabled: never a raw ValueError or OverflowError out of the form."""

from __future__ import annotations

import pytest

from toolkit.widgets import MethodExplorer, workload_builder
from toolkit.widgets._examples import gateway_examples
from toolkit.widgets._form import _NUMBER_KINDS, TextField

ABSURD = ["9" * 5_000, "-" + "9" * 5_000, str(2**256), "0x" + "f" * 5_000]
NODES = ["ethereum-mainnet", "tron-mainnet", "solana-mainnet"]  # TON has no numeric field


def numeric_fields(explorer):
    return [
        field
        for field in explorer.form.all_fields()
        if isinstance(field, TextField) and field.param.kind.name in _NUMBER_KINDS
    ]


@pytest.mark.parametrize("node", NODES)
def test_every_numeric_field_of_every_method_names_absurd_numbers(gw, node):
    # The demo's inputs in every other field: the absurd one is the form's only problem.
    explorer = MethodExplorer(gw.node(node), examples=gateway_examples(gw))
    checked = 0
    for method in list(explorer.method_picker.options):
        explorer.select(method)
        for field in numeric_fields(explorer):
            example = field.input.value
            for typed in ABSURD:
                field.input.value = typed  # validated on change: nothing may escape
                assert explorer.run_button.disabled, (method, field.path, typed[:20])
                assert field.message, (method, field.path, typed[:20])
                assert len(field.message) < 600  # the digits are not echoed whole
                checked += 1
            field.input.value = example
    assert checked


@pytest.mark.parametrize(
    ("first", "last", "step"),
    [(0, 2**63 - 1, 1), (0, 2**63, 1), (2**70, 2**71, 1), (-(2**70), 5, 1), (0, 10, 2**80)],
)
def test_the_builders_block_range_names_absurd_ends_at_its_field(gw, first, last, step):
    builder = workload_builder(gw, node="ethereum-mainnet", show=False)
    builder.first.value, builder.last.value, builder.step.value = first, last, step
    builder.refresh()
    if step == 2**80:  # one block: a plan, as the catalog takes block 0
        assert not builder.problems
        return
    assert set(builder.problems) <= {"blocks", "calls"} and builder.problems
    assert builder.run_button.disabled
