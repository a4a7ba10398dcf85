"""The local run's head signing key (services/match/development_head_key.py): made once per
installation, as a process the supervisor starts, and never replaced by a later start."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from services.match.development_head_key import ensure
from services.match.heads import PRIVATE_FILE, PUBLISHED_FILE, PublishedKeys, load_signer


def test_a_key_is_made_once_and_published(tmp_path: Path):
    made = ensure(tmp_path)
    assert made is not None and load_signer(tmp_path).key_id == made
    key = (tmp_path / PRIVATE_FILE).read_bytes()
    assert ensure(tmp_path) is None
    assert (tmp_path / PRIVATE_FILE).read_bytes() == key
    assert list(PublishedKeys.load(tmp_path / PUBLISHED_FILE).keys) == [made]


def test_the_supervisor_makes_it_as_a_process(tmp_path: Path):
    subprocess.run([sys.executable, "-m", "services.match.development_head_key", str(tmp_path)], check=True)
    assert load_signer(tmp_path).key_id in PublishedKeys.load(tmp_path / PUBLISHED_FILE).keys
