"""The rules of GoTown (``../shared/rules/RULES.md``), as a pure standard-library library.

>>> game = Game.new(players=2, seed=1)
>>> while not game.is_over:
...     game.apply(game.legal_actions()[0])   # doctest: +SKIP
"""

from .actions import ACTION_TYPES, Action, format_action, parse_action
from .cards import CODES, COPIES, DECK_SIZE, JOKER_VALUES
from .errors import (
    GoTownError,
    IllegalActionError,
    InvalidActionError,
    InvalidNotationError,
    InvalidOptionsError,
    InvalidPositionError,
)
from .game import Game
from .options import OPTION_CHOICES, Options
from .outcome import Outcome, Termination
from .position import Position
from .record import Record
from .views import Event, View
from .zones import PublicZones

__all__ = [
    "ACTION_TYPES",
    "CODES",
    "COPIES",
    "DECK_SIZE",
    "JOKER_VALUES",
    "OPTION_CHOICES",
    "Action",
    "Event",
    "Game",
    "GoTownError",
    "IllegalActionError",
    "InvalidActionError",
    "InvalidNotationError",
    "InvalidOptionsError",
    "InvalidPositionError",
    "Options",
    "Outcome",
    "Position",
    "PublicZones",
    "Record",
    "Termination",
    "View",
    "format_action",
    "parse_action",
]
