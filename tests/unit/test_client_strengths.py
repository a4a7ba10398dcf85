"""domino play offers the bot strengths the server offers where the player is to play:
per family and team setting, as DescribeRules says (SeatShape.bot_strengths)."""

from __future__ import annotations

import pytest

from services.client import families
from services.client.families import Setup
from tests.support.rules_description import described
from tests.support.rules_description import served_rules  # noqa: F401  (the fixture, by name)

pytestmark = pytest.mark.usefixtures("served_rules")


def test_practice_offers_each_family_and_settings_own_strengths_and_default():
    rules = described()
    families.use(rules)
    try:
        for family in rules.families.values():
            for variant in family.variant_list:
                for shape in variant.shapes:
                    offered, default = families.offered_strengths(
                        Setup(family.rules, variant.name, shape.seats, shape.teams))
                    assert shape.strengths and offered == shape.strengths, (family.rules, variant.name, shape)
                    assert default == shape.default_strength and default in offered
    finally:
        families.use(None)


def test_a_strength_the_server_offers_nowhere_here_is_not_offered():
    rules = described()
    families.use(rules)
    try:
        offered = {s for f in rules.families.values() for v in f.variant_list for shape in v.shapes
                   for s in shape.strengths}
        assert "expert" not in offered  # the committed ladder shows it no stronger than strong anywhere
    finally:
        families.use(None)
