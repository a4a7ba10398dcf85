"""`domino play`: the reference terminal client, over the public gRPC API only.

It holds none of the server's code (an import-linter contract, pyproject.toml): the
families, their options, the bot strengths and the turn timers are what the server's
DescribeRules says, so the command line's choices are checked once connected."""

from __future__ import annotations

import sys
from pathlib import Path

import click
import grpc
from rich.console import Console
from rich.text import Text

from services.cli import family_help
from services.cli.choices import Described
from services.cli.play_options import Addresses, Connection, Display, PlayOptions, Start
from services.cli.command_path import command_path
from services.cli.tls import credentials_of, tls_options
from services.client.account_api import AccountApi
from services.client.account_screen import AccountScreen
from services.client.api import ApiError, MatchApi, MatchmakingApi, TokenSource, subject_of
from services.client.app import App, Choices, InputClosed, explain
from services.client.device import Device, DeviceFileError, config_dir
from services.client.game import ClientError, GameOptions
from services.client.inbox import Inbox
from services.client import families, names, rules_cache
from services.client.families import Setup
from services.client.menu import clean_code
from services.client.session import NAME_REFUSALS, LocalTokens, Session, first_sign_in
from services.client.social_api import SocialApi
from services.client.store import Exports, KeptHeads, LastMatch
from services.client.terminal import Output
from services.common.auth import KeyRing, MissingKeys, mint_token
from services.common.config import Settings, client_keys_dir


ROUND_PAUSE = 8.0  # seconds a round's end stays on screen when the server gives no pause between rounds
PUBLIC_PORT = 443  # the Gateway's HTTPS listener (deploy/k8s/components/public-edge)


def check_reachable(apis, tls: bool = False) -> None:
    """Before any question: each service answers a quick call, or the player is told how
    to start the system, or (TLS) what to check (click.ClickException)."""
    down = [f"{name} at {api.address}" for name, api in apis if not api.reachable()]
    if down:
        if tls:
            raise click.ClickException(f"cannot reach {' or '.join(down)} over TLS. Check the address, and give "
                                       "--ca with the certificate that signed the server's, unless a public "
                                       "authority did.")
        raise click.ClickException(f"cannot reach {' or '.join(down)}. Is the system running? Start it with: "
                                   f"{command_path()} up")


def public_address(server: str) -> str:
    """HOST or HOST:PORT of the public host; the port defaults to the Gateway's 443."""
    _, colon, port = server.rpartition(":")
    if colon and port.isdigit():
        return server
    return f"{server}:{PUBLIC_PORT}"


def local_tokens(player: str, settings: Settings) -> LocalTokens:
    """``--player``: tokens minted with the local run's player key (MissingKeys without it)."""
    keys = KeyRing.load(client_keys_dir(settings), issues=("player",))
    tokens = LocalTokens(lambda: mint_token(player, keys, "player"))
    tokens()
    return tokens


def sign_in(session: Session, name: str | None, out: Output, inbox: Inbox, ask: bool) -> None:
    """The device's sign-in: silent once it has an account; the first time the display name
    is asked (``ask``: someone is at the terminal) or taken from ``--name``."""
    if session.device.player_id:
        session.sign_in()
        return

    def ask_name(refusal: str) -> str:
        if refusal:
            out.say(Text(refusal, style="bold red"))
        else:
            out.say("Welcome! Choose the name other players see (you can change it later under Account).")
        while True:
            out.ask("Display name (3-20 characters):")
            typed = inbox.line().strip()
            if typed:
                return typed
            out.say(Text("A display name cannot be blank: it is what the other players see at the table. Type "
                         "one of 3 to 20 characters (you can change it later under Account).", style="bold red"))

    try:
        created = first_sign_in(session, name or "", ask_name if ask else None)
    except ApiError as e:
        if e.reason in NAME_REFUSALS:
            raise click.ClickException(f"{e}; choose another with --name") from None
        raise
    if created:
        out.say(Text.assemble("Signed in as ", (session.display_name, "bold green"), " (a new account on this "
                              "terminal; its device key is kept in ", str(session.device.path), ")."), soft_wrap=True)


def _choices(rules, variant, seats, teams, target, host_options, scripted: bool) -> Setup:
    """The family and options the command line names, checked together against what the
    server described (UsageError says what does not fit). Started with a mode, unnamed ones
    take the defaults; from the menu they are asked."""
    described = families.current()
    if rules and rules not in described.names:
        raise click.UsageError(f"--rules {rules}: this server plays {', '.join(described.names)}")
    if variant and families.rules_of(variant) is None:
        raise click.UsageError(f"--variant {variant}: this server's variants are {', '.join(described.variants)}")
    if rules and variant and families.rules_of(variant) != rules:
        raise click.UsageError(f"--variant {variant} is not a variant of {rules}")
    options: dict = {}
    for given in host_options:
        try:
            name, value = families.parse_option(given)
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="--option") from None
        options[name] = value
    family = rules or families.rules_of(variant) or (families.owner_of(options) if options else None)
    if family is None and not scripted:
        return Setup("", "", seats, teams, target)  # the menu asks the family, then checks
    setup = families.settled(Setup(family or families.current().default, variant or "", seats, teams, target, options or None))
    problem = families.problem(setup)
    if problem:
        raise click.UsageError(problem)
    return setup


def _check_strength_and_timer(setup: Setup, strength: str | None, turn_timer: int | None) -> None:
    """``--bots`` and ``--turn-timer`` against what the server described (UsageError)."""
    described = families.current()
    if strength is not None:
        offered = families.offered_strengths(setup)[0] if setup.rules else described.strength_names
        if strength not in offered:
            where = f" for {families.title(setup.rules, setup.variant)}" if setup.rules else ""
            raise click.UsageError(f"--bots {strength}: this server's bots{where} are {', '.join(offered)}")
    if turn_timer is not None and turn_timer not in described.turn_timers:
        raise click.UsageError(f"--turn-timer {turn_timer}: this server's turn timers are "
                               f"{', '.join(map(str, described.turn_timers))} seconds (0: none)")


@click.command()
@click.option("--name", "display_name", default=None, metavar="NAME",
              help="The display name of the account this terminal creates on first use (asked when you are at "
                   "the terminal; a script passes it here, or the server makes one up).")
@click.option("--config-dir", envvar="DOMINO_CONFIG_DIR", type=click.Path(file_okay=False, path_type=Path),
              default=None, help="Where this terminal's device key is kept, one file per account service "
                                 "(default: DOMINO_CONFIG_DIR, else $XDG_CONFIG_HOME/domino or ~/.config/domino).")
@click.option("--player", envvar="DOMINO_PLAYER", default=None,
              help="Developer option: play as this player id, with a token minted by the player key of the local "
                   "run (var/keys); no account, ids instead of names.")
@click.option("--token", envvar="DOMINO_TOKEN", default=None,
              help="Developer option: a bearer token to use instead of signing in (its subject is you; not renewed).")
@click.option("--match-address", default=None, help="The match service (default: DOMINO_MATCH_ADDRESS).")
@click.option("--matchmaking-address", default=None, help="Matchmaking (default: DOMINO_MATCHMAKING_ADDRESS).")
@click.option("--account-address", default=None, help="The account service (default: DOMINO_ACCOUNT_ADDRESS).")
@click.option("--social-address", default=None,
              help="The social service: friends and the inbox (default: DOMINO_SOCIAL_ADDRESS).")
@click.option("--server", default=None, metavar="HOST[:PORT]",
              help=f"The public host, which serves every API (deploy/README.md); port {PUBLIC_PORT} unless "
                   "given. Implies --tls.")
@tls_options
@click.option("--var", "var_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where your last match id, signed heads and exported records are kept (default: DOMINO_VAR_DIR or "
                   "./var).")
@click.option("--practice", "mode", flag_value="practice", help="Practise against bots at once.")
@click.option("--table", "mode", flag_value="table", help="Ask for a seat at a public table at once.")
@click.option("--create", "mode", flag_value="create", help="Create a private room at once.")
@click.option("--join", "code", default=None, metavar="CODE", help="Join the private room with this invite code.")
@click.option("--resume", "resume", default=None, metavar="MATCH_ID",
              help="Go back to a match (after a crash or a lost connection); 'last' for the one matchmaking says "
                   "you are seated in (or, if it does not answer, the last one played here).")
@click.option("--watch", "watch", default=None, metavar="MATCH_ID",
              help="Watch a match as a spectator (one turn behind, no hands), if it allows spectators; q leaves.")
@click.option("--rules", default=None, metavar="FAMILY", cls=Described, described=family_help.rules_help)
@click.option("--variant", default=None, cls=Described, described=family_help.variant_help)
@click.option("--seats", type=int, default=None, cls=Described, described=family_help.seats_help)
@click.option("--teams/--solo", default=None, cls=Described, described=family_help.teams_help)
@click.option("--target", type=int, default=None, cls=Described, described=family_help.target_help)
@click.option("--option", "host_options", multiple=True, metavar="NAME=VALUE", cls=Described,
              described=family_help.option_help)
@click.option("--turn-timer", type=int, default=None, metavar="SECONDS", cls=Described,
              described=family_help.timer_help)
@click.option("--bots", "strength", default=None, metavar="STRENGTH", cls=Described,
              described=family_help.strength_help)
@click.option("--seat", type=int, default=None, help="The seat to take in a room you create or join.")
@click.option("--fill-bots", is_flag=True, help="With --create: put bots in every free seat (in the room: f).")
@click.option("--start-when-full", is_flag=True, help="With --create: start the match once every seat is taken.")
@click.option("--spectators/--no-spectators", default=None,
              help="With --create: whether players without a seat may watch the match (default: no; in the "
                   "room: o spectators=on).")
@click.option("--auto", is_flag=True, help="Play your seat automatically (the first legal move): demos, tests.")
@click.option("--delay", type=float, default=0.0, show_default=True, help="Seconds before each automatic move.")
@click.option("--round-pause", type=click.FloatRange(min=0), default=None,
              help=f"A round's end (hands, points, scores) stays on screen until the server starts the next "
                   f"round's clocks, or Enter is pressed; from a server with no pause between rounds, this many "
                   f"seconds (default {ROUND_PAUSE:g}; 0 with --auto; 0 skips it).")
@click.option("--no-color", is_flag=True, help="No colours (also: NO_COLOR=1).")
@click.option("--no-redraw", is_flag=True, help="Print screens one after another instead of redrawing in place.")
def play(**params) -> None:
    """Play dominoes in the terminal: practice against bots, public tables, private rooms.

    This terminal signs in to the account service like a phone: the first time it makes a
    device key (kept in your config directory) and asks the name other players see; later it
    signs in with that key without asking, and renews its session by itself.

    With no mode it shows a menu, which first offers to take you back to where matchmaking
    says you are: your room, your ticket for a public table, or your match; it also lists your
    matches (and exports them), shows ratings and the leaderboard, lets you watch a match, and
    manages your account. Start the system first with `domino up`.

    \b
    Examples:
      domino play
      domino play --player alice                   (developer: a local player id, no account)
      domino play --practice --bots strong
      domino play --practice --rules RULES --seats 2 --target POINTS   (see --rules and --target below)
      domino play --practice --variant VARIANT --option NAME=VALUE     (see --variant and --option below)
      domino play --create                         (share the invite code)
      domino play --join K7M2PQ4X
      domino play --resume last
      domino play --watch MATCH_ID                 (as a spectator, one turn behind)
      domino play --practice --bots greedy --auto   (watch it play itself)
      domino play --server play.example.com        (the public host, over TLS)
      domino play --server play.example.com --ca dev-ca.pem   (a self-signed one)
      domino play --practice --auto --name robo --config-dir /tmp/robo   (a script's own account)
    """
    options = PlayOptions.of(params)
    _check_together(options)
    settings = Settings()
    connection = _addressed(options.connection, settings)
    credentials = credentials_of(connection.tls, connection.ca)
    setup = options.setup
    identity = options.identity
    player = identity.player or ""
    tokens: str | TokenSource = ""
    account_api = None  # --player: no account service at all
    missing_keys = None
    if identity.token:
        player = subject_of(identity.token)
        if not player:
            raise click.UsageError("--token is not a readable JWT")
        tokens = identity.token
        account_api = AccountApi(connection.account, identity.token, credentials=credentials)  # names only
    elif player:
        try:
            tokens = local_tokens(player, settings)
        except MissingKeys as e:
            missing_keys = f"{e}; or pass --token"  # said after the services are found
    else:
        account_api = AccountApi(connection.account, credentials=credentials)

    match_api = MatchApi(connection.match, tokens, credentials=credentials)
    matchmaking_api = MatchmakingApi(connection.matchmaking, tokens, credentials=credentials)
    # Friends and the inbox are an account's: not for --player's local ids (none reaches them)
    social_api = SocialApi(connection.social, tokens, credentials=credentials) if account_api is not None else None
    apis = [api for api in (match_api, matchmaking_api, account_api, social_api) if api is not None]
    start = options.start
    try:
        check_reachable([("the match service", match_api)]
                        + ([] if start.resume or start.watch else [("matchmaking", matchmaking_api)])
                        + ([("the account service", account_api)]
                           if account_api is not None and not identity.token else []),
                        tls=connection.tls)
    except click.ClickException:
        for api in apis:
            api.close()
        raise
    if missing_keys:
        for api in apis:
            api.close()
        raise click.ClickException(missing_keys)
    display = options.display
    console = Console(highlight=False, emoji=False, no_color=display.no_color or None)
    out = Output(console, redraw=False if display.no_redraw else None)
    inbox = Inbox()
    inbox.read_lines(sys.stdin)
    status = 0
    app = None
    try:
        account = None
        directory = names.use(names.Names(account_api.display_names) if account_api is not None else names.PLAIN)
        if account_api is not None and not identity.token:
            session = Session(account_api, _device(identity.config_dir, connection.account))
            for api in apis:
                api.use(session)
            sign_in(session, identity.display_name, out, inbox, ask=not display.auto and sys.stdin.isatty())
            player = session.player_id
            directory.set(player, session.display_name)
            account = AccountScreen(account_api, session, directory)
        choices = _described_choices(match_api, connection.match, identity.config_dir, options)
        var_dir = identity.var_dir or Path(settings.var_dir)
        app = App(player, match_api, matchmaking_api, inbox, out, LastMatch(var_dir, player),
                  KeptHeads(var_dir, player), _game_options(display, out),
                  Choices(rules=choices.rules or None, variant=choices.variant or None,
                          seats=choices.seats, teams=choices.teams, target=choices.target,
                          host_options=choices.host_options,
                          turn_timer=setup.turn_timer,
                          strength=setup.strength, seat=setup.seat, fill_bots=setup.fill_bots,
                          start_when_full=setup.start_when_full, spectators=setup.spectators),
                  exports=Exports(var_dir, player), account=account, social=social_api)
        status = _begin(app, start)
    except ApiError as e:
        raise click.ClickException(_explain(e, connection.account)) from None
    except ClientError as e:
        raise click.ClickException(str(e)) from None
    except InputClosed:
        console.print()
    except KeyboardInterrupt:
        console.print("\nBye." if start.watch or app is None else
                      "\nBye. An unfinished match waits for you: domino play --resume last")
        status = 130
    finally:
        names.use(names.PLAIN)  # the directory asks over a channel closed below
        for api in apis:
            api.close()
    if status:
        raise SystemExit(status)


def _described_choices(match_api: MatchApi, address: str, config: Path | None, options: PlayOptions) -> Setup:
    """What the server plays (DescribeRules, once per session, kept for the next session's
    help), and the command line's choices checked against it (UsageError)."""
    match_api.rules()
    if match_api.described is not None:
        rules_cache.save(config_dir(config), address, match_api.described)
    setup = options.setup
    choices = _choices(setup.rules, setup.variant, setup.seats, setup.teams, setup.target, setup.host_options,
                       scripted=bool(options.start.mode))
    _check_strength_and_timer(choices, setup.strength, setup.turn_timer)
    return choices


def _check_together(options: PlayOptions) -> None:
    """Options that exclude or need one another (UsageError)."""
    start, setup, connection = options.start, options.setup, options.connection
    modes = [m for m in (start.mode, start.code and "join", start.resume and "resume", start.watch and "watch") if m]
    if len(modes) > 1:
        raise click.UsageError("choose one of --practice, --table, --create, --join, --resume and --watch")
    if (setup.fill_bots or setup.start_when_full or setup.spectators is not None) and start.mode != "create":
        raise click.UsageError("--fill-bots, --start-when-full and --spectators go with --create")
    if connection.server and (connection.match_address or connection.matchmaking_address
                              or connection.account_address or connection.social_address):
        raise click.UsageError("--server names every service's address: leave out --match-address, "
                               "--matchmaking-address, --account-address and --social-address")


def _addressed(given: Connection, settings: Settings) -> Addresses:
    """Every service's address (--server's for all three, else each one's or the settings'),
    over TLS when --ca or --server says so."""
    if given.server:
        public = public_address(given.server)
        return Addresses(public, public, public, True, given.ca, public)
    return Addresses(given.match_address or settings.match_address,
                     given.matchmaking_address or settings.matchmaking_address,
                     given.account_address or settings.account_address, given.tls or bool(given.ca), given.ca,
                     given.social_address or settings.social_address)


def _game_options(display: Display, out: Output) -> GameOptions:
    round_pause = display.round_pause
    if round_pause is None:
        round_pause = 0.0 if display.auto else ROUND_PAUSE
    return GameOptions(auto=display.auto, delay=display.delay, tick=1.0 if out.redraw else 0.0,
                       round_pause=round_pause)


def _begin(app: App, start: Start) -> int:
    """The screen the command line asks for, else the menu; the exit status."""
    if start.resume:
        match_id = app.last_match_id() if start.resume == "last" else start.resume
        if not match_id:
            raise click.ClickException(f"no unfinished match is remembered for {app.me()}")
        app.play_match(match_id)
    elif start.watch:
        app.watch(start.watch)
    elif start.mode == "practice":
        app.practice()
    elif start.mode == "table":
        app.table()
    elif start.mode == "create":
        app.create_room()
    elif start.code:
        app.join_room(clean_code(start.code))
    else:
        return app.menu()
    return 0


def _device(given: Path | None, account_address: str) -> Device:
    directory = config_dir(given)
    try:
        return Device.load_or_create(directory, account_address)
    except DeviceFileError as e:
        raise click.ClickException(str(e)) from None
    except OSError as e:
        raise click.ClickException(f"cannot keep this terminal's device key in {directory}: {e.strerror or e} "
                                   "(choose another place with --config-dir)") from None


def _explain(error: ApiError, account_address: str) -> str:
    """What to do, besides the server's words; a refused sign-in says where the key is."""
    if error.address == account_address and error.reason == "CREDENTIALS_REFUSED":
        return (f"the account service refused this terminal's sign-in: {error}. Its device key is kept in your "
                "config directory (--config-dir); move that file away to start as a new player.")
    return explain(error)
