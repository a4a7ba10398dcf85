"""What each chain entry of a record is vouched for by: its stored link, the heads the players
kept, the witness's final head (docs/record.md, "The hash chain", "Signed heads", "The
witness").

`domino audit verify` answers one question for the whole record and names the first entry
that fails; the replay page shows the answer at every step, so an auditor sees where the
evidence stops agreeing. Each mark is one of ``MARKS``; a piece of evidence the console could
not reach is "not checked", never "agrees".
"""

from __future__ import annotations

from dataclasses import dataclass

from services.audit.evidence import Finding
from services.match import chain
from services.match.heads import Head
from services.match.record import MatchRecord

AGREES = "agrees"
DISAGREES = "disagrees"
CHANGED_HERE = "changed here or before the next head"
NOT_COVERED = "not covered by a head"
NOT_CHECKED = "not checked"
ABSENT = "absent"
MARKS = (AGREES, DISAGREES, CHANGED_HERE, NOT_COVERED, NOT_CHECKED, ABSENT)
TROUBLE = (DISAGREES, CHANGED_HERE)  # what makes a step suspect


@dataclass(frozen=True)
class EntryMarks:
    link: str  # the link stored for the entry ("" when the record stores none)
    recomputed: str  # the link recomputed from the record's content ("" before the seed is revealed)
    chain: str  # the stored link against its content and the stored link before it
    heads: str  # the players' kept heads
    witness: str  # the witness's final head


def chain_marks(record: MatchRecord, listed: list[chain.Entry]) -> list[str]:
    """Each stored link checked as chain.check checks them all."""
    stored = (record.chain or {}).get("links")
    seed = record.fairness.server_seed if record.fairness is not None else None
    if stored is None:
        return [ABSENT] * len(listed)
    if seed is None:
        return [NOT_CHECKED] * len(listed)
    key = chain.salt(seed)
    return [AGREES if i < len(stored) and chain.link(key, stored[i - 1] if i else chain.GENESIS, e.content) == stored[i]
            else DISAGREES for i, e in enumerate(listed)]


def head_marks(kept: list[Head] | None, recomputed: list[str] | None, entries: int) -> list[str]:
    """Kept heads against the recomputed links: entries before the last agreeing head agree;
    from there to the first disagreeing head is where the log was changed; after it, nothing
    agrees (every link hashes the one before)."""
    if kept is None or recomputed is None:
        return [NOT_CHECKED] * entries
    if not kept:
        return [ABSENT] * entries
    agreed = 0
    first_bad: int | None = None
    for head in sorted(kept, key=lambda h: (h.entries, h.version)):
        if head.entries == 0:
            continue
        if head.entries > entries or recomputed[head.entries - 1] != head.hash:
            first_bad = min(head.entries, entries)
            break
        agreed = head.entries
    marks = []
    for e in range(entries):
        if e < agreed:
            marks.append(AGREES)
        elif first_bad is None:
            marks.append(NOT_COVERED)
        else:
            marks.append(CHANGED_HERE if e < first_bad else DISAGREES)
    return marks


def witness_marks(finding: Finding | None, entries: int) -> list[str]:
    """The witness holds one head, the final one, so it vouches for every entry or none."""
    if finding is None or finding.status == "unchecked":
        return [NOT_CHECKED] * entries
    mark = {"ok": AGREES, "broken": DISAGREES}.get(finding.status, ABSENT)
    return [mark] * entries


def entry_marks(record: MatchRecord, kept: list[Head] | None, witness: Finding | None) -> list[EntryMarks]:
    listed = chain.entries(record)
    stored = list((record.chain or {}).get("links") or [])
    recomputed = chain.links(record)
    n = len(listed)
    links = chain_marks(record, listed)
    heads = head_marks(kept, recomputed, n)
    witnessed = witness_marks(witness, n)
    return [EntryMarks(stored[i] if i < len(stored) else "", recomputed[i] if recomputed else "",
                       links[i], heads[i], witnessed[i]) for i in range(n)]
