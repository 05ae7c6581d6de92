"""Why an action is illegal: the rule and a sentence, for error messages (cold path)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import actions as act
from .actions import Action
from .cards import CODES, KIND_OF

if TYPE_CHECKING:
    from .game import Game


def why_illegal(game: Game, action: Action) -> tuple[str, str]:
    """Return ``(rule, reason)`` for an action that is not legal in ``game`` now."""
    outcome = game.outcome()
    if outcome is not None:
        if outcome.winner is not None:
            return "R20", f"the game is over: seat {outcome.winner} has won"
        return "R23", "the game is over: the turn limit was reached"
    me = game.active
    hand = game.hands[me]
    kind = action.type
    opts = game.options
    target = action.target

    def has(code: str) -> bool:
        return hand[KIND_OF[code]] > 0

    def tower_of(seat: int) -> str:
        return "your tower" if seat == me else f"the tower of seat {seat}"

    if kind == act.BUILD:
        a, b = action.cards
        if a == b == "?":
            return "R5", "two jokers never make a floor"
        kinds = [KIND_OF[a], KIND_OF[b]]
        if not all(0 <= k <= 8 for k in kinds):
            return "R5", "special cards never make floors"
        if "?" not in (a, b) and int(a) + int(b) != 9:
            return "R5", f"{a} and {b} add up to {int(a) + int(b)}, not 9"
        missing = _missing(hand, [a, b])
        if missing:
            return "R10", f"you do not hold {missing}"
    elif kind in (act.DOG, act.BONE, act.JACKHAMMER, act.WRECKING_BALL, act.THIEF, act.SUPER_THIEF,
                  act.MILKSHAKE, act.DONUT_TRUCK) and not has(kind):  # fmt: skip
        rule = _RULE[kind]
        return rule, f"you hold no {kind} card"
    elif kind == act.STEAL:
        card = action.card or "?"
        assert target is not None
        if card == "?":
            return "R11", "a steal-build plays a number card, never a joker"
        if card not in CODES[1:9]:
            return "R11", "a steal-build plays a number card"
        if not has(card):
            return "R11", f"you do not hold a {card}"
        if target == me:
            return "R11", "you never steal from your own tower"
        tower = game.towers[target]
        if not tower:
            return "R11", f"seat {target} has no floor to steal from"
        number, _, dogs = tower[-1]
        if dogs:
            return "R11", f"the top floor of seat {target} is guarded by a dog (R12)"
        values = (number, 9 - number)
        if int(card) not in values:
            return "R11", (
                f"your {card} makes 9 with no card of the top floor of seat {target} "
                f"(it holds a {values[0]} and a {values[1]})"
            )
    elif kind == act.DOG:
        seat = me if target is None else target
        if seat != me and opts.dog_placement != "any":
            return "R12", "a dog guards one of your own floors (option dog_placement, R23)"
        floors = game.towers[seat]
        if action.floor is None or action.floor >= len(floors):
            return "R12", f"{tower_of(seat)} has no floor {action.floor}"
        if floors[action.floor][2] and opts.dogs_per_floor == 1:
            return "R12", f"floor {action.floor} of {tower_of(seat)} already has a dog"
    elif kind == act.BONE:
        assert target is not None
        if target == me and opts.bone_targets != "any":
            return "R13", "a bone is played on an opponent's dog (option bone_targets, R23)"
        floors = game.towers[target]
        if action.floor is None or action.floor >= len(floors):
            return "R13", f"{tower_of(target)} has no floor {action.floor}"
        if not floors[action.floor][2]:
            return "R13", f"floor {action.floor} of {tower_of(target)} has no dog"
    elif kind in (act.JACKHAMMER, act.WRECKING_BALL):
        rule = _RULE[kind]
        assert target is not None
        if target == me:
            return rule, f"the {kind} targets an opponent, not your own tower"
        if not game.towers[target]:
            return rule, f"seat {target} has no floor"
        if kind == act.JACKHAMMER and game.towers[target][-1][2]:
            return "R14", f"the top floor of seat {target} is guarded by a dog (R12)"
    elif kind == act.THIEF:
        assert target is not None
        if target == me:
            return "R16", "a thief steals from an opponent, not from you"
        if not game.hand_sizes[target]:
            return "R16", f"seat {target} holds no card"
    elif kind == act.SUPER_THIEF:
        return "R17", "no opponent holds a card"
    elif kind == act.MILKSHAKE:
        assert target is not None
        if target == me:
            return "R18", "a milkshake is placed in front of an opponent"
        if game.milkshakes[target]:
            return "R18", (
                f"seat {target} already has a pending milkshake (option milkshake_stacking, R23)"
            )
    elif kind == act.DONUT_TRUCK:
        return "R19", "the donut truck is already on the table"
    return "R21", f"{act.format_action(action)} is not legal now"


_RULE = {
    act.DOG: "R12",
    act.BONE: "R13",
    act.JACKHAMMER: "R14",
    act.WRECKING_BALL: "R15",
    act.THIEF: "R16",
    act.SUPER_THIEF: "R17",
    act.MILKSHAKE: "R18",
    act.DONUT_TRUCK: "R19",
}


def _missing(hand: list[int], codes: list[str]) -> str:
    need: dict[str, int] = {}
    for code in codes:
        need[code] = need.get(code, 0) + 1
    for code, count in need.items():
        if hand[KIND_OF[code]] < count:
            return f"{'two cards' if count > 1 else 'a card'} {code}"
    return ""
