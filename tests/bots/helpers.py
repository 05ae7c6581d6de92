"""Positions for bot tests: reached by random play, so every one is a position the rules reach."""

from __future__ import annotations

import random
from typing import Any

from gotown.bots.base import Bot
from gotown.bots.ismcts import SearchBot
from gotown.engine import Game

#: Option sets besides the defaults, so that bots meet every variant of R23.
OPTION_SETS: tuple[dict[str, Any], ...] = (
    {},
    {"win_floors": 4},
    {"dog_placement": "any", "dogs_per_floor": "unlimited", "bone_targets": "any"},
    {"milkshake_stacking": "merge", "milkshake_blocks_refill": False},
    {"milkshake_stacking": "stack"},
)


def random_position(players: int, seed: int, steps: int, options: dict[str, Any]) -> Game:
    """The game after up to ``steps`` uniformly random actions (stopping before the end)."""
    game = Game.new(players=players, seed=seed, options=options)
    rng = random.Random(seed)
    for _ in range(steps):
        legal = game.legal_actions()
        action = legal[rng.randrange(len(legal))]
        trial = game.copy(history=False)
        trial.apply_unchecked(action)
        if trial.is_over:
            break
        game.apply(action)
    return game


def small_search(name: str, seed: int, infer: bool = False) -> Bot:
    """The hard bot's search with a small budget, to keep the tests quick."""
    return SearchBot(name, seed, iterations=30, rollout_turns=None, infer=infer)
