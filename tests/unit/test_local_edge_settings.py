"""What `domino up` gives the edge and the account service when it starts the edge."""

from __future__ import annotations

from pathlib import Path

from services.common.supervisor import EDGE, SERVICES, LocalSystem, Ports


def test_the_account_service_trusts_the_local_edges_x_forwarded_for_only_when_the_edge_runs(tmp_path: Path,
                                                                                             monkeypatch):
    monkeypatch.delenv("DOMINO_TRUSTED_PROXIES", raising=False)
    with_edge = LocalSystem(tmp_path / "a", Ports.free(), services=SERVICES + (EDGE,))
    without = LocalSystem(tmp_path / "b", Ports.free(), services=SERVICES)
    assert with_edge.env("accounts")["DOMINO_TRUSTED_PROXIES"] == "127.0.0.1"
    assert without.env("accounts").get("DOMINO_TRUSTED_PROXIES", "") == ""


def test_the_local_edge_forwards_to_every_match_replica_the_other_clients_use(tmp_path: Path):
    system = LocalSystem(tmp_path, Ports.free(), services=SERVICES + (EDGE,), match_replicas=2)
    env = system.env(EDGE)
    assert env["DOMINO_MATCH_ADDRESS"] == system.match_target == system.env("bots")["DOMINO_MATCH_ADDRESS"]
    assert env["DOMINO_WEB_ADDRESS"] == system.web_address
    assert env["DOMINO_MATCHMAKING_ADDRESS"] == system.matchmaking_address
    assert env["DOMINO_ACCOUNT_ADDRESS"] == system.account_address


def test_domino_up_starts_the_edge_and_the_console_after_the_services():
    from services.cli.up import available_services
    from services.common.supervisor import CONSOLE

    assert available_services()[-2:] == (EDGE, CONSOLE)
    assert set(available_services()) >= set(SERVICES) - {"matchmaking"}
