"""Paired deck changes: the same deal with a special card taken out, or swapped for a plain
floor card in one hand, to measure what the card does against a control.

The engine deals the 54 cards of R2 and nothing else, so a change is made to the study's own
deal: game ``i`` is dealt as usual (:func:`~gotown.tournament.tournament.deal`), its position
is changed, and the game goes on from the changed position (``Game.from_position`` with a chosen
draw pile; the seed of what chance does next is kept). Every other card stays where it was, so
game ``i`` with and without the change differ only there (a paired design: common random
numbers).

- ``swap``: one seat that starts with the card (its hand when turn 1 begins; chosen at random
  among those that do) gets, for each copy it holds, the *plain floor card* (a number, never
  a joker) nearest the bottom of the draw pile, and the card goes to that place in the pile.
  Still the 54 cards: the difference is what starting with the card is worth to its holder.
- ``without``: every copy of the cards leaves the game, and each place it held (in a hand or
  the draw pile) is taken by a plain floor card from the bottom of the draw pile. The deck is
  smaller by those copies: the game as it would be without the card.

What cannot be done here: swapping every copy for a plain floor card while keeping 54 cards
needs a fifth copy of some number, which R2 (and ``Game.from_position``) refuses; an engine
option for the deck's make-up would allow it. The bots count the cards of R2 (``medium``
judges risks from the cards unseen), so in a game ``without`` a card they still expect it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from gotown.bots.base import hashed_seed
from gotown.engine import CODES, Game
from gotown.engine.cards import DOG

#: The plain floor cards (R2): the numbers. Jokers are floor cards too, but wild (R5).
PLAIN = tuple(str(n) for n in range(1, 9))
#: The special cards (R2), the ones a deck change takes out or swaps.
SPECIAL = CODES[DOG:]


def check_cards(cards: Sequence[str], key: str) -> None:
    """ValueError naming a card that is not one of the special cards (R2)."""
    for card in cards:
        if card not in SPECIAL:
            raise ValueError(f"{key}: {card!r} is not a special card (R2: {', '.join(SPECIAL)})")


def swap_focus(game: Game, card: str, seed: int, index: int) -> int | None:
    """The seat whose copies of ``card`` a ``swap`` replaces in game ``index``: one of the
    seats holding the card when turn 1 begins, at random (seeded by the game); None when no
    seat holds it (the swap changes nothing: the game is not played)."""
    kind = CODES.index(card)
    holders = [s for s, hand in enumerate(game.plain().hands) if hand[kind]]
    if not holders:
        return None
    rng = random.Random(hashed_seed(f"gotown study swap: seed {seed}, game {index}, {card}"))
    return rng.choice(holders)


def _bottom_plain(draw: Sequence[str], count: int, skip: set[int]) -> list[int]:
    """The places in ``draw`` (top first) of the ``count`` plain floor cards nearest its
    bottom, bottom first, leaving out the places in ``skip``."""
    places = [i for i in reversed(range(len(draw))) if draw[i] in PLAIN and i not in skip]
    if len(places) < count:
        raise ValueError(f"the draw pile holds {len(places)} plain floor cards, not {count}")
    return places[:count]


def swapped(position: dict[str, Any], card: str, seat: int) -> dict[str, Any]:
    """``position`` with each copy of ``card`` in ``seat``'s hand exchanged with a plain floor
    card from the bottom of the draw pile (54 cards still)."""
    hands = [list(hand) for hand in position["hands"]]
    draw = list(position["draw"])
    for place in _bottom_plain(draw, hands[seat].count(card), set()):
        hands[seat][hands[seat].index(card)] = draw[place]
        draw[place] = card
    return {**position, "hands": hands, "draw": draw}


def without(position: dict[str, Any], cards: Sequence[str]) -> dict[str, Any]:
    """``position`` with every copy of ``cards`` gone, each place taken by a plain floor card
    from the bottom of the draw pile (the deck is smaller by those copies)."""
    gone = set(cards)
    draw = list(position["draw"])
    marked = {i for i, c in enumerate(draw) if c in gone}
    in_hands = sum(c in gone for hand in position["hands"] for c in hand)
    places = _bottom_plain(draw, in_hands + len(marked), marked)
    fillers = iter([draw[i] for i in places])
    hands = [[next(fillers) if c in gone else c for c in hand] for hand in position["hands"]]
    taken = set(places)
    pile = [next(fillers) if i in marked else c for i, c in enumerate(draw) if i not in taken]
    return {**position, "hands": hands, "draw": pile}


def change_deal(
    game: Game, seed: int, index: int, swap: str = "", leave_out: Sequence[str] = ()
) -> tuple[Game, int | None]:
    """Game ``index`` (just dealt, turn 1 begun) with its deal changed; the seat whose hand a
    ``swap`` changed (None without one). ValueError for a swap that no seat's hand allows."""
    position = game.to_position()
    focus = None
    if swap:
        focus = swap_focus(game, swap, seed, index)
        if focus is None:
            raise ValueError(f"game {index}: no seat starts with a {swap}: nothing to swap")
        position = swapped(position, swap, focus)
    if leave_out:
        position = without(position, leave_out)
    return Game.from_position(position), focus
