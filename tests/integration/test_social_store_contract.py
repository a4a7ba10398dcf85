"""The social store on the real stores: written once, run on SQLite and on PostgreSQL. What
one process stored, another (a restarted one, a replica) reads back the same, and the rules
that span rows (a block ends the friendship and the requests both ways, pages follow each
other, a code is one player's) hold on each."""

from __future__ import annotations

import asyncio

import pytest

from services.common.sql import Conflict
from services.social.errors import Refused
from services.social.inbox import STREAM_BATCH, Inbox
from services.social.inbox_store import InboxStore, Key
from services.social.notices import Draft, notice_id
from services.social.presence import Presence
from services.social.store import SocialStore
from services.social.use_cases import Limits, Social, Target
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

    # ---- the inbox -------------------------------------------------------------------------

    def test_notifications_read_back_the_same_on_another_replica_newest_first(self, replicas):
        make, clock = replicas
        first = make()
        ids = [notice_id("t", n) for n in range(3)]
        for notification_id in ids:
            assert first.inbox.post([draft(notification_id, "id-ann", args={"n": "1"})]) == 1
            clock.advance(1)
        assert first.inbox.post([draft(ids[0], "id-ann")]) == 0
        second = make()
        page = second.inbox.page("id-ann", 2, "", False)
        assert [n.notification_id for n in page.items] == ids[:0:-1] and page.unread_count == 3
        rest = second.inbox.page("id-ann", 2, page.next_page_token, False)
        assert [n.notification_id for n in rest.items] == ids[:1] and rest.next_page_token == ""
        assert rest.items[0].args == {"n": "1"}

    def test_marking_read_is_seen_by_every_replica(self, replicas):
        make, _ = replicas
        first, second = make(), make()
        first.inbox.post([draft(notice_id("m", 1), "id-ann"), draft(notice_id("m", 2), "id-ann")])
        assert second.inbox.mark_read("id-ann", [notice_id("m", 1)], False) == 1
        assert [n.notification_id for n in first.inbox.page("id-ann", 0, "", True).items] == [notice_id("m", 2)]

    def test_a_notification_is_claimed_once_across_replicas(self, replicas):
        make, _ = replicas
        first, second = make(), make()
        first.inbox.post([draft(notice_id("c", 1), "id-ann")])
        decide = lambda execute, recipient, kind, now: ("send", [recipient])  # noqa: E731
        assert first.inbox.claim(notice_id("c", 1), decide).decision == "send"
        assert second.inbox.claim(notice_id("c", 1), decide).decision == "already_claimed"
        assert second.inbox.claim(notice_id("c", 2), decide).decision == "gone"

    def test_an_erased_player_gets_nothing_new_and_is_held_only_as_a_hash(self, replicas):
        make, _ = replicas
        first = make()
        first.inbox.post([draft(notice_id("e", 1), "id-ann"), draft(notice_id("e", 2), "id-bob", about="id-ann")])
        first.erase("id-ann")
        assert make().inbox.post([draft(notice_id("e", 3), "id-ann")]) == 0
        assert first.inbox.page("id-bob", 0, "", False).items == []
        assert "id-ann" not in str(first.store.dump())

    def test_expired_notifications_are_not_listed_and_are_swept_in_batches(self, replicas):
        make, clock = replicas
        social = make()
        social.inbox.post([draft(notice_id("x", n), "id-ann", expires_at=clock.now + 10) for n in range(3)])
        clock.advance(11)
        assert social.inbox.page("id-ann", 0, "", False).items == []
        assert social.inbox.sweep(2) == 2 and social.inbox.sweep(2) == 1 and social.inbox.sweep(2) == 0

    def test_the_outbox_holds_what_was_not_published_oldest_first(self, replicas):
        make, clock = replicas
        social = make()
        for n in range(3):
            social.inbox.post([draft(notice_id("o", n), "id-ann")])
            clock.advance(1)
        with social.store.transaction() as execute:
            waiting = InboxStore.unpublished(execute, 2)
            InboxStore.mark_published(execute, [w[0] for w in waiting])
        assert [w[0] for w in waiting] == [notice_id("o", 0), notice_id("o", 1)]
        with make().store.transaction() as execute:
            assert [w[0] for w in InboxStore.unpublished(execute, 10)] == [notice_id("o", 2)]

    def test_a_player_fills_anothers_inbox_with_only_so_many_unread_of_a_kind(self, replicas):
        make, clock = replicas
        social = make()
        stored = [social.inbox.post([sent(notice_id("f", n), "id-ann", "id-bob")]) for n in range(5)]
        assert stored == [1, 1, 1, 0, 0]
        assert social.inbox.post([sent(notice_id("f", 9), "id-ann", "id-bob", kind="rematch"),
                                  sent(notice_id("f", 10), "id-ann", "id-cat")]) == 2
        social.inbox.mark_read("id-ann", [notice_id("f", 0)], False)
        assert social.inbox.post([sent(notice_id("f", 11), "id-ann", "id-bob")]) == 1

    def test_a_notification_from_an_erased_player_is_not_stored(self, replicas):
        make, _ = replicas
        social = make()
        social.erase("id-bob")
        assert social.inbox.post([sent(notice_id("g", 1), "id-ann", "id-bob")]) == 0
        assert social.inbox.page("id-ann", 0, "", False).items == []

    def test_blocking_deletes_the_unread_invites_and_requests_the_blocked_player_sent(self, replicas):
        make, _ = replicas
        social = make()
        social.send_request("id-bob", "r1", Target("ann"))
        social.inbox.post([sent(notice_id("b", 1), "id-ann", "id-bob"), sent(notice_id("b", 2), "id-ann", "id-cat"),
                           draft(notice_id("b", 3), "id-ann", about="id-bob")])
        social.block("id-ann", "id-bob")
        assert sorted(n.notification_id for n in social.inbox.page("id-ann", 0, "", False).items) == \
               sorted([notice_id("b", 2), notice_id("b", 3)])

    def test_a_claim_of_an_invite_from_a_player_the_recipient_now_blocks_is_gone(self, replicas):
        make, clock = replicas
        social = make()
        social.inbox.post([sent(notice_id("k", 1), "id-ann", "id-bob")])
        with social.store.transaction() as execute:  # a block committed after the claim's notification was read
            execute("INSERT INTO domino_social_blocks (blocker_id, blocked_id, blocked_at) VALUES (?, ?, ?)",
                    "id-ann", "id-bob", clock.now)
        decide = lambda execute, recipient, kind, now: ("send", [recipient])  # noqa: E731
        assert social.inbox.claim(notice_id("k", 1), decide).decision == "gone"

    def test_a_player_holds_only_so_many_incoming_friend_requests(self, env):
        store = SocialStore.for_env(env, "social.sqlite")
        store.create()
        try:
            social = Social(store, Everyone(), Limits(incoming_requests=2), clock=Clock(1_000_000.0))
            social.send_request("id-bob", "r1", Target("ann"))
            social.send_request("id-cat", "r2", Target("ann"))
            with pytest.raises(Refused) as refused:
                social.send_request("id-dan", "r3", Target("ann"))
            assert refused.value.error_reason == "TOO_MANY_PENDING_REQUESTS"
            assert len(social.requests("id-ann", True, False, 0, "").items) == 2
        finally:
            store.close()

    def test_an_export_holds_the_newest_notifications_alone_past_its_cap(self, env):
        store = SocialStore.for_env(env, "social.sqlite")
        store.create()
        try:
            clock = Clock(1_000_000.0)
            social = Social(store, Everyone(), clock=clock, inbox=Inbox(store, clock, export_max=2))
            for n in range(3):
                social.inbox.post([draft(notice_id("h", n), "id-ann")])
                clock.advance(1)
            assert [n.notification_id for n in social.inbox.held_for("id-ann")] == [notice_id("h", 2),
                                                                                    notice_id("h", 1)]
        finally:
            store.close()

    def test_a_stream_reads_past_a_full_batch_stored_in_one_instant(self, replicas):
        make, clock = replicas
        social = make()
        ids = sorted(notice_id("s", n) for n in range(STREAM_BATCH + 5))
        for at in range(0, len(ids), 100):
            social.inbox.post([draft(i, "id-ann") for i in ids[at:at + 100]])
        first, _ = social.inbox.since("id-ann", clock.now - 10)
        last = first[-1]
        rest, _ = social.inbox.since("id-ann", clock.now - 10, Key(last.created_at, last.notification_id))
        assert [n.notification_id for n in first + rest] == ids

    # ---- presence --------------------------------------------------------------------------

    def test_a_player_is_online_on_any_replica_until_their_replicas_lease_runs_out(self, replicas):
        make, clock = replicas
        social = make()
        here = Presence(social.store.db, clock, "replica-a", lease_seconds=90)
        there = Presence(make().store.db, clock, "replica-b", lease_seconds=90)
        here.counts["id-ann"] = 1
        here._write("id-ann", True)
        assert there.of(["id-ann", "id-bob"]) == {"id-ann": (True, None), "id-bob": (False, None)}
        clock.advance(91)  # replica a was killed: it refreshed no more
        assert there.of(["id-ann"]) == {"id-ann": (False, clock.now - 91)}
        assert there.refresh() == 1
        assert there.of(["id-ann"]) == {"id-ann": (False, clock.now - 91)}
        with social.store.transaction() as execute:
            assert execute("SELECT COUNT(*) FROM domino_social_presence").fetchone()[0] == 0

    def test_a_replica_whose_rows_were_swept_writes_them_again_when_it_refreshes(self, replicas):
        make, clock = replicas
        here = Presence(make().store.db, clock, "replica-a", lease_seconds=90)
        there = Presence(make().store.db, clock, "replica-b", lease_seconds=90)
        here.counts["id-ann"] = 1
        here._write("id-ann", True)
        clock.advance(91)
        there.refresh()
        here.refresh()
        assert there.of(["id-ann"])["id-ann"][0] is True

    def test_presence_written_after_an_erasure_leaves_nothing_of_the_erased_player(self, replicas):
        make, clock = replicas
        social = make()
        here = Presence(social.store.db, clock, "replica-a", lease_seconds=90)
        here.counts["id-ann"] = 1
        social.erase("id-ann")  # while the app's stream is still open
        here._write("id-ann", True)
        del here.counts["id-ann"]
        here._write("id-ann", False)
        assert "id-ann" not in str(social.store.dump())

    def test_a_failed_offline_write_is_repaired_by_the_next_refresh(self, replicas):
        make, clock = replicas
        social = make()
        here = Presence(social.store.db, clock, "replica-a", lease_seconds=90)
        there = Presence(make().store.db, clock, "replica-b", lease_seconds=90)
        here.counts["id-ann"] = 1
        here._write("id-ann", True)
        del here.counts["id-ann"]
        with social.store.transaction() as execute:
            execute("ALTER TABLE domino_social_presence RENAME TO domino_social_presence_away")
        try:
            asyncio.run(here._sync("id-ann"))
        finally:
            with social.store.transaction() as execute:
                execute("ALTER TABLE domino_social_presence_away RENAME TO domino_social_presence")
        assert here.failures == 1 and there.of(["id-ann"])["id-ann"][0] is True
        here.refresh()
        assert there.of(["id-ann"])["id-ann"] == (False, clock.now)


def sent(notification_id: str, recipient: str, sender: str, kind: str = "invite") -> Draft:
    return Draft(notification_id, recipient, kind, f"notice.{kind}", player_id=sender)


def draft(notification_id: str, recipient: str, about: str = "", **fields) -> Draft:
    return Draft(notification_id, recipient, "account", "notice.account.device_added", player_id=about, **fields)


class TestWithSQLite(SocialStoreContract):
    @pytest.fixture
    def env(self, fresh_sqlite_env):
        return fresh_sqlite_env


class TestWithPostgres(SocialStoreContract):
    @pytest.fixture
    def env(self, fresh_postgres_env):
        return fresh_postgres_env
