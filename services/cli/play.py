"""`domino play`: the reference terminal client, over the public gRPC API only."""

from __future__ import annotations

import getpass
import sys
from pathlib import Path

import click
from rich.console import Console

from services.client.api import ApiError, MatchApi, MatchmakingApi, subject_of
from services.client.app import App, Choices, InputClosed, explain
from services.client.game import ClientError, GameOptions
from services.client.inbox import Inbox
from services.client.menu import STRENGTHS, TARGETS, TURN_TIMERS, VARIANTS, clean_code
from services.client.store import LastMatch
from services.client.terminal import Output
from services.common.auth import mint_token
from services.common.config import Settings


def _default_player() -> str:
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no login name (containers): a fixed one will do
        return "player"


@click.command()
@click.option("--player", envvar="DOMINO_PLAYER", default=None,
              help="Your player id; a token for it is minted with DOMINO_JWT_SECRET (default: DOMINO_PLAYER or "
                   "your login name).")
@click.option("--token", envvar="DOMINO_TOKEN", default=None, help="A bearer token to use instead (its subject is you).")
@click.option("--match-address", default=None, help="The match service (default: DOMINO_MATCH_ADDRESS).")
@click.option("--matchmaking-address", default=None, help="Matchmaking (default: DOMINO_MATCHMAKING_ADDRESS).")
@click.option("--var", "var_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where your last match id is kept (default: DOMINO_VAR_DIR or ./var).")
@click.option("--practice", "mode", flag_value="practice", help="Practise against bots at once.")
@click.option("--table", "mode", flag_value="table", help="Ask for a seat at a public table at once.")
@click.option("--create", "mode", flag_value="create", help="Create a private room at once.")
@click.option("--join", "code", default=None, metavar="CODE", help="Join the private room with this invite code.")
@click.option("--resume", "resume", default=None, metavar="MATCH_ID",
              help="Go back to a match (after a crash or a lost connection); 'last' for your last one.")
@click.option("--variant", type=click.Choice(VARIANTS), default=None, help="draw-2, block-3 or block-4.")
@click.option("--teams/--solo", default=None, help="block-4 only: teams (the default) or every seat for itself.")
@click.option("--target", type=click.Choice([str(t) for t in TARGETS]), default=None, help="Points to win.")
@click.option("--turn-timer", type=click.Choice([str(t) for t in TURN_TIMERS]), default=None,
              help="Seconds per turn, 0 for none (practice and rooms; default 45).")
@click.option("--bots", "strength", type=click.Choice(STRENGTHS), default=None,
              help="Bots' strength (practice, and bots you add to a room).")
@click.option("--seat", type=int, default=None, help="The seat to take in a room you create or join.")
@click.option("--fill-bots", is_flag=True, help="With --create: put bots in every free seat.")
@click.option("--start-when-full", is_flag=True, help="With --create: start the match once every seat is taken.")
@click.option("--auto", is_flag=True, help="Play your seat automatically (the first legal move): demos, tests.")
@click.option("--delay", type=float, default=0.0, show_default=True, help="Seconds before each automatic move.")
@click.option("--no-color", is_flag=True, help="No colours (also: NO_COLOR=1).")
@click.option("--no-redraw", is_flag=True, help="Print screens one after another instead of redrawing in place.")
def play(player, token, match_address, matchmaking_address, var_dir, mode, code, resume, variant, teams, target,
         turn_timer, strength, seat, fill_bots, start_when_full, auto, delay, no_color, no_redraw) -> None:
    """Play dominoes in the terminal: practice against bots, public tables, private rooms.

    With no mode it shows a menu (and offers to resume your unfinished match). Start the
    system first with `domino up`.

    \b
    Examples:
      domino play --player alice
      domino play --practice --variant block-4 --bots strong
      domino play --create --variant draw-2          (share the invite code)
      domino play --join K7M2PQ4X
      domino play --resume last
      domino play --practice --variant draw-2 --bots greedy --auto   (watch it play itself)
    """
    settings = Settings()
    modes = [m for m in (mode, code and "join", resume and "resume") if m]
    if len(modes) > 1:
        raise click.UsageError("choose one of --practice, --table, --create, --join and --resume")
    if (fill_bots or start_when_full) and mode != "create":
        raise click.UsageError("--fill-bots and --start-when-full go with --create")
    if token:
        player = subject_of(token)
        if not player:
            raise click.UsageError("--token is not a readable JWT")
    else:
        player = player or _default_player()
        token = mint_token(player, settings.jwt_secret, "player")
    match_address = match_address or settings.match_address
    matchmaking_address = matchmaking_address or settings.matchmaking_address
    store = LastMatch(var_dir or Path(settings.var_dir), player)

    console = Console(highlight=False, emoji=False, no_color=no_color or None)
    out = Output(console, redraw=False if no_redraw else None)
    inbox = Inbox()
    inbox.read_lines(sys.stdin)
    match_api = MatchApi(match_address, token)
    matchmaking_api = MatchmakingApi(matchmaking_address, token)
    app = App(player, match_api, matchmaking_api, inbox, out, store,
              GameOptions(auto=auto, delay=delay, tick=1.0 if out.redraw else 0.0),
              Choices(variant=variant, teams=teams, target=int(target) if target else None,
                      turn_timer=int(turn_timer) if turn_timer is not None else None, strength=strength, seat=seat,
                      fill_bots=fill_bots, start_when_full=start_when_full))
    match_id = None
    status = 0
    try:
        if resume:
            match_id = store.load() if resume == "last" else resume
            if not match_id:
                raise click.ClickException(f"no unfinished match is remembered for {player}")
            app.play_match(match_id)
        elif mode == "practice":
            app.practice()
        elif mode == "table":
            app.table()
        elif mode == "create":
            app.create_room()
        elif code:
            app.join_room(clean_code(code))
        else:
            status = app.menu()
    except ApiError as e:
        raise click.ClickException(explain(e)) from None
    except ClientError as e:
        raise click.ClickException(str(e)) from None
    except InputClosed:
        console.print()
    except KeyboardInterrupt:
        console.print("\nBye. An unfinished match waits for you: domino play --resume last")
        status = 130
    finally:
        match_api.close()
        matchmaking_api.close()
    if status:
        raise SystemExit(status)
