"""The maintained benchmark scripts run and compute what they say (benchmarks/README.md)."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import click
import pytest
from click.testing import CliRunner
from script_modules import BENCHMARKS, load_script


def _load(name: str) -> ModuleType:
    """The script ``benchmarks/NAME.py``, after the neighbour that starts servers."""
    return load_script(BENCHMARKS, name, needs=("serving",))


def test_calibration_bins_and_scores_estimates_against_outcomes() -> None:
    calibration = _load("calibration")
    assert [calibration.bin_of(e, 10) for e in (0.0, 0.09, 0.1, 0.55, 0.999, 1.0)] == [
        0,
        0,
        1,
        5,
        9,
        9,
    ]
    # Two games: the winner's estimates 0.8 and 0.9, the loser's 0.2 and 0.8.
    summary = calibration.summarise([([0.8, 0.9], True), ([0.2, 0.8], False)], bins=5)
    assert summary["games"] == 2 and summary["decisions"] == 4
    assert summary["win_rate"] == 0.5
    assert abs(summary["brier"] - (0.04 + 0.01 + 0.04 + 0.64) / 4) < 1e-12
    assert abs(summary["brier_base"] - 0.25) < 1e-12
    rows = {row["bin"]: row for row in summary["rows"]}
    assert set(rows) == {(0.2, 0.4), (0.8, 1.0)}
    high = rows[(0.8, 1.0)]  # 0.8, 0.9 (won) and 0.8 (lost)
    assert high["decisions"] == 3 and high["games"] == 2
    assert abs(high["estimate"] - 2.5 / 3) < 1e-12 and abs(high["won"] - 2 / 3) < 1e-12
    assert high["ci"][0] <= high["won"] <= high["ci"][1]
    low = rows[(0.2, 0.4)]  # 0.2 (lost)
    assert low["won"] == 0.0 and low["ci"] == (0.0, 0.0)
    assert abs(summary["ece"] - (3 / 4 * (2.5 / 3 - 2 / 3) + 1 / 4 * 0.2)) < 1e-12


def test_the_calibration_benchmark_prints_its_bins_and_plots(tmp_path: Path) -> None:
    calibration = _load("calibration")
    chart = tmp_path / "calibration.png"
    result = CliRunner().invoke(
        calibration.main,
        ["--games", "2", "--opponent", "random", "--workers", "1", "--plot", str(chart)],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    assert "hard against random: 2 games" in result.output
    assert "searched decisions in 2 games" in result.output
    assert "Brier score" in result.output
    assert chart.read_bytes().startswith(b"\x89PNG")


def test_bot_flood_explains_itself_and_refuses_an_unknown_level_before_serving() -> None:
    flood = _load("bot_flood")
    shown = CliRunner().invoke(flood.main, ["--help"])
    assert shown.exit_code == 0
    assert all(option in shown.output for option in ("--tables", "--level", "--replies"))
    refused = CliRunner().invoke(flood.main, ["--level", "godlike"])
    assert refused.exit_code == 2 and "godlike" in refused.output


def test_the_scale_recovers_the_strengths_that_made_the_rates() -> None:
    scale = _load("scale")
    truth = {"random": 0.0, "easy": 1.8, "medium": 2.3, "hard": 2.7}
    pairs = [("easy", "random"), ("medium", "easy"), ("hard", "medium"), ("hard", "random")]
    n = 10**8  # rates exact to the fit's precision
    pairings = [
        scale.Pairing(a, b, n, round(n * scale.expit(truth[a] - truth[b])), "synthetic")
        for a, b in pairs
    ]
    fitted = scale.fit(pairings)
    assert set(fitted) == set(truth)
    for bot, value in truth.items():
        assert abs(fitted[bot][0] - value) < 1e-3
    # Named the other way round (random first), a pairing places the bots the same.
    flipped = [scale.Pairing(q.b, q.a, q.games, q.games - q.wins, "flipped") for q in pairings]
    for bot, (value, _) in scale.fit(flipped).items():
        assert abs(value - truth[bot]) < 1e-3, bot
    # A game without a winner is half a point to each, from either side.
    drawn = scale.Pairing("easy", "random", 100, 80, "drawn", losses=10)
    assert drawn.rate == 0.80 and drawn.share == 0.85
    # A bot linked to nobody else cannot be placed.
    lonely = [*pairings, scale.Pairing("expert", "expert#2", 100, 50, "synthetic")]
    with pytest.raises(click.ClickException, match="do not link"):
        scale.fit(lonely)


def test_the_targets_ladder_adds_up_the_three_distances() -> None:
    scale = _load("scale")
    need = scale.ladder()
    assert abs(scale.expit(need["easy"]) - 0.90) < 1e-12
    assert abs(scale.expit(need["medium"] - need["easy"]) - 0.60) < 1e-12
    assert abs(scale.expit(need["hard"] - need["medium"]) - 0.65) < 1e-12
    assert round(100 * scale.expit(need["hard"]), 1) == 96.2


def test_the_scale_benchmark_reads_results_files_and_plots(tmp_path: Path) -> None:
    scale = _load("scale")
    files = [str(scale.RESULTS / f"{name}.json") for name in ("easy-random", "medium-easy")]
    plot = tmp_path / "scale.png"
    result = CliRunner().invoke(scale.main, [*files, "--plot", str(plot)])
    assert result.exit_code == 0, result.output
    assert "easy vs random" in result.output and "medium vs easy" in result.output
    assert "96.2%" in result.output and plot.stat().st_size > 0
    # Two pairings along a chain fit exactly: each share is predicted as measured. medium-easy:
    # 637 wins, 354 losses, 9 without a winner: a share of 64.1%, and so predicted.
    assert result.output.count("63.7%") == 1 and result.output.count("64.1%") == 2
    junk = tmp_path / "junk.json"
    junk.write_text('{"complete": false, "entries": []}')
    result = CliRunner().invoke(scale.main, [str(junk)])
    assert result.exit_code != 0 and "not a two-player tournament" in result.output
    # A tournament stopped early counts its whole pairs of games, as the tournament does:
    # here 3 games were played, so 2 count (easy won the first, the second had no winner).
    stopped = tmp_path / "stopped.json"
    games = [{"index": 2, "winner": 0}, {"index": 0, "winner": 0}, {"index": 1, "winner": None}]
    stopped.write_text(
        json.dumps({"complete": False, "lineup": ["easy", "random"], "results": games})
    )
    (pairing,) = [scale.read_pairing(stopped)]
    assert (pairing.a, pairing.b, pairing.games, pairing.wins, pairing.losses) == (
        "easy",
        "random",
        2,
        1,
        0,
    )
    assert "stopped early" in pairing.source


def test_the_load_benchmark_plays_games_through_both_seats_sockets() -> None:
    load = _load("load")
    result = CliRunner().invoke(
        load.main, ["--games", "6", "--rate", "10", "--seconds", "2", "--json"]
    )
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output.strip().splitlines()[-1])
    assert figures["errors"] == 0, figures["first_errors"]
    assert figures["updates_missed"] == 0
    assert figures["actions_per_second"] > 0 and figures["latency_ms"]["max"] > 0
    assert figures["server_kb_per_game"] != 0


def test_two_load_processes_need_a_broadcast() -> None:
    refused = CliRunner().invoke(_load("load").main, ["--processes", "2"])
    assert refused.exit_code == 2 and "--broadcast-url" in refused.output


def test_the_review_speed_benchmark_times_a_quick_review_by_player_count() -> None:
    result = CliRunner().invoke(
        _load("review_speed").main, ["--games", "1", "--players", "2"], terminal_width=120
    )
    assert result.exit_code == 0, result.output
    assert "quick review" in result.output
    row = next(line for line in result.output.splitlines() if line.strip("│ ").startswith("2 "))
    assert len([cell for cell in row.split("│") if cell.strip()]) == 4


def test_the_review_agreement_benchmark_compares_what_three_seeds_name() -> None:
    agreement = _load("review_agreement")
    args = ["--games", "1", "--iterations", "8", "--first-game", "3"]
    result = CliRunner().invoke(agreement.main, args, terminal_width=140)
    assert result.exit_code == 0, result.output
    rows = {
        cells[0]: cells[1]
        for line in result.output.splitlines()
        if len(cells := [c.strip() for c in line.split("│") if c.strip()]) == 2
    }
    assert rows["same turning points with every seed"] in ("0/1 (0%)", "1/1 (100%)")
    assert rows["turning points that are a decision to end"].isdigit()


def _results(winners: list[int | None], seed: int = 0) -> dict[str, object]:
    games = [{"index": i, "seats": [i % 2, 1 - i % 2], "winner": w} for i, w in enumerate(winners)]
    return {"seed": seed, "turn_limit": 300, "lineup": ["hard", "medium"], "results": games}


def test_paired_counts_the_deals_won_by_one_run_only_and_tests_them_exactly() -> None:
    paired = _load("paired")
    first = _results([0, 0, 0, 1, 0, None, 0])
    second = _results([0, 1, 1, 1, 0, 0])  # one game fewer: only the six in common count
    found = paired.compare(first, second)
    assert (found.games, found.both, found.only_first, found.only_second) == (6, 2, 2, 1)
    assert found.first_rate == 4 / 6 and found.second_rate == 3 / 6
    assert round(found.z, 3) == round(1 / 3**0.5, 3)
    assert found.p == 1.0  # 2 against 1 of 3: as likely as not
    lopsided = paired.compare(_results([0] * 12), _results([1] * 12))
    assert lopsided.only_first == 12 and lopsided.p == 2 / 2**12
    assert paired.compare(_results([1] * 4), _results([0] * 4), entry=1).only_first == 4


def test_paired_refuses_runs_that_did_not_deal_the_same_games(tmp_path: Path) -> None:
    paired = _load("paired")
    with pytest.raises(ValueError, match="seed"):
        paired.compare(_results([0]), _results([0], seed=1))
    other_seats = _results([0, 0])
    other_seats["results"][1]["seats"] = [0, 1]  # type: ignore[index]
    with pytest.raises(ValueError, match="game 1 seats"):
        paired.compare(_results([0, 0]), other_seats)
    one, two = tmp_path / "a.json", tmp_path / "b.json"
    one.write_text(json.dumps(_results([0, 1])))
    two.write_text(json.dumps(_results([0, 1], seed=5)))
    refused = CliRunner().invoke(paired.main, [str(one), str(two)])
    assert refused.exit_code == 2 and "differ in seed" in refused.output
    two.write_text(json.dumps(_results([1, 1])))
    shown = CliRunner().invoke(paired.main, [str(one), str(two)])
    assert shown.exit_code == 0, shown.output
    assert "only in the first 1, only in the second 0" in shown.output


def test_the_stalemate_cost_benchmark_compares_the_same_games_with_and_without_the_check() -> None:
    cost = _load("stalemate_cost")
    ends, checks, seconds, stalemates, kept = cost.full_checks(2, 120, 0)
    assert 0 < checks < ends and seconds > 0 and stalemates == 120 - len(kept) > 0
    game = cost.play(2, 0, kept[0])
    with cost.patched("_pass", cost._pass_without_the_check):
        control = cost.play(2, 0, kept[0])
        stalled = cost.play(2, 0, next(i for i in range(120) if i not in kept))
    assert control == game and control.actions == game.actions  # the same game, move for move
    assert stalled.outcome() == (None, "turn-limit")  # without R20b it runs to the turn limit
    assert cost.Game._pass is not cost._pass_without_the_check  # put back
