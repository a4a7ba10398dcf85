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
