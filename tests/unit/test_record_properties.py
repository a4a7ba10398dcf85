"""Properties of whole simulated matches (RULES.md §1) and of their records (RECORD.md).

Every example is a match played by the simulator for one variant, target, seat strategies
and seed. The engine must conserve the 28 tiles, offer exactly the legal moves, and its
record must verify with the engine's own results; every single-action mutation of a valid
record must be refused at exactly the action (or round) it breaks.

Mutations are made on the record's JSON (``to_json``) and re-read with ``from_json``, as an
auditor would receive them.
"""

from __future__ import annotations

import copy

from hypothesis import HealthCheck, assume, given, note, settings
from hypothesis import strategies as st

from services.audit.simulate import simulate
from services.audit.verify import verify
from services.match.record import dumps, from_json, loads, to_json
from services.match.rules.autoplay import timeout_move
from services.match.rules.errors import RulesError
from services.match.rules.match import apply, new_match, start_round
from services.match.rules.moves import DRAW, END_NAMES, LEFT, OPEN, PASS, PLAY_LEFT, PLAY_RIGHT, RIGHT, legal_moves
from services.match.rules.tiles import HIGH, LOW, NAMES, PIPS, pip_total, tiles_in
from services.match.rules.turns import step, take_turn

# Repeatable in CI: the same examples on every run, no example database.
PROPERTY = settings(
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)

# (variant, teams) as simulate() takes them: block-4 is played in teams and solo.
VARIANTS = (("draw-2", None), ("block-3", None), ("block-4", True), ("block-4", False))
TARGETS = (51, 71, 101, 151)
STRATEGIES = (("random",), ("greedy",), ("random", "greedy"), ("greedy", "random"))


def match_specs(variants=VARIANTS, strategies=STRATEGIES):
    return st.tuples(
        st.sampled_from(variants), st.sampled_from(TARGETS), st.sampled_from(strategies), st.integers(0, 2**31)
    )


def simulated(spec):
    (variant, teams), target, strategies, seed = spec
    note(f"simulate({variant!r}, seed={seed}, teams={teams}, target={target}, strategies={strategies})")
    return simulate(variant, seed, teams=teams, target=target, strategies=strategies)


def replay(record):
    """(round index, action index, match before the action, recorded action), in order."""
    rules = record.rule_set()
    match = new_match(rules, record.target)
    for r, recorded in enumerate(record.rounds):
        match = start_round(match, recorded.deal)
        for a, action in enumerate(recorded.actions):
            yield r, a, match, action
            match = apply(match, action.move)


def snapshot(rnd):
    return (tuple(rnd.hands), rnd.held, rnd.boneyard, rnd.drawn, rnd.set_aside, rnd.left, rnd.right, rnd.turn,
            rnd.lead, rnd.history, rnd.outcome)


def fits(tile, number):
    return number in (LOW[tile], HIGH[tile])


def can_play(rnd, hand):
    return any(fits(t, rnd.left) or fits(t, rnd.right) for t in tiles_in(hand))


def every_move():
    return set(OPEN) | set(PLAY_LEFT) | set(PLAY_RIGHT) | {DRAW, PASS}


def fault_of(data):
    verdict = verify(from_json(data))
    assert not verdict.valid, f"the mutated record verified: {verdict.to_json()}"
    return verdict.fault.round, verdict.fault.action


def choose(data, candidates, label):
    assume(candidates)
    return data.draw(st.sampled_from(candidates), label=label)


# --- the engine: tiles and moves --------------------------------------------------------


@settings(PROPERTY, max_examples=50)
@given(match_specs())
def test_the_28_tiles_are_conserved_at_every_step(spec):
    record, _ = simulated(spec)

    def account(rnd):
        line = [move.tile for _, move in rnd.actions() if move.kind == "play"]
        held = [t for hand in rnd.hands for t in tiles_in(hand)]
        undrawn = list(rnd.boneyard[rnd.drawn:])
        set_aside = [rnd.set_aside] if rnd.set_aside >= 0 else []
        return sorted(held + line + undrawn + set_aside)

    for r, a, match, action in replay(record):
        assert account(match.round) == list(range(28)), f"round {r} before action {a}"
        assert account(take_turn(match.round, action.move)) == list(range(28)), f"round {r} after action {a}"


@settings(PROPERTY, max_examples=40)
@given(match_specs())
def test_every_move_legal_moves_offers_is_accepted_by_take_turn(spec):
    record, _ = simulated(spec)
    for r, a, match, action in replay(record):
        rnd = match.round
        moves = legal_moves(rnd)
        assert moves, f"round {r} action {a}: a round in play offers no move"
        assert action.move in moves, f"round {r} action {a}: the simulator made {action.move}, not a legal move"
        for move in moves:
            after = take_turn(rnd, move, seat=rnd.turn)
            assert after is not rnd


@settings(PROPERTY, max_examples=40)
@given(match_specs())
def test_legal_moves_are_exactly_the_moves_section_1_3_allows(spec):
    """An independent reading of §1.2–1.3: must play a fitting tile (either end it fits);
    else draw while the boneyard has tiles (draw-2); else pass. The first play is the
    required lead tile, or any tile of the leader's hand."""
    record, _ = simulated(spec)
    for r, a, match, _ in replay(record):
        rnd = match.round
        hand = rnd.hands[rnd.turn]
        if rnd.left < 0:
            expected = {OPEN[rnd.lead]} if rnd.lead >= 0 else {OPEN[t] for t in tiles_in(hand)}
        else:
            expected = {PLAY_LEFT[t] for t in tiles_in(hand) if fits(t, rnd.left)}
            expected |= {PLAY_RIGHT[t] for t in tiles_in(hand) if fits(t, rnd.right)}
            if not expected:
                expected = {DRAW} if rnd.drawn < len(rnd.boneyard) else {PASS}
        moves = legal_moves(rnd)
        assert len(set(moves)) == len(moves), f"round {r} action {a}: a move is offered twice"
        assert set(moves) == expected, f"round {r} action {a}"


@settings(PROPERTY, max_examples=15)
@given(match_specs())
def test_every_move_legal_moves_does_not_offer_is_rejected_and_changes_nothing(spec):
    """All other plays (every tile, either end, and without an end), draw and pass. The
    round's first play naming an end is left to its own test below."""
    record, _ = simulated(spec)
    for r, a, match, _ in replay(record):
        rnd = match.round
        before = snapshot(rnd)
        illegal = every_move() - set(legal_moves(rnd))
        if rnd.left < 0:
            illegal -= {end_move[m.tile] for m in legal_moves(rnd) for end_move in (PLAY_LEFT, PLAY_RIGHT)}
        for move in illegal:
            try:
                take_turn(rnd, move, seat=rnd.turn)
            except RulesError:
                pass
            else:
                raise AssertionError(f"round {r} action {a}: take_turn accepted the illegal move {move}")
            assert snapshot(rnd) == before, f"take_turn changed the round when refusing {move}"
            mine = rnd.copy()
            try:
                step(mine, move)
            except RulesError:
                pass
            assert snapshot(mine) == before, f"step changed the round when refusing {move}"


@settings(PROPERTY, max_examples=10)
@given(match_specs())
def test_the_first_play_of_a_round_naming_an_end_is_rejected(spec):
    """legal_moves offers the opening only without an end (RECORD.md: `end` on every play
    but the round's first), so take_turn must refuse it with one."""
    record, _ = simulated(spec)
    for r, a, match, _ in replay(record):
        rnd = match.round
        if rnd.left >= 0:
            continue
        for move in legal_moves(rnd):
            for with_end in (PLAY_LEFT[move.tile], PLAY_RIGHT[move.tile]):
                try:
                    take_turn(rnd, with_end, seat=rnd.turn)
                except RulesError:
                    continue
                raise AssertionError(f"round {r}: take_turn accepted the opening {with_end}, which legal_moves "
                                     f"does not offer (it offers {[str(m) for m in legal_moves(rnd)]})")


@settings(PROPERTY, max_examples=40)
@given(match_specs())
def test_each_round_is_scored_as_section_1_5_says(spec):
    """A domino wins for the side that went out; blocked, the lowest side total wins and a
    shared lowest ties; the winner scores the other sides' pips; the match ends in the
    round a side reaches the target."""
    (variant, teams), target, _, _ = spec
    record, match = simulated(spec)
    rules = record.rule_set()
    totals = [0] * rules.sides
    for i, result in enumerate(match.results):
        side_pips = [0] * rules.sides
        for seat, hand in enumerate(result.hands):
            side_pips[rules.side_of(seat)] += pip_total(hand)
        if result.reason == "domino":
            assert result.hands[result.last_seat] == 0
            winner = rules.side_of(result.last_seat)
        else:
            assert result.reason == "blocked"
            lowest = min(side_pips)
            winner = None if side_pips.count(lowest) > 1 else side_pips.index(lowest)
        points = 0 if winner is None else sum(side_pips) - side_pips[winner]
        assert (result.winner, result.points) == (winner, points), f"round {i}"
        if winner is not None:
            totals[winner] += points
        assert list(result.scores) == totals, f"round {i}"
        reached = max(totals) >= target
        assert reached == (i == len(match.results) - 1), f"round {i}: the match must end exactly when a side reaches {target}"
    assert match.winner == totals.index(max(totals))


@settings(PROPERTY, max_examples=40)
@given(match_specs())
def test_each_round_is_led_as_section_1_4_says(spec):
    record, match = simulated(spec)
    rules = record.rule_set()
    leaders = verify(record).leaders
    for r, recorded in enumerate(record.rounds):
        hands = recorded.deal.hands
        previous = match.results[r - 1] if r else None
        if previous is None or previous.winner is None:
            held = [t for hand in hands for t in tiles_in(hand)]
            doubles = [t for t in held if LOW[t] == HIGH[t]]
            lead = max(doubles) if doubles else max(held, key=lambda t: (PIPS[t], HIGH[t]))
            leader = next(s for s, hand in enumerate(hands) if hand >> lead & 1)
            assert recorded.actions[0].move == OPEN[lead], f"round {r} must be led with {NAMES[lead]}"
        elif not rules.teams:
            leader = previous.winner
        elif previous.reason == "domino":
            leader = previous.last_seat
        else:
            leader = min(rules.seats_of(previous.winner), key=lambda s: (pip_total(previous.hands[s]), s))
        assert leaders[r] == leader, f"round {r}"
        assert recorded.actions[0].seat == leader, f"round {r}"


# --- the record ------------------------------------------------------------------------


@settings(PROPERTY, max_examples=50)
@given(match_specs())
def test_a_simulated_match_record_verifies_with_the_engines_results(spec):
    record, match = simulated(spec)
    assert match.winner is not None
    verdict = verify(record)
    assert verdict.valid, verdict.to_json()
    assert verdict.to_json() == {
        "valid": True,
        "complete": True,
        "rounds": [{"reason": r.reason, "winner": r.winner, "points": r.points, "scores": list(r.scores)}
                   for r in match.results],
        "scores": list(match.scores),
        "winner": match.winner,
    }


@settings(PROPERTY, max_examples=40)
@given(match_specs())
def test_a_record_survives_a_dumps_loads_round_trip_unchanged(spec):
    record, _ = simulated(spec)
    text = dumps(record)
    again = loads(text)
    assert to_json(again) == to_json(record)
    assert dumps(again) == text
    assert [r.deal for r in again.rounds] == [r.deal for r in record.rounds]
    assert [r.actions for r in again.rounds] == [r.actions for r in record.rounds]
    assert verify(again).to_json() == verify(record).to_json()


@settings(PROPERTY, max_examples=20)
@given(match_specs(strategies=(("greedy",),)))
def test_marking_every_auto_play_choice_as_a_timeout_keeps_the_record_valid(spec):
    """The greedy bot plays exactly the §1.6 choice, so each of its actions may be a timeout."""
    record, match = simulated(spec)
    data = to_json(record)
    for rnd in data["rounds"]:
        for action in rnd["actions"]:
            action["timeout"] = True
    verdict = verify(from_json(data))
    assert verdict.valid, verdict.to_json()
    assert verdict.match.scores == match.scores


# --- single-action mutations are refused exactly where they break the rules -------------


@settings(PROPERTY, max_examples=40)
@given(match_specs(), st.data())
def test_an_action_by_the_wrong_seat_is_refused_at_that_action(spec, data):
    record, _ = simulated(spec)
    seats = len(record.seats)
    r, a, _, action = choose(data, list(replay(record)), "position")
    wrong = data.draw(st.sampled_from([s for s in range(seats) if s != action.seat]), label="seat")
    mutated = to_json(record)
    mutated["rounds"][r]["actions"][a]["seat"] = wrong
    assert fault_of(mutated) == (r, a)


@settings(PROPERTY, max_examples=40)
@given(match_specs(), st.data())
def test_playing_a_tile_the_seat_does_not_hold_is_refused_at_that_action(spec, data):
    record, _ = simulated(spec)
    plays = [p for p in replay(record) if p[3].move.kind == "play"]
    r, a, match, _ = choose(data, plays, "position")
    hand = match.round.hands[match.round.turn]
    tile = data.draw(st.sampled_from([t for t in range(28) if not hand >> t & 1]), label="tile")
    mutated = to_json(record)
    mutated["rounds"][r]["actions"][a]["play"] = NAMES[tile]
    assert fault_of(mutated) == (r, a)


@settings(PROPERTY, max_examples=30)
@given(match_specs(variants=(("draw-2", None),)), st.data())
def test_drawing_while_able_to_play_is_refused_at_that_action(spec, data):
    record, _ = simulated(spec)
    plays = [p for p in replay(record) if p[3].move.kind == "play" and p[2].round.boneyard_left > 0]
    r, a, match, action = choose(data, plays, "position")
    rnd = match.round
    mutated = to_json(record)
    mutated["rounds"][r]["actions"][a] = {"seat": action.seat, "draw": NAMES[rnd.boneyard[rnd.drawn]]}
    assert fault_of(mutated) == (r, a)


@settings(PROPERTY, max_examples=40)
@given(match_specs(), st.data())
def test_passing_while_able_to_play_is_refused_at_that_action(spec, data):
    record, _ = simulated(spec)
    plays = [p for p in replay(record) if p[3].move.kind == "play"]
    r, a, _, action = choose(data, plays, "position")
    mutated = to_json(record)
    mutated["rounds"][r]["actions"][a] = {"seat": action.seat, "pass": True}
    assert fault_of(mutated) == (r, a)


@settings(PROPERTY, max_examples=30)
@given(match_specs(variants=(("draw-2", None),)), st.data())
def test_passing_while_the_boneyard_has_tiles_is_refused_at_that_action(spec, data):
    record, _ = simulated(spec)
    draws = [p for p in replay(record) if p[3].move.kind == "draw"]
    r, a, _, action = choose(data, draws, "position")
    mutated = to_json(record)
    mutated["rounds"][r]["actions"][a] = {"seat": action.seat, "pass": True}
    assert fault_of(mutated) == (r, a)


@settings(PROPERTY, max_examples=30)
@given(match_specs(variants=VARIANTS[1:]), st.data())
def test_drawing_in_a_block_game_is_refused_at_that_action(spec, data):
    record, _ = simulated(spec)
    passes = [p for p in replay(record) if p[3].move.kind == "pass"]
    r, a, _, action = choose(data, passes, "position")
    tile = data.draw(st.sampled_from(NAMES), label="tile")
    mutated = to_json(record)
    mutated["rounds"][r]["actions"][a] = {"seat": action.seat, "draw": tile}
    assert fault_of(mutated) == (r, a)


@settings(PROPERTY, max_examples=40)
@given(match_specs(), st.data())
def test_a_play_on_the_wrong_end_is_refused_at_that_action(spec, data):
    record, _ = simulated(spec)

    def only_fits_its_own_end(p):
        _, _, match, action = p
        move, rnd = action.move, match.round
        if move.kind != "play" or move.end is None:
            return False
        other = rnd.right if move.end == LEFT else rnd.left
        return not fits(move.tile, other)

    r, a, _, action = choose(data, [p for p in replay(record) if only_fits_its_own_end(p)], "position")
    mutated = to_json(record)
    mutated["rounds"][r]["actions"][a]["end"] = END_NAMES[RIGHT if action.move.end == LEFT else LEFT]
    assert fault_of(mutated) == (r, a)


@settings(PROPERTY, max_examples=40)
@given(match_specs(), st.data())
def test_a_later_play_without_an_end_is_refused_at_that_action(spec, data):
    record, _ = simulated(spec)
    plays = [p for p in replay(record) if p[3].move.kind == "play" and p[3].move.end is not None]
    r, a, _, _ = choose(data, plays, "position")
    mutated = to_json(record)
    del mutated["rounds"][r]["actions"][a]["end"]
    assert fault_of(mutated) == (r, a)


@settings(PROPERTY, max_examples=30)
@given(match_specs(variants=(("draw-2", None),)), st.data())
def test_a_draw_naming_another_tile_than_the_next_in_the_boneyard_is_refused_at_that_action(spec, data):
    record, _ = simulated(spec)
    draws = [p for p in replay(record) if p[3].move.kind == "draw"]
    r, a, _, action = choose(data, draws, "position")
    tile = data.draw(st.sampled_from([t for t in range(28) if t != action.drawn]), label="tile")
    mutated = to_json(record)
    mutated["rounds"][r]["actions"][a]["draw"] = NAMES[tile]
    assert fault_of(mutated) == (r, a)


@settings(PROPERTY, max_examples=30)
@given(match_specs(strategies=(("random",), ("random", "greedy"))), st.data())
def test_a_timeout_on_an_action_that_is_not_the_auto_play_choice_is_refused_at_that_action(spec, data):
    record, _ = simulated(spec)
    others = [p for p in replay(record) if p[3].move != timeout_move(p[2].round)]
    r, a, _, _ = choose(data, others, "position")
    mutated = to_json(record)
    mutated["rounds"][r]["actions"][a]["timeout"] = True
    assert fault_of(mutated) == (r, a)


@settings(PROPERTY, max_examples=40)
@given(match_specs(), st.data())
def test_an_action_after_the_round_ended_is_refused_at_that_new_action(spec, data):
    record, match = simulated(spec)
    r = data.draw(st.integers(0, len(record.rounds) - 1), label="round")
    hands = match.results[r].hands
    seat = data.draw(st.integers(0, len(record.seats) - 1), label="seat")
    extra = data.draw(st.sampled_from(
        [{"seat": seat, "pass": True}]
        + [{"seat": seat, "play": NAMES[t], "end": end} for t in tiles_in(hands[seat]) for end in END_NAMES]
    ), label="action")
    mutated = to_json(record)
    mutated["rounds"][r]["actions"].append(extra)
    assert fault_of(mutated) == (r, len(record.rounds[r].actions))


@settings(PROPERTY, max_examples=30)
@given(match_specs(), st.data())
def test_a_round_after_the_match_ended_is_refused_as_a_whole(spec, data):
    record, _ = simulated(spec)
    mutated = to_json(record)
    copied = copy.deepcopy(data.draw(st.sampled_from(mutated["rounds"]), label="round copied"))
    if data.draw(st.booleans(), label="without actions"):
        copied["actions"] = []
    mutated["rounds"].append(copied)
    assert fault_of(mutated) == (len(record.rounds), None)


@settings(PROPERTY, max_examples=30)
@given(match_specs(), st.data())
def test_a_round_that_stops_before_its_end_while_another_follows_is_refused_as_a_whole(spec, data):
    record, _ = simulated(spec)
    assume(len(record.rounds) > 1)
    r = data.draw(st.integers(0, len(record.rounds) - 2), label="round")
    keep = data.draw(st.integers(0, len(record.rounds[r].actions) - 1), label="actions kept")
    mutated = to_json(record)
    del mutated["rounds"][r]["actions"][keep:]
    assert fault_of(mutated) == (r, None)


# A deal is broken on the JSON of one round; `fairness` is removed unless the example keeps it,
# so the deal's own shape is what the verifier must catch (with it, the seeds catch it too).


def deal_piles(rnd: dict) -> list[list]:
    """The round's lists of tiles: each hand, then the boneyard (draw-2)."""
    return rnd["hands"] + ([rnd["boneyard"]] if "boneyard" in rnd else [])


def break_deal_and_check(record, data, breaker):
    r = data.draw(st.integers(0, len(record.rounds) - 1), label="round")
    mutated = to_json(record)
    if not data.draw(st.booleans(), label="keep fairness"):
        del mutated["fairness"]
    breaker(mutated["rounds"][r])
    assert fault_of(mutated) == (r, None)


@settings(PROPERTY, max_examples=40)
@given(match_specs(), st.data())
def test_a_deal_holding_a_tile_twice_is_refused_as_a_whole(spec, data):
    record, _ = simulated(spec)

    def duplicate(rnd):
        piles = deal_piles(rnd)
        everywhere = [t for pile in piles for t in pile] + ([rnd["set_aside"]] if "set_aside" in rnd else [])
        pile = data.draw(st.sampled_from([p for p in piles if p]), label="pile")
        i = data.draw(st.integers(0, len(pile) - 1), label="slot")
        pile[i] = data.draw(st.sampled_from([t for t in everywhere if t != pile[i]]), label="copied tile")

    break_deal_and_check(record, data, duplicate)


@settings(PROPERTY, max_examples=30)
@given(match_specs(variants=(("block-3", None),)), st.data())
def test_a_set_aside_tile_also_dealt_to_a_hand_is_refused_as_a_whole(spec, data):
    record, _ = simulated(spec)

    def duplicate(rnd):
        hand = data.draw(st.sampled_from(rnd["hands"]), label="hand")
        rnd["set_aside"] = data.draw(st.sampled_from(hand), label="tile")

    break_deal_and_check(record, data, duplicate)


@settings(PROPERTY, max_examples=40)
@given(match_specs(), st.data())
def test_a_deal_with_a_wrong_hand_size_is_refused_as_a_whole(spec, data):
    record, _ = simulated(spec)

    def resize(rnd):
        piles = deal_piles(rnd)
        how = data.draw(st.sampled_from(["move", "drop"]), label="how")
        seat = data.draw(st.integers(0, len(rnd["hands"]) - 1), label="seat")
        hand = rnd["hands"][seat]
        if how == "drop":
            hand.pop(data.draw(st.integers(0, len(hand) - 1), label="slot"))
        else:
            source = data.draw(st.sampled_from([p for p in piles if p is not hand and p]), label="from")
            hand.append(source.pop(data.draw(st.integers(0, len(source) - 1), label="slot")))

    break_deal_and_check(record, data, resize)


@settings(PROPERTY, max_examples=30)
@given(match_specs(), st.data())
def test_a_deal_that_is_not_the_one_the_revealed_seeds_give_is_refused_as_a_whole(spec, data):
    """Swapping two tiles between piles keeps the deal's shape; the revealed seeds catch it."""
    record, _ = simulated(spec)
    r = data.draw(st.integers(0, len(record.rounds) - 1), label="round")
    mutated = to_json(record)
    rnd = mutated["rounds"][r]
    piles = deal_piles(rnd)
    i, j = data.draw(st.lists(st.integers(0, len(piles) - 1), min_size=2, max_size=2, unique=True), label="piles")
    x = data.draw(st.integers(0, len(piles[i]) - 1), label="slot i")
    y = data.draw(st.integers(0, len(piles[j]) - 1), label="slot j")
    piles[i][x], piles[j][y] = piles[j][y], piles[i][x]
    assert fault_of(mutated) == (r, None)
