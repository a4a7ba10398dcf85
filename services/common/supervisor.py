"""Runs the whole system as local processes: NATS, match, relay, accounts, matchmaking, bots,
social, the notifier and (for `domino up`, or a test that names it) the browsers' edge and
the staff's console.

Used by `domino up` (the one-command local run) and by the system tests, which also kill
and restart single services through it. Every service is a real process started with
`python -m services.cli serve NAME`; its output goes to `<var>/logs/NAME.log`.

The notifier's providers are off unless configured: its DOMINO_APNS_*, DOMINO_FCM_* and
DOMINO_NOTIFIER_* settings come from this process's environment or from ``notifier_env``
(a system test points them at its fake providers), and only the notifier is given them.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import secrets
import signal
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from .auth import ROLES, KeyRing
from .bus import NATS_USERS, ensure_stream
from .ports import taken
from .private_files import PRIVATE_UMASK, open_private, private_directory, tighten, write_private
from .servers import NatsServer, free_ports, start_nats
from .config import SQLITE_MODULE, Settings

SERVICES = ("match", "relay", "accounts", "matchmaking", "bots", "social", "notifier")
NOTIFIER = "notifier"  # started after the social and match services it asks
#: The notifier's own settings: given to it alone, from the environment or ``notifier_env``.
NOTIFIER_PREFIXES = ("DOMINO_APNS_", "DOMINO_FCM_", "DOMINO_NOTIFIER_")
EDGE = "edge"  # started after the services it forwards to
CONSOLE = "console"  # started last: it signs in through the account service
# The browser check page the edge serves in the local run (`make install` builds its bundle).
TEST_PAGE = Path(__file__).resolve().parents[2] / "sdk" / "typescript" / "test-page"


class AlreadyRunning(RuntimeError):
    pass


class PortsInUse(RuntimeError):
    pass


@dataclass
class Ports:
    nats: int = 4222
    match: int = 50051
    matchmaking: int = 50052
    match_metrics: int = 9101
    matchmaking_metrics: int = 9102
    bots_metrics: int = 9103
    relay_metrics: int = 9104
    account: int = 50053
    account_metrics: int = 9105
    web: int = 8080
    web_metrics: int = 9106
    social: int = 50054
    social_metrics: int = 9107
    notifier_metrics: int = 9108
    console: int = 8090
    console_metrics: int = 9110

    @classmethod
    def free(cls) -> "Ports":
        return cls(*free_ports(16))


@dataclass
class LocalSystem:
    var_dir: Path
    ports: Ports = field(default_factory=Ports)
    services: tuple[str, ...] = SERVICES
    extra_env: dict[str, str] = field(default_factory=dict)
    notifier_env: dict[str, str] = field(default_factory=dict)  # DOMINO_APNS_*, DOMINO_FCM_*, DOMINO_NOTIFIER_*
    match_replicas: int = 1  # a second replica ("match-2") serves on ports of its own
    nats: NatsServer | None = None
    processes: dict[str, subprocess.Popen] = field(default_factory=dict)
    _lock: IO[str] | None = None  # the open lock file while the system runs
    _keys: KeyRing | None = None
    _second_ports: tuple[int, int] | None = None

    @property
    def match_address(self) -> str:
        return f"127.0.0.1:{self.ports.match}"

    @property
    def match_target(self) -> str:
        """What clients of the match service dial: every replica (they move on when one dies)."""
        if self.match_replicas == 1:
            return self.match_address
        return f"ipv4:127.0.0.1:{self.ports.match},127.0.0.1:{self._second_match[0]}"

    @property
    def _second_match(self) -> tuple[int, int]:
        """(gRPC port, metrics port) of the second match replica, chosen once."""
        if self._second_ports is None:
            grpc_port, metrics_port = free_ports(2)
            self._second_ports = (grpc_port, metrics_port)
        return self._second_ports

    @property
    def matchmaking_address(self) -> str:
        return f"127.0.0.1:{self.ports.matchmaking}"

    @property
    def account_address(self) -> str:
        return f"127.0.0.1:{self.ports.account}"

    @property
    def social_address(self) -> str:
        return f"127.0.0.1:{self.ports.social}"

    @property
    def web_address(self) -> str:
        return f"127.0.0.1:{self.ports.web}"

    @property
    def console_url(self) -> str:
        return f"http://127.0.0.1:{self.ports.console}"

    @property
    def console_link_file(self) -> Path:
        """Where the console writes its one-time local sign-in link (services/console/local_link.py)."""
        return self.var_dir / "console-sign-in"

    def console_sign_in_link(self) -> str:
        try:
            return self.console_link_file.read_text().strip()
        except OSError:
            return ""

    def env(self, service: str | None = None) -> dict[str, str]:
        """The environment of ``service`` (its own NATS user), or of a local tool (none)."""
        env = {name: value for name, value in os.environ.items()
               if service == NOTIFIER or not name.startswith(NOTIFIER_PREFIXES)}
        env.update({
            "DOMINO_VAR_DIR": str(self.var_dir),
            "DOMINO_NATS_URL": f"nats://127.0.0.1:{self.ports.nats}",
            "DOMINO_MATCH_ADDRESS": self.match_address,
            "DOMINO_MATCHMAKING_ADDRESS": self.matchmaking_address,
            "DOMINO_ACCOUNT_ADDRESS": self.account_address,
            "DOMINO_ACCOUNT_METRICS_PORT": str(self.ports.account_metrics),
            "DOMINO_MATCH_METRICS_PORT": str(self.ports.match_metrics),
            "DOMINO_MATCHMAKING_METRICS_PORT": str(self.ports.matchmaking_metrics),
            "DOMINO_BOTS_METRICS_PORT": str(self.ports.bots_metrics),
            "DOMINO_RELAY_METRICS_PORT": str(self.ports.relay_metrics),
            "DOMINO_SOCIAL_ADDRESS": self.social_address,
            "DOMINO_SOCIAL_METRICS_PORT": str(self.ports.social_metrics),
            "DOMINO_WEB_ADDRESS": self.web_address,
            "DOMINO_WEB_METRICS_PORT": str(self.ports.web_metrics),
        })
        if service == NOTIFIER:
            env["DOMINO_NOTIFIER_METRICS_PORT"] = str(self.ports.notifier_metrics)
        if "PERSISTENCE_MODULE" not in env:
            env["PERSISTENCE_MODULE"] = SQLITE_MODULE
            env["SQLITE_DBNAME"] = str(self.var_dir / "match.sqlite")
        env["DOMINO_KEYS_DIR"] = str(self.keys_dir)
        user = {"match": "relay", "relay": "relay"}.get(service or "", service)  # match: the timers need no NATS
        if user in NATS_USERS:
            env["DOMINO_NATS_USER"], env["DOMINO_NATS_PASSWORD"] = user, self.nats_passwords()[user]
        env.update(self.extra_env)
        if service == NOTIFIER:
            env.update(self.notifier_env)
        if service == CONSOLE:
            env.update(self._console_env())
        if service in ("bots", "matchmaking", "accounts", "social", NOTIFIER, EDGE, CONSOLE):
            env["DOMINO_MATCH_ADDRESS"] = self.match_target
        if service == EDGE and "DOMINO_WEB_STATIC_DIR" not in env and (TEST_PAGE / "bundle.js").exists():
            env["DOMINO_WEB_STATIC_DIR"] = str(TEST_PAGE)
        if service in ("accounts", "match", "match-2") and "social" not in self.services \
                and "DOMINO_SOCIAL_ADDRESS" not in self.extra_env:
            env["DOMINO_SOCIAL_ADDRESS"] = ""  # no social service to export from, erase in or ask about blocks
        if service == "accounts" and EDGE in self.services and "DOMINO_TRUSTED_PROXIES" not in env:
            env["DOMINO_TRUSTED_PROXIES"] = "127.0.0.1"  # the edge: sign-ins count the browser it forwards for
        if service == "match-2":
            env["DOMINO_MATCH_ADDRESS"] = f"127.0.0.1:{self._second_match[0]}"
            env["DOMINO_MATCH_METRICS_PORT"] = str(self._second_match[1])
        return env

    def _console_env(self) -> dict[str, str]:
        p = self.ports
        targets = {"match": p.match_metrics, "matchmaking": p.matchmaking_metrics, "bots": p.bots_metrics,
                   "relay": p.relay_metrics, "account": p.account_metrics, "edge": p.web_metrics,
                   "social": p.social_metrics, "notifier": p.notifier_metrics}
        env = {"DOMINO_CONSOLE_ADDRESS": f"127.0.0.1:{p.console}",
               "DOMINO_CONSOLE_METRICS_PORT": str(p.console_metrics),
               "DOMINO_CONSOLE_PUBLIC_URL": self.console_url, "DOMINO_CONSOLE_LOCAL_LINK": "true",
               "DOMINO_CONSOLE_METRICS_TARGETS": ",".join(f"{name}=http://127.0.0.1:{port}/metrics"
                                                          for name, port in targets.items())}
        return {name: value for name, value in env.items() if name not in self.extra_env}

    def nats_passwords(self) -> dict[str, str]:
        """Each NATS user's password, made once per installation (var/nats-users.json)."""
        path = self.var_dir / "nats-users.json"
        passwords = json.loads(path.read_text()) if path.exists() else {}
        if all(user in passwords for user in NATS_USERS):
            return passwords
        passwords = {user: passwords.get(user) or secrets.token_urlsafe(24) for user in NATS_USERS}
        write_private(path, json.dumps(passwords))
        return passwords

    async def _set_up_nats(self, url: str) -> None:
        """The admin's part, as `domino nats setup` does it: the stream, the relay's bucket and
        every consumer (with the bots' own ack wait), before any service starts."""
        import nats

        from . import consumers

        ack_wait = self.env("bots").get("DOMINO_BOT_ACK_WAIT_SECONDS") or Settings().bot_ack_wait_seconds
        nc = await nats.connect(url, user="admin", password=self.nats_passwords()["admin"])
        try:
            js = nc.jetstream()
            await ensure_stream(js)
            await consumers.ensure_consumers(js, consumers.every(float(ack_wait)))
        finally:
            await nc.close()

    @property
    def keys_dir(self) -> Path:
        return self.var_dir / "keys"

    def keys(self) -> KeyRing:
        """Every development key of this installation (tests and local tools mint with them)."""
        if self._keys is None:
            self._keys = KeyRing.load(self.keys_dir, issues=ROLES, accepts=ROLES)
        return self._keys

    def _ensure_keys(self) -> None:
        """Development keys, made once per installation: never a key anyone else knows."""
        if not all((self.keys_dir / f"{role}.key").exists() for role in ROLES):
            KeyRing.generate().write(self.keys_dir)
        made = subprocess.run([sys.executable, "-m", "services.match.development_head_key", str(self.keys_dir)],
                              capture_output=True, text=True, umask=PRIVATE_UMASK)
        if made.returncode:
            raise RuntimeError(f"could not make the head signing key in {self.keys_dir}: {made.stderr.strip()}")

    def start(self, timeout: float = 60) -> None:
        private_directory(self.var_dir)
        tightened = tighten(self.var_dir)  # left readable by others by an earlier version
        if tightened:
            print(f"made {len(tightened)} files and directories under {self.var_dir} private to their owner",
                  file=sys.stderr)
        private_directory(self.var_dir / "logs")
        self._ensure_keys()
        self._take_lock()
        busy = taken({name: port for name, port in vars(self.ports).items()})
        if busy:
            self._release_lock()
            raise PortsInUse("; ".join(busy))
        try:
            self.nats = start_nats(self.var_dir / "nats", self.ports.nats, users=self.nats_passwords())
            asyncio.run(self._set_up_nats(self.nats.url))
            for name in self.services:
                self.start_service(name, timeout)
            if self.match_replicas > 1:
                self.start_service("match-2", timeout, serve="match")
        except BaseException:
            self.stop()  # leave nothing running behind a failed start
            raise

    def _take_lock(self) -> None:
        lock = open_private(self.var_dir / "domino.lock", "a+")
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.seek(0)
            raise AlreadyRunning(f"the system is already running from {self.var_dir} ({lock.read().strip()})") from None
        lock.seek(0)
        lock.truncate()
        lock.write(f"pid {os.getpid()}, match service at {self.match_address}")
        lock.flush()
        self._lock = lock

    def start_service(self, name: str, timeout: float = 60, serve: str | None = None) -> subprocess.Popen:
        """Start ``domino serve <serve>`` (default: ``name``) as process ``name``, with
        ``env(name)``; a second replica of a service is a second name."""
        log = open_private(self.var_dir / "logs" / f"{name}.log", "ab")
        command = ["-m", "services.console"] if name == CONSOLE else ["-m", "services.cli", "serve", serve or name]
        if name == CONSOLE:
            self.console_link_file.unlink(missing_ok=True)  # the one a console before this wrote
        proc = subprocess.Popen([sys.executable, *command], env=self.env(name),
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True, umask=PRIVATE_UMASK)
        self.processes[name] = proc
        self._wait_ready(name, proc, timeout)
        return proc

    def _wait_ready(self, name: str, proc: subprocess.Popen, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"{name} exited with {proc.returncode}; see {self.var_dir / 'logs' / (name + '.log')}")
            if self._is_ready(name):
                return
            time.sleep(0.1)
        raise TimeoutError(f"{name} did not become ready in {timeout} s")

    def _is_ready(self, name: str) -> bool:
        address = self.grpc_address(name)
        if address is not None:
            return serving(address)
        port = {"relay": self.ports.relay_metrics, "bots": self.ports.bots_metrics,
                NOTIFIER: self.ports.notifier_metrics, EDGE: self.ports.web, CONSOLE: self.ports.console}[name]
        path = "healthz" if name in (EDGE, CONSOLE) else "metrics"
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/{path}", timeout=1):
                return True
        except OSError:
            return False

    def grpc_address(self, name: str) -> str | None:
        """The gRPC address process ``name`` serves on (None: it serves no gRPC)."""
        if name == "match-2":
            return f"127.0.0.1:{self._second_match[0]}"
        return {"match": self.match_address, "matchmaking": self.matchmaking_address,
                "accounts": self.account_address, "social": self.social_address}.get(name)

    def kill(self, name: str, sig: int = signal.SIGKILL) -> None:
        proc = self.processes.pop(name)
        proc.send_signal(sig)
        proc.wait(30)

    def stop(self) -> None:
        """SIGTERM every service (they finish in-flight work), then NATS."""
        for name in reversed(list(self.processes)):
            proc = self.processes[name]
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for name, proc in list(self.processes.items()):
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.processes.clear()
        if self.nats is not None:
            self.nats.stop()
            self.nats = None
        self._release_lock()

    def _release_lock(self) -> None:
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def __enter__(self) -> "LocalSystem":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def serving(address: str) -> bool:
    """Whether the gRPC server at ``address`` answers its health check with SERVING."""
    with grpc.insecure_channel(address) as channel:
        try:
            check = health_pb2_grpc.HealthStub(channel).Check  # type: ignore[attr-defined]  # stubs list no methods
            return check(health_pb2.HealthCheckRequest(), timeout=1).status == health_pb2.HealthCheckResponse.SERVING
        except grpc.RpcError:
            return False
