"""Random futures shared by estimates (common random numbers), for the post-game review.

A position's chance to win is estimated by playing the game on to its end many times with the
rollout policy (the ``medium`` rule with a random move :data:`~.ismcts.EPSILON` of the time,
as the search's rollouts). A *future* fixes everything random in one such play-out: the order
of the draw pile (a key for every card of the deck, the pile read in key order, R9), the
engine's seed (thieves and reshuffles, R16, R17), and the policy's random moves (a number for
each action of the game, by its number). Two positions played on in the same future draw the
same cards in the same order as far as their piles agree, and explore at the same actions, so
the difference of their outcomes measures what separates them rather than the luck of two
independent samples: common random numbers, compared future by future (a paired comparison,
its standard error from the differences).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from gotown.engine import COPIES, Action, Game

from .base import hashed_seed
from .ismcts import EPSILON, MAX_ROLLOUT_TURNS
from .rules import policy_action

#: A play-out's result when nobody won (R20b, R23, or the play-out's own turn limit).
NO_WINNER = -1
#: A future's random bytes for the policy, one per action number (modulo their count): a
#: byte below :data:`_RANDOM_MOVE` plays a random legal move (:data:`~.ismcts.EPSILON`).
_EXPLORE = 64
_RANDOM_MOVE = round(256 * EPSILON)
_UNUSED = random.Random(0)  # (the greedy policy draws no random number)


@dataclass(frozen=True, slots=True)
class Future:
    """Everything random in one play-out (see the module docstring)."""

    seed: int  # the engine's
    order: bytes  # every card of the deck as kind * 8 + copy, bottom of the pile first
    explore: bytes  # the policy's random byte at each action number (compact: a review keeps
    # tens of thousands of futures)

    def pile(self, draw: Sequence[int]) -> list[int]:
        """The cards of ``draw`` (kinds) in this future's order, the top last (as the engine
        keeps a pile)."""
        counts = [0] * len(COPIES)
        for kind in draw:
            counts[kind] += 1
        return [card >> 3 for card in self.order if (card & 7) < counts[card >> 3]]


_DECK = tuple(kind * 8 + copy for kind, count in enumerate(COPIES) for copy in range(count))


def futures(label: str, start: int, count: int, deck: bool = True) -> list[Future]:
    """``count`` futures of the stream named ``label`` from ``start`` (a batch: the same
    ``label`` and ``start`` always give the same futures); without ``deck``, no order of the
    draw pile (for worlds that have theirs)."""
    rng = random.Random(hashed_seed(f"{label}, from {start}"))
    found = []
    for _ in range(count):
        order: list[int] = []
        if deck:
            order = list(_DECK)
            rng.shuffle(order)
        explore = rng.randbytes(_EXPLORE)
        found.append(Future(rng.getrandbits(63), bytes(order), explore))
    return found


def play_out(game: Game, future: Future, first: Action | None = None, deal: bool = True) -> int:
    """The winner (or :data:`NO_WINNER`) of ``game`` played on in ``future``, after ``first``
    when given; ``deal``: order the draw pile and seed the engine by the future (a world dealt
    from a view has both already). The game itself is not changed."""
    game = game.copy(history=False)
    if deal:
        game.draw = future.pile(game.draw)
        game.seed = future.seed
    if first is not None:
        game.apply_unchecked(first)
    floors = game.options.win_floors
    limit = game.turn + MAX_ROLLOUT_TURNS
    explore = future.explore
    while not game.is_over and game.turn < limit:
        legal = game.legal_actions()
        if len(legal) == 1:
            action = legal[0]
        else:
            u = explore[game.version % _EXPLORE]
            if u < _RANDOM_MOVE:
                action = legal[u * len(legal) // _RANDOM_MOVE]
            else:
                action = policy_action(game, game.active, legal, floors, _UNUSED, 0.0)
        game.apply_unchecked(action)
    outcome = game.outcome()
    return NO_WINNER if outcome is None or outcome.winner is None else outcome.winner


def chance(winners: Sequence[int], seat: int) -> float:
    """The share of ``winners`` that are ``seat``."""
    return sum(1 for w in winners if w == seat) / len(winners) if winners else 0.0


@dataclass(frozen=True)
class Difference:
    """A paired estimate of one seat's chance in one set of play-outs less in another, over
    the same futures: the mean difference, its standard error, and the futures it rests on."""

    mean: float
    error: float
    count: int

    @classmethod
    def of(cls, first: Sequence[int], second: Sequence[int], seat: int) -> Difference:
        diffs = [(a == seat) - (b == seat) for a, b in zip(first, second, strict=True)]
        n = len(diffs)
        mean = sum(diffs) / n
        variance = sum((d - mean) ** 2 for d in diffs) / (n - 1) if n > 1 else 1.0
        return cls(mean, math.sqrt(variance / n), n)

    def interval(self, z: float = 1.96) -> tuple[float, float]:
        """The ``z`` standard errors either side (95% by default)."""
        return self.mean - z * self.error, self.mean + z * self.error
