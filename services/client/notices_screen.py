"""The menu's "Inbox": the player's notifications, newest first, each in the client's own
words (notice_words.py), and what can be done from one: accept or decline a friend request,
accept or decline an invite or a rematch (then the room's lobby, and its match), open the
match whose turn it is. Opening a notification marks it read; ``r`` marks them all."""

from __future__ import annotations

from dataclasses import dataclass

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from domino.social.v1 import social_service_pb2 as so

from . import menu, names, notice_words, presence_words, questions
from .api import ApiError
from .screen_host import Host
from .social_api import SocialApi

HELP = "N opens one · r marks all read · Enter goes back"
#: What each kind lets the player do: (key, what it does).
ACTIONS = {
    so.NOTIFICATION_KIND_FRIEND_REQUEST: [("a", "accept"), ("d", "decline")],
    so.NOTIFICATION_KIND_INVITE: [("a", "accept and take a seat"), ("d", "decline")],
    so.NOTIFICATION_KIND_REMATCH: [("a", "play again"), ("d", "decline")],
    so.NOTIFICATION_KIND_YOUR_TURN: [("o", "open the match")],
}


def screen(notices: list[so.Notification], now: float, unread: int, more: bool, message: str = "") -> Group:
    head = Text.assemble((" inbox ", "bold white on dark_green"), f"  {unread} unread" if unread else "  all read")
    parts: list[RenderableType] = [head]
    if not notices:
        parts.append(Text("Nothing here yet.", style="dim"))
    else:
        table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, show_header=False)
        table.add_column("n", justify="right", style="bold cyan")
        table.add_column("new")
        table.add_column("what")
        table.add_column("when", style="dim")
        for i, notice in enumerate(notices, 1):
            table.add_row(str(i), "" if notice.read else "new", Text(notice_words.text(notice),
                                                                     style="" if notice.read else "bold"),
                          presence_words.ago(now - notice.created_at.seconds))
        parts.append(table)
    parts.append(Text(HELP + (" · m shows older ones" if more else ""), style="dim"))
    if message:
        parts.append(Text(message, style="bold yellow"))
    return Group(*parts)


@dataclass
class NoticesScreen:
    app: Host

    @property
    def social(self) -> SocialApi:
        assert self.app.social is not None  # the menu offers the inbox only with a social service
        return self.app.social

    def run(self) -> None:
        """Until the player goes back, or goes on to a room or a match from a notification."""
        app = self.app
        message = ""
        pages = [""]  # the page tokens read so far: ``m`` reads the next
        while True:
            try:
                notices: list[so.Notification] = []
                page = so.ListNotificationsResponse()
                for token in pages:
                    page = self.social.notifications(token)
                    notices += page.notifications
            except ApiError as e:
                app.out.say(Text(f"Your inbox is not available: {e}", style="bold red"))
                return
            names.learn(n.player_id for n in notices)
            if app.unread is not None:
                app.unread.set(page.unread_count)
            app.out.say(screen(notices, app.clock(), page.unread_count, bool(page.next_page_token), message))
            app.out.ask("Inbox:")
            typed = questions.line(app.inbox).strip().lower()
            message = ""
            if typed in ("", "b", "back", "q"):
                return
            if typed == "r":
                message = self._mark_all()
            elif typed == "m" and page.next_page_token:
                pages.append(page.next_page_token)
            elif typed.isdigit() and 1 <= int(typed) <= len(notices):
                message, went = self.open(notices[int(typed) - 1])
                if went:
                    return
            else:
                message = f"{typed!r}? {HELP}."

    def _mark_all(self) -> str:
        try:
            count = self.social.mark_read()
        except ApiError as e:
            return f"Refused: {e}"
        if self.app.unread is not None:
            self.app.unread.set(count)
        return "All marked read."

    def open(self, notice: so.Notification) -> tuple[str, bool]:
        """One notification: marked read, and its choices asked. (What to say, whether the
        player went on to a room or a match.)"""
        app = self.app
        if not notice.read:
            try:
                count = self.social.mark_read([notice.notification_id])
                if app.unread is not None:
                    app.unread.set(count)
            except ApiError:
                pass  # still unread: marked the next time it is opened
        offered = ACTIONS.get(notice.kind, [])
        words = notice_words.text(notice)
        if not offered:
            return words, False
        app.out.ask(f"{words}: " + " · ".join(f"{k} {what}" for k, what in offered) + " · Enter: nothing:")
        answer = menu.pick(questions.line(app.inbox), [k for k, _ in offered] + [""], "")
        if not answer:
            return "", False
        try:
            return self._act(answer, notice)
        except ApiError as e:
            if e.reason in ("INVITE_EXPIRED", "INVITE_NOT_FOUND"):
                return "This invite is over: the room started or closed, or it was answered.", False
            return f"Refused: {e}", False

    def _act(self, key: str, notice: so.Notification) -> tuple[str, bool]:
        app = self.app
        who = notice_words.who(notice)
        if notice.kind == so.NOTIFICATION_KIND_FRIEND_REQUEST:
            if key == "a":
                self.social.accept(notice.player_id)
                return f"You and {who} are friends now.", False
            self.social.decline(notice.player_id)
            return f"Declined {who}'s request.", False
        if notice.kind in (so.NOTIFICATION_KIND_INVITE, so.NOTIFICATION_KIND_REMATCH):
            answered = app.matchmaking.answer_invite(notice.invite_id, accept=key == "a")
            if key != "a":
                return f"Declined {who}'s invite.", False
            if not answered.HasField("room"):
                return "Accepted, but the room is gone.", False
            match_id = app.room_lobby.run(answered.room)
            if match_id:
                app.after_match(app.play_match(match_id))
            return "", True
        if notice.kind == so.NOTIFICATION_KIND_YOUR_TURN and notice.match_id:
            app.after_match(app.play_match(notice.match_id))
            return "", True
        return "", False
