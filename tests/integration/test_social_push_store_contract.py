"""The push tables on the real stores: written once, run on SQLite and on PostgreSQL. What one
replica registered or set, another reads back the same; a token is one player's; the
installations limit and the minute's pushes hold when replicas race for them; ended
sessions, dead tokens and erased players leave nothing behind."""

from __future__ import annotations

import threading

import pytest

from services.common.sql import Database
from services.social.errors import Refused
from services.social.push_tokens import PushLimits, Pushes, PushSettings, Registration, SettingsChange
from tests.support.clock import Clock

pytestmark = pytest.mark.integration
LIMITS = PushLimits(installations=3, per_minute=4)


def phone(n: int, token: str = "") -> Registration:
    return Registration(f"phone-{n}", "fcm", token or f"token-{n}", "", "es-ES")


class PushStoreContract:
    @pytest.fixture
    def env(self):
        raise NotImplementedError

    @pytest.fixture
    def replicas(self, env):
        made: list[Database] = []
        clock = Clock(1_000_000.0)

        def make() -> Pushes:
            db = Database.for_env(env, "social.sqlite", pool_size=8, keep=True)
            made.append(db)
            pushes = Pushes(db, clock, LIMITS)
            pushes.create()
            return pushes

        yield make, clock
        for db in made:
            db.close()

    def test_phones_and_settings_read_back_the_same_on_another_replica(self, replicas):
        make, clock = replicas
        first = make()
        first.register("ann", "s1", Registration("phone-1", "apns", "ab" * 32, "sandbox", "es-ES"))
        clock.advance(1)
        first.register("ann", "s1", phone(2))
        first.update_settings("ann", SettingsChange(push_disabled=("invite", "rematch"), quiet_hours=(1320, 420),
                                                    time_zone="Europe/Madrid"))
        second = make()
        export = second.export("ann")
        assert [(t.installation_id, t.platform, t.token, t.apns_environment, t.locale) for t in export.targets] == \
            [("phone-2", "fcm", "token-2", "", "es-ES"), ("phone-1", "apns", "ab" * 32, "sandbox", "es-ES")]
        assert export.settings == PushSettings(("invite", "rematch"), (1320, 420), "Europe/Madrid")

    def test_a_token_registered_by_another_player_is_theirs_alone(self, replicas):
        make, _ = replicas
        pushes = make()
        pushes.register("ann", "s-ann", phone(1, "the-phone"))
        pushes.register("bob", "s-bob", phone(7, "the-phone"))
        assert pushes.targets("ann") == []
        assert [t.installation_id for t in pushes.targets("bob")] == ["phone-7"]

    def test_a_token_registered_again_under_a_new_installation_leaves_the_old_one(self, replicas):
        make, _ = replicas
        pushes = make()
        pushes.register("ann", "s1", phone(1, "reinstalled"))
        pushes.register("ann", "s1", phone(2, "reinstalled"))
        assert [t.installation_id for t in pushes.targets("ann")] == ["phone-2"]

    def test_a_new_installation_past_the_limit_is_refused_and_changes_nothing(self, replicas):
        make, _ = replicas
        pushes = make()
        for n in range(3):
            pushes.register("ann", "s1", phone(n))
        pushes.register("bob", "s2", phone(9, "bobs"))
        before = pushes.dump()
        with pytest.raises(Refused) as refused:
            pushes.register("ann", "s1", phone(3, "bobs"))  # it would have taken bob's token too
        assert refused.value.error_reason == "TOO_MANY_PUSH_TOKENS"
        assert pushes.dump() == before
        pushes.register("ann", "s1", phone(0, "replaced"))
        assert sorted(t.token for t in pushes.targets("ann")) == ["replaced", "token-1", "token-2"]

    def test_racing_registrations_never_pass_the_installations_limit(self, replicas):
        make, _ = replicas
        many = [make() for _ in range(2)]
        outcomes: list[str] = []

        def register(n: int) -> None:
            try:
                many[n % 2].register("ann", "s1", phone(n))
                outcomes.append("registered")
            except Refused:
                outcomes.append("refused")

        threads = [threading.Thread(target=register, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert sorted(outcomes) == ["refused"] * 5 + ["registered"] * 3
        assert len(many[0].targets("ann")) == 3

    def test_racing_decisions_send_no_more_than_the_minutes_pushes(self, replicas):
        make, clock = replicas
        many = [make() for _ in range(2)]
        many[0].register("ann", "s1", phone(1))
        decisions: list[str] = []

        def decide(n: int) -> None:
            decisions.append(many[n % 2].decide("ann", "invite", clock())[0])

        threads = [threading.Thread(target=decide, args=(n,)) for n in range(10)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert sorted(decisions) == ["rate_limited"] * 6 + ["send"] * 4

    def test_the_tokens_of_ended_sessions_are_forgotten_and_the_others_stay(self, replicas):
        make, _ = replicas
        pushes = make()
        pushes.register("ann", "s-old", phone(1))
        pushes.register("ann", "s-new", phone(2))
        pushes.register("bob", "s-bob", phone(3))
        assert pushes.forget_sessions(["s-old", "s-bob", "s-unknown", ""]) == 2
        assert [t.installation_id for t in pushes.targets("ann")] == ["phone-2"]
        assert pushes.targets("bob") == []

    def test_a_dead_token_is_forgotten_whoever_holds_it(self, replicas):
        make, _ = replicas
        pushes = make()
        pushes.register("ann", "s1", phone(1, "dead"))
        assert pushes.forget_token("fcm", "dead") is True
        assert pushes.forget_token("fcm", "dead") is False
        assert pushes.forget_token("apns", "token-2") is False
        assert pushes.targets("ann") == []

    def test_erasing_a_player_leaves_no_row_naming_them_and_twice_erases_nothing(self, replicas):
        make, clock = replicas
        pushes = make()
        pushes.register("ann", "s1", phone(1))
        pushes.register("bob", "s2", phone(2))
        pushes.update_settings("ann", SettingsChange(time_zone="Asia/Tokyo"))
        pushes.decide("ann", "invite", clock())
        assert pushes.erase("ann") == 3
        assert pushes.erase("ann") == 0
        assert not any("ann" in row for rows in pushes.dump().values() for row in rows)
        assert [t.installation_id for t in pushes.targets("bob")] == ["phone-2"]


class TestWithSQLite(PushStoreContract):
    @pytest.fixture
    def env(self, fresh_sqlite_env):
        return fresh_sqlite_env


class TestWithPostgres(PushStoreContract):
    @pytest.fixture
    def env(self, fresh_postgres_env):
        return fresh_postgres_env
