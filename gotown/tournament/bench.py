"""``gotown bench``: the engine's speed at uniformly random play (one core).

Each game is played to its end by choosing uniformly among the legal actions, with a
``turn_limit`` as a safety net. When ``rlcard`` is installed the same loop runs on RLCard's UNO
game core in the same process, and the ratio of the two speeds is printed: a figure that does
not depend on how fast or busy this machine is. Speeds are per second of the process's CPU
time (``time.process_time``), the runs last ``seconds`` of wall time: on a busy machine a
process gets a varying share of a core, which wall time would count against it.
"""

from __future__ import annotations

import random
import time
from dataclasses import asdict, dataclass
from typing import Any

import gotown.engine
from gotown.engine import Game

SAFETY_TURN_LIMIT = 2000


@dataclass(frozen=True)
class BenchResult:
    players: int
    games: int
    actions: int
    seconds: float
    games_per_s: float
    actions_per_s: float
    actions_per_game: float
    turn_limited_games: int
    copy_us: float
    compiled: bool  # the engine compiled by mypyc, or its sources (gotown.engine.COMPILED)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def play_random_games(players: int, seconds: float, seed: int = 0) -> BenchResult:
    """Play random games for about ``seconds`` and count them (the hot loop of search)."""
    rng = random.Random(seed)
    randrange = rng.randrange
    options = {"turn_limit": SAFETY_TURN_LIMIT}
    games = actions = limited = 0
    start = time.perf_counter()
    cpu_start = time.process_time()
    deadline = start + seconds
    while True:
        game = Game.new(players=players, seed=seed + games, options=options)
        legal_actions = game.legal_actions
        apply = game.apply_unchecked
        while not game.is_over:
            legal = legal_actions()
            apply(legal[randrange(len(legal))])
            actions += 1
        games += 1
        limited += game.outcome() == (None, "turn-limit")
        if time.perf_counter() >= deadline:
            break
    elapsed = time.perf_counter() - start
    cpu = max(time.process_time() - cpu_start, 1e-9)
    return BenchResult(
        players=players,
        games=games,
        actions=actions,
        seconds=round(elapsed, 3),
        games_per_s=round(games / cpu, 1),
        actions_per_s=round(actions / cpu, 1),
        actions_per_game=round(actions / games, 1),
        turn_limited_games=limited,
        copy_us=round(copy_microseconds(players, seed), 2),
        compiled=gotown.engine.COMPILED,
    )


def copy_microseconds(players: int, seed: int = 0, positions: int = 50, copies: int = 200) -> float:
    """Mean cost of ``Game.copy(history=False)``, the search bots' way back to a position
    (chosen over make/unmake: thieves and reshuffles make unmake costly to get right)."""
    rng = random.Random(seed)
    samples: list[Game] = []
    for index in range(positions):
        game = Game.new(players=players, seed=seed + index, options={"turn_limit": 60})
        for _ in range(rng.randrange(60)):
            if game.is_over:
                break
            legal = game.legal_actions()
            game.apply_unchecked(legal[rng.randrange(len(legal))])
        samples.append(game)
    start = time.process_time()
    for game in samples:
        for _ in range(copies):
            game.copy(history=False)
    return (time.process_time() - start) / (positions * copies) * 1e6


def rlcard_uno_actions_per_s(players: int, seconds: float, seed: int = 0) -> float | None:
    """The same loop on RLCard's UNO core, or None when rlcard is not installed.

    It drives UNO's ``Round`` directly (legal actions, random choice, ``proceed_round``), so
    that neither side builds an observation: ``UnoGame.step`` would also build the next
    player's state dict, which makes UNO look slower than its rules are.
    """
    try:
        import numpy as np
        from rlcard.games.uno.game import UnoGame
    except ImportError:
        return None
    rng = random.Random(seed)
    actions = 0
    start = time.process_time()
    deadline = time.perf_counter() + seconds
    games = 0
    while time.perf_counter() < deadline:
        game = UnoGame(num_players=players)
        game.np_random = np.random.RandomState(seed + games)
        game.init_game()
        uno_round, uno_players = game.round, game.players
        while not uno_round.is_over:
            legal = uno_round.get_legal_actions(uno_players, uno_round.current_player)
            uno_round.proceed_round(uno_players, legal[rng.randrange(len(legal))])
            actions += 1
        games += 1
    return actions / max(time.process_time() - start, 1e-9)
