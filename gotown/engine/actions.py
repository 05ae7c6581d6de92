"""Actions (R10-R19 and ending the turn), their JSON form and their text notation.

An :class:`Action` is an immutable value. Two actions are the same action when they are equal
after normalisation: the cards of a build sorted, and a dog aimed at the active seat's own
tower written without a target (FORMAT.md, "Actions").
"""

from __future__ import annotations

import re
from typing import Any, Final, NamedTuple

from .cards import CARDS, CODES, KIND_OF, partner
from .errors import InvalidActionError, InvalidNotationError

BUILD: Final = "build"
STEAL: Final = "steal"
DOG: Final = "dog"
BONE: Final = "bone"
JACKHAMMER: Final = "jackhammer"
WRECKING_BALL: Final = "wrecking-ball"
THIEF: Final = "thief"
SUPER_THIEF: Final = "super-thief"
MILKSHAKE: Final = "milkshake"
DONUT_TRUCK: Final = "donut-truck"
END_TURN: Final = "end-turn"

ACTION_TYPES: Final = (
    BUILD, STEAL, DOG, BONE, JACKHAMMER, WRECKING_BALL, THIEF, SUPER_THIEF, MILKSHAKE,
    DONUT_TRUCK, END_TURN,
)  # fmt: skip

#: The fields each action type takes, besides "type" (the JSON form).
_FIELDS: Final[dict[str, tuple[str, ...]]] = {
    BUILD: ("cards",),
    STEAL: ("card", "target"),
    DOG: ("floor", "target"),
    BONE: ("target", "floor"),
    JACKHAMMER: ("target",),
    WRECKING_BALL: ("target",),
    THIEF: ("target",),
    SUPER_THIEF: (),
    MILKSHAKE: ("target",),
    DONUT_TRUCK: (),
    END_TURN: (),
}
_OPTIONAL: Final = {(DOG, "target")}


def _rule(kind: str) -> str:
    if kind == BUILD:
        return "R10"
    if kind == STEAL:
        return "R11"
    if kind == END_TURN:
        return "R8"
    return CARDS[kind].rules[0]  # a special card's action has the card's code as its type


#: The rule that says what each action type does (R8, R10-R19): the one its refusal names
#: when no more precise rule forbids it.
ACTION_RULES: Final[dict[str, str]] = {kind: _rule(kind) for kind in ACTION_TYPES}

#: Where the hand cards an action plays are named, by action type, as data for those who do
#: not run this code (``/api/meta``): its field ``cards`` (a build's two) or ``card`` (a
#: steal-build's number), its ``type`` (a special card's code), or nowhere (None: ending the
#: turn plays no card).
PLAYED_FROM: Final[dict[str, str | None]] = {
    kind: {BUILD: "cards", STEAL: "card", END_TURN: None}.get(kind, "type") for kind in ACTION_TYPES
}


def cards_played(action: Action) -> tuple[str, ...]:
    """The cards of the active seat's hand that ``action`` plays (:data:`PLAYED_FROM`)."""
    where = PLAYED_FROM.get(action.type)
    if where == "cards":
        return action.cards
    if where == "card" and action.card is not None:
        return (action.card,)
    if where == "type":
        return (action.type,)
    return ()


def stray_field(action: Action) -> str | None:
    """The first field set on ``action`` that its type does not take (an ``Action`` built by
    hand, such as an end of the turn with a target), or None. Its JSON form drops such fields."""
    used = _FIELDS.get(action.type, ())
    for name, default in Action._field_defaults.items():
        if name not in used and getattr(action, name) != default:
            return name
    return None


class Action(NamedTuple):
    """One action of the active seat; build it with the class methods."""

    type: str
    cards: tuple[str, ...] = ()
    card: str | None = None
    target: int | None = None
    floor: int | None = None

    def __repr__(self) -> str:
        return f"Action.from_json({self.to_json()!r})"

    def __str__(self) -> str:
        return format_action(self)

    # -- constructors -------------------------------------------------------------------
    @classmethod
    def build(cls, first: str, second: str) -> Action:
        return cls(BUILD, cards=tuple(sorted((first, second))))

    @classmethod
    def steal(cls, card: str, target: int) -> Action:
        return cls(STEAL, card=card, target=target)

    @classmethod
    def dog(cls, floor: int, target: int | None = None) -> Action:
        return cls(DOG, floor=floor, target=target)

    @classmethod
    def bone(cls, target: int, floor: int) -> Action:
        return cls(BONE, target=target, floor=floor)

    @classmethod
    def jackhammer(cls, target: int) -> Action:
        return cls(JACKHAMMER, target=target)

    @classmethod
    def wrecking_ball(cls, target: int) -> Action:
        return cls(WRECKING_BALL, target=target)

    @classmethod
    def thief(cls, target: int) -> Action:
        return cls(THIEF, target=target)

    @classmethod
    def super_thief(cls) -> Action:
        return cls(SUPER_THIEF)

    @classmethod
    def milkshake(cls, target: int) -> Action:
        return cls(MILKSHAKE, target=target)

    @classmethod
    def donut_truck(cls) -> Action:
        return cls(DONUT_TRUCK)

    @classmethod
    def end_turn(cls) -> Action:
        return cls(END_TURN)

    # -- JSON ---------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.type}
        for name in _FIELDS.get(self.type, ()):
            value = getattr(self, name)
            if name == "cards":
                value = list(value)
            elif value is None and (self.type, name) in _OPTIONAL:
                continue
            data[name] = value
        return data

    @classmethod
    def from_json(cls, data: Any) -> Action:
        """Parse and validate the JSON form; raise InvalidActionError naming what is wrong."""
        if not isinstance(data, dict):
            raise InvalidActionError(f"an action must be a JSON object, not {_short(data)}")
        kind = data.get("type")
        if not isinstance(kind, str) or kind not in _FIELDS:
            raise InvalidActionError(
                f"unknown action type {_short(kind)}; expected one of {', '.join(ACTION_TYPES)}"
            )
        expected = _FIELDS[kind]
        extra = sorted(map(str, set(data) - {"type", *expected}))
        if extra:
            raise InvalidActionError(f"a {kind} action has no field {extra[0]!r}")
        values: dict[str, Any] = {}
        for name in expected:
            if name not in data:
                if (kind, name) in _OPTIONAL:
                    continue
                raise InvalidActionError(f"a {kind} action needs the field {name!r}")
            values[name] = data[name]
        if "cards" in values:
            cards = values["cards"]
            if not isinstance(cards, list) or len(cards) != 2:
                raise InvalidActionError("a build needs 'cards': a list of two cards (R10)")
            values["cards"] = tuple(sorted(_card(c) for c in cards))
        if "card" in values:
            values["card"] = _card(values["card"])
        for name in ("target", "floor"):
            if name in values:
                value = values[name]
                if type(value) is not int or not 0 <= value < 64:
                    raise InvalidActionError(f"{kind}: {name!r} must be a small number >= 0")
        return cls(kind, **values)


def normalize(action: Any, players: int, active: int) -> Action:
    """The canonical form of an action in a game of ``players`` where ``active`` acts (sorted
    build cards; a dog on the active seat's own tower without a target). Raises
    InvalidActionError for malformed input: not an Action, a field its type does not take, a
    seat that does not exist (R1)."""
    if not isinstance(action, Action):
        raise InvalidActionError(f"not an action: {action!r}")
    try:
        data = action.to_json()
    except (TypeError, ValueError):  # an Action built by hand with junk fields
        raise InvalidActionError(f"not an action: {tuple(action)!r}") from None
    canonical = Action.from_json(data)
    stray = stray_field(action)
    if stray is not None:
        raise InvalidActionError(f"a {canonical.type} action has no field {stray!r}")
    if canonical.type == DOG and canonical.target == active:
        canonical = Action(DOG, floor=canonical.floor)
    target = canonical.target
    if target is not None and target >= players:
        raise InvalidActionError(f"seat {target} does not exist: seats are 0 to {players - 1} (R1)")
    return canonical


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _card(value: Any) -> str:
    if not isinstance(value, str) or value not in KIND_OF:
        raise InvalidActionError(f"{_short(value)} is not a card code ({', '.join(CODES)})")
    return value


# -- notation -------------------------------------------------------------------------------
# build "3+6", steal "5@1", dog "dog#0" / "dog#0@2", bone "bone#1@1", "jackhammer@1",
# "wrecking-ball@1", "thief@1", "super-thief", "milkshake@1", "donut-truck", "end".

_ALIASES: Final = {
    "end": END_TURN, "end-turn": END_TURN, "pass": END_TURN, "e": END_TURN,
    "dog": DOG, "bone": BONE, "jackhammer": JACKHAMMER, "jack-hammer": JACKHAMMER,
    "hammer": JACKHAMMER, "jh": JACKHAMMER, "wrecking-ball": WRECKING_BALL,
    "ball": WRECKING_BALL, "wb": WRECKING_BALL, "thief": THIEF,
    "super-thief": SUPER_THIEF, "superthief": SUPER_THIEF, "st": SUPER_THIEF,
    "milkshake": MILKSHAKE, "milk": MILKSHAKE, "ms": MILKSHAKE,
    "donut-truck": DONUT_TRUCK, "donut": DONUT_TRUCK, "dt": DONUT_TRUCK,
}  # fmt: skip

_BUILD_RE: Final = re.compile(r"^([1-8?])\s*\+\s*([1-8?])$")
# Seats and floors are ASCII digits (``\d`` would take any script's), a few of them: a number of
# thousands of digits is no seat, and ``int`` refuses to read one (a plain ValueError).
_STEAL_RE: Final = re.compile(r"^([1-8?])\s*@\s*([0-9]{1,6})$")
_WORD_RE: Final = re.compile(r"^([a-z-]+)\s*(?:#\s*([0-9]{1,6}))?\s*(?:@\s*([0-9]{1,6}))?$")


def format_action(action: Action) -> str:
    """The compact text of an action; ``parse_action`` reads it back."""
    kind = action.type
    if kind == BUILD:
        return "+".join(action.cards)
    if kind == STEAL:
        return f"{action.card}@{action.target}"
    if kind == END_TURN:
        return "end"
    text = kind
    if action.floor is not None:
        text += f"#{action.floor}"
    if action.target is not None:
        text += f"@{action.target}"
    return text


def parse_action(text: object) -> Action:
    """Read an action in the notation of ``format_action`` (case and spaces are forgiven)."""
    if not isinstance(text, str):
        raise InvalidNotationError(f"notation must be text, not {_short(text)}")
    src = " ".join(text.strip().lower().split())
    if m := _BUILD_RE.match(src):
        return Action.build(m[1], m[2])
    if m := _STEAL_RE.match(src):
        steal = {"type": STEAL, "card": m[1], "target": int(m[2])}
        try:
            return Action.from_json(steal)
        except InvalidActionError as exc:
            raise InvalidNotationError(f"cannot read {text!r}: {exc}") from None
    m = _WORD_RE.match(src.replace(" ", ""))
    if m is None or m[1] not in _ALIASES:
        raise InvalidNotationError(
            f"cannot read {text!r} as an action; examples: 3+6, 5@1, dog#0, bone#1@1, "
            "jackhammer@1, wrecking-ball@1, thief@1, super-thief, milkshake@1, donut-truck, end"
        )
    kind = _ALIASES[m[1]]
    floor = int(m[2]) if m[2] is not None else None
    target = int(m[3]) if m[3] is not None else None
    data: dict[str, Any] = {"type": kind}
    if floor is not None:
        data["floor"] = floor
    if target is not None:
        data["target"] = target
    try:
        return Action.from_json(data)
    except InvalidActionError as exc:
        raise InvalidNotationError(f"cannot read {text!r}: {exc}") from None


def build_pairs() -> list[tuple[int, int]]:
    """Every pair of floor-card kinds that makes a floor (R5), as (kind, kind)."""
    pairs = [(n, partner(n)) for n in range(1, 5)]
    pairs += [(n, 0) for n in range(1, 9)]
    return pairs
