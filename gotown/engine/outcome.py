"""How a game ends (R20, R23 ``turn_limit``): the one answer to "is it over?"."""

from __future__ import annotations

import enum
from typing import Final, NamedTuple


class Termination(enum.StrEnum):
    """Why a game ended; each member equals its JSON word (``"win"``, ``"turn-limit"``)."""

    WIN = "win"
    TURN_LIMIT = "turn-limit"


class Outcome(NamedTuple):
    """How a game ended: ``winner`` is a seat, or None when the turn limit ended it."""

    winner: int | None
    reason: Termination

    @classmethod
    def of(cls, winner: int | None) -> Outcome:
        """The outcome with this winner: a win (R20), or the turn limit when None (R23)."""
        if winner is None:
            return _TURN_LIMIT
        if type(winner) is int and 0 <= winner < len(_WINS):
            return _WINS[winner]
        return cls(winner, Termination.WIN)


_TURN_LIMIT: Final = Outcome(None, Termination.TURN_LIMIT)
_WINS: Final = [Outcome(seat, Termination.WIN) for seat in range(4)]
