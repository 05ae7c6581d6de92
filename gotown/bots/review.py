"""The post-game review: the strong bot's estimate of each seat's chance to win after every
action, the turning points, and the reviewing seat's moves that it rated much lower than its
best.

Every decision of the record is searched once (SO-ISMCTS, :class:`~.ismcts.SearchBot`) from
the view of the seat that made it, so each estimate uses only what the deciding seat knew
then: the reviewing seat's advice comes from its own views alone. (So the review may be shown
to no one during play, and to everyone after the game, when every hand may be shown, R22.)

At a decision, the deciding seat's chance is the search's value of the move it would play
(its most visited); the others share the rest in proportion to their mean reward over the
search's playouts. The chances *after* an action are those found at the next decision; after
the last action of a finished game, 1 for the winner (R20) and 0 for the others. Because
consecutive estimates may come from different seats' views, part of a change between two
decisions is what the second seat knew and the first did not.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gotown.engine import Action, Game, Record, View, format_action

from .base import hashed_seed
from .ismcts import SearchBot

#: Iterations per decision by default (measured on one core: about 0.05 s a decision with two
#: players, 0.1 s with four).
REVIEW_ITERATIONS = 200
#: With 3 or 4 players, at most this many units of work per iteration on average (the work
#: cap of :class:`SearchBot`), so that a decision costs about as much as with two players.
WORK_PER_ITERATION = 40
#: A whole review's iterations when it must be quick (the web table's, the terminal's): shared
#: by the decisions of the game, between :data:`QUICK_ITERATIONS` per decision
#: (:func:`quick_iterations`). A decision costs about a millisecond per iteration, so a game
#: reviews in a few seconds whatever its length.
QUICK_BUDGET = 3000
QUICK_ITERATIONS = (10, 60)
#: A move rated this much below the best (as a chance to win) is a mistake; twice as much, a
#: blunder. The search's own noise at the default budget is a few points.
MISTAKE = 0.08
BLUNDER = 0.15


@dataclass(frozen=True)
class Moment:
    """One action of the record and the chances around it."""

    index: int  # the action's number in the record, from 0
    turn: int
    seat: int  # the seat that acted
    action: Action
    before: tuple[float, ...]  # each seat's chance before the action
    after: tuple[float, ...]  # and after it
    best: Action  # the move the search rated best for the acting seat
    best_chance: float  # the acting seat's chance after the best move
    played_chance: float | None  # after the move played (None: not the reviewing seat's and
    # never tried by the search)

    @property
    def swing(self) -> float:
        """The largest change of any seat's chance across this action."""
        return max(abs(a - b) for a, b in zip(self.after, self.before, strict=True))


@dataclass(frozen=True)
class Mistake:
    """A move of the reviewing seat rated much lower than the best."""

    moment: Moment
    kind: str  # "a mistake" or "a blunder"

    @property
    def loss(self) -> float:
        assert self.moment.played_chance is not None
        return self.moment.best_chance - self.moment.played_chance

    def describe(self) -> str:
        """``turn 7, a blunder: 3+6 instead of 5@1, 41% → 22%``."""
        m = self.moment
        assert m.played_chance is not None
        return (
            f"turn {m.turn}, {self.kind}: {format_action(m.action)} instead of "
            f"{format_action(m.best)}, {100 * m.best_chance:.0f}% → {100 * m.played_chance:.0f}%"
        )


@dataclass(frozen=True)
class Review:
    players: int
    seat: int | None  # the reviewing seat (None: no advice, only the chances)
    start: tuple[float, ...]  # the chances before the first action
    moments: tuple[Moment, ...]
    turning_points: tuple[Moment, ...]  # the largest swings, in the order they happened
    mistakes: tuple[Mistake, ...]
    winner: int | None

    def chances(self) -> list[tuple[float, ...]]:
        """Each seat's chance before the first action and after every action."""
        return [self.start, *(m.after for m in self.moments)]

    def to_json(self) -> dict[str, Any]:
        """The review as JSON (for the wire): ``chances[i]`` after ``i`` actions, turning points
        and mistakes by action number (from 0)."""
        return {
            "players": self.players,
            "seat": self.seat,
            "winner": self.winner,
            "chances": [list(c) for c in self.chances()],
            "turning_points": [m.index for m in self.turning_points],
            "mistakes": [
                {
                    "index": m.moment.index,
                    "turn": m.moment.turn,
                    "kind": m.kind,
                    "played": m.moment.action.to_json(),
                    "best": m.moment.best.to_json(),
                    "best_chance": m.moment.best_chance,
                    "played_chance": m.moment.played_chance,
                    "text": m.describe(),
                }
                for m in self.mistakes
            ],
        }


class _Reviewer(SearchBot):
    """A search that also adds up every seat's reward over its playouts."""

    def __init__(self, seed: int, iterations: int, work: int | None) -> None:
        super().__init__("review", seed, iterations=iterations, rollout_turns=None, work=work)
        self.totals: list[float] = []

    def _rollout(self, game: Game, floors: int, rng: random.Random) -> tuple[list[float], int]:
        rewards, steps = super()._rollout(game, floors, rng)
        if not self.totals:
            self.totals = [0.0] * len(rewards)
        for seat, reward in enumerate(rewards):
            self.totals[seat] += reward
        return rewards, steps


def _assess(
    view: View, legal: Sequence[Action], seed: int, iterations: int
) -> tuple[tuple[float, ...], list[tuple[Action, float]]]:
    """Each seat's chance at this decision, and the acting seat's moves with their values."""
    assert view.seat is not None
    work = None if view.players == 2 else iterations * WORK_PER_ITERATION
    reviewer = _Reviewer(seed, iterations, work)
    ranked = reviewer.evaluate(view, legal, unsearched=False)
    mine = ranked[0][1]
    chances = [0.0] * view.players
    chances[view.seat] = mine
    others = [s for s in range(view.players) if s != view.seat]
    weights = [reviewer.totals[s] if reviewer.totals else 1.0 for s in others]
    total = sum(weights)
    for s, weight in zip(others, weights, strict=True):
        share = weight / total if total > 0 else 1.0 / len(others)
        chances[s] = (1.0 - mine) * share
    return tuple(chances), ranked


def quick_iterations(actions: int) -> int:
    """The iterations per decision of a quick review of ``actions`` actions."""
    least, most = QUICK_ITERATIONS
    return max(least, min(most, QUICK_BUDGET // max(1, actions)))


def review(
    record: Record,
    seat: int | None = None,
    iterations: int = REVIEW_ITERATIONS,
    seed: int = 0,
    turning_points: int = 3,
    progress: Callable[[int, int], None] | None = None,
) -> Review:
    """Review the game of ``record`` for ``seat`` (its mistakes; None for none).

    ``iterations`` bounds the cost: one search of that many iterations per action, and one
    more for each move of ``seat`` that was not the search's best.
    ``progress(done, total)`` is told after every action. Raises ``ValueError`` for a seat
    not in the game, and the engine's errors for a record that does not replay (R21).
    """
    record.replay()  # every action legal (R21), before any search: the engine's error names it
    game = record.start()
    players = game.view(None).players
    if seat is not None and not 0 <= seat < players:
        raise ValueError(f"seat {seat}: the game has seats 0 to {players - 1} (R1)")
    if iterations < 1:
        raise ValueError(f"iterations {iterations}: a review needs at least one")
    total = len(record.actions)
    pending: list[tuple[int, int, int, Action, tuple[float, ...], list[tuple[Action, float]]]] = []
    start: tuple[float, ...] | None = None
    replayed: dict[int, float] = {}
    for index, action in enumerate(record.actions):
        mover = game.view(None).active  # (the public view: only what everyone sees)
        view = game.view(mover)
        decision_seed = hashed_seed(f"gotown review: seed {seed}, action {index}")
        chances, ranked = _assess(view, game.legal_actions(), decision_seed, iterations)
        if mover == seat and action != ranked[0][0]:
            # The move played was searched less than the best (or not at all): a search of
            # its own gives its chance with the same budget.
            replayed[index] = _assess(view, [action], decision_seed, iterations)[1][0][1]
        if start is None:
            start = chances
        pending.append((index, view.turn, mover, action, chances, ranked))
        game.apply(action)
        if progress:
            progress(index + 1, total)
    outcome = game.outcome()
    if outcome is not None:
        final = tuple(1.0 if s == outcome.winner else 0.0 for s in range(players))
    elif game.is_over or not game.legal_actions():
        final = tuple(0.0 for _ in range(players))
    else:  # the record stops mid-game: the position it leaves
        view = game.view(game.view(None).active)
        final, _ = _assess(
            view, game.legal_actions(), hashed_seed(f"review {seed} end"), iterations
        )
    moments = []
    for position, (index, turn, mover, action, before, ranked) in enumerate(pending):
        after = pending[position + 1][4] if position + 1 < len(pending) else final
        played = next((v for a, v in ranked if a == action), None)
        if mover == seat and action != ranked[0][0]:
            played = replayed[index]
        moments.append(
            Moment(index, turn, mover, action, before, after, ranked[0][0], ranked[0][1], played)
        )
    swings = sorted(moments, key=lambda m: -m.swing)[:turning_points]
    mistakes = []
    for m in moments:
        if m.seat != seat or m.played_chance is None or m.action == m.best:
            continue
        loss = m.best_chance - m.played_chance
        if loss >= BLUNDER:
            mistakes.append(Mistake(m, "a blunder"))
        elif loss >= MISTAKE:
            mistakes.append(Mistake(m, "a mistake"))
    return Review(
        players=players,
        seat=seat,
        start=start if start is not None else final,
        moments=tuple(moments),
        turning_points=tuple(sorted(swings, key=lambda m: m.index)),
        mistakes=tuple(mistakes),
        winner=None if outcome is None else outcome.winner,
    )
