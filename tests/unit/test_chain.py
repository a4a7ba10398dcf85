"""The hash chain: every stored event the record shows carries a link anyone can recompute
from the export, and any single change of the export breaks the chain at exactly the
entry that holds it (docs/record.md, "The hash chain")."""

from __future__ import annotations

import copy
import json
import random
from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from services.audit.verify import verify
from services.match import chain
from services.match.application import MatchApplication, SeatSpec
from services.match.export import full_record
from services.match.record import from_json, to_json
from services.rules.tiles import NAMES
from tests.support.families import Table, sample_tables
from tests.support.matches import Matches, random_move

# The tables single tests play by a short name, here and in the tests that take their matches from here.
NAMED = {"block-4": Table("egyptian", "block-4", 4, True), "draw-2": Table("egyptian", "draw-2", 2, False),
         "goat-koza": Table("goat", "koza", 4, False),
         "goat-redeal": Table("goat", "gamezz", 2, False, {"redeal": True})}
TABLES = {t.id: t for t in (*sample_tables(), *NAMED.values())}


def play_match(name: str, seed: int, timer: int = 0, abandon_after: int | None = None):
    """A whole match of random legal moves at the table of that id or short name; (its stored
    events, the final Match)."""
    table = NAMED.get(name) or TABLES[name]
    rng = random.Random(seed)
    app = Matches(MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"},
                                   seed_source=lambda: rng.randbytes(32)))
    try:
        players = [f"p{i}" for i in range(table.seats)]
        match = app.create_match(f"m-{name}-{seed}", table.family, table.variant or "", table.teams, None, timer,
                                 [SeatSpec(p, f"s{p}") for p in players], table.chosen)
        n = 0
        while not match.finished:
            if abandon_after is not None and n == abandon_after:
                match = app.abandon_match(match.id, match.version, 60)
                break
            n += 1
            match = random_move(app, match, rng, f"r{n}")
        return list(app.events_after(match.id, 0)), match
    finally:
        app.close()


@cache
def exported(name: str, seed: int) -> str:
    events, _ = play_match(name, seed)
    return json.dumps(to_json(full_record(events)))


def test_every_stored_link_is_the_link_recomputed_from_the_export():
    for name in TABLES:
        events, match = play_match(name, 1)
        stored = [e.link for e in events if getattr(e, "link", "")]
        record = full_record(events)
        assert chain.links(record) == stored, name
        assert (match.chain_entries, match.chain_head) == (len(stored), stored[-1])


def test_an_abandoned_match_chains_its_end_too():
    events, match = play_match("block-4", 2, abandon_after=5)
    record = full_record(events)
    assert record.abandoned
    assert chain.check(record, record.chain["links"]).status == "ok"
    assert chain.entries(record)[-1].content["abandoned"] is True


def test_a_redeal_mark_is_an_entry_of_its_own():
    for seed in range(40):
        events, _ = play_match("goat-redeal", seed)
        record = full_record(events)
        if any(r.redeal for r in record.rounds):
            assert any(e.content == chain.REDEAL_ENTRY for e in chain.entries(record))
            assert chain.check(record, record.chain["links"]).status == "ok"
            return
    raise AssertionError("no redeal in 40 matches")


def test_an_exported_chain_verifies_with_the_record():
    record = from_json(json.loads(exported("draw-2", 3)))
    verdict = verify(record)
    assert verdict.valid
    assert verdict.to_json()["chain"] == {"status": "ok", "entries": len(chain.entries(record))}


def test_a_record_without_its_server_seed_cannot_have_its_chain_checked():
    data = json.loads(exported("draw-2", 3))
    del data["fairness"]["server_seed"]
    record = from_json(data)
    assert chain.check(record, record.chain["links"]).status == "unchecked"


def test_a_changed_server_seed_breaks_the_chain_at_the_end_that_revealed_it():
    data = json.loads(exported("block-4", 4))
    data["fairness"]["server_seed"] = "ab" * 32
    record = from_json(data)
    check = chain.check(record, record.chain["links"])
    assert check.status == "broken" and check.first_bad == len(chain.entries(record)) - 1


def test_a_chain_longer_than_the_record_is_broken_after_the_end():
    data = json.loads(exported("block-4", 4))
    data["chain"]["links"].append("00" * 32)
    record = from_json(data)
    check = chain.check(record, record.chain["links"])
    assert check.status == "broken" and check.first_bad == len(chain.entries(record))


# ---- any single-field change breaks the chain at exactly its entry ------------------------

def _leaves(data: dict) -> list[tuple[tuple, int]]:
    """(path, the index of the entry holding it) for every field a change may touch."""
    record = from_json(data)
    listed = chain.entries(record)

    def index(round_: int | None, action: int | None, kind: str) -> int:
        for i, e in enumerate(listed):
            if (e.round, e.action, e.content["entry"]) == (round_, action, kind):
                return i
        raise KeyError((round_, action, kind))

    end = len(listed) - 1
    out: list[tuple[tuple, int]] = [(("seats", s), 0) for s in range(len(data["seats"]))]
    out.append((("fairness", "commitment"), 0))
    out.append((("fairness", "server_seed"), end))
    out.append((("abandoned",), end))
    out += [(("fairness", "client_seeds", s), index(0, None, "deal") if data["rounds"] else end)
            for s in range(len(data["fairness"]["client_seeds"]))]
    out += [(("chain", "links", i), i) for i in range(len(data["chain"]["links"]))]
    for r, rnd in enumerate(data["rounds"]):
        deal = index(r, None, "deal")
        out += [(("rounds", r, "hands", s, k), deal) for s, hand in enumerate(rnd["hands"]) for k in range(len(hand))]
        out += [(("rounds", r, "boneyard", k), deal) for k in range(len(rnd.get("boneyard", [])))]
        if "set_aside" in rnd:
            out.append((("rounds", r, "set_aside"), deal))
        if "leader" in rnd:
            out.append((("rounds", r, "leader"), deal))
        for a, action in enumerate(rnd["actions"]):
            at = index(r, a, "action")
            out += [(("rounds", r, "actions", a, key), at) for key in ("seat", "play", "end", "draw", "timeout")
                    if key in action or key == "timeout"]
    return out


def _changed(value, path: tuple, rng: random.Random):
    key = path[-1]
    if key == "timeout":
        return None if value else True  # None: remove the field
    if key == "abandoned":
        return not value
    if key in ("seat", "leader"):
        return value + 1
    if key == "end":
        return {"left": "right", "right": "left", "up": "down", "down": "up"}[value]
    if isinstance(value, str) and value in NAMES:
        return rng.choice([n for n in NAMES if n != value])
    if path[:2] == ("chain", "links") or path[-1] in ("commitment", "server_seed"):
        return rng.choice([c for c in "0123456789abcdef" if c != value[0]]) + value[1:]
    return value + "x"


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(sorted(TABLES)), seed=st.integers(0, 2), pick=st.integers(0, 10**6),
       tweak=st.integers(0, 2**32))
def test_any_single_field_change_breaks_the_chain_at_exactly_that_entry(name, seed, pick, tweak):
    original = json.loads(exported(name, seed))
    original.setdefault("abandoned", False)
    leaves = _leaves(original)
    path, expected = leaves[pick % len(leaves)]
    data = copy.deepcopy(original)
    holder = data
    for key in path[:-1]:
        holder = holder[key]
    new = _changed(holder.get(path[-1]) if isinstance(holder, dict) else holder[path[-1]], path, random.Random(tweak))
    if new is None:
        del holder[path[-1]]
    else:
        holder[path[-1]] = new
    record = from_json(data)
    check = chain.check(record, record.chain["links"])
    assert (check.status, check.first_bad) == ("broken", expected), (path, check.message)
