"""Game records: how a game began (setup and seed, or a position) and the actions taken.

A side module: it imports the game, never the reverse (``Record.of(game)``, as python-chess's
``pgn.Game.from_board`` reads a board).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .actions import Action
from .errors import GoTownError, InvalidActionError, InvalidPositionError
from .game import Game


@dataclass(frozen=True, slots=True)
class Record:
    """A replayable game: ``origin`` is ``{"players", "options", "seed"}`` for a game from
    :meth:`Game.new`, or ``{"position": {...}}`` for a game from a position."""

    origin: dict[str, Any]
    actions: tuple[Action, ...]

    @classmethod
    def of(cls, game: Game) -> Record:
        """The record of ``game`` so far; InvalidActionError for a copy made without history,
        which has none."""
        origin = game.origin
        if origin is None:
            raise InvalidActionError("this copy was made without history and has no record")
        return cls(origin=origin, actions=game.actions)

    def to_json(self) -> dict[str, Any]:
        return {**self.origin, "actions": [a.to_json() for a in self.actions]}

    @classmethod
    def from_json(cls, data: Any) -> Record:
        if not isinstance(data, dict) or not isinstance(data.get("actions"), list):
            raise InvalidPositionError("a record is an object with a list of 'actions'")
        origin = {k: v for k, v in data.items() if k != "actions"}
        if set(origin) not in ({"players", "options", "seed"}, {"position"}):
            raise InvalidPositionError(
                "a record begins with 'players', 'options' and 'seed', or with a 'position'"
            )
        actions = []
        for index, action in enumerate(data["actions"]):
            try:
                actions.append(Action.from_json(action))
            except InvalidActionError as exc:
                raise InvalidPositionError(f"action {index} of the record: {exc}") from None
        return cls(origin=origin, actions=tuple(actions))

    def start(self) -> Game:
        """The game as it stood before the first action."""
        if "position" in self.origin:
            return Game.from_position(self.origin["position"])
        try:
            return Game.new(
                players=self.origin["players"],
                seed=self.origin["seed"],
                options=self.origin["options"],
            )
        except InvalidActionError as exc:  # players, seed or first seat that Game.new refuses
            raise InvalidPositionError(f"the record's setup: {exc}") from None

    def replay(self) -> Game:
        """Play the record through (checked); raises if an action is illegal."""
        game = self.start()
        for index, action in enumerate(self.actions):
            try:
                game.apply(action)
            except GoTownError as exc:
                raise InvalidPositionError(f"action {index} of the record: {exc}") from None
        return game
