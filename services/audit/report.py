"""The human-readable account `domino audit verify` prints without --json."""

from __future__ import annotations

from services.match.record import MatchRecord

from .verify import Verdict


def side_name(record: MatchRecord, side: int | None) -> str:
    if side is None:
        return "-"
    if record.teams:
        return f"team {side} ({record.seats[side]} & {record.seats[side + 2]})"
    return f"seat {side} ({record.seats[side]})"


def render(record: MatchRecord, verdict: Verdict) -> str:
    lines = [f"{record.rules} {record.variant} {'teams' if record.teams else 'solo'}, target {record.target}: "
             + ", ".join(f"{i}={name}" for i, name in enumerate(record.seats))]
    header = f"{'round':>5}  {'led by':<22} {'ended':<8} {'winner':<30} {'points':>6}  scores"
    lines.append(header)
    lines.append("-" * len(header))
    results = verdict.match.results if verdict.match else ()
    for r, leader in enumerate(verdict.leaders):
        led = f"seat {leader} ({record.seats[leader]})"
        if r < len(results):
            res = results[r]
            winner = side_name(record, res.winner) if res.winner is not None else "tie"
            lines.append(f"{r:>5}  {led:<22} {res.reason:<8} {winner:<30} {res.points:>6}  "
                         + " / ".join(map(str, res.scores)))
        else:
            lines.append(f"{r:>5}  {led:<22} {'(in play)':<8}")
    lines.append("")
    if not verdict.valid:
        f = verdict.fault
        where = f"round {f.round}" + (f", action {f.action}" if f.action is not None else "")
        lines.append(f"INVALID at {where}: {f.message}")
        return "\n".join(lines)
    m = verdict.match
    status = "complete" if verdict.complete else "stops mid-round"
    lines.append(f"VALID ({status}); {verdict.events} actions replayed; scores " + " / ".join(map(str, m.scores)))
    lines.append(f"match winner: {side_name(record, m.winner)}" if m.winner is not None else "match winner: none yet")
    return "\n".join(lines)
