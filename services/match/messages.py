"""Domain state as MatchService protobuf messages.

Every reply to a play carries the player's whole view, so building it is on the hot path.
Most of a view is repeated tiles, placed tiles, moves and round actions, each from a small
finite set: each such element is serialized once, as the wire bytes of a MatchView holding
just that element, and a view's repeated fields are filled by parsing the joined bytes
(protobuf appends repeated fields on merge). Parsing in C costs a fraction of building or
copying the element messages from Python.
"""

from __future__ import annotations

import base64
from functools import cache
from typing import cast

from google.protobuf.timestamp_pb2 import Timestamp

from domino.match.v1 import match_service_pb2 as pb
from services.common import rule_options

from .domainmodel import Match
from .ends import TO_PB as _END
from . import move_causes
from .heads import Head
from .public_events import PUBLIC, event_name
from services.rules import match as rules_match
from services.rules.moves import Move
from .results import stored_extras
from services.rules.rulesets import RuleSet
from services.rules.spinner import end_counts, points_of_play
from services.rules.state import RoundResult
from services.rules.tiles import HIGH, LOW, TILE_COUNT
from services.rules.view import player_view, seat_secrets
from .table_talk import PHRASES

_KIND = {"play": pb.MOVE_KIND_PLAY, "draw": pb.MOVE_KIND_DRAW, "pass": pb.MOVE_KIND_PASS}
_CAUSE = {move_causes.SEAT: pb.MOVE_CAUSE_SEAT, move_causes.TIMEOUT: pb.MOVE_CAUSE_TIMEOUT,
          move_causes.AWAY: pb.MOVE_CAUSE_AWAY, move_causes.LEFT: pb.MOVE_CAUSE_LEFT,
          move_causes.FORCED_PASS: pb.MOVE_CAUSE_FORCED_PASS}
# The wire names of public_events.py, as the API's enums (EVENT_KIND_TILE_PLAYED...).
_EVENT_KIND = {name: cast(pb.EventKind, pb.EventKind.Value(f"EVENT_KIND_{name.upper()}"))
               for name, _ in PUBLIC.values()}
_ROUND_END = {"domino": pb.ROUND_END_REASON_DOMINO, "blocked": pb.ROUND_END_REASON_BLOCKED,
              "redeal": pb.ROUND_END_REASON_REDEAL}
_RESULT = {"won": pb.MATCH_RESULT_WON, "lost": pb.MATCH_RESULT_LOST, "tied": pb.MATCH_RESULT_TIED,
           "abandoned": pb.MATCH_RESULT_ABANDONED, "in_play": pb.MATCH_RESULT_IN_PLAY}
_LEAD = {rules_match.ROUND_ONE_RULE: pb.LEAD_REASON_ROUND_ONE_RULE, rules_match.AFTER_A_TIE: pb.LEAD_REASON_AFTER_A_TIE,
         rules_match.TOOK_THE_LAST_ROUND: pb.LEAD_REASON_TOOK_THE_LAST_ROUND,
         rules_match.BY_CHANCE: pb.LEAD_REASON_BY_CHANCE}
# The table talk's phrases (stored by name, table_talk.py) as the API's enum, and back.
PHRASE_PB = {name: cast(pb.ChatPhrase, pb.ChatPhrase.Value(f"CHAT_PHRASE_{name.upper()}")) for name in PHRASES}
PHRASE_OF = {value: name for name, value in PHRASE_PB.items()}
_TILES = tuple(pb.Tile(low=LOW[t], high=HIGH[t]) for t in range(TILE_COUNT))
_IN_HAND = tuple(pb.MatchView(hand=[tile]).SerializeToString() for tile in _TILES)


def tile_pb(t: int) -> pb.Tile | None:
    return _TILES[t] if t >= 0 else None


@cache
def _legal_move(move: Move, points: int = 0) -> bytes:
    msg = pb.Move(kind=_KIND[move.kind], tile=tile_pb(move.tile), end=_END[move.end], points=points)
    return pb.MatchView(legal_moves=[msg]).SerializeToString()


@cache
def _on_line(left: int, right: int) -> bytes:
    return pb.MatchView(line=[pb.PlacedTile(left=left, right=right)]).SerializeToString()


@cache
def _on_arm(field: str, inner: int, outer: int) -> bytes:
    msg = pb.MatchView()
    getattr(msg, field).add(left=inner, right=outer)  # field: up_line or down_line
    return msg.SerializeToString()


@cache
def _round_action(seat: int, kind: str, tile: int, end: int | None, points: int = 0,
                  cause: str = move_causes.SEAT) -> bytes:
    msg = pb.PublicAction(seat=seat, kind=_KIND[kind], tile=tile_pb(tile), end=_END[end], points=points,
                          cause=_CAUSE[cause])
    return pb.MatchView(round_actions=[msg]).SerializeToString()


@cache
def _end_count(end: int, count: int) -> bytes:
    return pb.MatchView(end_counts=[pb.EndCount(end=_END[end], count=count)]).SerializeToString()


def round_summary(result: RoundResult, rules: RuleSet) -> pb.RoundSummary:
    """The round's end, its family's part as RoundEnded stores it (the same names)."""
    extras = stored_extras(rules, result)
    play_points = extras["play_points"]
    in_play = [0] * rules.sides
    for _, side, points in play_points:
        in_play[side] += points
    return pb.RoundSummary(reason=_ROUND_END[result.reason], winner=result.winner, points=result.points, scores=list(result.scores),
                           points_in_play=in_play if play_points else [], written=extras["written"],
                           remembered=extras["remembered"], pot=extras["pot"])


def timestamp(seconds: float | None) -> Timestamp | None:
    if seconds is None:
        return None
    ts = Timestamp()
    ts.FromNanoseconds(int(seconds * 1e9))
    return ts


def status(match: Match) -> pb.MatchStatus:
    if match.finished:
        return pb.MATCH_STATUS_ABANDONED if match.abandoned else pb.MATCH_STATUS_ENDED
    if match.state.round is None and match.awaiting:
        return pb.MATCH_STATUS_WAITING_FOR_SEEDS
    return pb.MATCH_STATUS_IN_PROGRESS


def match_view(match: Match, seat: int, head: Head | None = None) -> pb.MatchView:
    """What ``seat`` may see (-1: the public view, no hand and no ``your_seat``), with the
    signed chain ``head`` at the match's version."""
    msg = public_view(match, head)
    msg.MergeFromString(seat_part(match, seat))
    return msg


def public_view(match: Match, head: Head | None = None) -> pb.MatchView:
    """What every seat's view of ``match`` holds alike: all of it but ``your_seat`` (left
    unset), the hand and the legal moves. Built once per version for all its seats
    (view_cache.py); a seat's view is this followed by ``seat_part``."""
    view = player_view(match.state, -1)
    rnd = match.state.round
    in_play = rnd is not None and rnd.outcome is None and not match.finished
    to_act = match.seat_to_act  # None also where the server passes for the seat in this very command
    winner = match.state.winner if match.finished else None
    lead = rules_match.round_lead(match.state) if in_play else None
    msg = pb.MatchView(
        match_id=str(match.id),
        version=match.version,
        status=status(match),
        rules=match.rules_name,
        variant=match.variant,
        teams=match.teams,
        target=match.target,
        turn_timer_seconds=match.turn_timer,
        seats=[pb.SeatView(player_id=p, tile_count=view.tile_counts[s] if rnd else 0, away=s in match.away,
                           left=s in match.left, awaiting_seed=s in match.awaiting)
               for s, p in enumerate(match.seats)],
        left_end=view.left_end,
        right_end=view.right_end,
        boneyard_count=view.boneyard_count,
        scores=list(match.state.scores),
        round_number=view.round_number,
        turn=to_act,
        turn_deadline=timestamp(match.deadline) if to_act is not None else None,
        rounds=[round_summary(r, match.ruleset) for r in match.state.results],
        winner=winner,
        fairness_commitment=match.commitment,
        up_end=view.up_end,
        down_end=view.down_end,
        spinner_index=view.spinner_at,
        ends_total=view.ends_total,
        remembered=list(view.remembered),
        accounts_open=list(view.opened),
        pot=view.pot,
        goats=list(match.state.goats) if match.finished else [],
        rule_options=rule_options.settings_pb(match.options),
        turn_seconds=match.turn_seconds if to_act is not None else 0,
        round_starts_at=timestamp(match.round_starts_at) if in_play else None,
        round_lead=None if lead is None else pb.RoundLead(seat=lead[0], reason=_LEAD[lead[1]]),
    )
    causes = match.round_causes
    scored = {index: points for index, _, points in view.play_points}
    parts = [_round_action(a.seat, a.kind, a.tile, a.end, scored.get(i, 0),
                           causes[i] if i < len(causes) else move_causes.SEAT)
             for i, a in enumerate(view.actions)]
    parts += [_on_line(a, b) for a, b in view.line]
    parts += [_on_arm("up_line", a, b) for a, b in view.up_line]
    parts += [_on_arm("down_line", a, b) for a, b in view.down_line]
    if rnd is not None:  # like ends_total, also once the round has ended
        parts += [_end_count(end, count) for end, count in end_counts(rnd)]
    msg.MergeFromString(b"".join(parts))
    if head is not None:
        msg.head.CopyFrom(head_pb(head))
    return msg


def seat_part(match: Match, seat: int) -> bytes:
    """What ``seat``'s view adds to the public one, as wire bytes to follow it: the seat's
    number, its hand and, while it is to act, its legal moves (rules/view.py seat_secrets)
    with what each All Fives play would score. Parsed after the public view's bytes, the
    number sets the unset one and the tiles and moves fill the (empty) repeated fields. A
    seat whose only move is the pass the server makes for it is given none (seat_to_act)."""
    hand, moves = seat_secrets(match.state, seat)
    rnd = match.state.round
    parts = [_your_seat(seat)]
    parts += [_IN_HAND[t] for t in hand]
    if rnd is not None and match.seat_to_act == seat:
        parts += [_legal_move(m, points_of_play(rnd, m)) for m in moves]
    return b"".join(parts)


@cache
def _your_seat(seat: int) -> bytes:
    """Nothing for -1 (the public view: your_seat stays unset); seat 0 is sent, as set."""
    return pb.MatchView(your_seat=seat if seat >= 0 else None).SerializeToString()


def head_pb(head: Head) -> pb.SignedHead:
    return pb.SignedHead(match_id=head.match, version=head.version, entries=head.entries, hash=head.hash,
                         key_id=head.key, signed_at=Timestamp(seconds=head.signed_at),
                         signature=base64.b64decode(head.signature))


def head_of(msg: pb.SignedHead) -> Head:
    """A received head as the JSON a player keeps (heads.Head: signed_at in Unix seconds, as
    signed)."""
    return Head(msg.match_id, msg.version, msg.entries, msg.hash, msg.key_id, msg.signed_at.seconds,
                base64.b64encode(msg.signature).decode())


def event_pb(event, seat: int, match: Match | None = None) -> pb.MatchEvent:
    """``event`` as ``seat`` may see it; with the ``match`` it left, a play's points too."""
    msg = pb.MatchEvent(version=event.originator_version, kind=_EVENT_KIND[event_name(event)],
                        occurred_at=timestamp(event.timestamp.timestamp()))
    if hasattr(event, "seat"):
        msg.seat = event.seat
    if hasattr(event, "timeout"):
        msg.cause = _CAUSE[_cause(event, match)]
    if isinstance(event, Match.TilePlayed):
        msg.tile.CopyFrom(_TILES[event.tile])
        msg.end = _END[event.end]
        rnd = match.state.round if match is not None else None
        if (match is not None and rnd is not None and rnd.play_points
                and rnd.play_points[-1][0] == len(match.round_timeouts) - 1):
            msg.points = rnd.play_points[-1][2]
    elif isinstance(event, Match.TileDrawn) and event.seat == seat:
        msg.tile.CopyFrom(_TILES[event.tile])
    return msg


def _cause(event, match: Match | None) -> str:
    """Why the action ``event`` was made: as the ``match`` it left applied it, or, without
    it, as far as the event says (a pass nobody timed out is the server's: nothing fitted)."""
    if match is not None and match.version == event.originator_version and match.round_causes:
        return match.round_causes[-1]
    if event.timeout:
        return move_causes.TIMEOUT
    return move_causes.FORCED_PASS if isinstance(event, Match.TurnPassed) else move_causes.SEAT


def summary_pb(s) -> pb.MatchSummary:
    """A history row (services/history/view.py Summary)."""
    msg = pb.MatchSummary(match_id=s.match_id, rules=s.rules, variant=s.variant, teams=s.teams,
                          player_ids=s.seats, your_seat=s.seat, result=_RESULT[s.result], scores=s.scores,
                          started_at=timestamp(s.started_at), rated=s.rated, you_left=s.left,
                          left_seats=s.left_seats)
    ended = timestamp(s.ended_at)
    if ended is not None:
        msg.ended_at.CopyFrom(ended)
    return msg


def rating_pb(ranked, player_id: str) -> pb.Rating:
    """A rated player (services/history/view.py Ranked), or an unrated one (rank 0)."""
    if ranked is None:
        return pb.Rating(player_id=player_id)
    r = ranked.rating
    return pb.Rating(player_id=ranked.player_id, mu=r.mu, sigma=r.sigma, ordinal=r.ordinal, matches=r.matches,
                     rank=ranked.rank)


def chat_pb(sent) -> pb.ChatMessage:
    """A quick-chat phrase (table_talk.TableTalk.PhraseSent, stored by its name)."""
    return pb.ChatMessage(seat=sent.seat, player_id=sent.player_id, chat_phrase=PHRASE_PB[sent.phrase],
                          sent_at=timestamp(sent.timestamp.timestamp()))
