"""Blocks at the table over real gRPC: the match service asks a real social service
(tests/service/social_harness.py, blocks made through its own BlockPlayer) who blocks whom
when a WatchMatch stream opens. A spectator a seated person blocks (or who blocks one) is
refused; a seated person's stream leaves out the phrases of a seat they block or that blocks
them; with the social service away, streams open unchecked and the miss is counted."""

from __future__ import annotations

import asyncio
import socket

import grpc
import pytest

from domino.match.v1 import match_service_pb2 as pb
from domino.social.v1 import social_service_pb2 as social_pb
from services.match.application import MatchApplication
from services.common.auth import MissingKeys
from services.common.config import Settings
from services.match.blocks import KeptBlocks, NoBlocks
from services.match.bootstrap import blocks_of
from services.match.social_client import GrpcRelations
from tests.support.errors import refusal
from tests.support.keys import KEYS, auth

from .account_harness import bearer
from .harness import running_service
from .social_harness import running_social


@pytest.fixture(scope="module")
def social(tmp_path_factory):
    with running_social(tmp_path_factory.mktemp("match-blocks")) as running:
        yield running


@pytest.fixture(scope="module")
def svc(social):
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    made = []

    def blocks():
        made.append(KeptBlocks(GrpcRelations(f"127.0.0.1:{social.port}", KEYS, 2.0).blocked, cache_seconds=0.0))
        return made[0]

    with running_service(app, blocks=blocks) as service:
        yield service
    app.close()


@pytest.fixture
def table(social, svc):
    """Ann and Bob seated at a two-seat match that allows spectators, and Cat, who is not."""
    ann, bob, cat = (social.sign_up(f"{name} {n}") for n, name in enumerate(("Ann", "Bob", "Cat"), start=len(_made)))
    _made.extend((ann, bob, cat))
    match_id = svc.create(variant="draw-2", players=(ann.player_id, bob.player_id), spectators=True,
                          request_id=f"create-{ann.player_id}").match_id
    return ann, bob, cat, match_id


_made: list = []


def block(social, blocker, blocked) -> None:
    social.stub.BlockPlayer(social_pb.BlockPlayerRequest(player_id=blocked.player_id), metadata=bearer(blocker))


def first_update(svc, match_id: str, who) -> pb.WatchMatchResponse:
    stream = svc.stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id), metadata=auth(who.player_id), timeout=5)
    try:
        return next(iter(stream))
    finally:
        stream.cancel()


def chats(svc, match_id: str, who, seconds: float = 1.0) -> list[pb.ChatMessage]:
    got = []
    stream = svc.stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id, from_version=1),
                                 metadata=auth(who.player_id), timeout=seconds)
    try:
        for update in stream:
            if update.HasField("chat"):
                got.append(update.chat)
    except grpc.RpcError as e:
        assert e.code() == grpc.StatusCode.DEADLINE_EXCEEDED, e
    return got


def say(svc, match_id: str, who, phrase=pb.CHAT_PHRASE_GOOD_LUCK) -> None:
    svc.stub.SendChat(pb.SendChatRequest(match_id=match_id, chat_phrase=phrase), metadata=auth(who.player_id))


def test_a_spectator_a_seated_person_blocks_is_refused_as_an_unwatchable_match_refuses(social, svc, table):
    ann, bob, cat, match_id = table
    block(social, ann, cat)
    with pytest.raises(grpc.RpcError) as caught:
        first_update(svc, match_id, cat)
    told = refusal(caught.value)
    assert (told.code, told.reason, told.domain) == (grpc.StatusCode.PERMISSION_DENIED, "NOT_WATCHABLE",
                                                     "domino.match")
    assert "block" not in told.message


def test_a_spectator_who_blocks_a_seated_person_is_refused(social, svc, table):
    ann, bob, cat, match_id = table
    block(social, cat, bob)
    with pytest.raises(grpc.RpcError) as caught:
        first_update(svc, match_id, cat)
    assert refusal(caught.value).reason == "NOT_WATCHABLE"


def test_a_spectator_with_no_block_at_the_table_watches(social, svc, table):
    ann, bob, cat, match_id = table
    assert first_update(svc, match_id, cat).HasField("view")


def test_a_seated_person_does_not_see_the_phrases_of_a_seat_they_block(social, svc, table):
    ann, bob, cat, match_id = table
    block(social, ann, bob)
    say(svc, match_id, bob)
    say(svc, match_id, ann, pb.CHAT_PHRASE_HELLO)
    assert [c.player_id for c in chats(svc, match_id, ann)] == [ann.player_id]


def test_a_seated_person_does_not_see_the_phrases_of_a_seat_that_blocks_them(social, svc, table):
    ann, bob, cat, match_id = table
    block(social, ann, bob)
    say(svc, match_id, ann)
    say(svc, match_id, bob, pb.CHAT_PHRASE_HELLO)
    assert [c.player_id for c in chats(svc, match_id, bob)] == [bob.player_id]


def test_seated_people_with_no_block_between_them_see_each_others_phrases(social, svc, table):
    ann, bob, cat, match_id = table
    say(svc, match_id, bob)
    assert [c.player_id for c in chats(svc, match_id, ann)] == [bob.player_id]


def test_with_the_social_service_away_a_stream_opens_unchecked_and_the_miss_is_counted(social, table):
    ann, bob, cat, match_id = table
    block(social, ann, cat)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        nowhere = probe.getsockname()[1]
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    made = []

    def blocks():
        made.append(KeptBlocks(GrpcRelations(f"127.0.0.1:{nowhere}", KEYS, 0.5).blocked))
        return made[0]

    with running_service(app, blocks=blocks) as away:
        match_id = away.create(variant="draw-2", players=(ann.player_id, bob.player_id), spectators=True).match_id
        assert first_update(away, match_id, cat).HasField("view")
        assert made[0].unanswered == 1
    app.close()


def test_an_answer_is_kept_for_the_cache_seconds_then_asked_again(social, table):
    ann, bob, cat, match_id = table
    now = [100.0]

    async def asked_three_times():
        relations = GrpcRelations(f"127.0.0.1:{social.port}", KEYS)
        blocks = KeptBlocks(relations.blocked, cache_seconds=10.0, clock=lambda: now[0])
        try:
            first = await blocks.blocked(ann.player_id, [bob.player_id])
            block(social, ann, bob)
            now[0] += 9.0
            kept = await blocks.blocked(ann.player_id, [bob.player_id])
            now[0] += 2.0
            return first, kept, await blocks.blocked(ann.player_id, [bob.player_id])
        finally:
            await relations.close()

    assert asyncio.run(asked_three_times()) == (frozenset(), frozenset(), frozenset({bob.player_id}))


def test_without_a_social_address_no_block_is_checked():
    relations, blocks = blocks_of(Settings.model_construct(social_address="", keys_dir=""))
    assert relations is None and isinstance(blocks, NoBlocks)


def test_the_kept_answers_are_bounded_and_the_oldest_is_asked_again(social, table):
    ann, bob, cat, match_id = table

    async def asked():
        relations = GrpcRelations(f"127.0.0.1:{social.port}", KEYS)
        blocks = KeptBlocks(relations.blocked, cache_seconds=60.0, cache_size=1)
        try:
            await blocks.blocked(ann.player_id, [bob.player_id])
            block(social, ann, bob)
            await blocks.blocked(ann.player_id, [cat.player_id])  # the second answer pushes the first out
            return await blocks.blocked(ann.player_id, [bob.player_id]), len(blocks)
        finally:
            await relations.close()

    assert asyncio.run(asked()) == (frozenset({bob.player_id}), 1)


def test_a_match_service_without_its_service_key_refuses_to_start(tmp_path):
    with pytest.raises(MissingKeys):
        blocks_of(Settings.model_construct(social_address="127.0.0.1:1", keys_dir=str(tmp_path)))
