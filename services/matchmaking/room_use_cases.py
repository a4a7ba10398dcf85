"""Use cases of private rooms: create, look up, join by code, seats, bots, options, start.

Given what they use and nothing else: the store (plumbing.py: load, save every changed
aggregate in one call, reload and retry on a lost race), the match starts and ends, the clock and
the invite codes (injected, so tests need no sleeping and know the codes), and the account
service's standings; MatchmakingApplication (application.py) wires them.
"""

from __future__ import annotations

import secrets
from typing import Any, Callable, cast
from uuid import UUID

from eventsourcing.domain import CanMutateProtocol

from .errors import BotsInTheWay, InvalidRequest, NotInRoom, UnknownRoom
from .match_ends import MatchEnds
from .match_starts import MatchStarts
from .options import Options, check_request_id, check_strength, default_strength, not_offered
from .plumbing import Store
from .rooms import FailedJoins, Room
from .seating import bot_strength, is_bot
from .standings import Standings

CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0/O, 1/I/L: easy to read aloud
CODE_LENGTH = 8  # 31**8, about 8.5e11 codes, with failed attempts limited per player


def new_invite_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalized_code(text: str) -> str:
    """Invite codes are read case-insensitively and may be written with spaces or dashes."""
    code = text.strip().upper().replace("-", "").replace(" ", "")
    if len(code) != CODE_LENGTH or any(c not in CODE_ALPHABET for c in code):
        raise InvalidRequest(f"an invite code is {CODE_LENGTH} characters from {CODE_ALPHABET}", field="code")
    return code


class RoomUseCases:
    def __init__(self, store: Store, starts: MatchStarts, ends: MatchEnds, clock: Callable[[], float],
                 code_source: Callable[[], str], standings: Standings) -> None:
        self.store = store
        self.starts = starts
        self.ends = ends  # a player held for a match that has ended is freed with their new place
        self.clock = clock
        self.code_source = code_source
        self.standings = standings

    def create_room(self, player_id: str, request_id: str, options: Options, seat: int | None) -> Room:
        check_request_id(request_id)
        self.standings.check(player_id)
        ended = self.ends.ended_match(player_id)

        def attempt() -> Room:
            presence = self.store.presence(player_id)
            place = presence.place
            if place and place["kind"] == "room" and place["request_id"] == request_id:
                return self.room(UUID(place["id"]))  # a retry: the first outcome
            freed = self.ends.releasing(ended, [presence]) if ended else []
            presence.check_free()
            code = self.code_source()
            while self.store.load(Room, Room.create_id(code)) is not None:
                code = self.code_source()  # a collision: rare, so just draw again
            room = Room.create(code, player_id, options, seat, self.clock())
            presence.enter_room(str(room.id), request_id)
            self.store.save_changes(*freed, presence, room)
            return room

        return self.store.run(attempt)

    def room(self, room_id: UUID) -> Room:
        room = self.store.load(Room, room_id)
        if room is None:
            raise UnknownRoom(f"no room {room_id}")
        return room

    def room_for(self, player_id: str, room_id: UUID) -> Room:
        """A room as its members may see it."""
        room = self.room(room_id)
        if not room.is_member(player_id):
            raise NotInRoom("only the room's members may see it by id; others need its invite code")
        return room

    def room_at(self, room_id: UUID, version: int) -> Room:
        room = self.store.load(Room, room_id, version=version)
        if room is None:
            raise UnknownRoom(f"no room {room_id} at version {version}")
        return room

    def room_events_after(self, room_id: UUID, version: int) -> list[CanMutateProtocol[Room]]:
        """The room's events after ``version``, to stream every state in order."""
        return cast("list[CanMutateProtocol[Room]]", list(self.store.events_after(room_id, version)))

    def room_by_code(self, player_id: str, code: str) -> Room:
        return self.store.run(lambda: self._room_by_code(player_id, normalized_code(code)))

    def join_room(self, player_id: str, code: str, seat: int | None) -> Room:
        code = normalized_code(code)
        self.standings.check(player_id)
        ended = self.ends.ended_match(player_id)

        def attempt() -> Room:
            room = self._room_by_code(player_id, code)
            presence = self.store.presence(player_id)
            freed = self.ends.releasing(ended, [presence, room]) if ended else []
            room.join(player_id, seat)
            presence.enter_room(str(room.id))
            self.store.save_changes(*freed, presence, room)
            return room

        return self.store.run(attempt, lock=Room.create_id(code))

    def leave_room(self, player_id: str, room_id: UUID) -> Room:
        def attempt() -> Room:
            room = self.room(room_id)
            members = room.members()
            room.leave(player_id)
            gone = members if room.status == Room.CLOSED else [player_id]
            presences = [self.store.presence(p) for p in gone]
            for presence in presences:
                presence.release("room", str(room_id), room.closed_reason or "left the room")
            self.store.save_changes(room, *presences)
            return room

        return self.store.run(attempt, lock=room_id)

    def change_seat(self, player_id: str, room_id: UUID, seat: int) -> Room:
        return self._room_command(room_id, lambda room: room.change_seat(player_id, seat))

    def add_bot(self, player_id: str, room_id: UUID, seat: int | None, strength: str | None) -> Room:
        """``strength`` None: the default of the room's family and team setting."""
        if strength is not None:
            check_strength(strength)

        def add(room: Room) -> None:
            chosen = default_strength(room.match_options) if strength is None else strength
            check_strength(chosen, room.match_options)  # offered in the room's family and team setting
            room.add_bot(player_id, seat, chosen)

        return self._room_command(room_id, add)

    def remove_bot(self, player_id: str, room_id: UUID, seat: int) -> Room:
        return self._room_command(room_id, lambda room: room.remove_bot(player_id, seat))

    def update_room_options(self, player_id: str, room_id: UUID, **changes: Any) -> Room:
        def update(room: Room) -> None:
            options = room.match_options.changed(**changes)
            room.update_options(player_id, options)  # the host's, while open (refused: nothing is saved)
            for seat, player in enumerate(room.seats):
                strength = bot_strength(player) if is_bot(player) else None
                refusal = None if strength is None else not_offered(strength, options)
                if refusal is not None:
                    raise BotsInTheWay(f"{refusal}; remove the {strength} bot from seat {seat} first")

        return self._room_command(room_id, update)

    def start_room(self, player_id: str, room_id: UUID) -> Room:
        room = self._room_command(room_id, lambda room: room.start(player_id, self.clock()))
        if room.status == Room.STARTING:
            self.starts.start("room", room_id)
            room = self.room(room_id)
        return room

    def _room_command(self, room_id: UUID, command: Callable[[Room], object]) -> Room:
        def attempt() -> Room:
            room = self.room(room_id)
            command(room)
            self.store.save_changes(room)
            return room

        return self.store.run(attempt, lock=room_id)

    def _room_by_code(self, player_id: str, code: str) -> Room:
        guard = self.store.load(FailedJoins, FailedJoins.create_id(player_id))
        now = self.clock()
        if guard is not None:
            guard.check(now)
        room = self.store.load(Room, Room.create_id(code))
        if room is None:
            guard = guard or FailedJoins(player_id=player_id)
            guard.record_failure(now)
            self.store.save_changes(guard)
            raise UnknownRoom("no room has this invite code")
        return room
