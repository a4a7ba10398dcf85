"""A match's stored events rendered as a domino-record/1 (docs/record.md).

An auditor's export is the whole record. A player's export keeps the format but hides
what their seat may not see: in the round in play other hands, others' draws and the
set-aside tile; in every round the undrawn boneyard (a count); the seeds until the match
has ended. Once a round has ended its hands and draws are shown, as at a table where
everyone lays down what they hold (how the round scored depends on them).
"""

from __future__ import annotations

from typing import Iterable

from .domainmodel import Match
from .record import Fairness, MatchRecord, RecordedAction, RecordedRound, to_json
from .rules.moves import DRAW, PASS, play
from .rules.state import Deal
from .rules.tiles import mask_of


def full_record(events: Iterable) -> MatchRecord:
    stream = iter(events)
    e = next(stream, None)
    if not isinstance(e, Match.MatchStarted):  # a match's first event, the one that created it
        raise ValueError("no MatchStarted event")
    fairness = Fairness(e.commitment, None, list(e.client_seeds))
    record = MatchRecord(e.rules, e.variant or None, e.teams, e.target, list(e.seats), fairness=fairness,
                         options=getattr(e, "options", None))
    revealed = None
    links = [e.link] if e.link else None
    for e in stream:
        if links is not None and getattr(e, "link", None):
            links.append(e.link)
        if isinstance(e, Match.SeedSubmitted):
            fairness.client_seeds[e.seat] = e.seed
        elif isinstance(e, Match.RoundDealt):
            deal = Deal(tuple(mask_of(h) for h in e.hands), tuple(e.boneyard), e.set_aside)
            leader = getattr(e, "leader", -1)
            record.rounds.append(RecordedRound(deal, hand_order=tuple(tuple(h) for h in e.hands),
                                               leader=leader if record.rules != "egyptian" and leader >= 0 else None))
        elif isinstance(e, Match.RoundEnded) and e.reason == "redeal":
            record.rounds[-1].redeal = True
        elif isinstance(e, Match.TilePlayed):
            first = not any(a.move.kind == "play" for a in record.rounds[-1].actions)
            move = play(e.tile, None if first else e.end)
            record.rounds[-1].actions.append(RecordedAction(e.seat, move, timeout=e.timeout))
        elif isinstance(e, Match.TileDrawn):
            record.rounds[-1].actions.append(RecordedAction(e.seat, DRAW, e.tile, e.timeout))
        elif isinstance(e, Match.TurnPassed):
            record.rounds[-1].actions.append(RecordedAction(e.seat, PASS, timeout=e.timeout))
        elif isinstance(e, Match.MatchEnded):
            revealed = e.server_seed
            record.abandoned = getattr(e, "abandoned", False)
    fairness.server_seed = revealed
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
