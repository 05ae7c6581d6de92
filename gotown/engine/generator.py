"""The legal actions of a position (R21), generated fast: the one loop a search runs most.

:func:`generate` lists every legal action once, in a fixed order, from the zones of a
:class:`~.game.Game`; :func:`.legality.refusal` states why any other action is refused. The
actions themselves are built once, here, and shared by every position.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from . import actions as act
from .actions import Action
from .cards import (
    BONE,
    CODES,
    DOG,
    DONUT_TRUCK,
    JACKHAMMER,
    MAX_PLAYERS,
    MILKSHAKE,
    SUPER_THIEF,
    THIEF,
    WRECKING_BALL,
)
from .options import OPTION_CHOICES

if TYPE_CHECKING:  # (types only: the game imports this module, never the reverse)
    from .game import Game

_BUILDS: Final[tuple[tuple[int, int, Action], ...]] = tuple(
    (a, b, Action.build(CODES[a], CODES[b])) for a, b in act.build_pairs()
)
_MAX_SEATS: Final = MAX_PLAYERS
_MAX_FLOORS: Final = max(
    OPTION_CHOICES["win_floors"]
)  # (a tower of that many has won: no more play)
_STEALS: Final = [[Action.steal(CODES[c], t) for t in range(_MAX_SEATS)] for c in range(9)]
_OWN_DOGS: Final = [Action.dog(f) for f in range(_MAX_FLOORS)]
_DOGS: Final = [[Action.dog(f, t) for f in range(_MAX_FLOORS)] for t in range(_MAX_SEATS)]
_BONES: Final = [[Action.bone(t, f) for f in range(_MAX_FLOORS)] for t in range(_MAX_SEATS)]
_HAMMERS: Final = [Action.jackhammer(t) for t in range(_MAX_SEATS)]
_BALLS: Final = [Action.wrecking_ball(t) for t in range(_MAX_SEATS)]
_THIEVES: Final = [Action.thief(t) for t in range(_MAX_SEATS)]
_MILKSHAKES: Final = [Action.milkshake(t) for t in range(_MAX_SEATS)]
_SUPER_THIEF: Final = Action.super_thief()
_DONUT: Final = Action.donut_truck()
_END: Final = Action.end_turn()
#: The same builds by their lower number, and by the number a joker completes.
_PAIR_BUILDS: Final = {min(a, b): action for a, b, action in _BUILDS if a and b}
_JOKER_BUILDS: Final = {a: action for a, b, action in _BUILDS if not b}
assert [action for _, _, action in _BUILDS] == [*_PAIR_BUILDS.values(), *_JOKER_BUILDS.values()]
#: The opponents of each seat, by the number of players: ``_OPPONENTS[players][seat]``.
_OPPONENTS: Final[list[list[tuple[int, ...]]]] = [
    [tuple(s for s in range(n) if s != me) for me in range(n)] for n in range(_MAX_SEATS + 1)
]
#: The two number kinds that steal a top floor of each number (R11), lower first.
_STEAL_KINDS: Final[list[tuple[int, int]]] = [(min(n, 9 - n), max(n, 9 - n)) for n in range(9)]
#: The only action of a seat that can do nothing else.
END_ONLY: Final = (_END,)


def generate(game: Game, me: int) -> tuple[Action, ...]:
    """The legal actions of seat ``me`` as if it were the active seat, in a fixed order."""
    if game.is_over:
        return ()
    hand = game.hands[me]
    opts = game.options
    towers = game.towers
    n = game.players
    out: list[Action] = []
    append = out.append
    joker, h1, h2, h3, h4, h5, h6, h7, h8 = hand[:9]
    # The builds of _BUILDS, in its order: pairs of numbers, then a number with a joker.
    if h1 and h8:
        append(_PAIR_BUILDS[1])
    if h2 and h7:
        append(_PAIR_BUILDS[2])
    if h3 and h6:
        append(_PAIR_BUILDS[3])
    if h4 and h5:
        append(_PAIR_BUILDS[4])
    if joker:
        for number in range(1, 9):
            if hand[number]:
                append(_JOKER_BUILDS[number])
    opponents = _OPPONENTS[n][me]
    if h1 or h2 or h3 or h4 or h5 or h6 or h7 or h8:
        for o in opponents:
            tower = towers[o]
            if tower:
                number, _, dogs = tower[-1]
                if not dogs:
                    low, high = _STEAL_KINDS[number]
                    if hand[low]:
                        append(_STEALS[low][o])
                    if hand[high]:
                        append(_STEALS[high][o])
    if hand[DOG]:
        unlimited = opts.dogs_per_floor == "unlimited"
        for t in range(n) if opts.dog_placement == "any" else (me,):
            for f, floor in enumerate(towers[t]):
                if unlimited or not floor[2]:
                    append(_OWN_DOGS[f] if t == me else _DOGS[t][f])
    if hand[BONE]:
        for t in range(n) if opts.bone_targets == "any" else opponents:
            for f, floor in enumerate(towers[t]):
                if floor[2]:
                    append(_BONES[t][f])
    if hand[JACKHAMMER]:
        for o in opponents:
            tower = towers[o]
            if tower and not tower[-1][2]:
                append(_HAMMERS[o])
    if hand[WRECKING_BALL]:
        for o in opponents:
            if towers[o]:
                append(_BALLS[o])
    sizes = game.hand_sizes
    if hand[THIEF]:
        for o in opponents:
            if sizes[o]:
                append(_THIEVES[o])
    if hand[SUPER_THIEF]:
        for o in opponents:
            if sizes[o]:
                append(_SUPER_THIEF)
                break
    if hand[MILKSHAKE]:
        forbid = opts.milkshake_stacking == "forbid"
        milkshakes = game.milkshakes
        for o in opponents:
            if not (forbid and milkshakes[o]):
                append(_MILKSHAKES[o])
    if hand[DONUT_TRUCK]:  # (one in the game: held, it is not on the table)
        append(_DONUT)
    append(_END)
    return tuple(out)
