"""The Match aggregate: every play, draw and pass as a stored fact.

State is the fold of the events through the rules engine. Public command methods ask the
engine whether an action is legal and only then trigger its event; each event class's
``apply`` only applies it. The server's own actions (forced passes, dealing the next round,
timeouts, away seats' turns) are triggered here too, inside the command that caused them,
so they are stored atomically with it. Deadlines and seeds are computed before an event
is triggered and stored in it: applying an event never reads a clock or a random source.
"""

from __future__ import annotations

import copy
import json
import uuid
from typing import Any, ClassVar, Mapping, NamedTuple

from eventsourcing.domain import Aggregate
from eventsourcing.utils import register_topic

from . import chain, move_causes, results
from .errors import NotSeated, RequestIdReused, RoundNotDealt, SeatHasLeft, SeedNotTaken, StaleTimeout
from .visibility import Public
from .record import Fairness, MatchRecord, RecordedAction, RecordedRound
from services.rules import fairness
from services.rules.autoplay import timeout_move
from services.rules.family import Family
from services.rules.registry import family
from services.rules.errors import MatchOver, RoundOver
from services.rules.match import apply as apply_move, leads_by_chance, new_match, start_round
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
    """One match of any rule family, from the first deal to the last round (docs/rules.md).

    Each event is declared once, as a class nested here: its fields (``Public`` marks what
    anyone may see, public_events.py), its ``apply`` (what it does to the match) and, if the
    record shows it, its ``recorded`` (what it adds to a `domino-record/1`, and so to the hash
    chain). Commands trigger events through ``_trigger``, which computes the event's chain
    link before the event exists and stores it in the event, as deadlines and seeds are."""

    @staticmethod
    def create_id(request_id: str, **_: Any) -> uuid.UUID:
        # The same creation request always names the same match, so a retry finds it.
        return uuid.uuid5(MATCH_NAMESPACE, request_id)

    class Event(Aggregate.Event):
        """What every event of the match declares besides its fields."""

        wire_name: ClassVar[str]  # its name on the wire (public_events.py): a contract that outlives renames

        @staticmethod
        def recorded(e: Mapping[str, Any], at: Place) -> chain.Shown | None:
            """What it adds to the record (and so to the chain), from its fields ``e``
            (its ``vars`` once stored): none, unless the event says otherwise."""
            return None

    class MatchStarted(Aggregate.Created):
        request_id: str
        rules: Public[str]
        variant: Public[str]
        teams: Public[bool]
        target: Public[int]
        turn_timer: Public[int]
        seats: Public[list[str]]
        client_seeds: Public[list[str]]
        commitment: Public[str]
        server_seed: str  # secret until MatchEnded reveals it
        options: Public[dict[str, Any] | None] = None  # Goat's, as played
        awaiting: Public[list[int] | None] = None  # seats whose seeds the first deal waits for
        deadline: Public[float | None] = None  # before the first deal: when it goes ahead without them
        link: str = ""  # the hash chain's first link (chain.py); "" in matches from before the chain
        spectators: bool = False  # players without a seat may watch, one turn behind
        round_pause: float = 0.0  # seconds between a round's end and the next round's clocks
        rated: bool | None = None  # moves the players' ratings (matchmaking decides); None: not said

        wire_name = "match_started"

        @staticmethod
        def recorded(e: Mapping[str, Any], at: Place) -> MatchRecord:
            return MatchRecord(e["rules"], e["variant"] or None, e["teams"], e["target"], list(e["seats"]),
                               fairness=Fairness(e["commitment"], None, list(e["client_seeds"])),
                               options=e.get("options"))

        def apply(self, match: Match) -> None:
            match._start_from(self)

    @classmethod
    def start(cls, **started: Any) -> Match:
        """A new match: its MatchStarted (``started`` is that event's fields but the link)
        carries the chain's first link, computed from what it stores like every other link."""
        header = chain.entry(cls.MatchStarted.recorded(started, Place(family(started["rules"]), opening=True)),
                             True, None)
        assert header is not None
        link = chain.link(chain.salt(started["server_seed"]), chain.GENESIS, header)
        return cls._create(cls.MatchStarted, **started, link=link)

    def _start_from(self, started: Match.MatchStarted) -> None:
        self.spectators = started.spectators
        # Whether the history rates it (services/history/summary.py counts_for_ratings): not in
        # the record or the chain, like ``spectators``; None in matches from before it was kept.
        self.rated: bool | None = started.rated
        # The pause between rounds (docs/rules.md §1.6), fixed when the match starts so every
        # replica and every replay computes the same deadlines: 0 in matches from before it.
        self.round_pause = started.round_pause
        self.round_starts_at: float | None = None  # when the dealt round's clocks start; None: at once
        self.rules_name = started.rules
        self.variant = started.variant
        self.teams = started.teams
        self.target = started.target
        self.turn_timer = started.turn_timer
        self.seats = tuple(started.seats)
        self.client_seeds = tuple(started.client_seeds)
        self.commitment = started.commitment
        self.server_seed = started.server_seed  # secret until MatchEnded reveals it
        self.options = started.options  # Goat's, as played
        self.ruleset: RuleSet = rule_set(started.rules, started.variant, started.teams, len(started.seats),
                                         started.options)
        self.state: MatchState = new_match(self.ruleset, started.target)
        self.awaiting: frozenset[int] = frozenset(started.awaiting or ())
        self.deadline: float | None = started.deadline
        self.turn_no = 0  # plays and passes in the round: names the turn a timeout expires
        self.timeouts_in_a_row = (0,) * len(started.seats)
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
        self.chain_salt = chain.salt(started.server_seed) if started.link else b""  # no chain before it
        self.chain_head = ""  # the last link: what a signed head vouches for
        self.chain_entries = 0
        self.dealt_rounds = 0
        self._linked(started.link)

    def _trigger(self, event_class: type[Match.Event], **fields: Any) -> None:
        """Trigger an event, with its link when the record shows it: the link is computed
        from the head before it and stored in the event, which then only sets the head."""
        if self.chain_salt:
            rnd = self.state.round
            rules = self.ruleset.kind
            shown = event_class.recorded(fields, Place(rules, opening=rnd is None or rnd.left < 0))
            seeds = None if self.dealt_rounds else list(self.client_seeds)
            entry = chain.entry(shown, rules.record.every_boneyard, seeds)
            if entry is not None:
                fields["link"] = chain.link(self.chain_salt, self.chain_head, entry)
        self.trigger_event(event_class, **fields)

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
        self._trigger(Match.SeedSubmitted, seat=seat, seed=seed)
        if not self.awaiting:
            self._advance(now)

    def leave(self, seat: int, now: float) -> None:
        """The player leaves for good: the server plays the seat from now on (§1.6)."""
        if self.finished:
            raise MatchOver("the match is over")
        if seat in self.left:
            return
        self._trigger(Match.SeatLeft, seat=seat)
        if self.state.round is not None:
            self._advance(now)

    def abandon(self, version: int, idle_seconds: float, now: float) -> None:
        """Nobody has acted since ``version`` for ``idle_seconds``: the match ends without a
        winner, its seed revealed, and its record says it was abandoned."""
        if self.finished:
            raise StaleTimeout("the match is over")
        if version != self.version:
            raise StaleTimeout("the match has moved on")
        self._trigger(Match.MatchEnded, winner=None, scores=list(self.state.scores), server_seed=self.server_seed,
                      goats=[], abandoned=True, ended_at=now)

    def play_tile(self, seat: int, tile: int, end: int | None, request_key: str, now: float) -> None:
        after = self._check(seat, play(tile, end), request_key)
        self._resume_if_away(seat)
        self._trigger(Match.TilePlayed, seat=seat, tile=tile, end=end, timeout=False, request_key=request_key,
                      deadline=self._turn_deadline(now, after))
        self._advance(now)

    def draw_tile(self, seat: int, request_key: str, now: float) -> None:
        self._check(seat, DRAW, request_key)
        self._resume_if_away(seat)
        self._trigger(Match.TileDrawn, seat=seat, tile=self._next_draw(), timeout=False, request_key=request_key,
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
            self._trigger(Match.SeedsClosed)
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
            self._trigger(Match.SeatWentAway, seat=seat)
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
                self._trigger(Match.RoundEnded, reason=result.reason, winner=result.winner, points=result.points,
                              scores=list(result.scores), **results.stored_extras(self.ruleset, result))
                if self.state.over:
                    self._trigger(Match.MatchEnded, winner=self.state.winner, scores=list(self.state.scores),
                                  server_seed=self.server_seed, goats=list(self.state.goats), ended_at=now)
            elif rnd is None or rnd.outcome is not None:
                self._deal_next(now)
            else:
                moves = legal_moves(rnd)
                if len(moves) == 1 and moves[0].kind == "pass":
                    self._trigger(Match.TurnPassed, seat=rnd.turn, timeout=False,
                                  deadline=self._deadline_after(PASS, now))
                elif rnd.turn in self.away:
                    self._auto_turn(rnd.turn, now)
                else:
                    return

    def _auto_turn(self, seat: int, now: float) -> None:
        """Draw while the seat must, then play or pass as §1.6 says, each marked a timeout."""
        while True:
            move = timeout_move(self._in_play)
            if move.kind == "draw":
                self._trigger(Match.TileDrawn, seat=seat, tile=self._next_draw(), timeout=True, request_key="",
                              deadline=self.deadline)
                if self._in_play.outcome is not None:
                    return
                continue
            if move.kind == "play":
                self._trigger(Match.TilePlayed, seat=seat, tile=move.tile, end=move.end, timeout=True,
                              request_key="", deadline=self._deadline_after(move, now))
            else:
                self._trigger(Match.TurnPassed, seat=seat, timeout=True, deadline=self._deadline_after(PASS, now))
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
        self._trigger(Match.RoundDealt, round_index=index, hands=[tiles_in(h) for h in deal.hands],
                      boneyard=list(deal.boneyard), set_aside=deal.set_aside,
                      deadline=self._turn_deadline(starts_at, dealt.round), leader=dealt.round.leader,
                      starts_at=starts_at)

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

    def _check(self, seat: int, move: Move, request_key: str) -> Round:
        """The round after ``move`` by ``seat``, or the error that refuses it: the service's
        own (a reused request, a match over, a seat that left, no round in play), then the
        engine's, asked once, which names what is wrong (not your turn, a tile that does not
        fit). The round it answers gives the next turn's deadline; the event makes the move
        again when it is applied, as replay does."""
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
        return take_turn(rnd, move, seat)

    def _resume_if_away(self, seat: int) -> None:
        if seat in self.away:
            self._trigger(Match.SeatReturned, seat=seat)

    def _clock_start(self, now: float) -> float:
        """When a turn's clock starts: now, or the end of the pause before the round's clocks
        start (a move made during it is accepted; the next seat's time counts from its end)."""
        starts_at = self.round_starts_at
        return now if starts_at is None else max(now, starts_at)

    def _turn_deadline(self, now: float, after: Round | None) -> float | None:
        """When the turn that follows runs out: the host's timer, or the rule set's own for
        each move (Sports), which depends on the round ``after`` the action."""
        now = self._clock_start(now)
        move_timer = self.ruleset.move_timer
        if move_timer is None:
            return now + self.turn_timer if self.turn_timer else None
        rnd = after
        if rnd is None or rnd.outcome is not None:
            return None
        seconds = move_timer(rnd)
        return now + seconds if seconds else None

    def _deadline_after(self, move: Move, now: float) -> float | None:
        """When the turn after the server's own ``move`` runs out. A rule set's own timer
        (Sports) reads the round after it, so there the move is made once more than the
        event makes it (1.5 us, of a command's 300 us of CPU in bench/command_cost.py)."""
        if self.ruleset.move_timer is None:
            return self._clock_start(now) + self.turn_timer if self.turn_timer else None
        return self._turn_deadline(now, take_turn(self._in_play, move))

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

    class RoundDealt(Event):
        round_index: Public[int]
        hands: list[list[int]]  # anyone sees how many tiles each holds (public_events.py)
        boneyard: list[int]
        set_aside: int
        deadline: Public[float | None]
        leader: Public[int] = -1
        link: str = ""
        starts_at: float | None = None  # when its clocks start (after the pause); None in older matches

        wire_name = "round_dealt"

        @staticmethod
        def recorded(e: Mapping[str, Any], at: Place) -> RecordedRound:
            hands = e["hands"]
            leader = e.get("leader", -1)  # -1 in matches from before it was stored
            return RecordedRound(Deal(tuple(mask_of(h) for h in hands), tuple(e["boneyard"]), e["set_aside"]),
                                 hand_order=tuple(tuple(h) for h in hands),
                                 leader=leader if at.family.record.leaders and leader >= 0 else None)

        def apply(self, match: Match) -> None:
            match._linked(self.link)
            match.round_starts_at = self.starts_at
            match.dealt_rounds += 1
            chance = self.leader if leads_by_chance(match.state) else -1
            deal = Deal(tuple(mask_of(h) for h in self.hands), tuple(self.boneyard), self.set_aside, chance)
            match.state = start_round(match.state, deal)
            match.deadline = self.deadline
            match.turn_no = 0
            match.round_timeouts = ()
            match.round_causes = ()
            match.round_announced = False

    class TilePlayed(Event):
        seat: Public[int]
        tile: Public[int]
        end: Public[int | None]
        timeout: Public[bool]
        request_key: str
        deadline: Public[float | None]
        link: str = ""

        wire_name = "tile_played"

        @staticmethod
        def recorded(e: Mapping[str, Any], at: Place) -> RecordedAction:
            return RecordedAction(e["seat"], play(e["tile"], None if at.opening else e["end"]), timeout=e["timeout"])

        def apply(self, match: Match) -> None:
            match._linked(self.link)
            move = play(self.tile, self.end)
            match.state = apply_move(match.state, move, self.seat)
            match._after_action(self.seat, self.timeout, self.request_key, self.deadline, turn_over=True,
                                command=fingerprint(move))

    class TileDrawn(Event):
        seat: Public[int]
        tile: int
        timeout: Public[bool]
        request_key: str
        deadline: Public[float | None]
        link: str = ""

        wire_name = "tile_drawn"

        @staticmethod
        def recorded(e: Mapping[str, Any], at: Place) -> RecordedAction:
            return RecordedAction(e["seat"], DRAW, e["tile"], e["timeout"])

        def apply(self, match: Match) -> None:
            match._linked(self.link)
            match.state = apply_move(match.state, DRAW, self.seat)
            match._after_action(self.seat, self.timeout, self.request_key, self.deadline, turn_over=False,
                                command=fingerprint(DRAW), drawn=self.tile)

    class TurnPassed(Event):
        seat: Public[int]
        timeout: Public[bool]
        deadline: Public[float | None]
        link: str = ""

        wire_name = "turn_passed"

        @staticmethod
        def recorded(e: Mapping[str, Any], at: Place) -> RecordedAction:
            return RecordedAction(e["seat"], PASS, timeout=e["timeout"])

        def apply(self, match: Match) -> None:
            match._linked(self.link)
            match.state = apply_move(match.state, PASS, self.seat)
            match._after_action(self.seat, self.timeout, "", self.deadline, turn_over=True, forced=not self.timeout)

    class RoundEnded(Event):
        reason: Public[str]
        winner: Public[int | None]
        points: Public[int]
        scores: Public[list[int]]
        # The family's part of the result (RoundResult.extras), as results.stored_extras maps it
        play_points: Public[list[list[int]] | None] = None
        written: Public[list[int] | None] = None
        remembered: Public[list[int] | None] = None
        pot: Public[int] = 0
        link: str = ""  # a redeal only: the record marks it

        wire_name = "round_ended"

        @staticmethod
        def recorded(e: Mapping[str, Any], at: Place) -> chain.Redeal | None:
            # A round's scores are recomputed from the record, so it shows only a redeal.
            return chain.REDEAL if e["reason"] == "redeal" else None

        def apply(self, match: Match) -> None:
            # Not in the chain, so believed only when the replay gives the same (results.py).
            extras = {"play_points": self.play_points, "written": self.written, "remembered": self.remembered,
                      "pot": self.pot}
            results.check_round_ended(match.state, self.reason, self.winner, self.points, self.scores, extras)
            match._linked(self.link)
            match.round_announced = True
            match.deadline = None

    class MatchEnded(Event):
        winner: Public[int | None]
        scores: Public[list[int]]
        server_seed: Public[str]
        goats: Public[list[int] | None] = None
        abandoned: Public[bool] = False
        link: str = ""
        ended_at: float | None = None  # the service's clock when it ended; None in older matches

        wire_name = "match_ended"

        @staticmethod
        def recorded(e: Mapping[str, Any], at: Place) -> chain.End:
            return chain.End(e["server_seed"], e.get("abandoned", False))

        def apply(self, match: Match) -> None:
            # Not in the chain, so believed only when the replay gives the same (results.py).
            results.check_match_ended(match.state, self.winner, self.scores, self.goats, self.abandoned)
            match._linked(self.link)
            match.finished = True
            match.ended_at = self.ended_at
            match.abandoned = self.abandoned
            match.deadline = None

    class SeedSubmitted(Event):
        seat: Public[int]
        seed: Public[str]

        wire_name = "seed_submitted"

        @staticmethod
        def recorded(e: Mapping[str, Any], at: Place) -> chain.ClientSeed:
            return chain.ClientSeed(e["seat"], e["seed"])

        def apply(self, match: Match) -> None:
            match.client_seeds = match.client_seeds[:self.seat] + (self.seed,) + match.client_seeds[self.seat + 1:]
            match.awaiting = match.awaiting - {self.seat}

    class SeedsClosed(Event):
        wire_name = "seeds_closed"

        def apply(self, match: Match) -> None:
            match.awaiting = frozenset()
            match.deadline = None

    class SeatLeft(Event):
        seat: Public[int]

        wire_name = "seat_left"

        def apply(self, match: Match) -> None:
            match.left = match.left | {self.seat}
            match.away = match.away | {self.seat}

    class SeatWentAway(Event):
        """Two timeouts in a row: the server plays the seat at once until it returns."""
        seat: Public[int]

        wire_name = "seat_away"

        def apply(self, match: Match) -> None:
            match.away = match.away | {self.seat}

    class SeatReturned(Event):
        seat: Public[int]

        wire_name = "seat_returned"

        def apply(self, match: Match) -> None:
            match.away = match.away - {self.seat}
            timeouts = match.timeouts_in_a_row
            match.timeouts_in_a_row = timeouts[:self.seat] + (0,) + timeouts[self.seat + 1:]

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
    """Where an event falls in the record, all that an event's ``recorded`` needs beyond its
    fields."""
    family: Family
    opening: bool  # no tile is played yet in the round: a play there names no end


EVENTS: tuple[type[Match.Event], ...] = tuple(
    value for name, value in vars(Match).items()
    if name not in ("Event", "Created") and isinstance(value, type) and issubclass(value, Match.Event))
"""Every event class of the match, in declaration order (not the library's bases)."""

# Events stored before ``SeatAway`` was named in the past tense still read as the new class.
register_topic("services.match.domainmodel:Match.SeatAway", Match.SeatWentAway)
