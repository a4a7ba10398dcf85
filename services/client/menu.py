"""Menus and lobby commands: typed answers to choices, pure and checked."""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import families

# The bot strengths, turn timers and families are the server's: menus and room commands ask
# the session's description (families.current()), which DescribeRules gave.

#: The menu's choices; when matchmaking says the player is somewhere (a room, a ticket, a
#: match), "r" comes first and takes them back there (App.way_back).
MAIN = [
    ("1", "Practise against bots"),
    ("2", "Play at a public table"),
    ("3", "Create a private room (invite friends with a code)"),
    ("4", "Join a room with a code"),
    ("5", "Your matches"),
    ("6", "Ratings"),
    ("7", "Watch a match"),
    ("q", "Quit"),
]
#: Shown before "Quit" when the player signed in to an account (not with --player or --token).
ACCOUNT = ("8", "Account (your name, sign out, delete)")
#: Shown with a social service (signed in, or --token): friends, and the inbox with its unread count.
FRIENDS = ("f", "Friends (requests, who is online, invites, blocks)")
INBOX = ("i", "Inbox")


def numeric(choices: list[str] | tuple) -> bool:
    """Whether a menu offers numbers (seats, targets, seconds, seat numbers, the main menu's
    keys): then a typed number is always the number itself, never an option's position, so
    "2" cannot mean both 2 and the second choice."""
    return any(str(c).isdigit() for c in choices)


def pick(answer: str, choices: list[str] | tuple, default: str | None = None) -> str | None:
    """The choice an answer names. In a menu of numbers (``numeric``) a typed number is that
    number; in a menu of words, its position (1-based). Otherwise the choice itself or an
    unambiguous beginning of it; Enter alone takes the default. None when unclear."""
    text = answer.strip().lower()
    if not text:
        return default
    names = [str(c) for c in choices]
    if text.isdigit():
        if numeric(names):
            return next((n for n in names if n.isdigit() and int(n) == int(text)), None)
        return names[int(text) - 1] if 1 <= int(text) <= len(names) else None
    if text in (n.lower() for n in names):
        return next(n for n in names if n.lower() == text)
    starts = [n for n in names if n.lower().startswith(text)]
    return starts[0] if len(starts) == 1 else None


def either(values: list[str] | tuple) -> str:
    """``2, 3 or 4``"""
    shown = [str(v) for v in values]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]


def question(label: str, choices: list[str] | tuple, default: str | None, note: str = "") -> str:
    """``Family  1) egyptian  2) all-fives …  [egyptian]``; a menu of numbers lists the
    numbers alone, as they are typed: ``Seats  2, 3 or 4  [4]`` (``note`` says what they mean)."""
    if numeric(choices):
        listed = either(choices) + (f" {note}" if note else "")
    else:
        listed = "  ".join(f"{i}) {c}" for i, c in enumerate(choices, 1))
    return f"{label}  {listed}" + (f"  [{default}]" if default is not None else "")


def unclear(choices: list[str] | tuple) -> str:
    """What to type after an answer ``pick`` could not read."""
    if numeric(choices):
        return f"Please answer {either(choices)}."
    return f"Please pick 1–{len(choices)} or type a name."


def yes(answer: str, default: bool | None = True) -> bool | None:
    text = answer.strip().lower()
    if not text:
        return default
    if text in ("y", "yes", "on", "true"):
        return True
    if text in ("n", "no", "off", "false"):
        return False
    return None


@dataclass(frozen=True)
class RoomCommand:
    action: str  # "bot", "fill", "kick", "move", "options", "start", "invite", "quit", "refresh", "invalid"
    seat: int | None = None
    strength: str | None = None
    message: str = ""
    options: tuple[tuple[str, object], ...] = ()  # "options": (name, value) to change


def _strength_choice() -> str:
    return f"[{'|'.join(families.current().strength_names)}]"


def room_help() -> str:
    """What the room's commands are, with the session's bot strengths and host options."""
    rules = families.current()
    options = "".join(f", and {f.title}'s {', '.join(o.name for o in f.options)}"
                      for f in rules.families.values() if f.options)
    return (f"b [SEAT] {_strength_choice()} adds a bot, f {_strength_choice()} fills every empty seat "
            "with bots, k SEAT removes a bot, m SEAT moves you, o NAME=VALUE… changes options (rules, variant, "
            f"seats, teams, target, timer, spectators=on|off{options}), "
            f"s starts, q leaves. Bots: {rules.strengths_text()}.")


def parse_room_command(line: str) -> RoomCommand:
    words = line.strip().lower().split()
    if not words:
        return RoomCommand("refresh")
    head, rest = words[0], words[1:]
    if head in ("q", "quit", "leave"):
        return RoomCommand("quit")
    if head in ("s", "start"):
        return RoomCommand("start")
    if head in ("i", "invite"):
        return RoomCommand("invite")
    if head in ("?", "h", "help"):
        return RoomCommand("invalid", message=room_help())
    if head in ("o", "option", "options", "set"):
        return _room_options(rest)
    strengths = families.current().strength_names
    if head in ("b", "bot"):
        seat, strength = None, None
        for word in rest:
            if word.isdigit():
                seat = int(word)
            else:
                strength = pick(word, strengths)
                if strength is None:
                    return RoomCommand("invalid", message=f"A bot is {', '.join(strengths)}, not {word!r}.")
        return RoomCommand("bot", seat, strength)
    if head in ("f", "fill"):
        if len(rest) > 1:
            return RoomCommand("invalid", message=f"Say at most the bots' strength: f {_strength_choice()}.")
        strength = pick(rest[0], strengths) if rest else None
        if rest and strength is None:
            return RoomCommand("invalid", message=f"A bot is {', '.join(strengths)}, not {rest[0]!r}.")
        return RoomCommand("fill", strength=strength)
    if head in ("k", "kick", "m", "move", "seat"):
        if len(rest) != 1 or not rest[0].isdigit():
            return RoomCommand("invalid", message=f"Say which seat: {head} SEAT.")
        return RoomCommand("kick" if head.startswith("k") else "move", int(rest[0]))
    return RoomCommand("invalid", message=f"{line.strip()!r}? b adds a bot, f fills the empty seats with bots, "
                                          "k SEAT removes one, m SEAT moves you, o changes options, s starts, "
                                          "q leaves.")


def _room_options(words: list[str]) -> RoomCommand:
    """``o target=150 seats=3 solo zero_zero=25``: what the host changes in a room."""
    if not words:
        return RoomCommand("invalid", message="Say what to change: o target=150, o seats=3, o teams, o rules=goat …")
    changes: list[tuple[str, object]] = []
    for word in words:
        if word in ("teams", "solo"):
            changes.append(("teams", word == "teams"))
            continue
        if word == "spectators":
            changes.append(("spectators", True))
            continue
        name, _, value = word.partition("=")
        name = name.replace("-", "_")
        try:
            if name in families.current().options:
                changes.append(families.parse_option(word))
            elif name == "rules" and value in families.current().names:
                changes.append((name, value))
            elif name == "variant" and value in families.current().variants:
                changes.append((name, value))
            elif name in ("seats", "target", "timer") and value.isdigit():
                changes.append((name, int(value)))
            elif name in ("teams", "spectators") and yes(value, default=None) is not None:
                changes.append((name, yes(value)))
            else:
                return RoomCommand("invalid", message=f"{word!r}? " + room_help())
        except ValueError as e:
            return RoomCommand("invalid", message=str(e))
    return RoomCommand("options", options=tuple(changes))


_CODE = re.compile(r"[^A-Za-z0-9]")


def clean_code(text: str) -> str:
    """Invite codes may be typed in any case, with spaces or dashes."""
    return _CODE.sub("", text).upper()
