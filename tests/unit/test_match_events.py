"""The match aggregate's stored events: named as classes, readable whatever their age."""

from __future__ import annotations

import dataclasses

from services.match import chain
from services.match.application import MatchApplication
from services.match.domainmodel import Match, Place
from services.match.public_events import PUBLIC
from services.match.visibility import public_fields
from services.rules.registry import family


def test_an_event_stored_as_seat_away_before_the_rename_reads_as_seat_went_away():
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    match = Match.start(request_id="r", rules="egyptian", variant="draw-2", teams=False, target=51, turn_timer=0,
                        seats=["ann", "bob"], client_seeds=["", ""], commitment="c", server_seed="00")
    match._trigger(Match.SeatWentAway, seat=1)
    went_away = match.collect_events()[-1]
    stored = dataclasses.replace(app.mapper.to_stored_event(went_away),
                                 topic="services.match.domainmodel:Match.SeatAway")
    read = app.mapper.to_domain_event(stored)
    assert isinstance(read, Match.SeatWentAway) and read.seat == 1
    app.close()


def test_every_event_class_of_the_match_has_a_public_name_and_field_list():
    events = {value for value in vars(Match).values()
              if isinstance(value, type) and issubclass(value, Match.Event)} - {Match.Event, Match.Created}
    assert events == set(PUBLIC)



def test_what_the_public_stream_shows_of_each_event_is_what_it_showed_when_it_was_listed_by_hand():
    # The wire names and fields as public_events.py listed them before each event declared its
    # own: deriving them from the declarations must change nothing a client receives.
    assert PUBLIC == {
        Match.MatchStarted: ("match_started", ("rules", "variant", "teams", "target", "turn_timer", "seats",
                                               "client_seeds", "commitment", "options", "awaiting", "deadline")),
        Match.RoundDealt: ("round_dealt", ("round_index", "deadline", "leader")),
        Match.TilePlayed: ("tile_played", ("seat", "tile", "end", "timeout", "deadline")),
        Match.TileDrawn: ("tile_drawn", ("seat", "timeout", "deadline")),
        Match.TurnPassed: ("turn_passed", ("seat", "timeout", "deadline")),
        Match.RoundEnded: ("round_ended", ("reason", "winner", "points", "scores", "play_points", "written",
                                           "remembered", "pot")),
        Match.MatchEnded: ("match_ended", ("winner", "scores", "server_seed", "goats", "abandoned")),
        Match.SeatWentAway: ("seat_away", ("seat",)),
        Match.SeatReturned: ("seat_returned", ("seat",)),
        Match.SeatLeft: ("seat_left", ("seat",)),
        Match.SeedSubmitted: ("seed_submitted", ("seat", "seed")),
        Match.SeedsClosed: ("seeds_closed", ()),
    }


def test_a_field_not_marked_public_stays_out_of_the_public_stream():
    assert "server_seed" not in public_fields(Match.MatchStarted)  # secret until MatchEnded reveals it
    assert {"hands", "boneyard", "set_aside"}.isdisjoint(public_fields(Match.RoundDealt))
    assert "tile" not in public_fields(Match.TileDrawn)
    assert not any("link" in public_fields(event_class) or "request_key" in public_fields(event_class)
                   for event_class in PUBLIC)


def test_the_aggregate_overrides_none_of_the_librarys_methods_that_create_or_trigger_events():
    # Overriding them tied the project to one eventsourcing version; commands compute each
    # link and pass it to the public trigger_event (Match._trigger), Match.start to _create.
    assert not {"_create", "trigger_event"} & set(vars(Match))


def test_a_match_is_created_with_the_first_link_of_its_chain():
    match = Match.start(request_id="r", rules="egyptian", variant="draw-2", teams=False, target=51, turn_timer=0,
                        seats=["ann", "bob"], client_seeds=["", ""], commitment="c", server_seed="00")
    started = match.collect_events()[0]
    assert isinstance(started, Match.MatchStarted)
    header = chain.entry(Match.MatchStarted.recorded(vars(started), Place(family("egyptian"), opening=True)),
                         True, None)
    assert header is not None
    assert started.link == chain.link(chain.salt("00"), chain.GENESIS, header) == match.chain_head
