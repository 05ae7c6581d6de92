"""Tournaments: balanced seat orders, statistics, and a small run end to end."""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner

import gotown.tournament.results as results_module
import gotown.tournament.tournament as tournament_module
from gotown.cli import main
from gotown.engine import Action, Game, Options, View
from gotown.tournament.results import RESULTS_FORMAT, code_digest, load_results, results_json
from gotown.tournament.standings import format_table, write_plot
from gotown.tournament.tournament import (
    GameResult,
    bot_seed,
    entry_names,
    rule_options,
    run_tournament,
    seatings,
    summarise,
    wilson,
)


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
        specs: tuple[str, ...], seats: tuple[int, ...], index: int, seed: int, limit: int,
        options: dict[str, object],
    ) -> GameResult:  # fmt: skip
        n = len(specs)
        return GameResult(
            index, tuple(seats), None, "turn-limit", 1, 1, (0.0,) * n, (0,) * n, ((),) * n
        )

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
    # The Wilson score interval's values (a plain normal interval gives 0.504 to 0.696).
    assert low == pytest.approx(0.50200, abs=1e-5) and high == pytest.approx(0.69060, abs=1e-5)
    assert wilson(0, 10) == (0.0, pytest.approx(0.27754, abs=1e-5))  # not (0, 0)
    assert wilson(10, 10) == (pytest.approx(0.72246, abs=1e-5), 1.0)
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
            ending="win",
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
        ({"options": {"win_floors": 4}}, "with option win_floors=4, not the default win_floors"),
        ({"options": None}, "the file's options None are not an object of R23 options"),
        ({"fingerprint": "0123456789abcdef"}, "the rules, the bots or the tournament changed"),
        ({"format": 2}, f"results format 2, this version plays format {RESULTS_FORMAT}"),
        ({"format": 4}, "format 4, this version plays format 5 (the rules end a stalemate"),
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
    with pytest.raises(ValueError, match=re.escape(message)):
        load_results(data, ["medium", "random"], 5, 300)


def test_the_fingerprint_is_of_the_code_loaded_not_of_files_edited_since(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A long tournament saves its games as they finish; a bot edited on disk meanwhile must
    # not relabel games that the code already loaded is still playing.
    before = results_module.code_fingerprint()
    monkeypatch.setattr(Path, "read_bytes", lambda self: b"edited = True")
    assert results_module.code_fingerprint() == before
    results_module.code_fingerprint.cache_clear()
    assert results_module.code_fingerprint() != before  # a new process reads the edit
    monkeypatch.undo()
    results_module.code_fingerprint.cache_clear()
    assert results_module.code_fingerprint() == before


def test_a_file_from_before_the_format_was_written_is_refused_clearly() -> None:
    # Files of results format 2 have no "format" key; their seats and bot seeds differ.
    result = run_tournament(["medium", "random"], games=2, seed=5, workers=1)
    data = json.loads(results_json(["medium", "random"], 5, 300, result.results))
    del data["format"]
    with pytest.raises(ValueError) as error:
        load_results(data, ["medium", "random"], 5, 300)
    assert str(error.value) == (
        f"the file is in results format older than 3, this version plays format {RESULTS_FORMAT} "
        "(seat orders rotate over entries in blocks, bot seeds are one-way hashes; a deadlocked "
        "game ends at once and each game says why it ended; the rules end a stalemate when its "
        "turn ends (R20b), the game's ending says stalemate): its games cannot be continued; "
        "start a new --json file"
    )


def test_the_fingerprint_covers_the_tournament_module(monkeypatch: pytest.MonkeyPatch) -> None:
    # This module decides the seat orders and the bots' seeds, so results depend on it too.
    before = results_module.code_fingerprint()
    own = Path(tournament_module.__file__).resolve()
    read = Path.read_bytes

    def edited(self: Path) -> bytes:
        return b"edited = True" if self.resolve() == own else read(self)

    monkeypatch.setattr(Path, "read_bytes", edited)
    results_module.code_fingerprint.cache_clear()
    try:
        assert results_module.code_fingerprint() != before
    finally:
        monkeypatch.undo()
        results_module.code_fingerprint.cache_clear()
    assert results_module.code_fingerprint() == before


def test_the_fingerprint_is_of_the_code_not_of_its_comments_and_docstrings() -> None:
    source = b'''"""A module."""

LIMIT = 3  # a comment


class Seat:
    """A seat."""

    def move(self) -> int:
        """The move."""
        return LIMIT
'''
    mended = (
        source.replace(b"A module.", b"A module, said better.")
        .replace(b"# a comment", b"# another comment")
        .replace(b'        """The move."""\n', b"")
    )
    assert mended != source
    assert code_digest(mended) == code_digest(source)
    assert code_digest(source.replace(b"LIMIT = 3", b"LIMIT = 4")) != code_digest(source)
    assert code_digest(source.replace(b"return LIMIT", b'return "LIMIT"')) != code_digest(source)


def test_the_code_digest_is_the_same_under_every_python_version() -> None:
    # Written on 3.11: ast.dump would give another text on 3.12 (empty type_params) and 3.13
    # (empty fields left out), so a tournament could not go on after an interpreter upgrade.
    source = b'def f(x: int = 0) -> None:\n    """Doc."""\n    return None\n'
    digest = "a4f0627b21e252bf2e378af47b1bf6f80eca6e3ba1b1bbe6694760b9abfbff3d"
    assert code_digest(source).hex() == digest


def test_a_bots_seed_does_not_give_away_the_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    # The bots were seeded game_seed * 8 + seat: seed // 8 re-dealt every hidden card.
    given: dict[int, int] = {}
    real_bot_from_spec = tournament_module.bot_from_spec

    def recording(spec: str, seed: int) -> object:
        given[len(given)] = seed
        return real_bot_from_spec(spec, seed)

    monkeypatch.setattr(tournament_module, "bot_from_spec", recording)
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


# -- how a game without a winner ended: a stalemate (R20b) or the turn limit (R23) -----------
#: Seat 0 holds 7 cards and draws an 8th at its next turn; seat 1 holds 8. No pair makes 9, no
#: tower to steal from or attack: from turn 3 on nobody draws (R7b) and only ending the turn is
#: legal (R21), for ever: a stalemate when turn 3 ends (R20b).
GETS_STUCK = {
    "players": 2,
    "active": 0,
    "hands": [["1", "1", "1", "1", "2", "2", "2"], ["3", "3", "3", "3", "4", "4", "4", "bone"]],
    "towers": [[], []],
    "draw": ["2", "8", "7"],
}


@pytest.fixture
def stuck_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every game of a tournament starts from GETS_STUCK, with the tournament's options."""

    def dealt(
        players: int, seed: int, index: int, turn_limit: int, options: dict[str, object]
    ) -> Game:
        options = {**options, "first_player": 0, "turn_limit": turn_limit}
        return Game.from_position({**GETS_STUCK, "options": options})

    monkeypatch.setattr(tournament_module, "deal", dealt)


@pytest.mark.usefixtures("stuck_deal")
def test_r20b_a_stalemate_ends_when_its_turn_ends_not_at_the_turn_limit() -> None:
    result = tournament_module.play_game(("medium", "hard"), (0, 1), 0, 0, 300)
    assert (result.winner, result.ending) == (None, "stalemate")
    # over when turn 3 ends, after three turns that could only be ended
    assert (result.turns, result.actions, sum(result.decisions)) == (3, 3, 3)


def test_r23_a_game_that_can_still_change_ends_at_the_turn_limit() -> None:
    result = run_tournament(["random", "easy"], games=4, seed=1, workers=1, turn_limit=6)
    assert [(r.winner, r.ending, r.turns) for r in result.results] == [(None, "turn-limit", 6)] * 4
    assert (result.no_winner, result.stalemates, result.at_turn_limit) == (4, 0, 4)
    won = run_tournament(["easy", "random"], games=4, seed=1, workers=1)
    assert all(r.ending == ("win" if r.winner is not None else "turn-limit")
               for r in won.results) and won.no_winner < 4  # fmt: skip


def test_the_summary_counts_the_games_without_a_winner_by_why() -> None:
    results = [
        GameResult(i, (0, 1) if i % 2 == 0 else (1, 0), winner, ending, 30, 50, (0.0, 0.0), (1, 1))
        for i, (winner, ending) in enumerate(
            [(0, "win")] + [(None, "stalemate")] * 15 + [(None, "turn-limit")] * 2
        )
    ]
    summary = summarise(("hard", "medium"), results, 1.0, 1, 0, 300)
    assert "18 games, 2 players, 17 without a winner (15 in a stalemate, R20b; 2 at the turn " \
           "limit of 300);" in format_table(summary)  # fmt: skip
    data = summary.summary_json()
    assert (data["no_winner"], data["stalemates"], data["at_turn_limit"]) == (17, 15, 2)


@pytest.mark.usefixtures("stuck_deal")
def test_a_stalemate_reads_back_from_the_results_file() -> None:
    result = run_tournament(["random", "easy"], games=2, seed=1, workers=1)
    assert [r.ending for r in result.results] == ["stalemate", "stalemate"]
    assert result.stalemates == 2 and result.mean_turns == 3
    data = json.loads(results_json(["random", "easy"], 1, 300, result.results, result))
    assert data["format"] == RESULTS_FORMAT == 5
    assert (data["stalemates"], data["at_turn_limit"]) == (2, 0)
    assert [r["ending"] for r in data["results"]] == ["stalemate", "stalemate"]
    loaded, _ = load_results(data, ["random", "easy"], 1, 300)
    assert [(r.ending, r.turns, r.actions) for r in loaded] == [("stalemate", 3, 3)] * 2


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"ending": "draw"}, "game 1 is malformed: ending 'draw' is not \"stalemate\" or"),
        ({"ending": "win"}, "game 1 is malformed: ending 'win' is not \"stalemate\" or"),
        ({"winner": 0}, "game 1 is malformed: ending 'turn-limit' is not \"win\""),
        ({"ending": None}, "game 1 is malformed: ending None"),
    ],
)
def test_an_ending_that_is_not_one_or_disagrees_with_the_winner_is_refused(
    change: dict[str, object], message: str
) -> None:
    result = run_tournament(["random", "random"], games=2, seed=5, workers=1, turn_limit=6)
    data = json.loads(results_json(["random", "random"], 5, 6, result.results))
    data["results"][1].update(change)
    with pytest.raises(ValueError, match=re.escape(message)):
        load_results(data, ["random", "random"], 5, 6)
    del data["results"][1]["ending"]
    with pytest.raises(ValueError, match="game 1 is malformed: it has no 'ending'"):
        load_results(data, ["random", "random"], 5, 6)


# -- rule options (R23) ----------------------------------------------------------------------
def _options_seen(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, object]]:
    """The options of every view the bots are given, from now on."""
    seen: list[dict[str, object]] = []
    real = tournament_module.bot_from_spec

    class Watching:
        def __init__(self, spec: str, seed: int) -> None:
            self.bot = real(spec, seed)
            self.name = self.bot.name

        def choose(self, view: View, legal: Sequence[Action]) -> Action:
            seen.append(view.options.to_json())
            return self.bot.choose(view, legal)

    monkeypatch.setattr(tournament_module, "bot_from_spec", Watching)
    return seen


def test_r23_rule_options_are_played_in_every_game(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _options_seen(monkeypatch)
    options = {"win_floors": 4, "dog_placement": "any", "milkshake_blocks_refill": False}
    result = run_tournament(["easy", "random"], games=2, seed=1, workers=1, turn_limit=40,
                            options=options)  # fmt: skip
    assert seen and all(o == {**Options().to_json(), **options, "first_player": 0,
                              "turn_limit": 40} for o in seen)  # fmt: skip
    assert result.options == options
    assert 'rule options win_floors=4, dog_placement="any", milkshake_blocks_refill=false.' in (
        format_table(result)
    )
    assert "rule options" not in format_table(run_tournament(["easy", "random"], games=2,
                                                             workers=1, turn_limit=6))  # fmt: skip


def test_options_at_their_defaults_are_no_options() -> None:
    assert rule_options({"win_floors": 5, "dog_placement": "own"}) == {}
    assert rule_options({"win_floors": 4, "bone_targets": "opponents"}) == {"win_floors": 4}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"win_floor": 4}, "unknown option 'win_floor'"),
        ({"win_floors": 3}, "option win_floors: 3 is not 4 or 5 (R23)"),
        ({"win_floors": "4"}, "option win_floors: '4' is not 4 or 5"),
        ({"dogs_per_floor": 2}, "option dogs_per_floor: 2 is not"),
        ({"first_player": 1}, "option first_player is the tournament's own (R23): seat 0 starts"),
        ({"turn_limit": 50}, "option turn_limit is the tournament's own (R23): use the tournament"),
    ],
)
def test_a_bad_rule_option_is_refused_before_any_game(
    monkeypatch: pytest.MonkeyPatch, options: dict[str, object], message: str
) -> None:
    monkeypatch.setattr(tournament_module, "play_game", None)  # a game played would fail
    with pytest.raises(ValueError, match=re.escape(message)):
        run_tournament(["easy", "random"], games=2, workers=1, options=options)


def test_games_played_with_other_options_are_not_continued() -> None:
    options = {"win_floors": 4}
    result = run_tournament(["easy", "random"], games=2, seed=5, workers=1, options=options)
    data = json.loads(results_json(["easy", "random"], 5, 300, result.results, options=options))
    assert data["options"] == {"win_floors": 4}
    loaded, _ = load_results(data, ["easy", "random"], 5, 300, {"win_floors": 4})
    assert _outcomes(loaded) == _outcomes(result.results)
    with pytest.raises(ValueError, match="played with option win_floors=4, not the default "
                                         "win_floors"):  # fmt: skip
        load_results(data, ["easy", "random"], 5, 300)
    with pytest.raises(ValueError, match='played with the default dog_placement, not option '
                                         'dog_placement="any"'):  # fmt: skip
        load_results(data, ["easy", "random"], 5, 300, {"win_floors": 4, "dog_placement": "any"})


# -- bot specs: a level with parameters --------------------------------------------------------
def test_an_entry_is_named_by_its_spec_and_seeded_by_its_seat_alone() -> None:
    # A spec that sets a level's own value plays the very games of the plain level: the bots'
    # seeds come from the game and seat, never from the spec's text.
    plain = run_tournament(["easy", "random"], games=4, seed=3, workers=1)
    spelled = run_tournament(["easy:noise=0.1", "random"], games=4, seed=3, workers=1)
    assert _outcomes(spelled.results) == _outcomes(plain.results)
    assert [(e.name, e.level) for e in spelled.entries] == [("easy:noise=0.1", "easy"),
                                                            ("random", "random")]  # fmt: skip
    wild = run_tournament(["easy:noise=1", "random"], games=4, seed=3, workers=1)
    assert _outcomes(wild.results) != _outcomes(plain.results)
    twice = run_tournament(["easy:noise=0", "easy:noise=0"], games=2, seed=3, workers=1)
    assert [e.name for e in twice.entries] == ["easy:noise=0", "easy:noise=0#2"]


def test_worker_processes_build_the_bots_from_their_specs() -> None:
    specs = ["easy:noise=1", "hard:iterations=4,rollout_turns=2"]
    alone = run_tournament(specs, games=2, seed=2, workers=1, turn_limit=12)
    pooled = run_tournament(specs, games=2, seed=2, workers=2, turn_limit=12)
    assert _outcomes(pooled.results) == _outcomes(alone.results)
    plain = run_tournament(["easy", specs[1]], games=2, seed=2, workers=2, turn_limit=12)
    assert _outcomes(plain.results) != _outcomes(pooled.results)
    assert "| hard:iterations=4,rollout_turns=2 |" in format_table(pooled)


def test_a_bad_spec_is_refused_before_any_game(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tournament_module, "play_game", None)  # a game played would fail
    with pytest.raises(ValueError, match=re.escape("bot 'hard:iterations=0': iterations must")):
        run_tournament(["hard:iterations=0", "random"], games=2, workers=1)


def test_the_spec_is_what_the_results_file_holds_and_resume_checks() -> None:
    specs = ["easy:noise=0", "random"]
    result = run_tournament(specs, games=2, seed=5, workers=1)
    data = json.loads(results_json(specs, 5, 300, result.results, result))
    assert data["lineup"] == specs and data["entries"][0]["name"] == "easy:noise=0"
    assert _outcomes(load_results(data, specs, 5, 300)[0]) == _outcomes(result.results)
    with pytest.raises(ValueError, match="lineup"):
        load_results(data, ["easy", "random"], 5, 300)


def _plotted(result: Any, path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The matplotlib figure that write_plot saves to ``path`` (it writes the file too)."""
    import matplotlib.figure

    saved: list[matplotlib.figure.Figure] = []
    real_savefig = matplotlib.figure.Figure.savefig

    def keep(figure: matplotlib.figure.Figure, *args: Any, **kwargs: Any) -> None:
        saved.append(figure)
        real_savefig(figure, *args, **kwargs)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", keep)
    write_plot(result, str(path))
    (figure,) = saved
    return figure


def test_the_plot_shows_rates_think_times_and_the_running_estimate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = run_tournament(["easy", "random", "medium"], games=9, seed=3, workers=1)
    figure = _plotted(result, tmp_path / "t.png", monkeypatch)
    assert (tmp_path / "t.png").stat().st_size > 0
    rates, times, running = figure.axes
    bars = [round(p.get_height(), 6) for p in rates.patches]
    assert bars == [round(100 * e.win_rate, 6) for e in result.entries]
    assert "no winner" in rates.get_title()
    assert times.get_yscale() == "log"  # microseconds and seconds on one axis
    assert [t.get_text() for t in times.get_xticklabels()] == ["easy", "random", "medium"]
    curves = [
        line for line in running.get_lines() if line.get_label() in ("easy", "random", "medium")
    ]
    assert len(curves) == 3
    for curve, entry in zip(curves, result.entries, strict=True):
        xs, ys = curve.get_data()
        assert list(xs) == list(range(1, 10))  # one point per game, in the order dealt
        assert ys[-1] == pytest.approx(100 * entry.win_rate)  # ends at the final rate


def test_the_fingerprint_covers_the_games_code_but_not_the_report(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    read: list[str] = []
    real_read_bytes = Path.read_bytes

    def recording(path: Path) -> bytes:
        read.append(f"{path.parent.name}/{path.name}")
        return real_read_bytes(path)

    monkeypatch.setattr(Path, "read_bytes", recording)
    results_module.code_fingerprint.__wrapped__()  # (the cached one read the files once)
    assert {"engine/game.py", "bots/ismcts.py", "tournament/tournament.py"} <= set(read)
    # A new table or plot does not stop a tournament played in parts from going on.
    assert "tournament/standings.py" not in read


def test_think_times_survive_a_save_to_a_tenth_of_a_microsecond() -> None:
    game = GameResult(index=0, seats=(0, 1), winner=0, ending="win", turns=3, actions=5,
                      think=(6.4e-6, 0.25), decisions=(2, 1),
                      times=((3.2e-6, 3.2e-6), (0.25,)))  # fmt: skip
    text = results_json(["easy", "hard"], 0, 300, [game])
    (loaded,), _ = load_results(json.loads(text), ["easy", "hard"], 0, 300)
    assert loaded.times[0] == pytest.approx((3.2e-6, 3.2e-6), abs=1e-7)  # not rounded to 0
    assert loaded.times[1] == pytest.approx((0.25,))


def test_the_plot_leaves_a_bot_without_decisions_empty(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    games = [GameResult(index=i, seats=(0, 1) if i % 2 == 0 else (1, 0), winner=None,
                        ending="turn-limit", turns=1, actions=1, think=(1e-5, 0.0),
                        decisions=(1, 0), times=((1e-5,), ())) for i in range(2)]  # fmt: skip
    result = summarise(["easy", "random"], games, 1.0, 1, 0, 1)
    figure = _plotted(result, tmp_path / "t.png", monkeypatch)
    times = figure.axes[1]
    assert [t.get_text() for t in times.texts if "decisions" in t.get_text()] == ["no decisions"]
    boxes = [p for p in times.patches if p.get_facecolor()[3] > 0]
    assert len(boxes) == 1  # easy's only: no box made up for random
