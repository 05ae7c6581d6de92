"""The 54 cards of GoTown (R2) and their codes.

Inside the engine a card is a small int (its *kind*), so that a hand is a list of counts
indexed by kind; outside, a card is its code string, as in the JSON formats.
"""

from __future__ import annotations

from typing import Any, Final, NamedTuple

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


def partner(number: int) -> int:
    """The number that makes a floor with ``number`` (R5): the two add up to nine."""
    return 9 - number


def pair_colour(number: int) -> int:
    """The colour group of a number card (R2): 1/8, 2/7, 3/6 and 4/5 share one each."""
    return min(number, partner(number))


def joker_value(number: int) -> int:
    """What a joker stands for in a floor beside ``number`` (R5): its partner."""
    return partner(number)


#: The same as data, by the partner's code, for those who do not run this code (the web
#: table's page gets it from ``/api/meta``).
JOKER_VALUES: Final[dict[str, int]] = {CODES[n]: joker_value(n) for n in range(1, 9)}

#: The rule that says what each special card does (R12-R19); its action has its code as type.
_SPECIAL_RULES: Final[dict[str, str]] = {
    "dog": "R12", "bone": "R13", "jackhammer": "R14", "wrecking-ball": "R15",
    "milkshake": "R18", "donut-truck": "R19", "thief": "R16", "super-thief": "R17",
}  # fmt: skip


class Card(NamedTuple):
    """One kind of card and what the rules say of it (R2, R5): every front end reads these
    facts here (the web table's page from ``/api/meta``) instead of stating them again."""

    code: str
    #: The engine's small int for it: the canonical order of hands.
    kind: int
    #: "number" (1..8), "joker" (``?``) or "special".
    category: str
    #: A number card's number, else None.
    number: int | None
    #: The code of the number card that makes a floor with a number card (R5), else None (a
    #: joker makes one with any number, standing for that number's partner).
    partner: str | None
    #: A number card's colour group (R2): 1 for 1/8, 2 for 2/7, 3 for 3/6, 4 for 4/5.
    pair_colour: int | None
    #: The rules that say what the card does: a joker is wild in a floor (R5, R10), a number
    #: builds (R10) or steal-builds (R11), a special card has a rule of its own (R12-R19).
    rules: tuple[str, ...]
    #: How many the deck holds (R2).
    copies: int

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code, "kind": self.kind, "category": self.category,
            "number": self.number, "partner": self.partner, "pair_colour": self.pair_colour,
            "rules": list(self.rules), "copies": self.copies,
        }  # fmt: skip


def _card(kind: int) -> Card:
    code, copies = CODES[kind], COPIES[kind]
    if kind == JOKER:
        return Card(code, kind, "joker", None, None, None, ("R5", "R10"), copies)
    if kind <= 8:
        mate = CODES[partner(kind)]
        return Card(code, kind, "number", kind, mate, pair_colour(kind), ("R10", "R11"), copies)
    return Card(code, kind, "special", None, None, None, (_SPECIAL_RULES[code],), copies)


#: Every kind of card by its code, in kind order (R2).
CARDS: Final[dict[str, Card]] = {CODES[kind]: _card(kind) for kind in range(KINDS)}


def full_deck() -> list[int]:
    """All 54 cards as kinds, in kind order (shuffle it before use)."""
    return [kind for kind in range(KINDS) for _ in range(COPIES[kind])]
