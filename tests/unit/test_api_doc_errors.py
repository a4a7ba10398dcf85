"""docs/api.md's "Errors" against what the servers can send: every value of the generated
domino.errors.v1.ErrorReason is a row of its reasons table and every row is a declared value
(a client reads the table, the server the enum), and every status code an adapter maps an
error to has a row in its retry table (OUT_OF_RANGE once had none)."""

from __future__ import annotations

import re
from pathlib import Path

import grpc

from domino.account.v1 import account_service_pb2
from domino.errors.v1 import error_reason_pb2
from domino.match.v1 import match_service_pb2
from domino.matchmaking.v1 import matchmaking_service_pb2

REPO = Path(__file__).resolve().parents[2]
DOC = (REPO / "docs" / "api.md").read_text()
DECLARED = {name.removeprefix("ERROR_REASON_") for name in error_reason_pb2.ErrorReason.keys()} - {"UNSPECIFIED"}
BEGIN, END = "<!-- error-table:", "<!-- error-table: end -->"
_ROW = re.compile(r"^\| `([A-Z0-9_]+)` \|", re.MULTILINE)


def documented_reasons() -> list[str]:
    table = DOC.split(BEGIN, 1)[1].split(END, 1)[0]
    return _ROW.findall(table)


def retry_table_codes() -> set[str]:
    """The codes named in the first column of the table of codes (`| code | retry? | how |`)."""
    table = DOC.split("| code | retry? | how |", 1)[1].split("\n\n", 1)[0]
    return {code for line in table.splitlines() if line.startswith("| `")
            for code in re.findall(r"`([A-Z_]+)`", line.split("|")[1])}


def test_every_error_reason_is_documented_once_and_every_documented_one_is_declared():
    rows = documented_reasons()
    assert sorted(r for r in set(rows) if rows.count(r) > 1) == []
    assert sorted(DECLARED - set(rows)) == [], "run .venv/bin/python scripts/error_table.py --write"
    assert sorted(set(rows) - DECLARED) == [], "a documented reason the API does not declare"


def test_every_reason_named_in_parentheses_is_declared():
    """Prose such as "`OUT_OF_RANGE` (`REVOCATION_CURSOR_AHEAD`)" names real reasons; status
    codes and the APIs' other enum values (`MOVE_CAUSE_FORCED_PASS`) are not reasons."""
    others = {code.name for code in grpc.StatusCode} | {
        value.name for module in (account_service_pb2, match_service_pb2, matchmaking_service_pb2)
        for enum in module.DESCRIPTOR.enum_types_by_name.values() for value in enum.values}
    named = set(re.findall(r"\(`([A-Z][A-Z0-9_]+)`", DOC)) - others
    assert named and sorted(named - DECLARED) == []


def test_every_status_code_the_services_map_errors_to_has_a_row_in_the_retry_table():
    from services.accounts import grpc_adapter as accounts
    from services.match import grpc_adapter as match
    from services.matchmaking import grpc_adapter as matchmaking
    from services.social import grpc_adapter as social

    mapped = {code.name for mapping in (accounts._STATUS, match.STATUSES, matchmaking._STATUS, social._STATUS)
              for _, code in mapping}
    assert sorted(mapped - retry_table_codes()) == []
