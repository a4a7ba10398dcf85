"""Writing a `domino-record/1` (docs/record.md): the record as JSON, each part as the chain
(chain.py) also hashes it."""

from __future__ import annotations

from typing import Any

from .record_model import FORMAT, MatchRecord, RecordedAction, RecordedRound
from services.rules.registry import family
from services.rules.moves import END_NAMES
from services.rules.tiles import NAMES, tiles_in


def to_json(record: MatchRecord) -> dict:
    out: dict = {"format": FORMAT, "rules": record.rules}
    if record.variant is not None:
        out["variant"] = record.variant
    out.update({"teams": record.teams, "target": record.target, "seats": list(record.seats)})
    if record.options is not None:
        out["options"] = dict(record.options)
    every_boneyard = family(record.rules).record.every_boneyard
    out["rounds"] = [round_to_json(r, every_boneyard) for r in record.rounds]
    if record.abandoned:
        out["abandoned"] = True
    if record.fairness is not None:
        f = record.fairness
        fairness: dict[str, Any] = {"commitment": f.commitment}
        if f.server_seed is not None:
            fairness["server_seed"] = f.server_seed
        fairness["client_seeds"] = list(f.client_seeds)
        out["fairness"] = fairness
    if record.chain is not None:
        out["chain"] = dict(record.chain)
    if record.viewer_seat is not None:
        out["viewer_seat"] = record.viewer_seat
    return out


def round_to_json(rnd: RecordedRound, every_boneyard: bool) -> dict:
    deal = rnd.deal
    hands = rnd.hand_order or tuple(tuple(tiles_in(h)) for h in deal.hands)
    out: dict = {"hands": [rnd.hidden_hands[s] if s in rnd.hidden_hands else [NAMES[t] for t in hand]
                           for s, hand in enumerate(hands)]}
    if rnd.boneyard_count is not None:
        out["boneyard"] = rnd.boneyard_count
    elif deal.boneyard or every_boneyard:
        out["boneyard"] = [NAMES[t] for t in deal.boneyard]
    if deal.set_aside >= 0:
        out["set_aside"] = NAMES[deal.set_aside]
    elif rnd.set_aside_hidden:
        out["set_aside"] = None
    if rnd.leader is not None:
        out["leader"] = rnd.leader
    if rnd.redeal is not None:
        out["redeal"] = rnd.redeal
    out["actions"] = [action_to_json(a) for a in rnd.actions]
    return out


def action_to_json(action: RecordedAction) -> dict:
    move = action.move
    out: dict = {"seat": action.seat}
    if move.kind == "play":
        out["play"] = NAMES[move.tile]
        if move.end is not None:
            out["end"] = END_NAMES[move.end]
        elif action.unknown_end is not None:
            out["end"] = action.unknown_end
    elif move.kind == "draw":
        out["draw"] = NAMES[action.drawn] if action.drawn >= 0 else None
    else:
        out["pass"] = True
    if action.timeout:
        out["timeout"] = True
    return out
