"""What a user meets at the top level: `dir(toolkit)` offers every public name (those loaded on
first use included) and none of the module's own imports, and the public exceptions show, and
pickle, as `toolkit.<Name>`."""

from __future__ import annotations

import pickle
import traceback

import pytest

import toolkit
from toolkit import _errors

EXCEPTIONS = sorted(
    name
    for name in toolkit.__all__
    if isinstance(getattr(toolkit, name), type)
    and issubclass(getattr(toolkit, name), BaseException)
)


def test_dir_lists_the_lazy_names_and_hides_the_imports():
    names = dir(toolkit)
    lazy = {"frames", "plots", "widgets", "sandbox", "workloads", "solana_tx", "examples"}
    lazy |= {"Workload", "Preview", "Provenance", "to_parquet", "read_parquet", "read_dataset"}
    assert lazy <= set(names)
    assert set(toolkit.__all__) <= set(names)
    assert not {"Any", "TYPE_CHECKING", "annotations", "importlib"} & set(names)
    assert not [name for name in names if name.startswith("_") and name != "__version__"]
    assert names == sorted(names)
    for name in names:  # each one offered is there
        assert getattr(toolkit, name) is not None, name


def test_public_exceptions_show_as_toolkit_names():
    assert len(EXCEPTIONS) >= 20 and "ValidationError" in EXCEPTIONS
    for name in EXCEPTIONS:
        cls = getattr(toolkit, name)
        assert f"{cls.__module__}.{cls.__qualname__}" == f"toolkit.{name}"
    assert repr(toolkit.ValidationError) == "<class 'toolkit.ValidationError'>"
    try:
        toolkit.node("http://127.0.0.1:1/x").get_balance("not an address")
    except toolkit.ValidationError as error:
        shown = traceback.format_exception_only(error)[-1]
    assert shown.startswith("toolkit.ValidationError: ")


def _examples() -> list[BaseException]:
    return [
        toolkit.BudgetExceeded("over the budget", needed=3, remaining=1, method="eth_call"),
        toolkit.RPCError(-32000, "execution reverted", data={"reason": "x"}, node="eth"),
        toolkit.PlatformError("denied", "no such node", status=404),
        toolkit.AuthenticationError("denied", "bad key", status=401),
        toolkit.ValidationError("bad address", param="address", rule="hex"),
        toolkit.TronError("class java.lang.Exception : x", hint="try again"),
        toolkit.TonError("not found", code=404),
        toolkit.RateLimited("slow down", retry_after=0.25, status=429),
        toolkit.WorkerFailed("a partition failed", answered=2, causes=["OSError: disk full"]),
        toolkit.TapeMiss("not on the tape", call={"method": "eth_blockNumber"}),
        toolkit.RunStopped("stopped: 3 calls kept", result=[1, 2, 3]),
    ]


@pytest.mark.parametrize("protocol", [0, pickle.DEFAULT_PROTOCOL, pickle.HIGHEST_PROTOCOL])
def test_public_exceptions_pickle_whole(protocol):
    """A worker's error reaches a Dask coordinator by pickle: the same type, message and
    attributes, even for those whose constructor takes required arguments `args` lacks."""
    for error in _examples():
        data = pickle.dumps(error, protocol)
        back = pickle.loads(data)
        assert type(back) is type(error)
        assert str(back) == str(error) and back.args == error.args
        assert vars(back) == vars(error), type(error).__name__
    back = pickle.loads(pickle.dumps(_examples()[0], protocol))
    assert (back.needed, back.remaining, back.method) == (3, 1, "eth_call")


def test_every_error_class_of_the_tree_is_public_under_toolkit():
    for name in _errors.__all__:
        cls = getattr(_errors, name)
        assert getattr(toolkit, name) is cls and cls.__module__ == "toolkit", name


def test_connects_signature_reads_in_a_tooltip():
    """`help(toolkit.connect)` and Jupyter's tooltip show every option: each option's type is one
    name (`TapeSetting`, `CacheSetting`...) rather than a union spelt out. It was 644 characters;
    an option added on top should be weighed against this (rate_limit's default "auto", a known
    plan's ceiling, took two more)."""
    import inspect

    shown = str(inspect.signature(toolkit.connect))
    assert len(shown) <= 622, shown
    assert "tape: 'TapeSetting'" in shown and "tape_mode: 'TapeMode'" in shown
