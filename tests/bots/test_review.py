"""The post-game review: each seat's chance after every action with every hand shown (R22,
after the game), turning points named by what swung the game (a decision, a draw, a theft),
and the reviewing seat's mistakes, judged on its own views, named only above the noise."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest

from gotown.bots import make_bot
from gotown.bots.review import (
    BLUNDER,
    CLEAR,
    DECISION,
    DRAW,
    MISTAKE,
    TURNING,
    _PartQuestion,
    _Reviewer,
    loss_words,
    quick_iterations,
    review,
)
from gotown.engine import Action, Game, Record


def _position(
    hands: list[list[str]],
    towers: list[list[list[str]]],
    draw_top: Sequence[str] = (),
    seed: int = 1,
) -> dict[str, Any]:
    """A two-player position, seat 0 to act, with these towers and hands; the rest of a dealt
    deck is the draw pile (in the deal's order), ``draw_top`` on top (drawn first)."""
    position: dict[str, Any] = Game.new(players=2, seed=seed, options={"first_player": 0})
    position = position.to_position()
    rest = Counter(c for h in position["hands"] for c in h) + Counter(position["draw"])
    placed = Counter(c for tower in towers for floor in tower for c in floor)
    rest -= placed + Counter(c for h in hands for c in h) + Counter(draw_top)
    draw = []
    for card in position["draw"] + [c for h in position["hands"] for c in h]:
        if rest[card] > 0:
            draw.append(card)
            rest[card] -= 1
    position.update(towers=towers, hands=hands, draw=[*draw_top, *draw])  # (top first)
    return position


FOUR_FLOORS = [["1", "8"], ["2", "7"], ["3", "6"], ["1", "8"]]


def test_r20_a_won_game_ends_its_lines_at_100_percent() -> None:
    position = _position([["4", "5", "6"], ["2", "7", "3"]], [FOUR_FLOORS, []])
    build = {"type": "build", "cards": ["4", "5"]}
    found = review(Record.from_json({"position": position, "actions": [build]}), 0, 32)
    (moment,) = found.moments
    assert found.winner == 0 and found.reason == "win"
    assert moment.before[0] >= 0.85  # the winning build is on the table (R20)
    assert moment.after == (1.0, 0.0)
    assert found.chances() == [moment.before, (1.0, 0.0)]
    assert found.mistakes == ()


def test_ending_the_turn_instead_of_the_winning_build_is_a_mistake_naming_the_build() -> None:
    position = _position([["4", "5", "6"], ["2", "7", "3"]], [FOUR_FLOORS, []])
    record = Record.from_json({"position": position, "actions": [{"type": "end-turn"}]})
    found = review(record, seat=0, iterations=32)
    (mistake,) = found.mistakes
    assert mistake.best == Action.build("4", "5") and mistake.best_chance == 1.0
    assert mistake.loss - CLEAR * mistake.difference.error >= MISTAKE  # (clear of the noise)
    assert mistake.kind == ("a blunder" if mistake.loss >= BLUNDER else "a mistake")
    assert mistake.describe().startswith(f"turn 1, {mistake.kind}: end instead of 4+5, about ")
    assert review(record, seat=1, iterations=32).mistakes == ()  # not seat 1's move


def test_a_turns_end_is_named_for_the_card_drawn_not_as_a_decision() -> None:
    # Both one floor from winning: seat 0 can only end its turn, and seat 1, holding a 4,
    # draws the 5 (R7b).
    position = _position([["2", "2", "3"], ["4", "dog", "bone"]], [FOUR_FLOORS, FOUR_FLOORS],
                         draw_top=["5"])  # fmt: skip
    actions = [{"type": "end-turn"}, {"type": "build", "cards": ["4", "5"]}]
    found = review(Record.from_json({"position": position, "actions": actions}), 0, 64)
    assert found.winner == 1 and found.moments[0].decision is None  # (no choice: no decision)
    luck = found.moments[0].luck
    assert luck is not None and luck[1] > TURNING and luck[0] < -TURNING
    (point,) = found.turning_points
    assert (point.index, point.cause, point.cards) == (0, DRAW, ((1, ("5",)),))
    assert point.swing >= TURNING and point.describe().startswith("turn 1: seat 1 drew 5: seat ")


def test_a_decision_that_swung_the_game_is_named_as_one() -> None:
    # Both one floor from winning (R20): seat 0 ends its turn instead, and seat 1 will build.
    position = _position([["4", "5", "6"], ["2", "7", "3"]], [FOUR_FLOORS, FOUR_FLOORS])
    record = Record.from_json({"position": position, "actions": [{"type": "end-turn"}]})
    found = review(record, iterations=32)
    decision = found.moments[0].decision
    assert decision is not None and decision[0] < -0.5  # ending threw the win away
    assert (0, DECISION, 0) in [(t.index, t.cause, t.who) for t in found.turning_points]


def test_a_second_look_plays_each_position_once_a_future_for_every_part_that_reads_it() -> None:
    # Seat 0 ends its turn with a choice, and seat 1 draws (R7b), then builds: the end's
    # decision and its draw share the position between them (the end played, the card not
    # yet known), the draw and seat 1's build the position after the draw.
    position = _position([["4", "5", "6"], ["2", "7", "3"]], [FOUR_FLOORS, []])
    actions = [{"type": "end-turn"}, {"type": "build", "cards": ["2", "7"]}]
    reviewer = _Reviewer(Record.from_json({"position": position, "actions": actions}),
                         0, 16, 0, None)  # fmt: skip
    _, parts = reviewer.moments(reviewer.lines())
    assert [(p.index, p.cause) for p in parts] == [(0, DECISION), (0, DRAW), (1, DECISION)]
    questions = [_PartQuestion(part, 2, reviewer.extend) for part in parts]
    played = sum(question.grow(40) for question in questions)
    assert played == 4 * 40  # four positions, each played once in each future (not six)
    assert all(q.size().count == 40 for q in questions)


def test_the_advice_uses_only_the_reviewing_seats_view_and_the_chances_every_hand() -> None:
    # Seat 1's hand differs and the draw pile with it; seat 0 sees the same either way.
    towers = [[["1", "8"], ["2", "7"]], []]
    one = _position([["4", "6", "jackhammer"], ["5", "5", "3"]], towers)
    other = _position([["4", "6", "jackhammer"], ["dog", "bone", "8"]], towers)
    assert Game.from_position(one).view(0) == Game.from_position(other).view(0)
    actions = [{"type": "end-turn"}]
    first = review(Record.from_json({"position": one, "actions": actions}), 0, 32)
    second = review(Record.from_json({"position": other, "actions": actions}), 0, 32)
    assert [m.describe() for m in first.mistakes] == [m.describe() for m in second.mistakes]
    assert [m.difference for m in first.mistakes] == [m.difference for m in second.mistakes]
    assert first.start != second.start  # (the chances see seat 1's hand: after the game, R22)


def test_a_played_game_has_a_chance_per_action_and_its_turning_points_above_the_noise() -> None:
    game = Game.new(players=3, seed=4, options={"first_player": 0})
    bots = [make_bot("medium", seat) for seat in range(3)]
    for _ in range(30):
        game.apply(bots[game.active].choose(game.view(game.active), game.legal_actions()))
    record = Record.of(game)
    told: list[tuple[int, int]] = []
    found = review(record, seat=2, iterations=24, progress=lambda d, t: told.append((d, t)))
    total = told[0][1]
    assert told[-1] == (total, total) and [d for d, _ in told] == sorted(d for d, _ in told)
    assert [m.index for m in found.moments] == list(range(len(record.actions)))
    for chances in found.chances():
        assert len(chances) == 3 and all(0.0 <= c <= 1.0 for c in chances)
        assert sum(chances) <= 1.0 + 1e-9  # (the rest: no winner, R20b, R23)
    assert len(found.turning_points) <= 5
    assert [t.index for t in found.turning_points] == sorted(t.index for t in found.turning_points)
    for point in found.turning_points:  # (each clear of the noise)
        assert point.swing - CLEAR * point.change.error >= TURNING
        assert point.change.count >= 2 * 24
    for mistake in found.mistakes:
        assert (
            mistake.moment.seat == 2 and mistake.loss - CLEAR * mistake.difference.error >= MISTAKE
        )
    assert review(record, seat=2, iterations=24) == found  # (the same seed: the same review)


def test_a_seat_not_in_the_game_is_refused() -> None:
    record = Record.of(Game.new(players=2, seed=1))
    with pytest.raises(ValueError, match=r"seat 2: the game has seats 0 to 1 \(R1\)"):
        review(record, seat=2)


def test_a_loss_in_words() -> None:
    assert loss_words(0.1) == "about 1 game in 10"
    assert loss_words(0.26) == "about 1 game in 4"
    assert loss_words(0.7) == "about 7 games in 10"
    assert loss_words(1.0) == "about 10 games in 10"


def test_a_quick_review_shares_its_budget_within_bounds() -> None:
    assert quick_iterations(10) == 128 and quick_iterations(200) == 64
    assert quick_iterations(10_000) == 32
