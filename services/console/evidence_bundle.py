"""The evidence bundle an auditor downloads: everything `domino audit verify` needs to settle a
match offline, in one zip, so a dispute can be settled by someone who trusts neither the
console nor its operator (docs/record.md).

It holds the record as `domino audit export` writes it, the head keys the match service
publishes, the heads the players kept and the witness's heads (both `domino-heads/1`, which
`--heads` reads), and a README saying which command checks them. A piece the console could
not reach is left out and the README says so: the offline check then says "absent", as the
page said "not checked".
"""

from __future__ import annotations

import io
import json
import zipfile
from datetime import datetime

from services.match.heads import Head, heads_file

RECORD = "record.json"
KEYS = "head-keys.json"
KEPT = "players-heads.json"
WITNESS = "witness-heads.json"
README = "README.txt"


def exported_record(record_json: str) -> str:
    """The record as `domino audit export` writes it."""
    return json.dumps(json.loads(record_json), indent=2) + "\n"


def verify_command(has_keys: bool, has_kept: bool, has_witness: bool) -> str:
    parts = ["domino audit verify", RECORD]
    if has_keys:
        parts += ["--key", KEYS]
    if has_kept:
        parts += ["--heads", KEPT]
    if has_witness:
        parts += ["--heads", WITNESS]
    return " ".join(parts)


def _readme(match_id: str, command: str, missing: list[str], exported_by: str, when: datetime) -> str:
    lines = [
        f"Evidence for match {match_id}",
        f"Exported from the console by {exported_by} at {when.isoformat(timespec='seconds')}.",
        "",
        "Check it offline (exit status 0: the record is the match that was played, every deal",
        "came from the committed seeds and every action was legal; 1: not, with where; 2: a",
        "malformed file):",
        "",
        f"    {command}",
        "",
        f"{RECORD}: the whole record of the match (domino-record/1), with its hash chain and signed head.",
        f"{KEYS}: the keys the match service publishes for its signed heads (domino-keys/1);",
        "    compare them with the ones it serves (domino audit verify --keys-from HOST:PORT).",
        f"{KEPT}: the heads the players' clients kept while they played (domino-heads/1).",
        f"{WITNESS}: the final head the witness stream took when the match ended (domino-heads/1).",
        "",
        "The format and every check: docs/record.md in the project.",
    ]
    if missing:
        lines += ["", "Not in this bundle (the console could not reach it): " + "; ".join(missing) + "."]
    return "\n".join(lines) + "\n"


def bundle(match_id: str, record_json: str, keys: dict | None, kept: list[Head] | None,
           witnessed: list[Head] | None, exported_by: str, when: datetime) -> bytes:
    """The zip's bytes. ``keys``: a domino-keys/1 document; ``kept``/``witnessed``: None
    when they could not be had (left out), empty when there were none."""
    missing = []
    files: dict[str, str] = {RECORD: exported_record(record_json)}
    if keys is not None:
        files[KEYS] = json.dumps(keys, indent=2) + "\n"
    else:
        missing.append(f"{KEYS} (the published head keys)")
    if kept:
        files[KEPT] = json.dumps(heads_file(match_id, kept), indent=2) + "\n"
    else:
        missing.append(f"{KEPT} (no heads the players kept)")
    if witnessed:
        files[WITNESS] = json.dumps(heads_file(match_id, witnessed), indent=2) + "\n"
    else:
        missing.append(f"{WITNESS} (the witness stream: " + ("no head there" if witnessed is not None
                                                             else "not read") + ")")
    command = verify_command(KEYS in files, KEPT in files, WITNESS in files)
    files[README] = _readme(match_id, command, missing, exported_by, when)
    out = io.BytesIO()
    stamp = when.timetuple()[:6]
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, text in files.items():
            info = zipfile.ZipInfo(f"match-{match_id}/{name}", date_time=stamp)
            info.compress_type, info.external_attr = zipfile.ZIP_DEFLATED, 0o644 << 16
            zf.writestr(info, text)
    return out.getvalue()
