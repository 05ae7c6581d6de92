"""The post-game review: each seat's chance to win after every action, the turning points
(what swung the game: a draw, a theft, a decision), and the reviewing seat's mistakes, each
named only when it is larger than the estimate's noise.

Two points of view, each said where it is shown:

- **The chances and the turning points: every hand shown**, as it may be once the game is
  over (R22), the order of the draw pile unknown. After every action the true position is
  played on to its end in many random futures (:mod:`.futures`) by the rollout policy (the
  ``medium`` rule with a few random moves): a seat's chance is the share of those it wins. So
  every point of every seat's line comes from one point of view, and the line moves only
  where something happened.
- **A mistake: what its seat knew.** The hidden hands are dealt again and again from the
  seat's view at that moment (:class:`~.sampling.Sampler`), every legal move is played on in
  the same worlds, and the move played is compared with the best, world by world.

An action's change splits in two: the *decision* (the chance after the action, the cards it
brings still unknown, less the chance before it, when the seat had a choice) and the *luck*
(the cards drawn at the end of the turn, R7b, R8, or taken by a thief, R16, R17: the chance
once they are known, less before). A turning point is one of those parts, so a turn's end is
named for its draws unless ending it was itself the swing.

Computation goes where it matters: a cheap pass estimates every position with the same
futures (common random numbers, so the difference of two positions is measured far more
precisely than either), then each part that may be a turning point and each decision that may
be a mistake gets a second look on fresh futures, grown until its estimate is clear of the
threshold by :data:`CLEAR` standard errors, or :data:`SECOND_LOOK_MOST` times the cheap pass's
futures, within a budget for the review. What was measured:
``docs/research/2026-12-02-review.md``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gotown.engine import CODES, Action, Game, Record, format_action

from .futures import NO_WINNER, Difference, Future, chance, futures, play_out
from .sampling import Sampler

#: Random futures per position in the cheap pass, by default.
REVIEW_ITERATIONS = 128
#: A quick review (the web table's, the terminal's): about this many play-outs a position
#: times the positions, shared by the actions (:func:`quick_iterations`), between
#: :data:`QUICK_ITERATIONS` futures a position.
QUICK_BUDGET = REVIEW_ITERATIONS * 100
QUICK_ITERATIONS = (32, REVIEW_ITERATIONS)
#: A part of an action's change of at least this much (a seat's chance to win) is a turning
#: point; the largest few are named.
TURNING = 0.20
#: A move that loses at least this much against the best is a mistake; this much, a blunder.
MISTAKE = 0.15
BLUNDER = 0.30
#: A second look goes on until its estimate is this many standard errors from its threshold.
CLEAR = 3.0
#: A part or a decision gets a second look when its cheap estimate is within this many
#: standard errors of the threshold (or beyond it).
SCREEN = 2.5
#: The second look's futures, in multiples of the cheap pass's: at first, and at most.
SECOND_LOOK_FIRST = 2
SECOND_LOOK_MOST = 256
#: The second looks of a review together play at most about this many play-outs, in
#: multiples of the cheap pass's futures (the first second look of each question counts,
#: but is always taken). The close calls come last and wait for it: at 512, a third of the
#: reviews ran out with some still open, and three seeds named the same in 86% of 50 games;
#: at 1,024, in 94%, for a tenth of a second more at the median, two at the longest. A
#: review that runs out takes longer by as much (games of three or four, long games).
SECOND_LOOK_BUDGET = 1024
#: At most this many alternatives of a move are compared with it at the second look.
ALTERNATIVES = 3

DECISION, DRAW, THEFT = "decision", "draw", "theft"
#: Where the review's chances come from, for every place that shows them.
BASIS = "every hand shown, as after the game (R22); the draw pile's order unknown"


@dataclass(frozen=True)
class Moment:
    """One action of the record and each seat's chance around it (every hand shown)."""

    index: int  # the action's number in the record, from 0
    turn: int
    seat: int  # the seat that acted
    action: Action
    before: tuple[float, ...]  # each seat's chance before the action
    after: tuple[float, ...]  # and after it
    decision: tuple[float, ...] | None  # the part of the change owed to the choice (None: none)
    luck: tuple[float, ...] | None  # the part owed to the cards drawn or stolen (None: none)

    @property
    def swing(self) -> float:
        """The largest change of any seat's chance across this action."""
        return max(abs(a - b) for a, b in zip(self.after, self.before, strict=True))


@dataclass(frozen=True)
class TurningPoint:
    """A part of an action's change that swung the game: a ``cause`` (a decision, a draw, a
    theft) and the seat ``who`` whose chance it moved most, from ``before`` to ``after`` (a
    second look's figures, ``change`` its paired estimate)."""

    moment: Moment
    cause: str  # DECISION, DRAW or THEFT
    who: int
    before: float
    after: float
    change: Difference
    cards: tuple[tuple[int, tuple[str, ...]], ...]  # (seat, cards) drawn or taken, by seat

    @property
    def index(self) -> int:
        return self.moment.index

    @property
    def turn(self) -> int:
        return self.moment.turn

    @property
    def seat(self) -> int:
        """The seat that acted."""
        return self.moment.seat

    @property
    def action(self) -> Action:
        return self.moment.action

    @property
    def swing(self) -> float:
        return abs(self.change.mean)

    def describe(self) -> str:
        """``turn 12: seat 1 drew wrecking-ball: seat 1 40% → 75%``."""
        m = self.moment
        if self.cause == DECISION:
            what = f"seat {m.seat} played {format_action(m.action)}"
        else:
            verb = "drew" if self.cause == DRAW else "took"
            what = "; ".join(f"seat {s} {verb} {', '.join(cards)}" for s, cards in self.cards)
            if self.cause == THEFT:
                what = f"seat {m.seat}'s {format_action(m.action)}: {what}"
        return f"turn {m.turn}: {what}: seat {self.who} {_pct(self.before)} → {_pct(self.after)}"

    def to_json(self) -> dict[str, Any]:
        m = self.moment
        low, high = self.change.interval()
        return {
            "index": m.index,
            "turn": m.turn,
            "seat": m.seat,
            "action": m.action.to_json(),
            "text": format_action(m.action),
            "swing": self.swing,
            "cause": self.cause,
            "who": self.who,
            "before": self.before,
            "after": self.after,
            "interval": [low, high],
            "futures": self.change.count,
            "cards": [{"seat": s, "cards": list(cards)} for s, cards in self.cards],
            "description": self.describe(),
        }


@dataclass(frozen=True)
class Mistake:
    """A move of the reviewing seat that lost at least :data:`MISTAKE` against the best, as
    judged on what the seat knew, ``loss`` the paired estimate (its ``error`` and
    ``futures``)."""

    moment: Moment
    kind: str  # "a mistake" or "a blunder"
    best: Action
    best_chance: float  # the seat's chance after the best move (from what it knew)
    played_chance: float  # and after the move played
    difference: Difference

    @property
    def loss(self) -> float:
        return self.difference.mean

    def size(self) -> str:
        """The loss in words: ``about 1 game in 5``, ``about 7 games in 10``."""
        return loss_words(self.loss)

    def describe(self) -> str:
        """``turn 7, a blunder: end instead of 4+5, about 9 games in 10 lost (100% → 12%)``."""
        m = self.moment
        return (
            f"turn {m.turn}, {self.kind}: {format_action(m.action)} instead of "
            f"{format_action(self.best)}, {self.size()} lost "
            f"({_pct(self.best_chance)} → {_pct(self.played_chance)})"
        )

    def to_json(self) -> dict[str, Any]:
        m = self.moment
        low, high = self.difference.interval()
        return {
            "index": m.index,
            "turn": m.turn,
            "kind": self.kind,
            "played": m.action.to_json(),
            "best": self.best.to_json(),
            "best_chance": self.best_chance,
            "played_chance": self.played_chance,
            "loss": self.loss,
            "interval": [low, high],
            "futures": self.difference.count,
            "size": self.size(),
            "text": self.describe(),
        }


@dataclass(frozen=True)
class Review:
    players: int
    seat: int | None  # the reviewing seat (None: no advice, only the chances)
    start: tuple[float, ...]  # the chances before the first action
    moments: tuple[Moment, ...]
    turning_points: tuple[TurningPoint, ...]  # the largest swings, in the order they happened
    mistakes: tuple[Mistake, ...]
    winner: int | None
    reason: str | None  # how the game ended (win, stalemate, turn-limit), None: not over
    futures: int  # the cheap pass's futures per position

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
            "reason": self.reason,
            "basis": BASIS,
            "futures": self.futures,
            "chances": [list(c) for c in self.chances()],
            "turning_points": [t.to_json() for t in self.turning_points],
            "mistakes": [m.to_json() for m in self.mistakes],
        }


def loss_words(loss: float) -> str:
    """A loss of a chance to win in words a child understands."""
    if loss < 0.45:
        return f"about 1 game in {max(2, round(1 / max(loss, 0.01)))}"
    return f"about {min(10, round(10 * loss))} games in 10"


def quick_iterations(actions: int) -> int:
    """The cheap pass's futures per position in a quick review of ``actions`` actions."""
    least, most = QUICK_ITERATIONS
    return max(least, min(most, QUICK_BUDGET // max(1, actions)))


def _pct(chance: float) -> str:
    return f"{100 * chance:.0f}%"


Play = Callable[[Sequence[Future]], list[int]]


@dataclass
class _Look:
    """Two sets of play-outs over the same futures: their difference is a part of an
    action's change (see the module docstring)."""

    after: list[int]
    before: list[int]

    def difference(self, seat: int) -> Difference:
        return Difference.of(self.after, self.before, seat)

    def largest(self, players: int) -> tuple[int, Difference]:
        """The seat whose chance it moved most, and that change."""
        changes = [(s, self.difference(s)) for s in range(players)]
        return max(changes, key=lambda change: abs(change[1].mean))


class _Position:
    """A position the second looks play on, and its winners in the first futures of their
    stream so far. Every question that plays the position reads the same winners, and
    neighbouring parts share one (an end of turn's decision and its draw, the position
    between them; an action's last part and the next action's decision, the position after
    it): no future is played twice in the same place."""

    def __init__(self, play: Play) -> None:
        self.play = play
        self.winners: list[int] = []


@dataclass
class _Part:
    """A part of an action's change: its cheap look, and the two positions its second look
    plays on (``count`` futures so far)."""

    index: int
    cause: str
    look: _Look
    after: _Position
    before: _Position
    count: int = 0

    def current(self) -> _Look:
        """The second look so far (the cheap one before it)."""
        if not self.count:
            return self.look
        n = self.count
        return _Look(self.after.winners[:n], self.before.winners[:n])

    def largest(self, players: int) -> tuple[int, Difference]:
        return self.current().largest(players)


def _grown(count: int) -> int:
    """A second look's next number of futures: half as many again (doubling would overshoot
    the futures a question needs to be clear by up to twice; a smaller step stops nearer,
    and leaves the budget to the close calls)."""
    return count + max(1, count // 2)


def _play(game: Game, first: Action | None = None) -> Play:
    """Plays ``game`` on (after ``first``) in each of some futures: the winners."""
    outcome = game.outcome()
    if outcome is not None:
        winner = NO_WINNER if outcome.winner is None else outcome.winner
        return lambda some: [winner] * len(some)
    return lambda some: [play_out(game, f, first) for f in some]


def _gained(before: Game, after: Game) -> tuple[tuple[int, tuple[str, ...]], ...]:
    """The cards each seat's hand gained from ``before`` to ``after`` (drawn or taken)."""
    found = []
    for seat in range(before.players):
        gains = zip(before.hands[seat], after.hands[seat], strict=True)
        cards = tuple(
            CODES[kind] for kind, (old, new) in enumerate(gains) for _ in range(new - old)
        )
        if cards:
            found.append((seat, cards))
    return tuple(found)


class _Reviewer:
    """One review's positions, futures and progress."""

    def __init__(self, record: Record, seat: int | None, iterations: int, seed: int,
                 progress: Callable[[int, int], None] | None) -> None:  # fmt: skip
        self.seat = seat
        self.iterations = iterations
        self.label = f"gotown review: seed {seed}"
        self.progress = progress
        game = record.start()
        self.players = game.players
        self.actions = record.actions
        self.states = [game.copy(history=False)]
        for action in record.actions:
            game.apply(action)
            self.states.append(game.copy(history=False))
        self.total = 3 * max(1, len(record.actions))
        self.first = futures(f"{self.label}, cheap pass", 0, iterations)
        self._second: list[Future] = []
        self.positions: dict[tuple[str, int], _Position] = {}
        self.spent = 0  # the second looks' play-outs

    def tell(self, done: int) -> None:
        if self.progress:
            self.progress(min(done, self.total), self.total)

    def chances(self, winners: Sequence[int]) -> tuple[float, ...]:
        return tuple(chance(winners, s) for s in range(self.players))

    def change(self, look: _Look) -> tuple[float, ...]:
        after, before = self.chances(look.after), self.chances(look.before)
        return tuple(a - b for a, b in zip(after, before, strict=True))

    def second_futures(self, start: int, stop: int) -> list[Future]:
        """Futures of the second looks' stream (none of the cheap pass's, so that a second
        look is not biased by the screening that chose it)."""
        if len(self._second) < stop:
            more = futures(
                f"{self.label}, second look", len(self._second), stop - len(self._second)
            )
            self._second += more
        return self._second[start:stop]

    def position(self, key: tuple[str, int], play: Play) -> _Position:
        """The second looks' position of ``key`` (``("state", i)`` before action ``i``,
        ``("middle", i)`` after it with its cards still unknown)."""
        return self.positions.setdefault(key, _Position(play))

    def extend(self, position: _Position, stop: int) -> int:
        """Play ``position`` in the second looks' futures up to number ``stop``: the
        play-outs it took."""
        start = len(position.winners)
        if stop <= start:
            return 0
        position.winners += position.play(self.second_futures(start, stop))
        return stop - start

    # -- the cheap pass -------------------------------------------------------------------
    def lines(self) -> list[list[int]]:
        """Every position's winners in the cheap pass's futures."""
        found = []
        for i, state in enumerate(self.states):
            found.append(_play(state)(self.first))
            self.tell(min(i + 1, len(self.actions)))
        return found

    def moments(self, lines: list[list[int]]) -> tuple[list[Moment], list[_Part]]:
        """Each action's moment and the parts of its change (the cheap pass's)."""
        moments: list[Moment] = []
        parts: list[_Part] = []
        for i, action in enumerate(self.actions):
            state, after = self.states[i], self.states[i + 1]
            choice = len(state.legal_actions()) > 1
            drew = sum(after.hand_sizes) > sum(state.hand_sizes)
            chancy = action.type in ("thief", "super-thief") or (action.type == "end-turn" and drew)
            decision: _Part | None = None
            luck: _Part | None = None
            here = self.position(("state", i), _play(state))
            then = self.position(("state", i + 1), _play(after))
            if chancy:
                middle, between = lines[i], here
                if choice:
                    middle = _play(state, action)(self.first)
                    between = self.position(("middle", i), _play(state, action))
                    decision = _Part(i, DECISION, _Look(middle, lines[i]), between, here)
                cause = DRAW if action.type == "end-turn" else THEFT
                luck = _Part(i, cause, _Look(lines[i + 1], middle), then, between)
            elif choice:
                decision = _Part(i, DECISION, _Look(lines[i + 1], lines[i]), then, here)
            moments.append(
                Moment(
                    index=i,
                    turn=state.turn,
                    seat=state.active,
                    action=action,
                    before=self.chances(lines[i]),
                    after=self.chances(lines[i + 1]),
                    decision=None if decision is None else self.change(decision.look),
                    luck=None if luck is None else self.change(luck.look),
                )
            )
            parts += [p for p in (decision, luck) if p is not None]
            self.tell(len(self.actions) + i + 1)
        return moments, parts

    # -- second looks ---------------------------------------------------------------------
    def settle(self, questions: Sequence[_Question]) -> None:
        """Second looks: every question its first (:data:`SECOND_LOOK_FIRST` times the cheap
        pass's futures); then, within :data:`SECOND_LOOK_BUDGET` play-outs, the open question
        with the fewest futures is grown (the nearest to clear of its threshold first among
        equals), until each is clear or has :data:`SECOND_LOOK_MOST`: every close call gets as
        many futures before any gets more."""
        first = SECOND_LOOK_FIRST * self.iterations
        most = SECOND_LOOK_MOST * self.iterations
        budget = SECOND_LOOK_BUDGET * self.iterations
        spent = 0
        for question in questions:
            spent += question.grow(first)
        waiting = [q for q in questions if not q.is_clear()]
        while waiting and spent < budget:
            question = min(waiting, key=lambda q: (q.count, -q.margin()))
            if question.count >= most:
                waiting.remove(question)
                continue
            spent += question.grow(min(most, _grown(question.count)))
            if question.is_clear():
                waiting.remove(question)
            self.tell(2 * len(self.actions) + len(self.actions) * spent // budget)
        self.spent = spent

    def turning_points(self, moments: list[Moment], parts: list[_Part]) -> list[_PartQuestion]:
        """The parts that may be turning points (their cheap estimate within :data:`SCREEN`
        standard errors of :data:`TURNING`, or above), as questions."""
        questions = []
        for part in parts:
            found = part.look.largest(self.players)[1]
            if abs(found.mean) + SCREEN * found.error >= TURNING:
                questions.append(_PartQuestion(part, self.players, self.extend))
        return questions

    def named_points(self, moments: list[Moment], questions: list[_PartQuestion],
                     most: int) -> list[TurningPoint]:  # fmt: skip
        """The parts of at least :data:`TURNING`, the ``most`` largest (the last one named
        looked at again beside the first one left out while they overlap, within the cap)."""
        cap = SECOND_LOOK_MOST * self.iterations
        named = sorted((q for q in questions if q.is_named()), key=lambda q: -q.value())
        while len(named) > most:
            last, next_ = named[most - 1], named[most]
            apart = CLEAR * (last.size().error ** 2 + next_.size().error ** 2) ** 0.5
            if last.value() - next_.value() >= apart or max(last.count, next_.count) >= cap:
                break
            for question in (last, next_):
                self.spent += question.grow(min(cap, _grown(question.count)))
            named = sorted((q for q in named if q.is_named()), key=lambda q: -q.value())
        out = []
        for question in sorted(
            named[:most], key=lambda q: (q.part.index, q.part.cause != DECISION)
        ):
            part = question.part
            look = part.current()
            who, found = part.largest(self.players)
            moment = moments[part.index]
            cards: tuple[tuple[int, tuple[str, ...]], ...] = ()
            if part.cause != DECISION:
                cards = _gained(self.states[part.index], self.states[part.index + 1])
            if part.cause == THEFT:  # (only what the thief took: its own card left the hand)
                cards = tuple((s, c) for s, c in cards if s == moment.seat)
            before, after = chance(look.before, who), chance(look.after, who)
            out.append(TurningPoint(moment, part.cause, who, before, after, found, cards))
        return out

    def mistakes(self, moments: list[Moment]) -> list[_MoveQuestion]:
        """The reviewing seat's moves that may have lost :data:`MISTAKE` or more, judged on
        its views: every legal move played on in a few worlds dealt from the view (the same
        for every move), then, where the best other move may beat the one played by that
        much, a question of it and the few moves nearest the best."""
        seat = self.seat
        if seat is None:
            return []
        questions = []
        screened = max(16, self.iterations // 2)
        for i, state in enumerate(self.states[:-1]):
            if state.active != seat or len(state.legal_actions()) == 1:
                continue
            question = _MoveQuestion(moments[i], state, seat, f"{self.label}, action {i}")
            if question.screen(screened):
                questions.append(question)
        return questions


class _Question:
    """A paired estimate compared with a threshold, looked at again on fresh futures (their
    number doubled each time) until it is :data:`CLEAR` of it."""

    threshold = 0.0
    count = 0  # the futures of the second look so far
    _measured: tuple[int, Difference] | None = None

    def size(self) -> Difference:
        """The estimate at ``count`` futures (measured once for each count: the second
        looks ask it of every open question at every step)."""
        if self._measured is None or self._measured[0] != self.count:
            self._measured = (self.count, self.measure())
        return self._measured[1]

    def measure(self) -> Difference:
        raise NotImplementedError

    def value(self) -> float:
        """What is compared with the threshold."""
        return self.size().mean

    def grow(self, stop: int) -> int:
        """Play futures up to number ``stop``: the play-outs it took."""
        raise NotImplementedError

    def margin(self) -> float:
        """How many standard errors the estimate lies from the threshold."""
        gap = abs(self.value() - self.threshold)
        error = self.size().error
        return gap / error if error > 0 else float("inf")

    def is_clear(self) -> bool:
        return self.margin() >= CLEAR

    def is_named(self) -> bool:
        """At or above its threshold, as its second looks left it."""
        return self.value() >= self.threshold


class _PartQuestion(_Question):
    """Whether a part of an action's change moved a seat's chance by :data:`TURNING`."""

    threshold = TURNING

    def __init__(self, part: _Part, players: int,
                 extend: Callable[[_Position, int], int]) -> None:  # fmt: skip
        self.part = part
        self.players = players
        self.extend = extend

    def measure(self) -> Difference:
        return self.part.largest(self.players)[1]

    def value(self) -> float:
        return abs(self.size().mean)

    def grow(self, stop: int) -> int:
        part = self.part
        if stop <= self.count:
            return 0
        played = self.extend(part.after, stop) + self.extend(part.before, stop)
        part.count = self.count = stop
        return played


class _MoveQuestion(_Question):
    """Whether the move of ``moment`` lost :data:`MISTAKE` or more against the best, every
    move played in the same worlds dealt from the seat's view."""

    threshold = MISTAKE

    def __init__(self, moment: Moment, state: Game, seat: int, label: str) -> None:
        self.moment = moment
        self.state = state
        self.seat = seat
        self.label = label
        self.sampler = Sampler(state.view(seat))
        self.moves: list[Action] = []
        self.results: list[list[int]] = []

    def play(self, moves: Sequence[Action], some: Sequence[Future]) -> list[list[int]]:
        """Each move's winners, every world played with every move."""
        found: list[list[int]] = [[] for _ in moves]
        for future in some:
            world = self.sampler.sample(random.Random(future.seed))
            for results, move in zip(found, moves, strict=True):
                results.append(play_out(world, future, move, deal=False))
        return found

    def screen(self, count: int) -> bool:
        """Whether the move may be a mistake, from ``count`` worlds; if so, the moves to look
        at again: the one played and those of the others not clearly worse than the best."""
        seat, played = self.seat, self.moment.action
        legal = self.state.legal_actions()
        worlds = futures(self.label, 0, count, deck=False)
        screened = dict(zip(legal, self.play(legal, worlds), strict=True))
        others = sorted((m for m in legal if m != played), key=lambda m: -chance(screened[m], seat))
        losses = [Difference.of(screened[m], screened[played], seat) for m in others]
        if all(d.mean + SCREEN * d.error < MISTAKE for d in losses[:ALTERNATIVES]):
            return False
        best = screened[others[0]]
        self.moves = [played] + [
            m for m in others[:ALTERNATIVES]
            if (d := Difference.of(best, screened[m], seat)).mean <= SCREEN * d.error
        ]  # fmt: skip
        self.results = [[] for _ in self.moves]
        return True

    def losses(self) -> list[Difference]:
        return [Difference.of(r, self.results[0], self.seat) for r in self.results[1:]]

    def best(self) -> int:
        """The index among the alternatives of the best so far."""
        losses = self.losses()
        return max(range(len(losses)), key=lambda k: losses[k].mean)

    def measure(self) -> Difference:
        return self.losses()[self.best()]

    def grow(self, stop: int) -> int:
        start = self.count
        if stop <= start:
            return 0
        if start:  # alternatives clearly worse than the best so far are played no more
            k, seat = self.best() + 1, self.seat
            keep = [0, k] + [
                j for j in range(1, len(self.moves))
                if j != k and (d := Difference.of(self.results[k], self.results[j], seat)).mean
                < CLEAR * d.error
            ]  # fmt: skip
            self.moves = [self.moves[j] for j in sorted(keep)]
            self.results = [self.results[j] for j in sorted(keep)]
        more = self.play(self.moves, futures(f"{self.label}, second look", start, stop - start,
                                             deck=False))  # fmt: skip
        for old, new in zip(self.results, more, strict=True):
            old += new
        self.count = stop
        return len(self.moves) * (stop - start)

    def mistake(self) -> Mistake | None:
        if not self.is_named():
            return None
        loss = self.size()
        k = self.best() + 1
        return Mistake(
            self.moment,
            "a blunder" if loss.mean >= BLUNDER else "a mistake",
            self.moves[k],
            chance(self.results[k], self.seat),
            chance(self.results[0], self.seat),
            loss,
        )


def review(
    record: Record,
    seat: int | None = None,
    iterations: int = REVIEW_ITERATIONS,
    seed: int = 0,
    turning_points: int = 5,
    progress: Callable[[int, int], None] | None = None,
) -> Review:
    """Review the game of ``record`` for ``seat`` (its mistakes; None for none).

    ``iterations``: the cheap pass's futures per position (the second looks take multiples
    of it); ``turning_points``: at most this many are named. ``progress(done, total)`` is
    told as the work goes. Raises ``ValueError`` for a seat not in the game, and the engine's
    errors for a record that does not replay (R21).
    """
    game = record.replay()  # every action legal (R21), before any search: the engine names it
    players = game.players
    if seat is not None and not 0 <= seat < players:
        raise ValueError(f"seat {seat}: the game has seats 0 to {players - 1} (R1)")
    if iterations < 1:
        raise ValueError(f"iterations {iterations}: a review needs at least one")
    reviewer = _Reviewer(record, seat, iterations, seed, progress)
    lines = reviewer.lines()
    moments, parts = reviewer.moments(lines)
    points = reviewer.turning_points(moments, parts)
    moves = reviewer.mistakes(moments)
    reviewer.settle([*points, *moves])
    named = reviewer.named_points(moments, points, turning_points)
    mistakes = [m for m in (q.mistake() for q in moves) if m is not None]
    reviewer.tell(reviewer.total)
    outcome = game.outcome()
    return Review(
        players=players,
        seat=seat,
        start=reviewer.chances(lines[0]),
        moments=tuple(moments),
        turning_points=tuple(named),
        mistakes=tuple(mistakes),
        winner=None if outcome is None else outcome.winner,
        reason=None if outcome is None else str(outcome.reason.value),
        futures=iterations,
    )
