"""Learning environments for GoTown: one encoding (:mod:`gotown.rl.encoding`) behind three
interfaces, PettingZoo (:mod:`gotown.rl.pettingzoo`), Gymnasium (:mod:`gotown.rl.gymnasium`,
registered here as ``GoTown-v0``) and OpenSpiel (:mod:`gotown.rl.openspiel`, registered as
``python_gotown`` when imported). Importing it also adds the bot level ``ppo:path=FILE``
(:mod:`gotown.rl.policy`), so that a trained policy can be an opponent anywhere a bot spec is
taken; :mod:`gotown.bots` itself imports neither torch nor this package. Needs the ``rl``
extra (docs/rl.md says how to install it from the checkout).

Everything a learner sees is built from a seat's :class:`~gotown.engine.View` (R22).
"""

from __future__ import annotations

import gymnasium

from .action_space import action_mask, action_space_size, action_to_engine, engine_to_action
from .encoding import encode_view, observation_layout, observation_size
from .policy import register_ppo_level

if "GoTown-v0" not in gymnasium.registry:
    gymnasium.register(id="GoTown-v0", entry_point="gotown.rl.gymnasium:GoTownEnv")
register_ppo_level()  # (torch is imported when a policy is loaded, not here)

__all__ = [
    "action_mask",
    "action_space_size",
    "action_to_engine",
    "encode_view",
    "engine_to_action",
    "observation_layout",
    "observation_size",
]
