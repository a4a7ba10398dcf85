"""The menu's "Friends": the player's friend code, requests both ways, friends with where
they are, the players they block, and what can be done with each (accept, decline, cancel,
remove, block, unblock, watch a friend's match, invite a friend to the player's room).

Every row is numbered across the sections, so one number picks it and its choices follow;
a request is sent with ``s`` and a display name or a friend code. The lists are read again
after every change: the server is the truth, and a friend may have answered meanwhile."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from domino.matchmaking.v1 import matchmaking_service_pb2 as mm
from domino.social.v1 import social_service_pb2 as so

from . import menu, names, presence_words, questions
from .api import ApiError
from .screen_host import Host
from .social_api import SocialApi

#: A friend code as shown (XXXX-XXXX, the alphabet without look-alikes); anything else
#: typed after ``s`` is a display name (made-up names have a hyphen too: player-7k2mq).
CODE = re.compile(r"^[23456789ABCDEFGHJKMNPQRSTVWXYZ]{4}-[23456789ABCDEFGHJKMNPQRSTVWXYZ]{4}$", re.IGNORECASE)
INCOMING, OUTGOING, FRIEND, BLOCKED = "incoming", "outgoing", "friend", "blocked"
HELP = "N picks one · s NAME or CODE sends a friend request · Enter goes back"


@dataclass(frozen=True)
class Row:
    kind: str  # INCOMING, OUTGOING, FRIEND or BLOCKED
    player_id: str
    when: float = 0.0  # sent, blocked, or friends since (seconds)
    presence: so.FriendPresence | None = None


@dataclass(frozen=True)
class Lists:
    code: str
    rows: tuple[Row, ...]
    room_id: str = ""  # the open room the player is in (invites go there), "" when none


def target_of(typed: str) -> tuple[str, str]:
    """(display_name, friend_code): what ``s ...`` names."""
    text = typed.strip()
    return ("", text.upper()) if CODE.match(text) else (text, "")


def rows_of(requests, friends, blocked) -> tuple[Row, ...]:
    incoming = [Row(INCOMING, r.player_id, r.sent_at.seconds) for r in requests
                if r.direction == so.FRIEND_REQUEST_DIRECTION_INCOMING]
    outgoing = [Row(OUTGOING, r.player_id, r.sent_at.seconds) for r in requests
                if r.direction == so.FRIEND_REQUEST_DIRECTION_OUTGOING]
    return tuple(incoming + outgoing + [Row(FRIEND, f.player_id, f.since.seconds, f.presence) for f in friends]
                 + [Row(BLOCKED, b.player_id, b.blocked_at.seconds) for b in blocked])


SECTIONS = ((INCOMING, "Requests to you"), (OUTGOING, "Your requests"), (FRIEND, "Friends"),
            (BLOCKED, "Blocked"))


def row_text(row: Row, now: float) -> str:
    if row.kind == FRIEND:
        return presence_words.presence_text(row.presence, now) if row.presence is not None else ""
    if row.kind in (INCOMING, OUTGOING):
        return "sent " + presence_words.ago(now - row.when)
    return ""


def screen(lists: Lists, now: float, message: str = "") -> Group:
    head = Text.assemble((" friends ", "bold white on dark_green"), "  Your friend code  ",
                         (f" {lists.code} ", "bold black on yellow"), ("   others send you a request with it", "dim"))
    parts: list[RenderableType] = [head]
    for kind, title in SECTIONS:
        numbered = [(i, r) for i, r in enumerate(lists.rows, 1) if r.kind == kind]
        if not numbered:
            if kind == FRIEND:
                parts.append(Text("No friends yet: s NAME or s CODE sends a request.", style="dim"))
            continue
        table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, show_header=False)
        table.add_column("n", justify="right", style="bold cyan")
        table.add_column("who")
        table.add_column("where")
        for i, row in numbered:
            table.add_row(str(i), Text(names.name(row.player_id)), Text(row_text(row, now)))  # names are no markup
        parts += [Text(title + (f" ({len(numbered)})" if kind == FRIEND else ""), style="bold"), table]
    parts.append(Text(HELP + (" · i N invites friend N to your room" if lists.room_id else ""), style="dim"))
    if message:
        parts.append(Text(message, style="bold yellow"))
    return Group(*parts)


def choices(row: Row, room_id: str) -> list[tuple[str, str]]:
    """What can be done with a row: (key, what it does)."""
    if row.kind == INCOMING:
        return [("a", "accept"), ("d", "decline"), ("x", "block")]
    if row.kind == OUTGOING:
        return [("c", "cancel the request"), ("x", "block")]
    if row.kind == BLOCKED:
        return [("u", "unblock")]
    out = []
    if row.presence is not None and presence_words.watchable(row.presence):
        out.append(("w", "watch their match"))
    if room_id:
        out.append(("i", "invite to your room"))
    return out + [("r", "remove"), ("x", "block")]


@dataclass
class FriendsScreen:
    app: Host

    @property
    def social(self) -> SocialApi:
        assert self.app.social is not None  # the menu offers Friends only with a social service
        return self.app.social

    def lists(self) -> Lists:
        social = self.social
        rows = rows_of(social.requests(), social.friends(), social.blocked())
        names.learn(r.player_id for r in rows)
        return Lists(social.friend_code(), rows, self._room_id())

    def _room_id(self) -> str:
        """The open room matchmaking says the player is in ("" when none, or it does not answer)."""
        try:
            presence = self.app.matchmaking.presence()
        except ApiError:
            return ""
        if presence.WhichOneof("place") == "room" and presence.room.status == mm.ROOM_STATUS_OPEN:
            return presence.room.room_id
        return ""

    def run(self) -> None:
        """Until the player goes back (Enter or b)."""
        app = self.app
        message = ""
        while True:
            try:
                lists = self.lists()
            except ApiError as e:
                app.out.say(Text(f"Your friends are not available: {e}", style="bold red"))
                return
            app.out.say(screen(lists, app.clock(), message))
            app.out.ask("Friends:")
            typed = questions.line(app.inbox).strip()
            words = typed.split(maxsplit=1)
            if not words or words[0].lower() in ("b", "back", "q"):
                return
            head = words[0].lower()
            rest = words[1] if len(words) > 1 else ""
            if head in ("s", "send", "add"):
                message = self.send(rest) if rest else "Say whom: s NAME or s CODE (XXXX-XXXX)."
            elif head == "i" and rest.isdigit():
                message = self._invite_row(lists, int(rest))
            elif head.isdigit() and not rest:
                message = self._pick(lists, int(head))
            else:
                message = f"{typed!r}? {HELP}."

    def send(self, typed: str) -> str:
        display_name, code = target_of(typed)
        try:
            sent = self.social.send_request(display_name=display_name, friend_code=code)
        except ApiError as e:
            return f"Not sent: {e}"
        if sent.outcome == so.SEND_OUTCOME_BECAME_FRIENDS:
            names.learn([sent.friend.player_id])
            return f"You and {names.name(sent.friend.player_id)} are friends now: they had asked you."
        names.learn([sent.request.player_id])
        return f"Friend request sent to {names.name(sent.request.player_id)}."

    def _invite_row(self, lists: Lists, number: int) -> str:
        if not 1 <= number <= len(lists.rows) or lists.rows[number - 1].kind != FRIEND:
            return f"{number} is not one of your friends."
        if not lists.room_id:
            return "You are in no open room to invite them to."
        return self.invite(lists.room_id, [lists.rows[number - 1].player_id])

    def invite(self, room_id: str, player_ids: list[str]) -> str:
        try:
            invites = self.app.matchmaking.invite(room_id, player_ids)
        except ApiError as e:
            return f"Not invited: {e}"
        who = ", ".join(names.name(i.player_id) for i in invites) or "nobody"
        return f"Invited {who} to your room."

    def _pick(self, lists: Lists, number: int) -> str:
        if not 1 <= number <= len(lists.rows):
            return f"There is no {number} here."
        row = lists.rows[number - 1]
        offered = choices(row, lists.room_id)
        who = names.name(row.player_id)
        app = self.app
        app.out.ask(f"{who}: " + " · ".join(f"{k} {what}" for k, what in offered) + " · Enter: nothing:")
        answer = menu.pick(questions.line(app.inbox), [k for k, _ in offered] + [""], "")
        if not answer:
            return ""
        try:
            return self._act(answer, row, who, lists.room_id)
        except ApiError as e:
            return f"Refused: {e}"

    def _act(self, key: str, row: Row, who: str, room_id: str) -> str:
        social, player_id = self.social, row.player_id
        if key == "a":
            social.accept(player_id)
            return f"You and {who} are friends now."
        if key == "d":
            social.decline(player_id)
            return f"Declined {who}'s request."
        if key == "c":
            social.cancel(player_id)
            return f"Your request to {who} is withdrawn."
        if key == "u":
            social.unblock(player_id)
            return f"{who} is no longer blocked."
        if key == "i":
            return self.invite(room_id, [player_id])
        if key == "w" and row.presence is not None:
            self.app.watch(row.presence.match_id)
            return ""
        if key == "r" and self._sure(f"Remove {who} from your friends?"):
            social.remove(player_id)
            return f"{who} is no longer your friend."
        if key == "x" and self._sure(f"Block {who}? They cannot befriend, invite or watch you, and your "
                                     "friendship and requests end."):
            social.block(player_id)
            return f"{who} is blocked."
        return "Nothing changed."

    def _sure(self, question: str) -> bool:
        self.app.out.ask(f"{question} [y/n] (n):")
        return bool(menu.yes(questions.line(self.app.inbox), default=False))
