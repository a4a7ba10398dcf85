"""`domino up`'s notifier as a real process: started after the services it asks, on its own
metrics port, its providers off by default and on when the supervisor is given their
settings (as a system test gives its fake providers'), which no other process receives."""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path

from services.common.supervisor import NOTIFIER, LocalSystem, Ports

DEV_PUSH_KEYS = Path(__file__).resolve().parents[2] / "deploy" / "k8s" / "overlays" / "dev" / "push-keys"
SERVICES = ("match", "relay", "accounts", "social", NOTIFIER)


def providers_said(system: LocalSystem, seconds: float = 15.0) -> dict:
    """What the notifier logged of its providers (it serves its metrics before it builds them)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for line in (system.var_dir / "logs" / f"{NOTIFIER}.log").read_text().splitlines():
            if line.startswith("{") and json.loads(line).get("event") == "push providers":
                return json.loads(line)
        time.sleep(0.1)
    raise AssertionError("the notifier did not say which providers are on")


def test_the_notifier_runs_with_its_providers_off_by_default(tmp_path: Path):
    with LocalSystem(tmp_path / "var", Ports.free(), services=SERVICES,
                     extra_env={"DOMINO_LOG_FORMAT": "json"}) as system:
        assert system.processes[NOTIFIER].poll() is None
        with urllib.request.urlopen(f"http://127.0.0.1:{system.ports.notifier_metrics}/metrics", timeout=5) as page:
            assert page.status == 200
        said = providers_said(system)
        assert (said["apns"], said["fcm"]) == (False, False)


def test_the_providers_settings_given_to_the_supervisor_reach_the_notifier_process(tmp_path: Path):
    given = {"DOMINO_APNS_KEY_FILE": str(DEV_PUSH_KEYS / "apns.p8"), "DOMINO_APNS_KEY_ID": "ABC123DEFG",
             "DOMINO_APNS_TEAM_ID": "DEF123GHIJ", "DOMINO_APNS_TOPIC": "com.example.domino",
             "DOMINO_FCM_SERVICE_ACCOUNT_FILE": str(DEV_PUSH_KEYS / "service-account.json")}
    with LocalSystem(tmp_path / "var", Ports.free(), services=SERVICES, notifier_env=given,
                     extra_env={"DOMINO_LOG_FORMAT": "json"}) as system:
        said = providers_said(system)
        assert (said["apns"], said["fcm"]) == (True, True)
        assert not {name for name in system.env("social") if name.startswith(("DOMINO_APNS_", "DOMINO_FCM_"))}
