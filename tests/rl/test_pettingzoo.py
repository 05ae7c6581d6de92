"""The PettingZoo environment passes PettingZoo's own tests, and plays by the rules."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test
from pettingzoo.utils.wrappers import TerminateIllegalWrapper

from gotown.engine import (
    Action,
    Game,
    IllegalActionError,
    InvalidActionError,
    InvalidOptionsError,
    Outcome,
)
from gotown.rl import engine_to_action
from gotown.rl.pettingzoo import env, raw_env
from gotown.rl.render import render_text

from .helpers import random_positions, with_hidden_cards_changed


@pytest.mark.parametrize(
    ("players", "options"),
    [(2, {}), (3, {"dog_placement": "any", "bone_targets": "any"}), (4, {"win_floors": 4})],
)
def test_pettingzoo_api_test_passes_without_a_warning(
    players: int, options: dict[str, object]
) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # api_test's soft findings are warnings
        api_test(env(players=players, render_mode="ansi", **options), num_cycles=1000)
    # A Dict observation (observation and action_mask) is the classic games' convention, and
    # api_test exempts its own card and board games by name from these two findings only.
    dict_findings = {
        "Observation is not a NumPy array",
        "Observation space for each agent probably should be gymnasium.spaces.box or "
        "gymnasium.spaces.discrete",
    }
    assert {str(w.message) for w in caught} <= dict_findings


@pytest.mark.parametrize("players", [2, 4])
def test_pettingzoo_seed_test_passes(players: int) -> None:
    seed_test(lambda: env(players=players), num_cycles=500)


def _play(table: object, rng: np.random.Generator) -> tuple[int, dict[str, float]]:
    """Random legal play to the end; the number of steps and the final rewards."""
    steps = 0
    final: dict[str, float] = {}
    for agent in table.agent_iter():  # type: ignore[attr-defined]
        obs, reward, termination, truncation, _ = table.last()  # type: ignore[attr-defined]
        if termination or truncation:
            final[agent] = reward
            table.step(None)  # type: ignore[attr-defined]
            continue
        legal = np.flatnonzero(obs["action_mask"])
        table.step(int(rng.choice(legal)))  # type: ignore[attr-defined]
        steps += 1
    return steps, final


def test_a_game_ends_with_plus_one_for_the_winner_and_minus_one_for_the_others() -> None:
    rng = np.random.default_rng(3)
    wins = 0
    for seed in range(10):
        table = env(players=3)
        table.reset(seed=seed)
        _, final = _play(table, rng)
        game = table.unwrapped.game
        outcome = game.outcome()
        assert outcome is not None and table.agents == []
        if outcome.winner is None:
            assert set(final.values()) == {0.0}
        else:
            wins += 1
            assert final[f"player_{outcome.winner}"] == 1.0
            assert sorted(final.values()) == [-1.0, -1.0, 1.0]
    assert wins > 5


def test_the_turn_limit_truncates_every_agent_with_no_reward() -> None:
    # A max_cycles-style check: with turn_limit N (R23) no episode outlives turn N, and it ends
    # for every agent at once.
    for limit in (1, 3, 6):
        table = env(players=4, turn_limit=limit)
        table.reset(seed=5)
        _play(table, np.random.default_rng(0))
        game = table.unwrapped.game
        assert game.turn <= limit and game.is_over
        if game.outcome().winner is None:  # type: ignore[union-attr]
            assert game.turn == limit


def test_the_turn_limit_truncates_rather_than_terminates() -> None:
    table = raw_env(players=2, turn_limit=1)
    table.reset(seed=2)
    game = table.game
    table.step(engine_to_action(Action.end_turn(), 2, None, seat=game.active))
    assert game.outcome() == Outcome(None, "turn-limit")
    assert all(table.truncations.values()) and not any(table.terminations.values())
    assert table.rewards == {"player_0": 0.0, "player_1": 0.0}


#: Two hands of 8 that can do nothing: the first end of turn is a stalemate (R20b).
STUCK = {
    "players": 2, "active": 0, "towers": [[], []], "draw": ["8"],
    "hands": [["1"] * 4 + ["2"] * 4, ["3"] * 4 + ["4"] * 3 + ["bone"]],
}  # fmt: skip


def test_r20b_a_stalemate_terminates_every_agent_with_no_reward() -> None:
    table = raw_env(players=2)
    table.reset(seed=0)
    table.game = Game.from_position(STUCK)
    table.agent_selection = "player_0"
    table.step(engine_to_action(Action.end_turn(), 2, None, seat=0))
    assert table.game.outcome() == Outcome(None, "stalemate")
    assert all(table.terminations.values()) and not any(table.truncations.values())
    assert table.rewards == {"player_0": 0.0, "player_1": 0.0}
    assert table.render_mode is None and "stalemate" in render_text(table.game).splitlines()[0]


def test_the_winning_build_terminates_every_agent() -> None:
    # R20: the fifth floor wins at once.
    floors = [["1", "8"], ["2", "7"], ["3", "6"], ["4", "5"]]
    position = {"players": 2, "active": 1, "hands": [["3"], ["1", "8"]], "towers": [[], floors]}
    table = raw_env(players=2)
    table.reset(seed=0)
    table.game = Game.from_position(position)
    table.agent_selection = "player_1"
    table.step(engine_to_action(Action.build("1", "8"), 2, None, seat=1))
    assert all(table.terminations.values()) and not any(table.truncations.values())
    assert table.rewards == {"player_0": -1.0, "player_1": 1.0}
    assert table.last()[1] == 1.0


def test_an_illegal_action_is_refused_naming_the_rule_and_changes_nothing() -> None:
    table = raw_env(players=2)
    table.reset(seed=4)
    game = table.game
    before = game.to_position()
    mask = table.observe(table.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalActionError, match=r"R\d+"):
        table.step(illegal)
    with pytest.raises(InvalidActionError, match="outside the space"):
        table.step(10_000)
    with pytest.raises(InvalidActionError, match="None is no action"):
        table.step(None)
    assert game.to_position() == before and table.game is game


def test_an_illegal_action_loses_as_in_pettingzoos_classic_games() -> None:
    # leduc_holdem_v4 and texas_holdem_v4 wrap their games in TerminateIllegalWrapper(-1): the
    # offender gets -1, the others 0, and the game ends for every agent.
    table = env(players=3)
    assert isinstance(table.env, TerminateIllegalWrapper)
    table.reset(seed=4)
    game = table.unwrapped.game
    before = game.to_position()
    offender = table.agent_selection
    observation, *_ = table.last()
    table.step(int(np.flatnonzero(observation["action_mask"] == 0)[0]))
    assert game.to_position() == before
    assert table.rewards == {agent: (-1.0 if agent == offender else 0.0) for agent in table.agents}
    assert all(table.terminations.values()) and all(table.truncations.values())
    assert re.search(r"\(R\d+\)$", table.infos[offender]["illegal_action"])
    ended = {}
    for agent in table.agent_iter():  # each agent sees its end once, then the game is over
        _, reward, termination, truncation, _ = table.last()
        assert termination and truncation
        ended[agent] = reward
        table.step(None)
    assert ended == {agent: (-1.0 if agent == offender else 0.0) for agent in ended}
    assert len(ended) == 3 and table.agents == []


def test_illegal_raise_keeps_the_engines_error_and_bad_input_always_raises() -> None:
    strict, lenient = env(players=2, illegal="raise"), env(players=2)
    for table in (strict, lenient):
        table.reset(seed=4)
        game = table.unwrapped.game
        before = game.to_position()
        with pytest.raises(InvalidActionError, match="outside the space"):
            table.step(10_000)
        with pytest.raises(InvalidActionError, match="outside the space"):
            table.step(-1)  # (a mask read from the end would call it legal)
        with pytest.raises(InvalidActionError, match="None is no action"):
            table.step(None)
        assert game.to_position() == before and not any(table.terminations.values())
    mask = strict.last()[0]["action_mask"]
    with pytest.raises(IllegalActionError, match=r"R\d+"):
        strict.step(int(np.flatnonzero(mask == 0)[0]))
    with pytest.raises(ValueError, match="illegal='ignore'"):
        env(illegal="ignore")


def test_bad_players_and_options_are_refused_when_the_environment_is_made() -> None:
    with pytest.raises(ValueError, match="2 to 4 players"):
        raw_env(players=5)
    with pytest.raises(InvalidOptionsError, match="dog_placement"):
        raw_env(players=2, dog_placement="nowhere")
    with pytest.raises(InvalidOptionsError, match="unknown option"):
        raw_env(players=2, dogs=3)
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(players=2, render_mode="video")


def test_pettingzoo_render_test_passes() -> None:
    render_test(lambda render_mode: env(players=3, render_mode=render_mode))


def test_render_shows_the_public_table_only() -> None:
    table = env(players=2, render_mode="ansi")
    table.reset(seed=9)
    text = table.render()
    assert (
        text.startswith("turn 1, seat ") and "seat 1: " in text and "draw pile 43" in text
    )  # 54 - 10 dealt - 1 drawn (R4, R7b)
    hands = table.unwrapped.game.to_position()["hands"]
    assert all(" ".join(hand) not in text for hand in hands)


def test_no_leak_the_observations_ignore_every_hidden_card() -> None:
    table = raw_env(players=3)
    other_table = raw_env(players=3)
    checked = 0
    for index, game in enumerate(random_positions(3, seed=21)):
        if index % 4:
            continue
        for seat in range(3):
            other = with_hidden_cards_changed(game, seat, seed=index)
            if other is None:
                continue
            table.game, other_table.game = game, other
            mine, theirs = table.observe(f"player_{seat}"), other_table.observe(f"player_{seat}")
            assert np.array_equal(mine["observation"], theirs["observation"])
            assert np.array_equal(mine["action_mask"], theirs["action_mask"])
            checked += 1
    assert checked > 10
