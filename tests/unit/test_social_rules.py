"""The friend and block rules of the social service (services/social/use_cases.py), one
behaviour a test, on a real SQLite store and a directory of the tests' own."""

from __future__ import annotations

import pytest

from services.social import codes
from services.social.errors import Exhausted, InvalidRequest, NotFound, Refused, RequestIdReused
from services.social.store import SocialStore
from services.social.use_cases import Limits, Social, Target
from tests.support.clock import Clock


class Directory:
    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.deleted: set[str] = set()

    def find_by_display_name(self, display_name: str) -> str | None:
        found = self.names.get(display_name.casefold())
        return None if found in self.deleted else found

    def exists(self, player_id: str) -> bool:
        return player_id in self.names.values() and player_id not in self.deleted


@pytest.fixture
def directory():
    found = Directory()
    for name in ("ann", "bob", "cat", "dan"):
        found.names[name] = f"id-{name}"
    return found


@pytest.fixture
def clock():
    return Clock(1_000_000.0)


@pytest.fixture
def make(tmp_path, directory, clock):
    stores: list[SocialStore] = []

    def social(**limits) -> Social:
        store = SocialStore.for_env({}, str(tmp_path / f"social-{len(stores)}.sqlite"))
        store.create()
        stores.append(store)
        return Social(store, directory, Limits(**limits), clock)

    yield social
    for store in stores:
        store.close()


@pytest.fixture
def social(make):
    return make()


_ids = iter(range(10**6))


def send(social: Social, sender: str, name: str = "", code: str = "", request_id: str | None = None):
    return social.send_request(f"id-{sender}", request_id or f"r{next(_ids)}", Target(name, code))


def friends_of(social: Social, who: str) -> list[str]:
    return [f.player_id for f in social.friends(f"id-{who}", 0, "").items]


def requests_of(social: Social, who: str) -> list[tuple[str, bool]]:
    return [(r.player_id, r.incoming) for r in social.requests(f"id-{who}", True, True, 0, "").items]


def test_a_request_by_name_is_pending_for_both(social):
    outcome = send(social, "ann", "bob")
    assert outcome.request is not None and outcome.friend is None
    assert requests_of(social, "ann") == [("id-bob", False)] and requests_of(social, "bob") == [("id-ann", True)]


def test_accepting_makes_both_friends_and_ends_the_request(social):
    send(social, "ann", "bob")
    social.accept("id-bob", "id-ann")
    assert friends_of(social, "ann") == ["id-bob"] and friends_of(social, "bob") == ["id-ann"]
    assert requests_of(social, "ann") == requests_of(social, "bob") == []


def test_a_request_to_someone_who_sent_you_one_accepts_theirs(social):
    send(social, "ann", "bob")
    outcome = send(social, "bob", "ann")
    assert outcome.friend is not None and outcome.friend.player_id == "id-ann"
    assert friends_of(social, "ann") == ["id-bob"] and requests_of(social, "bob") == []


def test_a_request_by_friend_code_in_any_case_and_without_the_hyphen_reaches_its_owner(social):
    code = social.friend_code("id-bob")
    send(social, "ann", code=code.replace("-", "").lower())
    assert requests_of(social, "bob") == [("id-ann", True)]


def test_a_friend_code_is_stable_and_of_the_alphabet_without_look_alikes(social):
    code = social.friend_code("id-ann")
    assert social.friend_code("id-ann") == code and len(code) == 9 and code[4] == "-"
    assert all(ch in codes.ALPHABET for ch in code.replace("-", "")) and not set("01OILU") & set(code)


def test_friend_codes_differ_between_players(social):
    assert len({social.friend_code(f"id-{who}") for who in ("ann", "bob", "cat", "dan")}) == 4


def test_sending_again_while_pending_answers_the_pending_request(social, clock):
    first = send(social, "ann", "bob")
    clock.advance(5)
    again = send(social, "ann", "bob")
    assert again.request == first.request


def test_a_retry_with_the_same_request_id_answers_the_first_outcome(social):
    first = send(social, "ann", "bob", request_id="same")
    social.accept("id-bob", "id-ann")
    assert send(social, "ann", "bob", request_id="same") == first


def test_a_request_id_reused_for_another_target_is_refused(social):
    send(social, "ann", "bob", request_id="same")
    with pytest.raises(RequestIdReused):
        send(social, "ann", "cat", request_id="same")


def test_a_request_to_a_friend_is_refused(social):
    send(social, "ann", "bob")
    social.accept("id-bob", "id-ann")
    with pytest.raises(Refused) as refused:
        send(social, "ann", "bob")
    assert refused.value.error_reason == "ALREADY_FRIENDS"


def test_a_request_to_yourself_is_refused(social):
    with pytest.raises(Refused) as refused:
        send(social, "ann", "ann")
    assert refused.value.error_reason == "YOURSELF"


@pytest.mark.parametrize("name", ["nobody", "bot greedy 1"])
def test_a_request_to_an_unknown_name_is_not_found(social, name):
    with pytest.raises(NotFound) as refused:
        send(social, "ann", name)
    assert refused.value.error_reason == "PLAYER_NOT_FOUND"


def test_a_request_to_a_bot_id_is_not_found(social, directory):
    directory.names["robot"] = "bot:greedy:1"
    with pytest.raises(NotFound):
        send(social, "ann", "robot")


def test_a_request_to_a_deleted_accounts_code_is_not_found(social, directory):
    code = social.friend_code("id-bob")
    directory.deleted.add("id-bob")
    with pytest.raises(NotFound):
        send(social, "ann", code=code)


def test_a_request_to_an_unknown_code_is_not_found(social):
    with pytest.raises(NotFound):
        send(social, "ann", code="2222-2222")


def test_a_malformed_code_is_invalid(social):
    with pytest.raises(InvalidRequest) as refused:
        send(social, "ann", code="OOOO-1111")
    assert refused.value.bad_field == "friend_code"


def test_blocking_ends_the_friendship_and_the_requests_both_ways(social):
    send(social, "ann", "bob")
    social.accept("id-bob", "id-ann")
    send(social, "cat", "ann")
    send(social, "ann", "dan")
    social.block("id-ann", "id-bob")
    social.block("id-ann", "id-cat")
    social.block("id-dan", "id-ann")
    assert friends_of(social, "ann") == friends_of(social, "bob") == []
    assert requests_of(social, "ann") == requests_of(social, "cat") == requests_of(social, "dan") == []


def test_a_blocked_players_request_to_the_blocker_is_answered_as_if_not_found(social):
    social.block("id-bob", "id-ann")
    with pytest.raises(NotFound) as refused:
        send(social, "ann", "bob")
    assert refused.value.error_reason == "PLAYER_NOT_FOUND" and "block" not in str(refused.value)


def test_the_blocker_is_not_found_by_friend_code_either(social):
    code = social.friend_code("id-bob")
    social.block("id-bob", "id-ann")
    with pytest.raises(NotFound):
        send(social, "ann", code=code)


def test_the_blockers_own_request_to_the_blocked_is_refused_until_unblocked(social):
    social.block("id-ann", "id-bob")
    with pytest.raises(Refused) as refused:
        send(social, "ann", "bob")
    assert refused.value.error_reason == "PLAYER_BLOCKED"
    assert social.unblock("id-ann", "id-bob")
    assert send(social, "ann", "bob").request is not None


def test_blocking_yourself_is_refused(social):
    with pytest.raises(Refused) as refused:
        social.block("id-ann", "id-ann")
    assert refused.value.error_reason == "YOURSELF"


def test_blocking_an_unknown_player_or_a_bot_is_not_found(social):
    for other in ("id-nobody", "bot:greedy:1"):
        with pytest.raises(NotFound):
            social.block("id-ann", other)


def test_blocking_again_answers_the_block_as_it_stands(social, clock):
    first = social.block("id-ann", "id-bob")
    clock.advance(10)
    assert social.block("id-ann", "id-bob") == first


def test_the_friend_limit_refuses_a_new_request(make):
    social = make(friends=1)
    send(social, "ann", "bob")
    social.accept("id-bob", "id-ann")
    with pytest.raises(Refused) as refused:
        send(social, "ann", "cat")
    assert refused.value.error_reason == "TOO_MANY_FRIENDS"


def test_the_friend_limit_of_the_other_player_refuses_the_acceptance(make):
    social = make(friends=1)
    send(social, "ann", "bob")
    social.accept("id-bob", "id-ann")
    send(social, "cat", "bob")
    with pytest.raises(Refused) as refused:
        social.accept("id-bob", "id-cat")
    assert refused.value.error_reason == "TOO_MANY_FRIENDS"


def test_the_pending_limit_refuses_one_more_request(make):
    social = make(pending_requests=2)
    send(social, "ann", "bob")
    send(social, "ann", "cat")
    with pytest.raises(Refused) as refused:
        send(social, "ann", "dan")
    assert refused.value.error_reason == "TOO_MANY_PENDING_REQUESTS"


def test_the_hourly_limit_says_when_the_next_request_is_allowed(make, clock):
    social = make(requests_per_hour=2)
    send(social, "ann", "bob")
    clock.advance(600)
    with pytest.raises(NotFound):
        send(social, "ann", "nobody")  # a send that finds no one counts too
    with pytest.raises(Exhausted) as refused:
        send(social, "ann", "cat")
    assert refused.value.retry_after == pytest.approx(3000, abs=1)
    clock.advance(3001)
    assert send(social, "ann", "cat").request is not None


def test_the_block_limit_refuses_one_more_block(make):
    social = make(blocks=1)
    social.block("id-ann", "id-bob")
    with pytest.raises(Refused) as refused:
        social.block("id-ann", "id-cat")
    assert refused.value.error_reason == "TOO_MANY_BLOCKS"


def test_declining_ends_the_request_and_declining_again_is_not_found(social):
    send(social, "ann", "bob")
    social.decline("id-bob", "id-ann")
    assert requests_of(social, "ann") == []
    with pytest.raises(NotFound) as refused:
        social.decline("id-bob", "id-ann")
    assert refused.value.error_reason == "FRIEND_REQUEST_NOT_FOUND"


def test_the_sender_cancels_a_pending_request(social):
    send(social, "ann", "bob")
    social.cancel("id-ann", "id-bob")
    assert requests_of(social, "bob") == []


def test_accepting_again_once_friends_answers_the_friendship(social):
    send(social, "ann", "bob")
    first = social.accept("id-bob", "id-ann")
    assert social.accept("id-bob", "id-ann") == first


def test_removing_a_friend_ends_it_for_both_and_again_removes_nothing(social):
    send(social, "ann", "bob")
    social.accept("id-bob", "id-ann")
    assert social.remove_friend("id-bob", "id-ann")
    assert friends_of(social, "ann") == [] and not social.remove_friend("id-bob", "id-ann")


def test_lists_page_the_newest_first_with_tokens(social, clock):
    for who in ("bob", "cat", "dan"):
        send(social, who, "ann")
        clock.advance(1)
    first = social.requests("id-ann", True, False, 2, "")
    rest = social.requests("id-ann", True, False, 2, first.next_page_token)
    assert [r.player_id for r in first.items + rest.items] == ["id-dan", "id-cat", "id-bob"]
    assert first.next_page_token and rest.next_page_token == ""


@pytest.mark.parametrize("size", [-1, 101])
def test_a_page_size_out_of_range_is_refused(social, size):
    with pytest.raises(InvalidRequest) as refused:
        social.friends("id-ann", size, "")
    assert refused.value.bad_field == "page_size"


def test_a_page_token_of_another_list_is_refused(social, clock):
    for who in ("bob", "cat"):
        social.block("id-ann", f"id-{who}")
        clock.advance(1)
    token = social.blocks("id-ann", 1, "").next_page_token
    with pytest.raises(InvalidRequest) as refused:
        social.friends("id-ann", 1, token)
    assert refused.value.bad_field == "page_token"
