"""A spectator's WatchMatch stream read in the background while a match is played, and the
checks that it saw the whole match once, in order; shared by the service and integration
tiers (a spectator once lost its stream on almost every move: docs/design.md, "Spectators")."""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor

from domino.match.v1 import match_service_pb2 as pb
from tests.support.families import variant_tables
from tests.support.grpc_matches import create_fields
from tests.support.keys import auth

# Every family and variant (CreateMatch fields), each with spectators allowed.
EVERY_VARIANT = {table.id: create_fields(table) for table in variant_tables()}


class Spectator:
    """``who`` watching ``match_id`` from its beginning on ``svc``, in a thread of its own
    until the stream ends (it ends by itself once the match has)."""

    def __init__(self, svc, match_id: str, who: str = "zed", seconds: float = 60, metadata=None) -> None:
        """``metadata``: another caller's (a member of staff's), instead of player ``who``'s."""
        self._pool = ThreadPoolExecutor(1)
        self._stream = svc.stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id), metadata=metadata or auth(who),
                                           timeout=seconds)
        self._updates: Future = self._pool.submit(lambda: [u for u in self._stream])

    def updates(self, seconds: float = 30) -> list[pb.WatchMatchResponse]:
        """Everything the stream sent; raises the stream's error if it ended with one."""
        try:
            return self._updates.result(seconds)
        finally:
            self._stream.cancel()
            self._pool.shutdown(wait=False)


def public_view(svc, match_id: str) -> pb.MatchView:
    """The match as everybody without a seat sees it (and a spectator once it has ended)."""
    return svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth("observer", "service")).view


def assert_saw_the_whole_match_once(updates: list[pb.WatchMatchResponse], final: pb.MatchView) -> None:
    """The public view where the stream began (no event), then every event from there to the
    match's end exactly once, in order, each with the public view at its version, and the
    last view the match's own."""
    first = updates[0]
    assert not first.HasField("event") and not first.view.HasField("your_seat") and not first.view.hand
    events = [u for u in updates if u.HasField("event")]
    versions = [u.event.version for u in events]
    assert versions == list(range(first.view.version + 1, final.version + 1)), versions
    assert all(u.view.version == u.event.version and not u.view.HasField("your_seat") and not u.view.hand
               for u in events)
    assert events[-1].event.kind == pb.EVENT_KIND_MATCH_ENDED and final.status == pb.MATCH_STATUS_ENDED
    last, own = pb.MatchView(), pb.MatchView()
    last.CopyFrom(events[-1].view)
    own.CopyFrom(final)
    last.ClearField("server_time")  # each view says when it was sent
    own.ClearField("server_time")
    assert last == own
