"""Properties of whole simulated matches (docs/rules.md §1) and of their records (docs/record.md).

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
from services.audit.verify import round_json, verify
from services.match.record import dumps, from_json, loads, to_json
from services.rules.autoplay import timeout_move
from services.rules.errors import RulesError
from services.rules import registry
from services.rules.family import Family
from services.rules.match import apply, leads_by_chance, new_match, start_round
from services.rules.moves import (
    DOWN, DRAW, END_NAMES, LEFT, OPEN, PASS, PLAY_DOWN, PLAY_LEFT, PLAY_ON, PLAY_RIGHT, PLAY_UP, RIGHT, UP, legal_moves,
)
from services.rules.rulesets import rule_set
from services.rules.tiles import HIGH, LOW, NAMES, PIPS, pip_total, tiles_in
from services.rules.turns import step, take_turn
from services.rules.view import line_of
from tests.support.families import tables_of

# Repeatable in CI: the same examples on every run, no example database.
PROPERTY = settings(
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)

def specs_of(name: str) -> tuple[tuple, ...]:
    """Every variant and shape of the family, as the registry says, with its preset options:
    rule sets as simulate() takes them, (rules, variant, teams, seats, options)."""
    return tuple((t.family, t.variant, t.teams, t.seats, None) for t in tables_of(registry.family(name)))


EGYPTIAN, ALL_FIVES, CLASSIC, SPORTS = (specs_of(name) for name in ("egyptian", "all-fives", "classic", "sports"))
STRATEGIES = (("random",), ("greedy",), ("random", "greedy"), ("greedy", "random"))


def rule_sets_of(family: Family):
    """Every variant, seat shape and (for a family with host options) combination of options."""
    shapes = st.sampled_from(specs_of(family.name))
    if not family.options:
        return shapes
    options = st.fixed_dictionaries({o.name: st.sampled_from(o.values) for o in family.options})
    return st.builds(lambda spec, chosen: spec[:4] + (chosen,), shapes, options)


def goat_rule_sets():
    return rule_sets_of(registry.family("goat"))


def every_rule_set():
    return st.one_of(*(rule_sets_of(f) for f in registry.families()))


def match_specs(rule_sets=None, strategies=STRATEGIES):
    """(rule set, target choice, strategies, seed); the target is one of the rule set's own."""
    return st.tuples(every_rule_set() if rule_sets is None else rule_sets, st.integers(0, 4),
                     st.sampled_from(strategies), st.integers(0, 2**31))


def only(*rule_sets):
    return st.sampled_from(rule_sets)


def draw_games():
    """Rule sets with a boneyard to draw from in every round."""
    return st.one_of(only(EGYPTIAN[0], *(r for r in ALL_FIVES + CLASSIC if r[3] < 4 or r[0] == "classic")),
                     goat_rule_sets().filter(lambda r: r[3] < 4))


def simulated(spec):
    (rules, variant, teams, seats, options), choice, strategies, seed = spec
    targets = rule_set(rules, variant, teams, seats, options).targets
    target = targets[choice % len(targets)]
    note(f"simulate({variant!r}, {seed}, teams={teams}, target={target}, strategies={strategies}, rules={rules!r}, "
         f"seats={seats}, options={options})")
    return simulate(variant, seed, teams=teams, target=target, strategies=strategies, rules=rules, seats=seats,
                    options=options)


def replay(record):
    """(round index, action index, match before the action, recorded action), in order."""
    rules = record.rule_set()
    match = new_match(rules, record.target)
    for r, recorded in enumerate(record.rounds):
        chance = recorded.leader if leads_by_chance(match) else -1
        match = start_round(match, recorded.deal._replace(chance=chance))
        for a, action in enumerate(recorded.actions):
            yield r, a, match, action
            match = apply(match, action.move)


def later_plays(record):
    """The replay's positions whose recorded action is a play naming an end."""
    return [p for p in replay(record) if p[3].move.kind == "play" and p[3].move.end is not None]


def snapshot(rnd):
    spinner = (rnd.up, rnd.down, rnd.spinner, rnd.pending, rnd.values, rnd.total, rnd.play_points, rnd.made) \
        if rnd.four_ends else ()
    return (tuple(rnd.hands), rnd.held, rnd.boneyard, rnd.drawn, rnd.set_aside, rnd.left, rnd.right, rnd.turn,
            rnd.lead, rnd.history, rnd.outcome, spinner)


def fits(tile, number):
    return number in (LOW[tile], HIGH[tile])


def every_move():
    return set(OPEN) | set(PLAY_LEFT) | set(PLAY_RIGHT) | set(PLAY_UP) | set(PLAY_DOWN) | {DRAW, PASS}


def open_ends(rnd) -> dict[int, int]:
    """end -> the number showing on it, for every end a tile may be played on."""
    ends = {LEFT: rnd.left, RIGHT: rnd.right}
    if rnd.four_ends and rnd.up >= 0:
        ends.update({UP: rnd.up, DOWN: rnd.down})
    return ends


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
def test_legal_moves_are_exactly_the_moves_a_turn_allows(spec):
    """An independent reading of "A turn": must play a fitting tile (on every open end it
    fits); else draw while the boneyard has tiles; else pass. The first play is the
    required lead tile, or any tile of the leader's hand that may lead (not Classic's 0-0)."""
    record, _ = simulated(spec)
    for r, a, match, _ in replay(record):
        rnd = match.round
        hand = rnd.hands[rnd.turn]
        if rnd.left < 0:
            may_lead = [t for t in tiles_in(hand) if not (match.rules.family == "classic" and t == 0)]
            expected = {OPEN[rnd.lead]} if rnd.lead >= 0 else {OPEN[t] for t in may_lead}
        else:
            expected = {PLAY_ON[end][t] for end, number in open_ends(rnd).items() for t in tiles_in(hand)
                        if fits(t, number)}
            if not expected:
                expected = {DRAW} if rnd.drawn < len(rnd.boneyard) else {PASS}
        moves = legal_moves(rnd)
        assert len(set(moves)) == len(moves), f"round {r} action {a}: a move is offered twice"
        assert set(moves) == expected, f"round {r} action {a}"


@settings(PROPERTY, max_examples=15)
@given(match_specs())
def test_every_move_legal_moves_does_not_offer_is_rejected_and_changes_nothing(spec):
    """All other plays (every tile, every end, and without an end), draw and pass. The
    round's first play naming an end is left to its own test below."""
    record, _ = simulated(spec)
    for r, a, match, _ in replay(record):
        rnd = match.round
        before = snapshot(rnd)
        illegal = every_move() - set(legal_moves(rnd))
        if rnd.left < 0:
            illegal -= {end_move[m.tile] for m in legal_moves(rnd) for end_move in PLAY_ON}
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
    """legal_moves offers the opening only without an end (docs/record.md: `end` on every play
    but the round's first), so take_turn must refuse it with one."""
    record, _ = simulated(spec)
    for r, a, match, _ in replay(record):
        rnd = match.round
        if rnd.left >= 0:
            continue
        for move in legal_moves(rnd):
            for with_end in (end_move[move.tile] for end_move in PLAY_ON):
                try:
                    take_turn(rnd, with_end, seat=rnd.turn)
                except RulesError:
                    continue
                raise AssertionError(f"round {r}: take_turn accepted the opening {with_end}, which legal_moves "
                                     f"does not offer (it offers {[str(m) for m in legal_moves(rnd)]})")


@settings(PROPERTY, max_examples=40)
@given(match_specs(only(*EGYPTIAN)))
def test_each_egyptian_round_is_scored_as_section_1_5_says(spec):
    """A domino wins for the side that went out; blocked, the lowest side total wins and a
    shared lowest ties; the winner scores the other sides' pips; the match ends in the
    round a side reaches the target."""
    record, match = simulated(spec)
    target = record.target
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
@given(match_specs(only(*EGYPTIAN)))
def test_each_egyptian_round_is_led_as_section_1_4_says(spec):
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
    assert match.over
    verdict = verify(record)
    assert verdict.valid, verdict.to_json()
    expected = {
        "valid": True,
        "complete": True,
        "rounds": [round_json(record.rules, r) for r in match.results],
        "scores": list(match.scores),
        "winner": match.winner,
    }
    if record.rules == "goat":
        expected["goats"] = list(match.goats)
    assert verdict.to_json() == expected


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
@given(match_specs(draw_games()), st.data())
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
@given(match_specs(draw_games()), st.data())
def test_passing_while_the_boneyard_has_tiles_is_refused_at_that_action(spec, data):
    record, _ = simulated(spec)
    draws = [p for p in replay(record) if p[3].move.kind == "draw"]
    r, a, _, action = choose(data, draws, "position")
    mutated = to_json(record)
    mutated["rounds"][r]["actions"][a] = {"seat": action.seat, "pass": True}
    assert fault_of(mutated) == (r, a)


@settings(PROPERTY, max_examples=30)
@given(match_specs(), st.data())
def test_drawing_with_an_empty_or_no_boneyard_is_refused_at_that_action(spec, data):
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
    """Another end of the line that the tile does not fit, or (All Fives) a closed side of
    the spinner."""
    record, _ = simulated(spec)

    def wrong_ends(p):
        _, _, match, action = p
        move, rnd = action.move, match.round
        if move.kind != "play" or move.end is None:
            return []
        ends = open_ends(rnd)
        names = (LEFT, RIGHT, UP, DOWN) if rnd.four_ends else (LEFT, RIGHT)
        return [e for e in names if e != move.end and (e not in ends or not fits(move.tile, ends[e]))]

    position = choose(data, [p for p in replay(record) if wrong_ends(p)], "position")
    r, a, _, _ = position
    end = data.draw(st.sampled_from(wrong_ends(position)), label="end")
    mutated = to_json(record)
    mutated["rounds"][r]["actions"][a]["end"] = END_NAMES[end]
    assert fault_of(mutated) == (r, a)


@settings(PROPERTY, max_examples=40)
@given(match_specs(), st.data())
def test_a_later_play_without_an_end_is_refused_at_that_action(spec, data):
    record, _ = simulated(spec)
    r, a, _, _ = choose(data, later_plays(record), "position")
    mutated = to_json(record)
    del mutated["rounds"][r]["actions"][a]["end"]
    assert fault_of(mutated) == (r, a)


@settings(PROPERTY, max_examples=30)
@given(match_specs(draw_games()), st.data())
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
    r = choose(data, [i for i, rnd in enumerate(record.rounds[:-1]) if rnd.actions], "round")
    keep = data.draw(st.integers(0, len(record.rounds[r].actions) - 1), label="actions kept")
    mutated = to_json(record)
    del mutated["rounds"][r]["actions"][keep:]
    assert fault_of(mutated) == (r, None)


# A deal is broken on the JSON of one round; `fairness` is removed unless the example keeps it,
# so the deal's own shape is what the verifier must catch (with it, the seeds catch it too).


def deal_piles(rnd: dict) -> list[list]:
    """The round's lists of tiles: each hand, then the boneyard (when the record has one)."""
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
@given(match_specs(only(EGYPTIAN[1])), st.data())
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
    piles = [pile for pile in deal_piles(rnd) if pile]
    i, j = data.draw(st.lists(st.integers(0, len(piles) - 1), min_size=2, max_size=2, unique=True), label="piles")
    x = data.draw(st.integers(0, len(piles[i]) - 1), label="slot i")
    y = data.draw(st.integers(0, len(piles[j]) - 1), label="slot j")
    piles[i][x], piles[j][y] = piles[j][y], piles[i][x]
    assert fault_of(mutated) == (r, None)


# --- leaders, redeals and the four ends of All Fives -------------------------------------


@settings(PROPERTY, max_examples=40)
@given(match_specs(), st.data())
def test_a_wrong_leader_is_refused_as_a_fault_of_its_round(spec, data):
    """On a round the rules lead, any other seat; on a round led by chance, the seeds say who."""
    record, _ = simulated(spec)
    leaders = verify(record).leaders
    r = data.draw(st.integers(0, len(record.rounds) - 1), label="round")
    wrong = data.draw(st.sampled_from([s for s in range(len(record.seats)) if s != leaders[r]]), label="leader")
    mutated = to_json(record)
    mutated["rounds"][r]["leader"] = wrong
    assert fault_of(mutated) == (r, None)


@settings(PROPERTY, max_examples=30)
@given(match_specs(), st.data())
def test_a_leader_that_is_no_seat_is_refused_as_a_fault_of_its_round(spec, data):
    record, _ = simulated(spec)
    r = data.draw(st.integers(0, len(record.rounds) - 1), label="round")
    mutated = to_json(record)
    mutated["rounds"][r]["leader"] = data.draw(st.sampled_from([-1, len(record.seats), 99]), label="leader")
    if not data.draw(st.booleans(), label="keep fairness"):
        del mutated["fairness"]
    assert fault_of(mutated) == (r, None)


@settings(PROPERTY, max_examples=30)
@given(match_specs(only(*ALL_FIVES, *SPORTS)), st.data())
def test_a_missing_leader_on_a_round_led_by_chance_is_refused_as_a_fault_of_its_round(spec, data):
    record, _ = simulated(spec)
    by_chance = [0] + [r + 1 for r, res in enumerate(verify(record).match.results[:-1]) if res.winner is None]
    r = data.draw(st.sampled_from(by_chance), label="round")
    mutated = to_json(record)
    del mutated["rounds"][r]["leader"]
    if not data.draw(st.booleans(), label="keep fairness"):
        del mutated["fairness"]
    assert fault_of(mutated) == (r, None)


def goat_with_redeals():
    return goat_rule_sets().map(lambda g: g[:4] + ({**g[4], "redeal": True},))


@settings(PROPERTY, max_examples=40)
@given(match_specs(goat_with_redeals()), st.data())
def test_a_redealt_round_missing_or_false_redeal_is_refused_as_a_fault_of_its_round(spec, data):
    record, _ = simulated(spec)
    r = choose(data, [i for i, rnd in enumerate(record.rounds) if rnd.redeal], "redealt round")
    mutated = to_json(record)
    if data.draw(st.booleans(), label="delete"):
        del mutated["rounds"][r]["redeal"]
    else:
        mutated["rounds"][r]["redeal"] = False
    assert fault_of(mutated) == (r, None)


@settings(PROPERTY, max_examples=40)
@given(match_specs(), st.data())
def test_redeal_on_a_round_the_rules_do_not_redeal_is_refused_as_a_fault_of_its_round(spec, data):
    """Outside Goat, with the option off, or on a deal that does not call for it."""
    record, _ = simulated(spec)
    r = choose(data, [i for i, rnd in enumerate(record.rounds) if not rnd.redeal], "round")
    mutated = to_json(record)
    mutated["rounds"][r]["redeal"] = True
    assert fault_of(mutated) == (r, None)


@settings(PROPERTY, max_examples=30)
@given(match_specs(goat_with_redeals()), st.data())
def test_an_action_in_a_redealt_round_is_refused_at_action_zero(spec, data):
    record, _ = simulated(spec)
    r = choose(data, [i for i, rnd in enumerate(record.rounds) if rnd.redeal], "redealt round")
    mutated = to_json(record)
    leader = verify(record).leaders[r]
    mutated["rounds"][r]["actions"] = [{"seat": leader, "play": NAMES[tiles_in(record.rounds[r].deal.hands[leader])[0]]}]
    assert fault_of(mutated) == (r, 0)


@settings(PROPERTY, max_examples=40)
@given(match_specs(only(*ALL_FIVES)), st.data())
def test_a_play_naming_up_or_down_before_the_spinner_opens_is_refused_at_that_action(spec, data):
    record, _ = simulated(spec)
    r, a, _, _ = choose(data, [p for p in later_plays(record) if p[2].round.up < 0], "position")
    mutated = to_json(record)
    mutated["rounds"][r]["actions"][a]["end"] = data.draw(st.sampled_from(["up", "down"]), label="end")
    assert fault_of(mutated) == (r, a)


@settings(PROPERTY, max_examples=30)
@given(match_specs(), st.data())
def test_an_end_the_family_does_not_have_is_refused_at_that_action(spec, data):
    """up and down outside All Fives, and names of no end at all, anywhere."""
    record, _ = simulated(spec)
    r, a, _, _ = choose(data, later_plays(record), "position")
    names = ["middle", "Left", "", "north"] + ([] if record.rules == "all-fives" else ["up", "down"])
    mutated = to_json(record)
    mutated["rounds"][r]["actions"][a]["end"] = data.draw(st.sampled_from(names), label="end")
    assert fault_of(mutated) == (r, a)


# --- every family's own scoring and leaders, read independently --------------------------


def ends_count(rnd_actions) -> int:
    """docs/rules.md "Counting the ends", from the tiles laid alone (view.line_of)."""
    plays = [m for _, m in rnd_actions if m.kind == "play"]
    if len(plays) == 1:
        return LOW[plays[0].tile] + HIGH[plays[0].tile]
    layout = line_of(rnd_actions, spinner=True)

    def outer(pair_pips, double):
        return pair_pips * 2 if double else pair_pips

    first, last = layout.line[0], layout.line[-1]
    total = outer(first[0], first[0] == first[1]) + outer(last[1], last[0] == last[1])
    for arm in (layout.up_line, layout.down_line):
        if arm:
            total += outer(arm[-1][1], arm[-1][0] == arm[-1][1])
    return total


@settings(PROPERTY, max_examples=40)
@given(match_specs(only(*ALL_FIVES)))
def test_every_all_fives_play_scores_its_open_ends_when_they_make_a_multiple_of_five(spec):
    record, match = simulated(spec)
    rules = record.rule_set()
    for i, recorded in enumerate(record.rounds):
        actions = [(a.seat, a.move) for a in recorded.actions]
        expected = []
        for n, (seat, move) in enumerate(actions):
            if move.kind == "play":
                total = ends_count(actions[: n + 1])
                if total and total % 5 == 0:
                    expected.append((n, rules.side_of(seat), total))
        assert list(match.results[i].extras.play_points) == expected, f"round {i}"


@settings(PROPERTY, max_examples=40)
@given(match_specs(only(*ALL_FIVES, *CLASSIC, *SPORTS)))
def test_each_round_of_the_other_point_games_scores_as_its_family_says(spec):
    record, match = simulated(spec)
    rules = record.rule_set()
    totals = [0] * rules.sides
    for i, res in enumerate(match.results):
        value = (lambda h: 25 if h == 1 else pip_total(h)) if record.rules == "classic" else pip_total
        sides = [0] * rules.sides
        for seat, hand in enumerate(res.hands):
            sides[rules.side_of(seat)] += value(hand)
        lowest = min(sides)
        winner = rules.side_of(res.last_seat) if res.reason == "domino" else (
            None if sides.count(lowest) > 1 else sides.index(lowest))
        others = 0 if winner is None else sum(sides) - sides[winner]
        points = {"all-fives": (others + 2) // 5 * 5, "sports": sum(sides),
                  "classic": others - (sides[winner] if res.reason == "blocked" and winner is not None else 0)}
        assert (res.winner, res.points) == (winner, 0 if winner is None else points[record.rules]), f"round {i}"
        for _, side, p in res.extras.play_points if res.extras else ():
            totals[side] += p
        if winner is not None:
            totals[winner] += res.points
        assert list(res.scores) == totals, f"round {i}"
        top = max(totals)
        decided = top >= record.target and totals.count(top) == 1
        assert decided == (i == len(match.results) - 1), f"round {i}: the match ends once one side leads past the target"
    assert match.winner == totals.index(max(totals))


@settings(PROPERTY, max_examples=60)
@given(match_specs(goat_rule_sets()))
def test_goat_writes_only_what_its_options_allow_and_ends_at_101(spec):
    record, match = simulated(spec)
    options = record.options
    totals = [0] * len(match.scores)
    for i, result in enumerate(match.results):
        res = result.extras  # GoatRound
        assert len(res.written) == len(totals)
        if result.reason == "redeal":
            assert options["redeal"] and not any(res.written), f"round {i}"
        if not options["remembered"]:
            assert not any(res.remembered), f"round {i}"
        if options["fish"] == "all":
            assert res.pot == 0, f"round {i}"
        totals = [t + w for t, w in zip(totals, res.written)]
        assert list(result.scores) == totals and result.points == sum(res.written), f"round {i}"
        assert (max(totals) >= 101) == (i == len(match.results) - 1), f"round {i}"
    top, low = max(totals), min(totals)
    assert match.goats == tuple(s for s, t in enumerate(totals) if t == top)
    assert match.winner == (totals.index(low) if totals.count(low) == 1 else None)


@settings(PROPERTY, max_examples=40)
@given(match_specs(only(*ALL_FIVES, *CLASSIC, *SPORTS) | goat_rule_sets()))
def test_each_round_of_the_other_families_is_led_as_its_family_says(spec):
    """Goat: the round-1 tile of the variant, then who went out or fished; Classic: the
    highest double but 0-0, then the winner; All Fives and Sports: chance, then the winner
    (teams: who went out, or the winning partner with fewer pips)."""
    record, match = simulated(spec)
    rules = record.rule_set()
    leaders = verify(record).leaders
    goat_orders = {"gamezz": [0, 27, 25, 22, 18, 13, 7], "koza": [7, 13, 18, 22, 25, 27, 0]}
    for r, recorded in enumerate(record.rounds):
        hands = recorded.deal.hands
        held = [t for hand in hands for t in tiles_in(hand)]
        previous = next((res for res in reversed(match.results[:r]) if res.reason != "redeal"), None)
        if record.rules == "goat":
            if previous is None:
                lead = next((t for t in goat_orders[record.variant] if t in held), None)
                if lead is None:
                    lead = max(held, key=lambda t: (PIPS[t], HIGH[t]))
                leader = next(s for s, hand in enumerate(hands) if hand >> lead & 1)
                if recorded.actions:
                    assert recorded.actions[0].move == OPEN[lead], f"round {r} must be led with {NAMES[lead]}"
            else:
                leader = previous.last_seat
        elif previous is None or previous.winner is None:
            if record.rules == "classic":
                doubles = [t for t in held if LOW[t] == HIGH[t] and t != 0]
                lead = max(doubles) if doubles else max((t for t in held if t != 0), key=lambda t: (PIPS[t], HIGH[t]))
                leader = next(s for s, hand in enumerate(hands) if hand >> lead & 1)
                assert recorded.actions[0].move == OPEN[lead], f"round {r} must be led with {NAMES[lead]}"
            else:
                leader = recorded.leader  # chance: the seeds' draw, checked by verify
        elif not rules.teams:
            leader = previous.winner
        elif previous.reason == "domino":
            leader = previous.last_seat
        else:
            leader = min(rules.seats_of(previous.winner), key=lambda s: (pip_total(previous.hands[s]), s))
        assert leaders[r] == leader, f"round {r}"
        if recorded.actions:
            assert recorded.actions[0].seat == leader, f"round {r}"
        if record.rules == "classic":
            assert recorded.actions[0].move != OPEN[0], f"round {r}: 0-0 never leads"
