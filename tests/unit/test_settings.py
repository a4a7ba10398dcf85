"""One configuration: every setting, the family plugins' and the event store's included, is
read by one Settings, documented by the table generated from it, and a bad one stops a
process with one line that names it; what eventsourcing stores into is what the settings
say, never the process's environment read behind them."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from uuid import UUID

import pytest
from click.testing import CliRunner
from eventsourcing.application import Application
from pydantic import ValidationError

from services.common.bad_settings import one_line
from services.common.config import SQLITE_MODULE, BadSetting, Settings, StoreSettings, from_environment, \
    persistence_env
from services.common.store_settings import ExplicitStore

REPO = Path(__file__).resolve().parents[2]


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


settings_table = _script("settings_table")


# ---- the table ---------------------------------------------------------------------------------

def test_the_settings_table_lists_every_setting_and_is_current():
    documented = settings_table.documented((REPO / "docs" / "operations.md").read_text())
    variables = [row[0] for row in settings_table.rows()]
    for name in [f"DOMINO_{n.upper()}" for n in Settings.model_fields if n != "store"] + \
            [n.upper() for n in StoreSettings.model_fields]:
        assert name in variables
        assert f"`{name}`" in documented
    assert settings_table.main(["--check"]) == 0, \
        "docs/operations.md's settings table is stale: run .venv/bin/python scripts/settings_table.py --write"


def test_the_table_says_each_settings_type_and_what_it_allows():
    rows = {name: (kind, default) for name, kind, default, _ in settings_table.rows()}
    assert rows["DOMINO_ACCESS_TOKEN_SECONDS"] == ("int, ≥ 1, ≤ 900", "`900`")
    assert rows["DOMINO_LOG_FORMAT"][0] == "one of `json`, `console`"
    assert rows["POSTGRES_PORT"] == ("int, ≥ 1, ≤ 65535", "(unset)")
    assert rows["POSTGRES_PASSWORD"][0] == "str (secret)"
    assert all(meaning for *_, meaning in settings_table.rows()), "every setting has a description"


def test_the_check_fails_when_the_table_is_stale(tmp_path, monkeypatch, capsys):
    doc = tmp_path / "operations.md"
    current = (REPO / "docs" / "operations.md").read_text()
    doc.write_text(current.replace("| `DOMINO_VAR_DIR` |", "| `DOMINO_VAR_DIRECTORY` |"))
    monkeypatch.setattr(settings_table, "DOC", doc)
    assert settings_table.main(["--check"]) == 1
    assert "stale" in capsys.readouterr().out
    settings_table.main(["--write"])
    assert settings_table.main(["--check"]) == 0
    assert doc.read_text() == current


# ---- one Settings reads them all ----------------------------------------------------------------

def test_the_family_modules_and_the_store_are_settings(monkeypatch, tmp_path):
    for name in StoreSettings.model_fields:
        monkeypatch.delenv(name.upper(), raising=False)
    monkeypatch.setenv("DOMINO_FAMILY_MODULES", "tests.support.fifty_family")
    monkeypatch.setenv("PERSISTENCE_MODULE", "services.common.postgres_store")
    monkeypatch.setenv("POSTGRES_PORT", "6543")
    monkeypatch.setenv("POSTGRES_PRE_PING", "yes")
    monkeypatch.setenv("POSTGRES_PASSWORD", "hunter2")
    settings = Settings()
    assert settings.family_modules == "tests.support.fifty_family"
    assert settings.store.postgres_port == 6543
    assert persistence_env(settings) == {"PERSISTENCE_MODULE": "services.common.postgres_store",
                                         "POSTGRES_PORT": "6543", "POSTGRES_PRE_PING": "y",
                                         "POSTGRES_PASSWORD": "hunter2"}


def test_a_store_variable_set_empty_is_handed_on_as_eventsourcing_reads_it(monkeypatch):
    """eventsourcing refuses a PostgreSQL store with no POSTGRES_PASSWORD at all, though the
    server may need none; an empty number is unset, as the library reads it."""
    for name in StoreSettings.model_fields:
        monkeypatch.delenv(name.upper(), raising=False)
    monkeypatch.setenv("PERSISTENCE_MODULE", "eventsourcing.postgres")
    monkeypatch.setenv("POSTGRES_PASSWORD", "")
    monkeypatch.setenv("POSTGRES_PORT", "")
    assert StoreSettings().eventsourcing_env() == {"PERSISTENCE_MODULE": "eventsourcing.postgres",
                                                   "POSTGRES_PASSWORD": ""}


def test_with_no_store_named_the_services_use_the_local_runs_sqlite_file(monkeypatch, tmp_path):
    for name in StoreSettings.model_fields:
        monkeypatch.delenv(name.upper(), raising=False)
    env = persistence_env(Settings(var_dir=str(tmp_path / "var")))
    assert env == {"PERSISTENCE_MODULE": SQLITE_MODULE, "SQLITE_DBNAME": str(tmp_path / "var" / "match.sqlite")}


def test_secrets_stay_out_of_reprs_and_of_the_bad_setting_line(monkeypatch):
    monkeypatch.setenv("POSTGRES_PASSWORD", "hunter2")
    settings = Settings(nats_password="swordfish")
    assert "hunter2" not in repr(settings) and "swordfish" not in repr(settings)
    assert "hunter2" not in str(settings) and "swordfish" not in str(settings)
    with pytest.raises(ValidationError) as refused:
        Settings(nats_password=987654321)
    line = one_line(refused.value, (Settings, StoreSettings))
    assert line.startswith("bad setting: DOMINO_NATS_PASSWORD=(hidden): ") and "987654321" not in line


# ---- a bad value: one line naming it --------------------------------------------------------------

@pytest.mark.parametrize("variable, value, said", [
    ("DOMINO_MATCH_WORKERS", "two", "DOMINO_MATCH_WORKERS='two': should be a valid integer"),
    ("DOMINO_ACCESS_TOKEN_SECONDS", "3600", "DOMINO_ACCESS_TOKEN_SECONDS='3600': should be less than or equal to 900"),
    ("DOMINO_LOG_FORMAT", "text", "DOMINO_LOG_FORMAT='text': should be 'json' or 'console'"),
    ("PERSISTENCE_MODULE", "eventsourcing.postgress", "PERSISTENCE_MODULE='eventsourcing.postgress': should be "
                                                      "'', 'eventsourcing.popo', 'eventsourcing.sqlite', "
                                                      "'eventsourcing.postgres', 'services.common.sqlite_store' or "
                                                      "'services.common.postgres_store'"),
    ("POSTGRES_PORT", "5432x", "POSTGRES_PORT='5432x': should be a valid integer"),
    ("DOMINO_STREAMS_PER_PROCESS", "20000", "DOMINO_GRPC_MAX_CONCURRENT_CALLS (10500) must be above "
                                            "DOMINO_STREAMS_PER_PROCESS (20000)"),
])
def test_a_bad_value_is_one_line_naming_the_setting_and_what_it_may_be(monkeypatch, variable, value, said):
    monkeypatch.setenv(variable, value)
    with pytest.raises(BadSetting) as refused:
        from_environment()
    assert "\n" not in str(refused.value)
    assert str(refused.value).startswith(f"bad setting: {said}")


@pytest.mark.parametrize("given, level", [("debug", "DEBUG"), ("Info", "INFO"), ("WARNING", "WARNING")])
def test_the_log_level_is_read_in_any_case_as_it_was_before_one_configuration(monkeypatch, given, level):
    monkeypatch.setenv("DOMINO_LOG_LEVEL", given)
    assert from_environment().log_level == level


def test_the_log_format_is_one_of_the_two_documented_and_a_level_outside_the_five_is_refused(monkeypatch):
    for documented in ("json", "console"):
        monkeypatch.setenv("DOMINO_LOG_FORMAT", documented)
        assert from_environment().log_format == documented
    monkeypatch.setenv("DOMINO_LOG_FORMAT", "json")
    monkeypatch.setenv("DOMINO_LOG_LEVEL", "verbose")
    with pytest.raises(BadSetting) as refused:
        from_environment()
    assert str(refused.value).startswith("bad setting: DOMINO_LOG_LEVEL='verbose': should be 'DEBUG', 'INFO'")


@pytest.mark.parametrize("stray", ["POSTGRES_PORTT", "CIPHER_KEY", "POSTGRES_SINGLE_ROW_TRACKING",
                                   "MATCHMAKING_POSTGRES_DBNAME", "sqlite_dbnme"])
def test_a_store_variable_that_is_no_setting_stops_the_process_not_lost_silently(monkeypatch, stray):
    monkeypatch.setenv(stray, "5433")
    with pytest.raises(BadSetting) as refused:
        from_environment()
    assert str(refused.value) == f"bad setting: {stray.upper()}: not a setting of the event store " \
                                 "(docs/operations.md lists them; eventsourcing's others are not read, so a " \
                                 "misspelt one would be lost)"


def test_kubernetes_service_links_of_a_postgres_service_are_no_stray_store_variables(monkeypatch):
    for name in ("POSTGRES_SERVICE_HOST", "POSTGRES_SERVICE_PORT", "POSTGRES_SERVICE_PORT_POSTGRES",
                 "POSTGRES_PORT_5432_TCP", "POSTGRES_PORT_5432_TCP_PROTO", "POSTGRES_PORT_5432_TCP_PORT",
                 "POSTGRES_PORT_5432_TCP_ADDR"):
        monkeypatch.setenv(name, "10.0.0.7")
    monkeypatch.setenv("POSTGRES_PORT", "5432")  # the deployment's own, over the link's tcp://...
    assert from_environment().store.postgres_port == 5432


def test_an_application_given_no_store_reads_the_settings_and_a_bad_one_is_one_line(monkeypatch):
    monkeypatch.setenv("POSTGRES_POOL_SIZE", "0")
    with pytest.raises(BadSetting) as refused:
        Ledger()
    assert str(refused.value) == "bad setting: POSTGRES_POOL_SIZE='0': should be greater than or equal to 1"


def test_domino_stops_on_a_bad_value_with_one_line_before_any_command_runs():
    from services.cli.main import cli

    result = CliRunner().invoke(cli, ["token", "player", "ann"], env={"POSTGRES_POOL_SIZE": "0"})
    assert result.exit_code == 2
    assert result.output == "domino: bad setting: POSTGRES_POOL_SIZE='0': should be greater than or equal to 1\n"
    result = CliRunner().invoke(cli, ["token", "player", "ann"], env={"DOMINO_FAMILY_MODULES": "no.such.family"})
    assert result.exit_code == 2
    assert result.output.startswith("domino: DOMINO_FAMILY_MODULES: cannot import 'no.such.family'")
    assert result.output.count("\n") == 1


def test_a_service_process_started_with_a_bad_value_stops_with_one_line(tmp_path):
    env = {**os.environ, "DOMINO_VAR_DIR": str(tmp_path), "PERSISTENCE_MODULE": "postgres"}
    done = subprocess.run([sys.executable, "-m", "services.cli", "serve", "match"], env=env, cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.startswith("domino: bad setting: PERSISTENCE_MODULE='postgres': should be ''")
    assert done.stderr.count("\n") == 1 and done.stdout == ""


def test_the_manifest_checker_refuses_what_a_service_would_store_settings_included():
    problems = _script("validate_k8s").settings_problems({"POSTGRES_PRE_PING": "maybe", "POSTGRES_PORT": "5432",
                                                          "DOMINO_MATCH_WORKERS": "2", "PGSSLMODE": "require"})
    assert problems == ["POSTGRES_PRE_PING='maybe': should be a valid boolean, unable to interpret input"]


# ---- the store is handed to eventsourcing, not read by it --------------------------------------------

class Ledger(ExplicitStore, Application[UUID]):
    env = {"AGGREGATE_CACHE_MAXSIZE": "10"}


def test_an_application_is_configured_by_its_env_never_by_the_environment_behind_it(monkeypatch, tmp_path):
    monkeypatch.setenv("PERSISTENCE_MODULE", SQLITE_MODULE)
    monkeypatch.setenv("SQLITE_DBNAME", str(tmp_path / "behind.sqlite"))
    monkeypatch.setenv("COMPRESSOR_TOPIC", "zlib")  # not a setting: eventsourcing would have read it
    given = Ledger(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    assert type(given.factory).__module__ == "eventsourcing.popo"
    assert given.env.get("COMPRESSOR_TOPIC") is None and given.env["AGGREGATE_CACHE_MAXSIZE"] == "10"
    assert not (tmp_path / "behind.sqlite").exists()
    unsaid = Ledger()  # given nothing: the store settings, read now
    assert type(unsaid.factory).__module__ == SQLITE_MODULE
    assert unsaid.env.get("COMPRESSOR_TOPIC") is None


def test_the_services_applications_take_their_store_only_from_the_settings():
    from services.match.application import MatchApplication
    from services.matchmaking.application import MatchmakingApplication

    assert issubclass(MatchApplication, ExplicitStore) and issubclass(MatchmakingApplication, ExplicitStore)
