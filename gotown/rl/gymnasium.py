"""GoTown as a single-agent Gymnasium environment: one seat learns, our bots play the others.

>>> import gymnasium, gotown.rl
>>> env = gymnasium.make("GoTown-v0", players=2, opponents=["medium"])
>>> observation, info = env.reset(seed=1)
>>> done = False
>>> while not done:
...     action = env.action_space.sample(info["action_mask"])
...     observation, reward, terminated, truncated, info = env.step(action)
...     done = terminated or truncated

The observation is :func:`gotown.rl.encode_view` of the learner's seat; the legal actions are
``info["action_mask"]`` and ``env.unwrapped.action_masks()`` (sb3-contrib's MaskablePPO asks
the latter). The reward is +1 for a win, -1 for a loss, 0 otherwise; a turn limit (R23)
truncates, a stalemate (R20b) terminates. The learner's seat is random each episode unless
``seat`` names it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from gotown.bots import Bot, RandomBot, bot_from_spec, hashed_seed
from gotown.engine import Action, Game, GoTownError, InvalidActionError, Options, Termination

from .action_space import action_to_engine, space_of
from .encoding import (
    DEFAULT_TURN_LIMIT,
    SeatViews,
    observation_high,
    observation_size,
    observe,
    play_index,
    returns,
)
from .pettingzoo import ILLEGAL_CHOICES
from .render import RENDER_MODES, render

#: Deals a reset tries before it gives up on reaching a turn of the learner.
_DEALS = 100


class GoTownEnv(gymnasium.Env[np.ndarray, np.int64]):
    """One seat of a game against bots (``opponents``: one bot spec per other seat, or one
    for all; :func:`gotown.bots.bot_from_spec`). ``options`` are the R23 options by name
    (``turn_limit`` defaults to :data:`~gotown.rl.encoding.DEFAULT_TURN_LIMIT`).

    ``illegal`` says what an illegal action does. ``"lose"`` (the default): the game is left as
    it was, the episode ends with -1 and ``info["illegal_action"]`` names the rule, as
    PettingZoo's classic games do; Gymnasium's action space has no mask, so its own checker
    and unmasked learners try such actions. ``"raise"``: the engine's error, naming the rule.
    An index outside the action space always raises.
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 1}

    def __init__(
        self,
        players: int = 2,
        opponents: Sequence[str] = ("medium",),
        seat: int | None = None,
        illegal: str = "lose",
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        super().__init__()
        if render_mode not in (None, *RENDER_MODES):
            raise ValueError(f"render_mode {render_mode!r} is not None or one of {RENDER_MODES}")
        if illegal not in ILLEGAL_CHOICES:
            raise ValueError(f"illegal={illegal!r} is not one of {', '.join(ILLEGAL_CHOICES)}")
        options.setdefault("turn_limit", DEFAULT_TURN_LIMIT)
        self.options = Options.from_json(options)
        Game.new(players, 0, self.options)  # refuses bad players and options now
        if isinstance(opponents, str):
            opponents = [opponents]
        specs = list(opponents)
        if len(specs) == 1:
            specs *= players - 1
        if len(specs) != players - 1:
            raise ValueError(
                f"{len(specs)} opponents for {players} players: name one bot per other seat, "
                "or one for all"
            )
        #: Which opponents are the ``random`` level (each game then seats a ViewlessRandom).
        self._random = [type(bot_from_spec(spec, 0)) is RandomBot for spec in specs]
        if seat is not None and (type(seat) is not int or not 0 <= seat < players):
            raise ValueError(f"seat {seat!r} does not exist: seats are 0 to {players - 1} (R1)")
        self.players = players
        self.opponents = specs
        self.fixed_seat = seat
        self.illegal = illegal
        self.render_mode = render_mode
        self._space = space_of(players, self.options)
        size = observation_size(players)
        self.observation_space = spaces.Box(0, observation_high(players), (size,), np.float32)
        self.action_space = spaces.Discrete(self._space.size)
        self.game = Game.new(players, 0, self.options)
        self.seat = 0
        self.bots: dict[int, Bot | ViewlessRandom] = {}
        self._views = SeatViews(self.game)
        self._lost = False  # (an illegal action ended the episode, the game left as it was)
        self._legal_of: Game | None = None  # (the game and version self._legal is of)
        self._legal_version = -1
        self._legal: list[int] = []

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """A new game dealt from the environment's random generator (seeded by ``seed``), the
        bots playing until the learner's first turn. A game over before the learner acts
        (a turn limit of one turn, say) is dealt again. ``options`` is not used."""
        super().reset(seed=seed)
        for _ in range(_DEALS):
            deal = int(self.np_random.integers(2**62))
            seat = self.fixed_seat
            if seat is None:
                seat = int(self.np_random.integers(self.players))
            self.seat = seat
            self._lost = False
            self.game = Game.new(self.players, deal, self.options)
            self._views = SeatViews(self.game)
            others = [s for s in range(self.players) if s != seat]
            self.bots = {}
            for s, spec, plain in zip(others, self.opponents, self._random, strict=True):
                seed = hashed_seed(f"gymnasium {deal} {s}")
                self.bots[s] = ViewlessRandom(seed) if plain else bot_from_spec(spec, seed)
            self._play_bots()
            if not self.game.is_over:
                return self.observation(), self._info()
        raise ValueError(
            f"{_DEALS} games in a row ended before seat {self.seat} could act: the turn limit "
            f"({self.options.turn_limit}) leaves it no turn (R23)"
        )

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        game = self.game
        if game.is_over or self._lost:
            raise InvalidActionError("the episode is over: call reset()")
        try:
            # (an int or a numpy integer, not a bool nor 1.0, among the legal indices)
            if (type(action) is int or isinstance(action, np.integer)) and (
                action in self._legal_now()
            ):
                game.apply_unchecked(self._space.by_seat[self.seat][action])
            else:
                play_index(game, action, self._space)  # raises, naming the rule (or the range)
        except GoTownError as error:
            action_to_engine(action, self.players, self.options)  # out of range: always raise
            if self.illegal == "raise":
                raise
            info = self._info()
            info["illegal_action"] = str(error)
            self._lost = True
            return self.observation(), -1.0, True, False, info
        self._play_bots()
        outcome = game.outcome()
        observation, info = observe(game, self.seat), self._info()
        if outcome is None:
            return observation, 0.0, False, False, info
        if outcome.reason == Termination.TURN_LIMIT:  # (R23): truncated, no winner
            return observation, 0.0, False, True, info
        return observation, returns(game)[self.seat], True, False, info

    def observation(self) -> np.ndarray:
        """The learner's observation now (what ``reset`` and ``step`` return)."""
        return observe(self.game, self.seat)

    def action_masks(self) -> np.ndarray:
        """The legal actions now, as booleans (sb3-contrib's MaskablePPO calls this)."""
        return self._mask().view(bool)

    def render(self) -> str | np.ndarray | None:
        """The public table as text (``render_mode="ansi"``; ``"human"`` prints it) or as an
        image (``"rgb_array"``, the learner's seat marked; for ``RecordVideo``): no hand is
        shown (R22)."""
        return render(self.game, self.render_mode, me=self.seat)

    def _play_bots(self) -> None:
        game = self.game
        if self._views.game is not game:  # (a game set from outside)
            self._views = SeatViews(game)
        while not game.is_over and game.active != self.seat:
            seat = game.active
            legal = game.legal_actions()
            bot = self.bots[seat]
            if isinstance(bot, ViewlessRandom):  # (its pick, inline: one of the legal actions)
                game.apply_unchecked(legal[bot.rng.randrange(len(legal))])
                continue
            action = bot.choose(self._views.view(seat), legal)
            if action in legal:
                game.apply_unchecked(action)
            else:
                game.apply(action)  # a bot's mistake: the engine names the rule

    def _legal_now(self) -> list[int]:
        """The indices of the learner's legal actions now (none while it is not its turn),
        kept for the position: the mask, ``action_masks`` and ``step`` all ask."""
        game = self.game
        if self._legal_of is not game or self._legal_version != game.version:
            legal: list[int] = []
            if not game.is_over and game.active == self.seat:
                index_of = self._space.index_of[self.seat]
                legal = [index_of[action] for action in game.legal_actions()]
            self._legal_of, self._legal_version, self._legal = game, game.version, legal
        return self._legal

    def _mask(self) -> np.ndarray:
        mask = bytearray(self._space.size)
        for index in self._legal_now():
            mask[index] = 1
        return np.frombuffer(mask, dtype=np.int8)

    def _info(self) -> dict[str, Any]:
        mask = bytearray(self._space.size)  # (as _mask: each step asks, a call less)
        for index in self._legal_now():
            mask[index] = 1
        return {"action_mask": np.frombuffer(mask, dtype=np.int8), "seat": self.seat}


class ViewlessRandom:
    """The ``random`` level without the view it never reads: the uniformly random legal action
    that :class:`~gotown.bots.RandomBot` plays from the same seed (a test plays both side by
    side), with no view built for it. Building a view costs more than the rest of a random
    opponent's move, and it sees nothing at all here (R22 holds trivially)."""

    name = "random"

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def pick(self, legal_actions: Sequence[Action]) -> Action:
        return legal_actions[self.rng.randrange(len(legal_actions))]
