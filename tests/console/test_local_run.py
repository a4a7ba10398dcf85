"""`domino up` runs the console: its ports, its settings from the supervisor, and a one-time
sign-in link written where only its owner reads it and printed in the banner."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from pydantic import ValidationError

from services.cli.up import console_line
from services.common.supervisor import CONSOLE, LocalSystem, Ports
from services.console.local_link import LocalSignIn
from services.console.settings import ConsoleSettings


def test_the_console_is_given_its_address_its_url_the_local_link_and_the_services_metrics(tmp_path: Path) -> None:
    system = LocalSystem(tmp_path, Ports.free(), services=("match", "accounts", CONSOLE))
    env = system.env(CONSOLE)
    assert env["DOMINO_CONSOLE_ADDRESS"] == f"127.0.0.1:{system.ports.console}"
    assert env["DOMINO_CONSOLE_PUBLIC_URL"] == system.console_url
    assert env["DOMINO_CONSOLE_LOCAL_LINK"] == "true"
    assert f"account=http://127.0.0.1:{system.ports.account_metrics}/metrics" in env["DOMINO_CONSOLE_METRICS_TARGETS"]
    assert env["DOMINO_ACCOUNT_ADDRESS"] == system.account_address and env["DOMINO_KEYS_DIR"]


def test_a_tests_own_console_settings_win_over_the_supervisors(tmp_path: Path) -> None:
    system = LocalSystem(tmp_path, Ports.free(), extra_env={"DOMINO_CONSOLE_LOCAL_LINK": "false"})
    assert system.env(CONSOLE)["DOMINO_CONSOLE_LOCAL_LINK"] == "false"


def test_the_local_link_is_private_to_its_owner_and_signs_in_once(tmp_path: Path) -> None:
    local = LocalSignIn("t0ken")
    path = local.write(tmp_path / "console-sign-in", "http://127.0.0.1:8090")
    assert path.read_text().strip() == "http://127.0.0.1:8090/sign-in/local/t0ken"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert not local.redeem("other") and local.redeem("t0ken") and not local.redeem("t0ken")


def test_the_banner_prints_the_link(tmp_path: Path) -> None:
    system = LocalSystem(tmp_path, Ports.free(), services=("accounts", CONSOLE))
    LocalSignIn("abc").write(system.console_link_file, system.console_url)
    assert f"{system.console_url}/sign-in/local/abc" in console_line(system)
    assert console_line(LocalSystem(tmp_path, Ports.free(), services=("accounts",))) == ""


def test_an_http_public_url_is_refused_unless_the_console_runs_here() -> None:
    with pytest.raises(ValidationError):
        ConsoleSettings(public_url="http://console.example.com")  # type: ignore[call-arg]
    assert ConsoleSettings(public_url="https://console.example.com/").https  # type: ignore[call-arg]


def test_a_role_map_naming_no_staff_role_is_refused() -> None:
    with pytest.raises(ValidationError):
        ConsoleSettings(role_map='{"ops": "admin"}')  # type: ignore[call-arg]
    assert ConsoleSettings(role_map='{"ops": "operator"}').role_map == {"ops": "operator"}  # type: ignore[call-arg]
