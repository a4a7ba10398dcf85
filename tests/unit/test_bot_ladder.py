"""The bots' ladder: how `domino bots ladder` rates the strengths (services/bots/ladder.py),
the committed ladder the services read (services/common/bot_ladder.py), which strengths it
offers players in each family and team setting (``Ladder.offered``), and which bots fill a
public table by it (table_use_cases.nearest_bots)."""

from __future__ import annotations

import json

from services.bots import ladder as bot_ladder
from services.bots.ladder import Setting
from services.common.bot_ladder import PATH, Ladder, LadderRating, clearly_stronger, ladder, named_strength
from services.common.bot_strengths import NAMES, OFFERED
from services.history.summary import Rating, fresh, rating_key
from services.rules.registry import families
from services.matchmaking.table_use_cases import nearest_bots

SAMPLE = Ladder({"egyptian/solo": {"random": {"mu": 20.0, "sigma": 2.0, "rating": 14.0, "matches": 90},
                                   "greedy": {"mu": 25.0, "sigma": 2.0, "rating": 19.0, "matches": 90},
                                   "strong": {"mu": 31.0, "sigma": 2.0, "rating": 25.0, "matches": 90}},
                 "commit": "abc", "command": "domino bots ladder"})


# ---- the choice of bots ----------------------------------------------------------------


def test_the_bots_are_the_strength_rated_nearest_the_players_mean():
    assert nearest_bots([24.0], "egyptian/solo", "random", SAMPLE) == "strong"
    assert nearest_bots([10.0, 30.0], "egyptian/solo", "random", SAMPLE) == "greedy"  # mean 20
    assert nearest_bots([0.0], "egyptian/solo", "strong", SAMPLE) == "random"  # a new player's rating


def test_players_whose_rating_is_unknown_count_in_no_mean():
    assert nearest_bots([None, 26.0], "egyptian/solo", "random", SAMPLE) == "strong"


def test_without_a_known_rating_the_configured_bots_fill_the_table():
    assert nearest_bots([None, None], "egyptian/solo", "greedy", SAMPLE) == "greedy"
    assert nearest_bots([], "egyptian/solo", "strong", SAMPLE) == "strong"


def test_a_family_the_ladder_has_not_rated_keeps_the_configured_bots():
    assert nearest_bots([25.0], "goat/teams", "greedy", SAMPLE) == "greedy"


def test_equally_near_strengths_give_the_weaker():
    assert SAMPLE.nearest("egyptian/solo", 16.5) == "random"


def test_only_the_strengths_offered_to_players_fill_tables():
    assert SAMPLE.nearest("egyptian/solo", 40.0, among=("random", "greedy")) == "greedy"
    assert SAMPLE.nearest("egyptian/solo", 40.0, among=("random", "unheard-of")) == "random"


def test_bot_ids_name_their_strength_registered_or_not():
    assert named_strength("bot:strong") == named_strength("bot:strong:2") == "strong"
    assert named_strength("bot:expert") == "expert"
    assert named_strength("ada") is None


# ---- the committed ladder --------------------------------------------------------------


def test_the_committed_ladder_rates_every_strength_in_every_family_and_team_setting():
    """Fails when a strength or family is registered and the ladder was not run again."""
    keys = {rating_key(f.name, shape.teams) for f in families() for v in (f.variants or ("",)) for shape in f.shapes(v)}
    for key in keys:
        for strength in NAMES:
            rated = ladder().rating(key, strength)
            assert rated is not None, f"{key} has no {strength}: run `domino bots ladder`"
            assert rated.matches > 0 and abs(rated.rating - (rated.mu - 3 * rated.sigma)) < 1e-3


def test_the_committed_ladder_says_how_it_was_made():
    data = json.loads(PATH.read_text())
    assert data["command"].startswith("domino bots ladder") and data["commit"]


# ---- the ladder's rating ---------------------------------------------------------------

TWO_SEATS = Setting("egyptian", "draw-2", 2, False)


def test_a_ladder_is_the_same_from_the_same_seed():
    once = bot_ladder.run(2, seed=3, strengths=("random", "greedy"), chosen=[TWO_SEATS])
    again = bot_ladder.run(2, seed=3, strengths=("random", "greedy"), chosen=[TWO_SEATS])
    assert once == again
    assert bot_ladder.run(2, seed=4, strengths=("random", "greedy"), chosen=[TWO_SEATS]) != once


def test_every_play_of_a_deal_is_rated_as_a_match_of_its_bots():
    rated = bot_ladder.run(3, seed=3, strengths=("random", "greedy"), chosen=[TWO_SEATS])
    pair = rated["egyptian/solo"]
    assert set(pair) == {"bot:random", "bot:greedy"}
    assert pair["bot:random"].matches == pair["bot:greedy"].matches == 3 * 2  # both seatings of each deal
    assert all(r.sigma < fresh().sigma for r in pair.values())


def test_every_pair_of_strengths_plays_in_every_setting_of_its_rating_key():
    chosen = [s for s in bot_ladder.settings() if s.key == "egyptian/solo"]
    assert {(s.variant, s.seats) for s in chosen} == {("draw-2", 2), ("block-3", 3), ("block-4", 4)}
    assert bot_ladder.pairs(("random", "greedy", "strong")) == [("random", "greedy"), ("random", "strong"),
                                                                ("greedy", "strong")]


def test_the_ladder_data_shows_a_rating_as_a_players_is_shown():
    data = bot_ladder.as_data({"goat/solo": {"bot:greedy": Rating(27.0, 3.0, 12)}}, strengths=("random", "greedy"))
    assert data == {"goat/solo": {"greedy": {"mu": 27.0, "sigma": 3.0, "rating": 18.0, "matches": 12}}}


def test_more_team_deals_rate_the_team_settings_on_more_rounds_and_leave_the_solo_ones_as_they_were():
    teams = Setting("egyptian", "block-4", 4, True)
    solo_alone = bot_ladder.run(2, seed=3, strengths=("random", "greedy"), chosen=[TWO_SEATS])
    both = bot_ladder.run(2, seed=3, strengths=("random", "greedy"), chosen=[TWO_SEATS, teams], team_deals=3)
    assert both["egyptian/solo"] == solo_alone["egyptian/solo"]
    assert both["egyptian/teams"]["bot:random"].matches == 3 * 2  # two seatings of each of three deals


# ---- the strengths offered to players ----------------------------------------------------


def rated(mu: float, sigma: float = 1.6) -> dict:
    return {"mu": mu, "sigma": sigma, "rating": mu - 3 * sigma, "matches": 480}


def ladder_of(**key_ratings: dict) -> Ladder:
    return Ladder({"egyptian/solo": {name: rated(*mu) for name, mu in key_ratings.items()}})


def test_with_the_committed_ladder_expert_is_not_offered_where_it_is_within_noise_of_strong():
    keys = {rating_key(f.name, shape.teams) for f in families() for v in (f.variants or ("",)) for shape in f.shapes(v)}
    for key in keys:
        expert, strong = ladder().rating(key, "expert"), ladder().rating(key, "strong")
        if not clearly_stronger(expert, strong):
            assert "expert" not in ladder().offered(key), key


def test_with_the_committed_ladder_every_offered_strength_is_clearly_stronger_than_every_weaker_one_offered():
    for key in (k for k in ladder().data if "/" in k):
        offered = ladder().offered(key)
        assert offered, key
        for weaker, stronger in zip(offered, offered[1:]):
            assert clearly_stronger(ladder().rating(key, stronger), ladder().rating(key, weaker)), (key, offered)


def test_a_ladder_where_expert_is_clearly_stronger_than_strong_offers_it():
    known = ladder_of(random=(20.0,), greedy=(25.0,), strong=(30.0,), expert=(34.0,))
    assert known.offered("egyptian/solo") == ("random", "greedy", "strong", "expert")


def test_expert_within_noise_of_strong_is_offered_as_strong():
    known = ladder_of(random=(20.0,), greedy=(25.0,), strong=(30.0,), expert=(31.0,))
    assert known.offered("egyptian/solo") == ("random", "greedy", "strong")
    assert known.standing_for("egyptian/solo", "expert") == "strong"


def test_clearly_means_more_than_one_sigma_above():
    b = LadderRating(28.5, 1.5, 24.0, 480)
    assert not clearly_stronger(LadderRating(30.0, 1.6, 25.2, 480), b)  # 1.5 is less than one sigma (1.6)
    assert clearly_stronger(LadderRating(30.2, 1.6, 25.4, 480), b)
    assert not clearly_stronger(LadderRating(30.2, 1.6, 25.4, 480), LadderRating(28.5, 1.8, 23.1, 480))  # the larger


def test_a_strength_must_be_clearly_above_every_weaker_one_not_only_the_one_offered_below_it():
    # strong is not clear of greedy, so its level is greedy's; expert is clear of greedy, not of strong
    known = ladder_of(random=(20.0,), greedy=(26.0,), strong=(27.0,), expert=(28.0,))
    assert known.offered("egyptian/solo") == ("random", "greedy")


def test_a_level_holding_the_default_strength_is_offered_under_its_name():
    known = ladder_of(random=(25.0,), greedy=(26.0,), strong=(31.0,), expert=(31.5,))
    assert known.offered("egyptian/solo") == ("greedy", "strong")
    assert known.standing_for("egyptian/solo", "random") == "greedy"


def test_a_family_the_ladder_has_not_rated_offers_every_strength_as_before():
    assert ladder_of(random=(20.0,)).offered("fifty/solo") == OFFERED


def test_a_strength_the_ladder_does_not_rate_in_a_rated_family_is_not_offered():
    assert ladder_of(random=(20.0,), strong=(30.0,)).offered("egyptian/solo") == ("random", "strong")


def test_public_tables_seat_only_strengths_offered_in_their_family_and_team_setting():
    known = ladder_of(random=(20.0,), greedy=(25.0,), strong=(30.0,), expert=(31.0,))
    assert nearest_bots([40.0], "egyptian/solo", "greedy", known) == "strong"  # expert is nearer, not offered
    assert nearest_bots([None], "egyptian/solo", "expert", known) == "strong"  # configured: its level's name
