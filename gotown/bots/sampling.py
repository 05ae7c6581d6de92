"""Determinisation: guess the hidden cards consistently with what one seat's view shows.

The unseen cards are the 54 (R2) minus the viewer's hand, every card in the towers (dogs
included), the discard pile, the pending milkshakes and the donut on the table. They are dealt
at random to the opponents' hands (their public sizes) and the draw pile (its public size),
except the cards the viewer *knows* an opponent holds: a card a thief took from the viewer sits
in the thief's hand until the thief plays a card of that kind, or until a third seat's thief
may have taken it (then the knowledge is dropped, which keeps every sample consistent).

With ``infer=True`` the deal also models the opponents as sensible players (opponent
modelling in the determinisations, as in Whitehouse, Powley & Cowling, "Determinization and
information set Monte Carlo tree search for the card game Dou Di Zhu", CIG 2011, which biases
the deals by what the opponents' play reveals). A sensible player does not end a turn holding
a card it could have played to clear profit: a number that steals an unguarded top floor
(R11), a thief or super-thief (R16, R17), a jack-hammer facing an unguarded top floor (R14), a
wrecking ball facing a guarded one (R15), a bone facing a dog (R13), a milkshake facing a seat
without one (R18), the donut truck (R19), a dog with a floor of its own to guard (R12). So
the cards an opponent kept through the end of its last turn are dealt, with probability
``belief`` per sample, from the unseen cards other than those; the cards it received since
(its refill and later draws, thefts) are dealt from all of them. Pairs are not constrained:
keeping a pair whose floor would be stolen is sensible too.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from mypy_extensions import mypyc_attr

from gotown.engine import CODES, COPIES, Game, InvalidPositionError, PublicZones, View
from gotown.engine.cards import JOKER, KIND_OF, KINDS

_DOG, _BONE, _JACKHAMMER, _BALL, _MILKSHAKE, _DONUT, _THIEF, _SUPER_THIEF = (
    KIND_OF[code]
    for code in (
        "dog", "bone", "jackhammer", "wrecking-ball", "milkshake", "donut-truck", "thief",
        "super-thief",
    )
)  # fmt: skip


def unseen_counts(view: View) -> list[int]:
    """How many copies of each kind the viewer cannot see (opponents' hands and draw pile)."""
    counts = list(COPIES)
    for code in view.hand or ():
        counts[KIND_OF[code]] -= 1
    for tower in view.towers:
        for floor in tower:
            for code in floor:
                counts[KIND_OF[code]] -= 1
    for code in view.discard:
        counts[KIND_OF[code]] -= 1
    counts[KIND_OF["milkshake"]] -= sum(view.milkshakes)
    if view.donut:
        counts[KIND_OF["donut-truck"]] -= 1
    return counts


def _cards_played(action_json_type: str, cards: Sequence[str], card: str | None) -> list[str]:
    if action_json_type == "build":
        return list(cards)
    if action_json_type == "steal":
        return [card] if card is not None else []
    if action_json_type == "end-turn":
        return []
    return [action_json_type]  # a special card is named by its action type


def known_hands(view: View) -> list[list[int]]:
    """Per seat, the counts of the cards the viewer knows that seat holds (from thefts)."""
    me = view.seat
    known = [[0] * KINDS for _ in range(view.players)]
    for event in view.events:
        if event.type == "stolen":
            thief, victim = event.seat, event.victim
            assert thief is not None and victim is not None
            if victim == me and event.card is not None:
                known[thief][KIND_OF[event.card]] += 1
            elif thief == me and event.card is not None:
                if known[victim][KIND_OF[event.card]]:
                    known[victim][KIND_OF[event.card]] -= 1
            elif victim != me:
                # A third seat took an unseen card from the victim: it may be a known one.
                known[victim] = [0] * KINDS
        elif event.type == "action" and event.seat != me and event.seat is not None:
            action = event.action
            assert action is not None
            for code in _cards_played(action.type, action.cards, action.card):
                kind = KIND_OF[code]
                if known[event.seat][kind]:
                    known[event.seat][kind] -= 1
    return known


def _number(floor: Sequence[int]) -> int:
    """The number card of a floor ``[card, card, ...]`` (a joker stands for 9 minus it)."""
    return floor[1] if floor[0] == JOKER else floor[0]


def draw_pile_caps(view: View) -> list[int] | None:
    """Per kind, at most how many copies the draw pile can hold, when the view tells more than
    its size: after a reshuffle (R9) the draw pile holds only cards of the discard pile that
    was shuffled (public, R22), less those drawn since, of which the viewer sees its own.

    The public history is replayed from the first event to know that discard pile. None before
    any reshuffle, or when the replay does not lead to the discard pile, towers and milkshakes
    the view shows (a game set up from a position, whose first discard pile the events do not
    tell).
    """
    me = view.seat
    state = PublicZones.empty(view.players)
    caps: list[int] | None = None
    try:
        for event in view.events:
            if event.type == "reshuffle":
                if len(state.discard) != event.count:
                    return None  # the first discard pile was not in the events
                caps = state.discard_counts()
            elif event.type == "draw" and event.seat == me and event.card is not None and caps:
                caps[KIND_OF[event.card]] -= 1
            state.apply(event)
    except InvalidPositionError:
        return None
    shown = [0] * KINDS
    for code in view.discard:
        shown[KIND_OF[code]] += 1
    towers = state.towers
    floors = [(*sorted(KIND_OF[c] for c in f if c != "dog"), len(f) - 2)
              for t in view.towers for f in t]  # fmt: skip
    replayed = [(*sorted(f[:2]), f[2]) for t in towers for f in t]
    if (
        caps is None
        or any(c < 0 for c in caps)
        or shown != state.discard_counts()
        or floors != replayed
        or [len(t) for t in towers] != [len(t) for t in view.towers]
        or list(view.milkshakes) != state.milkshakes
        or view.donut != state.donut
    ):
        return None
    return caps


def _floor_class(floor: Sequence[int]) -> int:
    """The number n <= 4 of a floor {n, 9 - n} given by its kinds."""
    number = _number(floor)
    return min(number, 9 - number)


def _sensible_leftovers(state: PublicZones, seat: int) -> set[int]:
    """The kinds ``seat`` would have played rather than end its turn at this public state."""
    absent = {_THIEF, _SUPER_THIEF, _DONUT}
    for other, tower in enumerate(state.towers):
        if other == seat:
            if any(floor[2] == 0 for floor in tower):
                absent.add(_DOG)
            continue
        if not state.milkshakes[other]:
            absent.add(_MILKSHAKE)
        if any(floor[2] for floor in tower):
            absent.add(_BONE)
        if tower:
            top = tower[-1]
            if top[2]:
                absent.add(_BALL)
            else:
                number = _number(top)
                absent.update((number, 9 - number, _JACKHAMMER))
    return absent


def inferred_leftovers(view: View) -> tuple[list[set[int]], list[int]]:
    """What each opponent's play tells about its hand, for a sensible player.

    Returns, per seat, the kinds it would have played rather than end its last turn (see the
    module docstring), and how many cards it has received since then (draws, thefts). The
    public history is replayed from the first event; when that does not lead to the towers
    and milkshakes the view shows (a game set up from a position), nothing is inferred.
    """
    players = view.players
    none: tuple[list[set[int]], list[int]] = ([set() for _ in range(players)], [0] * players)
    state = PublicZones.empty(players)
    absent: list[set[int]] = [set() for _ in range(players)]
    since = [0] * players
    try:
        for event in view.events:
            if event.type in ("draw", "stolen") and event.seat is not None:
                since[event.seat] += 1  # a card came in (drawn, or taken by a thief)
            elif (
                event.type == "action"
                and event.seat is not None
                and event.action is not None
                and event.action.type == "end-turn"
            ):
                absent[event.seat] = _sensible_leftovers(state, event.seat)
                since[event.seat] = 0
            state.apply(event)
    except InvalidPositionError:
        return none
    shown = [[[_floor_class([KIND_OF[c] for c in f[:2]]), len(f) - 2] for f in tower]
             for tower in view.towers]  # fmt: skip
    replayed = [[[_floor_class(f), f[2]] for f in tower] for tower in state.towers]
    if shown != replayed or list(view.milkshakes) != state.milkshakes:
        return none
    return absent, since


@mypyc_attr(allow_interpreted_subclasses=True)  # (subclassed in Python)
class Sampler:
    """Deals the unseen cards of one view again and again (one :class:`Game` per sample).

    ``infer`` models the opponents as sensible players, who are dealt, with probability
    ``belief`` per sample, no card they would have played (see the module docstring).
    """

    def __init__(self, view: View, infer: bool = False, belief: float = 0.9) -> None:
        if view.seat is None:
            raise ValueError("determinisation needs a seat's view")
        self.view = view
        self.belief = belief
        counts = unseen_counts(view)
        known = known_hands(view)
        # Keep only knowledge that fits the unseen pool and the hand sizes.
        self._fixed: list[list[int]] = []
        for seat in range(view.players):
            fixed: list[int] = []
            if seat != view.seat:
                for kind in range(KINDS):
                    for _ in range(known[seat][kind]):
                        if counts[kind] > 0 and len(fixed) < view.hand_sizes[seat]:
                            counts[kind] -= 1
                            fixed.append(kind)
            self._fixed.append(fixed)
        if any(c < 0 for c in counts):
            raise ValueError("the view shows more copies of a card than the deck holds")
        self._pool = [k for k in range(KINDS) for _ in range(counts[k])]
        hidden = sum(view.hand_sizes[s] - len(self._fixed[s]) for s in range(view.players)
                     if s != view.seat) + view.draw_size  # fmt: skip
        if hidden > len(self._pool):
            raise ValueError(f"the view hides {hidden} cards but only {len(self._pool)} are unseen")
        # Fewer hidden places than unseen cards: a game set up from a position with fewer than
        # the 54 cards (FORMAT.md). The view does not say which cards are out of the game, so
        # every sample leaves out the unseen cards it does not deal.
        # After a reshuffle, only some of the unseen cards can be in the draw pile.
        self._caps = draw_pile_caps(view) if view.draw_size else None
        # Every sample copies one game built (and checked) from the view, then deals it.
        self._template = self._first_deal()
        # Per opponent: (how many of its cards it kept through its last turn, kinds they exclude).
        self._kept: dict[int, tuple[int, set[int]]] = {}
        if infer:
            absent, since = inferred_leftovers(view)
            for seat in range(view.players):
                kept = view.hand_sizes[seat] - len(self._fixed[seat]) - since[seat]
                if seat != view.seat and kept > 0 and absent[seat]:
                    self._kept[seat] = (kept, absent[seat])

    def sample(self, rng: random.Random) -> Game:
        """A full game that agrees with the view; its future randomness is seeded by ``rng``."""
        pool = self._pool[:]
        rng.shuffle(pool)
        draw: list[int] | None = None
        if self._caps is not None:
            draw, pool = self._draw_pile(pool)
        kept: dict[int, list[int]] = {}
        if self._kept and rng.random() < self.belief:
            for seat, (count, absent) in self._kept.items():
                chosen: list[int] = []
                rest: list[int] = []
                for kind in pool:
                    if len(chosen) < count and kind not in absent:
                        chosen.append(kind)
                    else:
                        rest.append(kind)
                kept[seat], pool = chosen, rest
        game = self._template.copy(history=False)
        game.seed = rng.getrandbits(63)
        hands, draw = self._split(pool, kept, draw)
        for seat, cards in hands.items():
            hand = game.hands[seat] = [0] * KINDS
            for kind in cards:
                hand[kind] += 1
        game.draw = draw[::-1]  # the top of the pile is the end of the list
        return game

    def _draw_pile(self, pool: list[int]) -> tuple[list[int] | None, list[int]]:
        """The draw pile, top first, taken from the shuffled ``pool`` within the caps that a
        reshuffle sets (:func:`draw_pile_caps`), and the rest of the pool; (None, pool) in the
        unlikely case the caps cannot fill it (then the caps are not used)."""
        assert self._caps is not None
        caps = self._caps[:]
        size = self.view.draw_size
        draw: list[int] = []
        rest: list[int] = []
        for kind in pool:
            if len(draw) < size and caps[kind] > 0:
                caps[kind] -= 1
                draw.append(kind)
            else:
                rest.append(kind)
        if len(draw) < size:
            return None, pool
        return draw, rest

    def _split(
        self, pool: list[int], kept: dict[int, list[int]], draw: list[int] | None = None
    ) -> tuple[dict[int, list[int]], list[int]]:
        """Each opponent's hand (its known cards, then ``kept``, then the next of ``pool``) and
        the draw pile, top first: ``draw``, or else the next of ``pool``. Cards of the pool
        left over stay out of the game (a position with fewer than the 54 cards)."""
        view = self.view
        hands: dict[int, list[int]] = {}
        start = 0
        for seat in range(view.players):
            if seat == view.seat:
                continue
            dealt = self._fixed[seat] + kept.get(seat, [])
            need = view.hand_sizes[seat] - len(dealt)
            hands[seat] = dealt + pool[start : start + need]
            start += need
        if draw is None:
            draw = pool[start : start + view.draw_size]
        return hands, draw

    def _first_deal(self) -> Game:
        """The unseen cards dealt in pool order, through :meth:`Game.from_view` (which checks
        the deal against the view): the game :meth:`sample` copies and deals again."""
        hands, draw = self._split(self._pool, {})
        codes = [
            None if s not in hands else [CODES[k] for k in hands[s]]
            for s in range(self.view.players)
        ]
        return Game.from_view(self.view, codes, [CODES[k] for k in draw])
