"""The findings on hand-made games whose answers are known."""

from __future__ import annotations

from typing import Any

import pytest

from gotown.analysis.findings import card_findings, findings, luck_share
from gotown.analysis.games import ObservedGame
from gotown.analysis.reporting import headlines
from gotown.analysis.simulation import Configuration, frames

LINEUP = Configuration(("random", "medium"), games=4)


def _game(index: int, winner: int | None, entry: int | None, turns: int) -> ObservedGame:
    """A game of ``LINEUP``: ``turns`` turns, the first of them one in which only the end was
    legal; seat 0 held a jack-hammer and played it once (a floor taken), seat 1 held a dog."""
    base: dict[str, Any] = {"configuration": LINEUP.name, "game": index}
    ending = "win" if winner is not None else "stalemate"
    game = {**base, "players": 2, "lineup": "random,medium", "levels": "random,medium",
            "winner": winner, "winner_entry": entry, "ending": ending, "turns": turns,
            "actions": turns, "card_actions": 1, "milkshake_turns": 0, "only_end_turns": 1,
            "minutes": 1.0, "floors": [1, 1]}  # fmt: skip
    rows = [{**base, "turn": t, "seat": t % 2, "milkshake": False, "only_end": t == 1,
             "actions": 0, "hand": 5, "extra": False, "entry": t % 2}
            for t in range(1, turns + 1)]  # fmt: skip
    holdings = [
        {**base, "seat": 0, "card": "jackhammer", "plays": 1, "won": winner == 0},
        {**base, "seat": 1, "card": "dog", "plays": 0, "won": winner == 1},
    ]
    plays = [{**base, "seat": 0, "card": "jackhammer", "turn": 1, "value": 1.0}]
    return ObservedGame(game, rows, holdings, plays)


def test_findings_of_known_games() -> None:
    # winners by seat: 0, 0, 1, none; by entry (medium is entry 1): 1, 1, 0
    games = [_game(0, 0, 1, 4), _game(1, 0, 1, 4), _game(2, 1, 0, 4), _game(3, None, None, 8)]
    tables = frames(games)
    data = findings([LINEUP], tables)
    (found,) = data["configurations"]
    assert found["seat_win_rates"] == [0.5, 0.25] and found["no_winner"] == 0.25
    assert found["stalemates"]["rate"] == 0.25
    assert found["turns"]["mean"] == 5.0
    assert found["only_end_share"]["rate"] == pytest.approx(4 / 20)
    (pair,) = data["skill"]["pairs"]
    assert pair["stronger"] == "medium" and pair["stronger_wins"]["rate"] == pytest.approx(2 / 3)
    luck = luck_share([pair])
    assert luck is not None and luck["rate"] == pytest.approx(1 / 3) and luck["n"] == 3
    cards = {row["card"]: row for row in card_findings(tables, LINEUP.name, 2)}
    hammer = cards["jackhammer"]
    assert hammer["plays_per_game"]["mean"] == 1.0
    assert hammer["played_when_held"]["rate"] == 1.0
    assert hammer["win_played"]["rate"] == 0.5 and hammer["win_played"]["n"] == 4
    assert hammer["value"]["mean"] == 1.0
    dog = cards["dog"]
    assert dog["played_when_held"]["rate"] == 0.0 and dog["win_held_not_played"]["rate"] == 0.25
    assert cards["milkshake"]["plays_per_game"]["mean"] == 0.0
    (first, luck_line) = headlines(data)
    assert first.startswith("2 players: random, medium: the first player wins 50.0% (")
    assert "not distinguishable from the 50% of pure chance" in first
    assert luck_line.startswith("Skill against luck: random still wins 33.3% (")


def test_an_option_is_compared_game_by_game_with_its_baseline() -> None:
    base = Configuration(("random", "random"), games=3, study="seat")
    short = Configuration(("random", "random"), {"win_floors": 4}, games=3, study="option")
    observed = []
    for configuration, extra, winners in ((base, 0, [0, 1, 0]), (short, 2, [0, 1, 1])):
        for index, winner in enumerate(winners):
            game = _game(index, winner, winner, 4 + extra + index)
            game.game["configuration"] = configuration.name
            observed.append(game)
    data = findings([base, short], frames(observed))
    (group,) = data["options"]
    assert [r["name"] for r in group["rows"]] == [base.name, short.name]
    change = group["rows"][1]["change"]
    assert change["turns"]["mean"] == 2.0 and change["turns"]["ci95"] == [2.0, 2.0]
    assert change["first_player"]["mean"] == pytest.approx(-1 / 3)  # game 2: lost, not won
    assert any(line.startswith(f"{short.name}: turns 5.0 → 7.0") for line in headlines(data))


def test_an_option_on_fewer_games_is_set_against_its_baseline_on_the_same_deals() -> None:
    # The baseline played 5 games, the option only the first 3 of the same deals: its headline
    # compares with the baseline's mean over those 3 (5.0), not over all 5 (its last two games
    # are long ones: 20 turns), nor with the first player's rate over all 5.
    base = Configuration(("random", "random"), games=5, study="seat")
    short = Configuration(("random", "random"), {"win_floors": 4}, games=3, study="option")
    observed = []
    for configuration, turns, winners in (
        (base, [4, 5, 6, 20, 20], [0, 0, 0, 1, 1]),
        (short, [6, 7, 8], [1, 1, 1]),
    ):
        for index, (length, winner) in enumerate(zip(turns, winners, strict=True)):
            game = _game(index, winner, winner, length)
            game.game["configuration"] = configuration.name
            observed.append(game)
    data = findings([base, short], frames(observed))
    lines = [line for line in headlines(data) if line.startswith(short.name)]
    assert len(lines) == 1
    assert "turns 5.0 → 7.0 over the same 3 deals" in lines[0]
    assert "win rate 100.0% → 0.0% over the same 3 deals" in lines[0]
