"""Each refusal names its rule and its reason, exactly (R5, R10-R23): one case per reason the
legality checkers give, so that the explanation of a refused move cannot drift."""

from __future__ import annotations

from typing import Any

import pytest

from gotown.engine import Action, Game

from .helpers import assert_illegal, game, play

A = Action
FOUR = [["1", "8"], ["2", "7"], ["3", "6"], ["4", "5"]]
GUARDED = [["1", "8", "dog"]]


def at(hands: list[list[str]], towers: Any = None, **fields: Any) -> Game:
    """Seat 0 to act in a 2-player position (3 players when three hands are given)."""
    return game(
        players=len(hands),
        hands=hands,
        towers=towers or [[] for _ in hands],
        draw=fields.pop("draw", ["2", "2"]),
        **fields,
    )


CASES: list[tuple[str, Game, Action, str, str]] = [
    # R5 floors
    ("r5_two_jokers", at([["?", "?"], []]), A.build("?", "?"), "R5",
     "two jokers never make a floor"),
    ("r5_special_and_joker", at([["dog", "?"], []]), A.build("dog", "?"), "R5",
     "special cards never make floors"),
    ("r5_number_and_special", at([["1", "bone"], []]), A.build("1", "bone"), "R5",
     "special cards never make floors"),
    ("r5_sum", at([["3", "5"], []]), A.build("3", "5"), "R5", "3 and 5 add up to 8, not 9"),
    # R10 build
    ("r10_first_card_missing", at([["5"], []]), A.build("4", "5"), "R10",
     "you do not hold a card 4"),
    ("r10_second_card_missing", at([["4"], []]), A.build("4", "5"), "R10",
     "you do not hold a card 5"),
    ("r10_joker_missing", at([["3"], []]), A.build("3", "?"), "R10",
     "you do not hold a card ?"),
    # R11 steal-build
    ("r11_joker", at([["?"], []], [[], [["1", "8"]]]), A.steal("?", 1), "R11",
     "a steal-build plays a number card, never a joker"),
    ("r11_special", at([["dog"], []], [[], [["1", "8"]]]), A.steal("dog", 1), "R11",
     "a steal-build plays a number card"),
    ("r11_not_held", at([["1"], []], [[], [["1", "8"]]]), A.steal("8", 1), "R11",
     "you do not hold a 8"),
    ("r11_own_tower", at([["8"], []], [[["1", "8"]], []]), A.steal("8", 0), "R11",
     "you never steal from your own tower"),
    ("r11_no_floor", at([["8"], []]), A.steal("8", 1), "R11",
     "seat 1 has no floor to steal from"),
    ("r11_guarded", at([["8"], []], [[], GUARDED]), A.steal("8", 1), "R11",
     "the top floor of seat 1 is guarded by a dog (R12)"),
    ("r11_no_match", at([["3"], []], [[], [["1", "?"]]]), A.steal("3", 1), "R11",
     "your 3 makes 9 with no card of the top floor of seat 1 (it holds a 1 and a 8)"),
    ("r11_lower_floor", at([["8"], []], [[], [["1", "8"], ["2", "7"]]]), A.steal("8", 1),
     "R11", "your 8 makes 9 with no card of the top floor of seat 1 (it holds a 2 and a 7)"),
    # R12 dog
    ("r12_no_dog_card", at([["1"], []], [[["1", "8"]], []]), A.dog(0), "R12",
     "you hold no dog card"),
    ("r12_other_tower", at([["dog"], []], [[], [["1", "8"]]]), A.dog(0, 1), "R12",
     "a dog guards one of your own floors (option dog_placement, R23)"),
    ("r12_no_such_floor", at([["dog"], []], [[["1", "8"]], []]), A.dog(1), "R12",
     "your tower has no floor 1"),
    ("r12_no_floor_there_any", at([["dog"], []], options={"dog_placement": "any"}),
     A.dog(0, 1), "R12", "the tower of seat 1 has no floor 0"),
    ("r12_already_guarded", at([["dog"], []], [GUARDED, []]), A.dog(0), "R12",
     "floor 0 of your tower already has a dog"),
    # R13 bone
    ("r13_no_bone", at([["dog"], []], [[], GUARDED]), A.bone(1, 0), "R13",
     "you hold no bone card"),
    ("r13_own_dog", at([["bone"], []], [GUARDED, []]), A.bone(0, 0), "R13",
     "a bone is played on an opponent's dog (option bone_targets, R23)"),
    ("r13_no_such_floor", at([["bone"], []], [[], GUARDED]), A.bone(1, 1), "R13",
     "the tower of seat 1 has no floor 1"),
    ("r13_no_dog", at([["bone"], []], [[], [["1", "8"]]]), A.bone(1, 0), "R13",
     "floor 0 of the tower of seat 1 has no dog"),
    ("r13_own_floor_without_dog_any", at([["bone"], []], [[["1", "8"]], []],
                                         options={"bone_targets": "any"}),
     A.bone(0, 0), "R13", "floor 0 of your tower has no dog"),
    # R14 jack-hammer
    ("r14_no_card", at([["1"], []], [[], [["1", "8"]]]), A.jackhammer(1), "R14",
     "you hold no jackhammer card"),
    ("r14_own_tower", at([["jackhammer"], []], [[["1", "8"]], []]), A.jackhammer(0), "R14",
     "the jackhammer targets an opponent, not your own tower"),
    ("r14_no_floor", at([["jackhammer"], []]), A.jackhammer(1), "R14", "seat 1 has no floor"),
    ("r14_guarded", at([["jackhammer"], []], [[], GUARDED]), A.jackhammer(1), "R14",
     "the top floor of seat 1 is guarded by a dog (R12)"),
    # R15 wrecking ball
    ("r15_no_card", at([["1"], []], [[], GUARDED]), A.wrecking_ball(1), "R15",
     "you hold no wrecking-ball card"),
    ("r15_own_tower", at([["wrecking-ball"], []], [[["1", "8"]], []]), A.wrecking_ball(0),
     "R15", "the wrecking-ball targets an opponent, not your own tower"),
    ("r15_no_floor", at([["wrecking-ball"], []]), A.wrecking_ball(1), "R15",
     "seat 1 has no floor"),
    # R16 thief
    ("r16_no_card", at([["1"], ["2"]]), A.thief(1), "R16", "you hold no thief card"),
    ("r16_self", at([["thief"], ["2"]]), A.thief(0), "R16",
     "a thief steals from an opponent, not from you"),
    ("r16_empty_hand", at([["thief"], []]), A.thief(1), "R16", "seat 1 holds no card"),
    # R17 super-thief
    ("r17_no_card", at([["1"], ["2"]]), A.super_thief(), "R17", "you hold no super-thief card"),
    ("r17_no_victim", at([["super-thief"], [], []]), A.super_thief(), "R17",
     "no opponent holds a card"),
    # R18 milkshake
    ("r18_no_card", at([["1"], []]), A.milkshake(1), "R18", "you hold no milkshake card"),
    ("r18_self", at([["milkshake"], []]), A.milkshake(0), "R18",
     "a milkshake is placed in front of an opponent"),
    ("r18_pending", at([["milkshake"], []], milkshakes=[0, 1]), A.milkshake(1), "R18",
     "seat 1 already has a pending milkshake (option milkshake_stacking, R23)"),
    # R19 donut truck
    ("r19_no_card", at([["1"], []]), A.donut_truck(), "R19", "you hold no donut-truck card"),
    # R20, R23 the game is over
    ("r20_won", at([["1"], []], [[*FOUR, ["1", "8"]], []], winner=0), A.end_turn(), "R20",
     "the game is over: seat 0 has won"),
    ("r23_turn_limit", at([["1"], []], turn=3, over=True, options={"turn_limit": 3}),
     A.end_turn(), "R23", "the game is over: the turn limit was reached"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("g", "action", "rule", "reason"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_refusal_names_its_rule_and_reason(g: Game, action: Action, rule: str, reason: str) -> None:
    error = assert_illegal(g, action, rule)
    assert error.reason == reason
    assert str(error) == f"{reason} ({rule})"
    assert g.why_illegal(action) == (rule, reason)


#: Each refusal above, made legal by one option or one change (the checker's other branch).
ALLOWED: list[tuple[str, Game, Action]] = [
    ("r12_dog_on_an_opponent_any", at([["dog"], []], [[], [["1", "8"]]],
                                      options={"dog_placement": "any"}), A.dog(0, 1)),
    ("r12_second_dog_unlimited", at([["dog"], []], [GUARDED, []],
                                    options={"dogs_per_floor": "unlimited"}), A.dog(0)),
    ("r13_own_dog_any", at([["bone"], []], [GUARDED, []], options={"bone_targets": "any"}),
     A.bone(0, 0)),
    ("r15_guarded_floor", at([["wrecking-ball"], []], [[], GUARDED]), A.wrecking_ball(1)),
    ("r17_one_victim_of_two", at([["super-thief"], [], ["3"]]), A.super_thief()),
    ("r18_pending_merge", at([["milkshake"], []], milkshakes=[0, 1],
                             options={"milkshake_stacking": "merge"}), A.milkshake(1)),
    ("r18_pending_stack", at([["milkshake"], []], milkshakes=[0, 1],
                             options={"milkshake_stacking": "stack"}), A.milkshake(1)),
    ("r11_steal_the_joker", at([["8"], []], [[], [["8", "?"]]]), A.steal("8", 1)),
    ("r11_steal_the_number", at([["1"], []], [[], [["8", "?"]]]), A.steal("1", 1)),
    ("r10_joker_floor", at([["3", "?"], []]), A.build("?", "3")),
]  # fmt: skip


@pytest.mark.parametrize(("g", "action"), [c[1:] for c in ALLOWED], ids=[c[0] for c in ALLOWED])
def test_the_other_branch_is_legal(g: Game, action: Action) -> None:
    assert g.is_legal(action) and action in g.legal_actions()
    version = g.version
    play(g, action)
    assert g.version == version + 1


def test_why_illegal_refuses_a_legal_or_malformed_action() -> None:
    from gotown.engine import InvalidActionError

    g = at([["3", "6"], []])
    with pytest.raises(InvalidActionError, match="legal now"):
        g.why_illegal(A.build("3", "6"))
    with pytest.raises(InvalidActionError, match="seat 5 does not exist"):
        g.why_illegal(A.thief(5))
