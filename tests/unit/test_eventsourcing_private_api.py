"""The few private parts of eventsourcing this project uses, named here so that an upgrade
past the pinned range (pyproject.toml) fails on them by name rather than deep in a store:
the repository's fast-forward lock (match/store.py), an aggregate's pending-events list
(Match.__deepcopy__) and the class's ``_create`` (Match.start)."""

from __future__ import annotations

from uuid import uuid4

from eventsourcing.application import Application, Repository
from eventsourcing.domain import Aggregate


def test_the_repository_has_its_fast_forward_lock():
    assert callable(getattr(Repository, "_use_fastforward_lock", None))
    assert callable(getattr(Repository, "_disuse_fastforward_lock", None))
    repository = Application(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}).repository
    aggregate_id = uuid4()
    lock = repository._use_fastforward_lock(aggregate_id)
    try:
        assert lock.acquire(blocking=False)
        lock.release()
    finally:
        repository._disuse_fastforward_lock(aggregate_id)


def test_an_aggregate_keeps_its_pending_events_in_its_own_dict():
    aggregate = Aggregate()
    assert "_pending_events" in aggregate.__dict__
    assert aggregate.__dict__["_pending_events"] == aggregate.pending_events


def test_an_aggregate_class_creates_through_create():
    assert callable(getattr(Aggregate, "_create", None))
    created = Aggregate._create(Aggregate.Created)
    assert isinstance(created, Aggregate) and created.version == 1
