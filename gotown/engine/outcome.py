"""How a game ends (R20, R20b, R23 ``turn_limit``): the one answer to "is it over?"."""

from __future__ import annotations

import enum
from typing import Final, NamedTuple


class Termination(enum.StrEnum):
    """Why a game ended; each member equals its JSON word (``"win"``, ``"stalemate"``,
    ``"turn-limit"``)."""

    WIN = "win"
    STALEMATE = "stalemate"
    TURN_LIMIT = "turn-limit"


class Outcome(NamedTuple):
    """How a game ended: ``winner`` is a seat, or None when a stalemate (R20b) or the turn
    limit (R23) ended it."""

    winner: int | None
    reason: Termination

    @classmethod
    def of(cls, winner: int | None, reason: Termination | None = None) -> Outcome:
        """The outcome with this winner: a win (R20); with no winner, ``reason`` (the turn
        limit, R23, when it is not given)."""
        if winner is None:
            return _STALEMATE if reason == Termination.STALEMATE else _TURN_LIMIT
        if type(winner) is int and 0 <= winner < len(_WINS):
            return _WINS[winner]
        return cls(winner, Termination.WIN)

    @classmethod
    def stalemate(cls) -> Outcome:
        """A position that can never change again ended the game (R20b)."""
        return _STALEMATE


_TURN_LIMIT: Final = Outcome(None, Termination.TURN_LIMIT)
_STALEMATE: Final = Outcome(None, Termination.STALEMATE)
_WINS: Final = [Outcome(seat, Termination.WIN) for seat in range(4)]
