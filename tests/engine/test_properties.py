"""Property-based tests over random legal play, for 2, 3 and 4 players and random options."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gotown.engine import (
    CODES,
    Action,
    Game,
    GoTownError,
    IllegalActionError,
    InvalidActionError,
    Record,
    View,
    format_action,
    parse_action,
)
from gotown.engine.views import Event

from . import oracle
from .helpers import FULL_DECK, REPO_ROOT, kind_counts

# -- strategies ----------------------------------------------------------------------------
options_st = st.fixed_dictionaries(
    {},
    optional={
        "win_floors": st.sampled_from([4, 5]),
        "first_player": st.sampled_from(["random", 0, 1]),
        "dog_placement": st.sampled_from(["own", "any"]),
        "dogs_per_floor": st.sampled_from([1, "unlimited"]),
        "bone_targets": st.sampled_from(["opponents", "any"]),
        "milkshake_stacking": st.sampled_from(["forbid", "merge", "stack"]),
        "milkshake_blocks_refill": st.booleans(),
        "turn_limit": st.none() | st.integers(1, 40),
    },
)
players_st = st.sampled_from([2, 3, 4])
seed_st = st.integers(0, 2**32)


def _action_space() -> list[Action]:
    """Every well-formed action for up to 4 seats and 8 floors, legal or not."""
    space = [Action.build(a, b) for i, a in enumerate(CODES) for b in CODES[i:]]
    space += [Action.steal(c, t) for c in CODES for t in range(4)]
    space += [Action.dog(f, t) for f in range(8) for t in (None, 0, 1, 2, 3)]
    space += [Action.bone(t, f) for t in range(4) for f in range(8)]
    for make in (Action.jackhammer, Action.wrecking_ball, Action.thief, Action.milkshake):
        space += [make(t) for t in range(4)]
    space += [Action.super_thief(), Action.donut_truck(), Action.end_turn()]
    return space


ACTION_SPACE = _action_space()
action_st = st.sampled_from(ACTION_SPACE)


def random_game(players: int, seed: int, options: dict[str, Any], picks: int, steps: int) -> Game:
    """A game played with uniformly random legal actions (choices from ``picks``)."""
    g = Game.new(players=players, seed=seed, options=options)
    rng = random.Random(picks)
    for _ in range(steps):
        if g.is_over:
            break
        g.apply(rng.choice(g.legal_actions()))
    return g


# -- invariants checked after every action -------------------------------------------------
def check_position(g: Game) -> None:
    assert g.card_count() == 54  # R3
    p = g.to_position()
    assert kind_counts(p) == FULL_DECK  # R2, R3: each kind keeps its count
    g2 = Game.from_position(json.loads(json.dumps(p)))
    assert g2 == g
    assert g2.to_position() == p
    legal = g.legal_actions()
    assert len(set(legal)) == len(legal)
    assert set(legal) == oracle.legal_actions(p), "the generator disagrees with RULES.md"
    if not g.is_over:
        assert Action.end_turn() in legal
        assert p["milkshakes"][g.active] == 0  # R7a: pending milkshakes never reach play
    for a in legal:
        assert Action.from_json(json.loads(json.dumps(a.to_json()))) == a
        assert parse_action(format_action(a)) == a
        assert g.normalize(a) == a


def check_transition(before: dict[str, Any], action: Action, g: Game) -> None:
    """The action did what RULES.md says (an independent statement in oracle.apply)."""
    after = g.to_position()
    expected = oracle.apply(before, action)
    if expected is not None:
        assert oracle.same_position(after, expected), (action, before, after)
        return
    me = before["active"]
    if action.type in ("thief", "super-thief"):  # R16, R17
        victims = (
            [action.target]
            if action.type == "thief"
            else [s for s in range(g.players) if s != me and before["hands"][s]]
        )
        assert after["discard"] == [*before["discard"], action.type]
        for s in range(g.players):
            lost = Counter(before["hands"][s]) - Counter(after["hands"][s])
            if s in victims:
                assert sum(lost.values()) == 1 and len(after["hands"][s]) + 1 == len(
                    before["hands"][s]
                )
            elif s != me:
                assert after["hands"][s] == before["hands"][s]
        gained = Counter(after["hands"][me]) - Counter(before["hands"][me])
        assert sum(gained.values()) <= len(victims)
        assert len(after["hands"][me]) == len(before["hands"][me]) - 1 + len(victims)
        assert after["towers"] == before["towers"] and after["draw"] == before["draw"]
    else:  # end of turn (R8, R9, R7, R20b)
        assert action.type == "end-turn"
        if g.outcome() == (None, "stalemate"):  # the game ended where nothing could change
            assert oracle.is_stalemate(after), (before, after)
        if oracle.is_stalemate(before):  # only "end" was legal, and ending changed nothing
            assert g.outcome() == (None, "stalemate"), (before, after)
        assert after["towers"] == before["towers"]
        assert len(after["hands"][me]) >= min(3, len(before["hands"][me]))
        if not before["donut"] and not after.get("over"):
            assert after["active"] != me or g.players == 2 or after["turn"] > before["turn"] + 1
        assert after["turn"] > before["turn"] or after.get("over")


def check_refused(g: Game, action: Action) -> None:
    before = g.to_position()
    version, events = g.version, g.event_count
    try:
        g.apply(action)
    except IllegalActionError as exc:
        assert exc.rule.startswith("R") and exc.rule[1:].isdigit()
        if not g.is_over:
            # the explanation found a real reason (not the generic fallback)
            assert not exc.reason.endswith("is not legal now"), exc
    except InvalidActionError:
        pass
    else:
        raise AssertionError(f"{action} was accepted but is not among the legal actions")
    assert g.to_position() == before
    assert (g.version, g.event_count) == (version, events)


@settings(max_examples=150)
@given(players_st, seed_st, options_st, st.integers(0, 2**32), st.lists(action_st, max_size=40))
def test_random_play_keeps_every_invariant(
    players: int, seed: int, options: dict[str, Any], picks: int, probes: list[Action]
) -> None:
    g = Game.new(players=players, seed=seed, options=options)
    rng = random.Random(picks)
    check_position(g)
    for step in range(160):
        if g.is_over:
            break
        legal = g.legal_actions()
        legal_set = set(legal)
        # illegal actions from the whole action space are refused, the game unchanged
        for probe in probes[step % 8 :: 8]:
            try:
                normal = g.normalize(probe)
            except InvalidActionError:
                normal = None
            assert g.is_legal(probe) == (normal in legal_set)
            if normal not in legal_set:
                check_refused(g, probe)
        action = rng.choice(legal)
        before = g.to_position()
        fast = g.copy(history=False)
        g.apply(action)  # every legal action applies
        fast.apply_unchecked(action)  # the search fast path does the same
        assert fast == g
        assert g.to_position() != before or action.type == "end-turn"
        check_position(g)
        check_transition(before, action, g)
    if g.is_over:
        outcome = g.outcome()
        assert outcome is not None and g.legal_actions() == ()
        if outcome.reason == "win":
            assert len(g.towers[outcome.winner]) == g.options.win_floors  # type: ignore[index]
        else:
            assert g.options.turn_limit == g.turn and outcome.winner is None
        for probe in probes[:5]:
            check_refused(g, probe)
    check_record_and_views(g)


def check_record_and_views(g: Game) -> None:
    record = Record.of(g)
    assert record.replay() == g
    data = json.loads(json.dumps(record.to_json()))
    again = Record.from_json(data)
    assert again == record
    assert again.replay() == g
    assert again.replay().to_position() == g.to_position()
    for seat in [None, *range(g.players)]:
        view = g.view(seat)
        assert View.from_json(json.loads(json.dumps(view.to_json()))) == view
        for event in view.events:
            assert Event.from_json(event.to_json()) == event


@settings(max_examples=60)
@given(players_st, seed_st, options_st, st.integers(0, 2**32))
def test_a_full_sweep_of_the_action_space_agrees_with_legal_actions(
    players: int, seed: int, options: dict[str, Any], picks: int
) -> None:
    g = random_game(players, seed, options, picks, random.Random(picks).randrange(0, 60))
    legal_set = set(g.legal_actions())
    for action in ACTION_SPACE:
        if action.target is not None and action.target >= players:
            assert not g.is_legal(action)
            continue
        if g.is_legal(action):
            assert g.normalize(action) in legal_set
            copy = g.copy()
            copy.apply(action)
            assert copy.card_count() == 54
        else:
            check_refused(g, action)


# -- determinism ---------------------------------------------------------------------------
@settings(max_examples=20)
@given(players_st, seed_st, options_st, st.integers(0, 2**32))
def test_same_seed_and_actions_give_the_same_game(
    players: int, seed: int, options: dict[str, Any], picks: int
) -> None:
    g = random_game(players, seed, options, picks, 120)
    h = Game.new(players=players, seed=seed, options=options)
    for action in g.actions:
        h.apply(action)
    assert h == g and h.to_position() == g.to_position()
    assert [e.to_json() for e in h.events(None)] == [e.to_json() for e in g.events(None)]
    # copies play on independently and identically
    c = g.copy()
    if not g.is_over:
        a = g.legal_actions()[-1]
        c.apply(a)
        assert c != g or a.type == "end-turn"
        g.apply(a)
        assert c == g


_SCRIPT = """
import json, random, sys
from gotown.engine import Game
out = []
for players in (2, 3, 4):
    g = Game.new(players=players, seed=12345 + players, options={"turn_limit": 60})
    rng = random.Random(players)
    while not g.is_over:
        g.apply(rng.choice(g.legal_actions()))
    out.append(g.to_position())
print(json.dumps(out))
"""


def test_determinism_across_processes_with_different_hash_seeds() -> None:
    outputs = []
    for hash_seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run(
            [sys.executable, "-c", _SCRIPT], capture_output=True, text=True, env=env,
            cwd=REPO_ROOT, check=True,
        )  # fmt: skip
        outputs.append(json.loads(done.stdout))
    assert outputs[0] == outputs[1] == outputs[2]
    namespace: dict[str, Any] = {}
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()) as buf:
        exec(_SCRIPT, namespace)
    assert json.loads(buf.getvalue()) == outputs[0]


# -- no leak of hidden information (R22) ---------------------------------------------------
def _shuffle_hidden(g: Game, seat: int, rng: random.Random) -> Game:
    """The same game as ``seat`` sees it: the other hands and the draw pile reshuffled among
    themselves, keeping every size."""
    p = g.to_position()
    others = [s for s in range(g.players) if s != seat]
    pool = [c for s in others for c in p["hands"][s]] + p["draw"]
    rng.shuffle(pool)
    for s in others:
        size = len(p["hands"][s])
        p["hands"][s], pool = pool[:size], pool[size:]
    p["draw"] = pool
    return Game.from_position(p)


def _public_part(view: View) -> dict[str, Any]:
    data = view.to_json()
    del data["events"], data["version"]  # from history / a counter, not from the cards
    # Every hand is laid down once the game is over (R22), and never before.
    assert (data.pop("hands") is not None) == view.over
    return data


@settings(max_examples=60)
@given(players_st, seed_st, options_st, st.integers(0, 2**32), st.integers(0, 2**32))
def test_a_view_does_not_depend_on_what_the_seat_cannot_see(
    players: int, seed: int, options: dict[str, Any], picks: int, shuffle: int
) -> None:
    g = random_game(players, seed, options, picks, random.Random(picks).randrange(0, 80))
    rng = random.Random(shuffle)
    for seat in range(players):
        view = _public_part(g.view(seat))
        for _ in range(3):
            other = _shuffle_hidden(g, seat, rng)
            assert _public_part(other.view(seat)) == view
    public = _public_part(g.public_view())
    assert _public_part(_shuffle_hidden(g, 0, rng).public_view())["towers"] == public["towers"]


@settings(max_examples=60)
@given(players_st, seed_st, options_st, st.integers(0, 2**32))
def test_events_never_show_a_card_the_seat_may_not_see(
    players: int, seed: int, options: dict[str, Any], picks: int
) -> None:
    g = random_game(players, seed, options, picks, 200)
    raw = g._events  # the raw history, with every card
    for seat in [None, *range(players)]:
        events = g.events(seat)
        assert len(events) == len(raw)
        for event, truth in zip(events, raw, strict=True):
            assert event.type == truth[0]
            if truth[0] == "draw":
                drawer, card = truth[1], CODES[truth[2]]
                assert event.seat == drawer
                assert event.card == (card if seat == drawer else None)
            elif truth[0] == "stolen":
                thief, victim, card = truth[1], truth[2], CODES[truth[3]]
                assert (event.seat, event.victim) == (thief, victim)
                assert event.card == (card if seat in (thief, victim) else None)
            else:
                # no other event type carries a hidden card
                assert event.card is None
        # the view's events are exactly these, in JSON too
        assert [e.to_json() for e in g.view(seat).events] == [e.to_json() for e in events]
        if seat is not None:
            hidden_draws = sum(1 for t in raw if t[0] == "draw" and t[1] != seat)
            shown = sum(1 for e in events if e.type == "draw" and e.card is not None)
            assert shown == sum(1 for t in raw if t[0] == "draw") - hidden_draws


def test_a_draw_by_another_seat_and_a_theft_between_two_others_stay_hidden() -> None:
    g = Game.from_position(
        {"players": 3, "active": 0, "hands": [["thief"], ["7"], ["2"]],
         "towers": [[], [], []], "draw": ["5", "6", "8", "1", "4"]}
    )  # fmt: skip
    g.apply(Action.thief(1))
    g.apply(Action.end_turn())
    dump2 = json.dumps(g.view(2).to_json()["events"])
    assert '"7"' not in dump2  # seat 2 did not see the stolen 7
    assert '"5"' not in dump2 and '"6"' not in dump2  # nor seat 0's refill draws
    assert '"8"' not in dump2  # nor seat 1's start draw
    dump1 = json.dumps(g.view(1).to_json()["events"])
    assert '"7"' in dump1 and '"8"' in dump1 and '"5"' not in dump1


def test_events_and_views_refuse_what_only_looks_like_a_seat() -> None:
    # True == 1 and 1.0 == 1 in Python: compared as equals they would be seat 1, and be shown
    # its draws and the card it lost (R22). They are refused, as views refuse them.
    g = Game.new(3, seed=5)
    g.apply(Action.end_turn())
    g.apply(Action.end_turn())
    assert any(e.type == "draw" and e.seat == 1 and e.card for e in g.events(1))
    for bad in (True, 1.0, "1", -1, 3):
        with pytest.raises(InvalidActionError, match="does not exist"):
            g.events(bad)  # type: ignore[arg-type]
        with pytest.raises(InvalidActionError, match="does not exist"):
            g.view(bad)  # type: ignore[arg-type]


def test_gotown_errors_are_value_errors() -> None:
    assert issubclass(GoTownError, ValueError)


# -- determinisation: Game.from_view -------------------------------------------------------
@settings(max_examples=40)
@given(players_st, seed_st, options_st, st.integers(0, 2**32), st.integers(0, 2**32))
def test_from_view_rebuilds_the_game_from_a_view_and_a_guess(
    players: int, seed: int, options: dict[str, Any], picks: int, shuffle: int
) -> None:
    g = random_game(players, seed, options, picks, random.Random(picks).randrange(0, 150))
    p = g.to_position()
    seat = g.active
    view = g.view(seat)
    hands: list[Any] = [None if s == seat else p["hands"][s] for s in range(players)]
    same = Game.from_view(view, hands, p["draw"], seed=g.seed)
    assert same == g  # the true hidden cards give back the game (outcome included)
    guess = _shuffle_hidden(g, seat, random.Random(shuffle)).to_position()
    other = Game.from_view(
        view, [None if s == seat else guess["hands"][s] for s in range(players)], guess["draw"]
    )
    assert other.card_count() == 54 and kind_counts(other.to_position()) == FULL_DECK
    assert _public_part(other.view(seat)) == _public_part(view)


def test_from_view_refuses_impossible_guesses() -> None:
    g = Game.new(players=3, seed=5)
    p = g.to_position()
    view = g.view(g.active)
    for bad_hands, bad_draw in [
        ([None], p["draw"]),  # one hand per seat
        ([None, None, None], p["draw"]),  # the other hands are needed
        ([None if s == g.active else ["x"] * len(p["hands"][s]) for s in range(3)], p["draw"]),
        ([None if s == g.active else p["hands"][s] for s in range(3)], p["draw"][1:]),
        ([None if s == g.active else p["hands"][s] for s in range(3)], ["1"] * len(p["draw"])),
        ([None if s == g.active else p["hands"][s] for s in range(3)], [7] * len(p["draw"])),
    ]:
        with pytest.raises(GoTownError):
            Game.from_view(view, bad_hands, bad_draw)


# -- random positions (not only the ones random play reaches) ------------------------------
def random_position(players: int, options: dict[str, Any], seed: int) -> dict[str, Any]:
    """A valid FORMAT.md position with the 54 cards spread at random over every zone."""
    rng = random.Random(seed)
    opts = Game.new(2, 0, options).options
    deck = [c for c, k in FULL_DECK.items() for _ in range(k)]
    rng.shuffle(deck)
    active = rng.randrange(players)
    towers: list[list[list[str]]] = [[] for _ in range(players)]
    for seat in range(players):
        for _ in range(rng.randrange(opts.win_floors)):
            numbers = [c for c in deck if c not in ("?",) and c.isdigit()]
            if not numbers:
                break
            n = rng.choice(numbers)
            partners = [c for c in deck if c in (str(9 - int(n)), "?")]
            if not partners:
                continue
            deck.remove(n)
            partner = rng.choice(partners)
            deck.remove(partner)
            floor = [n, partner]
            dogs = rng.choice([0, 0, 1, 2, 3] if opts.unlimited_dogs else [0, 0, 1])
            for _ in range(min(dogs, deck.count("dog"))):
                deck.remove("dog")
                floor.append("dog")
            rng.shuffle(floor)
            towers[seat].append(floor)
    milkshakes = [0] * players
    for seat in range(players):
        if seat != active and "milkshake" in deck and rng.random() < 0.3:
            most = 1 if opts.milkshake_stacking == "forbid" else deck.count("milkshake")
            count = rng.randint(1, most)
            for _ in range(count):
                deck.remove("milkshake")
            milkshakes[seat] = count
    donut = "donut-truck" in deck and rng.random() < 0.2
    if donut:
        deck.remove("donut-truck")
    hands = []
    for _ in range(players):
        size = rng.choice([0, 1, 2, 3, 5, 8, 9, 12])
        hands.append(deck[:size])
        deck = deck[size:]
    cut = rng.randrange(len(deck) + 1)
    return {
        "players": players, "active": active, "hands": hands, "towers": towers,
        "milkshakes": milkshakes, "donut": donut, "discard": deck[:cut], "draw": deck[cut:],
        "options": options, "seed": seed, "turn": rng.randint(1, 5),
    }  # fmt: skip


@settings(max_examples=150)
@given(players_st, options_st, st.integers(0, 2**32), st.lists(action_st, max_size=30))
def test_random_positions_keep_every_invariant(
    players: int, options: dict[str, Any], seed: int, probes: list[Action]
) -> None:
    options = {**options, "turn_limit": None}
    p = random_position(players, options, seed)
    g = Game.from_position(p)  # valid by construction
    assert kind_counts(g.to_position()) == FULL_DECK
    check_position(g)
    rng = random.Random(seed)
    for step in range(40):
        if g.is_over:
            break
        legal_set = set(g.legal_actions())
        for probe in probes[step % 4 :: 4]:
            try:
                normal = g.normalize(probe)
            except InvalidActionError:
                normal = None
            if normal not in legal_set:
                check_refused(g, probe)
        action = rng.choice(g.legal_actions())
        before = g.to_position()
        g.apply(action)
        check_position(g)
        check_transition(before, action, g)
    check_record_and_views(g)
