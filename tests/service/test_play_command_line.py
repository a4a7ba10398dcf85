"""`domino play`'s command line against a real match service and matchmaking: the client holds
no rules of its own, so --rules, --variant, --bots and --turn-timer are checked against what
the server's DescribeRules says once connected, and `--help` names the families the last
session's server described (issue 35, point 11)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from services.cli.play import play
from services.client import families, rules_cache
from services.rules import registry
from tests.support.keys import token

from .matchmaking_harness import running_system


@pytest.fixture(scope="module")
def system():
    with running_system() as running:
        yield running


def play_with(system, tmp_path, *args: str, input: str = ""):
    addresses = ["--match-address", f"127.0.0.1:{system.match.port}", "--matchmaking-address",
                 f"127.0.0.1:{system.port}", "--account-address", f"127.0.0.1:{system.match.port}"]
    try:
        return CliRunner().invoke(play, ["--token", token("ann"), *addresses, "--config-dir", str(tmp_path / "config"),
                                         "--var", str(tmp_path / "var"), *args], input=input)
    finally:
        families.use(None)


@pytest.mark.parametrize("args, says", [
    (("--practice", "--rules", "dominos"), f"--rules dominos: this server plays {', '.join(registry.names())}"),
    (("--practice", "--variant", "koza", "--rules", "egyptian"), "--variant koza is not a variant of egyptian"),
    (("--practice", "--rules", "classic", "--bots", "wizard"), "--bots wizard: this server's bots for Classic are"),
    (("--practice", "--turn-timer", "75"), "--turn-timer 75: this server's turn timers are 30, 45, 60, 90, 0"),
])
def test_a_choice_the_server_does_not_offer_is_refused_once_connected_saying_what_it_offers(system, tmp_path, args,
                                                                                          says):
    result = play_with(system, tmp_path, *args)
    assert result.exit_code == 2, result.output
    assert says in " ".join(result.output.split())


def test_the_help_names_the_families_the_last_session_was_told_of(system, tmp_path, monkeypatch):
    monkeypatch.setenv("DOMINO_CONFIG_DIR", str(tmp_path / "config"))
    before = CliRunner().invoke(play, ["--help"])
    assert "checked against what the server plays once connected (DescribeRules)" in " ".join(before.output.split())
    assert "all-fives" not in before.output  # nothing of its own to name
    play_with(system, tmp_path, "--practice", "--rules", "dominos")  # a session asks DescribeRules, then refuses
    assert rules_cache.load(tmp_path / "config") is not None
    after = " ".join(CliRunner().invoke(play, ["--help"]).output.split())
    assert "The family: egyptian (the default), all-fives, goat, classic or sports (as 127.0.0.1:" in after
    assert "koza" in after and "greedy" in after
