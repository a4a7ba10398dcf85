"""Each seat's view of a match version is built once, whoever asks for it.

One move is read by many callers: the reply to the command, each WatchMatch stream of each
seat (a phone may hold several), the bot that plays a seat (GetMatch), the spectators' public
view one turn behind, and every stream's copy of the event. Building a view (the seat's
player view, its protobuf, the signed head) costs about 30 µs; all those callers ask for the
same few (match, version, seat) within milliseconds of each other. So a view is built on the
first ask and kept, serialized, in a small LRU; every caller parses its own message from the
bytes (about 1.5 µs, no more than copying a kept message would cost). Nobody ever holds a
message another caller gets, so nothing a caller does to its reply can reach another's.

All the seats' views of a version share most of their content (the line, the seats, the
scores, the rounds, the head): that public part is built once per version, and a seat's
view is its bytes followed by the few the seat adds (its number, hand and legal moves), so
the first ask of each further seat costs a few µs, not a whole view.

A view is a function of the key alone, (match id, version, chain head, seat): every field
comes from the match's stored events (turn deadlines are computed before their event is
stored, never from the clock of the read), and the head is signed once per version
(heads.Signer). The seat is in the key, so a seat's view is never served to another seat
(docs/design.md, "Who may see what"); the chain head too, so that a log rewritten under the
same versions is never answered with what was built from the old one. Only matches as
stored reach here: a command's copy is viewed after its events were appended.

What is kept never holds the time: each view and stream message leaves with the server's
clock of the moment it is sent (``server_time``, a few bytes appended), from which a client
counts the turn down whatever its own clock says.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable
from uuid import UUID

from domino.match.v1 import match_service_pb2 as pb

from .domainmodel import Match
from .messages import timestamp

ENTRIES = 4096  # versions kept (~1 KB each): those of the last seconds of every table, every seat
Key = tuple[UUID, int, str]


class _Kept:
    """One version: its public view, and what each seat asked so far adds to it."""

    __slots__ = ("public", "seats", "events")

    def __init__(self, public: bytes) -> None:
        self.public = public  # the public view's wire bytes (your_seat unset, no hand, no legal moves)
        self.seats: dict[int, bytes] = {}  # seat -> what its view adds (messages.seat_part)
        self.events: dict[int, bytes] = {}  # seat -> the version's MatchEvent as that seat sees it


class ViewCache:
    """Serialized views by (match id, version, chain head) and seat, the newest ``entries``
    versions used. ``public`` builds the part of a version's view all its seats share,
    ``seat_part`` the wire bytes one seat's view adds to it (messages.py)."""

    def __init__(self, public: Callable[[Match], pb.MatchView], seat_part: Callable[[Match, int], bytes],
                 build_event: Callable[[Any, int, Match], pb.MatchEvent], entries: int = ENTRIES,
                 clock: Callable[[], float] | None = None) -> None:
        self._clock = clock  # stamps each view sent with the server's time; None: no stamp
        self._public = public
        self._seat_part = seat_part
        self._build_event = build_event
        self._entries = entries
        self._kept: OrderedDict[Key, _Kept] = OrderedDict()
        self.built = 0  # views built: a seat's first ask at a version
        self.reused = 0  # views served from what was kept

    def __len__(self) -> int:
        return len(self._kept)

    def serialized(self, match: Match, seat: int) -> bytes:
        """The wire bytes of ``seat``'s view of ``match`` (-1: the public view)."""
        kept = self._version(match)
        return kept.public + self._seat(kept, match, seat) + self._stamp()

    def view(self, match: Match, seat: int) -> pb.MatchView:
        """``seat``'s view of ``match``: a message of the caller's own."""
        return pb.MatchView.FromString(self.serialized(match, seat))

    def update(self, event: Any, match: Match, seat: int) -> pb.WatchMatchResponse:
        """A stream's message for ``event`` and the ``match`` it left, as ``seat`` sees them."""
        kept = self._version(match)
        msg = pb.WatchMatchResponse()
        if event.originator_version != match.version:  # not the event that made this version: not kept
            msg.event.CopyFrom(self._build_event(event, seat, match))
        else:
            wire = kept.events.get(seat)
            if wire is None:
                wire = kept.events[seat] = self._build_event(event, seat, match).SerializeToString()
            msg.event.MergeFromString(wire)
        msg.view.MergeFromString(kept.public + self._seat(kept, match, seat))
        if self._clock is not None:
            msg.server_time.FromNanoseconds(int(self._clock() * 1e9))
            msg.view.server_time.CopyFrom(msg.server_time)
        return msg

    def current(self, match: Match, seat: int) -> pb.WatchMatchResponse:
        """A stream's first message from version 0: ``seat``'s view of ``match``, no event."""
        msg = pb.WatchMatchResponse()
        msg.view.MergeFromString(self.serialized(match, seat))
        if msg.view.HasField("server_time"):
            msg.server_time.CopyFrom(msg.view.server_time)
        return msg

    def stamped(self, msg: pb.WatchMatchResponse) -> pb.WatchMatchResponse:
        """``msg`` (a stream's chat message) with the server's time of now."""
        if self._clock is not None:
            msg.server_time.FromNanoseconds(int(self._clock() * 1e9))
        return msg

    def _stamp(self) -> bytes:
        """The wire bytes of a view's ``server_time`` now, to follow what was kept."""
        if self._clock is None:
            return b""
        return pb.MatchView(server_time=timestamp(self._clock())).SerializeToString()

    def _seat(self, kept: _Kept, match: Match, seat: int) -> bytes:
        part = kept.seats.get(seat)
        if part is None:
            part = kept.seats[seat] = self._seat_part(match, seat)
            self.built += 1
        else:
            self.reused += 1
        return part

    def _version(self, match: Match) -> _Kept:
        key = (match.id, match.version, match.chain_head)
        kept = self._kept.get(key)
        if kept is not None:
            self._kept.move_to_end(key)
            return kept
        kept = _Kept(self._public(match).SerializeToString())
        self._kept[key] = kept
        if len(self._kept) > self._entries:
            self._kept.popitem(last=False)
        return kept


def with_view(response: Any, view: bytes) -> Any:
    """``response`` (a reply message with a ``view`` field) holding the view of ``view``'s bytes."""
    response.view.MergeFromString(view)
    return response
