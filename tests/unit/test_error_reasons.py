"""Every error reason the services raise is one the API declares (domino.errors.v1.ErrorReason),
and docs/api.md's table of them is the proto's."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from domino.errors.v1 import error_reason_pb2

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("error_table", REPO / "scripts" / "error_table.py")
assert _spec is not None and _spec.loader is not None
error_table = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(error_table)

DECLARED = {name.removeprefix("ERROR_REASON_") for name in error_reason_pb2.ErrorReason.keys()} - {"UNSPECIFIED"}
# A reason written in the code: `error_reason = "X"`, `error_reason="X"`, or a reason argument
# of grpc_status.abort / AuthError / TooMany.
_WRITTEN = re.compile(r"""error_reason\s*=\s*"([A-Z_]+)"|"([A-Z][A-Z0-9_]{3,})"(?=\s*[,)])""")


def written_reasons() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in sorted((REPO / "services").rglob("*.py")):
        for match in _WRITTEN.finditer(path.read_text()):
            reason = match.group(1) or match.group(2)
            found.setdefault(reason, []).append(str(path.relative_to(REPO)))
    return found


def test_every_reason_the_services_write_is_declared_in_the_api():
    written = written_reasons()
    stray = {r: paths for r, paths in written.items() if r not in DECLARED and _looks_like_a_reason(r, paths)}
    assert stray == {}, "declare these in proto/domino/errors/v1/error_reason.proto"


def test_the_reasons_table_in_docs_api_md_is_the_protos():
    assert error_table.documented((REPO / "docs" / "api.md").read_text()) == error_table.table(), \
        "docs/api.md's error table is stale: run .venv/bin/python scripts/error_table.py --write"


def _looks_like_a_reason(text: str, paths: list[str]) -> bool:
    """Upper-case strings that are not reasons (SQL, environment names, pragma words) are
    told apart by where they stand: reasons are written in error modules and adapters."""
    return any(p.endswith(("errors.py", "grpc_adapter.py", "grpc_status.py", "auth.py", "limits.py",
                           "grpc_server.py", "auth_interceptor.py")) for p in paths) and not text.startswith("DOMINO")


def test_every_error_class_an_adapter_maps_names_a_declared_reason():
    from services.accounts import grpc_adapter as accounts
    from services.match import grpc_adapter as match
    from services.matchmaking import grpc_adapter as matchmaking
    from services.social import grpc_adapter as social

    mappings = {"accounts": accounts._STATUS, "match": match.STATUSES, "matchmaking": matchmaking._STATUS,
                "social": social._STATUS}
    unnamed = {f"{service}: {cls.__module__}.{cls.__qualname__}": getattr(cls, "error_reason", None)
               for service, mapping in mappings.items() for cls, _ in mapping
               if getattr(cls, "error_reason", None) not in DECLARED}
    assert unnamed == {}, "give each an error_reason declared in proto/domino/errors/v1/error_reason.proto"
