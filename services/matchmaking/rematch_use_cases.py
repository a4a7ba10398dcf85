"""Rematch ("play again"): a room that plays a finished match of matchmaking's again.

The first seated person to ask makes it (RematchLink keys it by the match, so two askers at
once make one: the second loses the race to the link's first event and accepts their
invite instead). It has the match's options, is rated as the match was, seats the asker in
their old seat and the bots in theirs, keeps every other person's old seat for them and
invites them (a REMATCH notice each). A person who is gone gets a bot at once: deleted or
banned (the account service's standing), or already somewhere else than at the finished
match. Nobody is seated without saying yes. Once every invite is answered, or has run out
(``start_unanswered``, on the timer), the room starts by itself, bots taking the seats not
accepted; its host may start it sooner (StartRoom).
"""

from __future__ import annotations

from typing import Callable
from uuid import UUID

from eventsourcing.domain import Aggregate
from eventsourcing.utils import get_topic

from .errors import AccountsUnavailable, Barred, RematchNotAvailable
from .invite_use_cases import InviteUseCases
from .invites import InviteLink, RematchLink, rematch_invite_id
from .match_ends import MatchEnds
from .match_starts import MatchCreator, MatchStarts, source_of
from .notices import RoomNotices, invite_notice
from .options import default_strength
from .plumbing import Store
from .presence import MatchLink
from .rated_matches import rated
from .rooms import Room
from .seating import bot_id, bot_strength, humans, is_bot
from .standings import Standings


class RematchUseCases:
    TOPIC = get_topic(Room.RematchOpened)

    def __init__(self, store: Store, invites: InviteUseCases, starts: MatchStarts, ends: MatchEnds,
                 creator: MatchCreator, clock: Callable[[], float], code_source: Callable[[], str],
                 standings: Standings, ttl_seconds: float) -> None:
        self.store = store
        self.invites = invites
        self.starts = starts
        self.ends = ends
        self.creator = creator
        self.clock = clock
        self.code_source = code_source
        self.standings = standings
        self.ttl_seconds = ttl_seconds
        self.waiting: set[UUID] = set()  # rematch rooms that may still have to start by themselves

    def request_rematch(self, player_id: str, match_id: str) -> Room:
        link = self.ends.link(match_id)
        source = source_of(self.store, link.source_kind, UUID(link.source_id)) if link is not None else None
        if link is None or source is None or player_id not in humans(source.seats):
            raise RematchNotAvailable("you had no seat at this match")
        made = self.store.load(RematchLink, RematchLink.create_id(match_id))
        if made is not None:
            return self._come_back(player_id, match_id, UUID(made.room_id))
        if not link.released and not self.creator.has_ended(match_id):
            raise RematchNotAvailable("this match is still being played")
        self.standings.check(player_id)
        seats = list(source.seats)
        gone = {p for p in humans(seats) if p != player_id and self._gone(p, link)}
        strength = next((bot_strength(p) for p in seats if is_bot(p)), "") or default_strength(source.match_options)
        was_rated = rated(source, self.starts.practice_rated)

        def attempt() -> Room | None:
            if self.store.load(RematchLink, RematchLink.create_id(match_id)) is not None:
                return None  # another asker made it first
            held = self.ends.link(match_id)  # before the presence: see MatchEnds.releasing
            presence = self.store.presence(player_id)
            freed = self.ends.releasing(match_id, [presence, *([held] if held is not None else [])])
            presence.check_free()
            now = self.clock()
            code = self.code_source()
            while self.store.load(Room, Room.create_id(code)) is not None:
                code = self.code_source()
            room = Room.create(code, player_id, source.match_options, seats.index(player_id), now)
            bots = {s: p if is_bot(p) else bot_id(strength, s) for s, p in enumerate(seats) if is_bot(p) or p in gone}
            asked = {rematch_invite_id(match_id, p): (p, s) for s, p in enumerate(seats)
                     if p and not is_bot(p) and p != player_id and p not in gone}
            room.open_rematch(match_id, was_rated, strength, bots, asked, now, self.ttl_seconds)
            presence.enter_room(str(room.id), f"rematch:{match_id}")
            changed: list[Aggregate] = [*freed, presence, room, RematchLink(match_id=match_id, room_id=str(room.id))]
            if asked:
                outbox = RoomNotices(room_id=str(room.id))
                outbox.queue(*(invite_notice(n, room.invites[n], str(room.id), room.match_options, match_id)
                               for n in asked))
                changed += [outbox, *(InviteLink(invite_id=n, room_id=str(room.id), player_id=p)
                                      for n, (p, _) in asked.items())]
            else:
                room.start(player_id, now)  # nobody to ask: the asker and bots
            self.store.save_changes(*changed)
            return room

        room = self.store.run(attempt)
        if room is None:
            made = self.store.load_saved(RematchLink, RematchLink.create_id(match_id))
            return self._come_back(player_id, match_id, UUID(made.room_id))
        self.invites._post(room)
        return self.invites.start_if_starting(room)

    def noted(self, topic: str, originator_id: object) -> None:
        if topic == self.TOPIC:
            self.waiting.add(UUID(str(originator_id)))

    def start_unanswered(self, now: float | None = None) -> int:
        """Start the rematch rooms whose invites have all been answered or have run out; how many started."""
        now = self.clock() if now is None else now
        started = 0
        for room_id in list(self.waiting):
            room = self.store.load(Room, room_id)
            if room is None or room.status != Room.OPEN:
                self.waiting.discard(room_id)
                continue
            if room.awaits_answers(now):
                continue

            def attempt(room_id: UUID = room_id) -> Room:
                room = self.store.load_saved(Room, room_id)
                if room.status == Room.OPEN and not room.awaits_answers(now):
                    room.start(room.host_id, now)
                    self.store.save_changes(room)
                return room

            room = self.invites.start_if_starting(self.store.run(attempt, lock=room_id))
            self.waiting.discard(room_id)
            started += 1
        return started

    def _come_back(self, player_id: str, match_id: str, room_id: UUID) -> Room:
        """A later asker: the host or a member has the room; an invitee accepts."""
        room = self.store.load_saved(Room, room_id)
        if room.host_id == player_id or room.is_member(player_id):
            return room
        invite_id = rematch_invite_id(match_id, player_id)
        if invite_id not in room.invites:
            raise RematchNotAvailable("your seat at the rematch went to a bot")
        room, _ = self.invites.answer(player_id, invite_id, True)
        return room

    def _gone(self, player_id: str, link: MatchLink) -> bool:
        try:
            self.standings.check(player_id)
        except Barred:
            return True
        except AccountsUnavailable:
            pass  # asked again when they accept
        place = self.store.presence(player_id).place
        return place is not None and (place["kind"], place["id"]) != (link.source_kind, link.source_id)
