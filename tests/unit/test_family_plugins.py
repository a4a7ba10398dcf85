"""A family module named by DOMINO_FAMILY_MODULES is checked when the process starts, not
when a seat first plays it: a family without the strong bot's tuning would have its strong
and expert seats fail every turn, redelivered forever."""

from __future__ import annotations

import pytest

from services.common.family_plugins import BadFamilyModule, load
from services.rules import registry

UNTUNED = '''
from tests.support.fifty_family import Fifty


class Untuned(Fifty):
    name = "untuned"
    bot_tuning = None


FAMILY = Untuned()
'''


def test_a_family_without_bot_tuning_is_refused_at_start_naming_the_module_and_the_facet(tmp_path, monkeypatch):
    (tmp_path / "untuned_family.py").write_text(UNTUNED)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(BadFamilyModule) as refused:
        load("untuned_family")
    assert str(refused.value) == ("DOMINO_FAMILY_MODULES: 'untuned_family': family 'untuned' has no bot_tuning "
                                  "(a BotTuning; BotTuning() is the strong bot's plain search)")
    assert "untuned" not in registry.names()


def test_a_module_without_a_family_is_refused_naming_it():
    with pytest.raises(BadFamilyModule, match=r"^DOMINO_FAMILY_MODULES: 'services\.rules' defines no FAMILY"):
        load("services.rules")
