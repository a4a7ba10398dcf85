"""Private rooms: the Room aggregate, and FailedJoins, which stops invite codes being guessed.

A room keeps its invites (invites.py says how one reads) and, when it plays a finished match
again, that match's id, whether it is rated as that match was and the strength of the bots
that take the seats of people who do not come back (a rematch room).

Public command methods check the rules and raise a typed error (errors.py) before any
event is triggered; event-decorated methods only apply. Invite codes and clock readings
are chosen by the caller and stored in the events. State holds only JSON types.
"""

from __future__ import annotations

import uuid
from typing import Any

from eventsourcing.domain import Aggregate, event

from .errors import (
    AlreadyElsewhere, InviteExpired, NoBotThere, NotHost, NotInRoom, RequestIdReused, RoomFull, RoomLocked,
    RoomNotFilled, SeatsInTheWay, SeatTaken, TooManyFailedJoins, TooManyInvites, UnknownInvite,
)
from .invites import ACCEPTED, DECLINED, PENDING, REMATCH, ROOM, new_invite, room_invite_id, status_of
from .options import Options
from .seating import bot_id, check_seat_number, humans, is_bot

HOST_LEFT = "the host left"  # why a room closed, as stored (the other reason: its match ended)
KEPT_REQUESTS = 50  # invite request keys a room remembers (a retry comes within moments): replay stays short
ROOM_NAMESPACE = uuid.UUID("0c8a3f52-41d2-4f7e-9b58-6a1f0e0d7a01")
FAILED_JOINS_NAMESPACE = uuid.UUID("0c8a3f52-41d2-4f7e-9b58-6a1f0e0d7a05")


class Room(Aggregate):
    """A private room: a host, seats people and bots take, options locked by the start."""

    OPEN, STARTING, PLAYING, CLOSED = "open", "starting", "playing", "closed"

    @staticmethod
    def create_id(code: str, **_: Any) -> uuid.UUID:
        # The invite code names the room, so joining by code is a direct lookup.
        return uuid.uuid5(ROOM_NAMESPACE, code)

    @classmethod
    def create(cls, code: str, host_id: str, options: Options, host_seat: int | None, at: float) -> "Room":
        seat = 0 if host_seat is None else host_seat
        check_seat_number(seat, options.seats)
        return cls(code=code, host_id=host_id, options=options.as_dict(), host_seat=seat, at=at)

    @event("Created")
    def __init__(self, code: str, host_id: str, options: dict, host_seat: int, at: float) -> None:
        self.code = code
        self.host_id = host_id
        self.options = dict(options)
        self.seats = [""] * Options.from_dict(options).seats
        self.seats[host_seat] = host_id
        self.status = Room.OPEN
        self.match_id = ""
        self.closed_reason = ""
        self.created_at = at
        self.started_at: float | None = None
        self.invites: dict[str, dict] = {}  # invite id -> invites.new_invite's dict
        self.invite_requests: dict[str, dict] = {}  # "<inviter>\n<request id>" -> {"players", "invites"}
        self.rematch_of = ""
        self.rated: bool | None = None  # None: as rated_matches.py decides for any room
        self.fill_strength = ""  # a rematch: the bots' strength for seats whose people do not come back

    # ---- queries -----------------------------------------------------------------------

    @property
    def match_options(self) -> Options:
        return Options.from_dict(self.options)

    def seat_of(self, player_id: str) -> int | None:
        return self.seats.index(player_id) if player_id in self.seats else None

    def is_member(self, player_id: str) -> bool:
        return bool(player_id) and player_id in self.seats

    def members(self) -> list[str]:
        return humans(self.seats)

    def invite_status(self, invite_id: str, now: float) -> str:
        return status_of(self.invites[invite_id], self.status == Room.OPEN, now)

    def kept_seats(self) -> set[int]:
        """Seats kept for rematch invitees who have not answered: nobody else takes them."""
        return {int(i["seat"]) for i in self.invites.values() if i["kind"] == REMATCH and i["status"] == PENDING}

    def free_seats(self) -> int:
        kept = self.kept_seats()
        return sum(1 for s, p in enumerate(self.seats) if not p and s not in kept)

    def awaits_answers(self, now: float) -> bool:
        """A rematch room with an invite still to be answered (an expired one is not)."""
        return any(i["kind"] == REMATCH and self.invite_status(n, now) == PENDING for n, i in self.invites.items())

    # ---- commands ----------------------------------------------------------------------

    def join(self, player_id: str, seat: int | None) -> None:
        current = self.seat_of(player_id)
        if current is not None:
            if self.status == Room.CLOSED:
                raise RoomLocked("cannot join: the room is closed")
            if seat is not None and seat != current:
                self.change_seat(player_id, seat)
            return  # a retried join changes nothing
        self._check_open("join")
        self._player_joined(player_id=player_id, seat=self._free_seat(seat))

    def leave(self, player_id: str) -> None:
        seat = self._member_seat(player_id)
        self._check_open("leave")
        if player_id == self.host_id:
            self._closed(reason=HOST_LEFT)
        else:
            self._player_left(player_id=player_id, seat=seat)

    def change_seat(self, player_id: str, seat: int) -> None:
        current = self._member_seat(player_id)
        self._check_open("change seats")
        check_seat_number(seat, len(self.seats))
        if seat == current:
            return
        self._player_moved(player_id=player_id, from_seat=current, to_seat=self._free_seat(seat))

    def add_bot(self, by: str, seat: int | None, strength: str) -> None:
        self._check_host(by, "add bots")
        self._check_open("add bots")
        seat = self._free_seat(seat)
        self._bot_added(seat=seat, bot_id=bot_id(strength, seat))  # named by its seat: "bot strong 3" sits in 3

    def remove_bot(self, by: str, seat: int) -> None:
        self._check_host(by, "remove bots")
        self._check_open("remove bots")
        check_seat_number(seat, len(self.seats))
        if not is_bot(self.seats[seat]):
            raise NoBotThere(f"seat {seat} holds no bot")
        self._bot_removed(seat=seat, bot_id=self.seats[seat])

    def update_options(self, by: str, options: Options) -> None:
        self._check_host(by, "change the options")
        self._check_open("change the options")
        if self.rematch_of:
            raise RoomLocked("a rematch plays its match's options again; they cannot change")
        if options == self.match_options:
            return
        if any(self.seats[options.seats:]):
            raise SeatsInTheWay(f"{options.name} has {options.seats} seats; free seats "
                                f"{', '.join(str(s) for s in range(options.seats, len(self.seats)) if self.seats[s])} first")
        self._options_changed(options=options.as_dict())

    def invite(self, by: str, invitees: list[str], request_id: str, at: float, ttl: float) -> list[str]:
        """The invites answering ``invitees``, in order: a pending one answers for itself,
        the others are new. The same request again answers as the first time."""
        self._member_seat(by)
        earlier = self.invite_requests.get(f"{by}\n{request_id}")
        if earlier is not None:
            if earlier["players"] != list(invitees):
                raise RequestIdReused("this request_id was used to invite other players")
            return list(earlier["invites"])
        self._check_open("invite")
        seated = [p for p in invitees if p in self.seats]
        if seated:
            raise AlreadyElsewhere(f"already seated in this room: {', '.join(seated)}")
        pending = {i["player"]: n for n, i in self.invites.items() if self.invite_status(n, at) == PENDING}
        new = {p: room_invite_id(str(self.id), by, request_id, p) for p in invitees if p not in pending}
        waiting = sum(1 for n in pending.values() if self.invites[n]["kind"] == ROOM)
        if waiting + len(new) > self.free_seats():
            raise TooManyInvites(f"the room has {self.free_seats()} free seat(s) and {waiting} invite(s) pending; "
                                 f"{len(new)} more would be too many")
        ids = [pending.get(p) or new[p] for p in invitees]
        if not new:
            return ids  # everyone asked is pending already: nothing to record, so re-inviting cannot grow the room
        self._invited(invites={n: new_invite(ROOM, p, by, None, at, ttl) for p, n in new.items()},
                      request={"key": f"{by}\n{request_id}", "players": list(invitees), "invites": ids})
        return ids

    def open_rematch(self, match_id: str, rated: bool, strength: str, bots: dict[int, str],
                     invites: dict[str, tuple[str, int]], at: float, ttl: float) -> None:
        """Made a rematch room: ``bots`` by seat (as they sat at the match, or for people
        gone), ``invites`` each invite id's invitee and kept seat."""
        self._rematch_opened(match_id=match_id, rated=rated, strength=strength)
        for seat, bot in sorted(bots.items()):
            self._bot_added(seat=seat, bot_id=bot)
        if invites:
            self._invited(invites={n: new_invite(REMATCH, p, self.host_id, seat, at, ttl)
                                   for n, (p, seat) in invites.items()}, request=None)

    def answer(self, invite_id: str, player_id: str, accept: bool, at: float) -> bool:
        """Accept (seated: a rematch, in the kept seat) or decline; False when this answer was
        given before (the first result stands)."""
        invite = self.invites.get(invite_id)
        if invite is None or invite["player"] != player_id:
            raise UnknownInvite("no such invite of yours")
        status = self.invite_status(invite_id, at)
        if status == (ACCEPTED if accept else DECLINED):
            return False
        if status != PENDING:
            raise InviteExpired(f"this invite is {'answered' if status in (ACCEPTED, DECLINED) else status}; "
                                f"it cannot be {'accepted' if accept else 'declined'} now")
        seat = None
        if accept:
            seat = self.seat_of(player_id)
            if seat is None:
                seat = int(invite["seat"]) if invite["kind"] == REMATCH else self._free_seat(None)
        self._invite_answered(invite_id=invite_id, answer=ACCEPTED if accept else DECLINED, seat=seat)
        return True

    def start(self, by: str, at: float) -> bool:
        """Lock the options; False when the room had already started (a retry). A rematch
        room's seats not taken by then are its bots'."""
        self._check_host(by, "start the match")
        if self.status in (Room.STARTING, Room.PLAYING):
            return False
        self._check_open("start")
        if self.rematch_of:
            for seat, player in enumerate(self.seats):
                if not player:
                    self._bot_added(seat=seat, bot_id=bot_id(self.fill_strength, seat))
        empty = [str(s) for s, p in enumerate(self.seats) if not p]
        if empty:
            raise RoomNotFilled(f"every seat must be filled to start; seat(s) {', '.join(empty)} are free")
        self._started(at=at)
        return True

    def assign_match(self, match_id: str) -> bool:
        if self.status != Room.STARTING:
            return False
        self._match_assigned(match_id=match_id)
        return True

    def refuse_start(self, reason: str) -> None:
        if self.status == Room.STARTING:
            self._start_refused(reason=reason)

    def close(self, reason: str) -> None:
        if self.status != Room.CLOSED:
            self._closed(reason=reason)

    # ---- checks ------------------------------------------------------------------------

    def _check_host(self, player_id: str, what: str) -> None:
        if player_id != self.host_id:
            raise NotHost(f"only the host may {what}")

    def _check_open(self, what: str) -> None:
        if self.status == Room.CLOSED:
            raise RoomLocked(f"cannot {what}: the room is closed")
        if self.status != Room.OPEN:
            raise RoomLocked(f"cannot {what}: the match has started and the room is locked")

    def _member_seat(self, player_id: str) -> int:
        seat = self.seat_of(player_id)
        if seat is None or is_bot(player_id):
            raise NotInRoom("you are not in this room")
        return seat

    def _free_seat(self, seat: int | None) -> int:
        kept = self.kept_seats()
        if seat is None:
            for s, occupant in enumerate(self.seats):
                if not occupant and s not in kept:
                    return s
            raise RoomFull("the room is full")
        check_seat_number(seat, len(self.seats))
        if self.seats[seat]:
            raise SeatTaken(f"seat {seat} is taken")
        if seat in kept:
            raise SeatTaken(f"seat {seat} is kept for a player invited back")
        return seat

    # ---- events ------------------------------------------------------------------------

    @event("PlayerJoined")
    def _player_joined(self, player_id: str, seat: int) -> None:
        self.seats = self.seats[:seat] + [player_id] + self.seats[seat + 1:]

    @event("PlayerLeft")
    def _player_left(self, player_id: str, seat: int) -> None:
        self.seats = self.seats[:seat] + [""] + self.seats[seat + 1:]

    @event("PlayerMoved")
    def _player_moved(self, player_id: str, from_seat: int, to_seat: int) -> None:
        seats = list(self.seats)
        seats[from_seat], seats[to_seat] = "", player_id
        self.seats = seats

    @event("BotAdded")
    def _bot_added(self, seat: int, bot_id: str) -> None:
        self.seats = self.seats[:seat] + [bot_id] + self.seats[seat + 1:]

    @event("BotRemoved")
    def _bot_removed(self, seat: int, bot_id: str) -> None:
        self.seats = self.seats[:seat] + [""] + self.seats[seat + 1:]

    @event("OptionsChanged")
    def _options_changed(self, options: dict) -> None:
        self.options = dict(options)
        size = Options.from_dict(options).seats
        self.seats = (self.seats + [""] * size)[:size]

    @event("Invited")
    def _invited(self, invites: dict, request: dict | None) -> None:
        self.invites = {**self.invites, **{n: dict(i) for n, i in invites.items()}}
        if request is not None:
            kept = list(self.invite_requests.items())[-(KEPT_REQUESTS - 1):]
            self.invite_requests = {**dict(kept),
                                    request["key"]: {"players": request["players"], "invites": request["invites"]}}

    @event("InviteAnswered")
    def _invite_answered(self, invite_id: str, answer: str, seat: int | None) -> None:
        self.invites = {**self.invites, invite_id: {**self.invites[invite_id], "status": answer}}
        if seat is not None:
            player = self.invites[invite_id]["player"]
            self.seats = self.seats[:seat] + [player] + self.seats[seat + 1:]

    class RematchOpened(Aggregate.Event):  # declared: the rematch rooms' self-start follows its topic
        match_id: str
        rated: bool
        strength: str

    @event(RematchOpened)
    def _rematch_opened(self, match_id: str, rated: bool, strength: str) -> None:
        self.rematch_of = match_id
        self.rated = rated
        self.fill_strength = strength

    class Started(Aggregate.Event):  # declared, not made by @event: PendingStarts follows its topic
        at: float

    @event(Started)
    def _started(self, at: float) -> None:
        self.status = Room.STARTING
        self.started_at = at

    @event("MatchAssigned")
    def _match_assigned(self, match_id: str) -> None:
        self.status = Room.PLAYING
        self.match_id = match_id

    @event("StartRefused")
    def _start_refused(self, reason: str) -> None:
        self.status = Room.OPEN
        self.started_at = None

    @event("Closed")
    def _closed(self, reason: str) -> None:
        self.status = Room.CLOSED
        self.closed_reason = reason


class FailedJoins(Aggregate):
    """A player's recent join attempts with unknown invite codes: too many, and joining is
    refused for a while (so codes cannot be guessed by trying)."""

    LIMIT = 10
    WINDOW_SECONDS = 600.0

    @staticmethod
    def create_id(player_id: str, **_: Any) -> uuid.UUID:
        return uuid.uuid5(FAILED_JOINS_NAMESPACE, player_id)

    @event("Opened")
    def __init__(self, player_id: str) -> None:
        self.player_id = player_id
        self.failures: list[float] = []

    def check(self, now: float) -> None:
        recent = sorted(t for t in self.failures if t > now - self.WINDOW_SECONDS)
        if len(recent) >= self.LIMIT:
            retry_in = recent[-self.LIMIT] + self.WINDOW_SECONDS - now
            raise TooManyFailedJoins(f"too many unknown invite codes; try again in {max(1, round(retry_in))} s",
                                     retry_after=max(1.0, retry_in))

    def record_failure(self, at: float) -> None:
        self._join_failed(at=at)

    @event("JoinFailed")
    def _join_failed(self, at: float) -> None:
        self.failures = [t for t in self.failures if t > at - self.WINDOW_SECONDS] + [at]
