"""Reading a `domino-record/1` (docs/record.md) from a file anyone may have written.

Parsing checks only what can be seen without playing (shape, field types, tile names, the
rule set's options); anything that needs the rules is the verifier's job, so it can name
the exact round or action. Which fields a record must hold is its family's record shape
(``Family.record``): the reader names no family. A player's export (`viewer_seat`) may write
what the seat could not see as counts and nulls; they are read as hidden
(``RecordedRound.hidden``), for the verifier to fill from the revealed seeds or to report as
not checked. Rounds are named from 1 in messages, as players number them.
"""

from __future__ import annotations

import json

from .record_model import FORMAT, Fairness, MalformedRecord, MatchRecord, RecordedAction, RecordedRound
from services.rules import rulesets
from services.rules.errors import BadOptions, MalformedTile
from services.rules.registry import find, names
from services.rules.moves import DRAW, END_OF_NAME, PASS, play
from services.rules.state import Deal
from services.rules.tiles import mask_of, parse_tile
from .untrusted_json import UntrustedJson, parse


def loads(text: str | bytes) -> MatchRecord:
    """A record from a file anyone may have written: any fault is a MalformedRecord
    (untrusted_json.py: no nesting, number or lone surrogate can crash the reader)."""
    try:
        data = parse(text)
    except UntrustedJson as e:
        raise MalformedRecord(str(e)) from None
    return from_json(data)


def _need(obj: dict, key: str, kind, where: str):
    if key not in obj:
        raise MalformedRecord(f"{where} is missing the field {key!r}")
    value = obj[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise MalformedRecord(f"{where}: {key!r} must be {_article(names)}, not {json.dumps(value)[:40]}")
    return value


def _article(name: str) -> str:
    return {"str": "a string", "int": "a whole number", "bool": "true or false", "list": "a list", "dict": "an object"}.get(
        name, name
    )


def _tile(text, where: str) -> int:
    try:
        return parse_tile(text)
    except MalformedTile as e:
        raise MalformedRecord(f"{where}: {e}") from None


def from_json(data) -> MatchRecord:
    if not isinstance(data, dict):
        raise MalformedRecord("the record must be a JSON object")
    fmt = _need(data, "format", str, "the record")
    if fmt != FORMAT:
        raise MalformedRecord(f"unknown format {fmt!r}; expected {FORMAT!r}")
    name = _need(data, "rules", str, "the record")
    family = find(name)
    if family is None:
        raise MalformedRecord(f"unknown rules {name!r}; a record names one of {', '.join(names())}")
    shape = family.record
    if shape.variant:
        variant: str | None = _need(data, "variant", str, "the record")
    elif data.get("variant") is not None:
        raise MalformedRecord(f"{name} has no variants: 'variant' must be null or absent")
    else:
        variant = None
    teams = _need(data, "teams", bool, "the record") if shape.teams_required or "teams" in data else None
    target = _need(data, "target", int, "the record") if not family.target_implied or "target" in data else None
    seats = _need(data, "seats", list, "the record")
    rounds = _need(data, "rounds", list, "the record")
    if not all(isinstance(s, str) and s for s in seats):
        raise MalformedRecord("'seats' must list the players' ids, each a non-empty string")
    options = _need(data, "options", dict, "the record") if shape.options else None
    option_names = [o.name for o in family.options]
    if options is not None and set(options) != set(option_names):
        raise MalformedRecord(f"'options' must hold exactly {', '.join(option_names)}")
    try:
        rules = family.build(variant, len(seats), teams, options)
        target = rules.default_target if target is None else target
        rulesets.check_target(rules, target)
    except BadOptions as e:
        raise MalformedRecord(str(e)) from None
    if len(seats) != rules.seats:
        raise MalformedRecord(f"'seats' must list {rules.seats} player ids for {rules.name}")
    record = MatchRecord(name, variant, rules.teams, target, list(seats),
                         options=family.played_options(rules) if options is not None else None)
    if "viewer_seat" in data:
        viewer = _need(data, "viewer_seat", int, "the record")
        if not 0 <= viewer < rules.seats:
            raise MalformedRecord(f"'viewer_seat' must be a seat from 0 to {rules.seats - 1}, not {viewer}")
        record.viewer_seat = viewer
    for r, rnd in enumerate(rounds):
        record.rounds.append(_round_from_json(rnd, r, rules, shape.every_boneyard, record.viewer_seat))
    if "abandoned" in data:
        record.abandoned = _need(data, "abandoned", bool, "the record")
    if "fairness" in data:
        record.fairness = _fairness_from_json(data["fairness"], len(seats))
    if "chain" in data:
        record.chain = _chain_from_json(data["chain"])
    return record


def _chain_from_json(data) -> dict:
    """The chain's shape only: whether its links and head are right is the verifier's job."""
    if not isinstance(data, dict):
        raise MalformedRecord("'chain' must be an object")
    links = data.get("links")
    if links is not None and (not isinstance(links, list) or not all(
            isinstance(h, str) and len(h) == 64 and all(c in "0123456789abcdef" for c in h) for h in links)):
        raise MalformedRecord("chain: 'links' must be a list of SHA-256 digests (64 lowercase hex digits)")
    head = data.get("head")
    if head is not None and not isinstance(head, dict):
        raise MalformedRecord("chain: 'head' must be an object")
    return {k: v for k, v in (("links", links), ("head", head)) if v is not None}


def _round_from_json(rnd, r: int, rules: rulesets.RuleSet, every_boneyard: bool,
                     viewer: int | None = None) -> RecordedRound:
    """``every_boneyard``: the family writes a boneyard where its rule set deals none (the
    record shape's); ``viewer``: the seat of a player's export, whose hidden parts are read as
    counts and nulls."""
    where = f"round {r + 1}"  # rounds are named as players number them
    if not isinstance(rnd, dict):
        raise MalformedRecord(f"{where} must be an object")
    hands = _need(rnd, "hands", list, where)
    actions = _need(rnd, "actions", list, where)
    hand_order: list[tuple[int, ...]] = []
    hidden_hands: dict[int, int] = {}
    for s, hand in enumerate(hands):
        if viewer is not None and s != viewer and _is_count(hand):
            hidden_hands[s] = hand  # another seat's hand in the round in play
            hand_order.append(())
            continue
        if not isinstance(hand, list):
            raise MalformedRecord(f"{where}: hand {s} must be a list of tiles"
                                  + (" or, in another seat's hand, a count from 0 to 28" if viewer is not None else ""))
        hand_order.append(tuple(_tile(t, f"{where} hand {s}") for t in hand))
    has_boneyard = rules.draws or every_boneyard
    sets_aside = not has_boneyard and rules.undealt > 0  # block-3
    boneyard: tuple[int, ...] = ()
    boneyard_count = None
    if viewer is not None and _is_count(rnd.get("boneyard")):
        boneyard_count = rnd["boneyard"] if has_boneyard or rnd["boneyard"] else None  # 0 where none: absent
    elif viewer is not None and isinstance(rnd.get("boneyard"), int) and not isinstance(rnd["boneyard"], bool):
        raise MalformedRecord(f"{where}: 'boneyard' counts from 0 to 28 tiles, not {rnd['boneyard']}")
    elif viewer is None and _is_count(rnd.get("boneyard")) and rnd["boneyard"]:
        raise MalformedRecord(f"{where}: 'boneyard' must be a list of tiles, not {rnd['boneyard']} (only a player's "
                              "export, which names its 'viewer_seat', counts them)")
    elif has_boneyard or rnd.get("boneyard"):
        boneyard = tuple(_tile(t, f"{where} boneyard") for t in _need(rnd, "boneyard", list, where))
    set_aside = -1
    set_aside_hidden = viewer is not None and sets_aside and "set_aside" in rnd and rnd["set_aside"] is None
    if (sets_aside or rnd.get("set_aside") is not None) and not set_aside_hidden:
        set_aside = _tile(_need(rnd, "set_aside", str, where), f"{where} set_aside")
    stray = None  # tiles written where the rule set deals none
    if boneyard_count and not has_boneyard:
        stray, boneyard_count = f"{rules.name} deals no boneyard, but this round counts {boneyard_count} tiles in one", None
    if boneyard and not has_boneyard:
        stray, boneyard = f"{rules.name} deals no boneyard, but this round lists tiles in one", ()
    if set_aside >= 0 and not sets_aside:
        stray, set_aside = f"{rules.name} sets no tile aside, but this round has a 'set_aside'", -1
    leader = _need(rnd, "leader", int, where) if "leader" in rnd else None
    redeal = _need(rnd, "redeal", bool, where) if "redeal" in rnd else None
    masks = tuple(mask_of(h) for h in hand_order)  # the verifier checks hand_order for repeats
    recorded = RecordedRound(Deal(masks, boneyard, set_aside), hand_order=tuple(hand_order), leader=leader,
                             redeal=redeal, stray=stray, hidden_hands=hidden_hands, boneyard_count=boneyard_count,
                             set_aside_hidden=set_aside_hidden)
    for a, action in enumerate(actions):
        recorded.actions.append(_action_from_json(action, f"{where} action {a}", viewer))
    return recorded


def _is_count(value) -> bool:
    """A count of hidden tiles: a whole number from 0 to 28."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 28


def _action_from_json(action, where: str, viewer: int | None = None) -> RecordedAction:
    if not isinstance(action, dict):
        raise MalformedRecord(f"{where} must be an object")
    seat = _need(action, "seat", int, where)
    kinds = [k for k in ("play", "draw", "pass") if k in action]
    if len(kinds) != 1:
        raise MalformedRecord(f"{where} must have exactly one of 'play', 'draw' or 'pass', not {len(kinds)}")
    timeout = action.get("timeout", False)
    if not isinstance(timeout, bool):
        raise MalformedRecord(f"{where}: 'timeout' must be true or false")
    kind = kinds[0]
    if kind == "pass":
        if action["pass"] is not True:
            raise MalformedRecord(f"{where}: 'pass' must be true")
        return RecordedAction(seat, PASS, timeout=timeout)
    if kind == "draw":
        if action["draw"] is None and viewer is not None and seat != viewer:
            return RecordedAction(seat, DRAW, -1, timeout)  # another seat's draw in the round in play
        return RecordedAction(seat, DRAW, _tile(action["draw"], where), timeout)
    t = _tile(action["play"], where)
    end = action.get("end")
    if end is None:
        return RecordedAction(seat, play(t), timeout=timeout)
    if not isinstance(end, str):
        raise MalformedRecord(f"{where}: 'end' must be a string naming an end, not {json.dumps(end)[:40]}")
    if end not in END_OF_NAME:
        return RecordedAction(seat, play(t), timeout=timeout, unknown_end=end)
    return RecordedAction(seat, play(t, END_OF_NAME[end]), timeout=timeout)


def _fairness_from_json(data, seats: int) -> Fairness:
    where = "fairness"
    if not isinstance(data, dict):
        raise MalformedRecord("'fairness' must be an object")
    commitment = _need(data, "commitment", str, where)
    if len(commitment) != 64 or any(c not in "0123456789abcdefABCDEF" for c in commitment):
        raise MalformedRecord("fairness: 'commitment' must be a SHA-256 digest in hex (64 characters)")
    server_seed = data.get("server_seed")
    if server_seed is not None:
        if not isinstance(server_seed, str):
            raise MalformedRecord("fairness: 'server_seed' must be a hex string")
        try:
            bytes.fromhex(server_seed)
        except ValueError:
            raise MalformedRecord("fairness: 'server_seed' must be a hex string") from None
    client_seeds = data.get("client_seeds", [])
    if not isinstance(client_seeds, list) or not all(isinstance(s, str) for s in client_seeds):
        raise MalformedRecord("fairness: 'client_seeds' must be a list of strings")
    return Fairness(commitment, server_seed, client_seeds)
