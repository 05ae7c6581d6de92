"""The bots: the interface the web table uses, legality, reproducibility and no peeking."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gotown.bots as bots
from gotown.bots import LEVELS, hint, make_bot
from gotown.bots.base import Bot
from gotown.bots.sampling import Sampler, known_hands, unseen_counts
from gotown.engine import COPIES, Action, Game, View, parse_action

from .helpers import OPTION_SETS, random_position, small_search

positions = st.builds(
    random_position,
    players=st.integers(2, 4),
    seed=st.integers(0, 2**32),
    steps=st.integers(0, 200),
    options=st.sampled_from(OPTION_SETS),
)


def test_levels_are_the_published_names() -> None:
    assert LEVELS == ("random", "easy", "medium", "hard", "expert")
    for level in LEVELS:
        assert isinstance(make_bot(level, seed=1), Bot)


def test_unknown_level_is_a_value_error_naming_the_levels() -> None:
    with pytest.raises(ValueError, match="random, easy, medium, hard, expert"):
        make_bot("grandmaster", seed=1)


def test_a_bot_refuses_the_public_view() -> None:
    game = Game.new(players=2, seed=3)
    for level in ("easy", "hard"):
        with pytest.raises(ValueError):
            make_bot(level, 1).choose(game.public_view(), game.legal_actions())


@settings(max_examples=60)
@given(game=positions, seed=st.integers(0, 2**32))
def test_rule_bots_only_return_legal_actions(game: Game, seed: int) -> None:
    seat = game.active
    view, legal = game.view(seat), game.legal_actions()
    for level in ("random", "easy", "medium"):
        assert game.is_legal(make_bot(level, seed).choose(view, legal))


@settings(max_examples=25)
@given(game=positions, seed=st.integers(0, 2**32))
def test_search_bots_only_return_legal_actions(game: Game, seed: int) -> None:
    view, legal = game.view(game.active), game.legal_actions()
    assert game.is_legal(small_search("hard", seed).choose(view, legal))


def test_the_real_hard_and_expert_levels_return_legal_actions() -> None:
    game = random_position(3, seed=11, steps=40, options={})
    view, legal = game.view(game.active), game.legal_actions()
    for level in ("hard", "expert"):
        assert game.is_legal(make_bot(level, 5).choose(view, legal))


@settings(max_examples=40)
@given(game=positions)
def test_determinisations_agree_with_the_view(game: Game) -> None:
    """Every sample holds the 54 cards, shows the seat the same public facts and hand, and
    puts each card the seat saw stolen from it in the thief's hand (while it is known)."""
    seat = (game.active + 1) % game.players
    view = game.view(seat)
    sampler = Sampler(view)
    known = known_hands(view)
    rng = random.Random(0)
    for _ in range(3):
        sample = sampler.sample(rng)
        assert sample.card_count() == sum(COPIES)
        seen = sample.view(seat)
        for name in ("hand", "hand_sizes", "towers", "milkshakes", "donut", "discard",
                     "draw_size", "active", "turn"):  # fmt: skip
            assert getattr(seen, name) == getattr(view, name), name
    for other in range(game.players):
        for kind, count in enumerate(known[other]):
            if other != seat:
                # What the seat believes is true, and every sample honours it.
                assert game.hands[other][kind] >= count
                assert sample.hands[other][kind] >= count


def test_a_card_stolen_from_the_bot_is_in_the_thiefs_hand_in_every_sample() -> None:
    # Seat 1 plays a thief on seat 0; seat 0 then knows the card seat 1 holds.
    for seed in range(200):
        game = Game.new(players=2, seed=seed, options={"first_player": 1})
        if Action.thief(0) in game.legal_actions():
            break
    else:
        raise AssertionError("no seed in 0..199 deals seat 1 a playable thief")
    game.apply(Action.thief(0))
    view = game.view(0)
    stolen = [e.card for e in view.events if e.type == "stolen"]
    assert len(stolen) == 1 and stolen[0] is not None
    sampler = Sampler(view)
    rng = random.Random(1)
    from gotown.engine.cards import KIND_OF

    for _ in range(20):
        assert sampler.sample(rng).hands[1][KIND_OF[stolen[0]]] >= 1
    assert sum(unseen_counts(view)) == view.draw_size + view.hand_sizes[1]


def _shuffle_hidden(game: Game, seat: int, seed: int) -> Game:
    """The same game with the cards ``seat`` cannot see (other hands, draw pile) dealt anew."""
    other = game.copy()
    rng = random.Random(seed)
    pool = [k for s in range(game.players) if s != seat for k, n in enumerate(game.hands[s])
            for _ in range(n)] + list(game.draw)  # fmt: skip
    rng.shuffle(pool)
    for s in range(game.players):
        if s == seat:
            continue
        hand = [0] * len(game.hands[s])
        for _ in range(game.hand_sizes[s]):
            hand[pool.pop()] += 1
        other.hands[s] = hand
    other.draw = pool
    return other


@pytest.mark.parametrize("players", [2, 3, 4])
def test_search_never_sees_hidden_cards(players: int) -> None:
    """Dealing the hidden cards anew leaves the view, and so the bot's choices and estimated
    win probabilities (its whole choice distribution for a seed), unchanged."""
    game = random_position(players, seed=100 + players, steps=30, options={})
    seat = game.active
    changed = _shuffle_hidden(game, seat, seed=7)
    assert any(changed.hands[s] != game.hands[s] for s in range(players) if s != seat) or (
        changed.draw != game.draw
    )
    view, other_view = game.view(seat), changed.view(seat)
    assert view == other_view
    legal = game.legal_actions()
    assert changed.legal_actions() == legal
    for seed in range(3):
        first = small_search("hard", seed).evaluate(view, legal)
        second = small_search("hard", seed).evaluate(other_view, legal)
        assert first == second


@pytest.mark.parametrize("level", LEVELS)
def test_the_same_seed_gives_the_same_game(level: str) -> None:
    def play(seed: int) -> tuple[Action, ...]:
        game = Game.new(players=3, seed=seed, options={"turn_limit": 12})
        seats = [
            small_search(level, seed + s) if level in ("hard", "expert")
            else make_bot(level, seed + s)
            for s in range(3)
        ]  # fmt: skip
        while not game.is_over:
            game.apply(seats[game.active].choose(game.view(game.active), game.legal_actions()))
        return game.actions

    assert play(4) == play(4)


def test_make_bot_hard_is_reproducible() -> None:
    game = random_position(2, seed=21, steps=25, options={})
    view, legal = game.view(game.active), game.legal_actions()
    assert make_bot("hard", 9).choose(view, legal) == make_bot("hard", 9).choose(view, legal)


def test_hint_gives_the_top_actions_with_probabilities_best_first() -> None:
    game = random_position(2, seed=5, steps=20, options={})
    view, legal = game.view(game.active), game.legal_actions()
    hints = hint(view, legal, seed=3, top=3)
    assert 1 <= len(hints) <= min(3, len(legal))
    assert all(action in legal and 0.0 <= p <= 1.0 for action, p in hints)
    assert len({a for a, _ in hints}) == len(hints)


def test_hint_takes_a_winning_build_at_once_with_certainty() -> None:
    position = {
        "players": 2,
        "options": {"win_floors": 4},
        "active": 0,
        "turn": 9,
        "hands": [["1", "8", "2"], ["3"]],
        "towers": [[["2", "7"], ["3", "6"], ["4", "5"]], []],
        "milkshakes": [0, 0],
        "donut": False,
        "discard": [],
        "draw": [],
        "seed": 1,
    }
    game = Game.from_position(position)
    view, legal = game.view(0), game.legal_actions()
    (best, chance), *_ = hint(view, legal, seed=1)
    assert best == Action.build("1", "8") and chance == 1.0
    assert make_bot("hard", 1).choose(view, legal) == best


def test_the_public_interface_is_exported() -> None:
    for name in ("LEVELS", "make_bot", "hint", "Bot"):
        assert hasattr(bots, name)
    assert isinstance(Game.new(players=2, seed=1).view(0), View)


def test_search_refuses_a_view_whose_seat_is_not_to_act() -> None:
    game = Game.new(players=3, seed=2)
    other = (game.active + 1) % 3
    with pytest.raises(ValueError, match="turn"):
        hint(game.view(other), game.legal_actions(), seed=1)


def _position(
    hand: list[str],
    towers: list[list[list[str]]] | None = None,
    milkshakes: tuple[int, int] = (0, 0),
) -> Game:
    """A 2-player position, seat 0 to act holding ``hand``; the opponent holds 6 cards and the
    rest of the deck is the draw pile (the engine deals it when a position names none)."""
    return Game.from_position(
        {
            "players": 2,
            "active": 0,
            "hands": [hand, ["4", "4", "5", "6", "6", "8"]],
            "towers": towers or [[], []],
            "milkshakes": list(milkshakes),
        }
    )


def _medium_choice(game: Game) -> Action:
    return make_bot("medium", seed=5).choose(game.view(0), game.legal_actions())


def test_medium_keeps_a_pair_whose_floor_would_probably_be_stolen() -> None:
    # Nearly every 2 and 7 is unseen and the opponent holds 6 cards: building 2+7 with no dog
    # would most likely hand the floor over (R11), so medium keeps the pair.
    game = _position(["2", "7", "1", "1", "3"])
    assert game.is_legal(parse_action("2+7"))
    assert _medium_choice(game) == parse_action("end")


@pytest.mark.parametrize(
    ("why", "hand", "towers", "milkshakes"),
    [
        ("a dog in hand guards it (R12)", ["2", "7", "1", "3", "dog"], None, (0, 0)),
        ("a full hand draws nothing (R7b)", ["2", "7", "1", "1", "1", "3", "3", "3"], None, (0, 0)),
        ("the opponent's next turn is a milkshake turn (R7a)", ["2", "7", "1", "3"], None, (0, 1)),
        (
            "the floor wins at once (R20)",
            ["2", "7", "1", "3"],
            [[["1", "8"], ["1", "8"], ["3", "6"], ["4", "5"]], []],
            (0, 0),
        ),
    ],
)
def test_medium_builds_the_pair_when_the_floor_is_safe_or_must_be_built(
    why: str, hand: list[str], towers: list[list[list[str]]] | None, milkshakes: tuple[int, int]
) -> None:
    game = _position(hand, towers, milkshakes=milkshakes)
    assert _medium_choice(game) == parse_action("2+7"), why
