"""Who opens a round and with what, in the player's words (docs/rules.md §1.4, §2, §3, §4, §5).

The view says who leads the round in play and why (``round_lead``: round 1's rule, the same
rule after a tied round, the taker of the last round, or a seat drawn by chance), and which
tiles may open it (the legal moves on an empty line); DescribeRules gives each variant's
words for round 1's rule (families.Lead). The client cannot see the other hands, so it
explains the rule that chose the tile rather than work the tile out, and works out no rule
of its own.
"""

from __future__ import annotations

from domino.match.v1 import match_service_pb2 as pb

from . import families, view_reading
from .view_reading import Tile

BY_RULE = (pb.LEAD_REASON_ROUND_ONE_RULE, pb.LEAD_REASON_AFTER_A_TIE)


def _variant(view: pb.MatchView) -> families.Variant:
    return families.variant_of(view.rules, view.variant)


def lead_reason(view: pb.MatchView) -> int:
    """Why the round in play is led as it is (LeadReason; UNSPECIFIED before the first deal)."""
    return view.round_lead.reason if view.HasField("round_lead") else pb.LEAD_REASON_UNSPECIFIED


def led_by_round_one_rule(view: pb.MatchView) -> bool:
    """Whether the round in play is led the way round 1 is, by a tile the rules name: round 1
    itself (a redealt one too) and a round after a tie."""
    return lead_reason(view) in BY_RULE


def _is_double(tile: Tile) -> bool:
    return tile[0] == tile[1]


def why_it_opens(view: pb.MatchView, tile: Tile) -> str:
    """Why ``tile``, the only tile the server lets open this round, must open it."""
    if not led_by_round_one_rule(view):
        return "as the rules lead this round"
    lead = _variant(view).lead
    words = lead.by_zero_zero if tile == (0, 0) else lead.by_double if _is_double(tile) else lead.by_other_tile
    return words.replace("{name}", families.title(view.rules, view.variant)) + _again(view)


def _again(view: pb.MatchView) -> str:
    """After a tied round, the words say so."""
    return ", as after a tied round" if lead_reason(view) == pb.LEAD_REASON_AFTER_A_TIE else ""


def opening_refusal(view: pb.MatchView, tile: Tile) -> str | None:
    """Why ``tile`` may not open the round, naming the tile that must; None when the line
    is not empty, it is not the caller's turn, or the tile may open it."""
    legal = view_reading.plays(view)
    if view.line or not view_reading.is_my_turn(view) or not legal or tile in legal:
        return None
    openers = sorted(legal, key=lambda t: (-t[0], -t[1]))
    if len(openers) == 1:
        must = openers[0]
        return f"This round must be opened with {view_reading.show(must)}, {why_it_opens(view, must)}."
    family = families.family(view.rules)
    if tile in family.never_leads:
        return f"{view_reading.show(tile)} never opens a round in {family.title}: open it with any other tile."
    return (f"{view_reading.show(tile)} may not open this round: open it with "
            + ", ".join(view_reading.show(t) for t in openers) + ".")


def opening_hint(view: pb.MatchView) -> str | None:
    """On the caller's turn with an empty line: what they may open the round with."""
    legal = view_reading.plays(view)
    if view.line or not view_reading.is_my_turn(view) or not legal:
        return None
    if len(legal) == 1:
        tile = next(iter(legal))
        return f"You open this round with {view_reading.show(tile)}, {why_it_opens(view, tile)}."
    if lead_reason(view) == pb.LEAD_REASON_BY_CHANCE:
        return "You open this round (drawn by chance): any tile may open it."
    barred = sorted(t for t in families.family(view.rules).never_leads
                    if t in view_reading.hand(view) and t not in legal)
    if barred:
        return f"You open this round: any tile but {', '.join(map(view_reading.show, barred))} may open it."
    return "You open this round: any tile may open it."


# ---- who led the round in play ------------------------------------------------------------


def leader(view: pb.MatchView) -> int | None:
    """The seat that led (or is to lead) the round in play, as the view says (``round_lead``);
    None when no round has been dealt."""
    if view.HasField("round_lead"):
        return view.round_lead.seat
    return view.round_actions[0].seat if view.round_actions else view_reading.turn(view)


def _last_played_round(view: pb.MatchView) -> tuple[int, pb.RoundSummary] | None:
    """The latest round played to its end (1-based number, summary): Goat's redeals are skipped,
    as the seat that would have led the thrown-in deal leads the new one."""
    for index in range(len(view.rounds) - 1, -1, -1):
        if view.rounds[index].reason != pb.ROUND_END_REASON_REDEAL:
            return index + 1, view.rounds[index]
    return None


def why_they_lead(view: pb.MatchView) -> str:
    """Why the leader leads the round in play, in words (docs/rules.md's "Who leads")."""
    reason = lead_reason(view)
    if reason == pb.LEAD_REASON_BY_CHANCE:
        return "drawn by chance" + (", as after a tied round" if _last_played_round(view) is not None else "")
    if reason in BY_RULE:
        return _variant(view).lead.rule + _again(view)
    last = _last_played_round(view)
    if reason != pb.LEAD_REASON_TOOK_THE_LAST_ROUND or last is None:
        return "as the rules lead this round"
    number, summary = last
    if families.family(view.rules).lower_is_better:  # no winner where points are bad: who ended it leads
        return (f"went out in round {number}" if summary.reason == pb.ROUND_END_REASON_DOMINO
                else f"made the fish in round {number}")
    if view.teams:
        return f"{view_reading.side_name(view, view_reading.round_winner(summary))} won round {number}"
    return f"won round {number}"


def leader_text(view: pb.MatchView) -> str:
    """Who led the round in play, and why: "bot greedy 1 led with 6|6, the highest double
    dealt", "ann leads (won round 2)", "you lead (drawn by chance)"."""
    seat = leader(view)
    name = view_reading.seat_name(view, seat)
    first = view.round_actions[0] if view.round_actions else None
    if first is not None and first.kind == pb.MOVE_KIND_PLAY and first.HasField("tile"):
        tile = view_reading.tile_of(first.tile)
        if led_by_round_one_rule(view):
            return f"{name} led with {view_reading.show(tile)}, {why_it_opens(view, tile)}"
        return f"{name} led with {view_reading.show(tile)} ({why_they_lead(view)})"
    return f"{name} {'lead' if view_reading.is_mine(view, seat) else 'leads'} ({why_they_lead(view)})"
