"""Random futures shared by the review's estimates (common random numbers): the same future
plays the same way, orders any pile consistently, and a paired difference of equal play-outs
is exactly nothing."""

from __future__ import annotations

from gotown.bots.futures import NO_WINNER, Difference, chance, futures, play_out
from gotown.engine import COPIES, Game


def test_a_future_orders_every_pile_as_it_orders_the_deck() -> None:
    (future,) = futures("test", 0, 1)
    deck = [kind for kind, count in enumerate(COPIES) for _ in range(count)]
    assert sorted(future.pile(deck)) == deck
    kinds = [0, 3, 7, 12]  # one card of each: in the order of their first copies in the future
    pile = future.pile(kinds)
    assert pile == [card >> 3 for card in future.order if card & 7 == 0 and card >> 3 in kinds]
    assert future.pile([0, 7, 12]) == [k for k in pile if k != 3]  # (one drawn: the rest keep)


def test_a_batch_of_futures_is_the_same_each_time_and_differs_by_name() -> None:
    assert futures("a", 4, 3) == futures("a", 4, 3)
    assert futures("a", 4, 3) != futures("b", 4, 3) and futures("a", 0, 3) != futures("a", 3, 3)
    assert [f.order for f in futures("a", 0, 2, deck=False)] == [b"", b""]


def test_a_play_out_is_reproducible_and_leaves_the_game_alone() -> None:
    game = Game.new(players=3, seed=8)
    before = game.to_position()
    some = futures("test", 0, 24)
    first = [play_out(game, f) for f in some]
    assert first == [play_out(game, f) for f in some]
    assert game.to_position() == before
    assert all(w in (0, 1, 2, NO_WINNER) for w in first) and len(set(first)) > 1


def test_a_position_against_itself_differs_by_exactly_nothing() -> None:
    game = Game.new(players=2, seed=3)
    some = futures("test", 0, 32)
    winners = [play_out(game, f) for f in some]
    same = Difference.of(winners, [play_out(game, f) for f in some], 0)
    assert (same.mean, same.error, same.count) == (0.0, 0.0, 32)
    seat = game.active
    for move in game.legal_actions():  # the policy's own move: the very same outcomes
        played = [play_out(game, f, move) for f in some]
        other = Difference.of(played, winners, seat)
        assert other.mean == chance(played, seat) - chance(winners, seat)
        assert (other.error == 0) == (played == winners)
    assert Difference.of([seat] * 4, [NO_WINNER, seat, seat, seat], seat).interval() == (
        0.25 - 1.96 * 0.25, 0.25 + 1.96 * 0.25,
    )  # fmt: skip
