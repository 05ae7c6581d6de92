"""The discrete action space of GoTown for learning, relative to a seat (seat 0 is always
"me"), shared by every interface (:mod:`gotown.rl.encoding` is its observation).

The action space covers every action the engine can offer for a player count and the two
options that add targets (``dog_placement: "any"``, ``bone_targets: "any"``); the rest of the
options change which actions are legal, never their number. A relative target ``r`` of the
seat ``s`` that acts is the seat ``(s + r) % players``: ``r = 0`` is the actor itself, ``r = 1``
the next seat clockwise (R1).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from gotown.engine import Action, Game, InvalidActionError, Options

#: Floors a tower can hold while the game goes on (``win_floors`` 5 ends it at the fifth):
#: the floors a dog or a bone can aim at.
ACTION_FLOORS = 4
#: The floor pairs (R5) in the order of the action space: the four number pairs, then each
#: number with a joker.
BUILD_PAIRS: tuple[tuple[str, str], ...] = (
    ("1", "8"), ("2", "7"), ("3", "6"), ("4", "5"),
    *((str(n), "?") for n in range(1, 9)),
)  # fmt: skip


OptionsLike = Options | Mapping[str, Any] | None


def _options(options: OptionsLike) -> Options:
    return options if isinstance(options, Options) else Options.from_json(options)


def check_players(players: Any) -> int:
    if type(players) is not int or not 2 <= players <= 4:
        raise InvalidActionError(f"GoTown is for 2 to 4 players, not {players!r} (R1)")
    return players


@dataclass(frozen=True)
class ActionSpace:
    """The action space of one player count and target options.

    ``relative[i]`` is action ``i`` with relative targets (as played by seat 0); ``by_seat[s]``
    the same actions as seat ``s`` plays them, and ``index_of[s]`` the way back.
    ``segments`` names each kind's first index and count, in order (the table in the docs).
    """

    players: int
    dogs_anywhere: bool
    bones_anywhere: bool
    relative: tuple[Action, ...]
    by_seat: tuple[tuple[Action, ...], ...]
    index_of: tuple[dict[Action, int], ...]
    segments: tuple[tuple[str, int, int], ...]

    @property
    def size(self) -> int:
        return len(self.relative)

    def __deepcopy__(self, memo: dict[int, Any]) -> ActionSpace:
        return self  # immutable, and shared (OpenSpiel deep-copies a state's attributes)

    def legal_indices(self, game: Game) -> list[int]:
        """The indices of the legal actions of ``game``'s active seat, ascending."""
        index_of = self.index_of[game.active]
        return sorted([index_of[action] for action in game.legal_actions()])


def space_of(players: int, options: OptionsLike = None) -> ActionSpace:
    """The :class:`ActionSpace` for ``players`` and ``options`` (built once, then cached)."""
    opts = _options(options)
    return _space(check_players(players), opts.dog_placement == "any", opts.bone_targets == "any")


_Keys = list[tuple[str, list[Any]]]


@cache
def _space(players: int, dogs_anywhere: bool, bones_anywhere: bool) -> ActionSpace:
    """Each kind's actions as keys (relative targets and floors), made into engine actions."""
    opponents = list(range(1, players))
    floors = range(ACTION_FLOORS)
    dog_targets = range(players) if dogs_anywhere else (0,)
    bone_targets = range(players) if bones_anywhere else opponents
    kinds: _Keys = [
        ("build", list(BUILD_PAIRS)),
        ("steal", [(str(card), r) for card in range(1, 9) for r in opponents]),
        ("dog", [(r, f) for r in dog_targets for f in floors]),
        ("bone", [(r, f) for r in bone_targets for f in floors]),
        ("jackhammer", opponents),
        ("wrecking-ball", opponents),
        ("thief", opponents),
        ("milkshake", opponents),
        ("super-thief", [None]),
        ("donut-truck", [None]),
        ("end-turn", [None]),
    ]
    by_seat = tuple(_seat_actions(kinds, seat, players) for seat in range(players))
    segments = []
    start = 0
    for kind, keys in kinds:
        segments.append((kind, start, len(keys)))
        start += len(keys)
    return ActionSpace(
        players=players,
        dogs_anywhere=dogs_anywhere,
        bones_anywhere=bones_anywhere,
        relative=by_seat[0],
        by_seat=by_seat,
        index_of=tuple({a: i for i, a in enumerate(actions)} for actions in by_seat),
        segments=tuple(segments),
    )


_BY_TARGET = {
    "jackhammer": Action.jackhammer,
    "wrecking-ball": Action.wrecking_ball,
    "thief": Action.thief,
    "milkshake": Action.milkshake,
}
_PLAIN = {
    "super-thief": Action.super_thief(),
    "donut-truck": Action.donut_truck(),
    "end-turn": Action.end_turn(),
}


def _seat_actions(kinds: _Keys, seat: int, players: int) -> tuple[Action, ...]:
    """The actions of the keys as ``seat`` plays them: relative target r is seat + r."""
    out: list[Action] = []
    for kind, keys in kinds:
        for key in keys:
            if kind == "build":
                out.append(Action.build(*key))
            elif kind == "steal":
                out.append(Action.steal(key[0], (seat + key[1]) % players))
            elif kind == "dog":  # the own tower without a target, as the engine writes it
                target = None if key[0] == 0 else (seat + key[0]) % players
                out.append(Action.dog(key[1], target))
            elif kind == "bone":
                out.append(Action.bone((seat + key[0]) % players, key[1]))
            elif kind in _BY_TARGET:
                out.append(_BY_TARGET[kind]((seat + key) % players))
            else:
                out.append(_PLAIN[kind])
    return tuple(out)


def action_space_size(players: int, options: OptionsLike = None) -> int:
    """How many actions the space of ``players`` and ``options`` holds."""
    return space_of(players, options).size


def action_to_engine(
    index: int, players: int, options: OptionsLike = None, seat: int = 0
) -> Action:
    """The engine action of ``index`` played by ``seat``.

    Targets in the space are relative; ``seat`` (the acting seat) makes them absolute. With the
    default ``seat=0`` the returned targets are the relative ones themselves. Raises
    InvalidActionError for an index or a seat out of range.
    """
    space = space_of(players, options)
    _check_seat(seat, players)
    if type(index) is not int and not isinstance(index, np.integer):
        raise InvalidActionError(f"an action index is an integer, not {index!r}")
    if not 0 <= index < space.size:
        raise InvalidActionError(
            f"action index {index} is outside the space of {space.size} actions "
            f"for {players} players"
        )
    return space.by_seat[seat][int(index)]


def engine_to_action(
    action: Action, players: int, options: OptionsLike = None, seat: int = 0
) -> int:
    """The index of the engine ``action`` played by ``seat`` (the inverse of
    :func:`action_to_engine`). A dog aimed at ``seat``'s own tower may name it or not.
    Raises InvalidActionError for an action the space has no index for (a target that is no
    seat, a floor above :data:`ACTION_FLOORS`, a dog on another tower under
    ``dog_placement: "own"``, ...)."""
    space = space_of(players, options)
    _check_seat(seat, players)
    if not isinstance(action, Action):
        raise InvalidActionError(f"not an action: {action!r}")
    if action.type == "dog" and action.target == seat:
        action = Action.dog(action.floor if action.floor is not None else -1)
    index = space.index_of[seat].get(action)
    if index is None:
        raise InvalidActionError(
            f"{action} by seat {seat} has no index in the action space of {players} players "
            f"(dog_placement {'any' if space.dogs_anywhere else 'own'}, bone_targets "
            f"{'any' if space.bones_anywhere else 'opponents'})"
        )
    return index


def action_mask(
    legal_actions: Iterable[Action], seat: int, players: int, options: OptionsLike = None
) -> npt.NDArray[np.int8]:
    """1 at the index of each legal action of ``seat``, 0 elsewhere."""
    space = space_of(players, options)
    index_of = space.index_of[seat]
    mask = np.zeros(space.size, dtype=np.int8)
    for action in legal_actions:
        mask[index_of[action]] = 1
    return mask


def _check_seat(seat: Any, players: int) -> None:
    if not isinstance(seat, int | np.integer) or isinstance(seat, bool) or not 0 <= seat < players:
        raise InvalidActionError(f"seat {seat!r} does not exist: seats are 0 to {players - 1} (R1)")
