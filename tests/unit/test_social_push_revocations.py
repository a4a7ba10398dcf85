"""The revocation list tells its listeners of the sessions each step learned have ended
(services/common/revocations.py ``on_revoked``), and Pushes forgets the tokens those sessions
registered (services/social/push_tokens.py ``watch_revocations``): once per session, never
for one already expired, and a listener's fault never stops the list. The list is read from
an in-memory account service's side with an injected clock; the tokens sit in a real SQLite
file."""

from __future__ import annotations

import asyncio

import pytest

from services.common.revocations import Revocations
from services.common.sql import Database
from services.social.push_tokens import Pushes, Registration
from tests.support.clock import Clock

from .test_revocations import ListedSessions

NOW = 1_800_000_000.0


@pytest.fixture
def listed():
    return ListedSessions()


@pytest.fixture
def revocations(listed):
    return Revocations(listed, clock=Clock(NOW))


def test_listeners_hear_each_newly_revoked_session_once(listed, revocations):
    heard: list[tuple[str, ...]] = []
    revocations.on_revoked(heard.append)
    listed.revoke("s1", NOW + 600)
    listed.revoke("s2", NOW + 600)
    listed.revoke("long-expired", NOW - 1)
    asyncio.run(revocations.step())
    listed.revoke("s1", NOW + 900)  # listed again: already known
    asyncio.run(revocations.step())
    assert heard == [("s1", "s2")]


def test_a_listeners_fault_stops_neither_the_list_nor_the_other_listeners(listed, revocations):
    heard: list[tuple[str, ...]] = []

    def broken(sessions: tuple[str, ...]) -> None:
        raise RuntimeError("the listener broke")

    revocations.on_revoked(broken)
    revocations.on_revoked(heard.append)
    listed.revoke("s1", NOW + 600)
    assert asyncio.run(revocations.step()) is True
    assert heard == [("s1",)]
    assert revocations.revoked("s1")


def test_pushes_forget_the_tokens_of_the_sessions_the_list_learns_have_ended(tmp_path, listed, revocations):
    db = Database.for_env({}, str(tmp_path / "social.sqlite"), keep=True)
    try:
        pushes = Pushes(db)
        pushes.create()
        pushes.register("ann", "s-phone", Registration("phone", "fcm", "phone-token"))
        pushes.register("ann", "s-tablet", Registration("tablet", "fcm", "tablet-token"))
        pushes.watch_revocations(revocations)
        listed.revoke("s-phone", NOW + 600)

        async def step() -> None:
            await revocations.step()
            await pushes.settled()

        asyncio.run(step())
        assert [t.installation_id for t in pushes.targets("ann")] == ["tablet"]
    finally:
        db.close()
