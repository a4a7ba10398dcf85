"""Use cases of invites: a member invites friends to an open room, an invitee or a member
reads an invite, the invitee accepts (seated) or declines.

Who is a friend is the social service's to say (the Social port), asked once the room's
own rules have passed, so a refusal names the first real fault. An invite and the notice
that tells of it are saved in one atomic call; the notice is posted after the save and,
when the social service is away, again by the timer (notice_posting.py): the invite never
fails for it. An accept seats the invitee in the same save as their presence; in a rematch
room the last answer also starts the room (its bots take the seats not accepted).
"""

from __future__ import annotations

import logging
from typing import Callable
from uuid import UUID

from eventsourcing.domain import Aggregate

from .errors import NotFriends, UnknownInvite, UnknownRoom
from .invites import PENDING, InviteLink
from .match_ends import MatchEnds
from .match_starts import MatchStarts
from .notice_posting import NoticePosting
from .notices import RoomNotices, answer_notice, invite_notice
from .plumbing import Store
from .rooms import Room
from .social import Social
from .standings import Standings

log = logging.getLogger("domino.matchmaking")


class InviteUseCases:
    def __init__(self, store: Store, starts: MatchStarts, ends: MatchEnds, social: Social, posting: NoticePosting,
                 clock: Callable[[], float], standings: Standings, ttl_seconds: float) -> None:
        self.store = store
        self.starts = starts
        self.ends = ends
        self.social = social
        self.posting = posting
        self.clock = clock
        self.standings = standings
        self.ttl_seconds = ttl_seconds

    def invite(self, player_id: str, request_id: str, room_id: UUID, invitees: list[str]) -> tuple[Room, list[str]]:
        """The room and the invites answering ``invitees``, in their order."""
        preview = self._room(room_id)
        replay = f"{player_id}\n{request_id}" in preview.invite_requests
        ids = preview.invite(player_id, invitees, request_id, self.clock(), self.ttl_seconds)  # the room's refusals
        if replay:
            return preview, ids
        relations = self.social.relations(player_id, invitees)
        strangers = [p for p in invitees if not relations[p].may_invite]
        if strangers:
            raise NotFriends(f"invites go to friends only; not your friend: {', '.join(strangers)}")

        def attempt() -> tuple[Room, list[str]]:
            room = self._room(room_id)
            before = set(room.invites)
            answered = room.invite(player_id, invitees, request_id, self.clock(), self.ttl_seconds)
            new = [n for n in answered if n not in before]
            changed: list[Aggregate] = [room]
            if new:
                outbox = self._outbox(room)
                outbox.queue(*(invite_notice(n, room.invites[n], str(room.id), room.match_options) for n in new))
                changed += [outbox, *(InviteLink(invite_id=n, room_id=str(room.id), player_id=room.invites[n]["player"])
                                      for n in new)]
            self.store.save_changes(*changed)
            return room, answered

        room, answered = self.store.run(attempt, lock=room_id)
        self._post(room)
        return room, answered

    def invite_of(self, player_id: str, invite_id: str) -> tuple[Room, str]:
        """An invite as its invitee or a member of its room may read it."""
        room = self._room_of(invite_id)
        if room.invites[invite_id]["player"] != player_id and not room.is_member(player_id):
            raise UnknownInvite("no such invite of yours or of a room you are in")
        return room, invite_id

    def answer(self, player_id: str, invite_id: str, accept: bool) -> tuple[Room, str]:
        room = self._room_of(invite_id)
        if room.invites[invite_id]["player"] != player_id:
            raise UnknownInvite("no such invite of yours")
        asking = accept and room.invite_status(invite_id, self.clock()) == PENDING
        if asking:
            self.standings.check(player_id)
        ended = self.ends.ended_match(player_id) if asking else ""
        room_id = room.id

        def attempt() -> Room:
            room = self._room(room_id)
            now = self.clock()
            if not room.answer(invite_id, player_id, accept, now):
                return room  # answered so before: the first result
            changed: list[Aggregate] = []
            if accept:
                held = self.ends.link(ended) if ended else None  # before the presence: see MatchEnds.releasing
                presence = self.store.presence(player_id)
                changed += self.ends.releasing(ended, [presence, room, *([held] if held else [])]) if ended else []
                presence.enter_room(str(room.id))  # ALREADY_SEATED elsewhere: nothing is saved, the invite waits
                changed.append(presence)
            outbox = self._outbox(room)
            outbox.queue(answer_notice(invite_id, room.invites[invite_id], str(room.id), accept))
            if room.rematch_of and not room.awaits_answers(now):
                room.start(room.host_id, now)  # every person has answered: the room starts by itself
            self.store.save_changes(*changed, room, outbox)
            return room

        room = self.store.run(attempt, lock=room_id)
        self._post(room)
        return self.start_if_starting(room), invite_id

    def start_if_starting(self, room: Room) -> Room:
        """Create the match of a room that has just started itself (when the match service is
        away, PendingStarts does it later)."""
        if room.status != Room.STARTING:
            return room
        self.starts.start("room", room.id)
        return self._room(room.id)

    def _post(self, room: Room) -> None:
        try:
            self.posting.post_room(str(room.id))
        except Exception:  # the invite is stored: the timer posts its notice
            log.exception("posting invite notifications failed; the timer posts them", extra={"room": str(room.id)})

    def _outbox(self, room: Room) -> RoomNotices:
        return self.store.load(RoomNotices, RoomNotices.create_id(str(room.id))) or RoomNotices(room_id=str(room.id))

    def _room(self, room_id: UUID) -> Room:
        room = self.store.load(Room, room_id)
        if room is None:
            raise UnknownRoom(f"no room {room_id}")
        return room

    def _room_of(self, invite_id: str) -> Room:
        link = self.store.load(InviteLink, UUID(invite_id))
        room = self.store.load(Room, UUID(link.room_id)) if link is not None else None
        if room is None or invite_id not in room.invites:
            raise UnknownInvite("no such invite")
        return room
