"""What `domino up` gives the match service about the social service it asks about blocks."""

from __future__ import annotations

from pathlib import Path

from services.common.supervisor import SERVICES, LocalSystem, Ports


def test_the_local_match_service_asks_the_local_social_service_about_blocks(tmp_path: Path):
    system = LocalSystem(tmp_path, Ports.free(), services=SERVICES)
    assert system.env("match")["DOMINO_SOCIAL_ADDRESS"] == system.social_address


def test_the_local_match_service_checks_no_block_when_no_social_service_runs(tmp_path: Path):
    system = LocalSystem(tmp_path, Ports.free(), services=tuple(s for s in SERVICES if s != "social"))
    assert system.env("match")["DOMINO_SOCIAL_ADDRESS"] == ""
