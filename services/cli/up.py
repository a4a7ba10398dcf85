"""`domino up`: the whole system on this machine, in the foreground, until Ctrl-C."""

from __future__ import annotations

import signal
import threading
from pathlib import Path

import click

from services.cli.command_path import command_path
from services.common.config import Settings
from services.common.private_files import restrict_umask
from services.common.supervisor import CONSOLE, EDGE, NOTIFIER, SERVICES, AlreadyRunning, LocalSystem, Ports, \
    PortsInUse


@click.command()
@click.option("--var", "var_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where the SQLite store, NATS data and logs live (default: DOMINO_VAR_DIR or ./var).")
def up(var_dir: Path | None) -> None:
    """Start NATS (JetStream), the match service (SQLite), the relay, accounts, matchmaking, bots,
    social (friends, blocks, the inbox), the notifier (pushes to phones) and the browsers' edge
    (gRPC-Web and Connect, with a browser check page) and the staff's console, with a one-time
    link that signs in a local operator.

    The notifier's push providers are off unless DOMINO_APNS_* / DOMINO_FCM_* are set in this
    environment (docs/operations.md). Starting again resumes every unfinished match where it stood.
    """
    restrict_umask()  # var/ holds seeds and keys: what this and its children create is the user's alone
    settings = Settings()
    var_dir = var_dir or Path(settings.var_dir)
    system = LocalSystem(var_dir.resolve(), Ports(), services=available_services())
    try:
        system.start()
    except AlreadyRunning as e:
        raise click.ClickException(f"{e}. Use that one, or stop it first (Ctrl-C in its terminal).") from None
    except PortsInUse as e:
        raise click.ClickException(f"cannot start: {e}. Stop what holds them (another `domino up`?) first.") from None
    except (RuntimeError, TimeoutError) as e:
        system.stop()
        raise click.ClickException(str(e)) from None
    p = system.ports
    domino = command_path()
    click.echo(f"""
domino is up (data and logs in {var_dir}/).
  gRPC, with reflection:  match {system.match_address}   matchmaking {system.matchmaking_address}
                          accounts {system.account_address}   social {system.social_address}
  browsers:               http://{system.web_address}/  (gRPC-Web and Connect; the page plays a practice match)
{console_line(system)}  NATS (JetStream):       nats://127.0.0.1:{p.nats}
  metrics:                match http://127.0.0.1:{p.match_metrics}/metrics
                          relay http://127.0.0.1:{p.relay_metrics}/metrics
                          matchmaking http://127.0.0.1:{p.matchmaking_metrics}/metrics
                          bots http://127.0.0.1:{p.bots_metrics}/metrics
                          accounts http://127.0.0.1:{p.account_metrics}/metrics
                          social http://127.0.0.1:{p.social_metrics}/metrics
{notifier_line(system)}                          edge http://127.0.0.1:{p.web_metrics}/metrics
                          console http://127.0.0.1:{p.console_metrics}/metrics
Play:   {domino} play        (another terminal)
Demo:   {domino} demo --rules all-fives --seats 3 --json
Stop:   Ctrl-C
""")
    stopped = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stopped.set())
    while not stopped.wait(1.0):
        for name, proc in list(system.processes.items()):
            if proc.poll() is not None:
                click.echo(f"{name} exited ({proc.returncode}); restarting it (see {var_dir}/logs/{name}.log)", err=True)
                system.processes.pop(name)
                system.start_service(name)
                if name == CONSOLE:
                    click.echo(console_line(system).strip(), err=True)
    click.echo("stopping: the services finish in-flight commands and close open streams...")
    system.stop()
    click.echo("stopped.")


def notifier_line(system: LocalSystem) -> str:
    """The banner's notifier line: its metrics, and whether it can reach a phone."""
    if NOTIFIER not in system.services:
        return ""
    env = system.env(NOTIFIER)
    on = [name for name, prefix in (("APNs", "DOMINO_APNS_KEY_FILE"), ("FCM", "DOMINO_FCM_SERVICE_ACCOUNT_FILE"))
          if env.get(prefix)]
    providers = ", ".join(on) if on else "no push provider configured: pushes are counted, not sent"
    return f"                          notifier http://127.0.0.1:{system.ports.notifier_metrics}/metrics  ({providers})\n"


def console_line(system: LocalSystem) -> str:
    """The banner's console line: its one-time sign-in link (signs in once, as a local
    operator with every role; the next start of the console writes a new one)."""
    if CONSOLE not in system.services:
        return ""
    link = (system.console_sign_in_link()
            or f"{system.console_url}/ (no sign-in link: see {system.var_dir}/logs/console.log)")
    return f"  staff console:          {link}  (signs in once)\n"


def available_services() -> tuple[str, ...]:
    import importlib.util

    found = tuple(s for s in SERVICES if s != "matchmaking" or importlib.util.find_spec("services.matchmaking.bootstrap"))
    return found + (EDGE, CONSOLE)
