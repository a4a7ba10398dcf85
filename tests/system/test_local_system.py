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
