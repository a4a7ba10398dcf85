"""Signed heads: a player's heads settle which log was played, and keys can be rotated
without old heads losing their worth (docs/record.md, "Signed heads")."""

from __future__ import annotations

import dataclasses
import json

import pytest
from click.testing import CliRunner
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.audit.verify import verify
from services.cli.main import cli
from services.match import chain
from services.match.heads import BadHead, Head, PublishedKeys, Signer, heads_file, load_signer, rotate
from services.match.record import from_json
from tests.unit.test_chain import exported


def heads_for(record_json: str, signer: Signer) -> list[Head]:
    """A head after every entry, as a player watching the whole match would have kept."""
    record = from_json(json.loads(record_json))
    links = chain.links(record)
    return [signer.head("m1", i + 1, i + 1, link) for i, link in enumerate(links)]


def signed(text: str, signer: Signer) -> str:
    """The export as the match service gives it: its chain ends with a head it signed."""
    data = json.loads(text)
    links = data["chain"]["links"]
    data["chain"]["head"] = signer.head("m1", len(links), len(links), links[-1]).to_json()
    return json.dumps(data)


def relinked(data: dict) -> dict:
    """What someone who rewrote the log and recomputed every link would export."""
    record = from_json(data)
    data["chain"]["links"] = chain.links(record)
    return data


@pytest.fixture
def keys_dir(tmp_path):
    rotate(tmp_path, now=1000)
    return tmp_path


def test_a_head_signed_by_a_published_key_verifies(keys_dir):
    signer = load_signer(keys_dir, clock=lambda: 2000)
    head = signer.head("m1", 3, 2, "ab" * 32)
    assert PublishedKeys.load(keys_dir / "heads-keys.json").problem(head) is None


def test_a_head_whose_hash_was_changed_does_not_verify(keys_dir):
    signer = load_signer(keys_dir, clock=lambda: 2000)
    head = dataclasses.replace(signer.head("m1", 3, 2, "ab" * 32), hash="cd" * 32)
    assert "does not verify" in PublishedKeys.load(keys_dir / "heads-keys.json").problem(head)


def test_a_rotated_key_still_verifies_heads_signed_while_it_was_in_use(keys_dir):
    old = load_signer(keys_dir, clock=lambda: 2000).head("m1", 1, 1, "ab" * 32)
    rotate(keys_dir, now=5000, overlap_seconds=100)
    published = PublishedKeys.load(keys_dir / "heads-keys.json")
    assert published.problem(old) is None
    late = dataclasses.replace(old, signed_at=6000)
    assert "outside key" in published.problem(late)
    new = load_signer(keys_dir, clock=lambda: 6000).head("m1", 1, 1, "ab" * 32)
    assert new.key != old.key and published.problem(new) is None


def test_a_key_that_was_never_published_is_refused(keys_dir):
    stranger = Signer(Ed25519PrivateKey.generate()).head("m1", 1, 1, "ab" * 32)
    assert "not published" in PublishedKeys.load(keys_dir / "heads-keys.json").problem(stranger)


def test_a_signing_key_missing_from_the_published_keys_refuses_to_load(keys_dir):
    (keys_dir / "heads-keys.json").write_text(json.dumps({"format": "domino-keys/1", "keys": []}))
    with pytest.raises(BadHead, match="not in"):
        load_signer(keys_dir)


def test_the_players_heads_accept_the_export_of_the_match_they_played(keys_dir):
    signer = load_signer(keys_dir, clock=lambda: 2000)
    text = signed(exported("block-4", 0), signer)
    verdict = verify(from_json(json.loads(text)), PublishedKeys.load(keys_dir / "heads-keys.json"),
                     heads_for(text, signer))
    assert verdict.valid and verdict.to_json()["heads"]["status"] == "ok"


def test_a_relinked_rewrite_passes_the_chain_but_not_the_players_heads(keys_dir):
    signer = load_signer(keys_dir, clock=lambda: 2000)
    text = exported("block-4", 0)
    data = relinked({**json.loads(text), "seats": ["mallory", "p1", "p2", "p3"]})
    verdict = verify(from_json(data), PublishedKeys.load(keys_dir / "heads-keys.json"), heads_for(text, signer))
    out = verdict.to_json()
    assert out["chain"]["status"] == "ok"
    assert out["heads"]["status"] == "broken" and out["heads"]["first_bad_entry"] == 0
    assert not verdict.valid and "heads:" in out["error"]["message"]


def test_an_export_cut_short_is_caught_by_a_later_head(keys_dir):
    signer = load_signer(keys_dir, clock=lambda: 2000)
    text = exported("draw-2", 1)
    data = json.loads(text)
    del data["fairness"]["server_seed"]  # the end event deleted: no seed, and one entry short
    data["chain"]["links"].pop()
    out = verify(from_json(data), None, heads_for(text, signer)).to_json()
    assert out["heads"]["status"] == "broken" and "lacks what the player saw" in out["heads"]["message"]


def test_verify_command_reports_the_heads_and_exits_1_when_they_disagree(keys_dir, tmp_path):
    signer = load_signer(keys_dir, clock=lambda: 2000)
    text = signed(exported("block-4", 0), signer)
    heads_path = tmp_path / "heads.json"
    heads_path.write_text(json.dumps(heads_file("m1", heads_for(text, signer))))
    good = tmp_path / "good.json"
    good.write_text(text)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(relinked({**json.loads(text), "seats": ["p1", "p0", "p2", "p3"]})))
    key = str(keys_dir / "heads-keys.json")
    runner = CliRunner()
    ok = runner.invoke(cli, ["audit", "verify", str(good), "--heads", str(heads_path), "--key", key, "--json"])
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.output)["heads"]["status"] == "ok"
    broken = runner.invoke(cli, ["audit", "verify", str(bad), "--heads", str(heads_path), "--key", key])
    assert broken.exit_code == 1
    assert "player's heads: broken" in broken.output


def test_verify_command_refuses_a_malformed_heads_file_with_status_2(tmp_path):
    record = tmp_path / "r.json"
    record.write_text(exported("draw-2", 1))
    heads_path = tmp_path / "heads.json"
    heads_path.write_text(json.dumps({"format": "domino-heads/1", "heads": [{"match": "m1"}]}))
    result = CliRunner().invoke(cli, ["audit", "verify", str(record), "--heads", str(heads_path)])
    assert result.exit_code == 2 and "a head needs" in result.output
