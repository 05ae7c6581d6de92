"""Rule-based players (``easy``, ``medium``) and the fast policy that search bots roll out with.

Both score every legal action with a hand-written rule and play the best one; ending the turn
scores 0, so a card whose rule says "hold it" (a negative score) stays in the hand. The rules
are those of a sensible person: win at once when you can, steal a floor (it costs the
opponent one and gains you one), preferring the leader's, build, keep a dog on your top floor,
hit the player closest to winning with the jack-hammer, wrecking ball and milkshake.

What was measured (``docs/research/2026-11-21-bot-strength.md``): most cards are worth playing
at once (a hand of 8 stops the draw, R7b, and holding a milkshake, a jack-hammer or a joker "for
when it matters" made a bot weaker), but not a pair of floor cards. A new top floor with no dog
is stolen (R11) by an opponent who holds either of its two values, which is most of the time,
and a steal swings two floors. So ``medium`` keeps a pair in hand while the opponents probably
hold a card that steals its floor (card counting over what the view shows), and builds it once
it can be guarded (a dog in hand), once the hand is full (8 cards: no more draws), or when no
opponent acts before its next turn (a donut truck on the table, every opponent with a pending
milkshake). Against the earlier ``medium``, which held a pair only in narrower cases, this alone
won 59% of 6,000 games. With four players it builds every pair at once: with three opponents,
holding gained nothing measurable and made games three times as long. Its other care is in the
order and the aim: a thief first (the card it brings may build), steals before builds, joker
floors after number floors, the dog after the builds (on the new top floor), the wrecking ball
kept while a jack-hammer can do the job.

The scoring reads *facts*: any object with the attributes of :class:`RuleFacts` (a
:class:`~gotown.engine.Game` has them, so rollouts score straight on the game; a view is
turned into them by :class:`ViewFacts`, holding only the viewer's hand).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from mypy_extensions import mypyc_attr

from gotown.engine import Action, View
from gotown.engine.cards import JOKER, KIND_OF, KINDS

Floor = tuple[int, int, int]  # (number, other card, dogs): the engine's internal floor


class RuleFacts(Protocol):
    """The public facts a rule needs, plus the hand of the seat that decides."""

    @property
    def players(self) -> int: ...
    @property
    def hands(self) -> Sequence[Sequence[int]]: ...
    @property
    def hand_sizes(self) -> Sequence[int]: ...
    @property
    def towers(self) -> Sequence[Sequence[Floor]]: ...
    @property
    def milkshakes(self) -> Sequence[int]: ...
    @property
    def donut(self) -> bool: ...


def floor_of(codes: Sequence[str]) -> Floor:
    """The internal (number, other, dogs) form of a floor given as codes."""
    kinds = [KIND_OF[c] for c in codes if c != "dog"]
    a, b = kinds[0], kinds[1]
    if a == JOKER:
        a, b = b, a
    return (a, b, len(codes) - 2)


class ViewFacts:
    """A view's public facts in the engine's internal shapes, with only the viewer's hand."""

    __slots__ = ("donut", "hand_sizes", "hands", "milkshakes", "players", "towers")

    def __init__(self, view: View) -> None:
        self.players = view.players
        self.hand_sizes = view.hand_sizes
        self.milkshakes = view.milkshakes
        self.donut = view.donut
        self.towers = [[floor_of(f) for f in tower] for tower in view.towers]
        own = [0] * KINDS
        for code in view.hand or ():
            own[KIND_OF[code]] += 1
        self.hands = [own if s == view.seat else [0] * KINDS for s in range(view.players)]

    @classmethod
    def from_view(cls, view: View) -> ViewFacts:
        return cls(view)


HOLD = -1.0  # a score below ending the turn: keep the card
WIN = 1000.0


def score_medium(facts: RuleFacts, me: int, action: Action, win_floors: int) -> float:
    """How much a sensible player wants ``action`` now (0 = as good as ending the turn).

    Cards held do nothing, and a hand of 8 stops the draw (R7b), so nearly every card is worth
    playing; the rule is mostly about order (a thief first, for the card it may bring; steals
    before builds; the dog after the builds, on the new top floor; a joker last) and aim (the
    tallest tower, the floor that opens a steal).
    """
    kind = action.type
    towers = facts.towers
    mine = len(towers[me])
    if kind == "end-turn":
        return 0.0
    if kind == "build":
        if mine + 1 >= win_floors:
            return WIN
        return 70.0 if "?" in action.cards else 80.0
    if kind == "steal":
        if mine + 1 >= win_floors:
            return WIN
        target = action.target
        assert target is not None
        return 100.0 + 8.0 * len(towers[target]) + (10.0 if _is_leader(facts, me, target) else 0)
    if kind == "dog":
        if action.target is not None:  # an opponent's floor (R23 dog_placement "any")
            return HOLD
        return 60.0 if action.floor == mine - 1 else 5.0
    if kind == "super-thief":
        return 112.0
    if kind == "donut-truck":
        return 65.0
    target = action.target
    assert target is not None
    if target == me:  # a bone on our own dog (R23 bone_targets "any")
        return HOLD
    height = len(towers[target])
    lead = 10.0 if _is_leader(facts, me, target) else 0.0
    if kind == "thief":
        return 110.0 + facts.hand_sizes[target] + lead
    if kind == "jackhammer":
        return 50.0 + 10.0 * height + lead
    if kind == "wrecking-ball":
        if towers[target][-1][2]:
            return 55.0 + 10.0 * height + lead
        if facts.hands[me][11]:  # a jack-hammer does this job: keep the ball for a dog
            return HOLD
        return 30.0 + 10.0 * height + lead
    if kind == "bone":
        if action.floor != height - 1:
            return 3.0
        number, other, _ = towers[target][-1]
        hand = facts.hands[me]
        value = 9 - number if other == JOKER else other
        if hand[number] or hand[value] or hand[11]:  # it opens the floor to us
            return 105.0 + height + lead
        return 20.0 + height + lead
    if kind == "milkshake":
        return 45.0 + 10.0 * height + lead
    return HOLD


def score_easy(facts: RuleFacts, me: int, action: Action, win_floors: int) -> float:
    """A simpler player: build and steal at once, dog on top, every other card as soon as it
    can be played, at whoever it can hit."""
    kind = action.type
    mine = len(facts.towers[me])
    if kind == "end-turn":
        return 0.0
    if kind in ("build", "steal"):
        if mine + 1 >= win_floors:
            return WIN
        return 100.0 if kind == "steal" else 80.0
    if kind == "dog":
        return 60.0 if action.target is None and action.floor == mine - 1 else HOLD
    if kind == "bone":
        target = action.target
        assert target is not None
        if target == me:  # our own dog (R23 bone_targets "any")
            return HOLD
        return 30.0 if action.floor == len(facts.towers[target]) - 1 else HOLD
    return 40.0


def _is_leader(facts: RuleFacts, me: int, seat: int) -> bool:
    """True when no other opponent has a taller tower than ``seat``."""
    height = len(facts.towers[seat])
    return all(len(t) <= height for s, t in enumerate(facts.towers) if s != me)


@mypyc_attr(allow_interpreted_subclasses=True)  # (subclassed in Python)
class RuleBot:
    """Plays the legal action its rule scores highest (ties broken by its seeded generator).

    ``noise`` is the chance of playing a random legal action instead (an ``easy`` player
    sometimes overlooks things).
    """

    def __init__(self, name: str, seed: int, careful: bool, noise: float = 0.0) -> None:
        self.name = name
        self._rng = random.Random(seed)
        self._score = score_medium if careful else score_easy
        self._careful = careful
        self._noise = noise

    def choose(self, view: View, legal_actions: Sequence[Action]) -> Action:
        if not legal_actions:
            raise ValueError("no legal action to choose from")
        if view.seat is None:
            raise ValueError("a bot plays a seat: it needs a seat's view, not the public one")
        rng = self._rng
        if self._noise and rng.random() < self._noise:
            return legal_actions[rng.randrange(len(legal_actions))]
        facts = ViewFacts(view)
        win = view.options.win_floors
        exposure = self._exposure(view, legal_actions)
        best: list[Action] = []
        best_score = -1e9
        for action in legal_actions:
            value = self._score(facts, view.seat, action, win)
            if exposure is not None and action.type == "build" and value < WIN:
                value = exposure.adjust(facts, view.seat, action, value)
            if value > best_score:
                best, best_score = [action], value
            elif value == best_score:
                best.append(action)
        return best[0] if len(best) == 1 else best[rng.randrange(len(best))]

    #: With more players than this, a careful player builds every pair at once. Against three
    #: opponents one of them nearly always holds a card that steals the new floor, so a kept
    #: pair waited for a dog or a full hand: keeping won nothing measurable and made games
    #: three times as long (``benchmarks/holding_by_players.py``).
    HOLDING_PLAYERS = 3

    def _exposure(self, view: View, legal_actions: Sequence[Action]) -> _Exposure | None:
        """The steal risks that decide which pairs to keep (None: build every pair)."""
        if not self._careful or view.players > self.HOLDING_PLAYERS:
            return None
        return _Exposure(view)


@mypyc_attr(allow_interpreted_subclasses=True)  # (subclassed in Python)
class _Exposure:
    """How likely the opponents are to hold a card that steals a given floor (R11).

    A new top floor without a dog is stolen more often than not when the opponents may hold
    one of its two values; a careful player then keeps the pair in hand, unless it can guard
    the floor (a dog in hand), its hand is full (8 cards draw nothing, R7b), or no opponent
    acts before its next turn (a donut truck on the table, R19, or a pending milkshake in
    front of every opponent, R7a).
    """

    #: Keep the pair when an opponent holds a stealing card with more than this chance.
    THRESHOLD = 0.5
    #: A hand this large builds anyway (8 cards draw nothing, R7b).
    FULL_HAND = 8

    def __init__(self, view: View) -> None:
        from .sampling import unseen_counts

        self._unseen = unseen_counts(view)
        self._total = sum(self._unseen)
        me = view.seat
        self._hands = [
            min(size + (1 if size < 8 else 0), self._total)
            for s, size in enumerate(view.hand_sizes)
            if s != me
        ]
        #: No opponent acts before the viewer's next turn: every floor is safe until then.
        self.quiet = view.donut or all(view.milkshakes[s] for s in range(view.players) if s != me)

    def chance(self, number: int) -> float:
        """The chance that some opponent holds a number that steals a floor of
        ``number`` and ``9 - number``."""
        if self.quiet:
            return 0.0
        risky = self._unseen[number] + self._unseen[9 - number]
        safe_all = 1.0
        total = self._total
        for hand in self._hands:
            safe = 1.0
            for i in range(hand):
                if total - i <= 0:
                    break
                safe *= max(0.0, (total - risky - i) / (total - i))
            safe_all *= safe
        return 1.0 - safe_all

    def adjust(self, facts: RuleFacts, me: int, action: Action, value: float) -> float:
        a, b = (KIND_OF[c] for c in action.cards)
        number = b if a == JOKER else a
        risk = self.chance(number)
        if self.excused(facts, me):
            return value + 10.0 * risk  # the riskiest floors first: the last one is on top
        return HOLD if risk > self.THRESHOLD else value

    def excused(self, facts: RuleFacts, me: int) -> bool:
        """True when every pair is built whatever its risk: a dog can guard the floor, or the
        hand is full."""
        return bool(facts.hands[me][9]) or facts.hand_sizes[me] >= self.FULL_HAND


def policy_action(
    facts: RuleFacts,
    me: int,
    legal: Sequence[Action],
    win_floors: int,
    rng: random.Random,
    epsilon: float,
) -> Action:
    """The rollout policy: the ``medium`` rule, with a random legal action ``epsilon`` of the
    time (so rollouts explore what the rule would never play)."""
    if epsilon and rng.random() < epsilon:
        return legal[rng.randrange(len(legal))]
    best = legal[-1]
    best_score = 0.0
    for action in legal:
        value = score_medium(facts, me, action, win_floors)
        if value > best_score:
            best, best_score = action, value
            if value >= WIN:
                break
    return best
