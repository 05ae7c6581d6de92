"""Legality (R21), stated once: one small checker per action type.

A checker answers for the active seat of a game that is not over: None when the action is
legal, or ``(rule, reason)`` naming what forbids it. ``Game.apply`` (the checked path),
``Game.is_legal`` and ``Game.why_illegal`` ask :func:`refusal`; :func:`.generator.generate`
(``Game.legal_actions``) lists the same set fast, held to it by a property test over random
positions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from . import actions as act
from .actions import Action
from .cards import CODES, KIND_OF, WRECKING_BALL, partner

if TYPE_CHECKING:  # (types only: the game imports this module, never the reverse)
    from .game import Game

Refusal = tuple[str, str]  # (rule, reason)
Checker = Callable[["Game", int, Action], "Refusal | None"]


def refusal(game: Game, action: Action) -> Refusal | None:
    """None when the normalised ``action`` is legal in ``game`` now, else ``(rule, reason)``."""
    outcome = game.outcome()
    if outcome is not None:
        if outcome.winner is not None:
            return "R20", f"the game is over: seat {outcome.winner} has won"
        if outcome.reason == "stalemate":
            return "R20b", "the game is over: a stalemate, nothing could ever change again"
        return "R23", "the game is over: the turn limit was reached"
    return CHECKERS[action.type](game, game.active, action)


def _tower_of(seat: int, me: int) -> str:
    return "your tower" if seat == me else f"the tower of seat {seat}"


def _check_build(game: Game, me: int, action: Action) -> Refusal | None:
    a, b = action.cards
    if a == b == "?":
        return "R5", "two jokers never make a floor"
    if not all(0 <= KIND_OF[code] <= 8 for code in (a, b)):
        return "R5", "special cards never make floors"
    if "?" not in (a, b) and int(a) + int(b) != 9:
        return "R5", f"{a} and {b} add up to {int(a) + int(b)}, not 9"
    for code in (a, b):  # (two different cards: no pair of equal cards makes 9)
        if not game.hands[me][KIND_OF[code]]:
            return "R10", f"you do not hold a card {code}"
    return None


def _check_steal(game: Game, me: int, action: Action) -> Refusal | None:
    card = action.card
    target: int = action.target  # type: ignore[assignment]
    if card == "?":
        return "R11", "a steal-build plays a number card, never a joker"
    if card not in CODES[1:9]:
        return "R11", "a steal-build plays a number card"
    if not game.hands[me][KIND_OF[card]]:
        return "R11", f"you do not hold a {card}"
    if target == me:
        return "R11", "you never steal from your own tower"
    tower = game.towers[target]
    if not tower:
        return "R11", f"seat {target} has no floor to steal from"
    number, _, dogs = tower[-1]
    if dogs:
        return "R11", f"the top floor of seat {target} is guarded by a dog (R12)"
    if int(card) not in (number, partner(number)):
        return "R11", (
            f"your {card} makes 9 with no card of the top floor of seat {target} "
            f"(it holds a {number} and a {partner(number)})"
        )
    return None


def _without(game: Game, me: int, action: Action) -> Refusal | None:
    """The special card of ``action`` is not in the hand (R12-R19 each need theirs)."""
    if game.hands[me][KIND_OF[action.type]]:
        return None
    return act.ACTION_RULES[action.type], f"you hold no {action.type} card"


def _aimed_at_me(game: Game, me: int, action: Action) -> Refusal | None:
    """An attack aimed at the active seat itself (every attack card aims at an opponent)."""
    if action.target != me:
        return None
    return act.ACTION_RULES[action.type], _SELF[action.type]


def _check_dog(game: Game, me: int, action: Action) -> Refusal | None:
    seat = me if action.target is None else action.target
    opts = game.options
    if seat != me and opts.dog_placement != "any":
        return "R12", "a dog guards one of your own floors (option dog_placement, R23)"
    floors = game.towers[seat]
    floor: int = action.floor  # type: ignore[assignment]
    if floor >= len(floors):
        return "R12", f"{_tower_of(seat, me)} has no floor {floor}"
    if floors[floor][2] and not opts.unlimited_dogs:
        return "R12", f"floor {floor} of {_tower_of(seat, me)} already has a dog"
    return None


def _check_bone(game: Game, me: int, action: Action) -> Refusal | None:
    target: int = action.target  # type: ignore[assignment]
    if target == me and game.options.bone_targets != "any":
        return "R13", "a bone is played on an opponent's dog (option bone_targets, R23)"
    floors = game.towers[target]
    floor: int = action.floor  # type: ignore[assignment]
    if floor >= len(floors):
        return "R13", f"{_tower_of(target, me)} has no floor {floor}"
    if not floors[floor][2]:
        return "R13", f"floor {floor} of {_tower_of(target, me)} has no dog"
    return None


def _check_top_floor(game: Game, me: int, action: Action) -> Refusal | None:
    target: int = action.target  # type: ignore[assignment]
    tower = game.towers[target]
    if not tower:
        return act.ACTION_RULES[action.type], f"seat {target} has no floor"
    if tower[-1][2] and KIND_OF[action.type] != WRECKING_BALL:
        return "R14", f"the top floor of seat {target} is guarded by a dog (R12)"
    return None


def _check_thief(game: Game, me: int, action: Action) -> Refusal | None:
    if not game.hand_sizes[action.target]:  # type: ignore[index]
        return "R16", f"seat {action.target} holds no card"
    return None


def _check_super_thief(game: Game, me: int, action: Action) -> Refusal | None:
    sizes = game.hand_sizes
    if any(sizes[seat] for seat in range(game.players) if seat != me):
        return None
    return "R17", "no opponent holds a card"


def _check_milkshake(game: Game, me: int, action: Action) -> Refusal | None:
    target: int = action.target  # type: ignore[assignment]
    if game.milkshakes[target] and game.options.milkshake_stacking == "forbid":
        return "R18", (
            f"seat {target} already has a pending milkshake (option milkshake_stacking, R23)"
        )
    return None


def _check_end_turn(game: Game, me: int, action: Action) -> Refusal | None:
    """Ending the turn is always legal in the action phase (R21)."""
    return None


def _all(*checks: Checker) -> Checker:
    """The first refusal of ``checks``, in order."""

    def check(game: Game, me: int, action: Action) -> Refusal | None:
        for one in checks:
            found = one(game, me, action)
            if found is not None:
                return found
        return None

    return check


_SELF: Final = {
    act.JACKHAMMER: "the jackhammer targets an opponent, not your own tower",
    act.WRECKING_BALL: "the wrecking-ball targets an opponent, not your own tower",
    act.THIEF: "a thief steals from an opponent, not from you",
    act.MILKSHAKE: "a milkshake is placed in front of an opponent",
}

#: The checker of each action type (R5, R10-R21).
CHECKERS: Final[dict[str, Checker]] = {
    act.BUILD: _check_build,
    act.STEAL: _check_steal,
    act.DOG: _all(_without, _check_dog),
    act.BONE: _all(_without, _check_bone),
    act.JACKHAMMER: _all(_without, _aimed_at_me, _check_top_floor),
    act.WRECKING_BALL: _all(_without, _aimed_at_me, _check_top_floor),
    act.THIEF: _all(_without, _aimed_at_me, _check_thief),
    act.SUPER_THIEF: _all(_without, _check_super_thief),
    act.MILKSHAKE: _all(_without, _aimed_at_me, _check_milkshake),
    # (The game has one donut truck: held, it cannot be on the table too.)
    act.DONUT_TRUCK: _without,
    act.END_TURN: _check_end_turn,
}
