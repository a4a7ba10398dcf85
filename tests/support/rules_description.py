"""DescribeRules' answer as the client reads it, built by the server's own describe.py from
the registry: what the client's offline tests hand it where they need a family's facets,
instead of a copy of their own."""

from __future__ import annotations

import pytest

from services.client import families
from services.match.describe import describe_rules


def described() -> families.Rules:
    return families.Rules.of(describe_rules())


def described_message():
    """DescribeRules' answer as it travels (rules_cache.py keeps it)."""
    return describe_rules()


def family(name: str) -> families.Family:
    return described().families[name]


def preset(rules: str, variant: str) -> dict:
    """A variant's host options when the host changes none."""
    return dict(family(rules).variant(variant).presets)


@pytest.fixture
def served_rules():
    """The description a session installs once DescribeRules answers (families.use): the
    client has no rules before a server describes them."""
    families.use(described())
    yield families.current()
    families.use(None)
