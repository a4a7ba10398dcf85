"""The human-readable account `domino audit verify` prints without --json: one line a
round, with the family's own columns (``Family.round_columns``: All Fives' points scored
during play; Goat's written, remembered and pot). Rounds are numbered from 1, as `domino
play` numbers them."""

from __future__ import annotations

from typing import Callable

from services.match.record import MatchRecord
from services.match.rules.families.family import Family, RoundColumn
from services.match.rules.families.registry import family as family_named
from services.match.rules.state import RoundResult

from .verify import Verdict


def shown(text: str) -> str:
    """``text`` with every character a terminal would act on (line breaks, escapes, bidi
    controls) written as its escape: a hostile record's seat id cannot forge or recolour
    the lines an auditor reads."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape", "backslashreplace").decode("ascii")
                   for c in text)


def seat_name(record: MatchRecord, seat: int) -> str:
    return shown(record.seats[seat])


def side_name(record: MatchRecord, side: int | None) -> str:
    if side is None:
        return "-"
    if record.teams:
        return f"team {side} ({seat_name(record, side)} & {seat_name(record, side + 2)})"
    return f"seat {side} ({seat_name(record, side)})"


def _slashed(values) -> str:
    return " / ".join(map(str, values))


def _title(record: MatchRecord) -> str:
    rules = record.rules + (f" {record.variant}" if record.variant else "")
    options = ""
    if record.options:
        options = " (" + ", ".join(f"{k}={str(v).lower()}" for k, v in record.options.items()) + ")"
    return (f"{rules}{options} {'teams' if record.teams else 'solo'}, target {record.target}: "
            + ", ".join(f"{i}={shown(name)}" for i, name in enumerate(record.seats)))


def _columns(family: Family, text: Callable[[RoundColumn], str]) -> str:
    """The family's own columns (``Family.round_columns``), two spaces before the first."""
    cells = [f"{text(c):>{c.width}}" if c.right else f"{text(c):<{c.width}}" for c in family.round_columns]
    return "  " + " ".join(cells) if cells else ""


def _evidence_lines(verdict: Verdict) -> list[str]:
    evidence = verdict.evidence
    if evidence is None:
        return []
    c = evidence.chain
    lines = [f"chain: {c.status} ({c.entries} entries)" + (f": {shown(c.message)}" if c.message else "")]
    for name, finding in (("signed head", evidence.signature), ("player's heads", evidence.heads)):
        lines.append(f"{name}: {finding.status}" + (f": {shown(finding.message)}" if finding.message else ""))
    return lines + [""]


def render(record: MatchRecord, verdict: Verdict) -> str:
    family = family_named(record.rules)
    won = family.phrases.ended_by
    lines = [shown(_title(record))]
    columns = _columns(family, lambda c: c.header)
    header = f"{'round':>5}  {'led by':<22} {'ended':<8} {won:<30} {'points':>6}{columns}  scores"
    lines.append(header)
    lines.append("-" * len(header))
    results = verdict.match.results if verdict.match else ()
    for r, leader in enumerate(verdict.leaders):
        led = f"seat {leader} ({seat_name(record, leader)})"
        if r < len(results):
            res = results[r]
            winner = side_name(record, res.winner) if res.winner is not None else ("-" if res.reason == "redeal" else "tie")
            lines.append(f"{r + 1:>5}  {led:<22} {res.reason:<8} {winner:<30} {res.points:>6}"
                         + _columns(family, lambda c: c.text(res)) + "  " + _slashed(res.scores))
        else:
            lines.append(f"{r + 1:>5}  {led:<22} {'(in play)':<8}")
    if verdict.not_replayed is not None:
        lines.append(f"{verdict.not_replayed + 1:>5}  {'(hidden)':<22} {'(in play, not replayed)'}")
    lines.append("")
    lines += _evidence_lines(verdict)
    lines += [f"not checked: {what}" for what in verdict.unchecked]
    f = verdict.fault
    if f is not None:
        where = (f"round {f.round + 1}" if f.round is not None else "the record") \
            + (f", action {f.action}" if f.action is not None else "")
        lines.append(f"INVALID at {where}: {shown(f.message)}")
        return "\n".join(lines)
    if not verdict.valid:
        first = verdict.evidence.first_fault() if verdict.evidence is not None else None
        lines.append(f"INVALID: {shown(first[2])}" if first is not None
                     else "INVALID: the record is not the log that was played (see above)")
        return "\n".join(lines)
    m = verdict.match
    status = "complete" if verdict.complete else "stops mid-round"
    checked = " as far as it could be checked" if verdict.unchecked else ""
    lines.append(f"VALID{checked} ({status}); {verdict.events} actions replayed; scores " + _slashed(verdict.scores))
    if verdict.abandoned:
        lines.append("match abandoned: nobody acted for a long time; no winner")
    elif not m.over:
        lines.append("match winner: none yet")
    else:
        won_by = side_name(record, m.winner) if m.winner is not None else None
        lines.append(family.match_end_line(won_by, [side_name(record, g) for g in m.goats]))
    return "\n".join(lines)
