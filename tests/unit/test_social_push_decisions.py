"""Whether a notification may buzz a player's phones now (services/social/push_tokens.py):
the kinds opted out, the quiet hours on the player's own clock (across midnight, in their
zone, on a daylight saving day; your turn goes through them), the pushes of the last 60
seconds (a sliding window kept in the store, your turn counted), no phone. Time is an
injected clock; the store a real SQLite file."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from services.common.sql import Database
from services.social.push_tokens import PushLimits, Pushes, PushSettings, Registration, SettingsChange
from tests.support.clock import Clock

PHONE = Registration("phone-1", "fcm", "fcm-token-1")


def at(text: str) -> float:
    """An instant given in UTC ("2026-03-29 05:30")."""
    return datetime.strptime(text, "%Y-%m-%d %H:%M").replace(tzinfo=timezone.utc).timestamp()


@pytest.fixture
def db(tmp_path):
    database = Database.for_env({}, str(tmp_path / "social.sqlite"), keep=True)
    yield database
    database.close()


@pytest.fixture
def clock():
    return Clock(at("2026-06-01 12:00"))


@pytest.fixture
def pushes(db, clock):
    made = Pushes(db, clock, PushLimits(installations=10, per_minute=3))
    made.create()
    made.register("ann", "s-ann", PHONE)
    return made


def quiet(start: str, end: str, zone: str = "") -> PushSettings:
    minutes = [int(t[:2]) * 60 + int(t[3:]) for t in (start, end)]
    return PushSettings(quiet_hours=(minutes[0], minutes[1]), time_zone=zone)


# ---- quiet hours ---------------------------------------------------------------------------

@pytest.mark.parametrize("when, inside", [("2026-06-01 21:59", False), ("2026-06-01 22:00", True),
                                          ("2026-06-01 23:30", True), ("2026-06-02 00:00", True),
                                          ("2026-06-02 06:59", True), ("2026-06-02 07:00", False),
                                          ("2026-06-02 12:00", False)])
def test_quiet_hours_that_start_after_they_end_span_midnight(when, inside):
    assert quiet("22:00", "07:00").quiet_at(at(when)) is inside


@pytest.mark.parametrize("when, inside", [("2026-06-01 08:59", False), ("2026-06-01 09:00", True),
                                          ("2026-06-01 16:59", True), ("2026-06-01 17:00", False)])
def test_quiet_hours_within_a_day_end_where_they_say(when, inside):
    assert quiet("09:00", "17:00").quiet_at(at(when)) is inside


def test_quiet_hours_are_read_on_the_players_own_clock():
    # 01:00 UTC is 10:00 in Tokyo: inside 09:00-17:00 there, outside it in UTC.
    assert quiet("09:00", "17:00", "Asia/Tokyo").quiet_at(at("2026-06-01 01:00")) is True
    assert quiet("09:00", "17:00").quiet_at(at("2026-06-01 01:00")) is False


def test_quiet_hours_move_with_the_clocks_on_a_daylight_saving_day():
    madrid = quiet("22:00", "07:00", "Europe/Madrid")
    # 05:30 UTC is 06:30 in Madrid the day before the clocks go forward, 07:30 on that day.
    assert madrid.quiet_at(at("2026-03-28 05:30")) is True
    assert madrid.quiet_at(at("2026-03-29 05:30")) is False
    # and 07:30 the day before they go back in October, 06:30 on that day.
    assert madrid.quiet_at(at("2026-10-24 05:30")) is False
    assert madrid.quiet_at(at("2026-10-25 05:30")) is True


def test_no_quiet_hours_are_never_quiet():
    assert PushSettings(time_zone="Europe/Madrid").quiet_at(at("2026-06-01 03:00")) is False


# ---- the decision --------------------------------------------------------------------------

def test_a_player_with_a_phone_and_no_settings_gets_the_push_on_that_phone(pushes, clock):
    decision, targets = pushes.decide("ann", "friend_request", clock())
    assert decision == "send"
    assert [(t.installation_id, t.platform, t.token) for t in targets] == [("phone-1", "fcm", "fcm-token-1")]


def test_a_kind_opted_out_is_not_pushed_and_other_kinds_are(pushes, clock):
    pushes.update_settings("ann", SettingsChange(push_disabled=("invite", "rematch")))
    assert pushes.decide("ann", "invite", clock())[0] == "opted_out"
    assert pushes.decide("ann", "rematch", clock())[0] == "opted_out"
    assert pushes.decide("ann", "friend_request", clock())[0] == "send"


def test_your_turn_goes_through_quiet_hours(pushes):
    pushes.update_settings("ann", SettingsChange(quiet_hours=(22 * 60, 7 * 60), time_zone="Europe/Madrid"))
    night = at("2026-06-01 01:00")  # 03:00 in Madrid
    assert pushes.decide("ann", "invite", night) == ("quiet_hours", [])
    assert pushes.decide("ann", "your_turn", night)[0] == "send"


def test_your_turn_opted_out_is_not_pushed(pushes, clock):
    pushes.update_settings("ann", SettingsChange(push_disabled=("your_turn",)))
    assert pushes.decide("ann", "your_turn", clock())[0] == "opted_out"


def test_an_opt_out_is_answered_before_quiet_hours(pushes):
    pushes.update_settings("ann", SettingsChange(push_disabled=("invite",), quiet_hours=(0, 1439)))
    assert pushes.decide("ann", "invite", at("2026-06-01 12:00"))[0] == "opted_out"


def test_a_player_without_phones_gets_no_push(pushes, clock):
    assert pushes.decide("bob", "invite", clock()) == ("no_tokens", [])


def test_pushes_past_the_minutes_limit_are_refused_until_the_oldest_is_a_minute_old(pushes, clock):
    start = clock()
    assert [pushes.decide("ann", "invite", start + s)[0] for s in (0, 10, 20)] == ["send"] * 3
    assert pushes.decide("ann", "invite", start + 30)[0] == "rate_limited"
    assert pushes.decide("ann", "invite", start + 59.9)[0] == "rate_limited"
    assert pushes.decide("ann", "invite", start + 60.5)[0] == "send"  # the one at 0 left the window
    assert pushes.decide("ann", "invite", start + 61)[0] == "rate_limited"  # 10, 20 and 60.5 are in it
    assert pushes.decide("ann", "invite", start + 70.5)[0] == "send"


def test_your_turn_pushes_count_against_the_minute(pushes, clock):
    for _ in range(3):
        assert pushes.decide("ann", "your_turn", clock())[0] == "send"
    assert pushes.decide("ann", "invite", clock())[0] == "rate_limited"
    assert pushes.decide("ann", "your_turn", clock())[0] == "rate_limited"


def test_pushes_not_sent_are_not_counted(pushes, clock):
    pushes.update_settings("ann", SettingsChange(push_disabled=("invite",)))
    for _ in range(5):
        assert pushes.decide("ann", "invite", clock())[0] == "opted_out"
        assert pushes.decide("bob", "rematch", clock())[0] == "no_tokens"
    pushes.register("bob", "s-bob", Registration("bob-phone", "fcm", "fcm-token-bob"))
    assert [pushes.decide(p, "rematch", clock())[0] for p in ("ann", "bob") for _ in range(3)] == ["send"] * 6


def test_the_minutes_limit_is_answered_before_a_missing_phone(pushes, clock):
    for _ in range(3):
        pushes.decide("ann", "invite", clock())
    pushes.unregister("ann", "phone-1")
    assert pushes.decide("ann", "invite", clock())[0] == "rate_limited"


def test_another_replica_counts_the_same_minute(pushes, db, clock):
    other = Pushes(db, clock, PushLimits(per_minute=3))
    assert pushes.decide("ann", "invite", clock())[0] == "send"
    assert other.decide("ann", "invite", clock())[0] == "send"
    assert pushes.decide("ann", "invite", clock())[0] == "send"
    assert other.decide("ann", "invite", clock())[0] == "rate_limited"
