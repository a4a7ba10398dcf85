"""The social store on the real stores: written once, run on SQLite and on PostgreSQL. What
one process stored, another (a restarted one, a replica) reads back the same, and the rules
that span rows (a block ends the friendship and the requests both ways, pages follow each
other, a code is one player's) hold on each."""

from __future__ import annotations

import pytest

from services.common.sql import Conflict
from services.social.store import SocialStore
from services.social.use_cases import Social, Target
from tests.support.clock import Clock

pytestmark = pytest.mark.integration


class Everyone:
    """A directory where every display name `x` is the player `id-x`."""

    def find_by_display_name(self, display_name: str) -> str | None:
        return f"id-{display_name}"

    def exists(self, player_id: str) -> bool:
        return True


class SocialStoreContract:
    @pytest.fixture
    def env(self):
        raise NotImplementedError

    @pytest.fixture
    def replicas(self, env):
        made = []
        clock = Clock(1_000_000.0)

        def make() -> Social:
            store = SocialStore.for_env(env, "social.sqlite")
            store.create()
            made.append(store)
            return Social(store, Everyone(), clock=clock)

        yield make, clock
        for store in made:
            store.close()

    def test_friends_requests_and_blocks_read_back_the_same_on_another_replica(self, replicas):
        make, clock = replicas
        first = make()
        first.send_request("id-ann", "r1", Target("bob"))
        first.accept("id-bob", "id-ann")
        clock.advance(1)
        first.send_request("id-cat", "r2", Target("ann"))
        first.block("id-ann", "id-dan")
        code = first.friend_code("id-ann")

        second = make()
        assert [f.player_id for f in second.friends("id-ann", 0, "").items] == ["id-bob"]
        assert [(r.player_id, r.incoming) for r in second.requests("id-ann", True, True, 0, "").items] == \
               [("id-cat", True)]
        assert [b.player_id for b in second.blocks("id-ann", 0, "").items] == ["id-dan"]
        assert second.friend_code("id-ann") == code
        assert second.send_request("id-ann", "r1", Target("bob")) == first.send_request("id-ann", "r1", Target("bob"))

    def test_a_block_ends_the_friendship_and_the_requests_both_ways(self, replicas):
        make, _ = replicas
        social = make()
        social.send_request("id-ann", "r1", Target("bob"))
        social.accept("id-bob", "id-ann")
        social.send_request("id-ann", "r2", Target("cat"))
        social.send_request("id-dan", "r3", Target("ann"))
        for other in ("id-bob", "id-cat", "id-dan"):
            social.block("id-ann", other)
        assert social.friends("id-bob", 0, "").items == []
        assert social.requests("id-ann", True, True, 0, "").items == []
        assert social.requests("id-dan", True, True, 0, "").items == []

    def test_pages_of_both_directions_follow_each_other_newest_first(self, replicas):
        make, clock = replicas
        social = make()
        for n in range(5):
            social.send_request(f"id-p{n}", f"r{n}", Target("ann"))
            social.send_request("id-ann", f"s{n}", Target(f"q{n}"))
            clock.advance(1)
        seen, token = [], ""
        while True:
            page = social.requests("id-ann", True, True, 3, token)
            seen += [(r.player_id, r.incoming) for r in page.items]
            token = page.next_page_token
            if not token:
                break
        assert len(seen) == 10 and len(set(seen)) == 10
        assert seen[:2] == [("id-p4", True), ("id-q4", False)]

    def test_a_code_is_one_players(self, replicas):
        make, _ = replicas
        social = make()
        social.friend_code("id-ann")
        with social.store.transaction() as execute:
            taken = social.store.code_of(execute, "id-ann")
        with pytest.raises(Conflict):
            with social.store.transaction() as execute:
                social.store.add_code(execute, "id-bob", taken, 0.0)
        assert social.friend_code("id-bob") != social.friend_code("id-ann")


class TestWithSQLite(SocialStoreContract):
    @pytest.fixture
    def env(self, fresh_sqlite_env):
        return fresh_sqlite_env


class TestWithPostgres(SocialStoreContract):
    @pytest.fixture
    def env(self, fresh_postgres_env):
        return fresh_postgres_env
