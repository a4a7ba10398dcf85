"""The evidence bundle (services/console/evidence_bundle.py) verifies offline: unzipped, the
command its README names is `domino audit verify` accepting the match, and refusing an
edited copy of it."""

from __future__ import annotations

import io
import json
import shlex
import zipfile
from datetime import datetime, timezone

from click.testing import CliRunner

from services.cli.main import cli
from services.console.evidence_bundle import KEPT, README, RECORD, WITNESS, bundle
from tests.console.played_match import played

WHEN = datetime(2026, 12, 7, 3, 0, tzinfo=timezone.utc)


def unzipped(data: bytes, where) -> tuple[str, dict[str, str]]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        names = zf.namelist()
        zf.extractall(where)
    folder = names[0].split("/")[0]
    return folder, {n.split("/", 1)[1]: (where / n).read_text() for n in names}


def readme_command(readme: str) -> list[str]:
    line = next(line for line in readme.splitlines() if line.strip().startswith("domino audit verify"))
    return shlex.split(line)[1:]


def run_readme_command(folder, readme: str, monkeypatch):
    monkeypatch.chdir(folder)
    return CliRunner().invoke(cli, readme_command(readme))


def evidence(p, record_json=None):
    witness = [p.kept[-1]]
    return bundle(p.match_id, record_json or json.dumps(p.export), p.keys.to_json(), list(p.kept), witness,
                  "ada (auditor)", WHEN)


def test_the_unzipped_bundle_verifies_with_the_command_its_readme_names(tmp_path, monkeypatch):
    p = played()
    folder, files = unzipped(evidence(p), tmp_path)
    assert {RECORD, KEPT, WITNESS, README} <= set(files)
    assert json.loads(files[RECORD]) == p.export
    result = run_readme_command(tmp_path / folder, files[README], monkeypatch)
    assert result.exit_code == 0, result.output
    assert "signed head: ok" in result.output and "player's heads: ok" in result.output


def test_an_edited_record_in_the_bundle_is_refused_offline(tmp_path, monkeypatch):
    p = played()
    export = json.loads(json.dumps(p.export))
    export["seats"][0] = "mallory"
    folder, files = unzipped(evidence(p, json.dumps(export)), tmp_path)
    result = run_readme_command(tmp_path / folder, files[README], monkeypatch)
    assert result.exit_code == 1, result.output
    assert "INVALID" in result.output


def test_what_the_console_could_not_reach_is_left_out_and_named(tmp_path):
    p = played()
    _, files = unzipped(bundle(p.match_id, json.dumps(p.export), None, None, None, "ada", WHEN), tmp_path)
    assert set(files) == {RECORD, README}
    assert readme_command(files[README]) == ["audit", "verify", RECORD]
    assert "Not in this bundle" in files[README] and "not read" in files[README]

