"""Is this export the match that was played? The chain, the export's signed head and the
heads a player kept, checked against the record (docs/record.md, "The hash chain" and
"Signed heads").

The verifier proves a record is legal; this proves it is unedited. The chain's stored links
catch an edit that left them alone; the heads a player received while playing catch one
that recomputed them, even with the signing key, because every head is recomputed from the
record's own content, never read from its links.

With the published keys (`--key`) the question is whether the record is authenticated, and
only one thing answers it: a head the service signed whose hash is the last link recomputed
from the record's own content. A record without a head, without its fairness fields (the
links are keyed with the server seed), or whose seed is not revealed yet, cannot be; so
with keys anything but a good signature makes the record invalid, or a forger would need
only delete what would have caught the forgery.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from services.match import chain
from services.match.chain import ChainCheck, Entry
from services.match.heads import BadHead, Head, PublishedKeys
from services.match.record import MatchRecord


@dataclass
class Finding:
    status: str  # "ok", "broken", "absent", "unchecked"
    message: str = ""
    entry: int | None = None  # the first entry found wrong
    details: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        out: dict = {"status": self.status, **self.details}
        if self.entry is not None:
            out["first_bad_entry"] = self.entry
        if self.message:
            out["message"] = self.message
        return out


@dataclass
class Evidence:
    chain: ChainCheck
    signature: Finding
    heads: Finding
    where: list[Entry]  # the record's entries, to name a position
    authenticate: bool = False  # keys were given: the record must carry a good signed head
    recomputed: bool = False  # the links were recomputed from the record's content (its seed is revealed)
    head_matches: bool | None = None  # the signed head covers exactly the recomputed links and is their last

    @property
    def ok(self) -> bool:
        broken = "broken" in (self.chain.status, self.signature.status, self.heads.status)
        return not broken and (not self.authenticate or self.signature.status == "ok")

    def first_fault(self) -> tuple[int | None, int | None, str] | None:
        """(round, action, message) of the first problem, for the verifier's `error`."""
        if self.chain.status == "broken":
            return self.chain.round, self.chain.action, f"chain: {self.chain.message}"
        for name, finding in (("signature", self.signature), ("heads", self.heads)):
            if finding.status == "broken":
                entry = finding.entry
                if entry is not None and entry < len(self.where):
                    return self.where[entry].round, self.where[entry].action, f"{name}: {finding.message}"
                return None, None, f"{name}: {finding.message}"
        if self.authenticate and self.signature.status != "ok":
            return None, None, f"signature: {self.signature.status}, so the record is not authenticated: " \
                               f"{self.signature.message}"
        return None

    def to_json(self) -> dict:
        return {"chain": self.chain.to_json(), "signature": self.signature.to_json(), "heads": self.heads.to_json()}


def examine(record: MatchRecord, keys: PublishedKeys | None = None, kept: list[Head] | None = None) -> Evidence:
    listed = chain.entries(record)
    stored = (record.chain or {}).get("links")
    recomputed = chain.links(record)
    return Evidence(chain.check(record, stored), _signature(record, keys, recomputed, stored, listed),
                    compare_heads(kept, keys, recomputed, listed), listed, authenticate=keys is not None,
                    recomputed=recomputed is not None, head_matches=_head_matches(record, recomputed))


def _head_matches(record: MatchRecord, recomputed: list[str] | None) -> bool | None:
    """Whether the record's signed head is the last of the links recomputed from its content;
    None when there is no head to compare or nothing recomputed."""
    raw = (record.chain or {}).get("head")
    if raw is None or recomputed is None:
        return None
    try:
        head = Head.from_json(raw)
    except BadHead:
        return False
    return head.entries == len(recomputed) and bool(recomputed) and recomputed[-1] == head.hash


def _signature(record: MatchRecord, keys: PublishedKeys | None, recomputed: list[str] | None,
               stored: list[str] | None, listed: list[chain.Entry]) -> Finding:
    raw = (record.chain or {}).get("head")
    if raw is None:
        return Finding("absent", "the record carries no signed head" if record.chain is not None
                       else "the record carries no chain and no signed head")
    try:
        head = Head.from_json(raw)
    except BadHead as e:
        return Finding("broken", f"the record's head is malformed: {e}")
    details = {"key": head.key, "version": head.version, "entries": head.entries}
    if head.entries != len(listed):
        return Finding("broken", f"the signed head covers {head.entries} entries but the record holds {len(listed)}",
                       min(head.entries, len(listed)), details)
    links = recomputed if recomputed is not None else stored
    if links and links[-1] != head.hash:
        return Finding("broken", "the signed head's hash is not the record's last link", len(listed) - 1, details)
    problem = keys.problem(head) if keys is not None else None
    if problem is not None:
        return Finding("broken", f"the record's head is {problem}", details=details)
    if recomputed is None:  # the links are keyed with the server seed (chain.py)
        why = ("the record has no 'fairness'" if record.fairness is None
               else "the server seed is not revealed until the match ends")
        return Finding("unchecked", f"{why}, so the head cannot be compared with the chain recomputed from the "
                                    "record's content", details=details)
    if keys is None:
        return Finding("unchecked", "no --key given: the signature was not checked", details=details)
    return Finding("ok", details=details)


def compare_heads(kept: list[Head] | None, keys: PublishedKeys | None, recomputed: list[str] | None,
           listed: list[chain.Entry]) -> Finding:
    """Every kept head against the record's content: the first that disagrees, and the last
    that agrees before it, bound where the log was changed."""
    if kept is None:
        return Finding("absent", "no --heads given")
    if not kept:
        return Finding("unchecked", "the heads file holds no heads")
    matches = {h.match for h in kept}
    if len(matches) != 1:
        return Finding("broken", f"the heads name {len(matches)} different matches")
    details: dict = {"checked": len(kept), "match": kept[0].match}
    if keys is not None:
        for head in kept:
            problem = keys.problem(head)
            if problem is not None:
                return Finding("broken", f"the head at version {head.version} is {problem}", details=details)
    agreed = 0  # entries vouched for by a head that agrees
    for head in sorted(kept, key=lambda h: (h.entries, h.version)):
        if head.entries == 0:
            continue
        if head.entries > len(listed):
            return Finding("broken", f"the head at version {head.version} covers {head.entries} entries but the "
                                     f"record holds only {len(listed)}: the record lacks what the player saw",
                           agreed, details)
        if recomputed is None:
            continue
        if recomputed[head.entries - 1] != head.hash:
            return Finding("broken", f"the head at version {head.version} does not match the record: the log was "
                                     f"{_changed(listed, agreed, head.entries - 1)}", agreed, details)
        agreed = head.entries
    if recomputed is None:
        return Finding("unchecked", "the server seed is not revealed, so the heads' hashes cannot be recomputed; "
                                    "only their counts were compared", details=details)
    if keys is None:
        details["signatures"] = "unchecked (no --key)"
    return Finding("ok", details=details)


def _changed(listed: list[chain.Entry], first: int, last: int) -> str:
    """Where the first change lies: after the last agreeing head, by the first disagreeing one."""
    if first == last:
        return f"changed at entry {first} ({listed[first].where})"
    return f"first changed somewhere in entries {first} to {last} ({listed[first].where} to {listed[last].where})"
