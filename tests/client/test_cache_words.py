"""A cache setting written as text means the same in ``cache=`` as in ``NODE_GATEWAY_CACHE``."""

import os

import pytest

import toolkit
from toolkit.client._cache import resolve_cache


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    """Work in an empty folder, to see any file a setting would make there."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("word", ["off", "OFF", "false", "no", "none", "0", " off "])
def test_an_off_word_as_cache_is_no_cache_and_makes_no_file(make_gateway, in_tmp, word):
    assert make_gateway(cache=word).cache is None
    assert resolve_cache(word, remote=True) is None
    assert os.listdir(in_tmp) == []


@pytest.mark.parametrize("word", ["on", "true", "1", "yes"])
def test_an_on_word_as_cache_or_in_the_variable_is_the_default_file(in_tmp, monkeypatch, word):
    chosen = resolve_cache(word, remote=False)
    assert chosen is not None and chosen.path.name == "responses.sqlite"
    assert chosen.path.parent != in_tmp
    chosen.close()
    monkeypatch.setenv("NODE_GATEWAY_CACHE", word)
    from_variable = resolve_cache("auto", remote=False)
    assert from_variable is not None and from_variable.path == chosen.path
    from_variable.close()
    assert os.listdir(in_tmp) == []


def test_auto_in_the_variable_is_the_default_rule(in_tmp, monkeypatch):
    monkeypatch.setenv("NODE_GATEWAY_CACHE", "auto")
    assert resolve_cache("auto", remote=False) is None  # loopback: no cache
    remote = resolve_cache("auto", remote=True)
    assert remote is not None and remote.path.name == "responses.sqlite"
    remote.close()
    assert resolve_cache("AUTO", remote=False) is None
    assert os.listdir(in_tmp) == []


def test_a_file_called_off_is_still_reachable_as_a_path(in_tmp):
    chosen = resolve_cache("./off", remote=False)
    assert chosen is not None and chosen.path.resolve() == in_tmp / "off"
    chosen.close()


def test_an_empty_cache_setting_is_refused(in_tmp):
    with pytest.raises(toolkit.ValidationError) as caught:
        toolkit.Gateway("http://127.0.0.1:9", "k" * 32, cache="  ")
    assert caught.value.param == "cache"
    assert os.listdir(in_tmp) == []
