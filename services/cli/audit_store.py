"""`domino audit`'s commands for operators, on the match store and the head key: what to
decide about a match the service refuses to replay (repair-report), whether a new build
replays every stored match the same (replay-all, the gate before an upgrade), and a new head
signing key (rotate-head-key). They read the store with the match service's own persistence
settings and change no match (docs/operations.md)."""

from __future__ import annotations

import json
import sys
from typing import NoReturn

import click

from services.audit.report import shown
from services.match.heads import BadHead


@click.command("repair-report")
@click.argument("match_id")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def repair_report(match_id: str, as_json: bool) -> None:
    """What an operator needs to decide about MATCH when its stored log is refused on replay
    (reads the store directly with the match service's persistence settings; changes nothing).
    MATCH may be an id that is no UUID, as replay-all names a match a hand-written row stored
    under one; no row's topic is imported, whatever it names."""
    from services.audit.repair import repair_report as report_of
    from services.common.config import Settings, persistence_env
    from services.match.application import MatchApplication

    app = MatchApplication(env=persistence_env(Settings()))
    try:
        report = report_of(app, match_id)
    finally:
        app.close()
    if as_json:
        click.echo(json.dumps(report, default=str))
    elif not report["found"] and report.get("unreadable"):
        fail("repair-report", f"{match_id!r} is not a match id, and no row is stored under it")
    elif not report["found"]:
        click.echo(f"no stored events for match {match_id}")
    elif report.get("unreadable"):
        click.echo(f"match {shown(report['match'])}: {shown(report['unreadable'])}; {report['events']} stored rows")
    else:
        click.echo(f"match {report['match']}: {report.get('rules')} {report.get('variant') or ''} "
                   f"seats {', '.join(report.get('seats', []))}; {report['events']} stored events")
        for event in report["stored_events"]:
            mark = " <- REFUSED" if report["refused"] and event["version"] == report["refused"]["version"] else ""
            body = event.get("unreadable") or json.dumps(event.get("fields"), default=str)
            click.echo(f"  {event['version']:>4} {event['type']:<16} {body[:160]}{mark}")
        click.echo(f"chain: {json.dumps(report['chain'])}")
        for line in report["decide"]:
            click.echo(f"- {line}")
    sys.exit(0 if report["found"] else 2 if report.get("unreadable") else 1)


@click.command("replay-all")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object: matches, replayed, differing, failed, "
                                                      "seconds.")
@click.option("--batch", default=500, show_default=True, type=click.IntRange(1, 10_000),
              help="Matches listed per read of the store.")
def replay_all(as_json: bool, batch: int) -> None:
    """Replay every stored match under this build's engine and name those whose moves,
    results, chain or state differ from what is stored (reads the store with the match
    service's persistence settings; changes nothing). Run it with a new build against a
    copy of production before upgrading.

    Exit status: 0 every match replays the same, 1 some differ or could not be replayed,
    2 the store cannot be read.
    """
    import os

    from services.audit.replay_all import replay_all as replay, stored_matches
    from services.common.config import EMBEDDED_SQLITE, Settings, persistence_env
    from services.match.application import MatchApplication

    env = {**persistence_env(Settings()), "CREATE_TABLE": "false"}  # a wrong address must not make a store
    dbname = env.get("SQLITE_DBNAME", "")
    if env["PERSISTENCE_MODULE"] in EMBEDDED_SQLITE and not dbname.startswith("file:") and dbname != ":memory:" \
            and not os.path.isfile(dbname):
        fail("replay-all", f"no match store at {dbname} (SQLITE_DBNAME)")
    try:
        app = MatchApplication(env=env)
    except Exception as e:  # noqa: BLE001 - one line for the operator, whatever the driver said
        fail("replay-all", f"cannot open the match store: {_first_line(e)}")
    try:
        last, _ = stored_matches(app, batch)
        shown_bar = not as_json and sys.stderr.isatty()
        with click.progressbar(length=last, label="replaying", file=sys.stderr) if shown_bar else _no_bar() as bar:
            done = [0]

            def advance(position: int) -> None:
                bar.update(position - done[0])
                done[0] = position

            summary = replay(app, batch, advance)
            advance(last)  # the log's last events need not start a match
    except Exception as e:  # noqa: BLE001 - the store went away or refuses the tool's reads
        fail("replay-all", f"cannot read the match store: {_first_line(e)}")
    finally:
        app.close()
    if as_json:
        click.echo(json.dumps(summary.to_json()))
    else:
        for entry in summary.differing:
            for d in entry["differences"]:
                at = f" at version {d['version']}" if d["version"] is not None else ""
                click.echo(f"DIFFERS {entry['match']}{at} ({d['kind']}): {shown(d['reason'])}")
        for entry in summary.failed:
            click.echo(f"FAILED {entry['match']}: {shown(entry['reason'])}")
        click.echo(f"{summary.matches} matches: {summary.replayed} replay the same, {len(summary.differing)} differ, "
                   f"{len(summary.failed)} could not be replayed ({summary.seconds:.1f} s)")
    sys.exit(0 if summary.same else 1)


class _no_bar:
    """click.progressbar's place when none is shown (--json, or stderr not a terminal)."""

    def __enter__(self) -> "_no_bar":
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def update(self, steps: int) -> None:
        pass


def _first_line(error: Exception) -> str:
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0][:300]


@click.command("rotate-head-key")
@click.option("--keys-dir", required=True, type=click.Path(file_okay=False),
              help="The directory holding heads.key and heads-keys.json (DOMINO_KEYS_DIR).")
@click.option("--overlap-seconds", default=86_400, show_default=True,
              help="How long the old key stays valid, while processes not yet restarted still sign with it.")
def rotate_head_key(keys_dir: str, overlap_seconds: int) -> None:
    """Make a new head signing key; the old one stays published with the end of its use."""
    from services.match.heads import rotate

    try:
        made = rotate(keys_dir, overlap_seconds=overlap_seconds)
    except OSError as e:
        fail("rotate-head-key", f"cannot write {e.filename}: {e.strerror}")
    except BadHead as e:  # a heads-keys.json that is no domino-keys/1 file: nothing was changed
        fail("rotate-head-key", str(e))
    click.echo(f"new head signing key {made}; publish "
               f"{keys_dir}/heads-keys.json and restart the match service and the relay")


def fail(command: str, message: str) -> NoReturn:
    """Exit status 2 with one line on stderr: the input or the store, not the matches, is at fault."""
    click.echo(f"domino audit {command}: {shown(message)}", err=True)
    sys.exit(2)


COMMANDS = (repair_report, replay_all, rotate_head_key)
