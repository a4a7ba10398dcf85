"""Quick chat at the table ("table talk"), pure: the fixed phrases in friendly words, the
``c`` command that lists or sends them, and the last few messages received.

The phrases are the server's fixed set (ChatPhrase), as DescribeRules lists them: the client
shows each in its own words and the player types it by number or by its name
(CHAT_PHRASE_WELL_PLAYED is "well_played"). WatchMatch delivers what anyone at the table
sent as updates that carry only ``chat`` (no event, no view), and delivers them all again
whenever the stream is opened again, so the log drops repeats.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rich.text import Text

from domino.match.v1 import match_service_pb2 as pb
from . import families, view_reading

FRIENDLY = {
    pb.CHAT_PHRASE_HELLO: "Hello!",
    pb.CHAT_PHRASE_GOOD_LUCK: "Good luck!",
    pb.CHAT_PHRASE_WELL_PLAYED: "Well played!",
    pb.CHAT_PHRASE_THANKS: "Thanks!",
    pb.CHAT_PHRASE_OOPS: "Oops!",
    pb.CHAT_PHRASE_HURRY_UP: "Hurry up, please!",
    pb.CHAT_PHRASE_NICE_MOVE: "Nice move!",
    pb.CHAT_PHRASE_GOOD_GAME: "Good game!",
    pb.CHAT_PHRASE_EMOTE_SMILE: ":-) (smiles)",
    pb.CHAT_PHRASE_EMOTE_LAUGH: ":-D (laughs)",
    pb.CHAT_PHRASE_EMOTE_THINKING: ":-/ (thinking…)",
    pb.CHAT_PHRASE_EMOTE_SAD: ":-( (sad)",
}
SHOWN = 3  # messages in the table talk area


def phrase_name(phrase: int) -> str:
    """CHAT_PHRASE_WELL_PLAYED → "well_played": what the player types; a value this client's
    protos lack, by its number."""
    try:
        return pb.ChatPhrase.Name(phrase).removeprefix("CHAT_PHRASE_").lower()
    except ValueError:
        return f"phrase_{phrase}"


def phrase_text(phrase: int) -> str:
    """CHAT_PHRASE_WELL_PLAYED → "Well played!"; a phrase this client has no words for, by its name."""
    return FRIENDLY.get(phrase) or phrase_name(phrase).replace("_", " ").capitalize()  # type: ignore[call-overload]


def phrases() -> tuple[int, ...]:
    """The phrases SendChat takes, in the server's order."""
    return families.current().chat_phrases


def phrases_text() -> Text:
    """The numbered phrases, and how to send one."""
    text = Text("Quick chat  ", style="bold")
    for number, phrase in enumerate(phrases(), 1):
        text.append(f"{number}) ", style="bold cyan")
        text.append(phrase_text(phrase) + "  ")
    text.append("\nSend one with c NUMBER or c NAME (c 3, c well_played).", style="dim")
    return text


@dataclass(frozen=True)
class ListPhrases:
    pass


@dataclass(frozen=True)
class Say:
    phrase: int  # one of phrases()


@dataclass(frozen=True)
class Unclear:
    message: str


ChatCommand = ListPhrases | Say | Unclear
_HEADS = ("c", "chat", "say")
_WORDS = re.compile(r"[^a-z0-9]+")


def parse_chat(line: str) -> ChatCommand | None:
    """``c`` lists the phrases; ``c 3``, ``c well_played``, ``c well played`` or an
    unambiguous beginning (``c well``) sends one. None: the line is no chat command."""
    head, _, rest = line.strip().partition(" ")
    if head.lower() not in _HEADS:
        return None
    rest = rest.strip()
    if not rest:
        return ListPhrases()
    offered = phrases()
    if rest.isdigit():
        number = int(rest)
        if 1 <= number <= len(offered):
            return Say(offered[number - 1])
        return Unclear(f"Pick a phrase from 1 to {len(offered)} (c lists them).")
    key = _key(rest)
    names: dict[str, int] = {}
    for phrase in offered:  # the name, without "emote_", or the friendly words
        for name in (phrase_name(phrase), phrase_name(phrase).removeprefix("emote_"), _key(phrase_text(phrase))):
            names.setdefault(_key(name), phrase)
    if key in names:
        return Say(names[key])
    starts = {phrase for name, phrase in names.items() if key and name.startswith(key)}
    if len(starts) == 1:
        return Say(starts.pop())
    return Unclear(f"{rest!r} is not one of the phrases (c lists them).")


def _key(text: str) -> str:
    return _WORDS.sub("_", text.lower()).strip("_")


def refusal(error) -> str:
    """What to say when SendChat is refused (``error``: an api.ApiError), told by its reason:
    the rate limit (RATE_LIMITED) asks for a pause; the server's other refusals (CHAT_CLOSED a
    minute after the match ended, CHAT_LIMIT once a player sent all a match allows) say
    themselves why, and waiting would not help."""
    if error.reason == "RATE_LIMITED":
        return "Easy on the chat: wait a few seconds before the next phrase."
    return f"Chat not sent: {error}"


class TalkLog:
    """The messages received at one match, each once, in the order they were sent."""

    def __init__(self, shown: int = SHOWN) -> None:
        self.shown = shown
        self.messages: list[pb.ChatMessage] = []
        self._seen: set[tuple] = set()

    def add(self, chat: pb.ChatMessage) -> bool:
        """Keep ``chat``; False when it was received already (a reopened stream sends every
        phrase again)."""
        key = (chat.seat, chat.player_id, chat.chat_phrase, chat.sent_at.seconds, chat.sent_at.nanos)
        if key in self._seen:
            return False
        self._seen.add(key)
        self.messages.append(chat)
        self.messages.sort(key=lambda c: (c.sent_at.seconds, c.sent_at.nanos))
        return True

    def recent(self) -> list[pb.ChatMessage]:
        return self.messages[-self.shown:] if self.shown else []

    def __len__(self) -> int:
        return len(self.messages)


def sender(chat: pb.ChatMessage, me: str = "") -> str:
    """"seat 1 · bob", "seat 0 · you", "seat 2 · bot greedy 2"."""
    name = "you" if me and chat.player_id == me else view_reading.player_name(chat.player_id)
    return f"seat {chat.seat} · {name}"


def talk_text(log: TalkLog, me: str = "", hint: str = "") -> Text | None:
    """The table talk area: the last few messages with who sent them (None when there are none)."""
    recent = log.recent()
    if not recent:
        return None
    names = [sender(c, me) for c in recent]
    width = max(len(n) for n in names)
    text = Text()
    for i, (chat, name) in enumerate(zip(recent, names)):
        text.append("Table talk  " if i == 0 else "\n            ", style="dim")
        text.append(name.ljust(width) + "  ", style="bold green" if me and chat.player_id == me else "bold")
        text.append(phrase_text(chat.chat_phrase), style="italic")
    if hint:
        text.append(f"\n            {hint}", style="dim")
    return text
