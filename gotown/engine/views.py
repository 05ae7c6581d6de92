"""What one seat may know (R22): views and the events of the game as that seat saw them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .actions import Action
from .cards import KIND_OF
from .errors import InvalidPositionError
from .options import Options

Floor = tuple[str, ...]

#: The JSON fields of each event type, besides "type".
EVENT_FIELDS: dict[str, tuple[str, ...]] = {
    "turn": ("turn", "seat", "extra"),
    "draw": ("seat", "card"),
    "milkshake-turn": ("seat", "count"),
    "action": ("seat", "action"),
    "stolen": ("seat", "victim", "card"),
    "reshuffle": ("count",),
    "end": ("winner", "reason"),
}


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened, as one seat (or a spectator) saw it.

    A ``card`` is ``None`` where the viewer may not see it: another seat's draw, a card that a
    thief moved between two other seats.
    """

    type: str
    seat: int | None = None
    card: str | None = None
    victim: int | None = None
    turn: int | None = None
    extra: bool = False
    count: int | None = None
    action: Action | None = None
    winner: int | None = None
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.type}
        for name in EVENT_FIELDS[self.type]:
            value = getattr(self, name)
            data[name] = value.to_json() if isinstance(value, Action) else value
        return data

    @classmethod
    def from_json(cls, data: Any) -> Event:
        kind = data.get("type") if isinstance(data, dict) else None
        if not isinstance(kind, str) or kind not in EVENT_FIELDS:
            raise InvalidPositionError(f"not an event: {data!r}")
        names = EVENT_FIELDS[data["type"]]
        if set(data) != {"type", *names}:
            raise InvalidPositionError(f"a {data['type']} event has the fields {names}")
        values = {name: data[name] for name in names}
        if "action" in values:
            values["action"] = Action.from_json(values["action"])
        return cls(type=data["type"], **values)


@dataclass(frozen=True, slots=True)
class View:
    """A seat's view of the game (R22), or the public view when ``seat`` is None.

    It holds every public fact, the seat's own hand, and nothing else: the other hands and the
    order of the draw pile are not in it, so a bot or a client given a view cannot peek.
    """

    seat: int | None
    players: int
    active: int
    turn: int
    version: int
    hand: tuple[str, ...] | None
    hand_sizes: tuple[int, ...]
    towers: tuple[tuple[Floor, ...], ...]
    milkshakes: tuple[int, ...]
    donut: bool
    discard: tuple[str, ...]
    draw_size: int
    options: Options
    winner: int | None
    over: bool
    events: tuple[Event, ...] = field(default=())

    @property
    def is_my_turn(self) -> bool:
        return self.seat is not None and self.seat == self.active and not self.over

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "players": self.players,
            "active": self.active,
            "turn": self.turn,
            "version": self.version,
            "hand": None if self.hand is None else list(self.hand),
            "hand_sizes": list(self.hand_sizes),
            "towers": [[list(floor) for floor in tower] for tower in self.towers],
            "milkshakes": list(self.milkshakes),
            "donut": self.donut,
            "discard": list(self.discard),
            "draw_size": self.draw_size,
            "options": self.options.to_json(),
            "winner": self.winner,
            "over": self.over,
            "events": [event.to_json() for event in self.events],
        }

    @classmethod
    def from_json(cls, data: Any) -> View:
        try:
            hand = data["hand"]
            view = cls(
                seat=data["seat"],
                players=data["players"],
                active=data["active"],
                turn=data["turn"],
                version=data["version"],
                hand=None if hand is None else tuple(_codes(hand)),
                hand_sizes=tuple(data["hand_sizes"]),
                towers=tuple(
                    tuple(tuple(_codes(floor)) for floor in tower) for tower in data["towers"]
                ),
                milkshakes=tuple(data["milkshakes"]),
                donut=bool(data["donut"]),
                discard=tuple(_codes(data["discard"])),
                draw_size=data["draw_size"],
                options=Options.from_json(data["options"]),
                winner=data["winner"],
                over=data["over"],
                events=tuple(Event.from_json(e) for e in data["events"]),
            )
        except (KeyError, TypeError) as exc:
            raise InvalidPositionError(f"not a view: missing or malformed {exc}") from None
        return view


def _codes(cards: Any) -> list[str]:
    if not isinstance(cards, list) or not all(c in KIND_OF for c in cards):
        raise InvalidPositionError(f"not a list of card codes: {cards!r}")
    return list(cards)
