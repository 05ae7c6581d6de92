"""``gotown play --plain``: a game's actions piped through standard input."""

from __future__ import annotations

import io
import json

from click.testing import CliRunner

from gotown.cli import main
from gotown.engine import Record
from gotown.tui import words
from gotown.tui.plain import HELP, play_plain
from gotown.tui.session import Setup


def test_plain_plays_a_whole_game_from_standard_input(tmp_path):
    """Answering 1 (the first action listed) to every prompt plays a game to its end."""
    save = tmp_path / "game.json"
    result = CliRunner().invoke(
        main,
        ["play", "--plain", "--seed", "7", "--bots", "easy", "--save", str(save)],
        input="1\n" * 400,
    )
    assert result.exit_code == 0, result.output
    record = Record.from_json(json.loads(save.read_text()))
    game = record.replay()
    assert game.is_over
    winner = game.outcome().winner
    assert ("You won" if winner == 0 else "Easy bot won") in result.output
    assert f"Saved to {save}." in result.output
    assert "Your hand: " in result.output


def test_plain_refuses_a_move_with_its_rule_and_asks_again():
    result = CliRunner().invoke(
        main,
        ["play", "--plain", "--seed", "2", "--option", "first_player=0"],
        input="wrecking-ball@1\nsuper-thief\n2+2\nquit\n",
    )
    assert result.exit_code == 1
    assert "Refused: you hold no wrecking-ball card (R15)" in result.output
    assert "Refused: you hold no super-thief card (R17)" in result.output
    assert "Refused: 2 and 2 add up to 4, not 9 (R5)" in result.output
    assert result.output.count("Your move: ") == 4
    assert "You left the game." in result.output


def test_plain_stops_when_the_input_ends():
    result = CliRunner().invoke(main, ["play", "--plain", "--seed", "3"], input="")
    assert result.exit_code == 1
    assert "the game stops unfinished" in result.output


def test_bad_options_are_refused_before_any_game():
    runner = CliRunner()
    result = runner.invoke(main, ["play", "--plain", "--option", "win_floors=7"])
    assert result.exit_code == 2
    assert "option win_floors: 7 is not 4 or 5 (R23)" in result.output
    result = runner.invoke(main, ["play", "--plain", "--short", "--option", "win_floors=5"])
    assert result.exit_code == 2 and "--short is win_floors=4" in result.output
    result = runner.invoke(main, ["play", "--plain", "--bots", "medium,nobody", "--players", "3"])
    assert result.exit_code == 2 and "unknown bot level 'nobody'" in result.output
    result = runner.invoke(main, ["play", "--plain", "--save", "/no/such/folder/game.json"])
    assert result.exit_code == 2 and "its folder does not exist" in result.output
    result = runner.invoke(main, ["play", "--plain", "--people", "2"])
    assert result.exit_code == 2 and "hot-seat game needs the full screen" in result.output


def test_play_with_no_arguments_seats_you_against_a_medium_bot(monkeypatch):
    from gotown.tui.play import PlayApp

    started: list[PlayApp] = []
    monkeypatch.setattr(PlayApp, "run", lambda self: started.append(self))
    runner = CliRunner()
    assert runner.invoke(main, ["play"]).exit_code == 0
    session = started[-1].session
    assert session.game.players == 2 and session.people == [0]
    assert [bot.name for bot in session.bots.values()] == ["medium"]
    assert session.game.options.win_floors == 5

    args = ["play", "--players", "4", "--bots", "hard,easy", "--short", "--name", "Zoe",
            "--option", "dog_placement=any", "--seed", "8", "--speed", "0"]  # fmt: skip
    assert runner.invoke(main, args).exit_code == 0
    app = started[-1]
    session = app.session
    assert [bot.name for bot in session.bots.values()] == ["hard", "easy", "easy"]
    assert session.names[0] == "Zoe" and session.seed == 8 and app.speed == 0
    assert session.game.options.win_floors == 4 and session.game.options.dog_placement == "any"

    assert runner.invoke(main, ["play", "--people", "2", "--name", "Ann,Bob"]).exit_code == 0
    session = started[-1].session
    assert session.people == [0, 1] and not session.bots and session.names == ["Ann", "Bob"]


def test_replay_and_connect_refuse_what_they_cannot_use(tmp_path):
    runner = CliRunner()
    bad = tmp_path / "bad.json"
    bad.write_text('{"players": 2, "options": {}, "seed": 1, "actions": [{"type": "build"}]}')
    result = runner.invoke(main, ["play", "--replay", str(bad)])
    assert result.exit_code == 2 and "action 0 of the record" in result.output
    result = runner.invoke(main, ["play", "--connect", "http://127.0.0.1:9/w/abc"])
    assert result.exit_code == 2 and "neither an invitation" in result.output
    result = runner.invoke(main, ["play", "--connect", "http://127.0.0.1:9/j/x", "--replay",
                                  str(bad)])  # fmt: skip
    assert result.exit_code == 2 and "--connect plays, --replay shows a record" in result.output
    result = runner.invoke(main, ["play", "--connect", "http://127.0.0.1:9/j/x"])
    assert result.exit_code == 2 and "cannot reach http://127.0.0.1:9" in result.output


def test_plain_replay_prints_the_game_as_a_spectator_saw_it(tmp_path):
    save = tmp_path / "game.json"
    runner = CliRunner()
    played = runner.invoke(main, ["play", "--plain", "--seed", "7", "--bots", "easy",
                                  "--save", str(save)], input="1\n" * 400)  # fmt: skip
    assert played.exit_code == 0
    result = runner.invoke(main, ["play", "--replay", str(save), "--plain"])
    assert result.exit_code == 0
    assert "Seat 1 drew a card." in result.output and "Seat 0 drew a card." in result.output
    assert " drew a " not in result.output.replace("drew a card", "")  # no card named (R22)
    assert "won" in result.output


def test_plain_hint_says_the_strong_bot_s_choice_in_words():
    result = CliRunner().invoke(
        main, ["play", "--plain", "--seed", "5", "--option", "first_player=0"],
        input="hint\nquit\n",
    )  # fmt: skip
    hint = next(line for line in result.output.splitlines() if "Hint: " in line)
    assert "The strong bot's choices, with the chance to win after each: " in hint
    assert hint.rstrip().endswith("%)")


def test_plain_rules_follow_the_chosen_language():
    result = CliRunner().invoke(
        main, ["play", "--plain", "--seed", "3", "--lang", "fr"], input="rules\nquit\n"
    )
    assert "Chien de garde" in result.output and "Super-voleur" in result.output
    refused = CliRunner().invoke(main, ["play", "--plain", "--lang", "ja"])
    assert refused.exit_code == 2 and "--lang" in refused.output


def test_r20b_plain_says_a_stalemate_in_words_after_the_table_with_every_hand(tmp_path):
    """Seed 102 against easy, answering 1 (the first action) each time: both hands fill up with
    cards that can do nothing, and the game ends with no winner (R20b). After the table, every
    hand is laid down (R22) and the end is said once, in plain words."""
    save = tmp_path / "game.json"
    result = CliRunner().invoke(
        main, ["play", "--plain", "--seed", "102", "--bots", "easy", "--save", str(save)],
        input="1\n" * 100,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    game = Record.from_json(json.loads(save.read_text())).replay()
    assert game.outcome() == (None, "stalemate")  # (the deal still ends so)
    last = result.output.split("Your move: ")[-1].splitlines()
    assert last[0] == "You ended the turn."
    assert last[1].startswith("  You ") and last[-4].startswith("Floors from 0.")  # the table
    hands = [", ".join(map(words.card_name, game.view(seat).hand or ())) for seat in (0, 1)]
    assert last[-3] == f"Hands at the end: You: {hands[0]}; Easy bot: {hands[1]}."
    assert last[-2] == (
        "The game is stuck: nobody can play a card or draw one any more, so it ends with no "
        "winner (R20b)."
    )
    assert last[-1] == f"Saved to {save}."
    assert result.output.count("(R20b)") == 1 and "turn limit" not in result.output


def test_plain_tells_you_whose_turn_a_milkshake_skips():
    """Easy bot 1 gives you a milkshake on turn 2 of this deal: it skips your turn (R18)."""
    result = CliRunner().invoke(
        main, ["play", "--plain", "--seed", "7", "--players", "4", "--bots", "easy"],
        input="1\n" * 4 + "quit\n",
    )  # fmt: skip
    assert "Easy bot 1: milkshake for you (skips your next turn) (milkshake@0)." in result.output
    assert "for you (skips their" not in result.output


class Terminal(io.StringIO):
    """Standard output as a terminal (that wraps what is too long for it where its edge is)."""

    def isatty(self) -> bool:
        return True


def test_plain_breaks_its_lines_between_words_to_fit_the_terminal(monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    out = Terminal()
    code = play_plain(Setup(seed=7, bots=("easy",)), stdin=io.StringIO("rules\nquit\n"),
                      stdout=out)  # fmt: skip
    assert code == 1
    said = out.getvalue().replace("Your move: ", "\n")  # (what is typed ends the prompt's line)
    assert max(len(line) for line in said.splitlines()) <= 40
    flowing = " ".join(said.split())
    assert " ".join(HELP.split()) in flowing  # every word whole, in order
    rules = words.rules_text(None, "en")
    assert " ".join(rules.split()) in flowing
    assert "  wrecking-ball@1  destroy seat 1's top\n    floor, dog or not (R15)" in said

    piped = io.StringIO()  # a program reading the lines: whole lines, as they are
    play_plain(Setup(seed=7, bots=("easy",)), stdin=io.StringIO("quit\n"), stdout=piped)
    assert HELP in piped.getvalue().splitlines()[0]
