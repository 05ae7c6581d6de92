"""Search over the hidden information: information-set MCTS (ISMCTS).

The algorithm is SO-ISMCTS (Cowling, Powley & Whitehouse, "Information Set Monte Carlo Tree
Search", IEEE TCIAIG 4(2), 2012, Algorithm 2). One tree is grown for the deciding seat's
information set. Every iteration

1. samples a *determinisation*: the unseen cards dealt consistently with the view
   (:mod:`gotown.bots.sampling`), with a fresh seed for the thieves and reshuffles;
2. descends the tree through the actions legal in that determinisation, choosing by UCB1 with
   *availability counts* (a child's exploration term uses how often it was available, not its
   parent's visits), every node being keyed by the acting seat's action, so that a turn of
   several actions by one seat and the opponents' turns are all in the one tree;
3. adds one child, picking among the untried actions the one the ``medium`` rule likes best
   (a cheap prior that makes the first visits count);
4. plays the game out with the rule-based policy (:func:`gotown.bots.rules.policy_action`,
   epsilon-greedy) for at most ``rollout_turns`` turns, then scores each seat: 1 for the
   winner, or, when the rollout was cut short, an estimate from tower heights;
5. backs the result up, each node crediting the seat that chose its action.

In GoTown this single-observer search is also the multiple-observer one (MO-ISMCTS, the same
paper), which grows one tree per seat branching on the moves as that seat observes them: every
action is public (R22), only chance is hidden, and the tree does not branch on chance (a draw
happens inside the determinised game), so each seat's tree would have this one's shape and
statistics, each node credited to the seat that chose it, as here.

The move played is the most visited child of the root; a child's mean reward is its estimated
win probability (used by :func:`gotown.bots.hint`). Once :data:`FROZEN_ROUNDS` whole rounds have
passed in which every turn was only ended, it is the most visited child that is not the end of
the turn (:meth:`SearchBot.evaluate` ranks it last), or the search could wait for ever on
opponents holding full hands that can do nothing (R7b). A budget is an amount of *work*, so
that the same seed gives the same choices on any machine and a decision about the same time
in any position: at most ``iterations`` iterations and, optionally, at most ``work`` units (one
simulated action; :data:`ITERATION_WORK` more per iteration), which ``hard`` and ``expert`` cap
with three or four players (:mod:`gotown.bots`). A think time can cap it as well (the hint does
so), at the cost of reproducibility under load.

What was measured (the frozen-game rule, the work caps with three or four players, budgets that
bought nothing): ``docs/research/2026-12-02-ismcts-notes.md``.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Mapping, Sequence

from mypy_extensions import mypyc_attr

from gotown.engine import Action, Game, View

from .rules import WIN, RuleFacts, ViewFacts, policy_action, score_medium
from .sampling import Sampler

MAX_ROLLOUT_TURNS = 100
#: What one iteration costs beyond its simulated actions (dealing the determinisation and
#: walking the tree), in simulated actions: measured, about ten.
ITERATION_WORK = 10
#: After this many rounds in which every turn was only ended, a search player does not end its
#: turn while it can do something else (see :meth:`SearchBot.choose`).
FROZEN_ROUNDS = 2
#: The search's settings where :class:`SearchBot` is not told otherwise (named here, not only
#: in its signature: the defaults of a function compiled by mypyc are not visible to
#: ``inspect``, and bot specs are written without them).
EXPLORATION = 0.7
EPSILON = 0.1
ROLLOUT_TURNS = 8


class Node:
    __slots__ = ("avail", "children", "reward", "seat", "visits")

    def __init__(self, seat: int) -> None:
        self.seat = seat  # the seat whose action led here (credited with the reward)
        self.children: dict[Action, Node] = {}
        self.visits = 0
        self.reward = 0.0
        self.avail = 1


def estimate(game: Game) -> list[float]:
    """Each seat's chance to win, as a game that was cut short is scored.

    A softmax of a seat's progress: floors built (the top floor counts less when it lies
    open to a steal or a hammer) and a little for the cards in hand.
    """
    outcome = game.outcome()
    if outcome is not None:
        return [1.0 if s == outcome.winner else 0.0 for s in range(game.players)]
    need = game.options.win_floors
    scores = []
    for seat in range(game.players):
        tower = game.towers[seat]
        value = len(tower) - (0.0 if not tower or tower[-1][2] else 0.3)
        value += 0.12 * min(game.hand_sizes[seat], 8)
        scores.append(math.exp(1.6 * value * 5 / need))
    total = sum(scores)
    return [s / total for s in scores]


def winning_action(
    facts: RuleFacts, me: int, legal: Sequence[Action], floors: int
) -> Action | None:
    """A build or steal that wins the game at once (R20), if there is one."""
    if len(facts.towers[me]) + 1 < floors:
        return None
    for action in legal:
        if action.type in ("build", "steal"):
            return action
    return None


@mypyc_attr(allow_interpreted_subclasses=True)  # (subclassed in Python)
class SearchBot:
    """An SO-ISMCTS player (see the module docstring) with a budget of iterations, units of
    work (one number, or one per player count, ``None`` for no limit) and, optionally, seconds;
    the search stops at the first one spent.

    ``infer`` deals the determinisations with the sensible-opponent model of
    :mod:`gotown.bots.sampling`. ``hard`` and ``expert`` leave it off: on the same 400 deals
    against ``medium`` it did not win more often (``docs/research/experiments/ceiling.py``), and
    against ``hard`` it won fewer (``expert:infer=1``; the research log of 2026-11-29).
    """

    def __init__(
        self,
        name: str,
        seed: int,
        iterations: int,
        seconds: float | None = None,
        rollout_turns: int | None = ROLLOUT_TURNS,
        exploration: float = EXPLORATION,
        epsilon: float = EPSILON,
        infer: bool = False,
        work: int | Mapping[int, int | None] | None = None,
    ) -> None:
        works = work.values() if isinstance(work, Mapping) else [work]
        if iterations < 1 or any(w is not None and w < 1 for w in works):
            raise ValueError("a search needs at least one iteration and one unit of work")
        self.name = name
        self._rng = random.Random(seed)
        self.iterations = iterations
        self.work = work
        self.seconds = seconds
        self.rollout_turns = rollout_turns
        self.exploration = exploration
        self.epsilon = epsilon
        self.infer = infer

    def choose(self, view: View, legal_actions: Sequence[Action]) -> Action:
        if not legal_actions:
            raise ValueError("no legal action to choose from")
        if len(legal_actions) == 1:
            return legal_actions[0]
        me = _seat(view)
        quick = winning_action(ViewFacts(view), me, legal_actions, view.options.win_floors)
        if quick is not None:
            return quick
        return _ranked(self.search(view, legal_actions), view)[0][0]

    def evaluate(
        self, view: View, legal_actions: Sequence[Action], *, unsearched: bool = True
    ) -> list[tuple[Action, float]]:
        """Every legal action with its estimated win probability, best first. A search cut
        short by its think time may leave actions untried: they come last, at 0.0, or are
        left out (``unsearched=False``), having no estimate."""
        me = _seat(view)
        quick = winning_action(ViewFacts(view), me, legal_actions, view.options.win_floors)
        wins: list[Action] = []
        if quick is not None:
            # Every build or steal wins at once (R20): each is certain. The others are searched
            # as usual (after all of the certain ones), so that each still gets its estimate.
            wins = [a for a in legal_actions if a.type in ("build", "steal")]
            legal_actions = [a for a in legal_actions if a not in wins]
            if not legal_actions:
                return [(a, 1.0) for a in wins]
        ranked = _ranked(self.search(view, legal_actions), view)
        out = [(a, n.reward / n.visits if n.visits else 0.0) for a, n in ranked]
        seen = {a for a, _ in out}
        rest = [(a, 0.0) for a in legal_actions if a not in seen] if unsearched else []
        return [(a, 1.0) for a in wins] + out + rest

    def search(self, view: View, legal_actions: Sequence[Action]) -> Node:
        me = _seat(view)
        sampler = self._sampler(view)
        rng = self._rng
        legal_set = set(legal_actions)
        root = Node(me)
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        floors = view.options.win_floors
        c = self.exploration
        work = self.work
        if isinstance(work, Mapping):
            if view.players not in work:
                raise ValueError(f"{self.name} has no work budget for {view.players} players")
            work = work[view.players]
        done = 0  # units of work so far
        for iteration in range(self.iterations):
            if iteration and (
                (work is not None and done >= work)
                or (deadline is not None and time.perf_counter() > deadline)
            ):
                break
            game = sampler.sample(rng)
            done += ITERATION_WORK
            node = root
            path = [root]
            while not game.is_over:
                legal = game.legal_actions()
                if node is root:
                    legal = tuple(a for a in legal if a in legal_set) or legal
                actor = game.active
                children = node.children
                untried = [a for a in legal if a not in children]
                if untried:
                    action = _prior_choice(game, actor, untried, floors, rng)
                    child = children[action] = Node(actor)
                    game.apply_unchecked(action)
                    done += 1
                    path.append(child)
                    break
                log_factor = 0.0
                best_value = -1.0
                best_child: Node | None = None
                best_action = legal[0]
                for action in legal:
                    child = children[action]
                    child.avail += 1
                for action in legal:
                    child = children[action]
                    log_factor = math.log(child.avail)
                    value = child.reward / child.visits + c * math.sqrt(log_factor / child.visits)
                    if value > best_value:
                        best_value, best_child, best_action = value, child, action
                assert best_child is not None
                game.apply_unchecked(best_action)
                done += 1
                node = best_child
                path.append(node)
            rewards, steps = self._rollout(game, floors, rng)
            done += steps
            for visited in path:
                visited.visits += 1
                visited.reward += rewards[visited.seat]
        return root

    def _sampler(self, view: View) -> Sampler:
        """What deals the determinisations (a hook for measurement probes)."""
        return Sampler(view, infer=self.infer)

    def _rollout(self, game: Game, floors: int, rng: random.Random) -> tuple[list[float], int]:
        """The seats' estimated rewards after playing ``game`` on, and the actions it took."""
        # A rollout always stops: some positions never end (two full hands that can do
        # nothing, R7b), so even "to the end" means at most MAX_ROLLOUT_TURNS turns.
        turns = MAX_ROLLOUT_TURNS if self.rollout_turns is None else self.rollout_turns
        limit = game.turn + turns
        epsilon = self.epsilon
        steps = 0
        while not game.is_over:
            if game.turn >= limit:
                break
            me = game.active
            legal = game.legal_actions()
            game.apply_unchecked(policy_action(game, me, legal, floors, rng, epsilon))
            steps += 1
        return estimate(game), steps


def _ranked(root: Node, view: View) -> list[tuple[Action, Node]]:
    """The root's moves, best first: most visited, then best mean reward (the first such in
    the tree's order); the end of the turn last once the game is frozen."""
    ranked = sorted(root.children.items(), key=lambda item: (-item[1].visits, -item[1].reward))
    if view.frozen_turns >= FROZEN_ROUNDS * view.players:
        # Whole rounds of nothing but ended turns: ending this one too leaves the game as it
        # is, perhaps for ever (the others may hold full hands that can do nothing, R7b), and
        # a game that nobody wins is worth less than any move. The search cannot see that:
        # its samples give the others hands that would act.
        ranked.sort(key=lambda item: item[0].type == "end-turn")
    return ranked


def _prior_choice(
    game: Game, actor: int, untried: Sequence[Action], floors: int, rng: random.Random
) -> Action:
    best = untried[0]
    best_score = -1e9
    for action in untried:
        value = score_medium(game, actor, action, floors) + rng.random()
        if value > best_score:
            best, best_score = action, value
            if value >= WIN:
                break
    return best


def _seat(view: View) -> int:
    if view.seat is None:
        raise ValueError("a bot plays a seat: it needs a seat's view, not the public one")
    if view.seat != view.active or view.over:
        raise ValueError(f"it is not seat {view.seat}'s turn to act")
    return view.seat
