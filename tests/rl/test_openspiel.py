"""The OpenSpiel game passes OpenSpiel's own checks, its bots play it, and no information state
holds a card the player may not see (R22)."""

from __future__ import annotations

import importlib.util
import json
import pickle
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel
import pytest
from absl import flags
from click.testing import CliRunner
from open_spiel.python.algorithms import generate_playthrough, ismcts, mcts
from open_spiel.python.observation import make_observation

from gotown.engine import COMPILED, Game
from gotown.rl import encode_view
from gotown.rl.openspiel import SEED_BYTES, GoTownState

PARAMS = [
    {"players": 2},
    {"players": 3, "dog_placement": "any", "bone_targets": "any", "dogs_per_floor": 0},
    {"players": 4, "win_floors": 4, "first_player": 2, "turn_limit": 60},
]


@pytest.mark.parametrize("params", PARAMS)
def test_random_sim_test_passes_with_serialization(params: dict[str, object]) -> None:
    game = pyspiel.load_game("python_gotown", params)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_openspiels_own_games_sim_test_passes(players: int) -> None:
    # The check OpenSpiel runs on every registered game: random play with clone, pickle and
    # serialization checks at each step, returns within the utility bounds.
    from open_spiel.python.tests.games_sim_test import GamesSimTest

    GamesSimTest().sim_game(pyspiel.load_game("python_gotown", {"players": players}))


def test_the_public_observer_shows_no_hand() -> None:
    game = pyspiel.load_game("python_gotown")
    public = make_observation(
        game,
        pyspiel.IIGObservationType(
            perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE
        ),
    )
    state = _random_states(game, seed=8, every=10)[3]
    public.set_from(state, 0)
    assert public.dict["hand"].sum() == 0 and " hand " not in public.string_from(state, 0)
    private = make_observation(game, pyspiel.IIGObservationType(perfect_recall=False))
    private.set_from(state, 0)
    assert private.dict["hand"].sum() > 0
    assert np.array_equal(public.tensor[17:], private.tensor[17:])  # the rest is public


def _random_states(game: pyspiel.Game, seed: int, every: int = 1) -> list[pyspiel.State]:
    """The states of one game of random play (chance included), every ``every``-th."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    states = []
    while not state.is_terminal():
        if state.move_number() % every == 0:
            states.append(state.clone())
        state.apply_action(int(rng.choice(state.legal_actions())))
    return [*states, state]


def test_games_sim_test_checks_clone_pickle_and_serialization() -> None:
    # What OpenSpiel's games_sim_test asks of each registered game.
    game = pyspiel.load_game("python_gotown", {"players": 3})
    assert str(pickle.loads(pickle.dumps(game))) == str(game)
    assert pickle.loads(pickle.dumps(game.get_type())) == game.get_type()
    assert game.min_utility() < game.max_utility()
    states = _random_states(game, seed=1, every=7)
    for state in states:
        clone = state.clone()
        assert str(clone) == str(state) and clone.history() == state.history()
        assert str(pickle.loads(pickle.dumps(state))) == str(state)
        new_game, new_state = pyspiel.deserialize_game_and_state(
            pyspiel.serialize_game_and_state(game, state)
        )
        assert str(new_game) == str(game) and str(new_state) == str(state)
        if not state.is_terminal():
            action = state.legal_actions()[0]
            state.apply_action(action)
            clone.apply_action(action)
            assert str(clone) == str(state)
    final = states[-1]
    assert final.is_terminal() and final.legal_actions() == []
    assert sorted(final.returns()) in ([-1.0, -1.0, 1.0], [0.0, 0.0, 0.0])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_declared_utility_holds_for_each_player_count(players: int) -> None:
    # A win pays +1/-1 (R20), a stalemate (R20b) or the turn limit (R23) 0 to all: two seats
    # always sum to 0 (ZERO_SUM, as kuhn_poker declares); three or four sum to 2 - n after a
    # win and 0 otherwise, so they are general-sum.
    game = pyspiel.load_game("python_gotown", {"players": players, "turn_limit": 30})
    ends = {tuple(_random_states(game, seed, every=1000)[-1].returns()) for seed in range(8)}
    assert (0.0,) * players in ends and any(1.0 in end for end in ends)  # both kinds of end
    sums = {sum(end) for end in ends}
    utility = pyspiel.GameType.Utility
    if players == 2:
        assert game.get_type().utility == utility.ZERO_SUM and game.utility_sum() == 0.0
        assert sums == {0.0}
    else:
        assert game.get_type().utility == utility.GENERAL_SUM
        assert sums == {0.0, 2.0 - players}
    family = next(t for t in pyspiel.registered_games() if t.short_name == "python_gotown")
    assert family.utility == utility.GENERAL_SUM  # (it holds every player count)


def test_chance_picks_the_seed_that_deals_the_game() -> None:
    game = pyspiel.load_game("python_gotown", {"players": 2})
    state = game.new_initial_state()
    for byte in (0, 1, 2, 3)[:SEED_BYTES]:
        assert state.is_chance_node() and len(state.chance_outcomes()) == 256
        state.apply_action(byte)
    assert not state.is_chance_node()
    assert state.engine == Game.new(2, 0x00010203, {"turn_limit": 500})
    assert state.history()[:SEED_BYTES] == [0, 1, 2, 3]
    replay = game.new_initial_state()
    for action in state.history():
        replay.apply_action(action)
    assert str(replay) == str(state)


def test_the_tensors_are_the_encoding_relative_to_the_player() -> None:
    game = pyspiel.load_game("python_gotown", {"players": 3})
    for state in _random_states(game, seed=2, every=5)[1:]:
        if not isinstance(state, GoTownState) or not state.is_dealt:
            continue
        for player in range(3):
            expected = encode_view(state.engine.view(player))
            assert np.array_equal(np.array(state.observation_tensor(player)), expected)
            info = np.array(state.information_state_tensor(player))
            assert np.array_equal(info[: expected.size], expected)
            history = info[expected.size :].reshape(3, -1)
            assert history.sum() == len(state.engine.actions)


def test_an_illegal_action_is_refused() -> None:
    game = pyspiel.load_game("python_gotown", {"players": 2})
    state = game.new_initial_state()
    for _ in range(SEED_BYTES):
        state.apply_action(7)
    illegal = next(a for a in range(game.num_distinct_actions()) if a not in state.legal_actions())
    with pytest.raises(pyspiel.SpielError):
        state.apply_action_with_legality_check(illegal)


def test_bad_parameters_are_refused_naming_them() -> None:
    with pytest.raises(ValueError, match="2 to 4 players"):
        pyspiel.load_game("python_gotown", {"players": 5})
    with pytest.raises(ValueError, match="turn_limit 0"):
        pyspiel.load_game("python_gotown", {"turn_limit": 0})
    with pytest.raises(ValueError, match="dog_placement"):
        pyspiel.load_game("python_gotown", {"dog_placement": "roof"})


@pytest.mark.parametrize("players", [2, 3])
def test_no_leak_a_resampled_world_looks_the_same_to_the_player(players: int) -> None:
    """Every observation and information state of the player is the same in the world that
    resample_from_infostate deals anew (other hands and the draw pile changed), as ISMCTS
    requires and R22 demands; the other seats' hidden cards did change."""
    game = pyspiel.load_game("python_gotown", {"players": players})
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    changed = 0
    for state in _random_states(game, seed=3, every=3):
        if state.is_chance_node() or state.is_terminal():
            continue
        player = state.current_player()
        world = state.resample_from_infostate(player, sampler)
        for method in ("information_state_string", "observation_string"):
            assert getattr(world, method)(player) == getattr(state, method)(player)
        for method in ("information_state_tensor", "observation_tensor"):
            assert getattr(world, method)(player) == getattr(state, method)(player)
        assert world.legal_actions() == state.legal_actions()
        hidden = world.engine.to_position()["hands"], world.engine.to_position()["draw"]
        changed += hidden != (
            state.engine.to_position()["hands"],
            state.engine.to_position()["draw"],
        )
    assert changed > 5


def _play(game: pyspiel.Game, bots: list[pyspiel.Bot], seed: int) -> list[float]:
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(int(rng.integers(256)))
        else:
            action = bots[state.current_player()].step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
    return state.returns()


def test_openspiel_ismcts_and_mcts_bots_play_a_game() -> None:
    game = pyspiel.load_game("python_gotown", {"players": 2, "turn_limit": 20})
    rng = np.random.RandomState(1)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bots = [
        ismcts.ISMCTSBot(game, evaluator, 2.0, max_simulations=30, random_state=rng),
        mcts.MCTSBot(game, 2.0, 30, evaluator, random_state=rng),
    ]
    returns = _play(game, bots, seed=4)
    assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])


def _head_to_head() -> Any:
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "openspiel_vs_hard.py"
    spec = importlib.util.spec_from_file_location("benchmarks_openspiel_vs_hard", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (its dataclass looks its module up)
    spec.loader.exec_module(module)
    return module


def test_the_head_to_head_benchmark_plays_a_game_each_way() -> None:
    module = _head_to_head()
    for index in (0, 1):  # OpenSpiel's bot in seat 0, then in seat 1
        result = module.play(index, iterations=5, uct_c=2.0, turn_limit=40)
        assert result.winner in ("hard", "openspiel", None)
        assert result.hard_times and result.openspiel_times
        assert result.build == ("compiled" if COMPILED else "pure")


PLAYTHROUGH = Path(__file__).resolve().parent / "data" / "python_gotown_playthrough.txt"


def test_the_golden_playthrough_replays_unchanged() -> None:
    """OpenSpiel's playthrough of a short game: every observation and information state of
    each player at each step, so that a diff shows what a change lets a player see. After a
    deliberate change, write it anew with ``generate_playthrough.playthrough(
    "python_gotown(turn_limit=4)", None, seed=3)`` (``open_spiel.python.algorithms``)."""
    if not flags.FLAGS.is_parsed():  # (the generator reads an absl flag, with its default)
        flags.FLAGS.mark_as_parsed()
    original, new = generate_playthrough.replay(str(PLAYTHROUGH))
    assert new == original


@pytest.mark.parametrize("params", PARAMS)
def test_legal_actions_answered_in_python_agree_with_openspiels_own(
    params: dict[str, object],
) -> None:
    """``legal_actions`` and ``is_chance_node`` skip OpenSpiel's C++ side for the player to
    act; at chance, decision and terminal nodes, for every player, they say what it says."""
    game = pyspiel.load_game("python_gotown", params)
    players = game.num_players()
    rng = np.random.default_rng(3)
    kinds = set()
    for _ in range(2):
        state = game.new_initial_state()
        while True:
            current = state.current_player()
            kinds.add("chance" if current < 0 and not state.is_terminal() else "other")
            assert state.is_chance_node() == (current == pyspiel.PlayerId.CHANCE)
            assert state.legal_actions() == pyspiel.State.legal_actions(state)
            for player in range(players):
                mine = state.legal_actions(player)
                assert mine == pyspiel.State.legal_actions(state, player)
                assert mine == sorted(mine)
            if state.is_terminal():
                kinds.add("terminal")
                break
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert kinds == {"chance", "other", "terminal"}


def test_an_illegal_action_after_the_legal_ones_were_asked_leaves_the_game_as_it_was() -> None:
    game = pyspiel.load_game("python_gotown", {"players": 2})
    state = game.new_initial_state()
    for _ in range(SEED_BYTES):
        state.apply_action(9)
    legal = state.legal_actions()
    legal.clear()  # (the caller's copy: the state's own list is untouched)
    legal = state.legal_actions()
    illegal = next(a for a in range(game.num_distinct_actions()) if a not in legal)
    before = state.engine.to_position()
    with pytest.raises(Exception, match=r"\(R\d+"):
        state.apply_action(illegal)
    assert state.engine.to_position() == before and state.legal_actions() == legal
    state.apply_action(legal[0])
    assert len(state.engine.actions) == 1 and state.history()[-1] == legal[0]


def test_the_head_to_head_benchmark_resumes_from_its_results_file(tmp_path: Path) -> None:
    """Each game is appended as it ends; a rerun plays only the games the file lacks, drops a
    last line cut short, and refuses a file of another setting."""
    main = _head_to_head().main
    results = tmp_path / "results.jsonl"
    quick = ["--iterations", "3", "--turn-limit", "30", "--results", str(results)]
    first = CliRunner().invoke(main, ["--games", "2", *quick])
    assert first.exit_code == 0, first.output
    games = [json.loads(line) for line in results.read_text().splitlines()]
    assert sorted(game["game"] for game in games) == [0, 1]
    assert all(game["iterations"] == 3 and game["turn_limit"] == 30 for game in games)
    results.write_text(results.read_text() + '{"game": 2, "winn')  # a run stopped mid-write
    again = CliRunner().invoke(main, ["--games", "3", *quick])
    assert again.exit_code == 0, again.output
    assert "2 of 3 games already in" in again.output and "3 games, 3 iterations" in again.output
    lines = results.read_text().splitlines()
    assert len(lines) == 3 and lines[:2] == [json.dumps(game) for game in games]
    assert json.loads(lines[2])["game"] == 2
    other = CliRunner().invoke(main, ["--games", "3", *quick[:2], "--turn-limit", "40",
                                      "--results", str(results)])  # fmt: skip
    assert other.exit_code != 0 and "another setting" in other.output
    assert results.read_text().splitlines() == lines
