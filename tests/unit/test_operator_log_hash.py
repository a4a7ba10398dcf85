"""The operator log's hash recipe (operator_log.entry_hash, docs/security.md "The operator
log"): anyone holding the entries can recompute every hash with SHA-256 and a JSON writer,
and an entry changed, removed or put out of order shows where."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace

import pytest

from services.accounts.operator_log import GENESIS, LogEntry, canonical, entry_hash, first_break, hashed_fields, \
    rfc3339_us

AT = 1796612645123456  # 2026-12-07T03:04:05.123456Z


def entry(sequence: int, previous: str, why: str = "ticket 42", roles: tuple[str, ...] = ("operator",)) -> LogEntry:
    fields = hashed_fields(sequence, AT + sequence, "oidc|ops-1", "Olive Ops", roles, "player.ban", "p-1", why, "")
    return LogEntry(sequence, AT + sequence, "oidc|ops-1", "Olive Ops", tuple(sorted(roles)), "player.ban", "p-1", why,
                    "", entry_hash(previous, fields))


def chain(n: int) -> list[LogEntry]:
    entries, previous = [], GENESIS
    for sequence in range(1, n + 1):
        entries.append(entry(sequence, previous, why=f"reason {sequence}"))
        previous = entries[-1].hash
    return entries


def test_the_recipe_as_written_in_the_docs_gives_a_fixed_hash():
    fields = hashed_fields(1, AT, "oidc|ops-1", "Olive Ops", ["support", "operator"], "player.ban", "p-1",
                           "ticket 42", '{"reason":"cheating"}')
    written = json.dumps({"action": "player.ban", "at": "2026-12-07T03:04:05.123456Z",
                          "details": '{"reason":"cheating"}', "sequence": 1, "staff_id": "oidc|ops-1",
                          "staff_name": "Olive Ops", "staff_roles": ["operator", "support"], "target": "p-1",
                          "why": "ticket 42"}, separators=(",", ":"), ensure_ascii=False).encode()
    assert canonical(fields) == written
    assert entry_hash(GENESIS, fields) == hashlib.sha256(bytes(32) + written).hexdigest() == \
        "bc25ce01e7bbf21b0f07c547f1fd57f64c7f5c421740359ea6096c8f08b80ce7"


def test_the_previous_hash_enters_as_its_32_bytes():
    fields = hashed_fields(2, AT, "s", "n", ["viewer"], "console.sign_in", "", "", "")
    previous = "ab" * 32
    assert entry_hash(previous, fields) == hashlib.sha256(bytes.fromhex(previous) + canonical(fields)).hexdigest()


def test_the_instant_is_utc_with_six_fraction_digits_even_on_a_whole_second():
    assert rfc3339_us(1796612645000000) == "2026-12-07T03:04:05.000000Z"
    assert rfc3339_us(0) == "1970-01-01T00:00:00.000000Z"


def test_text_is_written_as_utf8_not_escaped():
    fields = hashed_fields(1, AT, "s", "Zoë", ["viewer"], "a", "", "naïve", "")
    assert "Zoë".encode() in canonical(fields) and b"\\u" not in canonical(fields)


def test_the_order_staff_roles_come_in_does_not_change_the_hash():
    assert entry(1, GENESIS, roles=("support", "auditor")).hash == entry(1, GENESIS, roles=("auditor", "support")).hash


@pytest.mark.parametrize("field", ["sequence", "at", "staff_id", "staff_name", "staff_roles", "action", "target",
                                   "why", "details"])
def test_every_field_is_in_the_hash(field):
    base = hashed_fields(1, AT, "s", "n", ["viewer"], "a", "t", "w", "d")
    changed = {**base, field: [["auditor"]] if field == "staff_roles" else (2 if field == "sequence" else "other")}
    assert entry_hash(GENESIS, changed) != entry_hash(GENESIS, base)


def test_a_whole_chain_links_up():
    assert first_break(chain(5)) is None


def test_an_edited_entry_breaks_the_chain_at_itself():
    entries = chain(5)
    entries[2] = replace(entries[2], why="nothing happened")
    assert first_break(entries) == 3


def test_a_removed_entry_breaks_the_chain_where_the_gap_is():
    entries = chain(5)
    del entries[1]
    assert first_break(entries) == 3


def test_an_entry_rehashed_after_an_edit_breaks_the_chain_at_the_next_one():
    entries = chain(5)
    edited = replace(entries[1], why="nothing happened")
    fields = hashed_fields(2, edited.at_us, edited.staff_id, edited.staff_name, edited.staff_roles, edited.action,
                           edited.target, edited.why, edited.details)
    entries[1] = replace(edited, hash=entry_hash(entries[0].hash, fields))
    assert first_break(entries) == 3


def test_a_run_in_the_middle_is_checked_from_the_entry_before_it():
    entries = chain(6)
    assert first_break(entries[3:], previous=entries[2].hash, after=3) is None
    assert first_break(entries[3:]) == 4
