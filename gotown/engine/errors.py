"""Errors raised by the engine: one small hierarchy under ValueError."""

from __future__ import annotations


class GoTownError(ValueError):
    """Base of every error the engine raises on bad input."""


class InvalidActionError(GoTownError):
    """An action that is malformed: unknown type, missing or wrong fields."""


class InvalidNotationError(InvalidActionError):
    """Text that is not an action in the GoTown notation."""


class InvalidPositionError(GoTownError):
    """A position, view or record that cannot be a GoTown game (R2-R5, FORMAT.md)."""


class InvalidOptionsError(InvalidPositionError):
    """Options that R23 does not define."""


class IllegalActionError(GoTownError):
    """A well-formed action that the rules do not allow now.

    ``rule`` names the rule that forbids it (for example ``"R14"``).
    """

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{message} ({rule})")
        self.rule = rule
        self.reason = message
