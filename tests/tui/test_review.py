"""The review in the terminal's replay (``gotown play --replay FILE --review``): each seat's
chance as a sparkline and where it comes from, what swung the game (a decision, or luck: the
cards drawn or stolen), a seat's mistakes with their size in words, and a jump to one of them."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from gotown.bots.futures import Difference
from gotown.bots.review import (
    BASIS,
    DECISION,
    DRAW,
    THEFT,
    Mistake,
    Moment,
    Review,
    TurningPoint,
    quick_iterations,
    review,
)
from gotown.cli import main
from gotown.engine import Action, Options, Record
from gotown.tui.replay import ReplayApp, replay_games
from gotown.tui.review import BARS, ReviewScreen, jumps, review_text, sparkline
from gotown.tui.session import LocalSession, Setup

from .helpers import log_text, screen_text, wait_until

SIZE = (80, 24)
#: A review's time in the pure-Python build on a busy machine (a few seconds on an idle one).
REVIEWING = 240.0


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A short finished game of seat 0 (playing its first legal action) against easy, which
    seat 0 wins, with turning points and mistakes of seat 0 in its review."""
    session = LocalSession(Setup(seed=7, bots=("easy",), options=Options(first_player=1)))
    while not session.is_over:
        seat = session.active
        session.play(seat, session.bot_choice(seat) if seat else session.legal(0)[0])
    path = tmp_path_factory.mktemp("review") / "game.json"
    session.save(str(path))
    return path


def _moment(index: int, seat: int, action: Action) -> Moment:
    return Moment(index, index // 2 + 1, seat, action, (0.5, 0.5), (0.5, 0.5), None, None)


def _point(moment: Moment, cause: str, who: int, before: float, after: float,
           cards: tuple[tuple[int, tuple[str, ...]], ...] = ()) -> TurningPoint:  # fmt: skip
    return TurningPoint(moment, cause, who, before, after, Difference(after - before, 0.01, 512),
                        cards)  # fmt: skip


def test_what_swung_the_game_and_each_mistake_in_words() -> None:
    drew = _moment(3, 1, Action.end_turn())
    stole = _moment(6, 0, Action.super_thief())
    ended = _moment(9, 1, Action.end_turn())
    blunder = Mistake(_moment(10, 0, Action.end_turn()), "a blunder", Action.build("4", "5"),
                      0.9, 0.3, Difference(0.6, 0.02, 1024))  # fmt: skip
    found = Review(
        players=2, seat=0, start=(0.5, 0.5), moments=(), winner=1, reason="win", futures=128,
        turning_points=(
            _point(drew, DRAW, 1, 0.4, 0.75, ((0, ("8",)), (1, ("5", "wrecking-ball")))),
            _point(stole, THEFT, 0, 0.3, 0.55, ((0, ("?", "bone")),)),
            _point(ended, DECISION, 0, 0.8, 0.35),
        ),
        mistakes=(blunder,),
    )  # fmt: skip
    assert [text for _, text in jumps(found, ["Ada", "Bob"])] == [
        "Turn 2, step 4, luck: Ada drew an 8; Bob drew a 5 and a Wrecking ball. Bob: 40% → 75%",
        "Turn 4, step 7, luck: Ada's super-thief took a Joker and a Bone. Ada: 30% → 55%",
        "Turn 5, step 10, a decision: Bob played end. Ada: 80% → 35%",
        "Turn 6, step 11, a blunder: Ada played end; 4+5 would have won about 6 games in 10 "
        "more (90% instead of 30%)",
    ]
    assert [step for step, _ in jumps(found, ["Ada", "Bob"])] == [4, 7, 10, 11]
    text = review_text(found, ["Ada", "Bob"], "Bob won")
    assert f"Chances with {BASIS}. Mistakes from what Ada could see then." in text
    assert "Ada's mistakes:\n  Turn 6, step 11, a blunder: " in text


def test_a_sparkline_shows_each_part_s_mean_in_eight_heights() -> None:
    assert sparkline([0.0, 1.0], 10) == BARS[0] + BARS[-1]
    assert sparkline([0.0, 0.0, 1.0, 1.0], 2) == BARS[0] + BARS[-1]
    assert sparkline([0.5] * 100, 5) == BARS[4] * 5
    assert sparkline([], 5) == "" and len(sparkline([0.3] * 7, 3)) == 3


@pytest.mark.anyio
async def test_the_review_screen_at_80x24(saved: Path, snapshot: object) -> None:
    app = ReplayApp(replay_games(str(saved)), review_seat=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("v")
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), REVIEWING)
        await pilot.pause()
        assert screen_text(app) == snapshot


@pytest.mark.anyio
async def test_enter_on_a_turning_point_jumps_the_replay_there(saved: Path) -> None:
    games = replay_games(str(saved))
    record = Record.of(games[-1])
    expected = review(record, 0, iterations=quick_iterations(len(record.actions)))
    rows = jumps(expected, ["Seat 0", "Seat 1"])  # turning points, then seat 0's mistakes
    assert len(rows) >= 2, "the saved game's review lists fewer than two rows: choose another"
    second = rows[1][0]
    app = ReplayApp(games, review_seat=0, open_review=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), REVIEWING)
        await pilot.pause()
        assert "Turning points and Seat 0's mistakes" in screen_text(app)
        await pilot.press("down", "enter")
        await pilot.pause()
        assert not isinstance(app.screen, ReviewScreen)
        assert app.step == second
        assert f"step {second} of {len(games) - 1}" in screen_text(app)
        # Again, at once (it is kept), and Escape leaves the step as it is.
        await pilot.press("v")
        await pilot.pause()
        assert isinstance(app.screen, ReviewScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert app.step == second


def test_plain_replay_prints_the_review_after_the_game(saved: Path) -> None:
    result = CliRunner().invoke(
        main, ["play", "--replay", str(saved), "--plain", "--review-seat", "0"]
    )
    assert result.exit_code == 0, result.output
    games = replay_games(str(saved))
    record = Record.of(games[-1])
    expected = review(record, 0, iterations=quick_iterations(len(record.actions)))
    text = review_text(expected, ["Seat 0", "Seat 1"], "Seat 0 won")
    assert result.output.endswith(text + "\n")
    assert "Chances to win over" in text and "Turning points:" in text
    assert "Seat 0's mistakes:" in text or "Seat 0: no mistakes." in text


def test_a_review_needs_a_replay_and_a_seat_of_the_game(saved: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["play", "--review"])
    assert result.exit_code == 2 and "give --replay FILE too" in result.output
    result = runner.invoke(main, ["play", "--replay", str(saved), "--plain", "--review-seat", "3"])
    assert result.exit_code == 2 and "seats 0 to 1 (R1)" in result.output


@pytest.fixture(scope="module")
def stalemate(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Seed 102: seat 0 (its first legal action each time) and easy end stuck (R20b)."""
    session = LocalSession(Setup(seed=102, bots=("easy",)))
    while not session.is_over:
        seat = session.active
        session.play(seat, session.bot_choice(seat) if seat else session.legal(0)[0])
    assert session.game.outcome() == (None, "stalemate")
    path = tmp_path_factory.mktemp("stalemate") / "game.json"
    session.save(str(path))
    return path


STUCK = "The game is stuck: nobody can play a card or draw one any more, so it ends with no winner"


def test_r20b_a_stalemate_replayed_line_by_line_and_reviewed(stalemate: Path) -> None:
    result = CliRunner().invoke(
        main, ["play", "--replay", str(stalemate), "--plain", "--review-seat", "0"]
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    end = lines.index(f"{STUCK} (R20b).")
    assert lines[end - 1].startswith("Hands at the end: Seat 0: ")
    assert lines[end - 2].startswith("Floors from 0.")  # after the table, as a game ends
    assert lines[end + 1].startswith("Chances to win over ") and lines[end + 1].endswith(
        " actions (stuck: no winner, R20b):"
    )
    assert "turn limit" not in result.output


@pytest.mark.anyio
async def test_r20b_a_stalemate_replayed_full_screen_and_its_review(stalemate: Path) -> None:
    games = replay_games(str(stalemate))
    app = ReplayApp(games)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("end")
        await pilot.pause()
        text = screen_text(app)
        last = len(games) - 1
        assert f"step {last} of {last}: Stuck: no winner, R20b" in text
        assert "Hands at the end: Seat 0: " in text
        assert STUCK in log_text(app)
        await pilot.press("v")
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), REVIEWING)
        await pilot.pause()
        assert "actions (stuck: no winner, R20b)" in screen_text(app)
