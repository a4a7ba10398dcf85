"""The witness: finished matches' signed final heads in an append-only JetStream stream,
outside the database (services/common/bus.py, DOMINO_WITNESS), and the comparison of a
match's stored log with them (`domino audit witness`).

Whoever can write the database cannot delete or purge the witness (NATS denies both), and
cannot add a head to it (only the relay's NATS user may publish there). A stored log that no
longer hashes to the head the witness took when the match ended has been changed since.
"""

from __future__ import annotations

import json

from services.common import bus
from services.match import chain
from services.match.heads import BadHead, Head, PublishedKeys
from services.match.record import MatchRecord

from .evidence import Finding, compare_heads
from .seat_export import reveal


async def witness_heads(js, match_id: str, limit: int = 100, ignored: list[int] | None = None,
                        scan: int = 10_000) -> list[Head]:
    """Every head the witness holds for the match, oldest first (normally one).

    A message there that is not a head is skipped and its sequence put in ``ignored``: any
    NATS user allowed a JetStream API request can name a witness subject as the reply and
    JetStream answers there unchecked (docs/security.md, "NATS"). Such junk carries no
    signature and cannot stand for a head, so it must not make the real ones unreadable.
    At most ``scan`` messages are read."""
    from nats.js.errors import NotFoundError

    subject = bus.witness_subject(match_id)
    heads: list[Head] = []
    seq = 1
    for _ in range(scan):
        if len(heads) >= limit:
            break
        try:
            msg = await js.get_msg(bus.WITNESS_STREAM, seq=seq, subject=subject, next=True)
        except NotFoundError:
            break
        try:
            heads.append(Head.from_json(json.loads(msg.data or b"")))
        except (BadHead, ValueError, TypeError, RecursionError):
            if ignored is not None:
                ignored.append(msg.seq or seq)
        seq = (msg.seq or seq) + 1
    return heads


async def publish(js, head: Head) -> None:
    """Put a head in the witness (the relay does it for every match that ends; an operator
    only for one it missed)."""
    await js.publish(bus.witness_subject(head.match), json.dumps(head.to_json()).encode(), timeout=10,
                     headers={"Nats-Msg-Id": bus.witness_msg_id(head.match, head.version)})


def compare(record: MatchRecord, witnessed: list[Head], keys: PublishedKeys | None) -> Finding:
    """The stored log (as exported) against the witness's heads: each must match the log's
    recomputed chain, and the last must cover the whole log, no more and no less. A player's
    export is compared as the whole log its revealed seeds give (seat_export.py)."""
    record = reveal(record)
    if not witnessed:
        return Finding("absent", "the witness holds no head for this match (not ended, or ended before the "
                                 "witness existed, or the relay could not store it)")
    listed = chain.entries(record)
    finding = compare_heads(witnessed, keys, chain.links(record), listed)
    if finding.status == "broken":
        return finding
    last = max(witnessed, key=lambda h: h.version)
    if last.entries != len(listed):
        return Finding("broken", f"the witness's head covers {last.entries} entries but the stored log holds "
                                 f"{len(listed)}: entries were added after the match ended", last.entries,
                       finding.details)
    return finding
