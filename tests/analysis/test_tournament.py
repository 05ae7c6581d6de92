"""Tournaments: balanced seat orders, statistics, and a small run end to end."""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import re
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

import gotown.analysis.tournament as tournament_module
from gotown.analysis.tournament import (
    RESULTS_FORMAT,
    GameResult,
    bot_seed,
    entry_names,
    format_table,
    load_results,
    results_json,
    run_tournament,
    seatings,
    summarise,
    wilson,
)
from gotown.cli import main
from gotown.engine import Game


@pytest.mark.parametrize("players", [2, 3, 4])
def test_seatings_are_every_order_in_blocks_of_rotations(players: int) -> None:
    orders = seatings(players)
    assert sorted(orders) == list(itertools.permutations(range(players)))
    assert len(orders) == math.factorial(players)
    for start in range(0, len(orders), players):
        block = orders[start : start + players]
        for seat in range(players):  # every entry once in every seat
            assert sorted(order[seat] for order in block) == list(range(players))
        rotations = {block[0][r:] + block[0][:r] for r in range(players)}
        assert set(block) == rotations


def _seats_played(
    monkeypatch: pytest.MonkeyPatch, levels: list[str], games: int
) -> list[tuple[int, ...]]:
    """The seat orders ``run_tournament`` gives its games (without playing them)."""

    def unplayed(
        levels: tuple[str, ...], seats: tuple[int, ...], index: int, seed: int, limit: int
    ) -> GameResult:
        n = len(levels)
        return GameResult(index, tuple(seats), None, 1, 1, (0.0,) * n, (0,) * n, ((),) * n)

    monkeypatch.setattr(tournament_module, "play_game", unplayed)
    result = run_tournament(levels, games=games, workers=1)
    return [r.seats for r in result.results]


@pytest.mark.parametrize(
    "levels",
    [
        ["medium", "medium"],
        ["hard", "medium", "medium"],
        ["easy", "medium", "random"],
        ["hard", "medium", "medium", "medium"],
    ],
)
def test_every_entry_starts_equally_often_give_or_take_one_game(
    monkeypatch: pytest.MonkeyPatch, levels: list[str]
) -> None:
    # Entries are reported apart (medium, medium#2), so they are rotated apart: a repeated
    # level once always sat behind the other (medium always started, a pure seat effect).
    seats = _seats_played(monkeypatch, levels, 60)
    players = len(levels)
    for games in range(1, 61):
        for seat in range(players):
            count = Counter(order[seat] for order in seats[:games])
            spread = [count[e] for e in range(players)]
            assert max(spread) - min(spread) <= 1, (games, seat, spread)
            if games % players == 0:
                assert len(set(spread)) == 1, (games, seat, spread)


def test_two_bots_of_one_level_each_start_half_the_games(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first = Counter(order[0] for order in _seats_played(monkeypatch, ["medium"] * 2, 200))
    assert first == {0: 100, 1: 100}


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


def _outcomes(results: list[GameResult]) -> list[tuple[int, tuple[int, ...], int | None, int]]:
    """What a game's result is, without its think times (which vary from run to run)."""
    return [(r.index, r.seats, r.winner, r.actions) for r in results]


def test_a_tournament_played_in_parts_is_the_same_as_one_run() -> None:
    whole = run_tournament(["easy", "random"], games=8, seed=3, workers=1)
    first = run_tournament(["easy", "random"], games=3, seed=3, workers=1)
    played: list[int] = []
    rest = run_tournament(
        ["easy", "random"], games=8, seed=3, workers=2, done=first.results,
        done_seconds=first.seconds, progress=lambda r: played.append(r.index),
    )  # fmt: skip
    assert sorted(played) == [3, 4, 5, 6, 7]
    assert _outcomes(rest.results) == _outcomes(whole.results)
    assert [e.wins for e in rest.entries] == [e.wins for e in whole.entries]
    assert rest.seconds >= first.seconds


def test_saved_results_read_back_as_played() -> None:
    result = run_tournament(["medium", "random"], games=4, seed=5, workers=1)
    text = results_json(["medium", "random"], 5, 300, result.results, result)
    data = json.loads(text)
    assert data["complete"] is True and data["games"] == 4
    assert data["lineup"] == ["medium", "random"]
    lines = text.splitlines()  # one line per game, not one per think time
    assert len(lines) < 70 and len(lines) - lines.index(' "results": [') == 1 + 4 + 2
    loaded, seconds = load_results(data, ["medium", "random"], 5, 300)
    assert _outcomes(loaded) == _outcomes(result.results) and seconds == result.seconds
    for back, played in zip(loaded, result.results, strict=True):
        assert [len(t) for t in back.times] == list(played.decisions)
        assert all(abs(a - b) <= 1e-5 for ts, us in zip(back.times, played.times, strict=True)
                   for a, b in zip(ts, us, strict=True))  # fmt: skip


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"lineup": ["medium", "easy"]}, "lineup"),
        ({"seed": 6}, "seed"),
        ({"turn_limit": 200}, "turn_limit"),
        ({"fingerprint": "0123456789abcdef"}, "the rules, the bots or the tournament changed"),
        ({"format": 2}, f"results format 2, this version plays format {RESULTS_FORMAT}"),
        ({"results": [{"index": 0}]}, "malformed"),
        ({"results": None}, "no list of games"),
    ],
)
def test_results_from_another_tournament_are_refused(
    change: dict[str, object], message: str
) -> None:
    result = run_tournament(["medium", "random"], games=2, seed=5, workers=1)
    data = json.loads(results_json(["medium", "random"], 5, 300, result.results))
    data.update(change)
    with pytest.raises(ValueError, match=message):
        load_results(data, ["medium", "random"], 5, 300)


def test_the_fingerprint_is_of_the_code_loaded_not_of_files_edited_since(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A long tournament saves its games as they finish; a bot edited on disk meanwhile must
    # not relabel games that the code already loaded is still playing.
    before = tournament_module.code_fingerprint()
    monkeypatch.setattr(Path, "read_bytes", lambda self: b"edited since")
    assert tournament_module.code_fingerprint() == before
    tournament_module.code_fingerprint.cache_clear()
    assert tournament_module.code_fingerprint() != before  # a new process reads the edit
    monkeypatch.undo()
    tournament_module.code_fingerprint.cache_clear()
    assert tournament_module.code_fingerprint() == before


def test_a_file_from_before_the_format_was_written_is_refused_clearly() -> None:
    # Files of results format 2 have no "format" key; their seats and bot seeds differ.
    result = run_tournament(["medium", "random"], games=2, seed=5, workers=1)
    data = json.loads(results_json(["medium", "random"], 5, 300, result.results))
    del data["format"]
    with pytest.raises(ValueError) as error:
        load_results(data, ["medium", "random"], 5, 300)
    assert str(error.value) == (
        f"the file is in results format older than {RESULTS_FORMAT}, this version plays format "
        f"{RESULTS_FORMAT} (other seat orders and bot seeds): its games cannot be continued; "
        "start a new --json file"
    )


def test_the_fingerprint_covers_the_tournament_module(monkeypatch: pytest.MonkeyPatch) -> None:
    # This module decides the seat orders and the bots' seeds, so results depend on it too.
    before = tournament_module.code_fingerprint()
    own = Path(tournament_module.__file__).resolve()
    read = Path.read_bytes

    def edited(self: Path) -> bytes:
        return b"edited" if self.resolve() == own else read(self)

    monkeypatch.setattr(Path, "read_bytes", edited)
    tournament_module.code_fingerprint.cache_clear()
    try:
        assert tournament_module.code_fingerprint() != before
    finally:
        monkeypatch.undo()
        tournament_module.code_fingerprint.cache_clear()
    assert tournament_module.code_fingerprint() == before


def test_a_bots_seed_does_not_give_away_the_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    # The bots were seeded game_seed * 8 + seat: seed // 8 re-dealt every hidden card.
    given: dict[int, int] = {}
    real_make_bot = tournament_module.make_bot

    def recording(level: str, seed: int) -> object:
        given[len(given)] = seed
        return real_make_bot(level, seed)

    monkeypatch.setattr(tournament_module, "make_bot", recording)
    tournament_module.play_game(("random", "random"), (1, 0), 5, 0, 6)
    assert list(given.values()) == [bot_seed(0, 5, 0), bot_seed(0, 5, 1)]
    game_seed = 0 * 1_000_003 + 5
    options = {"first_player": 0, "turn_limit": 6}
    real = Game.new(players=2, seed=game_seed, options=options)
    for seat, seed in given.items():
        text = f"gotown tournament bot: seed 0, game 5, seat {seat}"
        assert seed == int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")
        for guess in {seed // 8, seed >> 3, seed - seat, (seed - seat) // 8}:
            peek = Game.new(players=2, seed=guess, options=options)
            assert (peek.hands, peek.draw) != (real.hands, real.draw)
    seeds = {bot_seed(seed, index, seat) for seed in range(3) for index in range(50)
             for seat in range(4)}  # fmt: skip
    assert len(seeds) == 3 * 50 * 4


@pytest.mark.parametrize(
    ("game", "change", "message"),
    [
        (1, {"think": [0.1]}, "game 1 is malformed: think"),
        (1, {"decisions": [3]}, "game 1 is malformed: decisions"),
        (0, {"times": [[1.0]]}, "game 0 is malformed: times"),
        (1, {"times": [[], []]}, "game 1 is malformed: times"),  # not one per decision
        (1, {"winner": 7}, "game 1 is malformed: winner 7"),
        (1, {"winner": True}, "game 1 is malformed: winner True"),
        (0, {"seats": [0, 0]}, "game 0 is malformed: seats"),
        (0, {"seats": [0, 1, 2]}, "game 0 is malformed: seats"),
        (1, {"seats": [0, 1]}, "game 1 does not belong to this tournament: seats"),
        (1, {"index": 0}, "game 0 appears twice"),
        (1, {"index": -1}, "index -1 is not a game"),
        (1, {"index": 1.5}, "index 1.5 is not a game"),
        (0, {"turns": "30"}, "game 0 is malformed: turns"),
        (0, {"think": [0.1, float("nan")]}, "game 0 is malformed: think"),
    ],
)
def test_a_malformed_game_is_refused_naming_the_game_and_field(
    game: int, change: dict[str, object], message: str
) -> None:
    result = run_tournament(["random", "random"], games=2, seed=5, workers=1, turn_limit=6)
    data = json.loads(results_json(["random", "random"], 5, 6, result.results))
    data["results"][game].update(change)
    with pytest.raises(ValueError, match=re.escape(message)):
        load_results(data, ["random", "random"], 5, 6)


def test_a_game_seated_differently_is_refused() -> None:
    result = run_tournament(["medium", "random"], games=2, seed=5, workers=1)
    data = json.loads(results_json(["medium", "random"], 5, 300, result.results))
    data["results"][1]["seats"] = data["results"][0]["seats"]
    with pytest.raises(ValueError, match="game 1 does not belong"):
        load_results(data, ["medium", "random"], 5, 300)


def test_a_stopped_tournament_counts_only_its_first_games_in_whole_cycles() -> None:
    full = run_tournament(["random", "easy"], games=6, seed=1, workers=1)
    gap = [r for r in full.results if r.index in (0, 1, 3)]
    stopped = run_tournament(["random", "easy"], games=6, seed=1, workers=1, done=gap,
                             max_seconds=1e-9)  # fmt: skip
    assert [r.index for r in stopped.results] == [0, 1] and stopped.games == 2


def test_a_stopped_tournament_counts_whole_blocks_of_players_games() -> None:
    # The unit is a block of `players` games (each entry once in each seat), not all 6
    # orders of 3 entries: 4 games played keep 3.
    full = run_tournament(["random"] * 3, games=6, seed=1, workers=1, turn_limit=6)
    first = [r for r in full.results if r.index < 4]
    stopped = run_tournament(["random"] * 3, games=6, seed=1, workers=1, turn_limit=6,
                             done=first, max_seconds=1e-9)  # fmt: skip
    assert [r.index for r in stopped.results] == [0, 1, 2] and stopped.games == 3


def _run(args: list[str]) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["tournament", "--no-progress", "--workers", "1", *args])
    return result.exit_code, result.output


def test_the_command_resumes_an_interrupted_tournament(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out, fresh = tmp_path / "t.json", tmp_path / "fresh.json"
    play = tournament_module.play_game

    def interrupted(*args: object) -> GameResult:
        if args[2] == 3:  # the index of the game
            raise KeyboardInterrupt
        return play(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(tournament_module, "play_game", interrupted)
    code, output = _run(["easy", "random", "--games", "6", "--json", str(out)])
    assert code == 130 and "3 games saved" in output and "--resume" in output
    saved = json.loads(out.read_text())
    assert saved["complete"] is False and [r["index"] for r in saved["results"]] == [0, 1, 2]
    assert saved["seconds"] > 0
    monkeypatch.setattr(tournament_module, "play_game", play)

    code, output = _run(["easy", "random", "--games", "6", "--json", str(out), "--resume"])
    assert code == 0, output
    assert "resuming: 3 games already played" in output
    code, _ = _run(["easy", "random", "--games", "6", "--json", str(fresh)])
    resumed, whole = json.loads(out.read_text()), json.loads(fresh.read_text())
    assert resumed["complete"] is True and resumed["games"] == 6
    strip = [{k: v for k, v in r.items() if k not in ("think", "times")}
             for r in resumed["results"]]  # fmt: skip
    assert strip == [{k: v for k, v in r.items() if k not in ("think", "times")}
                     for r in whole["results"]]  # fmt: skip
    assert [e["wins"] for e in resumed["entries"]] == [e["wins"] for e in whole["entries"]]
    assert resumed["seconds"] > saved["seconds"]


def test_a_command_stopped_by_its_time_limit_keeps_every_game_played(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table counts whole cycles of seat orders; the file keeps all games, to resume."""
    out = tmp_path / "t.json"
    play, clock = tournament_module.play_game, {"now": 0.0}

    def play_then_run_out_of_time(*args: object) -> GameResult:
        if args[2] == 2:  # the index of the game: after it, the time is up
            clock["now"] = 1e6
        return play(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(tournament_module, "play_game", play_then_run_out_of_time)
    monkeypatch.setattr(tournament_module, "time",
                        SimpleNamespace(perf_counter=lambda: clock["now"]))  # fmt: skip
    code, output = _run(["easy", "random", "--games", "6", "--max-seconds", "60",
                         "--json", str(out)])  # fmt: skip
    assert code == 0 and "3 games saved" in output and "--resume" in output
    saved = json.loads(out.read_text())
    assert [r["index"] for r in saved["results"]] == [0, 1, 2] and not saved["complete"]
    monkeypatch.undo()
    code, output = _run(["easy", "random", "--games", "6", "--json", str(out), "--resume"])
    assert code == 0 and "resuming: 3 games" in output
    assert len(json.loads(out.read_text())["results"]) == 6


def test_resuming_from_another_tournament_is_refused_and_leaves_the_file(tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    assert _run(["easy", "random", "--games", "2", "--json", str(out)])[0] == 0
    before = out.read_text()
    code, output = _run(["easy", "random", "--games", "4", "--seed", "9", "--json", str(out),
                         "--resume"])  # fmt: skip
    assert code == 2 and "cannot resume" in output and "seed" in output
    assert out.read_text() == before
    code, output = _run(["easy", "random", "--games", "2", "--resume"])
    assert code == 2 and "--json" in output


def test_resume_without_a_saved_file_starts_from_the_first_game(tmp_path: Path) -> None:
    out = tmp_path / "new.json"
    code, output = _run(["easy", "random", "--games", "2", "--json", str(out), "--resume"])
    assert code == 0 and "0 games already played" in output
    assert json.loads(out.read_text())["games"] == 2
