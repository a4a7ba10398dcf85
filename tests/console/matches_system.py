"""A match service (SQLite, its history view) and an account service on loopback for the
Matches pages' tests: finished draw-2 matches ``done`` and ``edited`` and one in play
(``live``), the heads ann's client kept of ``done`` under ``<root>/var/heads``, and
``tamper(match_id)``, which edits a stored event where it lives (the first seat's name in
MatchStarted, its link left alone), as the tamper tests edit stored logs."""

from __future__ import annotations

import json
import sqlite3
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from domino.match.v1 import match_service_pb2 as pb
from services.match.heads import Head, heads_file
from tests.service.account_harness import running_accounts
from tests.service.harness import service_with_history
from tests.support.grpc_matches import play_whole_match
from tests.support.keys import auth


@dataclass
class MatchesSystem:
    svc: Any
    accounts: Any
    ids: dict[str, str]
    export: dict  # the auditor's export of ``done``
    root: Path

    @property
    def var_dir(self) -> Path:
        return self.root / "var"

    def tamper(self, match_id: str) -> None:
        key = match_id.replace("-", "")
        with sqlite3.connect(self.root / "events.sqlite") as db:
            (state,) = db.execute("SELECT state FROM stored_events WHERE originator_id = ? AND "
                                  "originator_version = 1", (key,)).fetchone()
            started = json.loads(bytes(state))
            started["seats"][0] = "mallory"
            db.execute("UPDATE stored_events SET state = ? WHERE originator_id = ? AND originator_version = 1",
                       (json.dumps(started).encode(), key))


@contextmanager
def matches_system(root: Path) -> Iterator[MatchesSystem]:
    with service_with_history(root) as (svc, projection), running_accounts(root / "accounts") as accounts:
        ids = {"done": svc.create(variant="draw-2", players=("ann", "bob"), request_id="done").match_id}
        play_whole_match(svc, ids["done"])
        ids["edited"] = svc.create(variant="draw-2", players=("cat", "dan"), request_id="edited").match_id
        play_whole_match(svc, ids["edited"])
        ids["live"] = svc.create(request_id="live").match_id
        projection.catch_up()
        export = json.loads(svc.stub.ExportMatch(pb.ExportMatchRequest(match_id=ids["done"]),
                                                 metadata=auth("auditor-1", "auditor")).record_json)
        kept = root / "var" / "heads" / "ann-0badc0de" / f"{ids['done']}.json"
        kept.parent.mkdir(parents=True)
        kept.write_text(json.dumps(heads_file(ids["done"], [Head.from_json(export["chain"]["head"])])))
        yield MatchesSystem(svc, accounts, ids, export, root)
