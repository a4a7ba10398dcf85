"""An edit of a finished match's stored log, made in the database itself (a real SQLite file,
a real PostgreSQL), is caught: by `verify` from the export plus the heads a player kept, and
by the witness stream on a real NATS. The strongest editor also recomputes every link (as
if they held the service's code and keys); a naive one leaves the links and is caught by the
chain itself, at exactly the edited entry."""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
from uuid import UUID

import nats
import psycopg
import pytest

from services.audit.verify import verify
from services.audit.witness import compare, witness_heads
from services.match import chain
from services.match.application import MatchApplication, SeatSpec
from services.match.export import full_record
from services.match.heads import PublishedKeys, load_signer, rotate
from services.match.record import from_json, to_json
from services.match.relay import Relay
from services.rules.moves import legal_moves
from tests.integration.fresh_bus import fresh_bus
from tests.support.matches import Matches, played_keeping_heads

pytestmark = pytest.mark.integration


@pytest.fixture
def env(either_store_env):
    return either_store_env


@pytest.fixture
def keys_dir(tmp_path):
    rotate(tmp_path / "keys", now=0)
    return tmp_path / "keys"


def play_and_witness(env, nats_url, signer):
    """A draw-2 match played to its end; ann's heads after every command; the relay run
    until idle, so the witness holds the final head."""
    rng = random.Random(7)
    app = Matches(MatchApplication(env=env, seed_source=lambda: rng.randbytes(32)))
    try:
        match = app.create_match("tamper", "egyptian", "draw-2", None, None, 0,
                                 [SeatSpec("ann", "a"), SeatSpec("bob", "b")])
        match, kept = played_keeping_heads(app, match, rng, signer)

        async def relay():
            nc = await nats.connect(nats_url)
            await fresh_bus(nc.jetstream())
            r = Relay(app.app, nc.jetstream(), signer=signer)
            await r.start()
            while await r.pump():
                pass
            await nc.close()
            return r.witnessed

        assert asyncio.run(relay()) == 1
        return match.id, kept
    finally:
        app.close()


def witnessed(url: str, match_id) -> list:
    """The heads the witness stream holds for the match."""
    async def read():
        nc = await nats.connect(url)
        try:
            return await witness_heads(nc.jetstream(), str(match_id))
        finally:
            await nc.close()

    return asyncio.run(read())


# ---- the stored rows, edited where they live --------------------------------------------

class Rows:
    """The match's stored events as (version, topic, state dict), written back with SQL."""

    def __init__(self, env: dict, match_id: UUID) -> None:
        self.table = "stored_events"  # eventsourcing's name on SQLite; on PostgreSQL the application's
        self.env = env
        self.match_id = match_id

    def _connect(self):
        if "SQLITE_DBNAME" in self.env:
            return sqlite3.connect(self.env["SQLITE_DBNAME"]), "?", self.match_id.hex
        e = self.env
        conn = psycopg.connect(dbname=e["POSTGRES_DBNAME"], host=e["POSTGRES_HOST"], port=e["POSTGRES_PORT"],
                               user=e["POSTGRES_USER"], password=e["POSTGRES_PASSWORD"] or None)
        self.table = conn.execute("SELECT table_name FROM information_schema.tables "
                                  "WHERE table_name LIKE '%%events' AND table_name NOT LIKE '%%tracking%%'").fetchone()[0]
        return conn, "%s", self.match_id

    def read(self) -> list[list]:
        conn, p, key = self._connect()
        with conn:
            rows = conn.execute(f"SELECT originator_version, topic, state FROM {self.table} "
                                f"WHERE originator_id = {p} ORDER BY originator_version", (key,)).fetchall()
        conn.close()
        return [[v, t, json.loads(bytes(s))] for v, t, s in rows]

    def write(self, rows: list[list], deleted: list[int] = ()) -> None:
        conn, p, key = self._connect()
        with conn:
            for version, topic, state in rows:
                conn.execute(f"UPDATE {self.table} SET topic = {p}, state = {p} "
                             f"WHERE originator_id = {p} AND originator_version = {p}",
                             (topic, json.dumps(state).encode(), key, version))
            for version in deleted:
                conn.execute(f"DELETE FROM {self.table} WHERE originator_id = {p} AND originator_version = {p}",
                             (key, version))
        conn.close()


def named(rows, kind: str) -> list[list]:
    return [r for r in rows if r[1].endswith(f"Match.{kind}")]


def relink(app, match_id, rows) -> None:
    """Recompute every link over the edited content, as a careful editor would."""
    events = [app.mapper.to_domain_event(_stored(match_id, v, t, s)) for v, t, s in rows]
    record = full_record(events)
    started = rows[0][2]
    seeded = from_json({**to_json(record), "fairness": {**to_json(record)["fairness"],
                                                        "server_seed": started["server_seed"]}})
    links = chain.links(seeded)
    if record.fairness.server_seed is None:
        links = links[:-1]  # no end entry in a log without its end
    linked = [r for r in rows if r[2].get("link")]
    for row, link in zip(linked, links, strict=True):
        row[2]["link"] = link


def _stored(match_id, version, topic, state):
    from eventsourcing.persistence import StoredEvent
    return StoredEvent(originator_id=match_id, originator_version=version, topic=topic,
                       state=json.dumps(state).encode())


# ---- the edits ------------------------------------------------------------------------------

def edit_seat_name(app, match_id, rows):
    named(rows, "MatchStarted")[0][2]["seats"][0] = "mallory"
    return 0, []


def edit_played_tile(app, match_id, rows):
    """A play changed to another tile that was legal at that moment."""
    for row in named(rows, "TilePlayed"):
        before = app.repository.get(match_id, version=row[0] - 1)
        others = [m for m in legal_moves(before.state.round) if m.kind == "play" and m.tile != row[2]["tile"]]
        if others:
            row[2]["tile"], row[2]["end"] = others[0].tile, others[0].end
            return _entry_of(rows, row[0]), []
    raise AssertionError("no play had a legal alternative")


def edit_drawn_tile(app, match_id, rows):
    row = named(rows, "TileDrawn")[0]
    row[2]["tile"] = (row[2]["tile"] + 1) % 28
    return _entry_of(rows, row[0]), []


def delete_last_event(app, match_id, rows):
    last = rows.pop()
    return None, [last[0]]


def reorder_two_events(app, match_id, rows):
    plays = named(rows, "TilePlayed")
    a, b = plays[2], plays[3]
    a[2], b[2] = b[2], a[2]
    return _entry_of(rows, a[0]), []


def replace_the_seed(app, match_id, rows):
    started, ended = named(rows, "MatchStarted")[0], named(rows, "MatchEnded")[0]
    seed = "5e" * 32
    import hashlib
    started[2]["server_seed"] = ended[2]["server_seed"] = seed
    started[2]["commitment"] = hashlib.sha256(bytes.fromhex(seed)).hexdigest()
    return 0, []


def _entry_of(rows, version: int) -> int:
    """The chain entry a linked event holds: how many linked events come before it."""
    return sum(1 for v, _, s in rows if s.get("link") and v < version)


EDITS = [edit_seat_name, edit_played_tile, edit_drawn_tile, delete_last_event, reorder_two_events, replace_the_seed]


@pytest.mark.parametrize("relinked", [False, True], ids=["links-left", "links-recomputed"])
@pytest.mark.parametrize("edit", EDITS, ids=lambda f: f.__name__)
def test_an_edit_of_the_stored_log_is_caught_by_the_heads_and_the_witness(env, nats_server, keys_dir, edit,
                                                                          relinked):
    signer = load_signer(keys_dir)
    keys = PublishedKeys.load(keys_dir / "heads-keys.json")
    match_id, kept = play_and_witness(env, nats_server.url, signer)
    app = MatchApplication(env=env)
    try:
        rows = Rows(env, match_id).read()
        entry, deleted = edit(app, match_id, rows)
        if relinked:
            relink(app, match_id, rows)
        Rows(env, match_id).write(rows, deleted)
        export = to_json(full_record(app.stored_events(match_id)))  # the auditor's export: no replay
    finally:
        app.close()
    record = from_json(json.loads(json.dumps(export)))

    verdict = verify(record, keys, kept).to_json()
    assert verdict["valid"] is False
    assert verdict["heads"]["status"] == "broken", verdict["heads"]
    if not relinked and entry is not None:
        assert verdict["chain"]["status"] == "broken"
        assert verdict["chain"]["first_bad"]["entry"] == entry

    assert compare(record, witnessed(nats_server.url, match_id), keys).status == "broken"


def test_the_untouched_log_agrees_with_the_heads_and_the_witness(env, nats_server, keys_dir):
    signer = load_signer(keys_dir)
    keys = PublishedKeys.load(keys_dir / "heads-keys.json")
    match_id, kept = play_and_witness(env, nats_server.url, signer)
    app = MatchApplication(env=env)
    try:
        record = from_json(to_json(full_record(app.stored_events(match_id))))
    finally:
        app.close()
    record.chain["head"] = kept[-1].to_json()  # as ExportMatch signs it; with keys, verify needs it
    verdict = verify(record, keys, kept)
    assert verdict.valid, verdict.to_json()

    heads = witnessed(nats_server.url, match_id)
    assert len(heads) == 1 and compare(record, heads, keys).status == "ok"
