"""One surface: `connect`, `node`, `platform` and `Gateway` take the same keyword options (the
fields of `Settings`, or a whole ``settings=``), with signatures a person can read."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

import toolkit
from toolkit.client._settings import SettingsOptions

ENTRY_POINTS = {
    "connect": toolkit.connect,
    "node": toolkit.node,
    "platform": toolkit.platform,
    "Gateway": toolkit.Gateway,
}
OWN = {  # what each takes besides the options: what it connects to
    "connect": ["platform_url", "api_key", "nodes", "sandbox"],
    "node": ["url", "chain", "name"],
    "platform": ["platform_url", "api_key"],
    "Gateway": ["platform_url", "api_key", "nodes", "sandbox"],
}
OPTIONS = [f.name for f in dataclasses.fields(toolkit.Settings)]


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_the_same_keyword_options_in_a_signature_a_person_can_read(name):
    signature = inspect.signature(ENTRY_POINTS[name])
    parameters = list(signature.parameters)
    assert parameters == [*OWN[name], "settings", *OPTIONS]
    for option in OPTIONS:
        assert signature.parameters[option].kind is inspect.Parameter.KEYWORD_ONLY
    text = str(signature)
    assert len(text) < 700, text  # `connect`'s was 2,232 characters
    assert "PricingTable(" not in text and "Fixed(" not in text
    assert signature.parameters["pricing"].default is None


def test_the_typed_options_are_the_fields_of_settings():
    assert list(SettingsOptions.__annotations__) == OPTIONS
    assert toolkit.Settings().pricing is toolkit.DEFAULT_PRICING
    assert toolkit.Settings(pricing=None).pricing is toolkit.DEFAULT_PRICING


@pytest.fixture
def made(sandbox):
    info = sandbox.info
    url = info["nodes"]["ethereum-mainnet"]
    opened = []

    def make(name, **options):
        if name == "connect":
            made = toolkit.connect(
                info["platform_url"], info["api_key"], nodes=info["nodes"], **options
            )
        elif name == "Gateway":
            made = toolkit.Gateway(info["platform_url"], info["api_key"], **options)
        elif name == "node":
            made = toolkit.node(url, chain="ethereum", **options)
        else:
            made = toolkit.platform(info["platform_url"], info["api_key"], **options)
        opened.append(made)
        return made

    yield make
    for handle in opened:
        handle.close()


def _settings(handle) -> toolkit.Settings:
    return handle.settings if hasattr(handle, "settings") else handle._core.shared.settings


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_each_takes_each_option_or_a_whole_settings(name, made):
    chosen = _settings(made(name, budget=7, timeout=3.5, head_ttl_s=0.0, cache=False))
    assert (chosen.budget, chosen.timeout, chosen.head_ttl_s, chosen.cache) == (7, 3.5, 0.0, False)
    base = toolkit.Settings(budget=11, timeout=2.0, cache=False)
    chosen = _settings(made(name, settings=base, timeout=4.0))
    assert (chosen.budget, chosen.timeout) == (11, 4.0)  # the keywords change the settings


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_an_unknown_option_is_a_type_error_and_a_bad_value_names_the_setting(name, made):
    with pytest.raises(TypeError, match=r"got an unexpected keyword argument 'budjet'"):
        made(name, budjet=5)
    with pytest.raises(toolkit.ValidationError) as caught:
        made(name, timeout=-1)
    assert caught.value.param == "timeout"
