"""Quick chat at the table ("table talk"), pure: the fixed phrases in friendly words, the
``c`` command that lists or sends them, and the last few messages received.

The phrases are the server's fixed set, as DescribeRules lists them; WatchMatch delivers
what anyone at the table sent as updates that carry only ``chat`` (no event, no view), and
delivers them all again whenever the stream is opened again, so the log drops repeats.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import grpc
from rich.text import Text

from domino.match.v1 import match_service_pb2 as pb
from . import families, view_reading

FRIENDLY = {
    "hello": "Hello!",
    "good_luck": "Good luck!",
    "well_played": "Well played!",
    "thanks": "Thanks!",
    "oops": "Oops!",
    "hurry_up": "Hurry up, please!",
    "nice_move": "Nice move!",
    "good_game": "Good game!",
    "emote_smile": ":-) (smiles)",
    "emote_laugh": ":-D (laughs)",
    "emote_thinking": ":-/ (thinking…)",
    "emote_sad": ":-( (sad)",
}
SHOWN = 3  # messages in the table talk area


def phrase_text(phrase: str) -> str:
    """"well_played" → "Well played!"; a phrase this client does not know, in plain words."""
    return FRIENDLY.get(phrase) or phrase.replace("_", " ").capitalize()


def phrases() -> tuple[str, ...]:
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
    phrase: str  # one of phrases()


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
    names: dict[str, str] = {}
    for phrase in offered:  # the name, without "emote_", or the friendly words
        for name in (phrase, phrase.removeprefix("emote_"), _key(phrase_text(phrase))):
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
    """What to say when SendChat is refused (``error``: an api.ApiError). The rate limit asks
    for a pause; the server's other refusals (a match that ended over a minute ago, the
    phrases one player may send a match all sent) say themselves why."""
    if error.code == grpc.StatusCode.RESOURCE_EXHAUSTED and "slow down" in str(error):
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
        key = (chat.seat, chat.player_id, chat.phrase, chat.sent_at.seconds, chat.sent_at.nanos)
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
        text.append(phrase_text(chat.phrase), style="italic")
    if hint:
        text.append(f"\n            {hint}", style="dim")
    return text
