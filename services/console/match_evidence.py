"""What the replay page checks a finished match against, gathered as `domino audit` gathers
it (services/cli/audit.py): the whole record (MatchService.ExportMatch with the staff member's
operator token, which the match service answers for auditors), the head keys the match
service publishes (GetHeadKeys), the heads the players' clients kept (`domino play` writes them
under ``<var>/heads/``: reachable on a local run, nowhere else) and the witness stream's heads,
read from NATS as the auditor's NATS user.

Every piece but the record is optional: one that cannot be reached is None, which the page
shows as "not checked", never as passed.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from dataclasses import dataclass
from pathlib import Path

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from domino.match.v1 import match_service_pb2 as pb
from services.audit.evidence import Finding
from services.audit.witness import compare, witness_heads
from services.client.head_keys import keys_document
from services.common import bus
from services.match.heads import BadHead, Head, PublishedKeys, read_heads
from services.match.untrusted_json import parse as parse_untrusted

from .staff import Staff

log = logging.getLogger("domino.console.matches")

MATCH_ID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


class EvidenceSettings(BaseSettings):
    """Where the console finds the evidence beyond the record (`DOMINO_CONSOLE_*`)."""

    model_config = SettingsConfigDict(env_prefix="DOMINO_CONSOLE_", extra="ignore", populate_by_name=True)

    nats_url: str = Field("nats://127.0.0.1:4222", validation_alias=AliasChoices("DOMINO_CONSOLE_NATS_URL",
                                                                                  "DOMINO_NATS_URL"),
                          description="NATS, to read the witness stream")
    nats_user: str = Field("", description="the NATS user the console reads the witness as (the auditor's); "
                                           "empty: the local run's auditor from <var>/nats-users.json, if any")
    nats_password_file: str = Field("", description="file holding that user's password (a k8s Secret)")
    witness_seconds: float = Field(3.0, gt=0, le=30, description="how long the witness may take to answer")
    kept_heads_dir: str = Field("", description="where players' kept heads are (domino play's <var>/heads); "
                                                "empty: <var>/heads")
    var_dir: str = Field("var", validation_alias=AliasChoices("DOMINO_VAR_DIR"))

    def nats(self) -> "_Nats":
        user, password = self.nats_user, ""
        if self.nats_password_file:
            password = Path(self.nats_password_file).read_text().strip()
        elif not user:
            try:
                password = json.loads((Path(self.var_dir) / "nats-users.json").read_text())["auditor"]
                user = "auditor"
            except (OSError, ValueError, KeyError, TypeError):
                pass  # a NATS without users (tests)
        return _Nats(self.nats_url, user, password)

    @property
    def heads_dir(self) -> Path:
        return Path(self.kept_heads_dir or Path(self.var_dir) / "heads")


@dataclass(frozen=True)
class _Nats:
    """What bus.connect reads of a service's settings."""
    nats_url: str
    nats_user: str
    nats_password: str


@dataclass(frozen=True)
class Gathered:
    record_json: str
    keys_json: dict | None  # domino-keys/1
    keys: PublishedKeys | None
    kept: list[Head] | None
    witnessed: list[Head] | None
    witness: Finding | None


async def exported(clients, staff: Staff, match_id: str) -> str:
    """The auditor's export (grpc.aio.AioRpcError when refused: the app shows its status)."""
    reply = await clients.match.ExportMatch(pb.ExportMatchRequest(match_id=match_id), **clients.call_options(staff))
    return reply.record_json


async def head_keys(clients) -> dict | None:
    try:
        answer = await clients.match.GetHeadKeys(pb.GetHeadKeysRequest(), timeout=clients.deadline)
    except Exception as e:  # noqa: BLE001 - whatever failed, the keys were not had: "not checked"
        log.warning("head keys not fetched", extra={"error": str(e)[:200]})
        return None
    return keys_document(answer)


def kept_heads(directory: Path, match_id: str) -> list[Head] | None:
    """Every head any player's client kept for the match (``<dir>/<player>-<hash>/<match>.json``);
    None when there are none to read. A file that is not a heads file is skipped."""
    if not MATCH_ID.match(match_id) or not directory.is_dir():
        return None
    heads: list[Head] = []
    found = False
    for path in sorted(directory.glob(f"*/{match_id}.json")):
        try:
            got = read_heads(parse_untrusted(path.read_bytes()))
        except (OSError, ValueError, BadHead):
            log.warning("kept heads unreadable", extra={"path": str(path)})
            continue
        found = True
        heads += [h for h in got if h.match == match_id]
    return heads if found else None


async def _quiet(error: Exception) -> None:
    """nats-py prints every connection error itself; the one warning below says it once."""


async def witnessed(settings: EvidenceSettings, match_id: str) -> list[Head] | None:
    """The witness stream's heads for the match; None when NATS cannot be read in time."""
    async def read() -> list[Head]:
        nc = await bus.connect(settings.nats(), "console-witness", max_reconnect_attempts=0,
                               connect_timeout=settings.witness_seconds, allow_reconnect=False, error_cb=_quiet)
        try:
            return await witness_heads(nc.jetstream(), match_id)
        finally:
            await nc.close()

    try:
        return await asyncio.wait_for(read(), settings.witness_seconds)
    except Exception as e:  # noqa: BLE001 - whatever NATS said, the witness was not checked
        log.warning("witness not read", extra={"match": match_id, "error": str(e)[:200]})
        return None


async def gather(clients, settings: EvidenceSettings, staff: Staff, match_id: str) -> Gathered:
    from services.match import record as record_format

    record_json = await exported(clients, staff, match_id)
    keys_json, heads_from_witness = await asyncio.gather(head_keys(clients), witnessed(settings, match_id))
    keys = None
    if keys_json is not None:
        try:
            keys = PublishedKeys.from_json(keys_json)
        except (BadHead, ValueError):
            keys_json = None
    finding = None
    if heads_from_witness is not None:
        try:
            finding = compare(record_format.loads(record_json), heads_from_witness, keys)
        except record_format.MalformedRecord:
            finding = None
    return Gathered(record_json, keys_json, keys, kept_heads(settings.heads_dir, match_id), heads_from_witness,
                    finding)
