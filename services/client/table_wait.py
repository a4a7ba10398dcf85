"""Waiting for a seat at a public table: the ticket's screen, counting up, until matchmaking
seats the player or the ticket is cancelled (q) or ends."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

from domino.matchmaking.v1 import matchmaking_service_pb2 as mm

from . import lobby_screens, names
from .api import ApiError
from .inbox import Pump
from .screen_host import Host


@dataclass
class TableWait:
    app: Host

    def request(self) -> str | None:
        """A ticket for a table of the family the player sets up; the match it seats them at."""
        return self.run(self.app.matchmaking.request_table(self.app.setup(public=True)))

    def run(self, ticket: mm.TicketView) -> str | None:
        app = self.app
        pump = Pump(app.inbox, "ticket", lambda last: app.matchmaking.watch_ticket(
            ticket.ticket_id, last.ticket.version if last is not None else ticket.version)).start()
        shown = None
        typed = True  # a line typed since the last screen: the next one is drawn whole
        try:
            while True:
                if ticket.match_id and ticket.status == mm.TICKET_STATUS_SEATED:
                    return ticket.match_id
                if ticket.status in (mm.TICKET_STATUS_CANCELLED, mm.TICKET_STATUS_ENDED):
                    app.out.say(f"The ticket was {lobby_screens.TICKET_STATUS[ticket.status]}.")
                    return None
                names.learn(ticket.player_ids)
                if app.out.redraw or ticket != shown:  # redrawn, the seconds waited count up
                    app.out.screen(lobby_screens.ticket_screen(ticket, app.clock()), with_prompt=True,
                                   in_place=not typed)  # a half-typed q survives the count
                    shown, typed = ticket, False
                event = app.inbox.get(timeout=1.0)
                if event is None:
                    continue
                typed = typed or event.kind in ("line", "eof")
                if event.kind == "ticket" and event.source is pump:
                    ticket = _newer(ticket, event.value.ticket)
                elif event.kind == "line" and event.value.strip().lower() in ("q", "quit", "cancel"):
                    ticket = self._cancel(ticket)
                elif event.kind == "eof" and app.interactive:
                    ticket = self._cancel(ticket)
                elif event.kind == "stream-error" and event.source is pump:
                    ticket = app.matchmaking.get_ticket(ticket.ticket_id)
                elif event.kind == "ticket-end" and event.source is pump:
                    ticket = app.matchmaking.get_ticket(ticket.ticket_id)
        except KeyboardInterrupt:
            self._cancel(ticket)
            raise
        finally:
            pump.stop()

    def _cancel(self, ticket: mm.TicketView) -> mm.TicketView:
        try:
            return self.app.matchmaking.cancel_ticket(ticket.ticket_id)
        except ApiError as e:
            self.app.out.say(Text(str(e), style="bold red"))
            return self.app.matchmaking.get_ticket(ticket.ticket_id)


def _newer(ticket: mm.TicketView, other: mm.TicketView) -> mm.TicketView:
    """A reopened stream may repeat the state it started from: the newer version stands."""
    return other if other.version >= ticket.version else ticket
