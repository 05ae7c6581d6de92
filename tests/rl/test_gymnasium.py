"""The Gymnasium environment passes Gymnasium's checker and plays against our bots."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import gotown.rl  # noqa: F401  (registers GoTown-v0)
from gotown.bots import RandomBot, bot_from_spec, hashed_seed
from gotown.engine import Action, Game, IllegalActionError, InvalidActionError, InvalidOptionsError
from gotown.rl import action_to_engine, engine_to_action
from gotown.rl.gymnasium import GoTownEnv, ViewlessRandom

from .helpers import random_positions, with_hidden_cards_changed


@pytest.mark.parametrize(
    ("players", "opponents", "options"),
    [
        (2, ["medium"], {}),
        (3, ["easy", "random"], {"dog_placement": "any"}),
        (4, ["random"], {"bone_targets": "any", "win_floors": 4}),
    ],
)
def test_gymnasium_check_env_passes_without_a_warning(
    players: int, opponents: list[str], options: dict[str, object]
) -> None:
    env = gymnasium.make("GoTown-v0", players=players, opponents=opponents, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped, skip_render_check=False)


def _play(env: GoTownEnv, seed: int) -> tuple[float, bool, bool, int]:
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    steps = 0
    while True:
        mask = info["action_mask"]
        assert np.array_equal(mask.astype(bool), env.action_masks()) and mask.any()
        action = int(rng.choice(np.flatnonzero(mask)))
        _, reward, terminated, truncated, info = env.step(action)
        steps += 1
        if terminated or truncated:
            return reward, terminated, truncated, steps


def test_episodes_end_with_the_learners_result() -> None:
    env = GoTownEnv(players=2, opponents=["random"])
    results = []
    for seed in range(12):
        reward, terminated, truncated, _ = _play(env, seed)
        outcome = env.game.outcome()
        assert outcome is not None and truncated == (outcome.reason == "turn-limit")
        expected = 0.0 if outcome.winner is None else (1.0 if outcome.winner == env.seat else -1.0)
        assert reward == expected and terminated == (not truncated)
        results.append(reward)
    assert 1.0 in results and -1.0 in results  # random play against random: both happen


def test_r20b_a_stalemate_terminates_with_no_reward() -> None:
    # Two hands of 8 that can do nothing: the learner's end of turn is a stalemate.
    env = GoTownEnv(players=2, opponents=["random"], seat=0)
    env.reset(seed=0)
    env.game = Game.from_position({
        "players": 2, "active": 0, "towers": [[], []], "draw": ["8"],
        "hands": [["1"] * 4 + ["2"] * 4, ["3"] * 4 + ["4"] * 3 + ["bone"]],
    })  # fmt: skip
    end = engine_to_action(Action.end_turn(), 2, None, seat=0)
    _, reward, terminated, truncated, _ = env.step(end)
    assert env.game.outcome() == (None, "stalemate")
    assert (reward, terminated, truncated) == (0.0, True, False)


def test_the_same_seed_plays_the_same_episode_and_the_seat_varies() -> None:
    first = [_play(GoTownEnv(opponents=["easy"]), seed) for seed in range(4)]
    again = [_play(GoTownEnv(opponents=["easy"]), seed) for seed in range(4)]
    assert first == again
    seats = set()
    env = GoTownEnv(opponents=["random"])
    for seed in range(10):
        env.reset(seed=seed)
        seats.add(env.seat)
    assert seats == {0, 1}
    fixed = GoTownEnv(players=3, opponents=["random"], seat=2)
    for seed in range(5):
        fixed.reset(seed=seed)
        assert fixed.seat == 2 and fixed.game.active == 2


def test_an_illegal_action_loses_or_raises_and_the_game_stays_as_it_was() -> None:
    for illegal in ("lose", "raise"):
        env = GoTownEnv(opponents=["random"], illegal=illegal)
        _, info = env.reset(seed=3)
        before = env.game.to_position()
        bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
        if illegal == "raise":
            with pytest.raises(IllegalActionError, match=r"R\d+"):
                env.step(bad)
        else:
            _, reward, terminated, truncated, info = env.step(bad)
            assert (reward, terminated, truncated) == (-1.0, True, False)
            assert "R" in info["illegal_action"]
            with pytest.raises(InvalidActionError, match="the episode is over"):
                env.step(int(np.flatnonzero(info["action_mask"])[0]))
        assert env.game.to_position() == before
        env.reset(seed=3)
        with pytest.raises(InvalidActionError, match="outside the space"):
            env.step(999)


def test_bad_arguments_are_refused_naming_what_is_wrong() -> None:
    with pytest.raises(ValueError, match="2 opponents for 2 players"):
        GoTownEnv(players=2, opponents=["easy", "easy"])
    with pytest.raises(ValueError, match="unknown bot level 'grandmaster'"):
        GoTownEnv(opponents=["grandmaster"])
    with pytest.raises(ValueError, match="seat 2 does not exist"):
        GoTownEnv(players=2, opponents=["easy"], seat=2)
    with pytest.raises(ValueError, match="render_mode 'video'"):
        GoTownEnv(render_mode="video")
    with pytest.raises(ValueError, match="illegal='ignore'"):
        GoTownEnv(illegal="ignore")
    with pytest.raises(InvalidOptionsError, match="win_floors"):
        GoTownEnv(win_floors=7)
    never = GoTownEnv(opponents=["random"], seat=1, first_player=0, turn_limit=1)
    with pytest.raises(ValueError, match=r"leaves it no turn \(R23\)"):
        never.reset(seed=0)


def test_no_leak_the_observation_ignores_every_hidden_card() -> None:
    env = GoTownEnv(players=2, opponents=["random"], seat=0)
    other_env = GoTownEnv(players=2, opponents=["random"], seat=0)
    checked = 0
    for index, game in enumerate(random_positions(2, seed=5)):
        other = with_hidden_cards_changed(game, 0, seed=index)
        if other is None or index % 3:
            continue
        env.game, other_env.game = game, other
        assert np.array_equal(env.action_masks(), other_env.action_masks())
        assert np.array_equal(env.observation(), other_env.observation())
        checked += 1
    assert checked > 5


@pytest.mark.parametrize(("players", "opponents"), [(2, ["random"]), (3, ["random", "easy"])])
def test_a_random_opponent_plays_as_the_random_bot_given_its_view(
    players: int, opponents: list[str]
) -> None:
    """The env's random opponent builds no view; replaying each episode with the bots of
    ``bot_from_spec`` (RandomBot given the seat's view) plays every action the same."""
    env = GoTownEnv(players=players, opponents=opponents)
    for seed in range(6):
        _play(env, seed)
        assert any(isinstance(bot, ViewlessRandom) for bot in env.bots.values())
        origin = env.game.origin
        assert origin is not None
        replay = Game.new(players, origin["seed"], origin["options"])
        bots = {
            seat: bot_from_spec(spec, hashed_seed(f"gymnasium {origin['seed']} {seat}"))
            for seat, spec in zip(sorted(env.bots), opponents, strict=True)
        }
        assert any(isinstance(bot, RandomBot) for bot in bots.values())
        for action in env.game.actions:
            seat = replay.active
            if seat != env.seat:
                assert bots[seat].choose(replay.view(seat), replay.legal_actions()) == action
            replay.apply(action)
        assert replay.outcome() == env.game.outcome()


def test_step_takes_numpy_integers_and_refuses_other_types() -> None:
    env = GoTownEnv(opponents=["random"], illegal="lose")
    _, info = env.reset(seed=2)
    before = env.game.to_position()
    legal = np.flatnonzero(info["action_mask"])
    for bad in (True, float(legal[0]), str(legal[0]), None):
        with pytest.raises(InvalidActionError, match="an action index is an integer"):
            env.step(bad)
        assert env.game.to_position() == before
    played = len(env.game.actions)
    env.step(np.int64(legal[-1]))
    assert env.game.actions[played] == action_to_engine(int(legal[-1]), 2, seat=env.seat)
