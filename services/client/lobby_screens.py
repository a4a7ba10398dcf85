"""The screens before a match: the banner and menu (with where the player is), a private
room and a public table's ticket, each naming the family, its variant and the seat count."""

from __future__ import annotations

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from domino.matchmaking.v1 import matchmaking_service_pb2 as mm

from . import families, view_reading


def banner(player: str, match_address: str, matchmaking_address: str) -> Text:
    text = Text()
    text.append(" domino ", style="bold white on dark_green")
    text.append("  playing as ")
    text.append(player, style="bold")
    text.append(f"   (match {match_address}, matchmaking {matchmaking_address})", style="dim")
    return text


def menu(items: list[tuple[str, str]], title: str = "What would you like to do?") -> Text:
    text = Text(title + "\n", style="bold")
    for key, label in items:
        text.append(f"  {key}) ", style="bold cyan")
        text.append(label + "\n")
    return text


def _rules(rules: str) -> str:
    """A family named by an options message; "" is the server's default family."""
    return rules or families.current().default


def options_text(options: mm.MatchOptions) -> str:
    rules = _rules(options.rules)
    return (f"{_setup(options)} · {families.target_text(rules, options.target)} · "
            f"{families.timer_text(rules, options.turn_timer_seconds)}")


def _setup(options: mm.MatchOptions) -> str:
    rules = _rules(options.rules)
    seats = options.seat_count or families.seat_count(rules, options.variant, None)
    return families.setup_text(rules, options.variant, seats, options.teams)


def _either(names) -> str:
    if not names:
        return ""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def spectators_text(options: mm.MatchOptions) -> str:
    return "spectators may watch" if options.spectators else "no spectators"


ROOM_STATUS = {mm.ROOM_STATUS_OPEN: "open", mm.ROOM_STATUS_STARTING: "starting", mm.ROOM_STATUS_PLAYING: "playing",
               mm.ROOM_STATUS_CLOSED: "closed"}
CLOSED_REASONS = {mm.ROOM_CLOSED_REASON_MATCH_ENDED: "its match ended", mm.ROOM_CLOSED_REASON_HOST_LEFT: "the host left"}


def closed_text(room: mm.RoomView, why: str = "") -> str:
    """Why a closed room closed: ``why`` when the client knows better (it left, or is no
    longer a member), else the server's reason."""
    return why or CLOSED_REASONS.get(room.closed_reason, "closed")


INVITE_STATUS = {mm.INVITE_STATUS_PENDING: "asked", mm.INVITE_STATUS_ACCEPTED: "said yes",
                 mm.INVITE_STATUS_DECLINED: "said no", mm.INVITE_STATUS_EXPIRED: "no answer"}


def invites_text(room: mm.RoomView) -> Text | None:
    """``Invited: Bob (asked), Cid (said no)``; None when nobody was."""
    if not room.invites:
        return None
    listed = ", ".join(f"{view_reading.player_name(i.player_id)} ({INVITE_STATUS.get(i.status, '?')})"
                       for i in room.invites)
    return Text(f"Invited: {listed}")


def room_screen(room: mm.RoomView, me: str, message: str = "", closed_why: str = "",
                can_invite: bool = False) -> Group:
    """``can_invite``: the client reaches the social service, so ``i`` invites friends."""
    host = room.host_player_id == me
    code = Text()
    code.append("Invite code  ", style="bold")
    code.append(f" {room.code} ", style="bold black on yellow")
    code.append("   friends join with: domino play --join " + room.code, style="dim")
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column("seat", justify="right")
    table.add_column("player")
    if room.options.teams:
        table.add_column("team")
    for seat in room.seats:
        if not seat.player_id:
            who = Text("(free)", style="dim")
        elif seat.player_id == me:
            who = Text("you" + (" (host)" if host else ""), style="bold green")
        else:
            who = Text(view_reading.player_name(seat.player_id)
                       + (" (host)" if seat.player_id == room.host_player_id else ""))
        row: list[RenderableType] = [str(seat.seat), who]
        if room.options.teams:
            row.append("AB"[seat.team] if seat.HasField("team") else "")
        table.add_row(*row)
    title = Text.assemble((" room ", "bold white on dark_green"),
                          f"  {options_text(room.options)} · {spectators_text(room.options)}",
                          (f"   {ROOM_STATUS.get(room.status, '?')}", "bold"))
    if families.options_of(room.options):
        chosen = families.options_text(families.options_of(room.options), room.options.rules)
        worst = "lowest total wins · " if families.family(_rules(room.options.rules)).lower_is_better else ""
        title.append(f"\n{worst}{chosen}", style="dim")
    parts: list[RenderableType] = [title, code, table]
    invited = invites_text(room)
    if invited is not None:
        parts.append(invited)
    inviting = " · i invites friends" if can_invite and room.status == mm.ROOM_STATUS_OPEN else ""
    if room.status == mm.ROOM_STATUS_CLOSED:
        parts.append(Text(f"The room is closed: {closed_text(room, closed_why)}.", style="bold red"))
    elif host:
        free = sum(1 for s in room.seats if not s.player_id)
        strengths = families.current().strength_names
        parts.append(Text(f"b [SEAT] [{'|'.join(strengths)}] adds a bot · k SEAT removes one · m SEAT moves you\n"
                          f"f [STRENGTH] fills every empty seat with bots (strength {_either(strengths)})\n"
                          "o NAME=VALUE changes options (target=150, seats=3, teams, rules=goat, fish=one, "
                          "spectators=on …)\n"
                          "s starts" + (f" (when full: {free} free)" if free else " (everyone is here)")
                          + inviting + " · q leaves (closes the room)", style="dim"))
        if room.rematch_of_match_id:
            parts.append(Text("A rematch: it starts by itself once everyone has answered", style="dim"))
    elif room.rematch_of_match_id:
        parts.append(Text("A rematch: it starts by itself once everyone has answered · q leaves", style="dim"))
    else:
        parts.append(Text("Waiting for the host to start · m SEAT moves you" + inviting + " · q leaves",
                          style="dim"))
    if message:
        parts.append(Text(message, style="bold yellow"))
    return Group(*parts)


TICKET_STATUS = {mm.TICKET_STATUS_WAITING: "waiting for players", mm.TICKET_STATUS_SEATED: "seated",
                 mm.TICKET_STATUS_CANCELLED: "cancelled", mm.TICKET_STATUS_ENDED: "ended"}


def ticket_screen(ticket: mm.TicketView, now: float) -> Group:
    seats = ticket.seat_count or len(ticket.player_ids)
    setup = families.setup_text(_rules(ticket.rules), ticket.variant, seats, ticket.teams)
    text = Text.assemble((" table ", "bold white on dark_green"), f"  public {setup}   ",
                         (TICKET_STATUS.get(ticket.status, "?"), "bold"))
    lines: list[RenderableType] = [text]
    if ticket.status == mm.TICKET_STATUS_WAITING:
        waited = max(0, int(now - ticket.requested_at.ToNanoseconds() / 1e9)) if ticket.HasField("requested_at") else 0
        lines.append(Text(f"Looking for players… {waited} s (empty seats get bots after a while). q cancels.",
                          style="dim"))
    elif ticket.status == mm.TICKET_STATUS_SEATED:
        lines.append(Text("Seated: " + ", ".join(view_reading.player_name(p) for p in ticket.player_ids)
                          + (" — starting the match…" if not ticket.match_id else "")))
    return Group(*lines)


# ---- where the player is (the menu's offer to go back) ------------------------------------


def room_label(room: mm.RoomView) -> str:
    taken = sum(1 for s in room.seats if s.player_id)
    return (f"Back to your room {room.code} ({_setup(room.options)}; {ROOM_STATUS.get(room.status, '?')}, "
            f"{taken} of {len(room.seats)} seats taken)")


def ticket_label(ticket: mm.TicketView, now: float) -> str:
    seats = ticket.seat_count or len(ticket.player_ids)
    setup = families.setup_text(_rules(ticket.rules), ticket.variant, seats, ticket.teams)
    waited = max(0, int(now - ticket.requested_at.ToNanoseconds() / 1e9)) if ticket.HasField("requested_at") else 0
    return f"Keep waiting for your public table ({setup}; {waited} s so far)"


def place_text(presence: mm.GetPresenceResponse) -> str:
    """Where the player's match is played: "room K7M2PQ4X", "practice table", "public table"."""
    if presence.WhichOneof("place") == "room":
        return f"room {presence.room.code}"
    return f"{'practice' if presence.table.kind == mm.TABLE_KIND_PRACTICE else 'public'} table"


def place_setup(presence: mm.GetPresenceResponse) -> str:
    """What is played there: "Egyptian block-4 · 4 seats · teams"."""
    place = presence.room if presence.WhichOneof("place") == "room" else presence.table
    return _setup(place.options)
