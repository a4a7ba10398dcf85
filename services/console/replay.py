"""A match record turned into the steps the replay page shows: one step per chain entry (the
header, each deal, a redeal mark, each action, the end), each with the board and every hand
after it, the scores, its chain entry and what the evidence says of it (step_evidence.py),
and the verdict `domino audit verify` prints for the whole record.

The verdict comes from services/audit/verify.py itself, never from a copy of its checks: the
steps only replay the engine up to the first fault verify found, and mark the step where it
lies (or where the chain or the heads first disagree), so a tampered record shows where it
was changed. Pure: the page gathers the evidence (keys, heads, witness) and passes it in.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from services.audit.evidence import Finding
from services.audit.report import render, seat_labels
from services.audit.seat_export import reveal
from services.audit.verify import Fault, Verdict, verify
from services.match import chain
from services.match.chain import canonical
from services.match.heads import Head, PublishedKeys
from services.match.record import MatchRecord, RecordedAction
from services.rules.errors import RulesError
from services.rules.match import apply, leads_by_chance, new_match, start_round
from services.rules.moves import END_NAMES
from services.rules.state import MatchState
from services.rules.tiles import NAMES, tiles_in
from services.rules.view import Layout, line_of

from .step_evidence import TROUBLE, EntryMarks, entry_marks


@dataclass(frozen=True)
class Step:
    number: int  # the chain entry's index, from 0
    where: str  # "round 2, action 5", as the verifier names an entry
    kind: str  # "match", "deal", "redeal", "action" or "end"
    said: str  # what happened, in words
    entry: str  # the entry's canonical JSON, as the chain hashes it
    marks: EntryMarks
    replayed: bool  # False from the step where the replay stopped (or never reached)
    fault: str = ""  # the verifier's fault, at the step it names
    board: Layout = Layout(())
    hands: tuple[tuple[str, ...], ...] = ()  # every seat's tiles after the step (auditors only)
    boneyard: int = 0
    scores: tuple[int, ...] = ()
    turn: int | None = None

    @property
    def suspect(self) -> bool:
        """Something at this step disagrees: the replay, its link or the players' heads (the
        witness holds the final head alone, so it cannot say where)."""
        return bool(self.fault) or self.marks.chain in TROUBLE or self.marks.heads in TROUBLE


@dataclass(frozen=True)
class Replay:
    record: MatchRecord
    verdict: Verdict
    steps: tuple[Step, ...]
    report: str  # what `domino audit verify` prints
    witness: Finding | None  # None: the witness could not be read
    changed_at: int | None  # the first suspect step

    @property
    def valid(self) -> bool:
        return self.verdict.valid and (self.witness is None or self.witness.status != "broken")


def replay(record: MatchRecord, keys: PublishedKeys | None = None, kept: list[Head] | None = None,
           witness: Finding | None = None) -> Replay:
    """``kept``: the heads the players kept (None: none could be had); ``witness``: the
    comparison with the witness stream (services/audit/witness.compare; None: not read)."""
    record = reveal(record)
    verdict = verify(record, keys, kept)
    listed = chain.entries(record)
    marks = entry_marks(record, kept, witness)
    fault_at = _fault_entry(listed, verdict.fault)
    labels = seat_labels(record.seats)
    steps: list[Step] = []
    match: MatchState | None = new_match(record.rule_set(), record.target)
    for i, entry in enumerate(listed):
        fault = verdict.fault.message if verdict.fault is not None and i == fault_at else ""
        if match is not None and (fault_at is None or i < fault_at):
            match = _advance(match, record, entry)
        else:
            match = None
        said = _said(record, entry, labels)
        step = Step(i, entry.where, entry.content["entry"], said, canonical(entry.content).decode(), marks[i],
                    match is not None, fault)
        steps.append(_with_state(step, match) if match is not None else step)
    changed = next((s.number for s in steps if s.suspect), None)
    return Replay(record, verdict, tuple(steps), render(record, verdict), witness, changed)


def _fault_entry(listed: list[chain.Entry], fault: Fault | None) -> int | None:
    """The entry a rules fault names: its action, or its round's deal; a fault of the
    record as a whole (the seed) at the end."""
    if fault is None:
        return None
    for i, entry in enumerate(listed):
        if entry.round == fault.round and entry.action == fault.action and entry.content["entry"] != "redeal":
            return i
    return len(listed) - 1


def _advance(match: MatchState, record: MatchRecord, entry: chain.Entry) -> MatchState | None:
    """The match after the entry; None when the engine refuses it (verify named no fault
    there only when a fault before it stopped the replay)."""
    try:
        if entry.content["entry"] == "deal":
            assert entry.round is not None
            rnd = record.rounds[entry.round]
            chance = rnd.leader if leads_by_chance(match) and rnd.leader is not None else -1
            return start_round(match, rnd.deal._replace(chance=chance))
        if entry.content["entry"] == "action":
            assert entry.round is not None and entry.action is not None
            return apply(match, record.rounds[entry.round].actions[entry.action].move)
    except RulesError:
        return None
    return match


def _with_state(step: Step, match: MatchState) -> Step:
    rnd = match.round
    if rnd is None:
        return replace(step, scores=match.scores)
    live = rnd.outcome is None
    return replace(step, board=line_of(rnd.actions(), spinner=rnd.four_ends),
                   hands=tuple(tuple(NAMES[t] for t in tiles_in(h)) for h in rnd.hands),
                   boneyard=rnd.boneyard_left, scores=match.scores, turn=rnd.turn if live else None)


def _said(record: MatchRecord, entry: chain.Entry, labels: list[str]) -> str:
    kind = entry.content["entry"]
    if kind == "match":
        return "the match: " + ", ".join(f"seat {i} {label}" for i, label in enumerate(labels))
    if kind == "deal":
        return f"round {(entry.round or 0) + 1} dealt"
    if kind == "redeal":
        return f"round {(entry.round or 0) + 1} thrown in: redealt"
    if kind == "end":
        return "the match ended" + (", abandoned" if record.abandoned else "") + "; the server seed revealed"
    assert entry.round is not None and entry.action is not None
    action = record.rounds[entry.round].actions[entry.action]
    return f"seat {action.seat} ({labels[action.seat]}) {_move_words(action)}"


def _move_words(action: RecordedAction) -> str:
    move = action.move
    late = " (timed out)" if action.timeout else ""
    if move.kind == "play":
        where = f" on the {END_NAMES[move.end]}" if move.end is not None else ""
        return f"plays {NAMES[move.tile]}{where}{late}"
    if move.kind == "draw":
        return f"draws {NAMES[action.drawn] if action.drawn >= 0 else 'a hidden tile'}{late}"
    return f"passes{late}"

