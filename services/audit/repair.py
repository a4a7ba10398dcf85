"""What an operator needs to decide about a match whose stored log replay refuses
(`domino audit repair-report`; docs/operations.md, "DominoMatchLogCorrupt").

It reads the store directly, changes nothing, and reports: the match, every stored event
with its fields, the first event the engine refuses and why, and whether each event's
chain link still matches its content (a link that does not means the row was edited after
the match service wrote it).
"""

from __future__ import annotations

import dataclasses
from typing import Any
from uuid import UUID

from services.match import chain
from services.match.domainmodel import Match
from services.match.export import full_record
from services.match.store import first_refused

SECRET_FIELDS = ("server_seed",)  # shown only once the match has ended and revealed it


def repair_report(app, match_id: UUID) -> dict[str, Any]:
    stored = list(app.recorder.select_events(match_id))
    if not stored:
        return {"match": str(match_id), "found": False}
    events: list[dict[str, Any]] = []
    decoded = []
    ended = False
    for row in stored:
        entry: dict[str, Any] = {"version": row.originator_version, "type": row.topic.rsplit(":", 1)[-1]}
        try:
            event = app.mapper.to_domain_event(row)
        except Exception as error:  # noqa: BLE001 - reported, not raised
            entry["unreadable"] = repr(error)[:300]
        else:
            decoded.append(event)
            ended = ended or isinstance(event, Match.MatchEnded)
            entry["fields"] = {k: v for k, v in vars(event).items()
                               if k not in ("originator_id", "originator_version", "originator_topic")}
            entry["fields"]["timestamp"] = str(entry["fields"].get("timestamp"))
        events.append(entry)
    if not ended:
        for entry in events:
            for name in SECRET_FIELDS:
                if name in entry.get("fields", {}):
                    entry["fields"][name] = "(secret until the match ends)"
    refused = first_refused(app, match_id)
    report: dict[str, Any] = {
        "match": str(match_id), "found": True, "events": len(stored), "last_version": stored[-1].originator_version,
        "refused": None if refused is None else {"version": refused.version, "type": refused.topic.rsplit(":", 1)[-1],
                                                "reason": refused.reason},
        "replays_up_to_version": (refused.version - 1) if refused is not None else stored[-1].originator_version,
        "chain": _chain_report(decoded),
        "stored_events": events,
    }
    started = decoded[0] if decoded and isinstance(decoded[0], Match.MatchStarted) else None
    if started is not None:
        report.update(rules=started.rules, variant=started.variant, seats=list(started.seats))
    report["decide"] = _advice(report)
    return report


def _chain_report(decoded: list) -> dict[str, Any]:
    """Each linked event's stored link against its content, with the seed from the store
    (the operator may see it; the report hides it until the match has ended)."""
    if not decoded or not isinstance(decoded[0], Match.MatchStarted) or not getattr(decoded[0], "link", ""):
        return {"status": "absent"}
    try:
        record = full_record(decoded)
    except Exception as error:  # noqa: BLE001
        return {"status": "unchecked", "message": f"the events do not form a record: {error!r}"[:300]}
    assert record.fairness is not None
    seeded = dataclasses.replace(record, fairness=dataclasses.replace(record.fairness,
                                                                      server_seed=decoded[0].server_seed))
    if record.fairness.server_seed is None:  # the end entry is not in the log yet
        seeded = dataclasses.replace(seeded, chain=record.chain)
        check = _check_without_end(seeded)
    else:
        check = chain.check(seeded, (record.chain or {}).get("links"))
    out: dict[str, Any] = {"status": check.status, "entries": check.entries}
    if check.first_bad is not None:
        linked = [e.originator_version for e in decoded if getattr(e, "link", "")]
        out["first_bad_version"] = linked[check.first_bad] if check.first_bad < len(linked) else None
        out["message"] = check.message
    return out


def _check_without_end(record) -> chain.ChainCheck:
    """chain.check for a log without its end: the seed is known here, but no end entry exists."""
    links = (record.chain or {}).get("links") or []
    key = chain.salt(record.fairness.server_seed)
    listed = chain.entries(record)[:-1]  # entries() adds an end entry because a seed is present
    for i, entry in enumerate(listed):
        if i >= len(links) or chain.link(key, links[i - 1] if i else chain.GENESIS, entry.content) != links[i]:
            return chain.ChainCheck("broken", len(listed), i, entry.where, entry.round, entry.action,
                                    f"entry {i} ({entry.where}): its link does not match its content")
    return chain.ChainCheck("ok", len(listed))


def _advice(report: dict[str, Any]) -> list[str]:
    lines = []
    refused = report["refused"]
    if refused is None:
        lines.append("Replay accepts every stored event: the log is readable. If a replica still answers DATA_LOSS, "
                      "restart it (a frozen match stays frozen until then).")
    else:
        lines.append(f"Replay refuses event {refused['version']} ({refused['type']}): {refused['reason']}.")
        lines.append(f"Events 1..{report['replays_up_to_version']} replay; the match is frozen from there.")
    bad = report["chain"].get("first_bad_version")
    result_rewritten = refused is not None and refused["reason"].startswith("StoredResultMismatch")
    if result_rewritten:
        lines.append("The refused event's result (winner, points, totals) is not in the chain, so its links can "
                     "all match while it was changed: the replay, computed from the chained deals and actions, "
                     "is what was played (services/match/results.py).")
    if bad is not None:
        lines.append(f"Event {bad}'s chain link does not match its content: that row was changed after the match "
                     "service wrote it. Compare with the players' kept heads and the witness "
                     "(`domino audit verify --heads`, `domino audit witness`).")
    elif report["chain"]["status"] == "ok" and not result_rewritten:
        lines.append("Every chain link matches its content: the refused event was written as it is (a fault of "
                     "the writer, not a later edit), or the chain itself was recomputed: check the players' heads.")
    lines.append("Nothing was changed. To settle: export the match as an auditor (unfinished if it has no end), "
                 "and decide from the export, the players' heads and the witness.")
    return lines
