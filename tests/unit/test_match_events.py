"""The match aggregate's stored events: named as classes, readable whatever their age."""

from __future__ import annotations

import dataclasses

from services.match.application import MatchApplication
from services.match.domainmodel import Match
from services.match.public_events import PUBLIC


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

