"""The console reads a match's witness heads from a real NATS, as `domino audit witness`
does (services/console/match_evidence.py): the final head the relay stored agrees with the
record at every step; a NATS it cannot reach leaves the witness "not checked"."""

from __future__ import annotations

import asyncio

import nats
import pytest

from services.audit.witness import compare, publish
from services.console.match_evidence import EvidenceSettings, witnessed
from services.console.replay import replay
from services.console.step_evidence import AGREES, NOT_CHECKED
from tests.console.played_match import played
from tests.integration.fresh_bus import fresh_bus

pytestmark = pytest.mark.integration


def stored_in_the_witness(url: str, head) -> None:
    async def put():
        nc = await nats.connect(url)
        try:
            await fresh_bus(nc.jetstream())
            await publish(nc.jetstream(), head)
        finally:
            await nc.close()

    asyncio.run(put())


def test_the_witness_heads_the_console_reads_agree_with_the_record_at_every_step(nats_server, tmp_path):
    p = played()
    stored_in_the_witness(nats_server.url, p.kept[-1])
    heads = asyncio.run(witnessed(EvidenceSettings(nats_url=nats_server.url, var_dir=str(tmp_path)), p.match_id))
    assert heads == [p.kept[-1]]
    result = replay(p.record(), p.keys, None, compare(p.record(), heads, p.keys))
    assert result.valid and {s.marks.witness for s in result.steps} == {AGREES}


def test_a_witness_out_of_reach_is_not_checked(tmp_path):
    settings = EvidenceSettings(nats_url="nats://127.0.0.1:9", witness_seconds=0.5, var_dir=str(tmp_path))
    p = played()
    assert asyncio.run(witnessed(settings, p.match_id)) is None
    assert {s.marks.witness for s in replay(p.record(), p.keys, None, None).steps} == {NOT_CHECKED}
