"""Which forming public table a player joins (table_choice.py), the Queue that keeps the
forming tables, and the ratings client's cache and back-off, without a network: the choice
is a pure function, the Queue an aggregate in memory, and GetRating a fake stub."""

from __future__ import annotations

import grpc
import pytest

from domino.match.v1 import match_service_pb2 as pb
from services.matchmaking.errors import RatingUnavailable
from services.matchmaking.match_client import GrpcMatchCreator, GrpcRatings
from services.matchmaking.table_choice import DEFAULT_ORDINAL, FormingTable, NoRatings, choose_table
from services.matchmaking.tables import Queue
from tests.support.clock import Clock
from tests.support.keys import KEYS

SPREAD, OPEN_AFTER = 10.0, 10.0


def table(key: str, since: float, *ordinals: float | None) -> FormingTable:
    return FormingTable(key, since, tuple(f"{key}-{n}" for n in range(len(ordinals))), tuple(ordinals))


def choose(tables, ordinal, now=100.0):
    return choose_table(tables, ordinal, now, SPREAD, OPEN_AFTER)


# ---- the choice ------------------------------------------------------------------------


def test_the_first_player_opens_a_table():
    assert choose([], 12.0) is None and choose([], None) is None


def test_a_player_joins_the_table_whose_mean_rating_is_closest():
    tables = [table("old", 95, 0.0, 4.0), table("new", 96, 10.0)]  # means 2 and 10
    assert choose(tables, 7.0) == "new"
    assert choose(tables, 5.0) == "old"


def test_equally_close_tables_go_to_the_oldest():
    assert choose([table("old", 95, 4.0), table("new", 96, 8.0)], 6.0) == "old"
    assert choose([table("old", 95, 6.0), table("new", 96, 6.0)], 6.0) == "old"


def test_a_player_far_from_every_young_table_opens_another():
    assert choose([table("low", 95, -10.0), table("high", 96, 30.0)], 10.5) is None
    assert choose([table("low", 95, 0.0)], 10.0) == "low"  # the spread itself is still near enough


def test_a_table_that_has_waited_half_the_wait_takes_anyone():
    tables = [table("young", 95, 0.0), table("old", 90, 60.0)]
    assert choose(tables, 30.0, now=99.9) is None
    assert choose(tables, 30.0, now=100.0) == "old"  # 10 s: half of a 20 s wait
    assert choose(tables, 8.0, now=100.0) == "young"  # a near table is still preferred


def test_without_a_rating_the_player_joins_the_oldest_table():
    assert choose([table("old", 95, 50.0), table("new", 96, None)], None) == "old"


def test_unknown_ratings_count_in_no_mean_and_an_unknown_table_is_near_everyone():
    assert table("t", 0, 30.0, None).mean == 30.0
    assert choose([table("known", 95, 30.0), table("unknown", 96, None)], 0.0) == "unknown"
    assert choose([table("known", 95, 30.0, None)], 0.0) is None


def test_when_nobody_is_rated_everyone_joins_the_oldest_table_as_before_ratings():
    assert NoRatings().ordinal("ann", "egyptian", True) == DEFAULT_ORDINAL == 0.0
    assert choose([table("old", 95, 0.0), table("new", 96, 0.0)], 0.0) == "old"


# ---- the queue ---------------------------------------------------------------------------


def draw_2_queue() -> Queue:
    return Queue(rules="egyptian", variant="draw-2", teams=False, seats=2)


def add(queue: Queue, player: str, ordinal: float | None, at: float = 0.0):
    return queue.add(f"t-{player}", player, at, table_id=f"table-{player}", ordinal=ordinal, spread=SPREAD,
                     open_after=OPEN_AFTER)


def test_a_queue_keeps_a_table_forming_per_rating_and_forms_the_one_a_player_fills():
    queue = draw_2_queue()
    assert add(queue, "ace", 25.0) is None
    assert add(queue, "cub", -5.0) is None  # 30 points apart: a table of its own
    assert [t.key for t in queue.forming_tables()] == ["t-ace", "t-cub"]
    formed = add(queue, "ada", 20.0, at=1.0)
    assert formed is not None and formed.players == ["ace", "ada"] and formed.waits == [1.0, 0.0]
    assert [p for _, p, _ in queue.waiting] == ["cub"] and list(queue.forming) == ["t-cub"]


def test_without_ratings_a_queue_forms_tables_first_come_first_seated():
    queue = Queue(rules="egyptian", variant="block-4", teams=True, seats=4)
    for player in ("ann", "bob", "cat"):
        assert queue.add(f"t-{player}", player, 0.0, table_id="x") is None
    assert len(queue.forming_tables()) == 1
    assert queue.add("t-dan", "dan", 0.0, table_id="x").players == ["ann", "bob", "cat", "dan"]


def test_a_due_table_takes_the_queues_other_waiting_players_before_bots():
    queue = Queue(rules="egyptian", variant="block-4", teams=True, seats=4)
    add(queue, "ace", 30.0, at=0.0)
    add(queue, "cub", -10.0, at=1.0)
    add(queue, "cid", -10.0, at=2.0)
    add(queue, "dot", 60.0, at=3.0)
    assert len(queue.forming_tables()) == 3
    assert queue.fill_with_bots("x", 19.9, 20.0, "greedy") is None
    formed = queue.fill_with_bots("x", 20.0, 20.0, "greedy")
    assert formed is not None and formed.players == ["ace", "cub", "cid", "dot"]  # nobody waits for a bot
    assert queue.waiting == [] and queue.forming == {}


def test_a_due_table_seats_its_own_players_then_the_oldest_others_then_bots():
    queue = Queue(rules="egyptian", variant="block-4", teams=True, seats=4)
    add(queue, "ace", 30.0, at=0.0)
    add(queue, "cub", -10.0, at=1.0)
    add(queue, "ada", 30.0, at=2.0)
    formed = queue.fill_with_bots("x", 20.0, 20.0, "strong")
    assert formed.players == ["ace", "cub", "ada", "bot:strong:3"]
    assert queue.fill_with_bots("y", 1000.0, 20.0, "strong") is None


def test_only_the_tables_that_are_due_are_formed():
    queue = Queue(rules="egyptian", variant="block-3", teams=False, seats=3)
    for n, player in enumerate(("a1", "a2")):
        add(queue, player, 30.0, at=float(n))
    add(queue, "b1", -10.0, at=5.0)
    add(queue, "b2", -10.0, at=6.0)  # two tables forming: a1 and a2's, b1 and b2's
    assert queue.fill_with_bots("x", 20.0, 20.0, "greedy").players == ["a1", "a2", "b1"]
    assert [p for _, p, _ in queue.waiting] == ["b2"] and queue.fill_with_bots("y", 25.9, 20.0, "greedy") is None
    assert queue.fill_with_bots("y", 26.0, 20.0, "greedy").players == ["b2", "bot:greedy:1", "bot:greedy:2"]


def test_a_withdrawn_ticket_leaves_its_forming_table():
    queue = draw_2_queue()
    add(queue, "ace", 25.0)
    add(queue, "cub", -5.0)
    queue.withdraw("t-ace")
    assert [t.key for t in queue.forming_tables()] == ["t-cub"] and list(queue.forming) == ["t-cub"]
    assert add(queue, "ada", 25.0, at=20.0).players == ["cub", "ada"]  # cub's table has waited long enough


def test_a_queue_saved_before_tables_had_keys_keeps_its_one_table():
    queue = Queue(rules="egyptian", variant="block-4", teams=True, seats=4)
    queue.add("t-ann", "ann", 0.0, table_id="x")
    del queue.__dict__["forming"]  # as a snapshot taken before `forming` was kept loads
    (legacy,) = queue.forming_tables()
    assert legacy.key == "" and legacy.ordinals == (None,)
    assert add(queue, "bob", 50.0) is None  # an unknown table is near everyone
    assert [t.key for t in queue.forming_tables()] == [""]


# ---- the ratings client ------------------------------------------------------------------


class FakeStub:
    def __init__(self) -> None:
        self.asked: list[pb.GetRatingRequest] = []
        self.failure: grpc.StatusCode | None = None
        self.ratings = {"ace": pb.Rating(player_id="ace", mu=40, sigma=5, ordinal=25.0, matches=12, rank=1)}

    def GetRating(self, request, metadata, timeout):
        self.asked.append(request)
        assert timeout == 0.5 and metadata[0][1].startswith("Bearer ")
        if self.failure is not None:
            raise Failed(self.failure)
        rating = self.ratings.get(request.player_id, pb.Rating(player_id=request.player_id))
        return pb.GetRatingResponse(rating=rating, rated_players=len(self.ratings))


class Failed(grpc.RpcError):
    def __init__(self, code: grpc.StatusCode) -> None:
        self._code = code

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return "no"


@pytest.fixture
def ratings():
    clock = Clock()
    client = GrpcMatchCreator("127.0.0.1:1", KEYS)  # never dialled: the stub is a fake
    client.stub = FakeStub()
    yield GrpcRatings(client, timeout_seconds=0.5, ttl_seconds=60, max_kept=2, backoff_seconds=5, clock=clock), \
        client.stub, clock
    client.close()


def test_ratings_are_asked_for_the_family_and_team_setting_and_kept_a_minute(ratings):
    client, stub, clock = ratings
    assert client.ordinal("ace", "egyptian", False) == 25.0
    assert client.ordinal("ace", "egyptian", False) == 25.0
    assert [(r.player_id, r.rules, r.teams) for r in stub.asked] == [("ace", "egyptian", False)]
    clock.advance(60)
    client.ordinal("ace", "egyptian", False)
    client.ordinal("ace", "egyptian", True)
    assert len(stub.asked) == 3


def test_an_unrated_player_has_a_new_players_rating(ratings):
    client, stub, _ = ratings
    stub.ratings["odd"] = pb.Rating(player_id="odd", ordinal=-3.0, matches=0)  # whatever it says: unrated
    assert client.ordinal("zed", "goat", False) == client.ordinal("odd", "goat", False) == DEFAULT_ORDINAL


def test_the_kept_ratings_are_bounded_least_recently_used_first(ratings):
    client, stub, _ = ratings
    for player in ("ace", "bob", "ace", "cat", "ace", "bob"):
        client.ordinal(player, "egyptian", True)
    assert [r.player_id for r in stub.asked] == ["ace", "bob", "cat", "bob"]  # bob went when cat came


@pytest.mark.parametrize("code, reason", [(grpc.StatusCode.DEADLINE_EXCEEDED, "deadline"),
                                          (grpc.StatusCode.UNAVAILABLE, "error")])
def test_a_match_service_away_is_not_asked_again_for_a_few_seconds(ratings, code, reason):
    client, stub, clock = ratings
    stub.failure = code
    with pytest.raises(RatingUnavailable) as caught:
        client.ordinal("ace", "egyptian", True)
    assert caught.value.reason == reason
    stub.failure = None
    with pytest.raises(RatingUnavailable) as caught:
        client.ordinal("bob", "egyptian", True)
    assert caught.value.reason == "backoff" and len(stub.asked) == 1
    clock.advance(5)
    assert client.ordinal("ace", "egyptian", True) == 25.0


def test_an_error_about_one_request_does_not_stop_the_others(ratings):
    client, stub, _ = ratings
    stub.failure = grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(RatingUnavailable, match="INVALID_ARGUMENT") as caught:
        client.ordinal("x" * 300, "egyptian", True)
    assert caught.value.reason == "error"
    stub.failure = None
    assert client.ordinal("ace", "egyptian", True) == 25.0
