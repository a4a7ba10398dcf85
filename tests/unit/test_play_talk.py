"""Quick chat and watching as a spectator in `domino play`, with fake match services: the
phrases and the ``c`` command, chat-only WatchMatch updates (no event, no view) shown as
table talk and never taken for a view, and the spectator's screen."""

from __future__ import annotations

import io
import threading

import grpc
import pytest
from rich.console import Console

from domino.match.v1 import match_service_pb2 as pb
from services.client import families, render, talk
from services.client.api import ApiError
from services.client.game import ClientError, Game, GameOptions
from services.client.inbox import Inbox
from services.client.spectate import Spectator
from services.client.terminal import Output
from services.common.error_details import Details

from .test_play_core import NOW, view
from .test_play_loop import FakeCall, FakeMatch, my_turn, wait_for
from tests.support.rules_description import served_rules  # noqa: F401  (the fixture, by name)

pytestmark = pytest.mark.usefixtures("served_rules")


def chat(phrase: int, seat: int = 1, player: str = "bot:greedy:1", at: int = 100) -> pb.WatchMatchResponse:
    message = pb.ChatMessage(seat=seat, player_id=player, chat_phrase=phrase)
    message.sent_at.FromSeconds(at)
    return pb.WatchMatchResponse(chat=message)


# ---- the phrases and the command ------------------------------------------------------------


def test_every_phrase_of_the_server_has_friendly_words():
    assert set(talk.FRIENDLY) == set(families.current().chat_phrases)  # DescribeRules' phrases
    assert talk.phrase_text(pb.CHAT_PHRASE_WELL_PLAYED) == "Well played!"
    assert talk.phrase_text(99) == "Phrase 99"  # a phrase this client does not know yet
    listed = render.to_text(talk.phrases_text())
    assert "3) Well played!" in listed and "c 3, c well_played" in listed


@pytest.mark.parametrize("line, expected", [
    ("c", talk.ListPhrases()),
    ("chat", talk.ListPhrases()),
    ("c 3", talk.Say(pb.CHAT_PHRASE_WELL_PLAYED)),
    ("c well_played", talk.Say(pb.CHAT_PHRASE_WELL_PLAYED)),
    ("C Well Played!", talk.Say(pb.CHAT_PHRASE_WELL_PLAYED)),
    ("c well", talk.Say(pb.CHAT_PHRASE_WELL_PLAYED)),
    ("c smile", talk.Say(pb.CHAT_PHRASE_EMOTE_SMILE)),
    ("c 12", talk.Say(pb.CHAT_PHRASE_EMOTE_SAD)),
    ("say good game", talk.Say(pb.CHAT_PHRASE_GOOD_GAME)),
])
def test_the_chat_command_names_a_phrase_by_number_name_or_words(line, expected):
    assert talk.parse_chat(line) == expected


def test_unclear_chat_commands_say_why_and_other_lines_are_no_chat():
    assert isinstance(talk.parse_chat("c 13"), talk.Unclear)
    assert isinstance(talk.parse_chat("c good"), talk.Unclear)  # good luck or good game?
    assert isinstance(talk.parse_chat("c whatever"), talk.Unclear)
    for line in ("3", "d", "cancel", "q", "", "3 l"):
        assert talk.parse_chat(line) is None


def test_the_talk_log_keeps_each_message_once_and_shows_the_last_three():
    log = talk.TalkLog()
    for at, phrase in enumerate((pb.CHAT_PHRASE_HELLO, pb.CHAT_PHRASE_GOOD_LUCK, pb.CHAT_PHRASE_OOPS,
                                 pb.CHAT_PHRASE_THANKS), 1):
        assert log.add(chat(phrase, at=at).chat)
    assert not log.add(chat(pb.CHAT_PHRASE_HELLO, at=1).chat)  # a reopened stream sends every phrase again
    assert [c.chat_phrase for c in log.recent()] == [pb.CHAT_PHRASE_GOOD_LUCK, pb.CHAT_PHRASE_OOPS,
                                                     pb.CHAT_PHRASE_THANKS]
    shown = render.to_text(talk.talk_text(log, me="ann"))
    assert "Table talk  seat 1 · bot greedy 1  Good luck!" in shown and "Hello!" not in shown
    mine = talk.TalkLog()
    mine.add(chat(pb.CHAT_PHRASE_THANKS, seat=0, player="ann").chat)
    assert "seat 0 · you  Thanks!" in render.to_text(talk.talk_text(mine, me="ann"))
    assert talk.talk_text(talk.TalkLog()) is None


# ---- chat in a match ------------------------------------------------------------------------


class ChattyMatch(FakeMatch):
    def __init__(self, current, refuse_chat: grpc.StatusCode | None = None,
                 refusal: str = "too many requests: slow down", reason: str = "RATE_LIMITED", **kw) -> None:
        super().__init__(current, **kw)
        self.refuse_chat = refuse_chat
        self.refusal = refusal
        self.reason = reason

    def send_chat(self, match_id, phrase):
        self.calls.append(("chat", phrase))
        if self.refuse_chat is not None:
            raise ApiError(self.refuse_chat, self.refusal, details=Details(self.reason))


def running(api, **options):
    """A Game on its own thread, fed through the returned inbox; its screens in the file."""
    inbox = Inbox()
    file = io.StringIO()
    out = Output(Console(file=file, width=110, color_system=None, highlight=False), redraw=False)
    game = Game(api, inbox, out, GameOptions(tick=0, **options), clock=lambda: NOW)
    result: dict = {}
    thread = threading.Thread(target=lambda: result.setdefault("final", game.run("m")), daemon=True)
    thread.start()
    wait_for(lambda: len(api.watches) == 1)
    return game, inbox, file, thread


def test_a_chat_only_update_is_table_talk_and_never_taken_for_a_view():
    api = ChattyMatch(my_turn(version=7))
    game, inbox, file, thread = running(api)
    stream: FakeCall = api.watches[0][1]
    stream.items.put(chat(pb.CHAT_PHRASE_WELL_PLAYED))
    wait_for(lambda: "Table talk" in file.getvalue())
    assert game.view.version == 7 and game.view.match_id and len(game.view.hand) == 4  # the view stayed
    assert "seat 1 · bot greedy 1  Well played!" in file.getvalue()
    stream.items.put(chat(pb.CHAT_PHRASE_WELL_PLAYED))  # the same message again (a reopened stream): shown once
    stream.items.put(pb.WatchMatchResponse(view=my_turn(version=8)))
    wait_for(lambda: game.view.version == 8)
    inbox.put("line", "q")
    thread.join(5)
    assert not thread.is_alive() and len(game.talk) == 1


def test_a_stream_that_ends_on_a_chat_is_opened_again():
    api = ChattyMatch(view(turn=1, version=7))
    game, inbox, file, thread = running(api)
    api.watches[0][1].items.put(chat(pb.CHAT_PHRASE_HELLO))
    api.watches[0][1].items.put(None)  # the server ended the stream (a restart) after a chat-only update
    wait_for(lambda: len(api.watches) == 2)
    inbox.put("line", "q")
    thread.join(5)
    assert not thread.is_alive()


def test_c_lists_the_phrases_and_c_with_a_number_or_name_sends_one():
    api = ChattyMatch(view(turn=1, version=7))
    game, inbox, file, thread = running(api)
    for line in ("c", "c 3", "c good_game", "c nonsense"):
        inbox.put("line", line)
    inbox.put("line", "q")
    thread.join(5)
    assert [c for c in api.calls if c[0] == "chat"] == [("chat", pb.CHAT_PHRASE_WELL_PLAYED), ("chat", pb.CHAT_PHRASE_GOOD_GAME)]
    screen = file.getvalue()
    assert "Quick chat  1) Hello!" in screen and "You said: Well played!" in screen
    assert "'nonsense' is not one of the phrases" in screen
    assert not [c for c in api.calls if c[0] in ("play", "draw")]


def test_a_rate_limited_chat_is_a_short_message_not_a_crash():
    api = ChattyMatch(view(turn=1, version=7), refuse_chat=grpc.StatusCode.RESOURCE_EXHAUSTED)
    game, inbox, file, thread = running(api)
    inbox.put("line", "c 1")
    inbox.put("line", "q")
    thread.join(5)
    assert not thread.is_alive()
    assert "Easy on the chat: wait a few seconds before the next phrase." in file.getvalue()


@pytest.mark.parametrize("code, reason, why", [
    (grpc.StatusCode.RESOURCE_EXHAUSTED, "you have sent 200 phrases at this match, as many as one player may",
     "CHAT_LIMIT"),
    (grpc.StatusCode.FAILED_PRECONDITION, "this match ended 75 s ago: its table takes phrases only for 60 s",
     "CHAT_CLOSED"),
    (grpc.StatusCode.RESOURCE_EXHAUSTED, "slow down: 200 phrases a match is all", "CHAT_LIMIT"),  # the reason tells
])
def test_a_chat_refused_for_good_says_the_servers_reason_not_to_wait(code, reason, why):
    api = ChattyMatch(view(turn=1, version=7), refuse_chat=code, refusal=reason, reason=why)
    game, inbox, file, thread = running(api)
    inbox.put("line", "c 1")
    inbox.put("line", "q")
    thread.join(5)
    assert not thread.is_alive()
    screen = " ".join(file.getvalue().split())
    assert f"Chat not sent: {reason}" in screen and "wait a few seconds" not in screen


def test_c_still_cancels_the_question_of_which_end():
    api = ChattyMatch(my_turn(version=7))
    game, inbox, file, thread = running(api)
    inbox.put("line", "2")  # 6|4 fits both ends: which one?
    inbox.put("line", "c")
    inbox.put("line", "q")
    thread.join(5)
    assert "Cancelled." in file.getvalue() and not [c for c in api.calls if c[0] in ("chat", "play")]


# ---- watching as a spectator ----------------------------------------------------------------


def public(version: int = 9, **kw) -> pb.MatchView:
    v = view(your_seat=None, hand=(), turn=1, seats=("ann", "bob"), version=version, **kw)
    v.ClearField("legal_moves")
    return v


class WatchedMatch:
    address = "fake:1"

    def __init__(self, error: grpc.StatusCode | None = None, message: str = "") -> None:
        self.watches: list[tuple[int, FakeCall]] = []
        self.error = error
        self.message = message
        self.calls: list = []

    def watch(self, match_id, from_version):
        call = FakeCall()
        if self.error is not None:
            error, message = self.error, self.message

            class Refused(grpc.RpcError):
                def code(self):
                    return error

                def details(self):
                    return message
            call.items.put(Refused())
        self.watches.append((from_version, call))
        return call

    def send_chat(self, match_id, phrase):  # never called: spectators cannot chat
        self.calls.append(("chat", phrase))


def spectating(api, lines=(), stop_on_eof=True):
    inbox = Inbox()
    file = io.StringIO()
    out = Output(Console(file=file, width=110, color_system=None, highlight=False), redraw=False)
    spectator = Spectator(api, inbox, out, stop_on_eof=stop_on_eof)
    result: dict = {}

    def run():
        try:
            result["final"] = spectator.run("m")
        except ClientError as e:
            result["error"] = str(e)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return spectator, inbox, file, thread, result


def test_a_spectator_sees_the_public_view_one_turn_behind_and_the_table_talk_and_cannot_chat():
    api = WatchedMatch()
    spectator, inbox, file, thread, result = spectating(api)
    wait_for(lambda: len(api.watches) == 1)
    assert api.watches[0][0] == 0
    stream = api.watches[0][1]
    stream.items.put(pb.WatchMatchResponse(view=public()))
    wait_for(lambda: "ONE TURN BEHIND" in file.getvalue())
    stream.items.put(chat(pb.CHAT_PHRASE_GOOD_LUCK, seat=0, player="ann"))
    wait_for(lambda: "Table talk" in file.getvalue())
    inbox.put("line", "c 1")
    inbox.put("line", "3")
    wait_for(lambda: "nothing to play" in file.getvalue())
    inbox.put("line", "q")
    thread.join(5)
    assert not thread.is_alive() and result == {"final": None}
    screen = file.getvalue()
    assert "seat 0 · ann  Good luck!" in screen
    assert "Spectators cannot chat" in screen and api.calls == []
    assert "Your hand" not in screen and "bob to play (as of this view: one turn behind the table)" in screen
    assert " s left" not in screen  # no countdown on a view a turn behind
    assert spectator.view.version == 9  # the chat-only update was not taken for a view


def test_a_spectator_watches_to_the_end_when_input_is_closed_on_the_command_line():
    api = WatchedMatch()
    spectator, inbox, file, thread, result = spectating(api, stop_on_eof=False)
    inbox.put("eof")
    wait_for(lambda: len(api.watches) == 1)
    api.watches[0][1].items.put(pb.WatchMatchResponse(view=public()))
    ended = public(version=30, status=pb.MATCH_STATUS_ENDED, winner=0, scores=[71, 20])
    ended.turn = -1
    api.watches[0][1].items.put(pb.WatchMatchResponse(view=ended))
    thread.join(5)
    assert not thread.is_alive() and result["final"].version == 30
    assert "Match over — ann won" in file.getvalue()


def test_a_refusal_that_names_the_watchers_own_id_says_you():
    from services.client.refusals import yours

    assert yours("3f9a0c11-aa has no seat at this match, and it does not allow spectators", "3f9a0c11-aa") == \
        "you have no seat at this match, and it does not allow spectators"
    assert yours("bob has no seat", "zed") == "bob has no seat"


def test_a_match_that_allows_no_spectators_gives_the_servers_message_plainly():
    message = "zed has no seat at this match, and it does not allow spectators"
    api = WatchedMatch(grpc.StatusCode.PERMISSION_DENIED, message)
    _, _, _, thread, result = spectating(api)
    thread.join(5)
    assert result == {"error": f"cannot watch match m: {message}"}


def test_a_player_who_has_a_seat_is_not_shown_a_spectators_view():
    api = WatchedMatch()
    spectator, inbox, file, thread, result = spectating(api)
    wait_for(lambda: len(api.watches) == 1)
    api.watches[0][1].items.put(pb.WatchMatchResponse(view=my_turn()))
    thread.join(5)
    assert spectator.seated and result == {"final": None} and "Your hand" not in file.getvalue()
