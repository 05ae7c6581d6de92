"""A game at one terminal: the engine's :class:`Game`, the people and the bots around it.

The one place that holds the game; screens only ever get a seat's :class:`View` (R22) and the
legal actions of the seat at the keyboard. A bot is asked with its own seat's view only.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field, replace
from typing import Any

from gotown.bots import Bot, bot_from_spec, hashed_seed
from gotown.bots import hint as bot_hint
from gotown.engine import Action, Game, Options, Record, View


@dataclass(frozen=True)
class Setup:
    """What a table is made of; a rematch reuses it with a new seed."""

    players: int = 2
    people: int = 1
    bots: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    seed: int | None = None
    options: Options = field(default_factory=Options)

    def __post_init__(self) -> None:
        if not 2 <= self.players <= 4:
            raise ValueError(f"{self.players} players: a game needs 2 to 4 (R1)")
        if not 1 <= self.people <= self.players:
            raise ValueError(f"{self.people} people at a table of {self.players} seats")
        if len(self.bots) > self.players - self.people:
            raise ValueError(
                f"{len(self.bots)} bots for {self.players - self.people} free seats "
                f"({self.players} players, {self.people} people)"
            )
        for spec in self.bots:
            bot_from_spec(spec, 0)  # a ValueError naming a bad spec, before any game starts

    def bot_specs(self) -> list[str]:
        """One spec per bot seat: those given, the last repeated (``medium`` when none)."""
        count = self.players - self.people
        given = list(self.bots) or ["medium"]
        return (given + [given[-1]] * count)[:count]


class LocalSession:
    """People in seats ``0..people-1``, bots in the others, one :class:`Game`."""

    def __init__(self, setup: Setup) -> None:
        self.setup = setup
        self.seed = setup.seed if setup.seed is not None else random.SystemRandom().getrandbits(62)
        self.game = Game.new(players=setup.players, seed=self.seed, options=setup.options)
        specs = setup.bot_specs()
        self.bots: dict[int, Bot] = {
            seat: bot_from_spec(spec, hashed_seed(f"tui:{self.seed}:{seat}"))
            for seat, spec in zip(range(setup.people, setup.players), specs, strict=True)
        }
        people = [
            setup.names[s] if s < len(setup.names) else ("You" if setup.people == 1 else None)
            for s in range(setup.people)
        ]
        self.names = [name or f"Player {s + 1}" for s, name in enumerate(people)] + [
            f"{specs[s - setup.people].split(':')[0].capitalize()} bot"
            + (f" {s}" if specs.count(specs[s - setup.people]) > 1 else "")
            for s in range(setup.people, setup.players)
        ]

    # -- questions --------------------------------------------------------------------
    @property
    def people(self) -> list[int]:
        return list(range(self.setup.people))

    def is_person(self, seat: int) -> bool:
        return seat not in self.bots

    @property
    def active(self) -> int:
        return self.game.active

    @property
    def is_over(self) -> bool:
        return self.game.is_over

    def view(self, seat: int | None) -> View:
        return self.game.view(seat)

    def legal(self, seat: int | None) -> tuple[Action, ...]:
        """The seat's legal actions: none unless it is that person's turn."""
        if seat is None or seat != self.game.active or self.game.is_over:
            return ()
        return self.game.legal_actions()

    # -- play -------------------------------------------------------------------------
    def play(self, seat: int, action: Action) -> None:
        """Play ``action`` for ``seat``; a refused one raises the engine's error
        (``IllegalActionError`` with its rule) and leaves the game as it was."""
        if seat != self.game.active and not self.game.is_over:
            raise ValueError(f"it is {self.names[self.game.active]}'s turn, not yours (R21)")
        self.game.apply(action)

    def bot_choice(self, seat: int) -> Action:
        """What the bot of ``seat`` plays now (slow: call it from a worker thread). It sees its
        own seat's view only."""
        return self.bots[seat].choose(self.game.view(seat), self.game.legal_actions())

    def hint(self, seat: int, top: int = 3) -> list[tuple[Action, float]]:
        """The strong bot's best actions for ``seat`` now, with win probabilities (slow)."""
        legal = self.legal(seat)
        return bot_hint(self.game.view(seat), legal, seed=hashed_seed(f"hint:{self.seed}"), top=top)

    def record_json(self) -> dict[str, Any]:
        record: Record = Record.of(self.game)
        return record.to_json()

    def save(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(self.record_json(), handle, indent=1)
            handle.write("\n")

    def rematch(self) -> LocalSession:
        """The same table, a new deal."""
        return LocalSession(replace(self.setup, seed=None))


def load_record(path: str) -> Record:
    """A saved game record; ``ValueError`` (or ``OSError``) saying what is wrong."""
    with open(path, encoding="utf-8") as handle:
        try:
            data = json.load(handle)
        except json.JSONDecodeError as error:
            raise ValueError(f"{path} is not JSON: {error}") from None
    record = Record.from_json(data)
    record.replay()  # every action checked now, so that stepping through never fails
    return record
