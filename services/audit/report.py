"""The human-readable account `domino audit verify` prints without --json: one line a
round, with the family's own columns (``Family.round_columns``: All Fives' points scored
during play; Goat's written, remembered and pot). Rounds are numbered from 1, as `domino
play` numbers them.

Seats are account ids (32 hex digits), and the records carry no names, so the columns show
each seat by a short label (`seat 1 (3f2a…)`: its first characters, as many as tell the
seats apart; a short id, as a bot's, whole) and the title line names every id in full.
Columns are as wide as their widest cell, measured in terminal cells, so they stay aligned
whatever the ids hold."""

from __future__ import annotations

from typing import Sequence

from rich.cells import cell_len

from services.match.record import MatchRecord
from services.rules.registry import family as family_named
from services.rules.state import RoundResult

from .evidence import Evidence
from .verify import Verdict


def shown(text: str) -> str:
    """``text`` with every character a terminal would act on (line breaks, escapes, bidi
    controls) written as its escape: a hostile record's seat id cannot forge or recolour
    the lines an auditor reads."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape", "backslashreplace").decode("ascii")
                   for c in text)


WHOLE = 12  # an id this long or shorter is shown whole (a bot's: bot:strong:1)
SHORT = 4  # the fewest characters of a longer id shown


def seat_labels(seats: Sequence[str]) -> list[str]:
    """Each seat's id as the columns show it, escaped: whole when short, else its first
    characters and an ellipsis, as many as tell the seats apart."""
    ids = [shown(s) for s in seats]
    for n in range(SHORT, max(map(len, ids), default=0) + 1):
        labels = [i if len(i) <= WHOLE else i[:n] + "…" for i in ids]
        if len(set(labels)) == len(set(ids)):
            return labels
    return ids


def seat_name(record: MatchRecord, seat: int) -> str:
    return seat_labels(record.seats)[seat]


def side_name(record: MatchRecord, side: int | None) -> str:
    if side is None:
        return "-"
    if record.teams:
        return f"team {side} ({seat_name(record, side)} & {seat_name(record, side + 2)})"
    return f"seat {side} ({seat_name(record, side)})"


def _aligned(rows: list[list[tuple[str, bool]]]) -> list[str]:
    """Rows of (text, right-aligned) cells, each column as wide as its widest cell (a row's
    last cell is not padded), two spaces between columns."""
    widths: dict[int, int] = {}
    for row in rows:
        for c, (text, _) in enumerate(row[:-1]):
            widths[c] = max(widths.get(c, 0), cell_len(text))
    lines = []
    for row in rows:
        cells = [text if c == len(row) - 1 else
                 (" " * (widths[c] - cell_len(text)) + text if right else text + " " * (widths[c] - cell_len(text)))
                 for c, (text, right) in enumerate(row)]
        lines.append("  ".join(cells))
    return lines


def _slashed(values) -> str:
    return " / ".join(map(str, values))


def _title(record: MatchRecord) -> str:
    rules = record.rules + (f" {record.variant}" if record.variant else "")
    options = ""
    if record.options:
        options = " (" + ", ".join(f"{k}={str(v).lower()}" for k, v in record.options.items()) + ")"
    return (f"{rules}{options} {'teams' if record.teams else 'solo'}, target {record.target}: "
            + ", ".join(f"{i}={shown(name)}" for i, name in enumerate(record.seats)))


def _chain_line(record: MatchRecord, evidence: Evidence) -> str:
    """What the record's chain is and whether it verifies, in words."""
    c = evidence.chain
    stored = record.chain or {}
    if record.chain is None:
        return "chain: absent (the record carries none)"
    if stored.get("links") is not None:
        verdict = {"ok": "every link verified against the record's content", "broken": "BROKEN",
                   "unchecked": "not verified"}.get(c.status, c.status)
        return f"chain: present, {c.entries} entries, {verdict}" + (f": {shown(c.message)}" if c.message else "")
    if stored.get("head") is None:
        return f"chain: present but empty (neither links nor a signed head), {c.entries} entries, not verified"
    what = f"chain: present as its signed head alone (no links stored), {c.entries} entries"
    if not evidence.recomputed:
        return f"{what}, not verified: the server seed is not revealed yet, so the links cannot be recomputed"
    if evidence.head_matches:
        return f"{what}, verified: the links recomputed from the record's content end in the head's hash"
    return f"{what}, BROKEN: the links recomputed from the record's content do not lead to the head (see below)"


def _evidence_lines(record: MatchRecord, verdict: Verdict) -> list[str]:
    evidence = verdict.evidence
    if evidence is None:
        return []
    lines = [_chain_line(record, evidence)]
    for name, finding in (("signed head", evidence.signature), ("player's heads", evidence.heads)):
        lines.append(f"{name}: {finding.status}" + (f": {shown(finding.message)}" if finding.message else ""))
    return lines + [""]


def render(record: MatchRecord, verdict: Verdict) -> str:
    family = family_named(record.rules)
    lines = [shown(_title(record))]
    header = [("round", True), ("led by", False), ("ended", False), (family.phrases.ended_by, False),
              ("points", True), *((c.header, c.right) for c in family.round_columns), ("scores", False)]
    rows: list[list[tuple[str, bool]]] = []
    results = verdict.match.results if verdict.match else ()
    for r, leader in enumerate(verdict.leaders):
        led = (f"seat {leader} ({seat_name(record, leader)})", False)
        if r < len(results):
            res = results[r]
            winner = side_name(record, res.winner) if res.winner is not None else ("-" if res.reason == "redeal" else "tie")
            rows.append([(str(r + 1), True), led, (res.reason, False), (winner, False), (str(res.points), True),
                         *((c.text(res), c.right) for c in family.round_columns), (_slashed(res.scores), False)])
        else:
            rows.append([(str(r + 1), True), led, ("(in play)", False)])
    if verdict.not_replayed is not None:
        rows.append([(str(verdict.not_replayed + 1), True), ("(hidden)", False), ("(in play, not replayed)", False)])
    table = _aligned([header, *rows])
    lines += [table[0], "-" * cell_len(table[0]), *table[1:]]
    lines.append("")
    lines += _evidence_lines(record, verdict)
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
