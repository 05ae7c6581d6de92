"""The terminal and the RL art take what the rules say of a card from the engine's card table
(issue 43): a changed table changes what they show, and their code states none of it again."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from gotown.engine import CARDS, JOKER_VALUES, Action, Game
from gotown.tui import words
from gotown.tui.widgets import card_text

GOTOWN = Path(__file__).resolve().parents[2] / "gotown"
#: The front ends' code that shows cards (the RL art: its drawing and its render).
FRONT_ENDS = [*sorted((GOTOWN / "tui").glob("*.py")), GOTOWN / "rl" / "art.py",
              GOTOWN / "rl" / "render.py"]  # fmt: skip
#: The engine's card facts, by the names of its functions: none is defined again.
ENGINE_FACTS = {"pair_colour", "partner", "joker_value", "cards_played", "uses", "uses_of"}


def _copies(path: Path) -> list[str]:
    """Where a file states a card fact of its own: sums to nine (``9 - n``, ``a + b == 9``), a
    function named as one of the engine's facts, or a rule number of a card (R10..R19) alone."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        operands: list[ast.expr] = []
        if isinstance(node, ast.BinOp):
            operands = [node.left, node.right]
        elif isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
        if any(isinstance(o, ast.Constant) and o.value == 9 for o in operands):
            found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
        if isinstance(node, ast.FunctionDef) and node.name in ENGINE_FACTS:
            found.append(f"{path.name}:{node.lineno}: def {node.name}")
        if isinstance(node, ast.Constant) and node.value in {f"R{n}" for n in range(10, 20)}:
            found.append(f"{path.name}:{node.lineno}: {node.value!r}")
    return found


def test_the_front_ends_state_no_card_fact_of_their_own() -> None:
    assert len(FRONT_ENDS) > 10
    assert [copy for path in FRONT_ENDS for copy in _copies(path)] == []


def test_the_check_finds_the_copies_it_looks_for(tmp_path: Path) -> None:
    copy = tmp_path / "copy.py"
    copy.write_text(
        "def pair_colour(n):\n    return min(n, 9 - n)\n\nRULE = {'dog': 'R12'}\nok = n + m == 9\n"
    )
    found = {line.split(": ", 1)[1] for line in _copies(copy)}
    assert found == {"def pair_colour", "9 - n", "'R12'", "n + m == 9"}


def test_r2_a_card_s_colour_is_the_engine_s_pair_colour(monkeypatch: pytest.MonkeyPatch) -> None:
    assert str(card_text("3").style) != str(card_text("1").style)
    monkeypatch.setitem(CARDS, "3", CARDS["3"]._replace(pair_colour=1))
    assert str(card_text("3").style) == str(card_text("1").style)


def test_r5_the_pairs_the_terminal_lays_out_and_teaches_are_the_engine_s(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert words.hand_groups(["3", "5", "6"]) == [[0, 2], [1]]
    monkeypatch.setitem(CARDS, "3", CARDS["3"]._replace(partner="5"))
    monkeypatch.setitem(CARDS, "5", CARDS["5"]._replace(partner="3"))
    monkeypatch.setitem(CARDS, "6", CARDS["6"]._replace(partner=None))
    assert words.hand_groups(["3", "5", "6"]) == [[0, 1], [2]]
    assert "3+5" in words.rules_text(None, "en")
    game = Game.from_position(
        {"players": 2, "active": 0, "hands": [["3"], []], "towers": [[], [["4", "5"]]]}
    )
    said = words.describe_action(Action.steal("3", target=1), game.view(0), ["You", "Bo"])
    assert "your 3 + the 5 on Bo's top" in said


def test_r5_a_joker_in_a_floor_shows_the_engine_s_value(monkeypatch: pytest.MonkeyPatch) -> None:
    assert words.floor_text(("3", "?", "dog")) == "3+?=6+D"
    monkeypatch.setitem(JOKER_VALUES, "3", 7)
    assert words.floor_text(("3", "?")) == "3+?=7"
    assert words.floor_joker_value(("3", "6")) is None
