"""A notebook finds its own tape in a folder of tapes, even where the kernel is not told the
notebook's name (JupyterLite's Pyodide kernel sets neither ``JPY_SESSION_NAME`` nor
``__session__``: it only starts in the notebook's folder): by a name it is given
(``NODE_GATEWAY_NOTEBOOK``), by the kernel's ``__session__``, by the folder's only tape, or by a
tape it names itself, relative to its folder. Otherwise the error says what was looked for and
how to name one."""

from __future__ import annotations

import shutil

import pytest

import toolkit
from toolkit.client._tapefile import notebook_name, tape_file_of

NAMES = ("NODE_GATEWAY_NOTEBOOK", "JPY_SESSION_NAME", "NODE_GATEWAY_TAPE", "NODE_GATEWAY_TAPE_MODE")


@pytest.fixture(scope="module")
def one_tape(tmp_path_factory):
    """A tape recorded from the sandbox, and the head its one call saw."""
    tape = tmp_path_factory.mktemp("recorded") / "02_evm_history.tape.gz"
    gateway = toolkit.connect(tape=tape, tape_mode="record", sandbox=True, head_ttl_s=3600)
    head = gateway.node("ethereum-mainnet").head()
    gateway.close()
    return tape, head


@pytest.fixture
def unnamed(monkeypatch):
    """A kernel that is told nothing of its notebook (as JupyterLite's)."""
    for name in NAMES:
        monkeypatch.delenv(name, raising=False)
    assert notebook_name() is None


def folder_of(tmp_path, tape, *others: str):
    folder = tmp_path / "tapes"
    folder.mkdir()
    shutil.copy(tape, folder / tape.name)
    for other in others:
        shutil.copy(tape, folder / other)
    return folder


def test_a_folder_with_one_tape_replays_it_for_an_unnamed_notebook(
    one_tape, unnamed, tmp_path, monkeypatch
):
    tape, head = one_tape
    folder = folder_of(tmp_path, tape)
    monkeypatch.setenv("NODE_GATEWAY_TAPE", str(folder))
    monkeypatch.setenv("NODE_GATEWAY_TAPE_MODE", "replay")
    gateway = toolkit.connect()  # the notebook's cell, unchanged
    assert gateway.tape.path == (folder / tape.name).resolve()
    assert gateway.node("ethereum-mainnet").head() == head
    gateway.close()


@pytest.mark.parametrize(
    "given", ["02_evm_history", "02_evm_history.ipynb", "notebooks/02_evm_history.ipynb"]
)
def test_a_notebook_named_by_node_gateway_notebook_finds_its_tape(
    one_tape, unnamed, tmp_path, monkeypatch, given
):
    tape, head = one_tape
    folder = folder_of(tmp_path, tape, "01_quickstart.tape.gz", "03_tron.tape.gz")
    monkeypatch.setenv("NODE_GATEWAY_NOTEBOOK", given)
    gateway = toolkit.connect(tape=folder, tape_mode="replay")
    assert gateway.tape.path.name == "02_evm_history.tape.gz"
    assert gateway.node("ethereum-mainnet").head() == head
    gateway.close()


def test_an_ipython_kernels_session_names_the_notebook(one_tape, unnamed, tmp_path):
    """ipykernel puts the notebook's path in the namespace as ``__session__`` (VS Code as
    ``__vsc_ipynb_file__``): read there when the environment says nothing."""
    from IPython.core.interactiveshell import InteractiveShell

    tape, _ = one_tape
    folder = folder_of(tmp_path, tape, "01_quickstart.tape.gz")
    shell = InteractiveShell.instance()
    try:
        for variable in ("__session__", "__vsc_ipynb_file__"):
            shell.user_ns[variable] = "/home/me/notebooks/02_evm_history.ipynb"
            assert tape_file_of(folder) == folder / "02_evm_history.tape.gz"
            del shell.user_ns[variable]
    finally:
        InteractiveShell.clear_instance()


def test_a_notebook_names_its_own_tape_relative_to_its_folder(
    one_tape, unnamed, tmp_path, monkeypatch
):
    """JupyterLite starts a notebook's kernel in the notebook's folder: a path from there."""
    tape, head = one_tape
    folder_of(tmp_path, tape, "01_quickstart.tape.gz")
    monkeypatch.chdir(tmp_path)
    gateway = toolkit.connect(tape="tapes/02_evm_history.tape.gz", tape_mode="replay")
    assert gateway.node("ethereum-mainnet").head() == head
    gateway.close()


def test_an_unnamed_notebook_in_a_folder_of_tapes_is_told_how_to_name_one(
    one_tape, unnamed, tmp_path
):
    tape, _ = one_tape
    folder = folder_of(tmp_path, tape, "01_quickstart.tape.gz")
    with pytest.raises(toolkit.ValidationError) as raised:
        toolkit.connect(tape=folder, tape_mode="replay")
    message = str(raised.value)
    for said in (
        "NODE_GATEWAY_NOTEBOOK",  # what was looked for
        "JPY_SESSION_NAME",
        "__session__",
        "holds 2 tapes (01_quickstart.tape.gz, 02_evm_history.tape.gz)",  # what is there
        'toolkit.connect(tape="tapes/<notebook>.tape.gz")',  # how to name one
        "%env NODE_GATEWAY_NOTEBOOK=<notebook>",
    ):
        assert said in message, said
    assert raised.value.param == "tape"
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(toolkit.ValidationError, match="holds no tape"):
        toolkit.connect(tape=empty, tape_mode="replay")
