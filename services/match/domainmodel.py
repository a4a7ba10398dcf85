"""The Match aggregate: every play, draw and pass as a stored fact.

State is the fold of the events through the rules engine. Public command methods ask the
engine whether an action is legal and only then trigger its event; the event-decorated
methods only apply. The server's own actions (forced passes, dealing the next round,
timeouts, away seats' turns) are triggered here too, inside the command that caused them,
so they are stored atomically with it. Deadlines and seeds are computed before an event
is triggered and stored in it: applying an event never reads a clock or a random source.
"""

from __future__ import annotations

import copy
import json
import uuid
from typing import Any, Callable, Mapping, NamedTuple

from eventsourcing.domain import Aggregate, event
from eventsourcing.utils import register_topic

from . import chain, move_causes, results
from .errors import NotSeated, RequestIdReused, RoundNotDealt, SeatHasLeft, SeedNotTaken, StaleTimeout
from .record import Fairness, MatchRecord, RecordedAction, RecordedRound
from services.rules import fairness
from services.rules.autoplay import timeout_move
from services.rules.families.family import Family
from services.rules.families.registry import family
from services.rules.errors import MatchOver, NotYourTurn, RoundOver
from services.rules.match import apply, leads_by_chance, new_match, start_round
from services.rules.moves import DRAW, PASS, Move, legal_moves, play
from services.rules.rulesets import RuleSet, rule_set
from services.rules.state import Deal, MatchState, Round, round_number
from services.rules.tiles import mask_of, tiles_in
from services.rules.turns import take_turn

MATCH_NAMESPACE = uuid.UUID("5b0f7a52-6a43-4d3e-9f0e-2f4c3a1d9e10")
AWAY_AFTER_TIMEOUTS = 2


def fingerprint(move: Move) -> str:
    """What a request id is remembered as doing, to tell a retry from a reuse."""
    return str(move)


def request_key(player_id: str, request_id: str) -> str:
    # JSON keeps any two (player, request) pairs apart, whatever characters they use.
    return json.dumps([player_id, request_id])


class Match(Aggregate):
    """One match of any rule family, from the first deal to the last round (docs/rules.md)."""

    @staticmethod
    def create_id(request_id: str, **_: Any) -> uuid.UUID:
        # The same creation request always names the same match, so a retry finds it.
        return uuid.uuid5(MATCH_NAMESPACE, request_id)

    class MatchStarted(Aggregate.Created):
        request_id: str
        rules: str
        variant: str
        teams: bool
        target: int
        turn_timer: int
        seats: list[str]
        client_seeds: list[str]
        commitment: str
        server_seed: str
        options: dict[str, Any] | None = None
        awaiting: list[int] | None = None
        deadline: float | None = None
        link: str = ""  # the hash chain's first link (chain.py); "" in matches from before the chain
        spectators: bool = False  # players without a seat may watch, one turn behind
        round_pause: float = 0.0  # seconds between a round's end and the next round's clocks
        rated: bool | None = None  # moves the players' ratings (matchmaking decides); None: not said

    @event(MatchStarted)
    def __init__(self, request_id: str, rules: str, variant: str, teams: bool, target: int, turn_timer: int,
                 seats: list[str], client_seeds: list[str], commitment: str, server_seed: str,
                 options: dict | None = None, awaiting: list[int] | None = None,
                 deadline: float | None = None, link: str = "", spectators: bool = False,
                 round_pause: float = 0.0, rated: bool | None = None) -> None:
        self.spectators = spectators
        # Whether the history rates it (services/history/summary.py counts_for_ratings): not in
        # the record or the chain, like ``spectators``; None in matches from before it was kept.
        self.rated = rated
        # The pause between rounds (docs/rules.md §1.6), fixed when the match starts so every
        # replica and every replay computes the same deadlines: 0 in matches from before it.
        self.round_pause = round_pause
        self.round_starts_at: float | None = None  # when the dealt round's clocks start; None: at once
        self.rules_name = rules
        self.variant = variant
        self.teams = teams
        self.target = target
        self.turn_timer = turn_timer
        self.seats = tuple(seats)
        self.client_seeds = tuple(client_seeds)
        self.commitment = commitment
        self.server_seed = server_seed  # secret until MatchEnded reveals it
        self.options = options  # Goat's, as played
        self.ruleset: RuleSet = rule_set(rules, variant, teams, len(seats), options)
        self.state: MatchState = new_match(self.ruleset, target)
        self.awaiting: frozenset[int] = frozenset(awaiting or ())  # seats whose seeds the first deal waits for
        self.deadline: float | None = deadline  # before the first deal: when it goes ahead without them
        self.turn_no = 0  # plays and passes in the round: names the turn a timeout expires
        self.timeouts_in_a_row = (0,) * len(seats)
        self.away: frozenset[int] = frozenset()
        self.left: frozenset[int] = frozenset()  # seats whose players left: the server plays them to the end
        self.round_timeouts: tuple[bool, ...] = ()
        self.round_causes: tuple[str, ...] = ()  # why each action of the round was made (move_causes.py)
        # request key -> (version that recorded it, command, tile drawn or -1): a retry's answer
        self.outcomes: dict[str, tuple[int, str, int]] = {}
        self.round_announced = False  # RoundEnded stored for the last finished round
        self.finished = False  # MatchEnded stored
        self.ended_at: float | None = None  # when, by the service's clock; None before it, and in older matches
        self.abandoned = False  # ended because nobody acted for a long time
        self.chain_salt = chain.salt(server_seed) if link else b""  # no chain in matches from before it
        self.chain_head = ""  # the last link: what a signed head vouches for
        self.chain_entries = 0
        self.dealt_rounds = 0
        self._linked(link)

    @classmethod
    def _create(cls, event_class, **kwargs):
        # The header's link is computed from what the creation stores, like every other link.
        header = chain.entry(SHOWN[event_class](kwargs, Place(family(kwargs["rules"]), opening=True)), True, None)
        assert header is not None
        kwargs["link"] = chain.link(chain.salt(kwargs["server_seed"]), chain.GENESIS, header)
        return super()._create(event_class, **kwargs)

    def trigger_event(self, event_class, **kwargs) -> None:
        # Every event the record shows carries its link, computed here before it is applied.
        if self.chain_salt:
            rnd = self.state.round
            rules = family(self.rules_name)
            shown = SHOWN[event_class](kwargs, Place(rules, opening=rnd is None or rnd.left < 0))
            seeds = None if self.dealt_rounds else list(self.client_seeds)
            entry = chain.entry(shown, rules.record.every_boneyard, seeds)
            if entry is not None:
                kwargs["link"] = chain.link(self.chain_salt, self.chain_head, entry)
        super().trigger_event(event_class, **kwargs)

    def _linked(self, link: str) -> None:
        if link:
            self.chain_head = link
            self.chain_entries += 1

    def __deepcopy__(self, memo: dict) -> "Match":
        # Events replace attributes and never mutate them, so a shallow copy (with its own
        # pending-events list) is as safe as a deep one and costs the same at any length.
        other = copy.copy(self)
        other.__dict__["_pending_events"] = []
        return other

    # ---- queries ---------------------------------------------------------------------

    def seat_of(self, player_id: str) -> int:
        try:
            return self.seats.index(player_id)
        except ValueError:
            raise NotSeated(f"{player_id} has no seat at this match") from None

    def outcome_of(self, request_key: str, command: str) -> tuple[int, int] | None:
        """(the version that recorded this request, the tile it drew or -1), if it was
        already carried out; a request id reused for another command is refused, not answered."""
        done = self.outcomes.get(request_key)
        if done is None:
            return None
        version, recorded, drawn = done
        if recorded != command:
            raise RequestIdReused("this request_id was already used for a different command")
        return version, drawn

    # ---- commands --------------------------------------------------------------------

    def begin(self, now: float) -> None:
        """Deal the first round (and make any forced moves that follow), unless it waits for
        the players' seeds."""
        if not self.awaiting:
            self._advance(now)

    def submit_seed(self, seat: int, seed: str, now: float) -> None:
        """A player's own seed, sent after seeing the commitment; the first deal follows the
        last one awaited."""
        if self.state.round is not None or self.finished:
            if seat < len(self.client_seeds) and self.client_seeds[seat] == seed:
                return  # a retry of a seed that made it in
            if self.finished:
                raise MatchOver("the match is over: seeds are no longer taken")
            raise SeedNotTaken("the first round has been dealt: seeds are no longer taken")
        if seat not in self.awaiting:
            if self.client_seeds[seat] == seed:
                return
            raise SeedNotTaken("your seat's seed is already in")
        self._seed_submitted(seat=seat, seed=seed)
        if not self.awaiting:
            self._advance(now)

    def leave(self, seat: int, now: float) -> None:
        """The player leaves for good: the server plays the seat from now on (§1.6)."""
        if self.finished:
            raise MatchOver("the match is over")
        if seat in self.left:
            return
        self._seat_left(seat=seat)
        if self.state.round is not None:
            self._advance(now)

    def abandon(self, version: int, idle_seconds: float, now: float) -> None:
        """Nobody has acted since ``version`` for ``idle_seconds``: the match ends without a
        winner, its seed revealed, and its record says it was abandoned."""
        if self.finished:
            raise StaleTimeout("the match is over")
        if version != self.version:
            raise StaleTimeout("the match has moved on")
        self._match_ended(winner=None, scores=list(self.state.scores), server_seed=self.server_seed,
                          goats=[], abandoned=True, ended_at=now)

    def play_tile(self, seat: int, tile: int, end: int | None, request_key: str, now: float) -> None:
        move = play(tile, end)
        self._check(seat, move, request_key)
        self._resume_if_away(seat)
        self._play(seat=seat, tile=tile, end=end, timeout=False, request_key=request_key,
                   deadline=self._deadline_after(move, now))
        self._advance(now)

    def draw_tile(self, seat: int, request_key: str, now: float) -> None:
        self._check(seat, DRAW, request_key)
        self._resume_if_away(seat)
        self._draw(seat=seat, tile=self._next_draw(), timeout=False, request_key=request_key,
                   deadline=self.deadline)
        self._advance(now)

    def resume_seat(self, seat: int) -> None:
        if seat in self.left:
            raise SeatHasLeft("you left this match; the server plays your seat to the end")
        self._resume_if_away(seat)

    def expire_turn(self, round_number: int, turn_no: int, now: float) -> None:
        """The server plays the turn whose timer ran out (docs/rules.md §1.6); before the
        first deal, the wait for seeds has run out and the deal goes ahead without them."""
        if self.awaiting and self.state.round is None and not self.finished:
            if self.deadline is None or now < self.deadline:
                raise StaleTimeout("the seeds are not yet due")
            self._seeds_closed()
            self._advance(now)
            return
        if self.finished or self.state.round is None or self.state.round.outcome is not None:
            raise StaleTimeout("no turn is in play")
        if (round_number, turn_no) != (self.round_number, self.turn_no):
            raise StaleTimeout(f"turn {round_number}/{turn_no} is not the current one")
        if self.deadline is None or now < self.deadline:
            raise StaleTimeout("the turn is not yet due")
        seat = self.state.round.turn
        self._auto_turn(seat, now)
        if self.timeouts_in_a_row[seat] >= AWAY_AFTER_TIMEOUTS and seat not in self.away:
            self._seat_went_away(seat=seat)
        self._advance(now)

    @property
    def seat_to_act(self) -> int | None:
        """The seat whose move the match waits for; None while no round is in play, and at
        a version whose seat to act can only pass: the server passes for it in the command
        that stored this version (``_advance``), so a view never gives a person a turn with
        nothing to do, not even the view of the version before the pass (docs/design.md,
        "No turn without a choice")."""
        rnd = self.state.round
        if self.finished or rnd is None or rnd.outcome is not None:
            return None
        moves = legal_moves(rnd)
        if len(moves) == 1 and moves[0].kind == "pass":
            return None
        return rnd.turn

    @property
    def round_number(self) -> int:
        """1-based number of the round in play or just ended (names the turn a timeout expires)."""
        return round_number(self.state)

    # ---- the server's own moves --------------------------------------------------------

    def _advance(self, now: float) -> None:
        """Make every move the rules force before a player must act again: announce a
        finished round (and the match's end), deal the next, pass for seats that cannot
        move, and play at once for seats that are away."""
        while not self.finished:
            rnd = self.state.round
            if rnd is not None and rnd.outcome is not None and not self.round_announced:
                result = self.state.results[-1]
                self._round_ended(reason=result.reason, winner=result.winner, points=result.points,
                                  scores=list(result.scores), **results.stored_extras(self.ruleset, result))
                if self.state.over:
                    self._match_ended(winner=self.state.winner, scores=list(self.state.scores),
                                      server_seed=self.server_seed, goats=list(self.state.goats), ended_at=now)
            elif rnd is None or rnd.outcome is not None:
                self._deal_next(now)
            else:
                moves = legal_moves(rnd)
                if len(moves) == 1 and moves[0].kind == "pass":
                    self._turn_passed(seat=rnd.turn, timeout=False, deadline=self._deadline_after(PASS, now))
                elif rnd.turn in self.away:
                    self._auto_turn(rnd.turn, now)
                else:
                    return

    def _auto_turn(self, seat: int, now: float) -> None:
        """Draw while the seat must, then play or pass as §1.6 says, each marked a timeout."""
        while True:
            move = timeout_move(self._in_play)
            if move.kind == "draw":
                self._draw(seat=seat, tile=self._next_draw(), timeout=True, request_key="",
                           deadline=self.deadline)
                if self._in_play.outcome is not None:
                    return
                continue
            if move.kind == "play":
                self._play(seat=seat, tile=move.tile, end=move.end, timeout=True, request_key="",
                           deadline=self._deadline_after(move, now))
            else:
                self._turn_passed(seat=seat, timeout=True, deadline=self._deadline_after(PASS, now))
            return

    def _deal_next(self, now: float) -> None:
        """Deal the next round at once. After a round played to its end its clocks start only
        after the pause, while every client shows how that round ended: the first deadline is
        then the deal's time + pause + the turn's time (docs/rules.md §1.6)."""
        index = len(self.state.results)
        deal = fairness.fair_deal(self.ruleset, bytes.fromhex(self.server_seed), self.client_seeds, index)
        dealt = start_round(self.state, deal)
        assert dealt.round is not None  # a round was just dealt
        played = any(result.reason != "redeal" for result in self.state.results)
        starts_at = now + self.round_pause if played else now
        self._round_dealt(round_index=index, hands=[tiles_in(h) for h in deal.hands], boneyard=list(deal.boneyard),
                          set_aside=deal.set_aside, deadline=self._turn_deadline(starts_at, dealt),
                          leader=dealt.round.leader, starts_at=starts_at)

    @property
    def _in_play(self) -> Round:
        """The round being played (commands reach here only once ``_check`` or ``_advance``
        found one)."""
        rnd = self.state.round
        if rnd is None:
            raise RoundNotDealt("no round is in play")
        return rnd

    def _next_draw(self) -> int:
        rnd = self._in_play
        return rnd.boneyard[rnd.drawn]

    def _check(self, seat: int, move: Move, request_key: str) -> None:
        """The rules error that refuses ``move``, if any. A legal move is found among the
        legal moves, not made: the event that applies it makes it, once per command, and
        the command carries no result to it (the engine's error says why one is illegal)."""
        if request_key and request_key in self.outcomes:
            raise RequestIdReused("this request_id was already used for a different command")
        if self.finished:
            raise MatchOver("the match is over")
        if seat in self.left:
            raise SeatHasLeft("you left this match; the server plays your seat to the end")
        rnd = self.state.round
        if rnd is None:
            raise RoundNotDealt("the first round is not dealt yet: the match waits for its players' seeds")
        if rnd.outcome is not None:
            raise RoundOver("no round is in play")
        if seat != rnd.turn:
            raise NotYourTurn(f"it is seat {rnd.turn}'s turn, not seat {seat}'s")
        if move not in legal_moves(rnd):
            take_turn(rnd, move, seat)  # raises the error that says why

    def _resume_if_away(self, seat: int) -> None:
        if seat in self.away:
            self._seat_returned(seat=seat)

    def _clock_start(self, now: float) -> float:
        """When a turn's clock starts: now, or the end of the pause before the round's clocks
        start (a move made during it is accepted; the next seat's time counts from its end)."""
        starts_at = self.round_starts_at
        return now if starts_at is None else max(now, starts_at)

    def _turn_deadline(self, now: float, after: MatchState) -> float | None:
        """When the turn that follows runs out: the host's timer, or the rule set's own for
        each move (Sports), which depends on the position ``after`` the action."""
        now = self._clock_start(now)
        move_timer = self.ruleset.move_timer
        if move_timer is None:
            return now + self.turn_timer if self.turn_timer else None
        rnd = after.round
        if rnd is None or rnd.outcome is not None:
            return None
        seconds = move_timer(rnd)
        return now + seconds if seconds else None

    def _deadline_after(self, move: Move, now: float) -> float | None:
        """When the turn after ``move`` runs out. A rule set's own timer (Sports) reads the
        position after it, so there the move is made once more than the event makes it
        (1.5 us, of a command's 300 us of CPU in bench/command_cost.py)."""
        if self.ruleset.move_timer is None:
            return self._clock_start(now) + self.turn_timer if self.turn_timer else None
        return self._turn_deadline(now, apply(self.state, move))

    @property
    def turn_seconds(self) -> int:
        """What the seat to act was given for this turn; 0 for unlimited or no turn."""
        rnd = self.state.round
        if self.ruleset.move_timer is None:
            return self.turn_timer
        if rnd is None or rnd.outcome is not None:
            return 0
        return self.ruleset.move_timer(rnd)

    # ---- events ------------------------------------------------------------------------

    class RoundDealt(Aggregate.Event):
        round_index: int
        hands: list[list[int]]
        boneyard: list[int]
        set_aside: int
        deadline: float | None
        leader: int = -1
        link: str = ""
        starts_at: float | None = None  # when its clocks start (after the pause); None in older matches

    @event(RoundDealt)
    def _round_dealt(self, round_index: int, hands: list[list[int]], boneyard: list[int], set_aside: int,
                     deadline: float | None, leader: int = -1, link: str = "", starts_at: float | None = None) -> None:
        self._linked(link)
        self.round_starts_at = starts_at
        self.dealt_rounds += 1
        chance = leader if leads_by_chance(self.state) else -1
        deal = Deal(tuple(mask_of(h) for h in hands), tuple(boneyard), set_aside, chance)
        self.state = start_round(self.state, deal)
        self.deadline = deadline
        self.turn_no = 0
        self.round_timeouts = ()
        self.round_causes = ()
        self.round_announced = False

    class TilePlayed(Aggregate.Event):
        seat: int
        tile: int
        end: int | None
        timeout: bool
        request_key: str
        deadline: float | None
        link: str = ""

    @event(TilePlayed)
    def _play(self, seat: int, tile: int, end: int | None, timeout: bool, request_key: str,
              deadline: float | None, link: str = "") -> None:
        self._linked(link)
        move = play(tile, end)
        self.state = apply(self.state, move, seat)
        self._after_action(seat, timeout, request_key, deadline, turn_over=True, command=fingerprint(move))

    class TileDrawn(Aggregate.Event):
        seat: int
        tile: int
        timeout: bool
        request_key: str
        deadline: float | None
        link: str = ""

    @event(TileDrawn)
    def _draw(self, seat: int, tile: int, timeout: bool, request_key: str, deadline: float | None,
              link: str = "") -> None:
        self._linked(link)
        self.state = apply(self.state, DRAW, seat)
        self._after_action(seat, timeout, request_key, deadline, turn_over=False, command=fingerprint(DRAW),
                           drawn=tile)

    class TurnPassed(Aggregate.Event):
        seat: int
        timeout: bool
        deadline: float | None
        link: str = ""

    @event(TurnPassed)
    def _turn_passed(self, seat: int, timeout: bool, deadline: float | None, link: str = "") -> None:
        self._linked(link)
        self.state = apply(self.state, PASS, seat)
        self._after_action(seat, timeout, "", deadline, turn_over=True, forced=not timeout)

    class RoundEnded(Aggregate.Event):
        reason: str
        winner: int | None
        points: int
        scores: list[int]
        # The family's part of the result (RoundResult.extras), as results.stored_extras maps it
        play_points: list[list[int]] | None = None
        written: list[int] | None = None
        remembered: list[int] | None = None
        pot: int = 0
        link: str = ""  # a redeal only: the record marks it

    @event(RoundEnded)
    def _round_ended(self, reason: str, winner: int | None, points: int, scores: list[int],
                     play_points: list | None = None, written: list | None = None, remembered: list | None = None,
                     pot: int = 0, link: str = "") -> None:
        # Not in the chain, so believed only when the replay gives the same (results.py).
        extras = {"play_points": play_points, "written": written, "remembered": remembered, "pot": pot}
        results.check_round_ended(self.state, reason, winner, points, scores, extras)
        self._linked(link)
        self.round_announced = True
        self.deadline = None

    class MatchEnded(Aggregate.Event):
        winner: int | None
        scores: list[int]
        server_seed: str
        goats: list[int] | None = None
        abandoned: bool = False
        link: str = ""
        ended_at: float | None = None  # the service's clock when it ended; None in older matches

    @event(MatchEnded)
    def _match_ended(self, winner: int | None, scores: list[int], server_seed: str, goats: list | None = None,
                     abandoned: bool = False, link: str = "", ended_at: float | None = None) -> None:
        # Not in the chain, so believed only when the replay gives the same (results.py).
        results.check_match_ended(self.state, winner, scores, goats, abandoned)
        self._linked(link)
        self.finished = True
        self.ended_at = ended_at
        self.abandoned = abandoned
        self.deadline = None

    class SeedSubmitted(Aggregate.Event):
        seat: int
        seed: str

    @event(SeedSubmitted)
    def _seed_submitted(self, seat: int, seed: str) -> None:
        self.client_seeds = self.client_seeds[:seat] + (seed,) + self.client_seeds[seat + 1 :]
        self.awaiting = self.awaiting - {seat}

    class SeedsClosed(Aggregate.Event):
        pass

    @event(SeedsClosed)
    def _seeds_closed(self) -> None:
        self.awaiting = frozenset()
        self.deadline = None

    class SeatLeft(Aggregate.Event):
        seat: int

    @event(SeatLeft)
    def _seat_left(self, seat: int) -> None:
        self.left = self.left | {seat}
        self.away = self.away | {seat}

    class SeatWentAway(Aggregate.Event):
        """Two timeouts in a row: the server plays the seat at once until it returns."""
        seat: int

    @event(SeatWentAway)
    def _seat_went_away(self, seat: int) -> None:
        self.away = self.away | {seat}

    class SeatReturned(Aggregate.Event):
        seat: int

    @event(SeatReturned)
    def _seat_returned(self, seat: int) -> None:
        self.away = self.away - {seat}
        self.timeouts_in_a_row = self.timeouts_in_a_row[:seat] + (0,) + self.timeouts_in_a_row[seat + 1 :]

    def _after_action(self, seat: int, timeout: bool, request_key: str, deadline: float | None,
                      turn_over: bool, forced: bool = False, command: str = "", drawn: int = -1) -> None:
        self.round_timeouts = self.round_timeouts + (timeout,)
        self.round_causes = self.round_causes + (
            move_causes.cause_of(timeout, forced, seat in self.left, seat in self.away),)
        if turn_over:
            self.turn_no += 1
        if not forced:
            count = self.timeouts_in_a_row[seat] + 1 if timeout else 0
            if not timeout or turn_over:
                self.timeouts_in_a_row = self.timeouts_in_a_row[:seat] + (count,) + self.timeouts_in_a_row[seat + 1 :]
        self.deadline = deadline
        if request_key:
            self.outcomes = {**self.outcomes, request_key: (self.version + 1, command, drawn)}


class Place(NamedTuple):
    """Where an event falls in the record, all that ``SHOWN`` needs beyond its fields."""
    family: Family
    opening: bool  # no tile is played yet in the round: a play there names no end


def _dealt(e: Mapping[str, Any], at: Place) -> RecordedRound:
    hands = e["hands"]
    leader = e.get("leader", -1)  # -1 in matches from before it was stored
    return RecordedRound(Deal(tuple(mask_of(h) for h in hands), tuple(e["boneyard"]), e["set_aside"]),
                         hand_order=tuple(tuple(h) for h in hands),
                         leader=leader if at.family.record.leaders and leader >= 0 else None)


def _started(e: Mapping[str, Any], at: Place) -> MatchRecord:
    return MatchRecord(e["rules"], e["variant"] or None, e["teams"], e["target"], list(e["seats"]),
                       fairness=Fairness(e["commitment"], None, list(e["client_seeds"])), options=e.get("options"))


def _nothing(e: Mapping[str, Any], at: Place) -> None:
    return None


# What each stored event shows to the record (its fields, or a stored event's ``vars``, and
# its place): the chain links it (``trigger_event``) and the export writes it (export.py),
# so both say the same. Events the record does not show map to nothing; a round's scores are
# recomputed from the record, so RoundEnded shows only a redeal.
SHOWN: dict[type, Callable[[Mapping[str, Any], Place], chain.Shown | None]] = {
    Match.MatchStarted: _started,
    Match.SeedSubmitted: lambda e, at: chain.ClientSeed(e["seat"], e["seed"]),
    Match.RoundDealt: _dealt,
    Match.TilePlayed: lambda e, at: RecordedAction(e["seat"], play(e["tile"], None if at.opening else e["end"]),
                                                   timeout=e["timeout"]),
    Match.TileDrawn: lambda e, at: RecordedAction(e["seat"], DRAW, e["tile"], e["timeout"]),
    Match.TurnPassed: lambda e, at: RecordedAction(e["seat"], PASS, timeout=e["timeout"]),
    Match.RoundEnded: lambda e, at: chain.REDEAL if e["reason"] == "redeal" else None,
    Match.MatchEnded: lambda e, at: chain.End(e["server_seed"], e.get("abandoned", False)),
    Match.SeedsClosed: _nothing,
    Match.SeatLeft: _nothing,
    Match.SeatWentAway: _nothing,
    Match.SeatReturned: _nothing,
}

# Events stored before ``SeatAway`` was named in the past tense still read as the new class.
register_topic("services.match.domainmodel:Match.SeatAway", Match.SeatWentAway)
