"""What `domino up` (and the system tests' processes) give the social service and the
notifier: their own NATS users, the addresses they call, the keys they sign and check with,
and the push providers' settings for the notifier alone."""

from __future__ import annotations

from pathlib import Path

from services.common.auth import KeyRing
from services.common.supervisor import NOTIFIER, SERVICES, LocalSystem, Ports


def test_the_social_service_connects_to_nats_as_its_own_user(tmp_path: Path):
    system = LocalSystem(tmp_path, Ports.free())
    env = system.env("social")
    assert env["DOMINO_NATS_USER"] == "social"
    assert env["DOMINO_NATS_PASSWORD"] == system.nats_passwords()["social"]
    assert env["DOMINO_NATS_URL"] == f"nats://127.0.0.1:{system.ports.nats}"


def test_the_notifier_connects_to_nats_as_its_own_user_with_its_own_password(tmp_path: Path):
    system = LocalSystem(tmp_path, Ports.free())
    env = system.env(NOTIFIER)
    passwords = system.nats_passwords()
    assert env["DOMINO_NATS_USER"] == "notifier"
    assert env["DOMINO_NATS_PASSWORD"] == passwords["notifier"]
    assert len(set(passwords.values())) == len(passwords)


def test_the_notifier_serves_metrics_on_its_own_port_and_asks_social_and_every_match_replica(tmp_path: Path):
    system = LocalSystem(tmp_path, Ports.free(), match_replicas=2)
    env = system.env(NOTIFIER)
    assert env["DOMINO_NOTIFIER_METRICS_PORT"] == str(system.ports.notifier_metrics)
    assert env["DOMINO_SOCIAL_ADDRESS"] == system.social_address
    assert env["DOMINO_MATCH_ADDRESS"] == system.match_target
    assert system.env("social")["DOMINO_MATCH_ADDRESS"] == system.match_target
    assert system.ports.notifier_metrics not in {port for name, port in vars(system.ports).items()
                                                  if name != "notifier_metrics"}


def test_the_social_service_and_the_notifier_find_the_service_key_and_the_services_public_key(tmp_path: Path):
    system = LocalSystem(tmp_path, Ports.free())
    system._ensure_keys()
    for service in ("social", NOTIFIER):
        keys = KeyRing.load(system.env(service)["DOMINO_KEYS_DIR"], issues=("service",), accepts=("service",))
        assert keys.private["service"] and keys.public["service"], service


def test_push_provider_settings_reach_the_notifier_from_a_parameter(tmp_path: Path):
    system = LocalSystem(tmp_path, Ports.free(), notifier_env={
        "DOMINO_APNS_KEY_FILE": "/fake/apns.p8", "DOMINO_FCM_BASE_URL": "https://127.0.0.1:8443"})
    assert system.env(NOTIFIER)["DOMINO_APNS_KEY_FILE"] == "/fake/apns.p8"
    assert system.env(NOTIFIER)["DOMINO_FCM_BASE_URL"] == "https://127.0.0.1:8443"
    assert "DOMINO_APNS_KEY_FILE" not in system.env("social")


def test_push_provider_settings_reach_the_notifier_alone_from_the_environment(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("DOMINO_APNS_KEY_ID", "ABC123DEFG")
    monkeypatch.setenv("DOMINO_FCM_SERVICE_ACCOUNT_FILE", "/fake/fcm.json")
    monkeypatch.setenv("DOMINO_NOTIFIER_GRACE_SECONDS", "0.5")
    system = LocalSystem(tmp_path, Ports.free())
    env = system.env(NOTIFIER)
    assert (env["DOMINO_APNS_KEY_ID"], env["DOMINO_FCM_SERVICE_ACCOUNT_FILE"],
            env["DOMINO_NOTIFIER_GRACE_SECONDS"]) == ("ABC123DEFG", "/fake/fcm.json", "0.5")
    for service in set(SERVICES) - {NOTIFIER}:
        assert not {name for name in system.env(service) if name.startswith(("DOMINO_APNS_", "DOMINO_FCM_"))}, service


def test_the_banner_of_domino_up_lists_the_notifiers_metrics_and_its_providers(tmp_path: Path, monkeypatch):
    from services.cli.up import notifier_line

    monkeypatch.delenv("DOMINO_APNS_KEY_FILE", raising=False)
    monkeypatch.delenv("DOMINO_FCM_SERVICE_ACCOUNT_FILE", raising=False)
    running = LocalSystem(tmp_path, Ports.free(), services=(*SERVICES, NOTIFIER))
    line = notifier_line(running)
    assert f"notifier http://127.0.0.1:{running.ports.notifier_metrics}/metrics" in line
    assert "no push provider configured" in line
    with_apns = LocalSystem(tmp_path, Ports.free(), services=(*SERVICES, NOTIFIER),
                            notifier_env={"DOMINO_APNS_KEY_FILE": "/keys/apns.p8"})
    assert "(APNs)" in notifier_line(with_apns)
    assert notifier_line(LocalSystem(tmp_path, Ports.free(), services=("match",))) == ""


def test_domino_up_starts_the_notifier_after_the_services_it_asks():
    from services.cli.up import available_services

    started = available_services()
    assert NOTIFIER in started
    assert started.index(NOTIFIER) > max(started.index("social"), started.index("match"))
