"""Determinisation: guess the hidden cards consistently with what one seat's view shows.

The unseen cards are the 54 (R2) minus the viewer's hand, every card in the towers (dogs
included), the discard pile, the pending milkshakes and the donut on the table. They are dealt
at random to the opponents' hands (their public sizes) and the draw pile (its public size),
except the cards the viewer *knows* an opponent holds: a card a thief took from the viewer sits
in the thief's hand until the thief plays a card of that kind, or until a third seat's thief
may have taken it (then the knowledge is dropped, which keeps every sample consistent).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from gotown.engine import CODES, COPIES, Game, View
from gotown.engine.cards import KIND_OF, KINDS


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


class Sampler:
    """Deals the unseen cards of one view again and again (one :class:`Game` per sample)."""

    def __init__(self, view: View) -> None:
        if view.seat is None:
            raise ValueError("determinisation needs a seat's view")
        self.view = view
        counts = unseen_counts(view)
        known = known_hands(view)
        # Keep only knowledge that fits the unseen pool and the hand sizes.
        self._fixed: list[list[str]] = []
        for seat in range(view.players):
            fixed: list[str] = []
            if seat != view.seat:
                for kind in range(KINDS):
                    for _ in range(known[seat][kind]):
                        if counts[kind] > 0 and len(fixed) < view.hand_sizes[seat]:
                            counts[kind] -= 1
                            fixed.append(CODES[kind])
            self._fixed.append(fixed)
        if any(c < 0 for c in counts):
            raise ValueError("the view shows more copies of a card than the deck holds")
        self._pool = [CODES[k] for k in range(KINDS) for _ in range(counts[k])]
        hidden = sum(view.hand_sizes[s] - len(self._fixed[s]) for s in range(view.players)
                     if s != view.seat) + view.draw_size  # fmt: skip
        if hidden != len(self._pool):
            raise ValueError(f"the view hides {hidden} cards but {len(self._pool)} are unseen")

    def sample(self, rng: random.Random) -> Game:
        """A full game that agrees with the view; its future randomness is seeded by ``rng``."""
        view = self.view
        pool = self._pool[:]
        rng.shuffle(pool)
        hands: list[list[str] | None] = []
        start = 0
        for seat in range(view.players):
            if seat == view.seat:
                hands.append(None)
                continue
            need = view.hand_sizes[seat] - len(self._fixed[seat])
            hands.append(self._fixed[seat] + pool[start : start + need])
            start += need
        return Game.from_view(view, hands, pool[start:], seed=rng.getrandbits(63))
