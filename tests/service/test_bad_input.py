"""Every RPC rejects bad input with the right status code, says what is wrong, and stores nothing.

docs/design.md ("Errors") maps errors to codes: no/bad token -> UNAUTHENTICATED, malformed
request -> INVALID_ARGUMENT, unknown id -> NOT_FOUND, not yours -> PERMISSION_DENIED, rule
violation -> FAILED_PRECONDITION. Every refusal also carries the ErrorInfo reason a client
tells it apart by (domain "domino.match"), and a malformed request the BadRequest field.
Each test names one behaviour; each checks that the store holds exactly the events it held
before the call (per match and in the whole notification log).
"""

from __future__ import annotations

import hashlib
import uuid
from contextlib import contextmanager

import grpc
import pytest

from domino.match.v1 import match_service_pb2 as pb
from services.common.auth import KeyRing, mint_token
from services.common.rule_options import value_pb
from services.match.application import MatchApplication
from services.match.table_talk import GRACE_SECONDS, MAX_PHRASES_PER_PLAYER
from tests.support.clock import Clock
from tests.support.errors import refusal
from tests.support.keys import KEYS, auth

from .harness import running_service

PLAYERS = {"draw-2": ("ann", "bob"), "block-3": ("ann", "bob", "cat"), "block-4": ("ann", "bob", "cat", "dan")}
SERVICE = auth("matchmaking", "service")
AUDITOR = auth("auditor-1", "auditor")
RPCS_WITH_MATCH_ID = ("GetMatch", "PlayTile", "DrawTile", "ResumeSeat", "WatchMatch", "ExportMatch", "LeaveMatch",
                      "SubmitSeed", "SendChat")


@pytest.fixture
def svc():
    # A fixed server seed makes every deal, and so every test, the same on each run.
    seed = hashlib.sha256(b"test_bad_input").digest()
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}, clock=Clock(), seed_source=lambda: seed)
    with running_service(app) as service:
        yield service


@pytest.fixture
def match_id(svc) -> str:
    return svc.create(variant="draw-2", players=PLAYERS["draw-2"], request_id="the-match").match_id


# ---- helpers -----------------------------------------------------------------------------


def call(svc, rpc: str, match_id: str, metadata, **fields):
    """One call of ``rpc`` with an otherwise plausible request; streams read their first message."""
    stub = svc.stub
    if rpc == "GetMatch":
        return stub.GetMatch(pb.GetMatchRequest(match_id=match_id, **fields), metadata=metadata)
    if rpc == "PlayTile":
        fields.setdefault("tile", pb.Tile(low=6, high=6))
        return stub.PlayTile(pb.PlayTileRequest(match_id=match_id, request_id=fields.pop("request_id", "bad-1"),
                                                **fields), metadata=metadata)
    if rpc == "DrawTile":
        return stub.DrawTile(pb.DrawTileRequest(match_id=match_id, request_id=fields.pop("request_id", "bad-1")),
                             metadata=metadata)
    if rpc == "ResumeSeat":
        return stub.ResumeSeat(pb.ResumeSeatRequest(match_id=match_id), metadata=metadata)
    if rpc == "WatchMatch":
        stream = stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id, **fields), metadata=metadata, timeout=10)
        try:
            return next(stream)
        finally:
            stream.cancel()
    if rpc == "ExportMatch":
        return stub.ExportMatch(pb.ExportMatchRequest(match_id=match_id), metadata=metadata)
    if rpc == "LeaveMatch":
        return stub.LeaveMatch(pb.LeaveMatchRequest(match_id=match_id), metadata=metadata)
    if rpc == "SubmitSeed":
        return stub.SubmitSeed(pb.SubmitSeedRequest(match_id=match_id, seed=fields.get("seed", "s")), metadata=metadata)
    if rpc == "SendChat":
        return stub.SendChat(pb.SendChatRequest(match_id=match_id,
                                                chat_phrase=fields.get("chat_phrase", pb.CHAT_PHRASE_HELLO)),
                             metadata=metadata)
    raise AssertionError(rpc)


def setting(name: str, value) -> pb.OptionSetting:
    return pb.OptionSetting(name=name, value=value_pb(value))


def rejected(code: grpc.StatusCode, thunk, *words: str, reason: str | set[str], field: str | None = None) -> str:
    """Run ``thunk``; it must fail with ``code``, the ErrorInfo ``reason`` (or one of them), a
    BadRequest naming ``field`` where one is given (none otherwise), and a message naming
    every one of ``words``."""
    with pytest.raises(grpc.RpcError) as caught:
        thunk()
    error = caught.value
    assert error.code() == code, f"{error.code()}: {error.details()}"
    said = refusal(error)
    assert said.reason in (reason if isinstance(reason, set) else {reason}), f"{said.reason}: {said.message}"
    assert said.domain == "domino.match"
    assert said.fields == ((field,) if field else ()), said.fields
    details = error.details() or ""
    for word in words:
        assert word.lower() in details.lower(), f"{word!r} not in {details!r}"
    return details


def stored_events(svc) -> int:
    return svc.app.recorder.max_notification_id() or 0


@contextmanager
def nothing_appended(svc, match_id: str | None = None):
    before_all = stored_events(svc)
    before = svc.app.get_match(uuid.UUID(match_id)).version if match_id else None
    yield
    assert stored_events(svc) == before_all, "the call stored events"
    if match_id:
        assert svc.app.get_match(uuid.UUID(match_id)).version == before


def public_view(svc, match_id: str) -> pb.MatchView:
    return svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=SERVICE).view


def acting(svc, match_id: str) -> tuple[str, pb.MatchView]:
    """The player whose turn it is, and their own view."""
    view = public_view(svc, match_id)
    player = view.seats[view.turn].player_id
    return player, svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth(player)).view


def waiting(svc, match_id: str) -> tuple[str, pb.MatchView]:
    """A seated player whose turn it is not, and their own view."""
    view = public_view(svc, match_id)
    player = view.seats[(view.turn + 1) % len(view.seats)].player_id
    return player, svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth(player)).view


def key(tile: pb.Tile) -> tuple[int, int]:
    return (min(tile.low, tile.high), max(tile.low, tile.high))


def take_first_move(svc, match_id: str, request_id: str):
    player, view = acting(svc, match_id)
    move = view.legal_moves[0]
    if move.kind == pb.MOVE_KIND_DRAW:
        return svc.stub.DrawTile(pb.DrawTileRequest(match_id=match_id, request_id=request_id), metadata=auth(player))
    return svc.stub.PlayTile(pb.PlayTileRequest(match_id=match_id, request_id=request_id, tile=move.tile,
                                                end=move.end), metadata=auth(player))


def play_until(svc, match_id: str, done, limit: int = 500) -> None:
    for n in range(limit):
        if done():
            return
        take_first_move(svc, match_id, f"step-{n}")
    raise AssertionError("the situation never came up")


def play_to_the_end(svc, match_id: str) -> None:
    play_until(svc, match_id, lambda: public_view(svc, match_id).status == pb.MATCH_STATUS_ENDED, limit=2000)


# ---- authentication ----------------------------------------------------------------------

BAD_CREDENTIALS = {
    "no token": ((), "missing", "TOKEN_MISSING"),
    "no bearer scheme": ((("authorization", "Token abc.def.ghi"),), "Bearer <token>", "TOKEN_INVALID"),
    "bearer without a token": ((("authorization", "Bearer"),), "Bearer <token>", "TOKEN_INVALID"),
    "not a jwt": ((("authorization", "Bearer not-a-jwt"),), "not valid", "TOKEN_INVALID"),
    "expired": ((("authorization", f"Bearer {mint_token('ann', KEYS, ttl_seconds=-10)}"),), "expired",
                "TOKEN_EXPIRED"),
    "expired long ago": ((("authorization", f"Bearer {mint_token('ann', KEYS, now=1_000_000_000)}"),), "expired",
                         "TOKEN_EXPIRED"),
    "another secret": ((("authorization", f"Bearer {mint_token('ann', KeyRing.generate())}"),),
                       "signature", "TOKEN_INVALID"),
}


@pytest.mark.parametrize("rpc", RPCS_WITH_MATCH_ID)
@pytest.mark.parametrize("credentials", BAD_CREDENTIALS, ids=str)
def test_bad_credentials_are_unauthenticated_and_append_nothing(svc, match_id, rpc, credentials):
    metadata, words, reason = BAD_CREDENTIALS[credentials]
    with nothing_appended(svc, match_id):
        details = rejected(grpc.StatusCode.UNAUTHENTICATED, lambda: call(svc, rpc, match_id, metadata), words,
                           reason=reason)
    assert "abc.def.ghi" not in details and "not-a-jwt" not in details  # the token is never echoed


@pytest.mark.parametrize("credentials", BAD_CREDENTIALS, ids=str)
def test_create_match_with_bad_credentials_is_unauthenticated_and_creates_nothing(svc, credentials):
    metadata, words, reason = BAD_CREDENTIALS[credentials]
    request = pb.CreateMatchRequest(request_id="c-1", rules="egyptian", variant="draw-2",
                                    seats=[pb.SeatSpec(player_id="ann"), pb.SeatSpec(player_id="bob")])
    with nothing_appended(svc):
        rejected(grpc.StatusCode.UNAUTHENTICATED, lambda: svc.stub.CreateMatch(request, metadata=metadata), words,
                 reason=reason)


def test_unauthenticated_beats_a_malformed_match_id(svc):
    """No information about the request is given to a caller without credentials."""
    rejected(grpc.StatusCode.UNAUTHENTICATED, lambda: call(svc, "GetMatch", "not-a-uuid", ()), "missing",
             reason="TOKEN_MISSING")


# ---- match ids -----------------------------------------------------------------------------


@pytest.mark.parametrize("rpc", RPCS_WITH_MATCH_ID)
def test_missing_match_id_is_invalid_argument(svc, match_id, rpc):
    with nothing_appended(svc, match_id):
        rejected(grpc.StatusCode.INVALID_ARGUMENT, lambda: call(svc, rpc, "", auth("ann")), "match_id", "required",
                 reason="INVALID_REQUEST", field="match_id")


@pytest.mark.parametrize("rpc", RPCS_WITH_MATCH_ID)
@pytest.mark.parametrize("bad_id", ["nope", "1234", "5b0f7a52-6a43-4d3e-9f0e-2f4c3a1d9e1z"])
def test_match_id_that_is_not_a_uuid_is_invalid_argument(svc, match_id, rpc, bad_id):
    with nothing_appended(svc, match_id):
        rejected(grpc.StatusCode.INVALID_ARGUMENT, lambda: call(svc, rpc, bad_id, auth("ann")),
                 "not a match id", bad_id, reason="INVALID_REQUEST", field="match_id")


@pytest.mark.parametrize("rpc", RPCS_WITH_MATCH_ID)
def test_unknown_match_id_is_not_found(svc, match_id, rpc):
    unknown = str(uuid.uuid4())
    with nothing_appended(svc, match_id):
        rejected(grpc.StatusCode.NOT_FOUND, lambda: call(svc, rpc, unknown, auth("ann")), "no match", unknown,
                 reason="MATCH_NOT_FOUND")


# ---- who may do what -------------------------------------------------------------------------


@pytest.mark.parametrize("rpc", RPCS_WITH_MATCH_ID)
def test_player_without_a_seat_is_permission_denied(svc, match_id, rpc):
    with nothing_appended(svc, match_id):
        rejected(grpc.StatusCode.PERMISSION_DENIED, lambda: call(svc, rpc, match_id, auth("zed")), "zed", "no seat",
                 reason="NOT_WATCHABLE" if rpc == "WatchMatch" else "NOT_SEATED")


@pytest.mark.parametrize("role", ["player", "auditor"])
def test_create_match_by_a_non_service_is_permission_denied(svc, role):
    request = pb.CreateMatchRequest(request_id="c-1", rules="egyptian", variant="draw-2",
                                    seats=[pb.SeatSpec(player_id="ann"), pb.SeatSpec(player_id="bob")])
    with nothing_appended(svc):
        rejected(grpc.StatusCode.PERMISSION_DENIED, lambda: svc.stub.CreateMatch(request, metadata=auth("ann", role)),
                 "only services", reason="WRONG_CALLER")


def test_export_by_an_auditor_before_the_match_ended_is_failed_precondition(svc, match_id):
    with nothing_appended(svc, match_id):
        rejected(grpc.StatusCode.FAILED_PRECONDITION, lambda: call(svc, "ExportMatch", match_id, AUDITOR), "ended",
                 reason="MATCH_NOT_ENDED")


def test_export_by_a_service_is_permission_denied(svc, match_id):
    with nothing_appended(svc, match_id):
        rejected(grpc.StatusCode.PERMISSION_DENIED, lambda: call(svc, "ExportMatch", match_id, SERVICE),
                 "players and auditors", reason="WRONG_CALLER")


@pytest.mark.parametrize("rpc", ["PlayTile", "DrawTile", "LeaveMatch", "SubmitSeed", "SendChat"])
def test_a_service_cannot_act_for_a_seat(svc, match_id, rpc):
    with nothing_appended(svc, match_id):
        rejected(grpc.StatusCode.PERMISSION_DENIED, lambda: call(svc, rpc, match_id, SERVICE), "cannot act for a seat",
                 reason="WRONG_CALLER")


# ---- CreateMatch options ---------------------------------------------------------------------

BAD_CREATE = {
    "unknown rules": (dict(rules="chess"), ["unknown rules", "chess"], "INVALID_REQUEST", "rules"),
    "unknown variant": (dict(variant="draw-9"), ["egyptian has no variant", "draw-9"], "INVALID_OPTIONS", "variant"),
    "a variant for a family without variants": (dict(rules="classic", variant="x"), ["classic has no variant"],
                                                "INVALID_OPTIONS", "variant"),
    "target 50": (dict(target=50), ["target 50", "51, 71, 101"], "INVALID_OPTIONS", "target"),
    "target 0": (dict(target=0), ["target 0"], "INVALID_OPTIONS", "target"),
    "target -51": (dict(target=-51), ["target -51"], "INVALID_OPTIONS", "target"),
    "turn timer 31": (dict(turn_timer_seconds=31), ["turn timer"], "INVALID_OPTIONS", "turn_timer_seconds"),
    "turn timer -30": (dict(turn_timer_seconds=-30), ["turn timer"], "INVALID_OPTIONS", "turn_timer_seconds"),
    "turn timer 120": (dict(turn_timer_seconds=120), ["turn timer"], "INVALID_OPTIONS", "turn_timer_seconds"),
    "three seats for draw-2": (dict(players=("ann", "bob", "cat")), ["played by 2 players", "not 3"],
                               "INVALID_OPTIONS", "seats"),
    "one seat for draw-2": (dict(players=("ann",)), ["played by 2 players", "not 1"], "INVALID_OPTIONS", "seats"),
    "no seats": (dict(players=()), ["played by 2 players", "not 0"], "INVALID_OPTIONS", "seats"),
    "three seats for block-4": (dict(variant="block-4", players=("ann", "bob", "cat")),
                                ["played by 4 players", "not 3"], "INVALID_OPTIONS", "seats"),
    "five seats": (dict(players=("ann", "bob", "cat", "dan", "eve")), ["at most 4 seats"], "INVALID_REQUEST",
                   "seats"),
    "duplicate player ids": (dict(players=("ann", "ann")), ["distinct"], "INVALID_REQUEST", "seats"),
    "empty player id": (dict(players=("ann", "")), ["non-empty"], "INVALID_REQUEST", "seats"),
    "missing request_id": (dict(request_id=""), ["request_id", "required"], "INVALID_REQUEST", "request_id"),
    "seed wait too long": (dict(seed_wait_seconds=61), ["seed_wait_seconds"], "INVALID_REQUEST", "seed_wait_seconds"),
    "teams for draw-2": (dict(teams=True), ["not played in teams"], "INVALID_OPTIONS", "teams"),
    "teams for block-3": (dict(variant="block-3", players=PLAYERS["block-3"], teams=True), ["not played in teams"],
                          "INVALID_OPTIONS", "teams"),
    "sports solo": (dict(rules="sports", variant="", players=PLAYERS["block-4"], teams=False), ["not played solo"],
                    "INVALID_OPTIONS", "teams"),
    # Host options as rule_options: the family's own rules name the option and what it allows.
    "rule option outside its values": (dict(rules="goat", variant="koza", rule_options=[setting("fish", "two")]),
                                       ["fish", "all, one", "two"], "INVALID_OPTIONS", "rule_options"),
    "rule option of another type": (dict(rules="goat", variant="koza", rule_options=[setting("zero_zero", "10")]),
                                    ["zero_zero", "0, 10, 25"], "INVALID_OPTIONS", "rule_options"),
    "rule option of another family": (dict(rules="goat", variant="koza", rule_options=[setting("domino_bonus", 20)]),
                                      ["domino_bonus", "zero_zero, redeal, remembered, fish"], "INVALID_OPTIONS",
                                      "rule_options"),
    "rule option for a family without options": (dict(rule_options=[setting("fish", "one")]), ["no options"],
                                                 "INVALID_OPTIONS", "rule_options"),
    "rule option named twice": (dict(rules="goat", variant="koza",
                                     rule_options=[setting("fish", "one"), setting("fish", "one")]), ["fish", "twice"],
                                "INVALID_OPTIONS", "rule_options"),
    "rule option without a value": (dict(rules="goat", variant="koza", rule_options=[pb.OptionSetting(name="fish")]),
                                    ["fish", "no value"], "INVALID_OPTIONS", "rule_options"),
    "rule option without a name": (dict(rules="goat", variant="koza", rule_options=[pb.OptionSetting(
        value=pb.OptionValue(string_value="one"))]), ["without a name"], "INVALID_OPTIONS", "rule_options"),
}


@pytest.mark.parametrize("case", BAD_CREATE, ids=str)
def test_create_match_with_bad_options_is_invalid_argument_and_creates_nothing(svc, case):
    options, words, reason, field = BAD_CREATE[case]
    options = dict(options)
    players = options.pop("players", PLAYERS["draw-2"])
    fields = dict(request_id="c-1", rules="egyptian", variant="draw-2")
    fields.update(options)
    request = pb.CreateMatchRequest(seats=[pb.SeatSpec(player_id=p) for p in players], **fields)
    with nothing_appended(svc):
        rejected(grpc.StatusCode.INVALID_ARGUMENT, lambda: svc.stub.CreateMatch(request, metadata=SERVICE), *words,
                 reason=reason, field=field)


def test_a_malformed_field_is_named_before_an_option_the_family_does_not_offer(svc):
    """The first error named is the real one: an empty request id, not the target."""
    request = pb.CreateMatchRequest(request_id="", rules="egyptian", variant="draw-2", target=50,
                                    seats=[pb.SeatSpec(player_id=p) for p in ("ann", "bob", "cat")])
    with nothing_appended(svc):
        rejected(grpc.StatusCode.INVALID_ARGUMENT, lambda: svc.stub.CreateMatch(request, metadata=SERVICE),
                 "request_id", reason="INVALID_REQUEST", field="request_id")


def test_a_bad_seat_count_is_named_as_the_seats_not_the_variant(svc):
    request = pb.CreateMatchRequest(request_id="c-1", rules="egyptian", variant="block-4", target=50,
                                    seats=[pb.SeatSpec(player_id=p) for p in ("ann", "bob")])
    with nothing_appended(svc):
        rejected(grpc.StatusCode.INVALID_ARGUMENT, lambda: svc.stub.CreateMatch(request, metadata=SERVICE),
                 "played by 4 players", reason="INVALID_OPTIONS", field="seats")


def test_create_match_takes_rule_options_and_its_view_carries_every_option_played(svc):
    request = pb.CreateMatchRequest(request_id="c-options", rules="goat", variant="koza",
                                    seats=[pb.SeatSpec(player_id=p) for p in PLAYERS["draw-2"]],
                                    rule_options=[setting("fish", "one"), setting("zero_zero", 25)])
    view = svc.stub.CreateMatch(request, metadata=SERVICE).view
    assert list(view.rule_options) == [setting("zero_zero", 25), setting("redeal", True), setting("remembered", True),
                                       setting("fish", "one")]


def test_a_family_without_options_has_none_in_its_view(svc, match_id):
    assert not public_view(svc, match_id).rule_options


def test_create_match_retry_with_the_same_request_id_returns_the_same_match_and_appends_nothing(svc, match_id):
    with nothing_appended(svc, match_id):
        again = svc.create(variant="draw-2", players=PLAYERS["draw-2"], request_id="the-match")
    assert again.match_id == match_id


def test_create_match_reusing_a_request_id_for_different_seats_is_invalid_argument(svc, match_id):
    """Known bug: the application answers with the first match (for ann and bob) instead."""
    with nothing_appended(svc, match_id):
        rejected(grpc.StatusCode.INVALID_ARGUMENT,
                 lambda: svc.create(variant="block-4", players=("cat", "dan", "eve", "fay"), request_id="the-match"),
                 "request_id", reason="REQUEST_ID_REUSED", field="request_id")


# ---- PlayTile / DrawTile malformed requests ---------------------------------------------------


def test_play_without_request_id_is_invalid_argument_and_appends_nothing(svc, match_id):
    player, view = acting(svc, match_id)
    move = view.legal_moves[0]
    with nothing_appended(svc, match_id):
        rejected(grpc.StatusCode.INVALID_ARGUMENT,
                 lambda: call(svc, "PlayTile", match_id, auth(player), request_id="", tile=move.tile, end=move.end),
                 "request_id", "required", reason="INVALID_REQUEST", field="request_id")


def test_play_with_an_overlong_request_id_is_invalid_argument_and_appends_nothing(svc, match_id):
    player, view = acting(svc, match_id)
    move = view.legal_moves[0]
    with nothing_appended(svc, match_id):
        rejected(grpc.StatusCode.INVALID_ARGUMENT,
                 lambda: call(svc, "PlayTile", match_id, auth(player), request_id="r" * 201, tile=move.tile,
                              end=move.end), "request_id", "200", reason="INVALID_REQUEST", field="request_id")


def test_draw_without_request_id_is_invalid_argument_and_appends_nothing(svc, match_id):
    player, _ = acting(svc, match_id)
    with nothing_appended(svc, match_id):
        rejected(grpc.StatusCode.INVALID_ARGUMENT, lambda: call(svc, "DrawTile", match_id, auth(player), request_id=""),
                 "request_id", "required", reason="INVALID_REQUEST", field="request_id")


def test_play_without_a_tile_is_invalid_argument_and_appends_nothing(svc, match_id):
    player, _ = acting(svc, match_id)
    request = pb.PlayTileRequest(match_id=match_id, request_id="r-1")
    with nothing_appended(svc, match_id):
        rejected(grpc.StatusCode.INVALID_ARGUMENT, lambda: svc.stub.PlayTile(request, metadata=auth(player)),
                 "tile is required", reason="INVALID_REQUEST", field="tile")


def test_a_play_without_a_request_id_nor_a_tile_names_the_request_id_first(svc, match_id):
    player, _ = acting(svc, match_id)
    request = pb.PlayTileRequest(match_id=match_id)
    with nothing_appended(svc, match_id):
        rejected(grpc.StatusCode.INVALID_ARGUMENT, lambda: svc.stub.PlayTile(request, metadata=auth(player)),
                 "request_id", reason="INVALID_REQUEST", field="request_id")


@pytest.mark.parametrize("low,high", [(7, 1), (1, 7), (7, 7), (6, 100)])
def test_play_of_a_tile_that_does_not_exist_is_invalid_argument_and_appends_nothing(svc, match_id, low, high):
    player, _ = acting(svc, match_id)
    with nothing_appended(svc, match_id):
        rejected(grpc.StatusCode.INVALID_ARGUMENT,
                 lambda: call(svc, "PlayTile", match_id, auth(player), tile=pb.Tile(low=low, high=high)),
                 f"{low}-{high}", "not a double-six tile", reason="INVALID_REQUEST", field="tile")


@pytest.mark.parametrize("end", [5, 7, 1000])
def test_play_with_an_unknown_end_is_invalid_argument_and_appends_nothing(svc, match_id, end):
    player, view = acting(svc, match_id)
    move = view.legal_moves[0]
    with nothing_appended(svc, match_id):
        rejected(grpc.StatusCode.INVALID_ARGUMENT,
                 lambda: call(svc, "PlayTile", match_id, auth(player), tile=move.tile, end=end),
                 "unknown end", str(end), reason="INVALID_REQUEST", field="end")


# ---- rule violations ---------------------------------------------------------------------------


def test_play_out_of_turn_is_failed_precondition_and_appends_nothing(svc, match_id):
    player, view = waiting(svc, match_id)
    with nothing_appended(svc, match_id):
        rejected(grpc.StatusCode.FAILED_PRECONDITION,
                 lambda: call(svc, "PlayTile", match_id, auth(player), tile=view.hand[0]), "turn",
                 reason="NOT_YOUR_TURN")


def test_draw_out_of_turn_is_failed_precondition_and_appends_nothing(svc, match_id):
    player, _ = waiting(svc, match_id)
    with nothing_appended(svc, match_id):
        rejected(grpc.StatusCode.FAILED_PRECONDITION, lambda: call(svc, "DrawTile", match_id, auth(player)), "turn",
                 reason="NOT_YOUR_TURN")


def test_play_of_a_tile_not_held_is_failed_precondition_and_appends_nothing(svc, match_id):
    player, view = acting(svc, match_id)
    _, other = waiting(svc, match_id)
    tile = other.hand[0]  # the opponent's tile, so certainly not the player's
    with nothing_appended(svc, match_id):
        rejected(grpc.StatusCode.FAILED_PRECONDITION,
                 lambda: call(svc, "PlayTile", match_id, auth(player), tile=tile), "does not hold",
                 reason="TILE_NOT_HELD")


def test_play_of_a_tile_that_does_not_fit_is_failed_precondition_and_appends_nothing(svc, match_id):
    def misfit():
        player, view = acting(svc, match_id)
        playable = {key(m.tile) for m in view.legal_moves if m.kind == pb.MOVE_KIND_PLAY}
        if not view.HasField("left_end"):
            return None
        return next((t for t in view.hand if key(t) not in playable), None)

    play_until(svc, match_id, lambda: misfit() is not None)
    player, _ = acting(svc, match_id)
    tile = misfit()
    with nothing_appended(svc, match_id):
        rejected(grpc.StatusCode.FAILED_PRECONDITION,
                 lambda: call(svc, "PlayTile", match_id, auth(player), tile=tile, end=pb.END_LEFT), "does not fit",
                 reason="TILE_DOES_NOT_FIT")
        rejected(grpc.StatusCode.FAILED_PRECONDITION,
                 lambda: call(svc, "PlayTile", match_id, auth(player), tile=tile, end=pb.END_RIGHT), "does not fit",
                 reason="TILE_DOES_NOT_FIT")


def test_play_after_the_first_without_an_end_is_failed_precondition_and_appends_nothing(svc, match_id):
    take_first_move(svc, match_id, "opening")
    play_until(svc, match_id, lambda: any(m.kind == pb.MOVE_KIND_PLAY for m in acting(svc, match_id)[1].legal_moves))
    player, view = acting(svc, match_id)
    move = next(m for m in view.legal_moves if m.kind == pb.MOVE_KIND_PLAY)
    with nothing_appended(svc, match_id):
        rejected(grpc.StatusCode.FAILED_PRECONDITION,
                 lambda: call(svc, "PlayTile", match_id, auth(player), tile=move.tile, end=pb.END_UNSPECIFIED),
                 "which end", reason="END_REQUIRED")


def test_draw_while_able_to_play_is_failed_precondition_and_appends_nothing(svc, match_id):
    player, view = acting(svc, match_id)
    assert any(m.kind == pb.MOVE_KIND_PLAY for m in view.legal_moves)
    with nothing_appended(svc, match_id):
        rejected(grpc.StatusCode.FAILED_PRECONDITION, lambda: call(svc, "DrawTile", match_id, auth(player)),
                 "must play", reason="MUST_PLAY")


def test_draw_in_a_block_game_is_failed_precondition_and_appends_nothing(svc):
    mid = svc.create(variant="block-4", players=PLAYERS["block-4"], request_id="block").match_id
    take_first_move(svc, mid, "opening")
    for player in PLAYERS["block-4"]:
        with nothing_appended(svc, mid):
            details = rejected(grpc.StatusCode.FAILED_PRECONDITION, lambda: call(svc, "DrawTile", mid, auth(player)),
                               reason={"CANNOT_DRAW", "MUST_PLAY", "NOT_YOUR_TURN"})
        assert any(w in details for w in ("no boneyard", "must play", "turn")), details


@pytest.mark.parametrize("rpc", ["PlayTile", "DrawTile"])
def test_acting_after_the_match_has_ended_is_failed_precondition_and_appends_nothing(svc, rpc):
    mid = svc.create(variant="draw-2", players=PLAYERS["draw-2"], request_id="short", target=51).match_id
    play_to_the_end(svc, mid)
    for player in PLAYERS["draw-2"]:
        with nothing_appended(svc, mid):
            rejected(grpc.StatusCode.FAILED_PRECONDITION,
                     lambda: call(svc, rpc, mid, auth(player), request_id="after-the-end"), "match is over",
                     reason="MATCH_ENDED")


# ---- request ids ----------------------------------------------------------------------------


def test_play_retry_with_the_same_request_id_returns_the_same_version_and_appends_nothing(svc, match_id):
    player, view = acting(svc, match_id)
    move = view.legal_moves[0]
    first = svc.stub.PlayTile(pb.PlayTileRequest(match_id=match_id, request_id="once", tile=move.tile, end=move.end),
                              metadata=auth(player))
    with nothing_appended(svc, match_id):
        again = svc.stub.PlayTile(pb.PlayTileRequest(match_id=match_id, request_id="once", tile=move.tile,
                                                     end=move.end), metadata=auth(player))
    assert again.version == first.version
    assert again.view.version == svc.app.get_match(uuid.UUID(match_id)).version


def test_draw_retry_with_the_same_request_id_returns_the_same_tile_and_appends_nothing(svc, match_id):
    play_until(svc, match_id, lambda: acting(svc, match_id)[1].legal_moves[0].kind == pb.MOVE_KIND_DRAW)
    player, _ = acting(svc, match_id)
    first = svc.stub.DrawTile(pb.DrawTileRequest(match_id=match_id, request_id="draw-once"), metadata=auth(player))
    with nothing_appended(svc, match_id):
        again = svc.stub.DrawTile(pb.DrawTileRequest(match_id=match_id, request_id="draw-once"), metadata=auth(player))
    assert again.version == first.version
    assert key(again.tile) == key(first.tile)


def test_the_same_request_id_from_another_player_is_a_new_command(svc, match_id):
    """Request ids are per player: bob's "r-1" is not ann's "r-1"."""
    player, view = acting(svc, match_id)
    move = view.legal_moves[0]
    first = svc.stub.PlayTile(pb.PlayTileRequest(match_id=match_id, request_id="r-1", tile=move.tile, end=move.end),
                              metadata=auth(player))
    play_until(svc, match_id, lambda: acting(svc, match_id)[0] != player)
    other, view = acting(svc, match_id)
    move = view.legal_moves[0]
    if move.kind == pb.MOVE_KIND_DRAW:
        second = svc.stub.DrawTile(pb.DrawTileRequest(match_id=match_id, request_id="r-1"), metadata=auth(other))
    else:
        second = svc.stub.PlayTile(pb.PlayTileRequest(match_id=match_id, request_id="r-1", tile=move.tile,
                                                      end=move.end), metadata=auth(other))
    assert second.version > first.version


def test_play_reusing_a_request_id_for_a_different_tile_is_invalid_argument(svc, match_id):
    """Known bug: the retry path answers with the first outcome and never compares the command."""
    player, view = acting(svc, match_id)
    move = view.legal_moves[0]
    svc.stub.PlayTile(pb.PlayTileRequest(match_id=match_id, request_id="used", tile=move.tile, end=move.end),
                      metadata=auth(player))
    play_until(svc, match_id, lambda: acting(svc, match_id)[0] == player
               and any(m.kind == pb.MOVE_KIND_PLAY for m in acting(svc, match_id)[1].legal_moves))
    _, view = acting(svc, match_id)
    move = next(m for m in view.legal_moves if m.kind == pb.MOVE_KIND_PLAY)
    with nothing_appended(svc, match_id):
        rejected(grpc.StatusCode.INVALID_ARGUMENT,
                 lambda: svc.stub.PlayTile(pb.PlayTileRequest(match_id=match_id, request_id="used", tile=move.tile,
                                                              end=move.end), metadata=auth(player)),
                 "request_id", reason="REQUEST_ID_REUSED", field="request_id")


def test_draw_reusing_the_request_id_of_a_play_is_invalid_argument(svc, match_id):
    """Known bug: a DrawTile with a PlayTile's request_id is answered as if it were that play."""
    player, view = acting(svc, match_id)
    move = view.legal_moves[0]
    svc.stub.PlayTile(pb.PlayTileRequest(match_id=match_id, request_id="used", tile=move.tile, end=move.end),
                      metadata=auth(player))
    with nothing_appended(svc, match_id):
        rejected(grpc.StatusCode.INVALID_ARGUMENT,
                 lambda: svc.stub.DrawTile(pb.DrawTileRequest(match_id=match_id, request_id="used"),
                                           metadata=auth(player)),
                 "request_id", reason="REQUEST_ID_REUSED", field="request_id")


# ---- WatchMatch --------------------------------------------------------------------------------


VERSION_FIELDS = [("WatchMatch", "from_version"), ("GetMatch", "min_version")]  # "from" / "at least" a version


@pytest.mark.parametrize("rpc,field", VERSION_FIELDS)
def test_a_version_beyond_the_match_is_invalid_argument(svc, match_id, rpc, field):
    version = svc.app.get_match(uuid.UUID(match_id)).version
    with nothing_appended(svc, match_id):
        rejected(grpc.StatusCode.INVALID_ARGUMENT,
                 lambda: call(svc, rpc, match_id, auth("ann"), **{field: version + 1}),
                 f"{field} {version + 1}", f"version {version}", reason="INVALID_REQUEST", field=field)


@pytest.mark.parametrize("rpc,field", VERSION_FIELDS)
@pytest.mark.parametrize("bad", [-1, -(2**62)])
def test_a_negative_version_is_invalid_argument(svc, match_id, rpc, field, bad):
    with nothing_appended(svc, match_id):
        rejected(grpc.StatusCode.INVALID_ARGUMENT, lambda: call(svc, rpc, match_id, auth("ann"), **{field: bad}),
                 "negative", reason="INVALID_REQUEST", field=field)


def test_watch_from_the_current_version_is_accepted(svc, match_id):
    """The boundary: a client that already has everything may wait for what comes next."""
    version = svc.app.get_match(uuid.UUID(match_id)).version
    stream = svc.stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id, from_version=version), metadata=auth("ann"))
    take_first_move(svc, match_id, "next")
    try:
        assert next(stream).event.version == version + 1
    finally:
        stream.cancel()


# ---- sizes: nothing large is stored, echoed or accepted ---------------------------------------


def test_a_huge_unknown_value_is_refused_without_being_echoed_in_full(svc):
    family = "x" * 50_000
    with pytest.raises(grpc.RpcError) as caught:
        svc.create(rules=family, request_id="huge-family")
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert len(caught.value.details()) <= 300 and "unknown rules" in caught.value.details()
    assert "this server plays: egyptian" in caught.value.details()
    assert refusal(caught.value).reason == "INVALID_REQUEST" and refusal(caught.value).fields == ("rules",)


@pytest.mark.parametrize("field,value,words,named", [
    ("request_id", "r" * 201, "request_id is longer than 200", "request_id"),
    ("player", "p" * 101, "player id is longer than 100", "seats[3].player_id"),
    ("seed", "s" * 129, "client seed is longer than 128", "seats[0].client_seed"),
], ids=["request-id", "player-id", "client-seed"])
def test_create_match_refuses_oversized_ids_and_seeds_and_stores_nothing(svc, field, value, words, named):
    before = svc.app.recorder.max_notification_id() or 0
    players = ["ann", "bob", "cat", value if field == "player" else "dan"]
    seats = [pb.SeatSpec(player_id=p, client_seed=value if field == "seed" else "") for p in players]
    request = pb.CreateMatchRequest(request_id=value if field == "request_id" else "big", rules="egyptian",
                                    variant="block-4", seats=seats)
    with pytest.raises(grpc.RpcError) as caught:
        svc.stub.CreateMatch(request, metadata=auth("matchmaking", "service"))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT and words in caught.value.details()
    assert refusal(caught.value).reason == "INVALID_REQUEST" and refusal(caught.value).fields == (named,)
    assert (svc.app.recorder.max_notification_id() or 0) == before


def test_a_request_over_64_kib_is_refused_before_it_is_read(svc):
    seats = [pb.SeatSpec(player_id=f"p{i}", client_seed="s" * 100) for i in range(1000)]
    with pytest.raises(grpc.RpcError) as caught:
        svc.stub.CreateMatch(pb.CreateMatchRequest(request_id="flood", rules="egyptian", variant="block-4",
                                                   seats=seats), metadata=auth("matchmaking", "service"))
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


# ---- roles: who may act for a seat ------------------------------------------------------------


def test_an_auditor_token_for_a_seated_players_id_cannot_play_their_turn(svc, match_id):
    player, view = acting(svc, match_id)
    move = view.legal_moves[0]
    with nothing_appended(svc, match_id):
        rejected(grpc.StatusCode.PERMISSION_DENIED,
                 lambda: call(svc, "PlayTile", match_id, auth(player, "auditor"), tile=move.tile, end=move.end),
                 "auditor token cannot act for a seat", reason="WRONG_CALLER")


def test_a_player_token_whose_subject_is_a_bot_id_controls_no_bot_seat(svc):
    created = svc.create(variant="draw-2", players=("ann", "bot:greedy:1"), request_id="bot-seat")
    who = auth("bot:greedy:1")  # a player token naming the bot
    for rpc in ("GetMatch", "PlayTile", "DrawTile", "ResumeSeat"):
        with nothing_appended(svc, created.match_id):
            rejected(grpc.StatusCode.PERMISSION_DENIED, lambda: call(svc, rpc, created.match_id, who),
                     "bot service", reason="WRONG_CALLER")


def test_a_bot_token_speaks_only_for_a_bot_seat(svc, match_id):
    player, _ = acting(svc, match_id)
    with nothing_appended(svc, match_id):
        rejected(grpc.StatusCode.PERMISSION_DENIED, lambda: call(svc, "GetMatch", match_id, auth(player, "bot")),
                 "bot token speaks only for a bot's seat", reason="WRONG_CALLER")


def test_a_token_may_not_outlive_its_kinds_longest_lifetime(svc, match_id):
    from services.common.auth import MAX_LIFETIME
    import jwt as pyjwt

    issued = int(__import__("time").time())
    claims = {"sub": "ann", "role": "bot", "iss": "domino-bot", "iat": issued, "exp": issued + MAX_LIFETIME["bot"] + 60}
    forged = pyjwt.encode(claims, KEYS.private["bot"], algorithm="EdDSA", headers={"kid": "bot"})
    rejected(grpc.StatusCode.UNAUTHENTICATED,
             lambda: call(svc, "GetMatch", match_id, (("authorization", f"Bearer {forged}"),)), "at most 1 h",
             reason="TOKEN_INVALID")


def test_a_watch_stream_ends_when_its_token_expires(svc, match_id):
    import time as clock

    short = mint_token("ann", KEYS, "player", ttl_seconds=2)
    stream = svc.stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id),
                                 metadata=(("authorization", f"Bearer {short}"),), timeout=20)
    began = clock.monotonic()
    with pytest.raises(grpc.RpcError) as caught:
        for _ in stream:
            pass
    assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED and "expired" in caught.value.details()
    assert refusal(caught.value).reason == "TOKEN_EXPIRED"
    assert clock.monotonic() - began < 8


# ---- seeds and leaving ------------------------------------------------------------------------


@pytest.mark.parametrize("seed,words", [("", "1 to 128"), ("s" * 129, "1 to 128")], ids=["empty", "too-long"])
def test_a_seed_of_the_wrong_size_is_invalid_argument(svc, match_id, seed, words):
    with nothing_appended(svc, match_id):
        rejected(grpc.StatusCode.INVALID_ARGUMENT, lambda: call(svc, "SubmitSeed", match_id, auth("ann"), seed=seed),
                 words, reason="INVALID_REQUEST", field="seed")


def test_a_seed_after_the_first_deal_is_failed_precondition(svc, match_id):
    with nothing_appended(svc, match_id):
        rejected(grpc.StatusCode.FAILED_PRECONDITION,
                 lambda: call(svc, "SubmitSeed", match_id, auth("ann"), seed="late"), "dealt",
                 reason="SEED_NOT_TAKEN")


def test_a_seed_a_match_waits_for_is_taken_once_and_the_deal_follows(svc):
    created = svc.create(variant="draw-2", players=("ann", "bot:greedy:1"), request_id="waits",
                         seed_wait_seconds=10)
    assert created.view.status == pb.MATCH_STATUS_WAITING_FOR_SEEDS
    assert [s.awaiting_seed for s in created.view.seats] == [True, False]
    view = call(svc, "SubmitSeed", created.match_id, auth("ann"), seed="mine").view
    assert view.status == pb.MATCH_STATUS_IN_PROGRESS and view.round_number == 1
    again = call(svc, "SubmitSeed", created.match_id, auth("ann"), seed="mine").view  # a retry changes nothing
    assert again.version == view.version
    with nothing_appended(svc, created.match_id):
        rejected(grpc.StatusCode.FAILED_PRECONDITION,
                 lambda: call(svc, "SubmitSeed", created.match_id, auth("ann"), seed="another"), "dealt",
                 reason="SEED_NOT_TAKEN")


def test_a_player_who_left_cannot_play_or_take_the_seat_back(svc):
    created = svc.create(variant="draw-2", players=("ann", "bob"), request_id="leaves", turn_timer_seconds=0)
    left = call(svc, "LeaveMatch", created.match_id, auth("ann")).view
    assert left.seats[0].left and left.seats[0].away
    assert call(svc, "LeaveMatch", created.match_id, auth("ann")).view.version == left.version  # idempotent
    for rpc in ("ResumeSeat", "PlayTile", "DrawTile"):
        with nothing_appended(svc, created.match_id):
            rejected(grpc.StatusCode.FAILED_PRECONDITION, lambda: call(svc, rpc, created.match_id, auth("ann")),
                     "you left this match", reason="SEAT_LEFT")


# ---- table talk, history and ratings ---------------------------------------------------------


@pytest.mark.parametrize("phrase", [pb.CHAT_PHRASE_UNSPECIFIED, 13, 1000, -1])
def test_a_chat_phrase_outside_the_fixed_set_is_invalid_argument_and_stores_nothing(svc, match_id, phrase):
    with nothing_appended(svc, match_id):
        rejected(grpc.StatusCode.INVALID_ARGUMENT,
                 lambda: call(svc, "SendChat", match_id, auth("ann"), chat_phrase=phrase),
                 "chat_phrase must be one of", reason="INVALID_REQUEST", field="chat_phrase")


def test_chatting_faster_than_the_limit_is_resource_exhausted(svc, match_id):
    for _ in range(3):
        call(svc, "SendChat", match_id, auth("ann"))
    before = stored_events(svc)
    rejected(grpc.StatusCode.RESOURCE_EXHAUSTED, lambda: call(svc, "SendChat", match_id, auth("ann")), "slow down",
             reason="RATE_LIMITED")
    assert stored_events(svc) == before


def test_a_chat_refused_for_its_pace_says_when_to_send_again(svc, match_id):
    for _ in range(3):
        call(svc, "SendChat", match_id, auth("ann"))
    with pytest.raises(grpc.RpcError) as caught:
        call(svc, "SendChat", match_id, auth("ann"))
    assert 0 < refusal(caught.value).retry_after <= 2


def test_chat_after_a_minute_past_the_matchs_end_is_failed_precondition_and_stores_nothing(svc, match_id):
    for player in PLAYERS["draw-2"]:  # both leave: the server plays their seats to the end at once
        ended = call(svc, "LeaveMatch", match_id, auth(player)).view
    assert ended.status == pb.MATCH_STATUS_ENDED
    svc.app.clock.advance(GRACE_SECONDS)
    call(svc, "SendChat", match_id, auth("ann"), chat_phrase=pb.CHAT_PHRASE_GOOD_GAME)  # "gg" within the grace
    svc.app.clock.advance(1)
    with nothing_appended(svc, match_id):
        rejected(grpc.StatusCode.FAILED_PRECONDITION,
                 lambda: call(svc, "SendChat", match_id, auth("bob"), chat_phrase=pb.CHAT_PHRASE_GOOD_GAME),
                 f"ended {GRACE_SECONDS + 1} s ago", f"only for {GRACE_SECONDS} s after the end", reason="CHAT_CLOSED")


def test_a_phrase_past_the_most_one_player_may_send_a_match_is_resource_exhausted_and_stores_nothing(svc, match_id):
    for _ in range(MAX_PHRASES_PER_PLAYER):  # sent over a long match, at the rate limit's pace
        svc.run(svc.app.send_chat(uuid.UUID(match_id), "ann", "hello"))
    with nothing_appended(svc, match_id):
        rejected(grpc.StatusCode.RESOURCE_EXHAUSTED, lambda: call(svc, "SendChat", match_id, auth("ann")),
                 f"{MAX_PHRASES_PER_PLAYER} phrases at this match", "nothing was sent", reason="CHAT_LIMIT")
        with pytest.raises(grpc.RpcError) as caught:
            call(svc, "SendChat", match_id, auth("ann"))
        assert refusal(caught.value).retry_after is None  # final: no wait would help
    call(svc, "SendChat", match_id, auth("bob"))  # each player's own


def test_watching_a_match_that_allows_no_spectators_is_permission_denied(svc, match_id):
    rejected(grpc.StatusCode.PERMISSION_DENIED, lambda: call(svc, "WatchMatch", match_id, auth("zed")),
             "does not allow spectators", reason="NOT_WATCHABLE")


HISTORY_CALLS = {
    "ListMyMatches": lambda stub, md, **f: stub.ListMyMatches(pb.ListMyMatchesRequest(**f), metadata=md),
    "GetRating": lambda stub, md, **f: stub.GetRating(pb.GetRatingRequest(**{"rules": "egyptian", **f}), metadata=md),
    "GetLeaderboard": lambda stub, md, **f: stub.GetLeaderboard(pb.GetLeaderboardRequest(**{"rules": "egyptian", **f}),
                                                                metadata=md),
}
BAD_HISTORY = {
    "page size too big": ("ListMyMatches", {"page_size": 51}, "page_size", "page_size"),
    "negative page size": ("ListMyMatches", {"page_size": -1}, "page_size", "page_size"),
    "forged page token": ("ListMyMatches", {"page_token": "bm90IG91cnM="}, "page_token", "page_token"),
    "page token not base64": ("ListMyMatches", {"page_token": "%%%"}, "page_token", "page_token"),
    "unknown rules": ("GetRating", {"rules": "chess"}, "rules must be one of", "rules"),
    "overlong player id": ("GetRating", {"player_id": "x" * 101}, "player_id", "player_id"),
    "a bot id naming no strength": ("GetRating", {"player_id": "bot:genius:1"}, "no bot strength", "player_id"),
    "leaderboard of unknown rules": ("GetLeaderboard", {"rules": ""}, "rules must be one of", "rules"),
    "leaderboard too long": ("GetLeaderboard", {"top": 101}, "top must be", "top"),
}


@pytest.mark.parametrize("case", BAD_HISTORY)
def test_bad_history_and_rating_requests_are_invalid_argument(svc, case):
    rpc, fields, words, field = BAD_HISTORY[case]
    with nothing_appended(svc):
        rejected(grpc.StatusCode.INVALID_ARGUMENT, lambda: HISTORY_CALLS[rpc](svc.stub, auth("ann"), **fields), words,
                 reason="INVALID_REQUEST", field=field)


@pytest.mark.parametrize("rpc", HISTORY_CALLS)
@pytest.mark.parametrize("credentials", BAD_CREDENTIALS, ids=str)
def test_history_and_ratings_with_bad_credentials_are_unauthenticated(svc, rpc, credentials):
    metadata, words, reason = BAD_CREDENTIALS[credentials]
    rejected(grpc.StatusCode.UNAUTHENTICATED, lambda: HISTORY_CALLS[rpc](svc.stub, metadata), words, reason=reason)


def test_listing_matches_needs_a_players_own_token(svc):
    rejected(grpc.StatusCode.PERMISSION_DENIED, lambda: HISTORY_CALLS["ListMyMatches"](svc.stub, SERVICE),
             "cannot act for a seat", reason="WRONG_CALLER")


def test_history_on_a_server_without_its_view_is_unavailable_and_says_to_call_again(svc):
    with pytest.raises(grpc.RpcError) as caught:
        HISTORY_CALLS["GetLeaderboard"](svc.stub, auth("ann"))
    said = refusal(caught.value)
    assert (caught.value.code(), said.reason) == (grpc.StatusCode.UNAVAILABLE, "UNAVAILABLE")
    assert "history is not available" in said.message and said.retry_after and said.retry_after > 0


# ---- ForgetPlayer and DescribeRules ---------------------------------------------------------

ACCOUNT = auth("accounts", "account")


@pytest.mark.parametrize("player_id", ["", "x" * 101, "bot:greedy:1"], ids=["empty", "overlong", "a bot"])
def test_forgetting_a_player_id_that_names_no_player_is_invalid_argument(svc, player_id):
    rejected(grpc.StatusCode.INVALID_ARGUMENT,
             lambda: svc.stub.ForgetPlayer(pb.ForgetPlayerRequest(player_id=player_id), metadata=ACCOUNT),
             "player_id", reason="INVALID_REQUEST", field="player_id")


@pytest.mark.parametrize("role", ["player", "service", "auditor"])
def test_only_the_account_service_forgets_a_player(svc, role):
    rejected(grpc.StatusCode.PERMISSION_DENIED,
             lambda: svc.stub.ForgetPlayer(pb.ForgetPlayerRequest(player_id="ann"), metadata=auth("ann", role)),
             "account service", reason="WRONG_CALLER")


@pytest.mark.parametrize("rpc", ["GetMatch", "DescribeRules", "ListMyMatches"])
def test_an_account_token_is_refused_everywhere_but_forget_player(svc, match_id, rpc):
    calls = {"GetMatch": lambda: call(svc, "GetMatch", match_id, ACCOUNT),
             "DescribeRules": lambda: svc.stub.DescribeRules(pb.DescribeRulesRequest(), metadata=ACCOUNT),
             "ListMyMatches": lambda: HISTORY_CALLS["ListMyMatches"](svc.stub, ACCOUNT)}
    rejected(grpc.StatusCode.PERMISSION_DENIED, calls[rpc], "account token", reason="WRONG_CALLER")


@pytest.mark.parametrize("credentials", BAD_CREDENTIALS, ids=str)
def test_describe_rules_with_bad_credentials_is_unauthenticated(svc, credentials):
    metadata, words, reason = BAD_CREDENTIALS[credentials]
    rejected(grpc.StatusCode.UNAUTHENTICATED,
             lambda: svc.stub.DescribeRules(pb.DescribeRulesRequest(), metadata=metadata), words, reason=reason)
