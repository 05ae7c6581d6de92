"""One encoding of GoTown for learning: a fixed discrete action space and a fixed-size
observation, both relative to a seat (seat 0 is always "me"), shared by every interface.

The observation is built from a :class:`~gotown.engine.View` only (R22), so that it cannot leak
a hidden card: the view holds none. The action space covers every action the engine can offer
for a player count and the two options that add targets (``dog_placement: "any"``,
``bone_targets: "any"``); the rest of the options change which actions are legal, never their
number. A relative target ``r`` of the seat ``s`` that acts is the seat ``(s + r) % players``:
``r = 0`` is the actor itself, ``r = 1`` the next seat clockwise (R1).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from gotown.engine import (
    CODES,
    COPIES,
    DECK_SIZE,
    Action,
    Event,
    Game,
    InvalidActionError,
    Options,
    View,
    observer,
)
from gotown.engine.zones import floor_codes

#: Floors a tower can hold while the game goes on (``win_floors`` 5 ends it at the fifth):
#: the floors a dog or a bone can aim at.
ACTION_FLOORS = 4
#: Floors the observation shows per tower: a finished game's winner holds ``win_floors``.
TOWER_SLOTS = 5
#: The floor pairs (R5) in the order of the action space: the four number pairs, then each
#: number with a joker.
BUILD_PAIRS: tuple[tuple[str, str], ...] = (
    ("1", "8"), ("2", "7"), ("3", "6"), ("4", "5"),
    *((str(n), "?") for n in range(1, 9)),
)  # fmt: skip

_KIND = {code: kind for kind, code in enumerate(CODES)}
_JOKER = _KIND["?"]

OptionsLike = Options | Mapping[str, Any] | None
Observation = npt.NDArray[np.float32]


def _options(options: OptionsLike) -> Options:
    return options if isinstance(options, Options) else Options.from_json(options)


def _check_players(players: Any) -> int:
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
    return _space(_check_players(players), opts.dog_placement == "any", opts.bone_targets == "any")


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


# -- observations ----------------------------------------------------------------------------
#: Per floor: present, the number card (one-hot 1..8), a joker beside it, the joker's value
#: (one-hot 1..8, 9 minus the number: R5), dogs.
FLOOR_FEATURES = 1 + 8 + 1 + 8 + 1


@cache
def observation_layout(players: int) -> tuple[tuple[str, int, tuple[int, ...]], ...]:
    """The observation's named pieces, in order: (name, start, shape). Seats are relative
    (index 0 is the observing seat, 1 the next clockwise)."""
    n = _check_players(players)
    pieces: list[tuple[str, tuple[int, ...]]] = [
        ("hand", (len(CODES),)),  # own hand: count per card code
        ("towers", (n, TOWER_SLOTS, FLOOR_FEATURES)),
        ("milkshakes", (n,)),  # pending milkshakes per seat (R18)
        ("donut", (1,)),  # the donut truck on the table (R19)
        ("hand_sizes", (n,)),
        ("draw_size", (1,)),
        ("discard_size", (1,)),
        ("discard", (len(CODES),)),  # discard pile: count per card code
        ("active", (n,)),  # whose turn (one-hot)
        ("turn", (1,)),  # turns begun so far
        ("over", (1,)),
        ("winner", (n,)),  # one-hot; all zero while playing or after a turn limit
    ]
    out = []
    start = 0
    for name, shape in pieces:
        out.append((name, start, shape))
        start += int(np.prod(shape))
    return tuple(out)


@cache
def observation_size(players: int) -> int:
    _, start, shape = observation_layout(players)[-1]
    return start + int(np.prod(shape))


#: The largest turn number the observation's bounds allow (float32 counts exactly up to 2**24).
MAX_TURN = 2**24


@cache
def observation_high(players: int) -> Observation:
    """The largest value each feature can take (the observation space's bound; the least is 0)."""
    high = np.ones(observation_size(players), dtype=np.float32)
    at = _offsets(players)
    copies = np.array(COPIES, dtype=np.float32)
    high[at["hand"] : at["hand"] + len(CODES)] = DECK_SIZE  # a super-thief can grow any hand
    high[at["discard"] : at["discard"] + len(CODES)] = copies
    dogs = at["towers"] + FLOOR_FEATURES - 1
    high[dogs : at["milkshakes"] : FLOOR_FEATURES] = COPIES[_KIND["dog"]]
    high[at["milkshakes"] : at["milkshakes"] + players] = COPIES[_KIND["milkshake"]]
    for name in ("hand_sizes", "draw_size", "discard_size"):
        high[at[name] : at[name] + (players if name == "hand_sizes" else 1)] = DECK_SIZE
    high[at["turn"]] = MAX_TURN
    high.setflags(write=False)
    return high


@cache
def _offsets(players: int) -> dict[str, int]:
    return {name: start for name, start, _ in observation_layout(players)}


def encode_view(view: View, options: OptionsLike = None) -> Observation:
    """The observation of ``view``'s seat: a float32 vector of :func:`observation_size` values
    laid out as :func:`observation_layout` says. ``options`` is accepted for symmetry with the
    action space (the view carries its own options; the layout does not depend on them).

    The view's events are not read, so the view of a copy without history serves as well."""
    if view.seat is None or view.hand is None:
        raise InvalidActionError("encode_view needs a seat's view, not the public view (R22)")
    n = view.players
    me = view.seat
    at = _starts(n)
    # A C array of floats filled item by item, then seen by numpy without a copy: cheaper than
    # numpy item by item, or a list made an array.
    obs = array("f", at.zeros)
    base = at.hand
    for code in view.hand:
        obs[base + _KIND[code]] += 1
    base = at.discard
    for code in view.discard:
        obs[base + _KIND[code]] += 1
    for seat in range(n):
        r = (seat - me) % n
        tower = view.towers[seat]
        if tower:
            base = at.towers + r * _TOWER_FEATURES
            for offset, value in _tower_features(tower):
                obs[base + offset] = value
        obs[at.milkshakes + r] = view.milkshakes[seat]
        obs[at.hand_sizes + r] = view.hand_sizes[seat]
    obs[at.donut] = view.donut
    obs[at.draw_size] = view.draw_size
    obs[at.discard_size] = len(view.discard)
    obs[at.active + (view.active - me) % n] = 1
    obs[at.turn] = view.turn
    obs[at.over] = view.over
    if view.winner is not None:
        obs[at.winner + (view.winner - me) % n] = 1
    return np.frombuffer(obs, dtype=np.float32)


_TOWER_FEATURES = TOWER_SLOTS * FLOOR_FEATURES


@dataclass(frozen=True)
class _Starts:
    """Where each piece of the observation of a player count starts, and its size."""

    size: int
    zeros: bytes  # the bytes of ``size`` zero floats
    zeros_after_hand: bytes  # and of the zeros after the hand
    hand: int
    towers: int
    milkshakes: int
    donut: int
    hand_sizes: int
    draw_size: int
    discard_size: int
    discard: int
    active: int
    turn: int
    over: int
    winner: int


@cache
def _starts(players: int) -> _Starts:
    size = observation_size(players)
    starts = _Starts(
        size=size,
        zeros=bytes(4 * size),
        zeros_after_hand=bytes(4 * (size - len(CODES))),
        **_offsets(players),
    )
    assert starts.hand == 0  # (observe writes the hand first)
    return starts


#: A tower's nonzero features (offset from the tower's first, value) by its floors' codes:
#: towers change seldom, and each observation shows every tower.
_TOWER_CACHE: dict[tuple[tuple[str, ...], ...], tuple[tuple[int, int], ...]] = {}
#: Towers kept at most (then the cache starts again): a bound on the memory of a long run.
_TOWER_CACHE_SIZE = 100_000


def _tower_features(tower: tuple[tuple[str, ...], ...]) -> tuple[tuple[int, int], ...]:
    features = _TOWER_CACHE.get(tower)
    if features is None:
        pairs: list[tuple[int, int]] = []
        for slot, floor in enumerate(tower[:TOWER_SLOTS]):
            at = slot * FLOOR_FEATURES
            pairs += [(at + offset, value) for offset, value in _floor_features(floor)]
        if len(_TOWER_CACHE) >= _TOWER_CACHE_SIZE:
            _TOWER_CACHE.clear()
        features = _TOWER_CACHE[tower] = tuple(pairs)
    return features


def _floor_features(floor: tuple[str, ...]) -> list[tuple[int, int]]:
    """Present, the number one-hot, a joker beside it and its value one-hot, dogs."""
    first, second = _KIND[floor[0]], _KIND[floor[1]]
    number = second if first == _JOKER else first
    pairs = [(0, 1), (number, 1)]  # present; the number, one-hot at 1..8
    if _JOKER in (first, second):  # a joker, and its value one-hot at 10..17
        pairs += [(9, 1), (9 + (9 - number), 1)]
    pairs.append((FLOOR_FEATURES - 1, len(floor) - 2))  # dogs
    return pairs


# -- what every interface asks of a game ------------------------------------------------------
#: The turn limit (R23) of an environment that names none: random play can reach positions
#: that never end (every hand of 8 cards or both piles empty, R7b, R9), and an episode must.
DEFAULT_TURN_LIMIT = 500


def observe(game: Game, seat: int) -> Observation:
    """The observation of ``seat`` in ``game``, equal to :func:`encode_view` of the seat's view
    (a test compares them on many positions) but read straight from the game's own zones,
    skipping the view's cards as codes and the codes back to counts: every interface asks it
    at each step. It reads what the seat may see and nothing else (R22): its own hand, the
    public zones and the counts of the rest (the no-leak tests change every hidden card and
    find it unchanged)."""
    players = game.players
    if type(seat) is not int or not 0 <= seat < players:
        raise InvalidActionError(f"seat {seat!r} does not exist (R1)")
    at = _starts(players)
    obs = array("f", game.hands[seat])  # the hand comes first: its counts in kind order
    obs.frombytes(at.zeros_after_hand)
    base = at.discard
    for kind in game.discard:
        obs[base + kind] += 1
    milkshakes, hand_sizes = game.milkshakes, game.hand_sizes
    for other, tower in enumerate(game.towers):
        r = (other - seat) % players
        if tower:
            features = _engine_tower_features(tuple(tower))
            base = at.towers + r * _TOWER_FEATURES
            obs[base : base + len(features)] = features
        obs[at.milkshakes + r] = milkshakes[other]
        obs[at.hand_sizes + r] = hand_sizes[other]
    obs[at.donut] = game.donut
    obs[at.draw_size] = len(game.draw)
    obs[at.discard_size] = len(game.discard)
    obs[at.active + (game.active - seat) % players] = 1
    obs[at.turn] = game.turn
    outcome = game.outcome()
    if outcome is not None:
        obs[at.over] = 1
        if outcome.winner is not None:
            obs[at.winner + (outcome.winner - seat) % players] = 1
    return np.frombuffer(obs, dtype=np.float32)


#: A tower's features as floats, from its first floor to its last shown, by the tower in the
#: engine's form (floors of number, other card, dogs): written into an observation at once.
_ENGINE_TOWER_CACHE: dict[tuple[tuple[int, int, int], ...], array[float]] = {}


def _engine_tower_features(tower: tuple[tuple[int, int, int], ...]) -> array[float]:
    features = _ENGINE_TOWER_CACHE.get(tower)
    if features is None:
        shown = min(len(tower), TOWER_SLOTS)
        features = array("f", bytes(4 * shown * FLOOR_FEATURES))
        for offset, value in _tower_features(tuple([floor_codes(floor) for floor in tower])):
            features[offset] = value
        if len(_ENGINE_TOWER_CACHE) >= _TOWER_CACHE_SIZE:
            _ENGINE_TOWER_CACHE.clear()
        _ENGINE_TOWER_CACHE[tower] = features
    return features


class SeatViews:
    """``game.view(seat)`` for the seats of one game as it goes on, each seat's events kept
    between calls and only the new ones asked of the engine (:meth:`Game.events` from an
    index): a view builds every event of the game so far, which grows with its length. The
    view returned is equal to ``game.view(seat)`` (a test checks it)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self._events: list[list[Event]] = [[] for _ in range(game.players)]
        self._counts = [0] * game.players

    def view(self, seat: int) -> View:
        game = self.game
        seen = self._events[seat]
        count = game.event_count
        if count < self._counts[seat]:  # (a game that went back: start again)
            seen.clear()
            self._counts[seat] = 0
        if count > self._counts[seat]:
            seen += game.events(seat, self._counts[seat])
            self._counts[seat] = count
        return observer.view(game, seat, seen)


def returns(game: Game) -> list[float]:
    """Each seat's result: +1 for the winner and -1 for every other seat (R20); 0 for all while
    the game goes on or when a turn limit ended it (R23)."""
    outcome = game.outcome()
    if outcome is None or outcome.winner is None:
        return [0.0] * game.players
    return [1.0 if seat == outcome.winner else -1.0 for seat in range(game.players)]


def play_index(game: Game, index: int, space: ActionSpace | None = None) -> Action:
    """Play action ``index`` of the space (``space``, if given, must be the game's) for the
    active seat and return it. An index out of the space raises InvalidActionError, an illegal
    action the engine's IllegalActionError naming the rule; either way the game is left as it
    was."""
    if game.is_over:
        raise InvalidActionError("the game is over: no action is legal (R20, R23)")
    if space is None:
        action = action_to_engine(index, game.players, game.options, seat=game.active)
    elif type(index) is int and 0 <= index < len(space.relative):
        action = space.by_seat[game.active][index]
    else:
        action = action_to_engine(index, game.players, game.options, seat=game.active)
    if action in game.legal_actions():
        game.apply_unchecked(action)
    else:
        game.apply(action)  # raises, naming the rule
    return action
