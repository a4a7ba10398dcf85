"""The match application's behaviour, written once and run against every store.

`TestWithSQLite` and `TestWithPostgres` run the same tests on a real SQLite file and a
real PostgreSQL server; `TestInMemory` on eventsourcing's POPO store.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from services.audit.verify import verify
from services.match.application import MatchApplication, SeatSpec
from services.match.errors import StaleTimeout
from services.match.export import full_record
from services.match.record import from_json, to_json
from services.rules.errors import NotYourTurn, RulesError
from services.rules import registry
from services.rules.moves import legal_moves
from tests.support.families import option_tables, usual_tables
from tests.support.matches import Matches, act, create
from tests.support.clock import Clock

TABLES = {t.id: t for t in (*usual_tables(), *option_tables())}  # each family once, and its example options


def create_family(app, name, timer=0, request_id="f1"):
    table = TABLES[name]
    seats = [SeatSpec(p, f"seed-{p}") for p in ["ann", "bob", "cat", "dan"][:table.seats]]
    return app.create_match(request_id, table.family, table.variant or "", table.teams, None, timer, seats, table.chosen)


def play_out(app, match):
    n = 0
    while not match.finished:
        match = act(app, match, n)
        n += 1
    return match


class MatchStoreContract:
    @pytest.fixture
    def env(self):
        raise NotImplementedError

    @pytest.fixture
    def clock(self):
        return Clock()

    @pytest.fixture
    def app(self, env, clock):
        app = Matches(MatchApplication(env=env, clock=clock))
        yield app
        app.close()

    def test_a_copy_that_a_read_is_bringing_up_to_date_is_not_taken(self, app):
        match = create(app)
        repository = app.app.repository
        lock = repository._use_fastforward_lock(match.id)
        with lock:  # as a worker thread's read holds it while applying newer events
            assert app.store.cached(match.id) is None
        repository._disuse_fastforward_lock(match.id)
        assert app.store.cached(match.id).version == match.version

    @pytest.mark.parametrize("variant", ["draw-2", "block-3", "block-4"])
    def test_a_whole_match_is_stored_and_its_export_verifies(self, app, variant):
        match = play_out(app, create(app, variant, target=51))
        record = full_record(app.events_after(match.id, 0))
        verdict = verify(from_json(json.loads(json.dumps(to_json(record)))))
        assert verdict.valid and verdict.complete
        assert verdict.to_json()["scores"] == list(match.state.scores)
        assert verdict.to_json()["winner"] == match.state.winner

    @pytest.mark.parametrize("name", TABLES)
    def test_a_whole_match_of_every_family_is_stored_and_its_export_verifies(self, app, name):
        match = play_out(app, create_family(app, name))
        data = json.loads(json.dumps(to_json(full_record(app.events_after(match.id, 0)))))
        verdict = verify(from_json(data))
        assert verdict.valid and verdict.complete, verdict.to_json()
        report = verdict.to_json()
        assert report["scores"] == list(match.state.scores) and report["winner"] == match.state.winner
        family = registry.family(TABLES[name].family)
        assert data["rules"] == family.name
        ended = family.match_json(match.state.goats)  # Goat's goats
        assert {key: report.get(key) for key in ended} == ended
        assert data.get("options") == (match.options if family.options else None)
        again = app.match_at(match.id, match.version)  # a replay of the stored events
        assert again.state.scores == match.state.scores and again.state.results == match.state.results

    def test_replaying_a_match_from_its_events_rebuilds_the_same_state(self, app):
        match = create(app)
        for n in range(9):
            match = act(app, match, n)
        again = app.match_at(match.id, match.version)  # not from the cache: a replay
        assert again.version == match.version
        assert again.state.scores == match.state.scores
        assert list(again.state.round.hands) == list(match.state.round.hands)
        assert again.state.round.actions() == match.state.round.actions()

    def test_a_retried_play_returns_the_first_outcome_and_appends_nothing(self, app):
        match = create(app)
        rnd = match.state.round
        move = legal_moves(rnd)[0]
        player = match.seats[rnd.turn]
        first = app.play_tile(match.id, player, move.tile, move.end, "same")
        again = app.play_tile(match.id, player, move.tile, move.end, "same")
        assert again.version == first.version
        assert app.get_match(match.id).version == first.match.version

    def test_a_refused_play_appends_nothing(self, app):
        match = create(app)
        rnd = match.state.round
        idle = match.seats[(rnd.turn + 1) % 4]
        with pytest.raises(NotYourTurn):
            app.play_tile(match.id, idle, 0, None, "x")
        assert app.get_match(match.id).version == match.version

    def test_creating_a_match_twice_with_one_request_id_creates_it_once(self, app):
        assert create(app, request_id="same").id == create(app, request_id="same").id

    def test_forced_passes_are_recorded_by_the_server(self, app):
        match = play_out(app, create(app, "block-4", target=151))
        kinds = [type(e).__name__ for e in app.events_after(match.id, 0)]
        assert "TurnPassed" in kinds

    def test_a_seat_whose_timer_runs_out_is_played_for_and_marked_timeout(self, app, clock):
        match = create(app, timer=30)
        seat = match.state.round.turn
        timer = app.timer()
        timer.follow_store()
        clock.advance(29)
        assert timer.step() == 0
        clock.advance(2)
        assert timer.step() == 1
        after = app.get_match(match.id)
        assert after.state.round.actions()[0][0] == seat and after.round_timeouts[0]

    def test_a_deadline_a_move_superseded_is_dropped_without_reading_the_match(self, app, clock):
        match = create(app, timer=30)
        timer = app.timer()
        timer.follow_store()
        clock.advance(10)
        act(app, match, 0)
        timer.follow_store()
        clock.advance(25)  # past the first turn's deadline, not the second's
        assert timer.step() == 0 and timer.timer.reads == 0
        clock.advance(10)
        assert timer.step() == 1 and timer.timer.reads == 1

    def test_a_passed_deadline_shows_as_overdue_until_a_timer_pass_plays_it(self, app, clock):
        create(app, timer=30)
        timer = app.timer()
        timer.follow_store()
        assert timer.timer.overdue_seconds() == 0
        clock.advance(40)
        assert timer.timer.overdue_seconds() == 10
        timer.step()
        assert timer.timer.overdue_seconds() == 0

    def test_a_seat_that_times_out_twice_in_a_row_is_away_and_played_at_once(self, app, clock):
        match = create(app, "draw-2", timer=30)
        seat = match.state.round.turn
        timer = app.timer()
        for _ in range(2):
            while app.get_match(match.id).state.round.turn != seat:
                timer.follow_store()
                clock.advance(31)
                timer.step()
            timer.follow_store()
            clock.advance(31)
            timer.step()
        match = app.get_match(match.id)
        assert seat in match.away
        assert match.state.round.turn != seat or match.finished
        app.resume_seat(match.id, match.seats[seat])
        assert seat not in app.get_match(match.id).away

    def test_a_stale_timeout_is_refused(self, app, clock):
        match = create(app, timer=30)
        turn = (match.round_number, match.turn_no)
        match = act(app, match, 0)
        clock.advance(31)
        with pytest.raises(StaleTimeout):
            app.expire_turn(match.id, *turn)

    def test_unlimited_turns_never_time_out(self, app, clock):
        match = create(app, timer=0)
        timer = app.timer()
        timer.follow_store()
        clock.advance(1_000)
        assert timer.step() == 0 and app.get_match(match.id).version == match.version

    def test_a_match_nobody_acts_in_for_half_an_hour_is_abandoned_and_its_record_says_so(self, app, clock):
        match = create(app, timer=0)
        timer = app.timer(abandon_after_seconds=1800)
        timer.follow_store()
        clock.advance(1799)
        assert timer.step() == 0 and not app.get_match(match.id).finished
        clock.advance(2)
        assert timer.step() == 1
        ended = app.get_match(match.id)
        assert ended.finished and ended.abandoned and ended.state.winner is None
        data = to_json(full_record(app.events_after(match.id, 0)))
        assert data["abandoned"] is True and data["fairness"]["server_seed"]
        verdict = verify(from_json(data))
        assert verdict.valid and verdict.to_json()["abandoned"] is True and verdict.to_json()["winner"] is None

    def test_a_match_that_moves_on_is_not_abandoned(self, app, clock):
        match = create(app, timer=0)
        timer = app.timer(abandon_after_seconds=1800)
        timer.follow_store()
        clock.advance(1000)
        act(app, match, 0)
        timer.follow_store()
        clock.advance(1000)
        assert timer.step() == 0 and not app.get_match(match.id).finished

    def test_a_player_who_leaves_is_played_by_the_server_to_the_end_and_cannot_come_back(self, app):
        match = create(app, "draw-2", timer=0, target=51)
        leaver = match.seats[match.state.round.turn]
        match = app.leave_match(match.id, leaver)
        seat = match.seats.index(leaver)
        assert seat in match.left and match.state.round.turn != seat  # its turn was played at once
        with pytest.raises(RulesError):
            app.resume_seat(match.id, leaver)
        other = next(p for p in match.seats if p != leaver)
        while not match.finished:
            move = legal_moves(match.state.round)[0]
            if move.kind == "draw":
                match = app.draw_tile(match.id, other, f"d{match.version}").match
            else:
                match = app.play_tile(match.id, other, move.tile, move.end, f"p{match.version}").match
        verdict = verify(from_json(json.loads(json.dumps(to_json(full_record(app.events_after(match.id, 0)))))))
        assert verdict.valid and verdict.complete

    def test_the_first_deal_waits_for_the_players_seeds_and_uses_them(self, app, clock):
        seats = [SeatSpec("ann"), SeatSpec("bot:greedy:1", "bot-seed")]
        match = app.create_match("seeded", "egyptian", "draw-2", None, 51, 0, seats, None, seed_wait_seconds=10)
        assert match.state.round is None and match.awaiting == {0}
        match = app.submit_seed(match.id, "ann", "ann-chose-this")
        assert match.state.round is not None and match.client_seeds == ("ann-chose-this", "bot-seed")
        record = full_record(app.events_after(match.id, 0))
        assert record.fairness.client_seeds == ["ann-chose-this", "bot-seed"]

    def test_the_first_deal_goes_ahead_without_a_seed_not_sent_in_time(self, app, clock):
        match = app.create_match("late", "egyptian", "draw-2", None, 51, 0, [SeatSpec("ann"), SeatSpec("bob")], None,
                                 seed_wait_seconds=10)
        timer = app.timer()
        timer.follow_store()
        clock.advance(9)
        assert timer.step() == 0 and app.get_match(match.id).state.round is None
        clock.advance(2)
        assert timer.step() == 1
        assert app.get_match(match.id).state.round is not None
        with pytest.raises(RulesError):
            app.submit_seed(match.id, "ann", "too late")


class RestartContract:
    """Only durable stores survive a restart."""

    def test_a_restarted_service_finds_every_match_where_it_stood(self, env, clock):
        first = Matches(MatchApplication(env=env, clock=clock))
        match = create(first)
        for n in range(5):
            match = act(first, match, n)
        first.close()
        restarted = Matches(MatchApplication(env=env, clock=clock))
        try:
            again = restarted.get_match(match.id)
            assert again.version == match.version and again.state.round.actions() == match.state.round.actions()
            act(restarted, again, 99)
        finally:
            restarted.close()

    def test_an_overdue_turn_is_resolved_after_a_restart(self, env, clock):
        first = Matches(MatchApplication(env=env, clock=clock))
        match = create(first, timer=45)
        first.close()  # the service stops mid-turn
        clock.advance(60)
        restarted = Matches(MatchApplication(env=env, clock=clock))
        try:
            timer = restarted.timer()
            timer.follow_store()
            assert timer.step() == 1
            assert restarted.get_match(match.id).round_timeouts[0] is True
        finally:
            restarted.close()


class ReplicasContract:
    """Two service replicas on one store, each holding its own cached copy of a match."""

    @pytest.fixture
    def replicas(self, env, clock):
        first, second = Matches(MatchApplication(env=env, clock=clock)), Matches(MatchApplication(env=env, clock=clock))
        yield first, second
        first.close()
        second.close()

    def test_a_replica_whose_copy_is_behind_accepts_the_next_seats_play(self, replicas):
        first, second = replicas
        match = create(first)
        second.get_match(match.id)  # cached at this version
        moved_on = act(first, match, 0)
        after = act(second, moved_on, 1)
        assert after.version > moved_on.version
        assert first.get_match(match.id).version == after.version

    def test_a_replica_whose_copy_is_behind_refuses_a_play_out_of_turn_and_stores_nothing(self, replicas):
        first, second = replicas
        match = create(first)
        second.get_match(match.id)
        moved_on = act(first, match, 0)
        with pytest.raises(NotYourTurn):
            act(second, match, 1)  # the seat that has just played, as if it were still its turn
        assert first.get_match(match.id).version == moved_on.version

    def test_a_retry_sent_to_the_other_replica_returns_the_first_outcome(self, replicas):
        first, second = replicas
        match = create(first)
        second.get_match(match.id)
        rnd = match.state.round
        move = legal_moves(rnd)[0]
        player = match.seats[rnd.turn]
        done = first.play_tile(match.id, player, move.tile, move.end, "once")
        again = second.play_tile(match.id, player, move.tile, move.end, "once")
        assert again.version == done.version and second.get_match(match.id).version == done.match.version


class ConcurrencyContract:
    """Commands of many matches in flight at once on one event loop, as the gRPC handlers
    run them: on PostgreSQL their appends are committed in groups."""

    def test_concurrent_commands_of_many_matches_each_store_once_and_every_match_verifies(self, app):
        matches = [create(app, "draw-2", target=51, request_id=f"c{i}") for i in range(4)]

        async def play(match, tag):
            n = 0
            while not match.finished:
                rnd = match.state.round
                move = legal_moves(rnd)[0]
                player = match.seats[rnd.turn]
                if move.kind == "draw":
                    outcome = await app.app.draw_tile(match.id, player, f"{tag}{n}")
                else:
                    outcome = await app.app.play_tile(match.id, player, move.tile, move.end, f"{tag}{n}")
                again = await (app.app.draw_tile(match.id, player, f"{tag}{n}") if move.kind == "draw" else
                               app.app.play_tile(match.id, player, move.tile, move.end, f"{tag}{n}"))
                assert (again.version, again.drawn) == (outcome.version, outcome.drawn)  # a retry: the first answer
                match = outcome.match
                n += 1
            return match

        async def all_of_them():
            return await asyncio.gather(*(play(m, f"m{i}-") for i, m in enumerate(matches)))

        for match in app.run(all_of_them()):
            verdict = verify(from_json(json.loads(json.dumps(to_json(full_record(app.events_after(match.id, 0)))))))
            assert verdict.valid and verdict.complete
            assert app.get_match(match.id).version == match.version


class TestInMemory(MatchStoreContract, ConcurrencyContract):
    @pytest.fixture
    def env(self):
        return {"PERSISTENCE_MODULE": "eventsourcing.popo"}


@pytest.mark.integration
class TestWithSQLite(MatchStoreContract, RestartContract, ReplicasContract, ConcurrencyContract):
    @pytest.fixture
    def env(self, fresh_sqlite_env):
        return fresh_sqlite_env


@pytest.mark.integration
class TestWithPostgres(MatchStoreContract, RestartContract, ReplicasContract, ConcurrencyContract):
    @pytest.fixture
    def env(self, fresh_postgres_env):
        return fresh_postgres_env
