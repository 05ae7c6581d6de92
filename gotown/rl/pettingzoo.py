"""GoTown as a PettingZoo AEC environment: one agent per seat, ``player_0`` to ``player_3``.

>>> from gotown.rl.pettingzoo import env
>>> table = env(players=3, dog_placement="any")
>>> table.reset(seed=1)
>>> for agent in table.agent_iter():
...     observation, reward, termination, truncation, info = table.last()
...     if termination or truncation:
...         action = None
...     else:
...         action = table.action_space(agent).sample(observation["action_mask"])
...     table.step(action)

Each observation is a Dict of ``observation`` (:func:`gotown.rl.encode_view`, relative to the
agent's seat) and ``action_mask`` (int8, 1 for each legal action; all zero for an agent whose
turn it is not). Rewards come at the end only: +1 for the winner, -1 for the others; a game
ended by its turn limit gives 0 to all and is a *truncation* (cut, not decided), a win a
*termination*, and so is a stalemate (R20b: the rules end it, a draw, 0 to all).

An illegal action ends the game as it does in PettingZoo's classic games (``leduc_holdem_v4``,
``texas_holdem_v4``: their ``TerminateIllegalWrapper``): -1 to the agent that played it, 0 to
the others, every agent terminated (and truncated, as that wrapper does), the game left as it
was, and ``infos[agent]["illegal_action"]`` names the rule. ``env(illegal="raise")`` raises
the engine's error naming the rule instead (so does :class:`raw_env`), the game left as it was.
``None`` for an agent that is to act, or an index outside the space, always raises.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from gotown.engine import Game, IllegalActionError, InvalidActionError, Options, Termination

from .action_space import action_mask, action_to_engine, space_of
from .encoding import (
    DEFAULT_TURN_LIMIT,
    observation_high,
    observation_size,
    observe,
    play_index,
    returns,
)
from .render import RENDER_MODES, render

#: What an illegal action does: ``"lose"`` (PettingZoo's convention) or ``"raise"``.
ILLEGAL_CHOICES = ("lose", "raise")


def env(
    players: int = 2, render_mode: str | None = None, illegal: str = "lose", **options: Any
) -> AECEnv:
    """The environment, wrapped as PettingZoo's classic games are (an illegal action loses,
    ``step`` before ``reset`` is refused). ``illegal="raise"`` raises the engine's error
    instead of ending the game. ``options`` are the R23 options by name (``turn_limit``
    defaults to :data:`DEFAULT_TURN_LIMIT`; ``turn_limit=None`` plays on without a limit)."""
    if illegal not in ILLEGAL_CHOICES:
        raise ValueError(f"illegal={illegal!r} is not one of {', '.join(ILLEGAL_CHOICES)}")
    table: AECEnv = raw_env(players, render_mode, **options)
    if illegal == "lose":
        table = TerminateIllegal(table)
    return wrappers.OrderEnforcingWrapper(table)


class TerminateIllegal(wrappers.TerminateIllegalWrapper):  # type: ignore[misc]
    """PettingZoo's ``TerminateIllegalWrapper`` with -1 for the offender, as its classic games
    use it, that also names the broken rule in the offender's info. Bad input (``None`` for an
    agent that is to act, an index outside the space, a float) raises first, as
    :class:`raw_env` does: the wrapper would read it as an index of the mask."""

    def __init__(self, table: raw_env) -> None:
        super().__init__(table, illegal_reward=-1)

    def step(self, action: Any) -> None:
        table = self.env.unwrapped
        agent = table.agent_selection
        reason = None
        if not (table.terminations[agent] or table.truncations[agent]):
            reason = table.illegal_reason(action)
        super().step(action)
        if reason is not None:
            table.infos[agent]["illegal_action"] = reason


class raw_env(AECEnv):  # type: ignore[misc]  # noqa: N801 (PettingZoo's name for it)
    """The unwrapped AEC environment (:func:`env` wraps it)."""

    metadata = {
        "render_modes": list(RENDER_MODES),
        "name": "gotown_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(self, players: int = 2, render_mode: str | None = None, **options: Any) -> None:
        super().__init__()
        if render_mode not in (None, *RENDER_MODES):
            raise ValueError(f"render_mode {render_mode!r} is not None or one of {RENDER_MODES}")
        options.setdefault("turn_limit", DEFAULT_TURN_LIMIT)
        self.options = Options.from_json(options)
        Game.new(players, 0, self.options)  # refuses bad players and options now, not at reset
        self.players = players
        self.render_mode = render_mode
        self.possible_agents = [f"player_{seat}" for seat in range(players)]
        self._seat = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self._space = space_of(players, self.options)
        size = observation_size(players)
        self._observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0, observation_high(players), (size,), np.float32),
                "action_mask": spaces.Box(0, 1, (self._space.size,), np.int8),
            }
        )
        self._action_space = spaces.Discrete(self._space.size)
        self._no_actions = np.zeros(self._space.size, dtype=np.int8)
        self.game: Game = Game.new(players, 0, self.options)
        self._rng = np.random.default_rng()

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._action_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game, dealt from ``seed`` (from the previous seed's sequence when None).
        ``options`` is PettingZoo's reset argument and is not used: the R23 options are the
        environment's own."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        deal = int(self._rng.integers(2**63 - 1)) if seed is None else seed
        self.game = Game.new(self.players, deal, self.options)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[self.game.active]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        game = self.game
        if seat == game.active and not game.is_over:
            mask = action_mask(game.legal_actions(), seat, self.players, self.options)
        else:
            mask = self._no_actions.copy()
        return {"observation": observe(game, seat), "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise InvalidActionError(f"{agent} is to act: None is no action")
        self._cumulative_rewards[agent] = 0.0
        game = self.game
        play_index(game, action)
        if game.is_over:
            outcome = game.outcome()
            decided = outcome is not None and outcome.reason != Termination.TURN_LIMIT
            for agent_name, result in zip(self.agents, returns(game), strict=True):
                self.rewards[agent_name] = result
                self.terminations[agent_name] = decided
                self.truncations[agent_name] = not decided
        else:
            self.agent_selection = self.possible_agents[game.active]
        self._accumulate_rewards()

    def illegal_reason(self, action: Any) -> str | None:
        """Why the agent to act may not play ``action`` now (the engine's refusal, naming the
        rule), or None when it may. Bad input raises InvalidActionError."""
        game = self.game
        if action is None:
            raise InvalidActionError(f"{self.agent_selection} is to act: None is no action")
        if game.is_over:
            raise InvalidActionError("the game is over: no action is legal (R20, R23)")
        engine_action = action_to_engine(action, self.players, self.options, seat=game.active)
        if engine_action in game.legal_actions():
            return None
        return str(IllegalActionError(*game.why_illegal(engine_action)))

    def render(self) -> str | np.ndarray | None:
        """The public table as text (``render_mode="ansi"``; ``"human"`` prints it) or as an
        image (``"rgb_array"``, :func:`gotown.rl.render.render_image`): no hand is shown
        (R22)."""
        return render(self.game, self.render_mode)

    def close(self) -> None:
        pass
