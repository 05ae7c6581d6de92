"""The rules of GoTown (``../shared/rules/RULES.md``), as a pure standard-library library.

>>> game = Game.new(players=2, seed=1)
>>> while not game.is_over:
...     game.apply(game.legal_actions()[0])   # doctest: +SKIP
"""

from . import _build  # noqa: F401  (first: it decides where the modules below load from)
from . import game as _game
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

#: Whether this process runs the engine compiled by mypyc (C extensions) rather than its
#: Python sources; both builds pass the same tests (see docs/engine-api.md, "Builds").
COMPILED: bool = not str(_game.__file__).endswith(".py")

__all__ = [
    "ACTION_TYPES",
    "CODES",
    "COMPILED",
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
