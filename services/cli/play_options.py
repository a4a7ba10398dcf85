"""`domino play`'s options, grouped by what they are for and read once from click's
parameters: the command passes these few objects on instead of its thirty-odd arguments."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping


@dataclass(frozen=True)
class Connection:
    """Where the services are and how to reach them (None: the settings' address)."""
    match_address: str | None
    matchmaking_address: str | None
    account_address: str | None
    social_address: str | None
    server: str | None
    tls: bool
    ca: Any


@dataclass(frozen=True)
class Identity:
    """Who plays, and where this terminal keeps what it remembers."""
    display_name: str | None
    config_dir: Path | None
    player: str | None
    token: str | None
    var_dir: Path | None


@dataclass(frozen=True)
class Start:
    """What to do at once instead of showing the menu."""
    mode: str | None  # practice, table or create
    code: str | None
    resume: str | None
    watch: str | None


@dataclass(frozen=True)
class MatchSetup:
    """The match the command line asks for; None leaves it to the menu or the server."""
    rules: str | None
    variant: str | None
    seats: int | None
    teams: bool | None
    target: int | None
    host_options: tuple[str, ...]
    turn_timer: int | None
    strength: str | None
    seat: int | None
    fill_bots: bool
    start_when_full: bool
    spectators: bool | None


@dataclass(frozen=True)
class Display:
    """How the terminal plays and shows it."""
    auto: bool
    delay: float
    round_pause: float | None
    no_color: bool
    no_redraw: bool


@dataclass(frozen=True)
class PlayOptions:
    connection: Connection
    identity: Identity
    start: Start
    setup: MatchSetup
    display: Display

    @classmethod
    def of(cls, params: Mapping[str, Any]) -> "PlayOptions":
        """From click's parameters, by option name (every group's fields, each taken once)."""
        def group(kind):
            return kind(**{name: params[name] for name in kind.__dataclass_fields__})

        return cls(group(Connection), group(Identity), group(Start), group(MatchSetup), group(Display))


@dataclass(frozen=True)
class Addresses:
    """Where the command reaches each service, --server and the settings applied."""
    match: str
    matchmaking: str
    account: str
    tls: bool
    ca: Any
    social: str = ""  # friends and the inbox (the account's: not with --player)
