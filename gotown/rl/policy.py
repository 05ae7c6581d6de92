"""A trained MaskablePPO policy (sb3-contrib) as a bot level: ``ppo:path=FILE``.

:func:`register_ppo_level` adds the level to :mod:`gotown.bots` (importing :mod:`gotown.rl`
calls it, and the CLI when a spec names ``ppo``), after which anything that takes a bot spec
seats it like any bot:

    gotown tournament ppo:path=ppo-easy.zip medium --games 200

The bot sees only its seat's view (R22): it plays the policy's most likely legal action for
:func:`~gotown.rl.encode_view` of the view, the illegal ones masked out.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import cache
from typing import Any

from gotown.bots import register_level
from gotown.engine import Action, View

from .action_space import action_mask, action_to_engine, space_of
from .encoding import encode_view, observation_size

LEVEL = "ppo"
_FORM = "ppo:path=FILE (a model saved by MaskablePPO.save)"


def spec_path(spec: str) -> str:
    """The model file a ``ppo:path=FILE`` spec names; ValueError naming what is wrong. The
    path is everything after ``path=`` (commas and colons included)."""
    level, colon, rest = spec.partition(":")
    if level != LEVEL or not colon or not rest.startswith("path=") or rest == "path=":
        raise ValueError(f"bot {spec!r}: write {_FORM}")
    path = rest.removeprefix("path=")
    if not os.path.isfile(path):
        raise ValueError(f"bot {spec!r}: no model file {path!r}")
    return path


@cache
def _load(path: str, modified: float) -> Any:
    """The model in ``path`` (loaded once per file version), on the CPU, one thread: a bot
    decides one observation at a time, and a tournament runs one bot per core."""
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    return MaskablePPO.load(path, device="cpu")


class PPOBot:
    """Plays the most likely legal action of a MaskablePPO policy (deterministic)."""

    def __init__(self, spec: str, seed: int) -> None:
        path = spec_path(spec)
        self.name = spec
        self.seed = seed  # (the policy's choice is deterministic)
        self._path = os.path.abspath(path)
        self.model = _load(self._path, os.path.getmtime(path))
        self._size = int(self.model.observation_space.shape[0])
        self._actions = int(self.model.action_space.n)

    def __getstate__(self) -> dict[str, Any]:
        """Pickled as its spec, seed and file, not its weights: a bot handed to a worker
        process at every decision (the web table's) costs a few bytes, and the worker loads
        the model once (:func:`_load`)."""
        return {"name": self.name, "seed": self.seed, "path": self._path}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.name, self.seed, self._path = state["name"], state["seed"], state["path"]
        self.model = _load(self._path, os.path.getmtime(self._path))
        self._size = int(self.model.observation_space.shape[0])
        self._actions = int(self.model.action_space.n)

    def choose(self, view: View, legal_actions: Sequence[Action]) -> Action:
        if view.seat is None:
            raise ValueError("a bot plays a seat, not the public view")
        if not legal_actions:
            raise ValueError("no legal action to choose from")
        players, options = view.players, view.options
        if observation_size(players) != self._size or space_of(players, options).size != (
            self._actions
        ):
            raise ValueError(
                f"{self.name}: the model was trained for another player count or target "
                f"options (observations of {self._size}, {self._actions} actions)"
            )
        mask = action_mask(legal_actions, view.seat, players, options).astype(bool)
        index, _ = self.model.predict(encode_view(view), action_masks=mask, deterministic=True)
        return action_to_engine(int(index), players, options, seat=view.seat)


def check_spec(spec: str) -> None:
    spec_path(spec)


def register_ppo_level() -> None:
    """Add ``ppo:path=FILE`` to the bot levels (:func:`gotown.bots.register_level`)."""
    register_level(LEVEL, check_spec, PPOBot)
