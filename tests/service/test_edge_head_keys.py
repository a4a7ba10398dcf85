"""The head keys at the edge's stable path, `/.well-known/domino/head-keys.json`, as a real
match service answers GetHeadKeys: the same domino-keys/1 document as its heads-keys.json,
with no keys file at the edge, kept for a short while and asked again after it."""

from __future__ import annotations

import http.client
import json
from contextlib import ExitStack
from dataclasses import dataclass

import pytest

from services.common.config import Settings
from services.edge.head_keys import CACHE_SECONDS, PATH
from services.match.application import MatchApplication
from services.match.heads import PUBLISHED_FILE, PublishedKeys, load_signer, rotate
from services.common.servers import free_port
from tests.support.clock import Clock
from tests.support.edge import running_edge

from .harness import running_service

DAY = 86_400


@pytest.fixture
def app():
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    yield app
    app.close()


def settings_for(match_address: str) -> Settings:
    return Settings(match_address=match_address, matchmaking_address="127.0.0.1:1", account_address="127.0.0.1:1",
                    keys_dir="")


@dataclass
class Page:
    status: int
    headers: dict[str, str]
    body: bytes

    def key_ids(self) -> list[str]:
        return [key["id"] for key in json.loads(self.body)["keys"]]


def get(port: int, path: str = PATH) -> Page:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", path, headers={"origin": "https://other.example"})
    response = connection.getresponse()
    page = Page(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
    connection.close()
    return page


def published(directory) -> list[dict]:
    return sorted(PublishedKeys.load(directory / PUBLISHED_FILE).to_json()["keys"], key=lambda k: k["id"])


def test_the_edge_serves_the_keys_the_match_service_answers_as_its_published_file(app, tmp_path):
    rotate(tmp_path, now=1_000_000, overlap_seconds=DAY)
    rotate(tmp_path, now=2_000_000, overlap_seconds=DAY)
    with running_service(app, signer=load_signer(tmp_path), keys_dir=str(tmp_path)) as svc, \
            running_edge(settings_for(f"127.0.0.1:{svc.port}")) as edge:
        response = get(edge.port)
    served = json.loads(response.body)
    assert response.status == 200 and response.headers["content-type"] == "application/json"
    assert served["format"] == "domino-keys/1"
    assert sorted(served["keys"], key=lambda k: k["id"]) == published(tmp_path)
    assert [k["not_before"] for k in served["keys"]] == [1_000_000, 2_000_000]  # oldest first, as GetHeadKeys
    assert response.headers["access-control-allow-origin"] == "*"
    assert list(PublishedKeys.from_json(served).keys)[-1] == svc.signer.key_id  # a verifier reads it as the file


def test_a_rotation_is_served_once_the_keys_kept_are_older_than_the_cache(app, tmp_path):
    first = rotate(tmp_path, now=1_000_000)
    clock = Clock()
    with running_service(app, signer=load_signer(tmp_path), keys_dir=str(tmp_path)) as svc, \
            running_edge(settings_for(f"127.0.0.1:{svc.port}"), clock=clock) as edge:
        assert get(edge.port).key_ids() == [first]
        second = rotate(tmp_path, now=2_000_000)
        clock.advance(CACHE_SECONDS - 1)
        assert get(edge.port).key_ids() == [first]
        clock.advance(1)
        assert get(edge.port).key_ids() == [first, second]


def test_the_keys_last_asked_are_served_while_the_match_service_is_away(app, tmp_path):
    first = rotate(tmp_path, now=1_000_000)
    clock = Clock()
    with ExitStack() as outlives_the_service:
        with running_service(app, signer=load_signer(tmp_path), keys_dir=str(tmp_path)) as svc:
            edge = outlives_the_service.enter_context(running_edge(settings_for(f"127.0.0.1:{svc.port}"), clock=clock))
            assert get(edge.port).key_ids() == [first]
        clock.advance(CACHE_SECONDS)
        kept = get(edge.port)
    assert kept.status == 200 and kept.key_ids() == [first]


def test_with_no_answer_yet_the_page_is_unavailable_and_says_when_to_come_back():
    with running_edge(settings_for(f"127.0.0.1:{free_port()}")) as edge:
        response = get(edge.port)
        again = get(edge.port, "/web" + PATH)
    assert response.status == 503 and response.headers["retry-after"] == "5"
    assert b"cannot be had now" in response.body
    assert again.status == 503
