"""JSON log lines keep what a log search needs (services/common/logs.py)."""

from __future__ import annotations

import json
import logging

from services.common.logs import configure


def lines(capsys) -> list[dict]:
    return [json.loads(line) for line in capsys.readouterr().err.splitlines() if line.strip()]


def test_extra_fields_become_keys_of_the_json_line(capsys):
    configure("json")
    logging.getLogger("test").warning("turn failed", extra={"code": "UNAVAILABLE", "match": "m-1"})
    (line,) = lines(capsys)
    assert (line["event"], line["code"], line["match"], line["level"]) == ("turn failed", "UNAVAILABLE", "m-1",
                                                                          "warning")


def test_an_exceptions_traceback_is_logged_as_text(capsys):
    configure("json")
    try:
        raise ValueError("the payload is not JSON")
    except ValueError:
        logging.getLogger("test").exception("dropped a message")
    (line,) = lines(capsys)
    assert "Traceback (most recent call last)" in line["exception"]
    assert "ValueError: the payload is not JSON" in line["exception"]
    assert "<traceback object" not in json.dumps(line)
