"""The rules of GoTown (``../shared/rules/RULES.md``), as a pure standard-library library.

>>> game = Game.new(players=2, seed=1)
>>> while not game.is_over:
...     game.apply(game.legal_actions()[0])   # doctest: +SKIP
"""

from . import _build  # noqa: F401  (first: it decides where the modules below load from)
from . import game as _game
from .actions import (
    ACTION_RULES,
    ACTION_TYPES,
    PLAYED_FROM,
    Action,
    cards_played,
    format_action,
    parse_action,
)
from .cards import CARDS, CODES, COPIES, DECK_SIZE, JOKER_VALUES, Card
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
from .position import SEED_BITS, Position
from .record import Record
from .views import Event, View
from .zones import PublicZones

#: Whether this process runs the engine compiled by mypyc (C extensions) rather than its
#: Python sources; both builds pass the same tests (see docs/engine-api.md, "Builds").
COMPILED: bool = not str(_game.__file__).endswith(".py")

__all__ = [
    "ACTION_RULES",
    "ACTION_TYPES",
    "CARDS",
    "CODES",
    "COMPILED",
    "COPIES",
    "DECK_SIZE",
    "JOKER_VALUES",
    "OPTION_CHOICES",
    "PLAYED_FROM",
    "SEED_BITS",
    "Action",
    "Card",
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
    "cards_played",
    "format_action",
    "parse_action",
]
