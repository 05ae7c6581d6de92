"""One encoding of GoTown for learning: a fixed-size observation relative to a seat (seat 0 is
always "me"), beside the action space of :mod:`gotown.rl.action_space`, shared by every
interface.

The observation is built from a :class:`~gotown.engine.View` only (R22), so that it cannot leak
a hidden card: the view holds none.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from functools import cache

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
    View,
    observer,
)
from gotown.engine.zones import floor_codes

from .action_space import ActionSpace, OptionsLike, action_to_engine, check_players

#: Floors the observation shows per tower: a finished game's winner holds ``win_floors``.
TOWER_SLOTS = 5

_KIND = {code: kind for kind, code in enumerate(CODES)}
_JOKER = _KIND["?"]

Observation = npt.NDArray[np.float32]

#: Per floor: present, the number card (one-hot 1..8), a joker beside it, the joker's value
#: (one-hot 1..8, 9 minus the number: R5), dogs.
FLOOR_FEATURES = 1 + 8 + 1 + 8 + 1


@cache
def observation_layout(players: int) -> tuple[tuple[str, int, tuple[int, ...]], ...]:
    """The observation's named pieces, in order: (name, start, shape). Seats are relative
    (index 0 is the observing seat, 1 the next clockwise)."""
    n = check_players(players)
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
