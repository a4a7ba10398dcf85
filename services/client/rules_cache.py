"""The last DescribeRules answer this terminal received, kept in its config directory.

The client holds no rules of its own (families.py): what `domino play --help` says of the
families, their variants and options, before any server is asked, is what a server said in
the last session, and it says so. Every session asks again and keeps the new answer; the
command line's choices are checked against that fresh one once connected."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from google.protobuf import json_format

from domino.match.v1 import match_service_pb2 as pb
from services.common.private_files import write_private

from . import families

FORMAT = "domino-rules-cache/1"
FILE = "rules.json"


@dataclass(frozen=True)
class Cached:
    server: str  # the match service that described them
    rules: families.Rules


def path_in(directory: Path) -> Path:
    return Path(directory) / FILE


def load(directory: Path) -> Cached | None:
    """The description kept in ``directory``; None when there is none or it cannot be read
    (a help text then names no family, and nothing else depends on it)."""
    try:
        data = json.loads(path_in(directory).read_text())
        if data.get("format") != FORMAT:
            return None
        message = json_format.ParseDict(data["described"], pb.DescribeRulesResponse(), ignore_unknown_fields=True)
        return Cached(str(data.get("server", "")), families.Rules.of(message))
    except (OSError, ValueError, KeyError, TypeError, AttributeError, json_format.ParseError):
        return None


def save(directory: Path, server: str, message: pb.DescribeRulesResponse) -> None:
    """Keeps ``message`` for the next session's help; a directory that cannot be written only
    loses that."""
    data = {"format": FORMAT, "server": server, "described": json_format.MessageToDict(message)}
    try:
        write_private(path_in(directory), json.dumps(data, indent=1) + "\n")
    except OSError:
        pass
