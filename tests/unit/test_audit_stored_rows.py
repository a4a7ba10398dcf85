"""The operator's tools take a stored topic only when it names a Match event
(services/audit/stored_rows.py): the old names the aggregate's module registered still
read, and a topic naming anything else resolves to nothing without importing it."""

from __future__ import annotations

import sys

from eventsourcing.utils import get_topic

from services.audit.stored_rows import event_class
from services.match.domainmodel import Match


def test_an_event_stored_under_its_old_name_is_still_the_event_it_was_renamed_to():
    assert event_class("services.match.domainmodel:Match.SeatAway") is Match.SeatWentAway
    assert event_class(get_topic(Match.TilePlayed)) is Match.TilePlayed


def test_a_topic_naming_a_module_outside_the_aggregate_is_nothing_and_is_not_imported():
    sys.modules.pop("antigravity", None)
    assert event_class("antigravity:fly") is None
    assert "antigravity" not in sys.modules
    for topic in ("services.match.domainmodel:Match.Event", "services.match.domainmodel:Match.__init__",
                  "services.match.domainmodel:Match.NoSuchEvent", "services.match.domainmodelx:Match.TilePlayed"):
        assert event_class(topic) is None, topic
