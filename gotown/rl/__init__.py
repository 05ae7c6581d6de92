"""Learning environments for GoTown: one encoding (:mod:`gotown.rl.encoding`) behind three
interfaces, PettingZoo (:mod:`gotown.rl.pettingzoo`), Gymnasium (:mod:`gotown.rl.gymnasium`,
registered here as ``GoTown-v0``) and OpenSpiel (:mod:`gotown.rl.openspiel`, registered as
``python_gotown`` when imported). Needs the ``rl`` extra: ``pip install 'gotown[rl]'``.

Everything a learner sees is built from a seat's :class:`~gotown.engine.View` (R22).
"""

from __future__ import annotations

import gymnasium

from .action_space import action_mask, action_space_size, action_to_engine, engine_to_action
from .encoding import encode_view, observation_layout, observation_size

if "GoTown-v0" not in gymnasium.registry:
    gymnasium.register(id="GoTown-v0", entry_point="gotown.rl.gymnasium:GoTownEnv")

__all__ = [
    "action_mask",
    "action_space_size",
    "action_to_engine",
    "encode_view",
    "engine_to_action",
    "observation_layout",
    "observation_size",
]
