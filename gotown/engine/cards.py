"""The 54 cards of GoTown (R2) and their codes.

Inside the engine a card is a small int (its *kind*), so that a hand is a list of counts
indexed by kind; outside, a card is its code string, as in the JSON formats.
"""

from __future__ import annotations

from typing import Final

JOKER: Final = 0
# 1..8 are the number cards, their kind is their number.
DOG: Final = 9
BONE: Final = 10
JACKHAMMER: Final = 11
WRECKING_BALL: Final = 12
MILKSHAKE: Final = 13
DONUT_TRUCK: Final = 14
THIEF: Final = 15
SUPER_THIEF: Final = 16

KINDS: Final = 17

#: How many players a game seats (R1).
MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 4

#: Code of each kind, in kind order (the canonical order of hands).
CODES: Final[tuple[str, ...]] = (
    "?", "1", "2", "3", "4", "5", "6", "7", "8",
    "dog", "bone", "jackhammer", "wrecking-ball", "milkshake", "donut-truck",
    "thief", "super-thief",
)  # fmt: skip

#: How many copies of each kind the deck holds (R2): 54 in all.
COPIES: Final[tuple[int, ...]] = (4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 2, 3, 1, 3, 1, 3, 1)

KIND_OF: Final[dict[str, int]] = {code: kind for kind, code in enumerate(CODES)}

DECK_SIZE: Final = sum(COPIES)
assert DECK_SIZE == 54


def pair_colour(number: int) -> int:
    """The colour group of a number card (R2): 1/8, 2/7, 3/6 and 4/5 share one each."""
    return min(number, 9 - number)


def joker_value(partner: int) -> int:
    """What a joker stands for in a floor beside the number ``partner`` (R5)."""
    return 9 - partner


#: The same as data, by the partner's code, for those who do not run this code (the web
#: table's page gets it from ``/api/meta``).
JOKER_VALUES: Final[dict[str, int]] = {CODES[n]: joker_value(n) for n in range(1, 9)}


def full_deck() -> list[int]:
    """All 54 cards as kinds, in kind order (shuffle it before use)."""
    return [kind for kind in range(KINDS) for _ in range(COPIES[kind])]
