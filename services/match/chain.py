"""A match's hash chain: what makes an edit of its stored log visible (docs/record.md,
"The hash chain").

The chain is defined over what a `domino-record/1` holds, so anyone can recompute it from an
export alone: the match's header, each round's deal (and a redeal mark), each action, and
the match's end are its entries, in record order, and each link hashes the previous link
with the entry's canonical JSON. The stored event that adds an entry carries its link;
events the record does not show (a seat going away, a round's scores, which are
recomputed) add none.

Every link is keyed with a salt derived from the server seed. Players receive signed chain
heads during play, and a head over unsalted entries would let a seat try the few thousand
ways the hidden tiles can lie until one hashes right; the seed stays secret until the
match ends, so nobody can, and once it is revealed anyone can recompute every link.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Union

from .record import MatchRecord, RecordedAction, RecordedRound, action_to_json, round_to_json, to_json
from services.rules import fairness
from services.rules.registry import family

CHAIN = "domino-chain/1"
GENESIS = "0" * 64  # the link before the first entry
_SALT_LABEL = CHAIN.encode() + b" salt\x00"


def canonical(value: Any) -> bytes:
    """JSON with sorted keys, no spaces, UTF-8: RFC 8785 for the values a record holds (no
    floats), so every implementation writes the same bytes."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def salt(server_seed: str) -> bytes:
    return hashlib.sha256(_SALT_LABEL + bytes.fromhex(server_seed)).digest()


def link(key: bytes, previous: str, entry: dict) -> str:
    return hashlib.sha256(key + bytes.fromhex(previous) + canonical(entry)).hexdigest()


# ---- the entries, each built from the record's own JSON of that part ---------------------

def header_entry(record: MatchRecord) -> dict:
    header = to_json(MatchRecord(record.rules, record.variant, record.teams, record.target, record.seats,
                                 options=record.options))
    del header["rounds"]
    header["entry"] = "match"
    header["commitment"] = record.fairness.commitment if record.fairness is not None else None
    return header


def deal_entry(rnd: RecordedRound, every_boneyard: bool, client_seeds: list[str] | None) -> dict:
    """``client_seeds``: given with the first deal, the first entry that depends on them."""
    deal = round_to_json(RecordedRound(rnd.deal, hand_order=rnd.hand_order, leader=rnd.leader), every_boneyard)
    del deal["actions"]
    deal["entry"] = "deal"
    if client_seeds is not None:
        deal["client_seeds"] = list(client_seeds)
    return deal


REDEAL_ENTRY = {"entry": "redeal"}


def action_entry(action: RecordedAction) -> dict:
    return {**action_to_json(action), "entry": "action"}


def end_entry(server_seed: str | None, abandoned: bool, client_seeds: list[str] | None) -> dict:
    """``client_seeds``: only when no round was dealt (else the first deal holds them)."""
    end: dict = {"entry": "end", "server_seed": server_seed, "abandoned": abandoned}
    if client_seeds is not None:
        end["client_seeds"] = list(client_seeds)
    return end


# ---- what a stored event shows to the record, and the entry it adds ---------------------

@dataclass(frozen=True)
class Redeal:
    """The round's deal was thrown in (a Goat option): the record marks the round."""


@dataclass(frozen=True)
class End:
    server_seed: str
    abandoned: bool


@dataclass(frozen=True)
class ClientSeed:
    """A seat's seed, shown in the record's fairness; it adds no entry of its own, as the
    first deal's entry (or the end's, when none was dealt) holds every seed."""
    seat: int
    seed: str


REDEAL = Redeal()
# The header, a deal, an action, a redeal mark, the end, a client seed (each event class's ``recorded``).
Shown = Union[MatchRecord, RecordedRound, RecordedAction, Redeal, End, ClientSeed]


def entry(shown: Shown | None, every_boneyard: bool, client_seeds: list[str] | None) -> dict | None:
    """The entry for what an event shows, None for what adds none. ``client_seeds``: while no
    deal has held them (the family's ``record.every_boneyard`` shapes a deal's entry)."""
    match shown:
        case MatchRecord():
            return header_entry(shown)
        case RecordedRound():
            return deal_entry(shown, every_boneyard, client_seeds)
        case RecordedAction():
            return action_entry(shown)
        case Redeal():
            return REDEAL_ENTRY
        case End(server_seed, abandoned):
            return end_entry(server_seed, abandoned, client_seeds)
    return None


@dataclass(frozen=True)
class Entry:
    where: str  # for people, who number rounds from 1: "round 2, action 5"
    round: int | None  # for the verifier's fault positions: the round's index, from 0
    action: int | None
    content: dict


def entries(record: MatchRecord) -> list[Entry]:
    """The record's entries in chain order."""
    seeds = list(record.fairness.client_seeds) if record.fairness is not None else None
    every_boneyard = family(record.rules).record.every_boneyard
    out = [Entry("the match's header", None, None, header_entry(record))]
    for r, rnd in enumerate(record.rounds):
        out.append(Entry(f"round {r + 1}'s deal", r, None, deal_entry(rnd, every_boneyard, seeds if r == 0 else None)))
        if rnd.redeal:
            out.append(Entry(f"round {r + 1}'s redeal mark", r, None, REDEAL_ENTRY))
        for a, action in enumerate(rnd.actions):
            out.append(Entry(f"round {r + 1}, action {a}", r, a, action_entry(action)))
    seed = record.fairness.server_seed if record.fairness is not None else None
    if seed is not None:
        out.append(Entry("the match's end", None, None,
                         end_entry(seed, record.abandoned, None if record.rounds else seeds)))
    return out


def links(record: MatchRecord) -> list[str] | None:
    """Every link, recomputed from the record; None until the server seed is revealed."""
    seed = record.fairness.server_seed if record.fairness is not None else None
    if seed is None:
        return None
    key = salt(seed)
    out = []
    previous = GENESIS
    for entry in entries(record):
        previous = link(key, previous, entry.content)
        out.append(previous)
    return out


@dataclass(frozen=True)
class ChainCheck:
    """``status``: "ok", "broken" (``first_bad`` names the first entry whose stored link does
    not match), "absent" (the record carries no chain) or "unchecked" (no seed revealed)."""

    status: str
    entries: int
    first_bad: int | None = None
    where: str | None = None
    round: int | None = None
    action: int | None = None
    message: str = ""

    def to_json(self) -> dict:
        out: dict = {"status": self.status, "entries": self.entries}
        if self.first_bad is not None:
            out["first_bad"] = {"entry": self.first_bad, "where": self.where,  # rounds from 1, as in "where"
                                "round": None if self.round is None else self.round + 1, "action": self.action}
        if self.message:
            out["message"] = self.message
        return out


def check(record: MatchRecord, stored: list[str] | None) -> ChainCheck:
    """Each stored link against its entry and the stored link before it, so an edit of one
    field breaks exactly the entry that holds it (and a relinked chain is the heads' job).

    A changed server seed changes the salt of every link; when no entry verifies and the
    seed no longer matches the commitment, the break is put where the seed is: the end."""
    listed = entries(record)
    if stored is None:
        return ChainCheck("absent", len(listed))
    seed = record.fairness.server_seed if record.fairness is not None else None
    if seed is None:
        return ChainCheck("unchecked", len(listed), message="the server seed is not revealed yet: the links "
                                                            "are keyed with it (docs/record.md)")
    key = salt(seed)
    bad = [i for i, entry in enumerate(listed)
           if i >= len(stored) or link(key, stored[i - 1] if i else GENESIS, entry.content) != stored[i]]
    if len(stored) > len(listed):
        bad.append(len(listed))
    if not bad:
        return ChainCheck("ok", len(listed))
    first = bad[0]
    assert record.fairness is not None  # a seed was revealed
    if len(bad) >= len(listed) and fairness.commitment(bytes.fromhex(seed)) != record.fairness.commitment:
        first = len(listed) - 1
        return _broken(listed, first, "the revealed server seed does not match the commitment, and no link "
                                      "verifies with it")
    if first >= len(listed):
        return ChainCheck("broken", len(listed), first, "after the match's end", None, None,
                          f"the chain has {len(stored)} links but the record only {len(listed)} entries")
    if first >= len(stored):
        return _broken(listed, first, f"the chain has only {len(stored)} links for {len(listed)} entries")
    return _broken(listed, first, "its link does not match its content and the link before it")


def _broken(listed: list[Entry], first: int, message: str) -> ChainCheck:
    entry = listed[first]
    return ChainCheck("broken", len(listed), first, entry.where, entry.round, entry.action,
                      f"entry {first} ({entry.where}): {message}")
