"""The finished experiments of docs/research still run, and their probes really see what they
claim to see (the seer bots of the ceiling)."""

from __future__ import annotations

import random
from pathlib import Path
from types import ModuleType

from click.testing import CliRunner
from script_modules import EXPERIMENTS, load_script

from gotown.engine import Action, Game, parse_action

#: The experiments that import a neighbour, and which.
_NEEDS = {"easy_frontier": ("ceiling",), "handicaps": ("ceiling", "easy_frontier")}


def _load(name: str) -> ModuleType:
    return load_script(EXPERIMENTS, name, _NEEDS.get(name, ()))


def _pairings(output: str) -> list[list[str]]:
    """The (player, against) cells of every row of a printed duel table."""
    return [[cell.strip() for cell in line.split("│")[1:3]] for line in output.splitlines()]


def _position(opponent: list[str]) -> Game:
    """Seat 0 to act with the pair 2+7; the opponent's hand is given, the rest is drawn."""
    return Game.from_position(
        {
            "players": 2,
            "active": 0,
            "hands": [["2", "7", "1", "1", "3"], opponent],
            "towers": [[], []],
            "milkshakes": [0, 0],
        }
    )


def test_seer_medium_keeps_the_pair_exactly_when_the_opponent_can_steal_it() -> None:
    # R11: the floor 2+7 is stolen by a 2 or a 7. medium, counting cards, keeps the pair in
    # both positions; the seer keeps it only when the opponent really holds one.
    ceiling = _load("ceiling")
    for opponent, expected in (
        (["4", "4", "5", "6", "6", "7"], "end"),
        (["4"] * 4 + ["5"] * 2, "2+7"),
    ):
        game = _position(opponent)
        bot = ceiling.SeerMedium(seed=1)
        bot.game = game
        assert bot.choose(game.view(0), game.legal_actions()) == parse_action(expected)


def test_seer_hard_samples_the_opponents_real_hand() -> None:
    ceiling = _load("ceiling")
    game = _position(["4", "4", "5", "6", "6", "7"])
    sampler = ceiling._SeerSampler(game.view(0), game)
    for _ in range(5):
        sample = sampler.sample(random.Random(3))
        assert sample.hands == game.hands
        assert sorted(sample.draw) == sorted(game.draw)


def test_the_ceiling_benchmark_prints_every_line() -> None:
    ceiling = _load("ceiling")
    result = CliRunner().invoke(
        ceiling.main,
        ["--games", "2", "--search-games", "1", "--workers", "1"],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    rows = _pairings(result.output)
    for probe, opponent in ceiling.RULE_LINES + ceiling.SEARCH_LINES:
        assert [probe, opponent] in rows, result.output


def test_the_medium_ablation_benchmark_prints_every_variant() -> None:
    ablation = _load("medium_ablation")
    result = CliRunner().invoke(
        ablation.main, ["--games", "2", "--workers", "1"], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.output
    for variant in ablation.VARIANTS:
        assert variant in result.output


def test_the_easy_frontier_benchmark_prints_and_plots_every_candidate(tmp_path: Path) -> None:
    frontier = _load("easy_frontier")
    chart = tmp_path / "frontier.png"
    result = CliRunner().invoke(
        frontier.main,
        ["--games", "2", "--workers", "1", "--plot", str(chart)],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    rows = _pairings(result.output)
    for player, opponent, _ in frontier.lines_for(frontier.CANDIDATES, 2):
        assert [player, opponent] in rows, result.output
    assert chart.read_bytes().startswith(b"\x89PNG")


def test_the_frontier_variants_differ_from_the_shipped_levels_only_in_their_holding() -> None:
    # medium-keep-0.5 would be medium itself: the pair 2+7 (R11: stolen by a 2 or a 7) is kept
    # by medium and by a variant that keeps over 0.5 risk, built by one that keeps over 0.99.
    frontier = _load("easy_frontier")
    game = _position(["4", "4", "5", "6", "6", "7"])
    view, legal = game.view(0), game.legal_actions()
    shipped = frontier._bot("medium", 1).choose(view, legal)
    frontier.VARIANTS["test-keep-0.5"] = (True, 0.5, 0.0)
    frontier.VARIANTS["test-keep-0.99"] = (True, 0.99, 0.0)
    try:
        assert frontier._bot("test-keep-0.5", 1).choose(view, legal) == shipped
        assert shipped == parse_action("end")
        assert frontier._bot("test-keep-0.99", 1).choose(view, legal) == parse_action("2+7")
        assert frontier._bot("medium-no-hold", 1).choose(view, legal) == parse_action("2+7")
    finally:
        del frontier.VARIANTS["test-keep-0.5"], frontier.VARIANTS["test-keep-0.99"]


def test_the_inferring_medium_reads_the_steal_risk_off_consistent_deals() -> None:
    # R11: a 2+7 floor is stolen only with a 2 or a 7. With every 2 and 7 in sight (the
    # viewer's hand and the discard pile) no deal gives the opponent one: the risk is 0. The
    # 1+8 floor can be stolen, and some deals give the opponent a 1 or an 8.
    frontier = _load("easy_frontier")
    game = Game.from_position(
        {
            "players": 2,
            "active": 0,
            "hands": [["2", "7", "2", "7", "1", "8"], ["4", "4", "5", "6", "3"]],
            "towers": [[], []],
            "milkshakes": [0, 0],
            "discard": ["2", "2", "7", "7"],
        }
    )
    exposure = frontier._SampledExposure(game.view(0), random.Random(5))
    assert exposure.chance(2) == 0.0
    assert 0.0 < exposure.chance(1) < 1.0
    bot = frontier.InferringMedium(seed=2)
    assert bot.choose(game.view(0), game.legal_actions()) in (
        parse_action("2+7"),
        parse_action("7+2"),
    )


def test_the_handicaps_benchmark_prints_every_line_and_rate_and_plots(tmp_path: Path) -> None:
    handicaps = _load("handicaps")
    chart = tmp_path / "handicaps.svg"
    result = CliRunner().invoke(
        handicaps.main,
        ["--games", "2", "--workers", "1", "--plot", str(chart)],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    rows = _pairings(result.output)
    for player, opponent, _ in handicaps.lines_for(handicaps.HANDICAPS, 2):
        assert [player, opponent] in rows, result.output
    for name in handicaps.HANDICAPS:
        assert f"{name}: loses " in result.output
    assert chart.read_text().lstrip().startswith("<?xml")


def _with_top_floor(hand: list[str]) -> Game:
    """Seat 0 to act with two unguarded floors of its own (so a dog can go on either)."""
    return Game.from_position(
        {
            "players": 2,
            "active": 0,
            "hands": [hand, ["4", "4", "5", "6", "6"]],
            "towers": [[["1", "8"], ["3", "6"]], []],
            "milkshakes": [0, 0],
        }
    )


def test_a_handicap_changes_only_what_it_names() -> None:
    handicaps = _load("handicaps")
    game = _with_top_floor(["dog", "2", "3"])
    view, legal = game.view(0), game.legal_actions()

    def play(name: str) -> Action:
        return handicaps._bot(name, 1).choose(view, legal)

    # R12: medium guards its top floor (floor 1); dog-low the lowest one; no-dog keeps the dog.
    assert play("medium") == parse_action("dog#1")
    assert play("dog-low") == parse_action("dog#0")
    assert play("no-dog") == parse_action("end")
    assert play("no-thief") == play("medium")
    # A handicap never refuses a winning build (R20).
    win = Game.from_position(
        {
            "players": 2,
            "active": 0,
            "hands": [["?", "4"], ["4", "4", "5", "6", "6"]],
            "towers": [[["1", "8"], ["1", "8"], ["2", "7"], ["3", "6"]], []],
            "milkshakes": [0, 0],
        }
    )
    assert handicaps._bot("jokers-when-full", 1).choose(
        win.view(0), win.legal_actions()
    ) == parse_action("?+4")


def test_no_hold_builds_the_pair_that_medium_keeps() -> None:
    # R11: the floor 2+7 is stolen by a 2 or a 7; medium keeps the pair whatever the
    # opponent really holds (it counts cards), the no-hold rule builds it.
    holding = _load("holding_by_players")
    from gotown.bots import make_bot

    for opponent in (["4", "4", "5", "6", "6", "7"], ["4"] * 4 + ["5"] * 2):
        game = _position(opponent)
        view, legal = game.view(0), game.legal_actions()
        assert make_bot("medium", 1).choose(view, legal) == parse_action("end")
        assert holding.NoHold(1).choose(view, legal) == parse_action("2+7")


def test_holding_by_players_prints_both_measurements() -> None:
    holding = _load("holding_by_players")
    result = CliRunner().invoke(holding.main, ["--players", "3", "--games", "3", "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "the holder's edge" in result.output and "the table's game" in result.output
    rows = [line for line in result.output.splitlines() if line.startswith("│ 3 ")]
    assert len(rows) == 4  # hold and no-hold, in each table
    assert {row.split("│")[2].strip() for row in rows} == {"hold", "no-hold"}


def test_the_hold_rule_keeps_with_four_players_the_pair_medium_builds() -> None:
    # R11: three opponents, so some one of them probably steals a 2+7 floor: medium builds it
    # all the same with four players, the benchmark's hold rule (medium's at 2 and 3) keeps it.
    holding = _load("holding_by_players")
    from gotown.bots import make_bot

    game = Game.from_position(
        {
            "players": 4,
            "active": 0,
            "hands": [["2", "7", "1", "1", "3"], ["4", "4", "5", "6"], ["1", "3", "4"], ["5", "6"]],
            "towers": [[], [], [], []],
            "milkshakes": [0, 0, 0, 0],
        }
    )
    view, legal = game.view(0), game.legal_actions()
    assert make_bot("medium", 1).choose(view, legal) == parse_action("2+7")
    assert holding.Hold(1).choose(view, legal) == parse_action("end")
