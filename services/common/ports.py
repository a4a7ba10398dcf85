"""Which local TCP ports are taken, and by what: so `domino up` can say "port 4222 is held
by nats-server (pid 812)" instead of letting a server fail with "address already in use".

Linux only for the owner (read from /proc); elsewhere the port is still named.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path


def is_free(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


def owner(port: int) -> str | None:
    """'<command> (pid N)' of the process listening on ``port``, when this machine can tell."""
    inodes = _listening_inodes(port)
    if not inodes:
        return None
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            for fd in (proc / "fd").iterdir():
                target = os.readlink(fd)
                if target.startswith("socket:[") and target[8:-1] in inodes:
                    command = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
                    return f"{command[:80] or '?'} (pid {proc.name})"
        except OSError:
            continue
    return None


def _listening_inodes(port: int) -> set[str]:
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if state == "0A" and int(local.rsplit(":", 1)[1], 16) == port:  # 0A: LISTEN
                found.add(inode)
    return found


def taken(ports: dict[str, int]) -> list[str]:
    """A sentence for each of ``ports`` (name -> port) that is not free."""
    out = []
    for name, port in ports.items():
        if not is_free(port):
            who = owner(port)
            out.append(f"port {port} ({name}) is in use" + (f" by {who}" if who else ""))
    return out
