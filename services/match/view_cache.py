"""Each seat's view of a match version is built once, whoever asks for it.

One move is read by many callers: the reply to the command, each WatchMatch stream of each
seat (a phone may hold several), the bot that plays a seat (GetMatch), the spectators' public
view one turn behind, and every stream's copy of the event. Building a view (the seat's
player view, its protobuf, the signed head) costs about 30 µs; all those callers ask for the
same few (match, version, seat) within milliseconds of each other. So a view is built on the
first ask and kept, serialized, in a small LRU; every caller parses its own message from the
bytes (about 1.5 µs, no more than copying a kept message would cost). Nobody ever holds a
message another caller gets, so nothing a caller does to its reply can reach another's.

A view is a function of the key alone, (match id, version, chain head, seat): every field
comes from the match's stored events (turn deadlines are computed before their event is
stored, never from the clock of the read), and the head is signed once per version
(heads.Signer). The seat is in the key, so a seat's view is never served to another seat
(docs/design.md, "Who may see what"); the chain head too, so that a log rewritten under the
same versions is never answered with what was built from the old one. Only matches as
stored reach here: a command's copy is viewed after its events were appended.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable
from uuid import UUID

from domino.match.v1 import match_service_pb2 as pb

from .domainmodel import Match

ENTRIES = 4096  # views kept: ~1 KB each; the tables that moved in the last moments, every watched seat
Key = tuple[UUID, int, str, int]


class _Kept:
    __slots__ = ("view", "event")

    def __init__(self, view: bytes) -> None:
        self.view = view  # the MatchView's wire bytes
        self.event: bytes | None = None  # the MatchEvent of the match's newest version, as this seat sees it


class ViewCache:
    """Serialized views by (match id, version, chain head, seat), the newest ``entries`` used."""

    def __init__(self, build: Callable[[Match, int], pb.MatchView],
                 build_event: Callable[[Any, int, Match], pb.MatchEvent], entries: int = ENTRIES) -> None:
        self._build = build
        self._build_event = build_event
        self._entries = entries
        self._kept: OrderedDict[Key, _Kept] = OrderedDict()
        self.built = 0  # views built (first asks)
        self.reused = 0  # views served from what was kept

    def __len__(self) -> int:
        return len(self._kept)

    def serialized(self, match: Match, seat: int) -> bytes:
        """The wire bytes of ``seat``'s view of ``match`` (-1: the public view)."""
        return self._entry(match, seat).view

    def view(self, match: Match, seat: int) -> pb.MatchView:
        """``seat``'s view of ``match``: a message of the caller's own."""
        return pb.MatchView.FromString(self._entry(match, seat).view)

    def update(self, event: Any, match: Match, seat: int) -> pb.WatchMatchResponse:
        """A stream's message for ``event`` and the ``match`` it left, as ``seat`` sees them."""
        kept = self._entry(match, seat)
        msg = pb.WatchMatchResponse()
        if event.originator_version != match.version:  # not the event that made this version: not kept
            msg.event.CopyFrom(self._build_event(event, seat, match))
        else:
            if kept.event is None:
                kept.event = self._build_event(event, seat, match).SerializeToString()
            msg.event.MergeFromString(kept.event)
        msg.view.MergeFromString(kept.view)
        return msg

    def _entry(self, match: Match, seat: int) -> _Kept:
        key = (match.id, match.version, match.chain_head, seat)
        kept = self._kept.get(key)
        if kept is not None:
            self._kept.move_to_end(key)
            self.reused += 1
            return kept
        kept = _Kept(self._build(match, seat).SerializeToString())
        self.built += 1
        self._kept[key] = kept
        if len(self._kept) > self._entries:
            self._kept.popitem(last=False)
        return kept


def with_view(response: Any, view: bytes) -> Any:
    """``response`` (a reply message with a ``view`` field) holding the view of ``view``'s bytes."""
    response.view.MergeFromString(view)
    return response
