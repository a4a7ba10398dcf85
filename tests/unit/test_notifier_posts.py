"""What the notifier posts to the inbox: one YOUR_TURN per turn (its id from the match and
version) with the seconds left, its deadline and rules, expiring with the turn, and nothing
for a seat that moved or watches; each person's result of a finished match and, rated,
their rating change to one decimal. And the notice payload it reads, checked."""

from __future__ import annotations

import json
import uuid

import pytest

from domino.match.v1 import match_service_pb2 as mpb
from domino.social.v1 import social_service_pb2 as pb
from services.common import bus
from services.notifier import results, turns

MATCH = "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f"


def attention(to_act=True, streaming=False, deadline=1_800_000_045.7, now=1_800_000_000.2):
    said = mpb.GetTurnAttentionResponse(to_act=to_act, seat=1, player_id="p-bob", streaming=streaming,
                                        rules="egyptian")
    if deadline is not None:
        said.deadline.FromNanoseconds(int(deadline * 1e9))
    said.server_time.FromNanoseconds(int(now * 1e9))
    return said


def test_a_turn_to_act_with_no_stream_open_is_a_your_turn_for_its_player():
    notice = turns.your_turn(MATCH, 17, attention())
    assert (notice.recipient_player_id, notice.kind, notice.text_key, notice.match_id) == (
        "p-bob", pb.NOTIFICATION_KIND_YOUR_TURN, "notice.your_turn", MATCH)
    assert dict(notice.args) == {"seconds_left": "45", "deadline": "2027-01-15T08:00:45Z", "rules": "egyptian",
                                 "version": "17"}
    assert notice.expires_at.ToNanoseconds() == int(1_800_000_045.7 * 1e9)


def test_the_id_is_the_same_for_the_same_turn_and_another_for_the_next():
    first = turns.your_turn(MATCH, 17, attention()).notification_id
    assert first == turns.your_turn(MATCH, 17, attention(now=1_800_000_010)).notification_id
    assert first != turns.your_turn(MATCH, 19, attention()).notification_id
    assert uuid.UUID(first).version == 5


def test_a_draw_that_keeps_the_turn_makes_no_second_your_turn():
    """A draw stores a new version and the relay tells the turn again; the turn is the same."""
    first = turns.your_turn(MATCH, 17, attention(), (2, 5)).notification_id
    assert turns.your_turn(MATCH, 18, attention(), (2, 5)).notification_id == first
    assert turns.your_turn(MATCH, 19, attention(), (2, 6)).notification_id != first


def test_a_turn_message_names_its_round_and_turn_number():
    payload = {"match_id": MATCH, "version": 18, "seat": 1, "player_id": "p-bob", "round": 2, "turn_no": 5}
    turn = bus.read_turn(json.dumps(payload).encode())
    assert (turn.round, turn.turn_no) == (2, 5)


@pytest.mark.parametrize("said", [attention(to_act=False), attention(streaming=True),
                                  attention(deadline=1_800_000_000.0)], ids=["moved", "watching", "run_out"])
def test_no_your_turn_for_a_seat_that_moved_watches_or_ran_out(said):
    assert turns.your_turn(MATCH, 17, said) is None


def test_an_untimed_turn_has_no_seconds_left_and_the_kinds_lifetime():
    notice = turns.your_turn(MATCH, 17, attention(deadline=None))
    assert dict(notice.args) == {"rules": "egyptian", "version": "17"} and not notice.HasField("expires_at")


def ended(rated: bool) -> mpb.DescribeMatchEndResponse:
    end = mpb.DescribeMatchEndResponse(match_id=MATCH, rules="egyptian", rated=rated)
    end.seats.add(seat=0, player_id="p-ann", won=True, points=101, opponent_points=64)
    end.seats.add(seat=1, player_id="p-bob", won=False, points=64, opponent_points=101)
    if rated:
        end.seats[0].rating_before, end.seats[0].rating_after = 12.34, 13.96
        end.seats[1].rating_before, end.seats[1].rating_after = 20.0, 18.449
    return end


def test_each_person_is_told_whether_they_won_with_both_sides_points():
    posted = results.results(ended(rated=False))
    assert [(n.recipient_player_id, n.text_key, dict(n.args)) for n in posted] == [
        ("p-ann", "notice.match_won", {"points": "101", "opponent_points": "64", "rules": "egyptian",
                                       "outcome": "won"}),
        ("p-bob", "notice.match_lost", {"points": "64", "opponent_points": "101", "rules": "egyptian",
                                        "outcome": "lost"})]


def test_a_rated_match_tells_each_rating_before_and_after_to_one_decimal():
    changes = [n for n in results.results(ended(rated=True)) if n.kind == pb.NOTIFICATION_KIND_RATING_CHANGE]
    assert [(n.recipient_player_id, n.args["before"], n.args["after"]) for n in changes] == [
        ("p-ann", "12.3", "14.0"), ("p-bob", "20.0", "18.4")]


def test_result_ids_derive_from_the_match_the_player_and_the_kind():
    once, again = results.results(ended(rated=True)), results.results(ended(rated=True))
    assert [n.notification_id for n in once] == [n.notification_id for n in again]
    assert len({n.notification_id for n in once}) == 4


def test_a_notice_payload_is_read_with_its_id_player_and_kind():
    notice_id = str(uuid.uuid4())
    read = bus.read_notice(json.dumps({"notification_id": notice_id, "player_id": "p-bob", "kind": "invite"}).encode())
    assert (read.notification_id, read.player_id, read.kind) == (notice_id, "p-bob", "invite")


@pytest.mark.parametrize("payload", [b"[]", b"{", b'{"notification_id": "x", "player_id": "p", "kind": "invite"}',
                                     json.dumps({"notification_id": str(uuid.uuid4()), "player_id": "",
                                                 "kind": "invite"}).encode(),
                                     json.dumps({"notification_id": str(uuid.uuid4()), "player_id": "p",
                                                 "kind": "In Vite!"}).encode(),
                                     b"[" * 10000],
                         ids=["not_object", "not_json", "bad_id", "no_player", "bad_kind", "deep"])
def test_a_notice_payload_that_is_not_ours_is_a_bad_message(payload):
    with pytest.raises(bus.BadMessage):
        bus.read_notice(payload)
