"""The post-game review: chances after every action, turning points, and the reviewing
seat's mistakes named with the better move, from its own views only."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from gotown.bots import make_bot
from gotown.bots.review import BLUNDER, review
from gotown.engine import Action, Game, Record


def _position(hands: list[list[str]], tower: list[list[str]], seed: int = 1) -> dict[str, Any]:
    """A two-player position, seat 0 to act, with seat 0's ``tower`` and these hands; the rest
    of a dealt deck is the draw pile (in the deal's order)."""
    position: dict[str, Any] = Game.new(players=2, seed=seed, options={"first_player": 0})
    position = position.to_position()
    rest = Counter(c for h in position["hands"] for c in h) + Counter(position["draw"])
    rest -= Counter(c for floor in tower for c in floor) + Counter(c for h in hands for c in h)
    draw = []
    for card in position["draw"] + [c for h in position["hands"] for c in h]:
        if rest[card] > 0:
            draw.append(card)
            rest[card] -= 1
    position.update(towers=[tower, []], hands=hands, draw=draw)
    return position


FOUR_FLOORS = [["1", "8"], ["2", "7"], ["3", "6"], ["1", "8"]]


def test_r20_a_certain_win_reviews_to_100_percent_at_the_end() -> None:
    position = _position([["4", "5", "6"], ["2", "7", "3"]], FOUR_FLOORS)
    build = {"type": "build", "cards": ["4", "5"]}
    record = Record.from_json({"position": position, "actions": [build]})
    found = review(record, seat=0, iterations=50)
    (moment,) = found.moments
    assert found.winner == 0
    assert moment.before[0] == 1.0  # the winning build is on the table: certain (R20)
    assert moment.after == (1.0, 0.0)
    assert found.chances() == [moment.before, (1.0, 0.0)]
    assert found.mistakes == ()


def test_ending_the_turn_instead_of_the_winning_build_is_a_blunder_naming_the_build() -> None:
    position = _position([["4", "5", "6"], ["2", "7", "3"]], FOUR_FLOORS)
    record = Record.from_json({"position": position, "actions": [{"type": "end-turn"}]})
    found = review(record, seat=0, iterations=100)
    (mistake,) = found.mistakes
    assert mistake.kind == "a blunder" and mistake.loss >= BLUNDER
    assert mistake.moment.best == Action.build("4", "5")
    assert mistake.describe().startswith("turn 1, a blunder: end instead of 4+5, 100% → ")
    assert review(record, seat=1, iterations=100).mistakes == ()  # not seat 1's move


def test_the_advice_uses_only_the_reviewing_seats_view() -> None:
    # Seat 1's hand differs and the draw pile with it; seat 0 sees the same either way.
    tower = [["1", "8"], ["2", "7"]]
    one = _position([["4", "6", "jackhammer"], ["5", "5", "3"]], tower)
    other = _position([["4", "6", "jackhammer"], ["dog", "bone", "8"]], tower)
    assert Game.from_position(one).view(0) == Game.from_position(other).view(0)
    actions = [{"type": "end-turn"}]
    first = review(Record.from_json({"position": one, "actions": actions}), seat=0, iterations=80)
    second = review(Record.from_json({"position": other, "actions": actions}), seat=0,
                    iterations=80)  # fmt: skip
    a, b = first.moments[0], second.moments[0]
    assert (a.before, a.best, a.best_chance, a.played_chance) == (
        b.before, b.best, b.best_chance, b.played_chance,
    )  # fmt: skip
    assert [m.describe() for m in first.mistakes] == [m.describe() for m in second.mistakes]


def test_a_played_game_has_a_chance_per_action_and_its_largest_swings_marked() -> None:
    game = Game.new(players=3, seed=4, options={"first_player": 0})
    bots = [make_bot("medium", seat) for seat in range(3)]
    for _ in range(30):
        game.apply(bots[game.active].choose(game.view(game.active), game.legal_actions()))
    record = Record.of(game)
    told: list[tuple[int, int]] = []
    found = review(record, seat=2, iterations=20, progress=lambda d, t: told.append((d, t)))
    total = len(record.actions)
    assert told[-1] == (total, total) and len(told) == total
    assert [m.index for m in found.moments] == list(range(total))
    for chances in found.chances():
        assert len(chances) == 3 and all(0.0 <= c <= 1.0 for c in chances)
        assert sum(chances) == pytest.approx(1.0)
    swings = sorted((m.swing for m in found.moments), reverse=True)
    assert sorted((m.swing for m in found.turning_points), reverse=True) == swings[:3]
    assert [m.index for m in found.turning_points] == sorted(m.index for m in found.turning_points)
    assert all(m.moment.seat == 2 for m in found.mistakes)


def test_a_seat_not_in_the_game_is_refused() -> None:
    record = Record.of(Game.new(players=2, seed=1))
    with pytest.raises(ValueError, match=r"seat 2: the game has seats 0 to 1 \(R1\)"):
        review(record, seat=2)
