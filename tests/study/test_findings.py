"""The findings on hand-made games whose answers are known: the intervals, the tests and their
correction for the number of tests (a headline names only what its games can detect)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from gotown.study.findings import MIN_N, card_findings, findings, holm, luck_share
from gotown.study.games import ObservedGame
from gotown.study.report import headlines, percent, sections
from gotown.study.simulation import Configuration, frames, load_plan

LINEUP = Configuration(("random", "medium"), games=4)


def _game(
    index: int,
    winner: int | None,
    entry: int | None,
    turns: int,
    configuration: Configuration = LINEUP,
    focus: int | None = None,
) -> ObservedGame:
    """A game of ``configuration``: ``turns`` turns, the first of them one in which only the
    end was legal; seat 0 held a jack-hammer and played it once, seat 1 held a dog."""
    base: dict[str, Any] = {"configuration": configuration.name, "game": index}
    players = configuration.players
    ending = "win" if winner is not None else "stalemate"
    floors = [5 if s == winner else 1 for s in range(players)]
    game = {**base, "players": players, "lineup": ",".join(configuration.bots),
            "levels": ",".join(configuration.bots), "winner": winner, "winner_entry": entry,
            "focus": focus, "ending": ending, "turns": turns, "actions": turns,
            "card_actions": 1, "milkshake_turns": 0, "only_end_turns": 1, "minutes": 1.0,
            "floors": floors}  # fmt: skip
    rows = [{**base, "turn": t, "seat": t % players, "milkshake": False, "only_end": t == 1,
             "actions": 0, "hand": 5, "extra": False, "entry": t % players}
            for t in range(1, turns + 1)]  # fmt: skip
    holdings = [
        {**base, "seat": 0, "card": "jackhammer", "plays": 1, "won": winner == 0},
        {**base, "seat": 1, "card": "dog", "plays": 0, "won": winner == 1},
    ]
    plays = [{**base, "seat": 0, "card": "jackhammer", "turn": 1, "value": 1.0}]
    return ObservedGame(game, rows, holdings, plays)


def _games(
    configuration: Configuration,
    winners: Sequence[int | None],
    turns: Sequence[int],
    focus: Sequence[int | None] | None = None,
) -> list[ObservedGame]:
    return [
        _game(i, w, w, t, configuration, None if focus is None else focus[i])
        for i, (w, t) in enumerate(zip(winners, turns, strict=True))
    ]


def test_findings_of_known_games() -> None:
    # winners by seat: 0, 0, 1, none; by entry (medium is entry 1): 1, 1, 0
    games = [_game(0, 0, 1, 4), _game(1, 0, 1, 4), _game(2, 1, 0, 4), _game(3, None, None, 8)]
    tables = frames(games)
    data = findings([LINEUP], tables)
    (found,) = data["configurations"]
    assert found["seat_win_rates"] == [0.5, 0.25] and found["no_winner"] == 0.25
    assert found["stalemates"]["rate"] == 0.25
    assert found["endings"] == {"win": 3, "stalemate": 1, "turn-limit": 0}
    assert [p["rate"] for p in found["positions"]] == [pytest.approx(2 / 3), pytest.approx(1 / 3)]
    assert found["positions"][0]["n"] == 3  # of the decided games
    assert found["turns"]["mean"] == 5.0
    assert found["only_end_share"]["rate"] == pytest.approx(4 / 20)
    (pair,) = data["skill"]["pairs"]
    assert pair["stronger"] == "medium" and pair["stronger_wins"]["rate"] == pytest.approx(2 / 3)
    luck = luck_share([pair])
    assert luck is not None and luck["rate"] == pytest.approx(1 / 3) and luck["n"] == 3
    cards = {row["card"]: row for row in card_findings(tables, LINEUP.name)}
    assert cards["jackhammer"]["plays_per_game"]["mean"] == 1.0
    assert cards["jackhammer"]["played_when_held"]["rate"] == 1.0
    assert cards["dog"]["played_when_held"]["rate"] == 0.0
    assert cards["milkshake"]["plays_per_game"]["mean"] == 0.0
    # Four games say nothing about who wins, and the report says so rather than a figure.
    (line,) = headlines(data)
    assert line.startswith("2 players: random, medium (4 games): too few decided games (3)")
    assert percent(found["positions"][0]) == "too few (n=3)"


def test_an_edge_at_500_games_that_holm_does_not_confirm_is_not_detectable() -> None:
    # Three players, 500 games: the first wins 189 (37.8%). Its own 95% interval lies above
    # the 33% of chance and its own p is below 0.05, but three positions were tested at once:
    # after Holm's correction it is not detectable, and the headline gives no direction.
    three = Configuration(("medium",) * 3, games=500, study="seat")
    winners = [0] * 189 + [1] * 160 + [2] * 151
    data = findings([three], frames(_games(three, winners, [4] * 500)))
    first = data["configurations"][0]["positions"][0]
    assert first["ci95"][0] > 1 / 3 and first["p"] < 0.05
    assert first["p_holm"] > 0.05 and not first["detectable"]
    assert first["family"] == {"name": "positions", "tests": 3}
    # what 500 games detect: (z(1 - 0.05 / 6) + z(0.8)) x sqrt(1/3 x 2/3 / 500)
    assert first["smallest"] == pytest.approx(0.0682, abs=0.0005)
    (line,) = headlines(data)
    assert "the first player won 37.8% (33.7 to 42.1) of the decided games" in line
    assert "no position's advantage is detectable at this n (3 positions tested" in line
    assert "about 6.8 pts or more would be seen" in line
    assert "more often" not in line and "above" not in line


def test_a_clear_edge_is_named_with_its_corrected_p() -> None:
    three = Configuration(("random",) * 3, games=600, study="seat")
    winners = [0] * 300 + [1] * 150 + [2] * 150
    data = findings([three], frames(_games(three, winners, [4] * 600)))
    positions = data["configurations"][0]["positions"]
    assert [p["detectable"] for p in positions] == [True, True, True]
    (line,) = headlines(data)
    assert "the 1st player wins more often than the 33% of chance: 50.0% (" in line
    assert "the 2nd player wins less often" in line
    assert "p = < 0.001 after Holm, 3 positions tested" in line


def test_holm_of_a_known_example() -> None:
    # sorted: 0.005 x 4 = 0.02, 0.01 x 3 = 0.03, 0.03 x 2 = 0.06, 0.04 x 1 -> kept at 0.06
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])  # 0.9 x 1 kept at 0.5 x 2
    assert holm([]) == []


def test_an_option_is_compared_game_by_game_with_its_baseline() -> None:
    base = Configuration(("random", "random"), games=40, study="seat")
    short = Configuration(("random", "random"), {"win_floors": 4}, games=40, study="option")
    # The option adds two turns to every game; the first player wins game i in both but for
    # the last four games, which it loses under the option.
    observed = _games(base, [0, 1] * 20, [4 + i % 3 for i in range(40)])
    observed += _games(short, [0, 1] * 18 + [1] * 4, [6 + i % 3 for i in range(40)])
    data = findings([base, short], frames(observed))
    (group,) = data["comparisons"]
    assert group["kind"] == "option" and group["baseline"] == base.name
    (row,) = group["rows"]
    assert row["name"] == short.name and row["pairs"] == 40
    turns, first = row["changes"]["turns"], row["changes"]["first_player"]
    assert turns["mean"] == 2.0 and turns["ci95"] == [2.0, 2.0] and turns["detectable"]
    assert first["mean"] == pytest.approx(-2 / 40)
    assert first["p"] == pytest.approx(0.5)  # McNemar: 2 games lost, none gained
    assert not first["detectable"]
    assert turns["family"] == {"name": "option", "tests": 3}
    lines = headlines(data)
    assert "The rule options (R23), and the short game: 1 of 3 changes detectable" in lines[-2]
    assert lines[-1].startswith(f"{short.name}: turns 5.0 → 7.0 over the same 40 deals (+2.00")


def test_an_option_on_fewer_games_is_set_against_its_baseline_on_the_same_deals() -> None:
    # The baseline played 50 games, the option only the first 40 of the same deals: the
    # baseline's mean is the one over those 40 (5.0), not over all 50 (its last ten games are
    # long ones: 20 turns).
    base = Configuration(("random", "random"), games=50, study="seat")
    short = Configuration(("random", "random"), {"win_floors": 4}, games=40, study="option")
    observed = _games(base, [0] * 50, [4, 5, 6, 5] * 10 + [20] * 10)
    observed += _games(short, [0] * 40, [6, 7, 8, 7] * 10)
    data = findings([base, short], frames(observed))
    (line,) = [line for line in headlines(data) if line.startswith(short.name)]
    assert "turns 5.0 → 7.0 over the same 40 deals" in line


def test_a_swap_is_reported_as_what_the_card_is_worth_to_its_holder() -> None:
    base = Configuration(("medium", "medium"), games=40)
    swap = Configuration(("medium", "medium"), games=40, swap="dog")
    # Seat 1 started with the dog in every deal: it won 30 of the 40 with it, and 10 of the
    # same deals with a plain floor card in its place.
    observed = _games(base, [1] * 30 + [0] * 10, [10] * 40)
    observed += _games(swap, [1] * 10 + [0] * 30, [12] * 40, focus=[1] * 40)
    data = findings([base, swap], frames(observed))
    (group,) = data["comparisons"]
    assert group["kind"] == "swap"
    wins = group["rows"][0]["changes"]["holder_wins"]
    assert wins["mean"] == pytest.approx(0.5) and wins["base"] == 0.25 and wins["other"] == 0.75
    assert wins["ci95"][0] > 0 and wins["detectable"]
    floors = group["rows"][0]["changes"]["holder_floors"]
    assert floors["base"] == pytest.approx((10 * 5 + 30 * 1) / 40)  # with a floor card
    turns = group["rows"][0]["changes"]["turns"]
    assert turns["mean"] == -2.0  # the games with the dog were two turns shorter
    line = next(x for x in headlines(data) if "starting with a dog" in x)
    assert line.startswith(f"{base.name}, starting with a dog rather than a plain floor card: ")
    assert "its holder's win rate 25.0% → 75.0% over the same 40 deals (+50.0 pts" in line
    (section,) = [s for s in sections(data) if s.title == "What starting with a card is worth"]
    (table,) = section.tables
    assert table.rows[0][:3] == ["dog", "40", "25.0% → 75.0%"]
    assert table.rows[0][3].endswith("✓")


def test_no_share_is_shown_on_fewer_than_the_minimum() -> None:
    assert MIN_N == 30
    assert percent({"rate": 1.0, "ci95": [0.2, 1.0], "n": 1}) == "too few (n=1)"
    assert percent({"rate": 0.5, "ci95": [0.32, 0.68], "n": 30}).startswith("50.0% (32.0 to 68.0")


def test_a_plan_without_study_keys_compares_an_option_with_its_baseline() -> None:
    plan = load_plan(
        'games = 40\n[[configuration]]\nbots = ["easy", "easy"]\n'
        '[[configuration]]\nbots = ["easy", "easy"]\noptions = { bone_targets = "any" }\n'
        '[[configuration]]\nname = "other"\nbots = ["easy", "medium"]\n'
        'options = { bone_targets = "any" }\nbaseline = "2 players: easy, easy"\n',
        10,
    )
    observed = [g for c in plan for g in _games(c, [0, 1] * 20, [5] * 40)]
    (group,) = findings(plan, frames(observed))["comparisons"]
    assert (group["kind"], group["baseline"]) == ("option", plan[0].name)
    assert [r["name"] for r in group["rows"]] == [plan[1].name, "other"]
