"""The menu's "Your matches" and "Ratings" with a fake match service: pages of
ListMyMatches, an export written under var/, the rating and the leaderboard."""

from __future__ import annotations

import base64
import json
import subprocess
from datetime import timezone

import pytest
import grpc

from domino.match.v1 import match_service_pb2 as pb
from services.client import history_screens, render
from services.client.api import ApiError
from services.client.store import Exports, KeptHeads
from services.common.error_details import Details
from services.rules import registry

from .test_play_lobby import app_for, flat
from tests.support.rules_description import described
from tests.support.rules_description import served_rules  # noqa: F401  (the fixture, by name)

pytestmark = pytest.mark.usefixtures("served_rules")


def summary(n: int, rules="egyptian", variant="draw-2", teams=False, result=pb.MATCH_RESULT_WON,
            seats=("ann", "bot:greedy:1")):
    s = pb.MatchSummary(match_id=f"00000000-0000-4000-8000-{n:012d}", rules=rules, variant=variant, teams=teams,
                        player_ids=seats, your_seat=0, result=result, scores=[71, 40])
    s.started_at.FromSeconds(1_700_000_000 + n * 3600)
    if result != pb.MATCH_RESULT_IN_PLAY:
        s.ended_at.FromSeconds(1_700_000_000 + n * 3600 + 600)
    return s


KEY_ID = "0123456789abcdef"


class Verifier:
    """`domino audit verify` as export_check.py runs it: the command given, a verdict back."""

    def __init__(self, report=None, status: int = 0) -> None:
        self.commands: list[list[str]] = []
        self.report = report or {"valid": True, "complete": True, "signature": {"status": "ok"},
                                 "heads": {"status": "ok"}}
        self.status = status

    def __call__(self, command):
        self.commands.append(list(command))
        return subprocess.CompletedProcess(command, self.status, stdout=json.dumps(self.report), stderr="")


class HistoryMatch:
    """ListMyMatches over ``matches`` (newest first), ExportMatch, GetRating, GetLeaderboard."""
    address = "fake:1"
    rules = staticmethod(described)  # DescribeRules

    def __init__(self, matches=(), unavailable: str = "") -> None:
        self.matches = list(matches)
        self.unavailable = unavailable
        self.calls: list = []

    def my_matches(self, page_size=10, page_token=""):
        self.calls.append(("list", page_size, page_token))
        if self.unavailable:
            raise ApiError(grpc.StatusCode.UNAVAILABLE, self.unavailable, self.address, details=Details("UNAVAILABLE"))
        start = int(page_token or 0)
        rows = self.matches[start:start + page_size]
        more = start + page_size < len(self.matches)
        return pb.ListMyMatchesResponse(matches=rows, next_page_token=str(start + page_size) if more else "")

    def export(self, match_id):
        self.calls.append(("export", match_id))
        return json.dumps({"format": "domino-record/1", "match": match_id, "viewer_seat": 0,
                           "chain": {"head": {"key": KEY_ID}}})

    def head_keys(self):
        """GetHeadKeys: one key, in use since 2023 (the same answer all session)."""
        self.calls.append(("head_keys",))
        answer = pb.GetHeadKeysResponse()
        key = answer.keys.add(key_id=KEY_ID, algorithm="Ed25519", public_key=bytes(range(32)))
        key.valid_from.FromSeconds(1_690_000_000)
        return answer

    def forget_head_keys(self):
        self.calls.append(("forget_head_keys",))

    def rating(self, rules, teams, player_id=""):
        self.calls.append(("rating", rules, teams))
        return pb.GetRatingResponse(rating=pb.Rating(player_id="ann", mu=27.5, sigma=4.0, ordinal=15.5, matches=3,
                                                     rank=12), rated_players=14)

    def leaderboard(self, rules, teams, top=10):
        self.calls.append(("leaderboard", rules, teams, top))
        board = pb.GetLeaderboardResponse(rated_players=14)
        for rank in range(1, top + 1):
            board.top.add(player_id="bot:strong" if rank == 1 else f"p{rank}", ordinal=30.0 - rank, rank=rank,
                          matches=10)
        board.you.CopyFrom(pb.Rating(player_id="ann", ordinal=15.5, rank=12, matches=3))
        return board


def menu_with(match, lines, tmp_path, verifier=None, heads=None):
    app, fake, screen, _ = app_for(lines + ["", "q"], tmp_path)
    app.main_menu._resumable = lambda: None
    app.match = match
    app.exports = Exports(tmp_path, "ann")
    app.verify = verifier or Verifier()
    app.heads = heads
    assert app.menu() == 0
    return flat(screen.getvalue())


def test_your_matches_page_newest_first_and_one_is_exported_under_var(tmp_path):
    match = HistoryMatch([summary(n, result=pb.MATCH_RESULT_IN_PLAY if n == 12 else pb.MATCH_RESULT_LOST if n % 2 else pb.MATCH_RESULT_WON)
                          for n in range(12, 0, -1)])
    text = menu_with(match, ["5", "n", "2", "12", "p"], tmp_path)  # menu_with's Enter leaves the list
    assert [c for c in match.calls if c[0] == "list"] == [("list", 10, ""), ("list", 10, "10"), ("list", 10, "")]
    assert "5) Your matches" in text and "6) Ratings" in text and "7) Watch a match" in text
    assert "your matches newest first · page 1" in text and "page 2" in text
    assert "Egyptian draw-2 · solo" in text and "you, bot greedy 1" in text and "in play" in text
    assert "a number exports that match · n next page · Enter goes back to the menu" in text
    assert "Pick a match from 11 to 12." in text  # numbered on from the first page
    exported = ("export", "00000000-0000-4000-8000-000000000001")  # number 12, on the second page
    assert exported in match.calls
    path = tmp_path / "exports" / Exports(tmp_path, "ann").directory.name / f"{exported[1]}.json"
    assert json.loads(path.read_text())["viewer_seat"] == 0
    assert f"Exported match {exported[1]} (as your seat saw it) to {path}" in text


def test_the_history_table_reads_the_date_family_seats_result_and_scores():
    rows = [summary(1, rules="all-fives", variant="", teams=True, result=pb.MATCH_RESULT_TIED, seats=("ann", "bob", "cat", "dan"))]
    text = render.to_text(history_screens.matches_table(rows, 1, timezone.utc), width=120)
    assert "2023-11-14 23:13" in text and "All Fives · teams" in text
    assert "you & cat v bob & dan" in text and "tied" in text and "71 – 40" in text
    assert history_screens.parse_history("3", 1, 10, True, 0) == history_screens.HistoryCommand("export", 3)
    assert history_screens.parse_history("11", 1, 10, True, 0).action == "invalid"
    assert history_screens.parse_history("p", 1, 10, True, 0).message == "This is the first page."
    assert history_screens.parse_history("n", 11, 2, False, 1).message == "This is the last page."


def test_one_enter_leaves_your_matches_for_the_menu(tmp_path):
    app, _, screen, _ = app_for(["5", "", "q"], tmp_path)
    app.main_menu._resumable = lambda: None
    app.match = HistoryMatch([summary(1)])
    assert app.menu() == 0
    text = flat(screen.getvalue())
    assert text.count("What would you like to do?") == 2
    assert "Press Enter for the menu." not in text[text.index("Enter goes back to the menu"):]


def test_no_history_on_the_server_is_said_plainly_and_the_menu_goes_on(tmp_path):
    match = HistoryMatch(unavailable="match history is not available on this server")
    text = menu_with(match, ["5"], tmp_path)
    assert "Your matches are not available: match history is not available on this server" in text
    assert text.count("What would you like to do?") == 2


def test_no_matches_yet(tmp_path):
    text = menu_with(HistoryMatch(), ["5"], tmp_path)
    assert "No matches yet" in text


def test_ratings_default_to_the_family_last_played_and_show_the_leaderboard_and_your_rank(tmp_path):
    match = HistoryMatch([summary(1, rules="all-fives", variant="", teams=True)])
    text = menu_with(match, ["6", "", ""], tmp_path)
    assert ("rating", "all-fives", True) in match.calls and ("leaderboard", "all-fives", True, 10) in match.calls
    numbered = " ".join(f"{n}) {name}" for n, name in enumerate(registry.names(), 1))
    assert f"Family {numbered} [all-fives]:" in text
    assert "Ratings for 1) solo 2) teams [teams]:" in text
    assert "ratings All Fives · teams 14 rated" in text
    assert "Your rating 15.5 (μ 27.5, σ 4.0) · rank 12 of 14 · 3 matches rated" in text
    assert "1 bot:strong 29.0 10" in text and "10 p10" in text
    assert "… 12 ann (you) 15.5 3" in text


def test_families_without_a_choice_of_teams_are_not_asked(tmp_path):
    match = HistoryMatch()
    text = menu_with(match, ["6", "classic"], tmp_path)
    assert ("rating", "classic", False) in match.calls and "Ratings for" not in text
    menu_with(match, ["6", "sports"], tmp_path)
    assert ("rating", "sports", True) in match.calls


def test_bots_are_rated_by_strength_and_an_unrated_player_is_told():
    assert history_screens.rated_name("bot:greedy:2") == "bot:greedy"
    assert history_screens.rated_name("bot:strong") == "bot:strong" and history_screens.rated_name("ann") == "ann"
    nobody = pb.GetRatingResponse(rating=pb.Rating(player_id="zed"))
    text = render.to_text(history_screens.ratings_screen("goat", False, nobody, pb.GetLeaderboardResponse(), "zed"))
    assert "not rated yet" in text and "Nobody is rated here yet." in text


def test_a_match_the_player_left_reads_lost_you_left_and_practice_reads_unrated():
    left = summary(1, result=pb.MATCH_RESULT_LOST)
    left.you_left, left.rated = True, True
    practice = summary(2, result=pb.MATCH_RESULT_WON)
    practice.rated = False
    text = render.to_text(history_screens.matches_table([left, practice], tz=timezone.utc), width=160)
    assert "lost (you left)" in text
    rows = text.splitlines()
    assert "unrated" in next(r for r in rows if "(you left)" not in r and "won" in r)
    assert "unrated" not in next(r for r in rows if "(you left)" in r)


def test_an_exported_match_is_verified_with_the_head_keys_the_server_publishes(tmp_path):
    """Issue 35, point 8: the keys come from GetHeadKeys, not a file on the server's disk; the
    verifier gets them, and the heads the client kept while it played."""
    match_id = summary(1).match_id
    heads = KeptHeads(tmp_path, "ann")
    heads.path(match_id).parent.mkdir(parents=True)
    heads.path(match_id).write_text('{"format": "domino-heads/1", "heads": []}')
    verifier = Verifier()
    text = menu_with(HistoryMatch([summary(1)]), ["5", "1"], tmp_path, verifier, heads)
    record = tmp_path / "exports" / Exports(tmp_path, "ann").directory.name / f"{match_id}.json"
    keys = record.parent / "head-keys.json"
    assert json.loads(keys.read_text()) == {"format": "domino-keys/1", "keys": [
        {"id": KEY_ID, "public_key": base64.b64encode(bytes(range(32))).decode(), "not_before": 1_690_000_000,
         "not_after": None}]}
    (command,) = verifier.commands
    assert command[-6:] == [str(record), "--json", "--key", str(keys), "--heads", str(heads.path(match_id))]
    assert command[-9:-6] == ["services.cli", "audit", "verify"]
    assert "Verified: the record replays by the rules, and its signed head checks with the server's published key" \
        in text and "the heads your client kept agree with it" in text


def test_an_export_that_does_not_verify_says_so(tmp_path):
    verifier = Verifier({"valid": False, "error": {"message": "signature: its signature does not verify"}}, status=1)
    text = menu_with(HistoryMatch([summary(1)]), ["5", "1"], tmp_path, verifier)
    assert "NOT verified: signature: its signature does not verify" in text


def test_a_match_in_play_is_checked_without_asking_for_its_authentication(tmp_path):
    verifier = Verifier({"valid": True, "complete": False, "unchecked": ["round 2 not replayed"]})
    text = menu_with(HistoryMatch([summary(1, result=pb.MATCH_RESULT_IN_PLAY)]), ["5", "1"], tmp_path, verifier)
    assert "--key" not in verifier.commands[0]
    assert "Checked so far: the record replays by the rules (a match in play is authenticated once it ends)" in text
