"""Each (match, version, seat) view is built once and served to every caller
(services/match/view_cache.py): what it serves is exactly what building it afresh gives, for
every family, seat and version, and never another seat's view."""

from __future__ import annotations

import asyncio
import random
from functools import cache
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from domino.match.v1 import match_service_pb2 as pb
from services.common.auth import KeyRing, mint_token
from services.common.auth_interceptor import CALLER
from services.common.changes import ChangeFeed
from services.common.limits import RateLimit
from services.common.rule_options import settings_pb
from services.match.application import MatchApplication, SeatSpec
from services.match.domainmodel import Match
from services.match.grpc_adapter import MatchServicer, authentication
from services.match.heads import Signer
from services.match.ends import TO_PB as END
from services.match.messages import (
    event_pb, head_pb, match_view, public_view, round_summary, seat_part, status, tile_pb, timestamp,
)
from services.rules.moves import DOWN, LEFT, PASS, RIGHT, UP, legal_moves
from services.rules.tiles import HIGH, LOW
from services.rules.view import player_view
from services.match.view_cache import ViewCache, with_view
from tests.support.families import Table, examples, option_tables, usual_tables
from tests.support.matches import Matches, random_move

POPO = {"PERSISTENCE_MODULE": "eventsourcing.popo"}
BLOCK_4, DRAW_2 = Table("egyptian", "block-4", 4, True), Table("egyptian", "draw-2", 2, False)
TABLES = {t.id: t for t in (*usual_tables(), *option_tables(), DRAW_2)}  # each family once, Goat's options, two seats
TIMERS = (45, 0, 0, 0, 90, 30, 0)  # turn timers, by table in turn, cycled: some timed, most not
KIND = {"play": pb.MOVE_KIND_PLAY, "draw": pb.MOVE_KIND_DRAW, "pass": pb.MOVE_KIND_PASS}
CAUSE = {"seat": pb.MOVE_CAUSE_SEAT, "timeout": pb.MOVE_CAUSE_TIMEOUT, "away": pb.MOVE_CAUSE_AWAY,
         "left": pb.MOVE_CAUSE_LEFT, "forced_pass": pb.MOVE_CAUSE_FORCED_PASS}
MOVES = 70  # a round or two of each family: deals, draws, plays, passes, a round's end
SIGNER = Signer(Ed25519PrivateKey.generate())


@cache
def played(name: str, seed: int) -> tuple[tuple[Match, object], ...]:
    """(the match at each version, the event that made it) for up to MOVES random moves."""
    table, timer = TABLES[name], TIMERS[list(TABLES).index(name) % len(TIMERS)]
    rng = random.Random(seed)
    app = Matches(MatchApplication(env=POPO, seed_source=lambda: rng.randbytes(32)))
    try:
        match = app.create_match(f"{name}-{seed}", table.family, table.variant or "", table.teams, None, timer,
                                 [SeatSpec(f"p{i}", f"s{i}") for i in range(table.seats)], table.chosen)
        for n in range(MOVES):
            if match.finished:
                break
            match = random_move(app, match, rng, f"r{n}")
        folded, versions = None, []
        for event in app.events_after(match.id, 0):
            folded = event.mutate(folded)
            versions.append((folded.__deepcopy__({}), event))  # events replace attributes: a snapshot
        return tuple(versions)
    finally:
        app.close()


def head(match: Match):
    return SIGNER.head(str(match.id), match.version, match.chain_entries, match.chain_head)


def fresh_view(match: Match, seat: int) -> pb.MatchView:
    return match_view(match, seat, head(match))


def views(entries: int = 4096) -> ViewCache:
    return ViewCache(lambda match: public_view(match, head(match)), seat_part, event_pb, entries)


def outer_counts(view) -> dict[int, int]:
    """All Fives: what each open end counts, read off the line as laid (the outer number of
    its last tile, both halves of a double; the lone first tile counts once, its two
    numbers), independently of the engine's own counts."""
    if not view.rules.four_ends or not view.line:
        return {}
    if len(view.line) == 1:
        a, b = view.line[0]
        return {LEFT: a, RIGHT: b}

    def count(placed: tuple[int, int]) -> int:
        return placed[1] * 2 if placed[0] == placed[1] else placed[1]

    counts = {LEFT: count(view.line[0][::-1]), RIGHT: count(view.line[-1])}
    if view.up_end is not None:
        counts[UP] = count(view.up_line[-1]) if view.up_line else 0
        counts[DOWN] = count(view.down_line[-1]) if view.down_line else 0
    return counts


def points_if_played(view, move) -> int:
    """All Fives: the ends' total once ``move`` is laid, when a positive multiple of 5."""
    if not view.rules.four_ends or move.kind != "play":
        return 0
    t = move.tile
    if not view.line:
        total = LOW[t] + HIGH[t]
    else:
        counts = outer_counts(view)
        if len(view.line) == 1:  # the first tile's other side is now an outer tile like any
            a, b = view.line[0]
            counts = {LEFT: a * 2 if a == b else a, RIGHT: b * 2 if a == b else b}
        number = {LEFT: view.left_end, RIGHT: view.right_end, UP: view.up_end, DOWN: view.down_end}[move.end]
        outer = HIGH[t] if LOW[t] == number else LOW[t]
        counts[move.end] = outer * 2 if LOW[t] == HIGH[t] else outer
        total = sum(counts.values())
    return total if total > 0 and total % 5 == 0 else 0


def reference_lead(match: Match, view) -> pb.RoundLead | None:
    """Who leads the round in play and why, read off what the table shows: the seat that
    made its first action (or is to act), and the last round played to its end."""
    rnd = match.state.round
    if rnd is None or rnd.outcome is not None or match.finished:
        return None
    seat = view.actions[0].seat if view.actions else rnd.turn
    played = [r for r in match.state.results if r.reason != "redeal"]
    if not played:
        reason = pb.LEAD_REASON_BY_CHANCE if match.ruleset.chance else pb.LEAD_REASON_ROUND_ONE_RULE
    else:
        reason = pb.LEAD_REASON_AFTER_A_TIE if played[-1].winner is None else pb.LEAD_REASON_TOOK_THE_LAST_ROUND
    return pb.RoundLead(seat=seat, reason=reason)


def reference_view(match: Match, seat: int) -> pb.MatchView:
    """A seat's view built field by field from the engine's player view, the way the service
    built every view before they were kept (one message, each field set once)."""
    view = player_view(match.state, max(seat, 0))
    rnd = match.state.round
    in_play = rnd is not None and rnd.outcome is None and not match.finished
    to_act = rnd.turn if in_play and rnd is not None and legal_moves(rnd) != (PASS,) else None
    scored = {index: points for index, _, points in view.play_points}
    msg = pb.MatchView(
        match_id=str(match.id), version=match.version, status=status(match), rules=match.rules_name,
        variant=match.variant, teams=match.teams, target=match.target, turn_timer_seconds=match.turn_timer,
        seats=[pb.SeatView(player_id=p, tile_count=view.tile_counts[s] if rnd else 0, away=s in match.away,
                           left=s in match.left, awaiting_seed=s in match.awaiting) for s, p in enumerate(match.seats)],
        your_seat=seat if seat >= 0 else None, left_end=view.left_end, right_end=view.right_end,
        boneyard_count=view.boneyard_count, scores=list(match.state.scores), round_number=view.round_number,
        turn=to_act, turn_deadline=timestamp(match.deadline) if to_act is not None else None,
        rounds=[round_summary(r, match.ruleset) for r in match.state.results],
        winner=match.state.winner if match.finished else None,
        fairness_commitment=match.commitment,
        up_end=view.up_end, down_end=view.down_end, spinner_index=view.spinner_at, ends_total=view.ends_total,
        remembered=list(view.remembered), accounts_open=list(view.opened), pot=view.pot,
        goats=list(match.state.goats) if match.finished else [],
        rule_options=settings_pb(match.options),
        turn_seconds=match.turn_seconds if to_act is not None else 0,
        round_starts_at=timestamp(match.round_starts_at) if in_play else None,
        round_actions=[pb.PublicAction(seat=a.seat, kind=KIND[a.kind], tile=tile_pb(a.tile), end=END[a.end],
                                       points=scored.get(i, 0), cause=CAUSE[match.round_causes[i]])
                       for i, a in enumerate(view.actions)],
        line=[pb.PlacedTile(left=a, right=b) for a, b in view.line],
        up_line=[pb.PlacedTile(left=a, right=b) for a, b in view.up_line],
        down_line=[pb.PlacedTile(left=a, right=b) for a, b in view.down_line],
        hand=[tile_pb(t) for t in view.hand] if seat >= 0 else [],
        legal_moves=[pb.Move(kind=KIND[m.kind], tile=tile_pb(m.tile), end=END[m.end], points=points_if_played(view, m))
                     for m in view.legal_moves] if seat >= 0 and to_act == seat else [],
        head=head_pb(head(match)) if match.chain_head else None,
        end_counts=[pb.EndCount(end=END[end], count=count) for end, count in outer_counts(view).items()],
        round_lead=reference_lead(match, view),
    )
    return msg


@pytest.mark.parametrize("name", TABLES)
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**16), order=st.randoms(use_true_random=False), entries=st.sampled_from([3, 50, 4096]))
def test_every_view_served_is_the_one_built_afresh_for_its_version_and_seat(name, seed, order, entries):
    cached = views(entries)
    for match, event in played(name, seed):
        seats = [s for s in range(-1, len(match.seats)) for _ in range(2)]  # each seat asked twice, any order
        order.shuffle(seats)
        for seat in seats:
            expected = reference_view(match, seat)
            assert fresh_view(match, seat) == expected
            assert pb.MatchView.FromString(cached.serialized(match, seat)) == expected
            assert cached.view(match, seat) == expected
            assert cached.update(event, match, seat) == pb.WatchMatchResponse(event=event_pb(event, seat, match),
                                                                              view=expected)
    assert len(cached) <= entries


@pytest.mark.parametrize("name", TABLES)
def test_a_seat_is_never_served_another_seats_view(name):
    cached = views()
    for match, _ in played(name, 7):
        for seat in range(-1, len(match.seats)):
            served = cached.view(match, seat)
            assert (served.your_seat if served.HasField("your_seat") else -1) == seat
            assert served.version == match.version
            mine = fresh_view(match, seat)
            assert list(served.hand) == list(mine.hand) and list(served.legal_moves) == list(mine.legal_moves)
        if match.state.round is not None and match.state.round.outcome is None:
            hands = [{(t.low, t.high) for t in cached.view(match, s).hand} for s in range(len(match.seats))]
            assert sum(map(len, hands)) == len(set().union(*hands))  # no tile in two seats' views


def test_a_view_is_built_once_per_version_and_seat_however_many_ask():
    cached = views()
    match, event = played(BLOCK_4.id, 1)[-1]
    for _ in range(10):  # the reply, eight streams, a bot
        cached.serialized(match, 2)
        cached.update(event, match, 2)
    cached.view(match, -1)
    assert (cached.built, cached.reused) == (2, 19)


def test_what_one_caller_does_to_its_view_reaches_no_other_caller():
    cached = views()
    match, event = played(examples("all-fives").usual.id, 3)[-1]
    mine = cached.view(match, 0)
    mine.hand.add(low=6, high=6)
    mine.your_seat = 1
    update = cached.update(event, match, 0)
    update.view.scores.append(99)
    update.event.seat = 3
    reply = with_view(pb.PlayTileResponse(version=match.version), cached.serialized(match, 0))
    reply.view.ClearField("seats")
    assert cached.view(match, 0) == fresh_view(match, 0)
    assert cached.update(event, match, 0) == pb.WatchMatchResponse(event=event_pb(event, 0, match),
                                                                   view=fresh_view(match, 0))


def test_a_log_rewritten_under_the_same_version_is_not_answered_from_the_old_one():
    cached = views()
    match, _ = played(DRAW_2.id, 5)[-1]
    cached.view(match, 0)
    rewritten = match.__deepcopy__({})
    rewritten.chain_head = "f" * 64  # another log's last link at the same version
    rewritten.seats = ("p0", "mallory")
    assert cached.view(rewritten, 0).seats[1].player_id == "mallory"
    assert cached.built == 2


def test_the_least_recently_used_view_goes_first_when_the_cache_is_full():
    cached = views(entries=2)
    versions = played(DRAW_2.id, 9)
    (a, _), (b, _), (c, _) = versions[-3:]
    cached.view(a, 0)
    cached.view(b, 0)
    cached.view(a, 0)  # a used again: b is now the oldest
    cached.view(c, 0)
    built = cached.built
    cached.view(a, 0)
    assert cached.built == built  # still kept
    cached.view(b, 0)
    assert cached.built == built + 1  # gone, built again
    assert len(cached) == 2


def test_the_reply_to_a_play_and_the_same_seats_getmatch_share_one_build():
    keys = KeyRing.generate()
    app = MatchApplication(env=POPO)
    servicer = MatchServicer(app, ChangeFeed())
    auth = authentication(keys, RateLimit(1e9, 1e9))
    players = ["ann", "bob"]

    class Caller:  # all a call's context is asked on the success path
        def __init__(self, subject: str, role: str) -> None:
            self.metadata = (("authorization", "Bearer " + mint_token(subject, keys, role)),)

        def invocation_metadata(self):
            return self.metadata

    def Context(subject: str, role: str = "player") -> Any:  # noqa: N802 - stands for the context class
        return Caller(subject, role)

    async def call(rpc, request, context):  # what the server's authentication interceptor does first
        CALLER.set(auth.identify(context.invocation_metadata(), rpc.__name__))
        return await rpc(request, context)

    async def scenario():
        created = await call(servicer.CreateMatch, pb.CreateMatchRequest(
            request_id="c", rules="egyptian", variant="draw-2", turn_timer_seconds=0,
            seats=[pb.SeatSpec(player_id=p, client_seed=p) for p in players]), Context("mm", "service"))
        turn = created.view.turn
        me = Context(players[turn])
        own = (await call(servicer.GetMatch, pb.GetMatchRequest(match_id=created.match_id), me)).view
        move = own.legal_moves[0]
        reply = await call(servicer.PlayTile, pb.PlayTileRequest(match_id=created.match_id, request_id="r1",
                                                                 tile=move.tile, end=move.end), me)
        built = servicer.views.built
        again = (await call(servicer.GetMatch, pb.GetMatchRequest(match_id=created.match_id), me)).view
        assert servicer.views.built == built  # the reply's view, served again
        assert again.HasField("server_time") and reply.view.HasField("server_time")
        again.ClearField("server_time")
        reply.view.ClearField("server_time")
        assert again == reply.view and again.your_seat == turn
        public = (await call(servicer.GetMatch, pb.GetMatchRequest(match_id=created.match_id),
                             Context("mm", "service"))).view
        assert servicer.views.built == built + 1 and not public.HasField("your_seat") and not public.hand

    try:
        asyncio.run(scenario())
    finally:
        app.close()


def test_every_view_and_stream_message_leaves_with_the_servers_time_and_what_is_kept_has_none():
    now = [1_800_000_000.25]
    cached = ViewCache(lambda match: public_view(match, head(match)), seat_part, event_pb, clock=lambda: now[0])
    match, event = played(BLOCK_4.id, 1)[5]
    first = cached.view(match, 1)
    now[0] += 7.5
    again = cached.view(match, 1)
    update = cached.update(event, match, 1)
    chat = cached.stamped(pb.WatchMatchResponse(chat=pb.ChatMessage(seat=0, chat_phrase=pb.CHAT_PHRASE_HELLO)))
    assert first.server_time.ToNanoseconds() / 1e9 == pytest.approx(1_800_000_000.25)
    assert again.server_time.ToNanoseconds() / 1e9 == pytest.approx(1_800_000_007.75)
    assert update.server_time == update.view.server_time == again.server_time == chat.server_time
    assert cached.built == 1  # the second view was the one kept, only its time is new
    first.ClearField("server_time")
    assert first == fresh_view(match, 1)
