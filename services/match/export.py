"""A match's stored events rendered as a domino-record/1 (docs/record.md).

An auditor's export is the whole record. A player's export keeps the format but hides
what their seat may not see: in the round in play other hands, others' draws and the
set-aside tile; in every round the undrawn boneyard (a count); the seeds until the match
has ended. Once a round has ended its hands and draws are shown, as at a table where
everyone lays down what they hold (how the round scored depends on them).
"""

from __future__ import annotations

from typing import Iterable

from . import chain
from .domainmodel import Match, Place
from .record import MatchRecord, RecordedAction, RecordedRound, to_json
from services.rules.registry import family


def full_record(events: Iterable) -> MatchRecord:
    """Each event written as its class's ``recorded`` says it shows to the record, as its chain links it."""
    stream = iter(events)
    e = next(stream, None)
    if not isinstance(e, Match.MatchStarted):  # a match's first event, the one that created it
        raise ValueError("no MatchStarted event")
    rules = family(e.rules)
    record = Match.MatchStarted.recorded(vars(e), Place(rules, opening=True))
    assert isinstance(record, MatchRecord) and record.fairness is not None  # a header, with the seeds
    fairness = record.fairness
    links = [e.link] if e.link else None
    opening = True
    for e in stream:
        if links is not None and getattr(e, "link", None):
            links.append(e.link)
        match type(e).recorded(vars(e), Place(rules, opening)):
            case RecordedRound() as dealt:
                record.rounds.append(dealt)
                opening = True
            case RecordedAction() as action:
                record.rounds[-1].actions.append(action)
                opening = opening and action.move.kind != "play"
            case chain.Redeal():
                record.rounds[-1].redeal = True
            case chain.ClientSeed(seat, seed):
                fairness.client_seeds[seat] = seed
            case chain.End(server_seed, abandoned):
                fairness.server_seed = server_seed
                record.abandoned = abandoned
    if links is not None:
        record.chain = {"links": links}
    return record


def seat_record_json(events: Iterable, seat: int) -> dict:
    """The record as seat ``seat`` saw it."""
    events = list(events)
    dealt = sum(1 for e in events if isinstance(e, Match.RoundDealt))
    ended = sum(1 for e in events if isinstance(e, Match.RoundEnded))
    in_play = dealt - 1 if dealt > ended else None
    data = to_json(full_record(events))
    for number, rnd in enumerate(data["rounds"]):
        if number == in_play:
            rnd["hands"] = [hand if s == seat else len(hand) for s, hand in enumerate(rnd["hands"])]
            if "set_aside" in rnd:
                rnd["set_aside"] = None
        if "boneyard" in rnd:
            rnd["boneyard"] = len(rnd["boneyard"])  # how many, never which or in what order
        if number != in_play:
            continue
        for action in rnd["actions"]:
            if "draw" in action and action["seat"] != seat:
                action["draw"] = None
    data.pop("chain", None)  # its links hash what this seat may not see; the service adds the signed head
    data["viewer_seat"] = seat
    return data
