"""Tournaments: balanced seat orders, statistics, and a small run end to end."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from gotown.analysis.tournament import (
    GameResult,
    entry_names,
    format_table,
    run_tournament,
    seatings,
    summarise,
    wilson,
)
from gotown.cli import main


@pytest.mark.parametrize(
    "levels", [("hard", "medium"), ("easy", "medium", "random"), ("hard",) + ("medium",) * 3]
)
def test_every_bot_starts_equally_often_over_a_cycle(levels: tuple[str, ...]) -> None:
    orders = seatings(levels)
    first = Counter(levels[order[0]] for order in orders)
    seats_of = Counter(levels)
    share = {level: first[level] / seats_of[level] for level in seats_of}
    assert len(set(share.values())) == 1
    assert all(sorted(order) == list(range(len(levels))) for order in orders)


def test_entry_names_number_the_repeats() -> None:
    assert entry_names(["hard", "medium", "medium", "medium"]) == [
        "hard", "medium", "medium#2", "medium#3"
    ]  # fmt: skip


def test_wilson_interval_contains_the_rate() -> None:
    low, high = wilson(60, 100)
    assert 0.5 < low < 0.6 < high < 0.7
    assert wilson(0, 0) == (0.0, 1.0)


def test_a_small_tournament_in_one_process() -> None:
    result = run_tournament(["easy", "random", "medium"], games=6, seed=2, workers=1)
    assert result.games == 6 and result.players == 3
    assert sum(e.wins for e in result.entries) + result.no_winner == 6
    assert all(e.games == 6 and 0 <= e.ci_low <= e.win_rate <= e.ci_high <= 1
               for e in result.entries)  # fmt: skip
    assert result.mean_actions > 0
    assert "| easy |" in format_table(result)
    again = run_tournament(["easy", "random", "medium"], games=6, seed=2, workers=1)
    assert [r.winner for r in again.results] == [r.winner for r in result.results]


def test_the_tournament_command_end_to_end(tmp_path: Path) -> None:
    out, plot = tmp_path / "t.json", tmp_path / "t.png"
    result = CliRunner().invoke(
        main,
        ["tournament", "random", "easy", "--games", "4", "--workers", "2", "--no-progress",
         "--json", str(out), "--plot", str(plot)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "| random |" in result.output and "95% CI" in result.output
    data = json.loads(out.read_text())
    assert data["games"] == 4 and [e["name"] for e in data["entries"]] == ["random", "easy"]
    assert plot.stat().st_size > 0


def test_four_seats_with_a_search_bot(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["tournament", "hard", "random", "--players", "4", "--games", "1", "--workers",
               "1", "--no-progress", "--turn-limit", "6"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "random#3" in result.output


def test_unknown_bot_is_refused() -> None:
    result = CliRunner().invoke(main, ["tournament", "grandmaster", "easy", "--games", "1"])
    assert result.exit_code == 2 and "random, easy, medium, hard, expert" in result.output


def test_a_time_limit_stops_at_whole_cycles_of_seat_orders() -> None:
    result = run_tournament(["random", "easy"], games=100_000, workers=1, max_seconds=0.3)
    assert 0 < result.games < 100_000 and result.games % 2 == 0
    assert [r.index for r in result.results] == list(range(result.games))


def _results(first_wins: list[bool]) -> list[GameResult]:
    """Two-seat games between entries 0 and 1, seats alternating, won as listed."""
    return [
        GameResult(
            index=i,
            seats=(0, 1) if i % 2 == 0 else (1, 0),
            winner=0 if won else 1,
            turns=30,
            actions=50,
            think=(0.0, 0.0),
            decisions=(10, 10),
        )
        for i, won in enumerate(first_wins)
    ]


def test_ratings_follow_the_results_not_their_order() -> None:
    # Entry 0 wins 58 of 100 games, all its losses coming last: a single openskill pass in
    # that order ends with entry 1 rated higher; the summary must not.
    results = _results([True] * 58 + [False] * 42)
    summary = summarise(("hard", "medium"), results, 1.0, 1, 0, 300)
    again = summarise(("hard", "medium"), list(reversed(results)), 1.0, 1, 0, 300)
    mus = [e.rating_mu for e in summary.entries]
    assert mus == [e.rating_mu for e in again.entries]
    assert mus[0] > mus[1]
    assert [e.win_rate for e in summary.entries] == [0.58, 0.42]
