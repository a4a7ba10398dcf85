"""No response, stream message or error tells a player what their seat may not see.

docs/design.md, "Who may see what": a player never receives another seat's hand (a
teammate's included), the boneyard's content or order, or the unrevealed server seed.

Whole matches are played over gRPC, each player choosing the first legal move of their own
view, while everything each player receives is recorded: GetMatch views, PlayTile and
DrawTile replies, every WatchMatch message of a stream opened at the start, ExportMatch
records mid-match and at the end, and the errors of deliberately bad moves. Afterwards the
stored events are folded version by version to know, for every message, exactly which
tiles were hidden from its reader at the version it shows, and each message is checked
against that truth.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import uuid
from dataclasses import dataclass, field

import grpc
import pytest

from domino.match.v1 import match_service_pb2 as pb
from services.match.application import MatchApplication
from services.rules.tiles import HIGH, LOW, NAMES, tile as tile_id, tiles_in
from services.common.rule_options import value_pb
from tests.support.clock import Clock
from tests.support.errors import refusal
from tests.support.keys import auth

from .harness import running_service

PLAYERS = ("ann", "bob", "cat", "dan")
SERVICE = auth("matchmaking", "service")
TILE_NAME = re.compile(r"(?<![0-9])([0-6])-([0-6])(?![0-9])")


# ---- the truth, version by version --------------------------------------------------------


@dataclass(frozen=True)
class Truth:
    """What the store knows at one version of a match."""

    hands: tuple[int, ...] | None  # tile masks per seat; None before the first deal
    undrawn: tuple[int, ...]  # boneyard tiles not yet drawn, in order
    set_aside: int
    finished: bool
    round_in_play: bool = True  # False between a round's end and the next deal

    def own(self, seat: int) -> set[int]:
        return set(tiles_in(self.hands[seat])) if self.hands is not None and seat >= 0 else set()

    def hidden_from(self, seat: int) -> set[int]:
        """Every tile ``seat`` may not see: other hands, the undrawn boneyard, the set-aside tile."""
        if self.hands is None:
            return set()
        out = set(self.undrawn)
        for s, hand in enumerate(self.hands):
            if s != seat:
                out |= set(tiles_in(hand))
        if self.set_aside >= 0:
            out.add(self.set_aside)
        return out

    def places(self, seat: int) -> list[set[int]]:
        """The hidden tiles grouped by where they are (each other seat, the boneyard, set aside)."""
        groups = [set(tiles_in(h)) for s, h in enumerate(self.hands) if s != seat]
        groups.append(set(self.undrawn))
        groups.append({self.set_aside} if self.set_aside >= 0 else set())
        return [g for g in groups if g]


def truths(svc, match_id: str) -> dict[int, Truth]:
    out: dict[int, Truth] = {}
    folded = None
    for event in svc.app.events_after(uuid.UUID(match_id), 0):
        folded = event.mutate(folded)
        rnd = folded.state.round
        out[event.originator_version] = Truth(
            hands=tuple(rnd.hands) if rnd is not None else None,
            undrawn=tuple(rnd.boneyard[rnd.drawn:]) if rnd is not None else (),
            set_aside=rnd.set_aside if rnd is not None else -1,
            finished=folded.finished,
            round_in_play=rnd is not None and rnd.outcome is None,
        )
    return out


def current_truth(svc, match_id: str) -> tuple[int, Truth]:
    match = svc.app.get_match(uuid.UUID(match_id))
    rnd = match.state.round
    return match.version, Truth(tuple(rnd.hands), tuple(rnd.boneyard[rnd.drawn:]), rnd.set_aside, match.finished,
                                rnd.outcome is None)


# ---- what a message mentions --------------------------------------------------------------


def tiles_mentioned(msg) -> list[int]:
    """Every tile anywhere in a protobuf message (Tile and PlacedTile fields, at any depth)."""
    out: list[int] = []
    for fd, value in msg.ListFields():
        if fd.message_type is None:
            continue
        for item in (value if fd.is_repeated else [value]):
            if isinstance(item, pb.Tile):
                out.append(tile_id(item.low, item.high))
            elif isinstance(item, pb.PlacedTile):
                out.append(tile_id(item.left, item.right))
            else:
                out.extend(tiles_mentioned(item))
    return out


def tiles_named(text: str) -> set[int]:
    return {tile_id(int(a), int(b)) for a, b in TILE_NAME.findall(text)}


def assert_no_seed(seed_hex: str, *, text: str = "", data: bytes = b"", where: str = "") -> None:
    seed = bytes.fromhex(seed_hex)
    assert seed_hex.lower() not in text.lower(), f"{where}: the server seed is in the text"
    assert seed_hex.upper() not in text, f"{where}: the server seed is in the text"
    if data:
        assert seed_hex.lower().encode() not in data.lower(), f"{where}: the server seed is in the bytes"
        assert seed not in data, f"{where}: the raw server seed is in the bytes"


# ---- recording a whole match ----------------------------------------------------------------


@dataclass
class Received:
    where: str
    seat: int
    msg: object  # a protobuf response, or an error's details (str), or an export's JSON (str)
    version: int = 0  # the version it shows (errors, exports: the match version when it was made)
    named: frozenset = frozenset()  # tiles the caller itself named in the request


@dataclass
class PlayedMatch:
    svc: object
    match_id: str
    name: str
    players: tuple[str, ...]
    seed_hex: str
    received: list[Received] = field(default_factory=list)
    streams: dict[int, list] = field(default_factory=dict)
    truth: dict[int, Truth] = field(default_factory=dict)
    ended_at: int = 0  # version of MatchEnded
    moves: int = 0

    def of(self, kind: type) -> list[Received]:
        return [r for r in self.received if isinstance(r.msg, kind)]


def watch(svc, match_id: str, player: str, into: list) -> threading.Thread:
    stream = svc.stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id, from_version=0), metadata=auth(player),
                                 timeout=120)

    def read():
        for message in stream:
            into.append(message)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def bad_moves(svc, played: PlayedMatch, view_of: dict[str, pb.MatchView], actor: str) -> None:
    """Deliberately illegal commands whose errors must not tell the caller anything new."""
    match_id = played.match_id
    version, truth = current_truth(svc, match_id)
    seat = played.players.index(actor)

    def error(player: str, thunk, named=frozenset(), reason: str = "") -> str:
        with pytest.raises(grpc.RpcError) as caught:
            thunk()
        assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION, caught.value.details()
        assert refusal(caught.value).reason == reason, caught.value.details()  # whatever the tile named
        details = caught.value.details()
        played.received.append(Received("error", played.players.index(player), details, version, named))
        return details

    def play(player: str, t: int, request_id: str):
        request = pb.PlayTileRequest(match_id=match_id, request_id=request_id,
                                     tile=pb.Tile(low=LOW[t], high=HIGH[t]),
                                     end=pb.END_LEFT if view_of[player].HasField("left_end") else pb.END_UNSPECIFIED)
        return svc.stub.PlayTile(request, metadata=auth(player))

    # The player to act names a tile they do not hold, one from each place it could be:
    # the error must read the same wherever the tile is.
    shapes = set()
    for group in truth.places(seat):
        t = min(group)
        details = error(actor, lambda: play(actor, t, f"bad-{played.moves}-{t}"), frozenset({t}), "TILE_NOT_HELD")
        assert "does not hold" in details
        shapes.add(details.replace(NAMES[t], "T"))
    assert len(shapes) <= 1, f"the error depends on where the tile is: {shapes}"

    # A player out of turn plays their own tile and someone else's: both only hear whose turn it is.
    for other in played.players:
        if other == actor:
            continue
        o = played.players.index(other)
        mine = min(truth.own(o))
        theirs = min(truth.hidden_from(o))
        a = error(other, lambda: play(other, mine, f"oot-{played.moves}-{mine}"), frozenset({mine}), "NOT_YOUR_TURN")
        b = error(other, lambda: play(other, theirs, f"oot-{played.moves}-{theirs}"), frozenset({theirs}),
                  "NOT_YOUR_TURN")
        assert a.replace(NAMES[mine], "T") == b.replace(NAMES[theirs], "T"), (a, b)
        error(other, lambda: svc.stub.DrawTile(pb.DrawTileRequest(match_id=match_id, request_id=f"d-{played.moves}"),
                                               metadata=auth(other)), reason="NOT_YOUR_TURN")
        break  # one waiting player per turn is enough


def play_recorded_match(svc, name: str, seats: int, **options) -> PlayedMatch:
    players = PLAYERS[:seats]
    created = svc.create(players=players, request_id=f"secrecy-{name}", **options)
    match_id = created.match_id
    match = svc.app.get_match(uuid.UUID(match_id))
    played = PlayedMatch(svc, match_id, name, players, match.server_seed)
    played.received.append(Received("CreateMatch", -1, created, created.view.version))
    threads = []
    for seat, player in enumerate(players):
        played.streams[seat] = []
        threads.append(watch(svc, match_id, player, played.streams[seat]))

    while True:
        views = {}
        for seat, player in enumerate(players):
            view = svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth(player))
            played.received.append(Received("GetMatch", seat, view, view.view.version))
            views[player] = view.view
        public = svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=SERVICE)
        played.received.append(Received("GetMatch(service)", -1, public, public.view.version))
        if public.view.status == pb.MATCH_STATUS_ENDED:
            break
        actor = public.view.seats[public.view.turn].player_id
        if played.moves % 3 == 0:
            bad_moves(svc, played, views, actor)
        if played.moves % 10 == 5:
            for seat, player in enumerate(players):
                version = svc.app.get_match(uuid.UUID(match_id)).version
                record = svc.stub.ExportMatch(pb.ExportMatchRequest(match_id=match_id), metadata=auth(player))
                played.received.append(Received("ExportMatch", seat, record.record_json, version))
        move = views[actor].legal_moves[0]
        seat = players.index(actor)
        if move.kind == pb.MOVE_KIND_DRAW:
            reply = svc.stub.DrawTile(pb.DrawTileRequest(match_id=match_id, request_id=f"m{played.moves}"),
                                      metadata=auth(actor))
        else:
            reply = svc.stub.PlayTile(pb.PlayTileRequest(match_id=match_id, request_id=f"m{played.moves}",
                                                         tile=move.tile, end=move.end), metadata=auth(actor))
        played.received.append(Received(type(reply).__name__, seat, reply, reply.view.version))
        played.moves += 1
        assert played.moves < 3000, "the match does not end"

    for seat, player in enumerate(players):
        record = svc.stub.ExportMatch(pb.ExportMatchRequest(match_id=match_id), metadata=auth(player))
        played.received.append(Received("ExportMatch(end)", seat, record.record_json,
                                        svc.app.get_match(uuid.UUID(match_id)).version))
    for thread in threads:
        thread.join(30)
        assert not thread.is_alive(), "a WatchMatch stream did not end with the match"
    played.truth = truths(svc, match_id)
    played.ended_at = max(played.truth)
    assert not played.truth[played.ended_at - 1].finished and played.truth[played.ended_at].finished
    return played


# ---- the matches ----------------------------------------------------------------------------

MATCHES = {  # every family: the draw games with a boneyard, the block games without
    "draw-2": dict(variant="draw-2", seats=2, target=151),  # several rounds: a draw-2 round often scores 51
    "block-4 teams": dict(variant="block-4", seats=4, teams=True, target=51),
    "block-4 solo": dict(variant="block-4", seats=4, teams=False, target=51),
    "block-3": dict(variant="block-3", seats=3, target=51),
    "all-fives 3": dict(rules="all-fives", variant="", seats=3, target=100),
    "all-fives teams": dict(rules="all-fives", variant="", seats=4, teams=True, target=100),
    "goat koza 2": dict(rules="goat", variant="koza", seats=2,
                        rule_options=[pb.OptionSetting(name="fish", value=value_pb("one"))]),
    "goat gamezz teams": dict(rules="goat", variant="gamezz", seats=4, teams=True),
    "classic 3": dict(rules="classic", variant="", seats=3, target=100),
    "sports": dict(rules="sports", variant="", seats=4, target=100),
}
DRAW_GAMES = {"draw-2", "all-fives 3", "goat koza 2", "classic 3"}


@pytest.fixture(scope="module", params=list(MATCHES))
def played(request):
    seed = hashlib.sha256(f"test_secrecy {request.param}".encode()).digest()
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}, clock=Clock(), seed_source=lambda: seed)
    with running_service(app) as svc:
        yield play_recorded_match(svc, request.param, **MATCHES[request.param])


def messages(played: PlayedMatch):
    """(where, seat, protobuf, version) for every protobuf message received, streams included."""
    for r in played.received:
        if not isinstance(r.msg, str):
            yield r.where, r.seat, r.msg, r.version
    for seat, stream in played.streams.items():
        for message in stream:
            yield "WatchMatch", seat, message, message.view.version


def parts(msg, version: int) -> list[tuple[object, int]]:
    """A message split by the version each part shows. A DrawTile reply's tile is the one drawn
    at ``msg.version``; its view may be later (a draw can end a round, and the next is dealt)."""
    if isinstance(msg, pb.DrawTileResponse):
        return [(msg.view, version), (pb.MatchEvent(tile=msg.tile), msg.version)]
    return [(msg, version)]


# ---- the checks ---------------------------------------------------------------------------------


def test_the_match_was_played_to_the_end_with_every_kind_of_message(played):
    kinds = {r.where for r in played.received}
    assert {"GetMatch", "PlayTileResponse", "ExportMatch", "ExportMatch(end)", "error"} <= kinds
    if played.name in DRAW_GAMES:
        assert "DrawTileResponse" in kinds
    for seat, stream in played.streams.items():
        first, *rest = stream  # from version 0: the view as it stood, then every event after it
        assert not first.HasField("event") and first.view.your_seat == seat
        versions = [m.event.version for m in rest]
        assert versions == list(range(first.view.version + 1, played.ended_at + 1)), \
            f"seat {seat}'s stream skipped or repeated events"


def test_every_view_shows_exactly_the_callers_own_hand(played):
    for where, seat, msg, version in messages(played):
        view = msg.view
        shown = [tile_id(t.low, t.high) for t in view.hand]
        if seat < 0:
            assert shown == [], f"{where}: a view without a seat shows a hand"
            continue
        own = played.truth[version].own(seat)
        assert len(shown) == len(set(shown)) and set(shown) == own, f"{where} v{version} seat {seat}"


def test_no_message_mentions_a_tile_hidden_from_its_reader(played):
    """Hands of others (a teammate's too), the undrawn boneyard and the set-aside tile, in any field."""
    for where, seat, msg, version in messages(played):
        for part, at in parts(msg, version):
            leaked = set(tiles_mentioned(part)) & played.truth[at].hidden_from(seat)
            assert not leaked, f"{where} v{at} shows seat {seat} {[NAMES[t] for t in leaked]}"


def test_legal_moves_name_only_tiles_of_the_callers_hand(played):
    for where, seat, msg, version in messages(played):
        own = played.truth[version].own(seat)
        for move in msg.view.legal_moves:
            if move.kind == pb.MOVE_KIND_PLAY:
                assert tile_id(move.tile.low, move.tile.high) in own, where


def test_a_drawn_tile_is_named_only_to_the_drawer(played):
    for seat, stream in played.streams.items():
        for message in stream:
            if message.event.kind == pb.EVENT_KIND_TILE_DRAWN:
                assert message.event.HasField("tile") == (message.event.seat == seat), \
                    f"seat {seat} v{message.event.version}: a draw by seat {message.event.seat}"
    for r in played.of(pb.DrawTileResponse):
        drawn = tile_id(r.msg.tile.low, r.msg.tile.high)
        assert drawn in played.truth[r.msg.version].own(r.seat), f"v{r.msg.version}: {NAMES[drawn]}"


def test_the_public_view_shows_no_hand_and_no_hidden_tile(played):
    for r in played.received:
        if r.seat == -1:
            assert not r.msg.view.hand
            assert not set(tiles_mentioned(r.msg)) & played.truth[r.version].hidden_from(-1), r.where


def test_boneyard_is_only_ever_a_count(played):
    for where, seat, msg, version in messages(played):
        assert msg.view.boneyard_count == len(played.truth[version].undrawn), where


def test_the_server_seed_appears_in_no_message_before_the_match_ended(played):
    for where, seat, msg, version in messages(played):
        if version < played.ended_at:
            assert_no_seed(played.seed_hex, text=str(msg), data=msg.SerializeToString(), where=f"{where} v{version}")
    for r in played.received:
        if isinstance(r.msg, str) and r.version < played.ended_at:
            assert_no_seed(played.seed_hex, text=r.msg, where=r.where)


def test_error_messages_name_no_hidden_tile_but_the_one_the_caller_named(played):
    errors = [r for r in played.received if r.where == "error"]
    assert errors
    for r in errors:
        hidden = played.truth[r.version].hidden_from(r.seat) - r.named
        leaked = tiles_named(r.msg) & hidden
        assert not leaked, f"error to seat {r.seat}: {r.msg!r}"


def check_player_export(played: PlayedMatch, r: Received) -> None:
    data = json.loads(r.msg)
    seat = r.seat
    assert data["viewer_seat"] == seat
    truth = played.truth[r.version]
    in_play = len(data["rounds"]) - 1 if not truth.finished and truth.round_in_play else None
    for number, rnd in enumerate(data["rounds"]):
        where = f"{r.where} by seat {seat}, round {number}"
        for s, hand in enumerate(rnd["hands"]):
            if s == seat or number != in_play:  # an ended round's hands are laid down for all to see
                assert isinstance(hand, list), where
            else:
                assert type(hand) is int, f"{where}: seat {s}'s hand is {hand!r}"
        if played.name in DRAW_GAMES or "boneyard" in rnd:
            assert type(rnd["boneyard"]) is int, f"{where}: boneyard is {rnd['boneyard']!r}"
        else:
            assert not isinstance(rnd.get("boneyard"), list), where
        if number == in_play:
            assert rnd.get("set_aside") is None, f"{where}: set_aside is {rnd.get('set_aside')!r}"
        for action in rnd["actions"]:
            if "draw" in action:
                if action["seat"] == seat or number != in_play:
                    assert isinstance(action["draw"], str), where
                else:
                    assert action["draw"] is None, f"{where}: seat {action['seat']} drew {action['draw']!r}"
    # The round in play names no tile that is hidden from the reader now.
    if not truth.finished and data["rounds"]:
        leaked = tiles_named(json.dumps(data["rounds"][-1])) & truth.hidden_from(seat)
        assert not leaked, f"{r.where}: {[NAMES[t] for t in leaked]}"
    if not truth.finished:
        assert "server_seed" not in data.get("fairness", {}), r.where
        assert_no_seed(played.seed_hex, text=r.msg, where=r.where)


def test_a_players_export_mid_match_hides_other_hands_boneyard_draws_and_seed(played):
    exports = [r for r in played.received if r.where == "ExportMatch"]
    assert exports
    for r in exports:
        check_player_export(played, r)


def test_a_players_export_at_the_end_still_hides_the_undrawn_boneyard(played):
    exports = [r for r in played.received if r.where == "ExportMatch(end)"]
    assert len(exports) == len(played.players)
    for r in exports:
        check_player_export(played, r)


@pytest.mark.parametrize("played", ["block-4 teams"], indirect=True)
def test_the_teammates_hand_is_never_shown(played):
    assert played.svc.app.get_match(uuid.UUID(played.match_id)).teams
    for where, seat, msg, version in messages(played):
        if seat < 0:
            continue
        partner = (seat + 2) % 4
        partners = set(tiles_in(played.truth[version].hands[partner])) if played.truth[version].hands else set()
        assert not set(tiles_mentioned(msg)) & partners, f"{where} v{version}: seat {seat} sees seat {partner}'s tiles"
    for r in played.received:
        if r.where == "ExportMatch" and played.truth[r.version].round_in_play:
            partner = (r.seat + 2) % 4
            assert type(json.loads(r.msg)["rounds"][-1]["hands"][partner]) is int  # the round in play


# ---- another match; request-id keys ---------------------------------------------------------------


@pytest.fixture
def svc():
    seed = hashlib.sha256(b"test_secrecy").digest()
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}, clock=Clock(), seed_source=lambda: seed)
    with running_service(app) as service:
        yield service


def test_a_player_cannot_read_or_act_in_another_match(svc):
    svc.create(variant="draw-2", players=("ann", "bob"), request_id="anns-match")
    theirs = svc.create(variant="draw-2", players=("cat", "dan"), request_id="other-match").match_id
    calls = {
        "GetMatch": lambda md: svc.stub.GetMatch(pb.GetMatchRequest(match_id=theirs), metadata=md),
        "WatchMatch": lambda md: next(svc.stub.WatchMatch(pb.WatchMatchRequest(match_id=theirs), metadata=md)),
        "ExportMatch": lambda md: svc.stub.ExportMatch(pb.ExportMatchRequest(match_id=theirs), metadata=md),
        "PlayTile": lambda md: svc.stub.PlayTile(pb.PlayTileRequest(match_id=theirs, request_id="x",
                                                                    tile=pb.Tile(low=6, high=6)), metadata=md),
        "DrawTile": lambda md: svc.stub.DrawTile(pb.DrawTileRequest(match_id=theirs, request_id="x"), metadata=md),
        "ResumeSeat": lambda md: svc.stub.ResumeSeat(pb.ResumeSeatRequest(match_id=theirs), metadata=md),
    }
    seed_hex = svc.app.get_match(uuid.UUID(theirs)).server_seed
    for name, thunk in calls.items():
        with pytest.raises(grpc.RpcError) as caught:
            thunk(auth("ann"))
        assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED, name
        assert not tiles_named(caught.value.details()), f"{name}: {caught.value.details()!r}"
        assert_no_seed(seed_hex, text=caught.value.details(), where=name)


def test_a_request_id_cannot_replay_another_players_draw(svc):
    """Were request keys "<player>/<request_id>", ann's "x/q1" would be the key of "ann/x"'s
    "q1", and ann's DrawTile would be answered with the other player's draw, tile included
    (domainmodel.request_key keeps the two apart)."""
    players = ("ann", "ann/x")
    mid = svc.create(variant="draw-2", players=players, request_id="slashes").match_id
    for n in range(300):
        view = svc.stub.GetMatch(pb.GetMatchRequest(match_id=mid), metadata=SERVICE).view
        assert view.status != pb.MATCH_STATUS_ENDED, "ann/x never drew"
        actor = view.seats[view.turn].player_id
        move = svc.stub.GetMatch(pb.GetMatchRequest(match_id=mid), metadata=auth(actor)).view.legal_moves[0]
        if move.kind == pb.MOVE_KIND_DRAW:
            reply = svc.stub.DrawTile(pb.DrawTileRequest(match_id=mid, request_id=f"q{n}"), metadata=auth(actor))
            if actor == "ann/x":
                break
        else:
            svc.stub.PlayTile(pb.PlayTileRequest(match_id=mid, request_id=f"q{n}", tile=move.tile, end=move.end),
                              metadata=auth(actor))
    drawn = tile_id(reply.tile.low, reply.tile.high)
    before = svc.app.get_match(uuid.UUID(mid)).version
    try:
        answer = svc.stub.DrawTile(pb.DrawTileRequest(match_id=mid, request_id=f"x/q{n}"), metadata=auth("ann"))
    except grpc.RpcError as error:
        assert NAMES[drawn] not in (error.details() or "")
    else:
        shown = set(tiles_mentioned(answer))
        assert drawn not in shown, f"ann was told ann/x's draw {NAMES[drawn]}: {answer.tile}"
        assert answer.version > before, "ann's draw was answered with another player's outcome and not applied"


def test_a_players_export_shows_the_hands_of_ended_rounds_as_they_were_dealt(played):
    """At the table everyone lays down what they hold when a round ends: the export shows
    the hands of ended rounds, exactly as dealt, and never those of the round in play."""
    final = [r for r in played.received if r.where == "ExportMatch(end)"][0]
    data = json.loads(final.msg)
    auditor = json.loads(played.svc.stub.ExportMatch(pb.ExportMatchRequest(match_id=played.match_id),
                                                     metadata=auth("auditor", "auditor")).record_json)
    assert [rnd["hands"] for rnd in data["rounds"]] == [rnd["hands"] for rnd in auditor["rounds"]]
