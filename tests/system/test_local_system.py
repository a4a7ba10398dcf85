"""`domino up`'s supervisor: ports it picks and what a failed start leaves behind."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from services.common.supervisor import LocalSystem, Ports


def test_the_ports_of_a_local_system_are_all_different():
    for _ in range(50):
        ports = Ports.free()
        assert len(set(vars(ports).values())) == len(vars(ports))


def test_a_start_that_fails_stops_what_it_had_started(tmp_path: Path):
    ports = Ports.free()
    with socket.socket() as taken:  # the match service cannot bind its port
        taken.bind(("127.0.0.1", ports.match))
        taken.listen()
        system = LocalSystem(tmp_path / "var", ports, services=("match",))
        with pytest.raises(RuntimeError):
            system.start(timeout=60)
        nats = system.nats
    assert system.processes == {} and nats is None
    with socket.socket() as probe:  # NATS's port is free again
        probe.bind(("127.0.0.1", ports.nats))


def test_a_start_on_a_taken_port_names_the_port_and_what_holds_it(tmp_path: Path):
    from services.common.supervisor import PortsInUse

    ports = Ports.free()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", ports.nats))
        taken.listen()
        system = LocalSystem(tmp_path / "var", ports, services=("match",))
        with pytest.raises(PortsInUse) as caught:
            system.start(timeout=60)
    message = str(caught.value)
    assert f"port {ports.nats} (nats) is in use" in message and f"pid {__import__('os').getpid()}" in message
    assert system.nats is None and system.processes == {}


def test_the_banner_names_a_domino_command_that_works(monkeypatch, tmp_path: Path):
    import sys

    from services.cli.command_path import command_path

    venv_bin = tmp_path / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    (venv_bin / "domino").write_text("#!/bin/sh\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", [str(venv_bin / "domino"), "up"])
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert command_path() == ".venv/bin/domino"


def test_domino_up_starts_the_social_service_and_two_phones_befriend_through_it(tmp_path: Path):
    """`domino up` runs SERVICES: the social service among them, beside the account service
    it asks for names, each a real process; the request reaches Ann's inbox (without NATS
    here: the social service serves while its outbox waits)."""
    import grpc

    from domino.account.v1 import account_service_pb2 as account_pb
    from domino.account.v1 import account_service_pb2_grpc as account_grpc
    from domino.social.v1 import social_service_pb2 as social_pb
    from domino.social.v1 import social_service_pb2_grpc as social_grpc
    from services.common.supervisor import SERVICES, serving

    assert "social" in SERVICES
    with LocalSystem(tmp_path / "var", Ports.free(), services=("match", "accounts", "social")) as system:
        assert serving(system.social_address)
        with grpc.insecure_channel(system.account_address) as accounts, \
                grpc.insecure_channel(system.social_address) as social:
            sign_in = account_grpc.AccountServiceStub(accounts).SignInWithDevice
            ann, bob = (sign_in(account_pb.SignInWithDeviceRequest(device_id=f"{who}-phone-0123456789",
                                                                   device_secret="ab" * 32,
                                                                   display_name=f"{who} Up")).session
                        for who in ("Ann", "Bob"))
            stub = social_grpc.SocialServiceStub(social)
            sent = stub.SendFriendRequest(social_pb.SendFriendRequestRequest(request_id="up-1", display_name="ann up"),
                                          metadata=(("authorization", f"Bearer {bob.access_token}"),))
            assert sent.request.player_id == ann.player_id
            inbox = stub.ListNotifications(social_pb.ListNotificationsRequest(),
                                           metadata=(("authorization", f"Bearer {ann.access_token}"),))
            assert [(n.kind, n.player_id) for n in inbox.notifications] == [
                (social_pb.NOTIFICATION_KIND_FRIEND_REQUEST, bob.player_id)]
        assert (tmp_path / "var" / "social.sqlite").exists()
