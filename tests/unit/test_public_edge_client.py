"""The client's side of the public host: TLS channels with a given CA (`domino play --tls`,
`--ca`, `--server`), plaintext by default, and keepalive pings the servers' policy accepts.
No server here: tests/service/test_public_edge.py talks to real ones."""

from __future__ import annotations

import grpc
import pytest
from click.testing import CliRunner
from pydantic import ValidationError

from services.cli import play as play_module
from services.client import api
from services.common.config import Settings
from services.common.grpc_server import server_options

CA_PEM = b"-----BEGIN CERTIFICATE-----\nnot checked here\n-----END CERTIFICATE-----\n"


@pytest.fixture
def channels(monkeypatch):
    """Every channel the client module opens: recorded, and opened plaintext (nothing is
    called on it)."""
    made: list[tuple] = []
    real_insecure = grpc.insecure_channel

    def secure(address, credentials, options=None):
        made.append(("secure", address, credentials, dict(options or [])))
        return real_insecure(address)

    def plain(address, options=None):
        made.append(("plain", address, None, dict(options or [])))
        return real_insecure(address)

    monkeypatch.setattr(api.grpc, "ssl_channel_credentials",
                        lambda root_certificates=None: ("credentials", root_certificates))
    monkeypatch.setattr(api.grpc, "secure_channel", secure)
    monkeypatch.setattr(api.grpc, "insecure_channel", plain)
    return made


def test_the_client_builds_a_secure_channel_with_the_given_ca(channels, tmp_path):
    ca = tmp_path / "ca.pem"
    ca.write_bytes(CA_PEM)
    match = api.MatchApi("play.example.com:443", "t", credentials=api.channel_credentials(ca))
    match.close()
    kind, address, credentials, options = channels[-1]
    assert (kind, address, credentials) == ("secure", "play.example.com:443", ("credentials", CA_PEM))
    assert options["grpc.keepalive_time_ms"] == 60_000 and match.tls


def test_without_a_ca_tls_trusts_the_public_authorities(channels):
    assert api.channel_credentials() == ("credentials", None)


def test_plaintext_stays_the_default(channels):
    match = api.MatchApi("127.0.0.1:50051", "t")
    match.close()
    assert channels[-1][:3] == ("plain", "127.0.0.1:50051", None) and not match.tls
    assert channels[-1][3]["grpc.keepalive_time_ms"] == 60_000  # both kinds ping


def test_an_unreachable_tls_server_says_to_check_the_ca_not_to_start_domino_up():
    tls = api.ApiError(grpc.StatusCode.UNAVAILABLE, "handshake failed", "play.example.com:443",
                       api.TLS_UNREACHABLE_HINT)
    assert "--ca" in str(tls) and "domino up" not in str(tls)
    assert "domino up" in str(api.ApiError(grpc.StatusCode.UNAVAILABLE, "refused", "127.0.0.1:1"))


def test_the_clients_pings_stay_within_the_servers_policy():
    """The server's defaults (services/common/config.py) accept the reference client's pings:
    no more often than its minimum interval, and also while no call is open (the client pings
    then too); neither side stops pinging a quiet stream."""
    server = dict(server_options(Settings.model_construct()))
    client = dict(api.CHANNEL_OPTIONS)
    assert client["grpc.keepalive_time_ms"] >= server["grpc.http2.min_ping_interval_without_data_ms"]
    assert client["grpc.keepalive_permit_without_calls"] == 1 and server["grpc.keepalive_permit_without_calls"] == 1
    assert client["grpc.keepalive_timeout_ms"] < client["grpc.keepalive_time_ms"]
    assert client["grpc.http2.max_pings_without_data"] == 0 and server["grpc.http2.max_pings_without_data"] == 0


def test_the_server_options_come_from_the_settings():
    defaults = dict(server_options(Settings.model_construct()))
    assert defaults["grpc.keepalive_time_ms"] == 60_000 and defaults["grpc.keepalive_timeout_ms"] == 20_000
    assert defaults["grpc.http2.min_ping_interval_without_data_ms"] == 30_000
    assert defaults["grpc.max_connection_age_ms"] == 30 * 60_000
    assert defaults["grpc.max_connection_age_grace_ms"] > defaults["grpc.max_connection_age_ms"]
    tuned = dict(server_options(Settings(grpc_keepalive_seconds=45, grpc_max_connection_age_seconds=600,
                                         grpc_max_connection_age_grace_seconds=0)))
    assert tuned["grpc.keepalive_time_ms"] == 45_000 and tuned["grpc.max_connection_age_ms"] == 600_000
    assert tuned["grpc.max_connection_age_grace_ms"] >= 1


def test_reflection_and_tls_are_settings(monkeypatch):
    monkeypatch.setenv("DOMINO_GRPC_REFLECTION", "false")
    assert Settings().grpc_reflection is False
    monkeypatch.delenv("DOMINO_GRPC_REFLECTION")
    assert Settings().grpc_reflection is True
    with pytest.raises(ValidationError, match="go together"):
        Settings(tls_cert_file="server.pem")


class FakeApi:
    made: list = []

    def __init__(self, address, token, credentials=None, **kw):
        self.address = address
        self.credentials = credentials
        FakeApi.made.append(self)

    def reachable(self):
        return False

    def close(self):
        pass


@pytest.fixture
def fake_apis(monkeypatch):
    FakeApi.made = []
    monkeypatch.setattr(play_module, "MatchApi", FakeApi)
    monkeypatch.setattr(play_module, "MatchmakingApi", FakeApi)
    monkeypatch.setattr("services.client.api.channel_credentials", lambda ca=None: ("tls", ca))
    return FakeApi.made


def _play(*args, tmp_path):
    return CliRunner().invoke(play_module.play, [*args, "--player", "ann", "--var", str(tmp_path)])


def test_play_server_names_both_services_on_the_public_port_over_tls(fake_apis, tmp_path):
    result = _play("--server", "play.example.com", tmp_path=tmp_path)
    assert result.exit_code == 1 and "over TLS" in result.output
    assert [(a.address, a.credentials) for a in fake_apis] == [("play.example.com:443", ("tls", None))] * 2


def test_play_ca_means_tls_with_that_ca(fake_apis, tmp_path):
    ca = tmp_path / "ca.pem"
    ca.write_bytes(CA_PEM)
    _play("--ca", str(ca), "--match-address", "10.0.0.1:8443", "--matchmaking-address", "10.0.0.1:8443",
          tmp_path=tmp_path)
    assert [a.credentials for a in fake_apis] == [("tls", ca)] * 2
    fake_apis.clear()
    _play("--server", "play.example.com:8443", "--tls", tmp_path=tmp_path)
    assert fake_apis[0].address == "play.example.com:8443"


def test_play_stays_plaintext_without_tls_options(fake_apis, tmp_path):
    result = _play("--match-address", "127.0.0.1:1", "--matchmaking-address", "127.0.0.1:2", tmp_path=tmp_path)
    assert [a.credentials for a in fake_apis] == [None, None]
    assert "Is the system running?" in result.output


def test_play_server_and_an_address_do_not_go_together(fake_apis, tmp_path):
    result = _play("--server", "play.example.com", "--match-address", "127.0.0.1:1", tmp_path=tmp_path)
    assert result.exit_code == 2 and "--server" in result.output and not fake_apis
