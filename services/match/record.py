"""The `domino-record/1` format (docs/record.md): reading and writing, nothing more.

What a record holds is record_model.py, reading it (every check that needs no replay)
record_reading.py, writing it record_writing.py; this module is where the rest of the house
finds them.
"""

from __future__ import annotations

import json

from .record_model import FORMAT, Fairness, MalformedRecord, MatchRecord, RecordedAction, RecordedRound
from .record_reading import from_json, loads
from .record_writing import action_to_json, round_to_json, to_json

__all__ = ["FORMAT", "Fairness", "MalformedRecord", "MatchRecord", "RecordedAction", "RecordedRound",
           "action_to_json", "dumps", "from_json", "loads", "round_to_json", "to_json"]


def dumps(record: MatchRecord, indent: int | None = 2) -> str:
    return json.dumps(to_json(record), indent=indent, ensure_ascii=False)
