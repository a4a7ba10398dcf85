"""Does this build replay every stored match as it was played? (`domino audit replay-all`;
docs/operations.md, "Replaying every match before an upgrade".)

A match is its stored events folded through the engine, so a new engine that replays a
match differently changes a stored game: a move it now refuses freezes the match, and a
result it now computes otherwise makes the stored RoundEnded or MatchEnded disagree
(results.py refuses it). Run against a copy of production with the new build, this finds
such matches before players do, so a deploy can be gated on it.

For each match it checks what the running code recomputes from the stored facts:
- the events folded through the aggregate, as a replica loads the match: every move legal
  and every stored result the replay's (``StoredResultMismatch``);
- the hash chain's stored links against links recomputed from the events' content
  (repair.py's check, with the seed from the store, so matches in play are checked too);
- the record verified as an auditor's export is (verify.py): each deal the one the seeds
  give, each leader and each timed-out move the engine's, and the state it ends in the one
  the aggregate reached;
- that the aggregate has nothing left to do: a round end, deal or forced move the engine
  would make now but the store lacks means the stored log stops where this build would not.

It lives with the auditor's tools rather than in the match service because it is an
operator's offline check, like `repair-report`: it reads the store through the match
application the command line opens with the service's own persistence settings, a batch
of matches at a time and one match's events at a time, and changes nothing.
"""

from __future__ import annotations

import copy
import dataclasses
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator
from uuid import UUID

from eventsourcing.persistence import PersistenceError

from services.match.domainmodel import Match
from services.match.errors import StoredResultMismatch
from services.match.export import full_record
from services.rules.errors import RulesError

from .repair import _chain_report as chain_report
from .stored_rows import UnreadableRow, decoded, match_id_of, started_matches
from .verify import verify

BATCH = 500  # matches listed per read of the notification log


@dataclass
class Difference:
    kind: str  # "refused", "result", "chain", "record", "state"
    reason: str
    version: int | None = None  # the stored event it concerns, when one

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "version": self.version, "reason": self.reason}


@dataclass
class Summary:
    matches: int = 0
    replayed: int = 0  # replayed exactly as stored
    differing: list[dict[str, Any]] = field(default_factory=list)
    failed: list[dict[str, Any]] = field(default_factory=list)  # could not be replayed at all
    seconds: float = 0.0

    @property
    def same(self) -> bool:
        return not self.differing and not self.failed

    def to_json(self) -> dict[str, Any]:
        return {"matches": self.matches, "replayed": self.replayed, "differing": self.differing,
                "failed": self.failed, "seconds": round(self.seconds, 3)}


def stored_matches(app, batch: int = BATCH) -> tuple[int, Iterator[tuple[int, Any]]]:
    """(the last notification id now, the matches started up to it as (notification id,
    match id as stored), read ``batch`` at a time): a snapshot, so a live store does not run
    on forever."""
    last = app.recorder.max_notification_id() or 0

    def listed() -> Iterator[tuple[int, Any]]:
        position = 0
        while position < last:
            notes = started_matches(app, position, batch, last)
            if not notes:
                return
            yield from notes
            position = notes[-1][0]

    return last, listed()


def replay_all(app, batch: int = BATCH, progress: Callable[[int], None] = lambda position: None) -> Summary:
    """Every stored match replayed; ``progress`` is told each match's notification id. A
    match whose rows cannot be read is one failure, named with its reason; the run goes on."""
    started = time.perf_counter()
    summary = Summary()
    _, matches = stored_matches(app, batch)
    for position, stored_id in matches:
        summary.matches += 1
        name = str(stored_id)[:200]
        try:
            match_id = match_id_of(stored_id)
            name = str(match_id)
            found = replay_match(app, match_id)
        except PersistenceError:
            raise  # the store, not the match: the run cannot go on
        except UnreadableRow as error:
            summary.failed.append({"match": name, "reason": str(error)})
        except Exception as error:  # noqa: BLE001 - a bug, or a row this build cannot apply: named, and the run goes on
            summary.failed.append({"match": name, "reason": f"{type(error).__name__}: {error}"[:500]})
        else:
            if found:
                summary.differing.append({"match": name, "differences": [d.to_json() for d in found]})
            else:
                summary.replayed += 1
        progress(position)
    summary.seconds = time.perf_counter() - started
    return summary


def replay_match(app, match_id: UUID) -> list[Difference]:
    """What this build replays differently from what the store holds for the match; []
    when nothing. A row that is no readable Match event is raised (``UnreadableRow``)."""
    events = [decoded(app, row) for row in app.recorder.select_events(match_id)]
    found: list[Difference] = []
    aggregate = None
    for event in events:
        try:
            aggregate = event.mutate(aggregate)
        except StoredResultMismatch as error:
            found.append(Difference("result", str(error), event.originator_version))
            break
        except RulesError as error:
            found.append(Difference("refused", f"{_named(event)}: {type(error).__name__}: {error}",
                                    event.originator_version))
            break
    chain = chain_report(events)
    if chain["status"] == "broken":
        found.append(Difference("chain", chain.get("message", "a stored link does not match its content"),
                                chain.get("first_bad_version")))
    if found or not isinstance(aggregate, Match):
        return found
    found += _record_differences(events, aggregate)
    return found + _unsettled(aggregate)


def _record_differences(events: list, aggregate: Match) -> list[Difference]:
    """The events as an auditor's record, with the stored seed so that even a match in play
    has its deals checked, verified; its chain is repair.py's to check (the end entry a
    revealed seed implies is not stored before the end)."""
    record = full_record(events)
    assert record.fairness is not None  # full_record always writes the commitment
    record = dataclasses.replace(record, chain=None, fairness=dataclasses.replace(
        record.fairness, server_seed=aggregate.server_seed))
    verdict = verify(record)
    if verdict.fault is not None:
        f = verdict.fault
        where = "the record" if f.round is None else f"round {f.round + 1}" + (
            "" if f.action is None else f", action {f.action}")
        return [Difference("record", f"{where}: {f.message}")]
    if _comparable(verdict.match) != _comparable(aggregate.state):
        return [Difference("state", f"the record replays to scores {list(verdict.match.scores)}, winner "
                                    f"{verdict.match.winner}; the aggregate to scores {list(aggregate.state.scores)}, "
                                    f"winner {aggregate.state.winner}")]
    return []


def _comparable(state) -> tuple:
    """The engine's state as a value: a round is a mutable object of slots without equality."""
    rnd = state.round
    slots = () if rnd is None else tuple((name, getattr(rnd, name, None))
                                         for cls in type(rnd).__mro__ for name in getattr(cls, "__slots__", ()))
    return state._replace(round=None), type(rnd).__name__, slots


def _unsettled(aggregate: Match) -> list[Difference]:
    """A move the aggregate would make at once after the stored log (announce a round's end,
    deal, pass for a seat that cannot move): after every command the store holds a match
    with none left, so one now means this build ends or plays where the stored one did not."""
    if aggregate.finished or aggregate.awaiting:
        return []
    probe = copy.deepcopy(aggregate)
    try:
        probe._advance(aggregate.deadline or 0.0)
    except (RulesError, StoredResultMismatch) as error:
        return [Difference("state", f"after the last stored event this build refuses to go on: {error}")]
    pending = probe.collect_events()
    if not pending:
        return []
    made = ", ".join(_named(e) for e in pending[:3])
    return [Difference("state", f"after the last stored event (version {aggregate.version}) this build would "
                                f"store {made}{' …' if len(pending) > 3 else ''} at once: the stored match "
                                "stops where it would not", aggregate.version)]


def _named(event) -> str:
    return type(event).__qualname__
