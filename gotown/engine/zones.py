"""The public zones (R3) and what each action does to them (R10-R19), stated once.

The game applies these effects to its own zones, and :class:`PublicZones` folds a seat's events
into the public zones with the same functions (every action is public, R22): the search bots
learn the public history from it instead of restating the rules.

A floor is a tuple ``(number, other, dogs)`` whose first card is always a number (the joker,
if any, is ``other`` and its value is ``9 - number``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Final, Protocol

from . import actions as act
from .actions import Action
from .cards import BONE, CODES, DOG, DONUT_TRUCK, KIND_OF, KINDS, MILKSHAKE
from .errors import InvalidPositionError
from .views import Event, Floor

FloorT = tuple[int, int, int]  # (number, other card, dogs)


class Zones(Protocol):
    """The public zones an action changes: towers, discard pile (kinds), pending milkshakes
    and the donut truck on the table."""

    towers: list[list[FloorT]]
    discard: list[int]
    milkshakes: list[int]
    donut: bool


def floor_codes(floor: FloorT) -> Floor:
    """A floor's cards as codes, dogs last (the JSON form)."""
    number, other, dogs = floor
    return (CODES[number], CODES[other]) + ("dog",) * dogs


def _build(z: Zones, me: int, action: Action) -> None:
    # Build cards are sorted as codes, so a joker ("?") always comes second.
    z.towers[me].append((KIND_OF[action.cards[0]], KIND_OF[action.cards[1]], 0))


def _steal(z: Zones, me: int, action: Action) -> None:
    card = KIND_OF[action.card]  # type: ignore[index]
    number, other, _ = z.towers[action.target].pop()  # type: ignore[index]
    if card == number:  # our card matches the number: we take the partner
        taken, left = other, number
    else:  # our card is 9 - number: we take the number, its partner is discarded
        taken, left = number, other
    z.discard.append(left)
    z.towers[me].append((card, taken, 0))


def _dog(z: Zones, me: int, action: Action) -> None:
    floors = z.towers[me if action.target is None else action.target]
    number, other, dogs = floors[action.floor]  # type: ignore[index]
    floors[action.floor] = (number, other, dogs + 1)  # type: ignore[index]


def _bone(z: Zones, me: int, action: Action) -> None:
    floors = z.towers[action.target]  # type: ignore[index]
    number, other, dogs = floors[action.floor]  # type: ignore[index]
    floors[action.floor] = (number, other, dogs - 1)  # type: ignore[index]
    z.discard += (DOG, BONE)


def _top_floor_down(z: Zones, me: int, action: Action) -> None:
    """A jack-hammer (R14) or wrecking ball (R15): the top floor, its dogs and the card go."""
    number, other, dogs = z.towers[action.target].pop()  # type: ignore[index]
    z.discard += (number, other)
    z.discard += (DOG,) * dogs
    z.discard.append(KIND_OF[action.type])


def _discarded(z: Zones, me: int, action: Action) -> None:
    """A thief or super-thief: the card is discarded (the cards it moves are hidden, R22)."""
    z.discard.append(KIND_OF[action.type])


def _milkshake(z: Zones, me: int, action: Action) -> None:
    z.milkshakes[action.target] += 1  # type: ignore[index]


def _donut_truck(z: Zones, me: int, action: Action) -> None:
    z.donut = True


def _nothing(z: Zones, me: int, action: Action) -> None:
    """Ending the turn changes no public zone by itself (the refill and the next turn are
    events of their own)."""


#: What each action type does to the public zones, for the active seat ``me``.
EFFECTS: Final[dict[str, Callable[[Zones, int, Action], None]]] = {
    act.BUILD: _build,
    act.STEAL: _steal,
    act.DOG: _dog,
    act.BONE: _bone,
    act.JACKHAMMER: _top_floor_down,
    act.WRECKING_BALL: _top_floor_down,
    act.THIEF: _discarded,
    act.SUPER_THIEF: _discarded,
    act.MILKSHAKE: _milkshake,
    act.DONUT_TRUCK: _donut_truck,
    act.END_TURN: _nothing,
}


def discard_donut(z: Zones) -> None:
    """R9: before the extra turn, the donut truck leaves the table for the discard pile."""
    z.donut = False
    z.discard.append(DONUT_TRUCK)


def drink_milkshakes(z: Zones, seat: int, count: int) -> None:
    """R7a: ``count`` pending milkshakes of ``seat`` go to the discard pile."""
    z.milkshakes[seat] -= count
    z.discard += (MILKSHAKE,) * count


@dataclass(slots=True)
class PublicZones:
    """The public zones of a game, replayed from the events one seat saw (R22).

    Start from :meth:`empty` (a game from its deal) and :meth:`apply` each event in order; the
    zones then hold what the view shows, for a game dealt by ``Game.new``. A game set up from a
    position began with zones its events do not tell: its replay may not fit
    (:class:`InvalidPositionError`) or may lead elsewhere, which callers compare.
    """

    towers: list[list[FloorT]]
    milkshakes: list[int]
    discard: list[int] = field(default_factory=list)
    donut: bool = False

    @classmethod
    def empty(cls, players: int) -> PublicZones:
        return cls(towers=[[] for _ in range(players)], milkshakes=[0] * players)

    @classmethod
    def replay(cls, players: int, events: Iterable[Event]) -> PublicZones:
        zones = cls.empty(players)
        for event in events:
            zones.apply(event)
        return zones

    def apply(self, event: Event) -> None:
        """Play one event on the zones; InvalidPositionError when it does not fit them."""
        kind = event.type
        try:
            if kind == "action" and event.action is not None and event.seat is not None:
                EFFECTS[event.action.type](self, event.seat, event.action)
            elif kind == "turn" and event.extra and self.donut:
                discard_donut(self)
            elif kind == "milkshake-turn" and event.seat is not None and event.count is not None:
                drink_milkshakes(self, event.seat, event.count)
            elif kind == "reshuffle":
                self.discard = []
        except (IndexError, KeyError, TypeError):
            raise InvalidPositionError(
                f"the event {event.to_json()} does not fit the zones replayed so far"
            ) from None

    def discard_counts(self) -> list[int]:
        """How many cards of each kind the discard pile holds, in kind order."""
        counts = [0] * KINDS
        for kind in self.discard:
            counts[kind] += 1
        return counts
