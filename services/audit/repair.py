"""What an operator needs to decide about a match whose stored log replay refuses
(`domino audit repair-report`; docs/operations.md, "DominoMatchLogCorrupt").

It reads the store directly, changes nothing, and reports: the match, every stored event
with its fields, the first event the engine refuses and why, and whether each event's
chain link still matches its content (a link that does not means the row was edited after
the match service wrote it).

The rows are read as someone with write access may have left them (stored_rows.py): a
topic that names no event of a match is never imported, and such a row, undecodable state,
or a match stored under an id that is no UUID is reported as the refused event of that one
match.
"""

from __future__ import annotations

import dataclasses
from typing import Any
from uuid import UUID

from eventsourcing.persistence import StoredEvent

from services.match import chain
from services.match.domainmodel import Match
from services.match.export import full_record

from .stored_rows import UnreadableRow, decoded, event_class, match_id_of, rows_under_text_id

SECRET_FIELDS = ("server_seed",)  # shown only once the match has ended and revealed it


def repair_report(app, match_id: UUID | str) -> dict[str, Any]:
    """The report on the match stored under ``match_id`` (a UUID, or the text of an id that
    is none, as `replay-all` names a match stored under one)."""
    try:
        key = match_id_of(match_id)
    except UnreadableRow as error:
        return _stored_under_no_uuid(app, str(match_id), str(error))
    stored = list(app.recorder.select_events(key))
    if not stored:
        return {"match": str(key), "found": False}
    events: list[dict[str, Any]] = []
    readable = []
    ended = False
    for row in stored:
        entry: dict[str, Any] = {"version": row.originator_version, "type": _type_of(row.topic)}
        try:
            event = decoded(app, row)
        except UnreadableRow as error:
            entry["unreadable"] = str(error)[:300]
        else:
            readable.append(event)
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
    refused = _first_refused(app, stored)
    report: dict[str, Any] = {
        "match": str(key), "found": True, "events": len(stored), "last_version": stored[-1].originator_version,
        "refused": refused,
        "replays_up_to_version": (refused["version"] - 1) if refused is not None else stored[-1].originator_version,
        "chain": _chain_report(readable),
        "stored_events": events,
    }
    started = readable[0] if readable and isinstance(readable[0], Match.MatchStarted) else None
    if started is not None:
        report.update(rules=started.rules, variant=started.variant, seats=list(started.seats))
    report["decide"] = _advice(report)
    return report


def _type_of(topic: str) -> str:
    """The event a stored topic names, as the report shows it ("Match.TilePlayed"); one that
    names no event of a match is shown as such (its text is in the row's reason)."""
    found = event_class(topic)
    return found.__qualname__ if found is not None else "(not a match event)"


def _first_refused(app, stored: list[StoredEvent]) -> dict[str, Any] | None:
    """The first stored event that cannot be read or applied, folded one at a time as a
    replica loads the match (without importing what a topic names); None when replay
    accepts them all."""
    aggregate = None
    for row in stored:
        try:
            event = decoded(app, row)
        except UnreadableRow as error:
            return _refusal(row.originator_version, row.topic, f"unreadable: {error}")
        try:
            aggregate = event.mutate(aggregate)
        except Exception as error:  # noqa: BLE001 - whatever the engine refuses is reported
            return _refusal(row.originator_version, row.topic, f"{type(error).__name__}: {error}")
    return None


def _refusal(version: int, topic: str, reason: str) -> dict[str, Any]:
    return {"version": version, "type": _type_of(topic), "reason": reason[:500]}


def _stored_under_no_uuid(app, stored_id: str, reason: str) -> dict[str, Any]:
    """A match whose rows are stored under an id that is no UUID (only SQLite keeps such
    a row, as text): no replica can load it, so its first row is the refused one; its rows
    are listed by version and event, none decoded."""
    rows = rows_under_text_id(app, stored_id)
    if not rows:
        return {"match": stored_id, "found": False, "unreadable": reason}
    first = rows[0][0]
    report: dict[str, Any] = {
        "match": stored_id, "found": True, "unreadable": reason, "events": len(rows), "last_version": rows[-1][0],
        "refused": _refusal(first, rows[0][1], f"unreadable: {reason}"), "replays_up_to_version": first - 1,
        "chain": {"status": "unchecked", "message": "the rows are not read: the match's id is not a UUID"},
        "stored_events": [{"version": version, "type": _type_of(topic), "unreadable": reason}
                          for version, topic in rows],
    }
    report["decide"] = [
        f"The match is stored under the id {stored_id[:200]!r}, which is not a UUID: the match service never "
        "writes such a row and no replica can load it, so it was written into the store by hand.",
        "Nothing was changed. Compare with the store's backups and the witness (`domino audit witness`) "
        "to find the match it copies, if any, and remove the rows once decided.",
    ]
    return report


def _chain_report(events: list) -> dict[str, Any]:
    """Each linked event's stored link against its content, with the seed from the store
    (the operator may see it; the report hides it until the match has ended)."""
    if not events or not isinstance(events[0], Match.MatchStarted) or not getattr(events[0], "link", ""):
        return {"status": "absent"}
    try:
        record = full_record(events)
    except Exception as error:  # noqa: BLE001
        return {"status": "unchecked", "message": f"the events do not form a record: {error!r}"[:300]}
    assert record.fairness is not None
    seeded = dataclasses.replace(record, fairness=dataclasses.replace(record.fairness,
                                                                      server_seed=events[0].server_seed))
    if record.fairness.server_seed is None:  # the end entry is not in the log yet
        seeded = dataclasses.replace(seeded, chain=record.chain)
        check = _check_without_end(seeded)
    else:
        check = chain.check(seeded, (record.chain or {}).get("links"))
    out: dict[str, Any] = {"status": check.status, "entries": check.entries}
    if check.first_bad is not None:
        linked = [e.originator_version for e in events if getattr(e, "link", "")]
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
