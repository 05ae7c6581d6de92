"""What one seat may know (R22): views and the events of the game as that seat saw them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .actions import Action
from .cards import KIND_OF, MAX_PLAYERS, MIN_PLAYERS
from .errors import InvalidActionError, InvalidPositionError
from .options import Options
from .outcome import Outcome, Termination

Floor = tuple[str, ...]
_REASONS = frozenset(reason.value for reason in Termination)

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
        for name, value in values.items():
            if not _EVENT_FIELD_OK[name](value):
                raise InvalidPositionError(f"a {kind} event's {name!r} is malformed: {value!r}")
        if "action" in values:
            try:
                values["action"] = Action.from_json(values["action"])
            except InvalidActionError as exc:
                problem = f"an action event's action is malformed: {exc}"
                raise InvalidPositionError(problem) from None
        return cls(type=data["type"], **values)


def _count(value: Any) -> bool:
    return type(value) is int and value >= 0


def _seat_or_none(value: Any) -> bool:
    return value is None or _count(value)


#: What each event field may hold (its seats are checked against the view's players).
_EVENT_FIELD_OK: dict[str, Callable[[Any], bool]] = {
    "turn": _count,
    "seat": _seat_or_none,
    "victim": _seat_or_none,
    "extra": lambda value: type(value) is bool,
    "card": lambda value: value is None or (isinstance(value, str) and value in KIND_OF),
    "count": _count,
    "action": lambda value: True,  # Action.from_json checks it
    "winner": _seat_or_none,
    "reason": lambda value: value in _REASONS,
}


@dataclass(frozen=True, slots=True)
class View:
    """A seat's view of the game (R22), or the public view when ``seat`` is None.

    It holds every public fact, the seat's own hand, and nothing else: the other hands and the
    order of the draw pile are not in it, so a bot or a client given a view cannot peek. Once
    the game is over, ``hands`` holds every seat's hand, shown to everyone (R22); None before.
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
    hands: tuple[tuple[str, ...], ...] | None = None
    reason: str | None = None

    @property
    def outcome(self) -> Outcome | None:
        """How the game ended, as :meth:`Game.outcome` says it; None while it goes on."""
        if not self.over:
            return None
        return Outcome.of(self.winner, Termination(self.reason) if self.reason else None)

    @property
    def is_my_turn(self) -> bool:
        return self.seat is not None and self.seat == self.active and not self.over

    @property
    def frozen_turns(self) -> int:
        """How many turns in a row, up to the one now under way, held nothing but their end (no
        card drawn or played, no milkshake turn): the game has not changed since. Public events
        only, so every seat and a spectator count the same (the bots stop searching a frozen
        game, and the table says it is stuck, from this one count)."""
        events = self.events
        i = len(events) - 1
        if i >= 0 and events[i].type == "turn":
            i -= 1  # the turn under way, with nothing done in it yet
        count = 0
        while i >= 0:
            end = events[i].action
            if end is None or end.type != "end-turn" or (i > 0 and events[i - 1].type != "turn"):
                break  # (a record loaded from a position starts with its first action)
            count += 1
            i -= 2
        return count

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
            "hands": None if self.hands is None else [list(hand) for hand in self.hands],
            "reason": self.reason,
        }

    @classmethod
    def from_json(cls, data: Any) -> View:
        try:
            hand = data["hand"]
            hands = data.get("hands")  # (absent from a view written before it was shown)
            reason = data.get("reason")
            if "reason" not in data and data["over"] is True:  # (a view written before it)
                reason = "turn-limit" if data["winner"] is None else "win"
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
                donut=data["donut"],
                discard=tuple(_codes(data["discard"])),
                draw_size=data["draw_size"],
                options=Options.from_json(data["options"]),
                winner=data["winner"],
                over=data["over"],
                events=tuple(Event.from_json(e) for e in data["events"]),
                hands=None if hands is None else tuple(tuple(_codes(h)) for h in hands),
                reason=reason,
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise InvalidPositionError(f"not a view: missing or malformed {exc}") from None
        _check_view(view)
        return view


def _check_view(view: View) -> None:
    """Raise InvalidPositionError unless every field of ``view`` has its shape (so that a game
    built from it, :meth:`Game.from_view`, meets only well-formed data)."""
    players = view.players
    if type(players) is not int or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise InvalidPositionError(f"not a view: 2 to 4 players (R1), not {players!r}")

    def seat(value: Any) -> bool:
        return type(value) is int and 0 <= value < players

    def per_seat(name: str, values: tuple[Any, ...]) -> None:
        if len(values) != players or not all(_count(v) for v in values):
            raise InvalidPositionError(f"not a view: {name} needs a count >= 0 for each seat")

    if not (view.seat is None or seat(view.seat)):
        raise InvalidPositionError(f"not a view: seat {view.seat!r} does not exist (R1)")
    if not seat(view.active):
        raise InvalidPositionError(f"not a view: active seat {view.active!r} does not exist (R1)")
    if not _count(view.turn) or not _count(view.version) or not _count(view.draw_size):
        raise InvalidPositionError("not a view: turn, version and draw_size are counts >= 0")
    per_seat("hand_sizes", view.hand_sizes)
    per_seat("milkshakes", view.milkshakes)
    if len(view.towers) != players:
        raise InvalidPositionError("not a view: towers needs one tower per seat")
    if view.hand is not None and (
        view.seat is None or len(view.hand) != view.hand_sizes[view.seat]
    ):
        raise InvalidPositionError(
            f"not a view: a hand of {len(view.hand)} cards for seat {view.seat}, "
            "whose hand_sizes entry differs (or the public view, which has no hand)"
        )
    if type(view.donut) is not bool or type(view.over) is not bool:
        raise InvalidPositionError("not a view: donut and over are true or false")
    if view.hands is not None and (
        not view.over
        or len(view.hands) != players
        or any(len(cards) != size for cards, size in zip(view.hands, view.hand_sizes, strict=True))
        or (view.hand is not None and view.seat is not None and view.hand != view.hands[view.seat])
    ):
        raise InvalidPositionError(
            "not a view: every hand is shown only once the game is over (R22), one per seat, "
            "each as long as its hand_sizes entry and the seat's own hand among them"
        )
    if not (view.winner is None or seat(view.winner)):
        raise InvalidPositionError(f"not a view: winner {view.winner!r} is not a seat")
    if not view.over:
        reason_ok = view.reason is None
    else:
        reason_ok = view.reason in _REASONS and (view.reason == "win") == (view.winner is not None)
    if not reason_ok:
        raise InvalidPositionError(
            f"not a view: reason {view.reason!r} is how a game over ended (one of "
            f"{sorted(_REASONS)}: 'win' exactly when there is a winner), null while it goes on"
        )
    for event in view.events:
        for value in (event.seat, event.victim, event.winner):
            if not (value is None or seat(value)):
                raise InvalidPositionError(f"not a view: an event names seat {value}")


def _codes(cards: Any) -> list[str]:
    if not isinstance(cards, list) or not all(c in KIND_OF for c in cards):
        raise InvalidPositionError(f"not a list of card codes: {cards!r}")
    return list(cards)
