"""The one encoding: every engine action has exactly one index and back, and an observation
holds nothing a seat may not see (R22)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from gotown.engine import Action, Game, InvalidActionError, Options
from gotown.rl import (
    action_space_size,
    action_to_engine,
    encode_view,
    engine_to_action,
)
from gotown.rl.action_space import action_mask, space_of
from gotown.rl.encoding import (
    SeatViews,
    observation_high,
    observation_layout,
    observation_size,
    observe,
)

from .helpers import OPTION_SETS, random_positions, with_hidden_cards_changed


@pytest.mark.parametrize(
    ("players", "options", "size"),
    [
        (2, {}, 12 + 8 + 4 + 4 + 4 + 3),
        (3, {}, 12 + 16 + 4 + 8 + 8 + 3),
        (4, {}, 12 + 24 + 4 + 12 + 12 + 3),
        (2, {"dog_placement": "any"}, 12 + 8 + 8 + 4 + 4 + 3),
        (4, {"dog_placement": "any", "bone_targets": "any"}, 12 + 24 + 16 + 16 + 12 + 3),
        (3, {"win_floors": 4, "milkshake_stacking": "stack"}, 12 + 16 + 4 + 8 + 8 + 3),
    ],
)
def test_action_space_size_counts_each_kind_by_relative_target(
    players: int, options: dict[str, object], size: int
) -> None:
    assert action_space_size(players, options) == size
    assert action_space_size(players, Options(**options)) == size  # type: ignore[arg-type]


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("options", OPTION_SETS)
def test_every_legal_action_round_trips_through_its_index(
    players: int, options: dict[str, object]
) -> None:
    seen: set[int] = set()
    for seed in range(3):
        for game in random_positions(players, seed, options):
            legal = game.legal_actions()
            indices = [engine_to_action(a, players, options, seat=game.active) for a in legal]
            assert len(set(indices)) == len(legal)  # one index per action
            for action, index in zip(legal, indices, strict=True):
                assert action_to_engine(index, players, options, seat=game.active) == action
            mask = action_mask(legal, game.active, players, options)
            assert sorted(np.flatnonzero(mask).tolist()) == sorted(indices)
            seen.update(indices)
    assert len(seen) > action_space_size(players, options) // 2  # the games reach most kinds


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("options", OPTION_SETS[:4])
def test_every_index_round_trips_for_every_seat(players: int, options: dict[str, object]) -> None:
    for seat in range(players):
        for index in range(action_space_size(players, options)):
            action = action_to_engine(index, players, options, seat=seat)
            assert engine_to_action(action, players, options, seat=seat) == index
            if action.target is not None:
                assert action.target != seat or action.type in ("dog", "bone")
                relative = action_to_engine(index, players, options)
                assert relative.target == (action.target - seat) % players


def test_relative_targets_name_the_seats_clockwise_from_the_actor() -> None:
    # R1: seat (seat + r) % players. Seat 2 of 3 thieving from relative seat 1 robs seat 0.
    index = engine_to_action(Action.thief(1), 3, None)
    assert action_to_engine(index, 3, None, seat=2) == Action.thief(0)
    assert engine_to_action(Action.thief(0), 3, None, seat=2) == index


def test_a_dog_on_the_own_tower_has_one_index_with_or_without_its_target() -> None:
    options = {"dog_placement": "any"}
    own = engine_to_action(Action.dog(2), 3, options, seat=1)
    assert engine_to_action(Action.dog(2, 1), 3, options, seat=1) == own
    assert action_to_engine(own, 3, options, seat=1) == Action.dog(2)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: action_to_engine(35, 2, None), "outside the space of 35 actions"),
        (lambda: action_to_engine(-1, 2, None), "outside the space"),
        (lambda: action_to_engine(0, 5, None), "2 to 4 players, not 5 (R1)"),
        (lambda: action_to_engine(0, 2, None, seat=2), "seat 2 does not exist"),
        (lambda: action_to_engine("3", 2, None), "an action index is an integer"),  # type: ignore[arg-type]
        (lambda: engine_to_action(Action.dog(0, 1), 2, None), "has no index"),
        (lambda: engine_to_action(Action.bone(0, 1), 2, None), "has no index"),
        (lambda: engine_to_action(Action.thief(3), 3, None), "has no index"),
        (lambda: engine_to_action(Action.dog(4), 2, None), "has no index"),
        (lambda: engine_to_action("end", 2, None), "not an action"),  # type: ignore[arg-type]
        (lambda: action_space_size(2, {"dog_placement": "some"}), "dog_placement"),
    ],
)
def test_bad_input_is_refused_naming_what_is_wrong(call: object, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        call()  # type: ignore[operator]


def test_the_observation_has_one_fixed_size_and_a_layout_that_adds_up() -> None:
    for players in (2, 3, 4):
        layout = observation_layout(players)
        ends = [start + int(np.prod(shape)) for _, start, shape in layout]
        assert [start for _, start, _ in layout[1:]] == ends[:-1]
        assert ends[-1] == observation_size(players)
        for game in random_positions(players, seed=7):
            for seat in range(players):
                obs = encode_view(game.view(seat))
                assert obs.dtype == np.float32 and obs.shape == (observation_size(players),)


def _piece(obs: np.ndarray, players: int, name: str) -> np.ndarray:
    for piece, start, shape in observation_layout(players):
        if piece == name:
            return obs[start : start + int(np.prod(shape))].reshape(shape)
    raise KeyError(name)


def test_the_observation_is_relative_to_its_seat_and_says_what_the_view_says() -> None:
    game = Game.from_position(
        {
            "players": 3,
            "active": 2,
            "hands": [["1", "8"], ["dog"], ["?", "?", "4"]],
            "towers": [[["3", "6"]], [], [["2", "?", "dog"], ["4", "5"]]],
            "milkshakes": [1, 0, 0],
            "discard": ["thief", "thief", "7"],
        }
    )
    obs = encode_view(game.view(2))
    hand = _piece(obs, 3, "hand")
    assert hand[0] == 2 and hand[4] == 1 and hand.sum() == 3  # two jokers and a 4
    towers = _piece(obs, 3, "towers")
    mine = towers[0]
    assert mine[0, 0] == 1 and mine[0, 2] == 1  # present, number 2
    assert mine[0, 9] == 1 and mine[0, 9 + 7] == 1  # a joker standing for 7 (R5)
    assert mine[0, 18] == 1  # one dog
    assert mine[1, 4] == 1 and mine[1, 9] == 0 and mine[1, 18] == 0
    assert mine[2:].sum() == 0
    assert towers[1, 0, 3] == 1  # seat 0 is relative seat 1 of seat 2: its floor 3+6
    assert towers[2].sum() == 0  # seat 1's empty tower
    assert _piece(obs, 3, "milkshakes").tolist() == [0, 1, 0]
    assert _piece(obs, 3, "hand_sizes").tolist() == [3, 2, 1]
    assert _piece(obs, 3, "active").tolist() == [1, 0, 0]
    discard = _piece(obs, 3, "discard")
    assert discard[15] == 2 and discard[7] == 1 and _piece(obs, 3, "discard_size")[0] == 3
    assert _piece(obs, 3, "draw_size")[0] == 54 - 6 - 7 - 1 - 3
    assert _piece(obs, 3, "over")[0] == 0 and _piece(obs, 3, "winner").sum() == 0


def test_the_public_view_has_no_observation() -> None:
    with pytest.raises(ValueError, match="public view"):
        encode_view(Game.new(2, 1).public_view())


@pytest.mark.parametrize("players", [2, 3, 4])
def test_no_leak_changing_every_hidden_card_changes_no_observation(players: int) -> None:
    """R22: other hands and the draw pile's order are hidden; a seat's observation and its
    action mask are functions of what it may see."""
    changed = 0
    for index, game in enumerate(random_positions(players, seed=11 + players)):
        if index % 3:
            continue
        for seat in range(players):
            other = with_hidden_cards_changed(game, seat, seed=index)
            if other is None:
                continue
            changed += 1
            assert np.array_equal(encode_view(game.view(seat)), encode_view(other.view(seat)))
            assert np.array_equal(observe(game, seat), observe(other, seat))
            if game.active == seat:
                mask = action_mask(game.legal_actions(), seat, players)
                assert np.array_equal(mask, action_mask(other.legal_actions(), seat, players))
    assert changed > 20


def test_the_space_names_its_segments_in_order() -> None:
    space = space_of(2)
    assert [kind for kind, _, _ in space.segments] == [
        "build", "steal", "dog", "bone", "jackhammer", "wrecking-ball", "thief", "milkshake",
        "super-thief", "donut-truck", "end-turn",
    ]  # fmt: skip
    assert space.relative[-1] == Action.end_turn()
    with pytest.raises(InvalidActionError):
        space_of(1)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_observation_lies_within_its_bounds(players: int) -> None:
    high = observation_high(players)
    assert (high > 0).all()
    for seed in range(3):
        for game in random_positions(players, seed, OPTION_SETS[3]):
            for seat in range(players):
                obs = encode_view(game.view(seat))
                assert (obs >= 0).all() and (obs <= high).all()


@pytest.mark.parametrize("players", [2, 4])
def test_seat_views_equal_the_engines_views_as_the_game_goes_on(players: int) -> None:
    for seed in range(2):
        views: SeatViews | None = None
        for index, game in enumerate(random_positions(players, seed)):
            views = views or SeatViews(game)
            if index % 2:  # some calls skipped: the events between are caught up later
                continue
            for seat in range(players):
                assert views.view(seat) == game.view(seat)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_observe_reads_the_game_as_encode_view_reads_the_seats_view(players: int) -> None:
    """The interfaces' fast path (the game's zones, no view) and the view's encoding agree on
    every position of random games, finished ones included (winner, turn limit)."""
    compared = 0
    endings = set()
    for seed in range(4):
        options = OPTION_SETS[seed % 2 + 2]
        for game in random_positions(players, seed, options, turn_limit=40 if seed % 2 else 200):
            for seat in range(players):
                expected = encode_view(game.view(seat))
                obs = observe(game, seat)
                assert obs.dtype == np.float32 and obs.shape == expected.shape
                assert np.array_equal(obs, expected), (seed, game.turn, seat)
                compared += 1
        outcome = game.outcome()
        assert outcome is not None
        endings.add(outcome.winner is None)
    assert compared > 200 and endings == {True, False}  # a win and a turn limit among them


@pytest.mark.parametrize("seat", [-1, 2, True, 1.0, None])
def test_observe_refuses_a_seat_that_does_not_exist(seat: object) -> None:
    with pytest.raises(InvalidActionError, match="does not exist"):
        observe(Game.new(2, 1), seat)  # type: ignore[arg-type]
