"""Move-generator counts ("perft") pinned in tests/data/perft.json, and hand counts."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gotown.engine import Game

from . import oracle
from .perft import DATA_FILE, DEPTH, NEW, RICH, compute, divide, perft, start

PINNED: dict[str, Any] = json.loads(DATA_FILE.read_text(encoding="utf-8"))


def test_pinned_data_covers_every_start_position() -> None:
    assert sorted(PINNED) == sorted([*NEW, *RICH])
    assert all(len(entry["perft"]) == DEPTH for entry in PINNED.values())


@pytest.mark.parametrize("name", sorted([*NEW, *RICH]))
def test_perft_matches_the_pinned_counts(name: str) -> None:
    assert compute()[name] == PINNED[name], (
        "the move generator changed; if the rules changed on purpose, "
        "regenerate with `python -m tests.engine.perft --write`"
    )


def _oracle_perft(game: Game, depth: int) -> int:
    """perft with the legal actions taken from the independent oracle (tests/engine/oracle.py)."""
    if depth == 0:
        return 1
    actions = oracle.legal_actions(game.to_position())
    assert actions == set(game.legal_actions())
    if depth == 1:
        return len(actions)
    total = 0
    for action in sorted(actions, key=lambda a: repr(a)):
        child = game.copy(history=False)
        child.apply(action)
        total += _oracle_perft(child, depth - 1)
    return total


@pytest.mark.parametrize("name", sorted([*NEW, *RICH]))
def test_perft_agrees_with_the_oracle_generator(name: str) -> None:
    assert _oracle_perft(start(name), 3) == PINNED[name]["perft"][2]


def test_perft_depth_1_is_the_number_of_distinct_legal_actions() -> None:
    for name in PINNED:
        game = start(name)
        assert perft(game, 1) == len(set(game.legal_actions())) == PINNED[name]["distinct"]
        assert sum(divide(game, 2).values()) == perft(game, 2)


# -- counted by hand ------------------------------------------------------------------------
def test_hand_count_rich_2p() -> None:
    # Seat 0 holds 3 6 ? 1 dog bone jackhammer thief milkshake donut; its tower {1,8};
    # seat 1's tower {2,7,dog} under an unguarded top {4,5}; seat 1 holds 2 cards.
    #   builds: 3+6, and the joker with 1, 3 and 6 ............................. 4
    #   steals: the top {4,5} needs a 4 or a 5: none ............................ 0
    #   dog on own floor 0; bone on seat 1's floor 0 ............................ 2
    #   jack-hammer seat 1 (top unguarded); thief seat 1; milkshake seat 1 ...... 3
    #   donut truck; end ......................................................... 2
    assert perft(start("rich-2p"), 1) == 4 + 0 + 2 + 3 + 2 == 11


def test_hand_count_rich_3p_options() -> None:
    # Seat 1 holds 4 ? dog bone wrecking-ball super-thief milkshake; options: dogs anywhere,
    # unlimited, bones on any dog, milkshakes merge. Towers: seat 0 {4,5,dog} {3,?};
    # seat 1 {2,7}; seat 2 {1,8,dog,dog}; seat 2 has a pending milkshake.
    #   builds: 4+? ............................................................... 1
    #   steals with the 4: {3,?=6} needs a 3 or a 6; seat 2 is guarded ............ 0
    #   dogs: every floor of every tower (4 floors), dogs already there or not .... 4
    #   bones: seat 0 floor 0 and seat 2 floor 0 ................................. 2
    #   wrecking ball: seats 0 and 2 (guarded or not) ............................ 2
    #   super-thief (seat 0 holds cards) ........................................ 1
    #   milkshake: seats 0 and 2 (merge allows a second one) .................... 2
    #   end ....................................................................... 1
    assert perft(start("rich-3p-options"), 1) == 1 + 0 + 4 + 2 + 2 + 1 + 2 + 1 == 13


def test_hand_count_rich_4p_endgame() -> None:
    # Seat 3 holds 3 6 4 5 thief donut. Tops: seat 0 {4,5}; seat 1 {?=3,6}; seat 2 none.
    #   builds 3+6 and 4+5 ........................................................ 2
    #   steals: 4 or 5 from seat 0; from seat 1 a 6 takes the joker (leaving the 6) and
    #   a 3 takes the 6 (leaving the joker worth 3) .............................. 4
    #   thief on seats 0 and 1 (seat 2's hand is empty) ........................... 2
    #   donut truck; end ........................................................... 2
    game = start("rich-4p-endgame")
    assert perft(game, 1) == 2 + 4 + 2 + 2 == 10
    # After ending the turn, seat 0 draws the 1: it holds 1 and 6. Only the 6 steals
    # (the joker of seat 1, leaving its 6); seat 3's {4,?=5} needs a 4 or a 5. So 6@1, end.
    assert divide(game, 2)["end"] == 2
    # After 3+6 seat 3 has 4 floors; 4+5 then makes the fifth and wins: nothing follows.
    after = game.copy()
    after.apply(after.legal_actions()[0])
    assert divide(after, 2)["4+5"] == 0


def test_hand_count_new_2p_seed_1_to_depth_2() -> None:
    # Seat 0 holds 1 1 2 7 bone thief; seat 1 holds 4 7 7 dog milkshake; no towers;
    # the draw pile starts 6, 3, ...
    game = start("new-2p-seed-1")
    p = game.to_position()
    assert p["active"] == 0
    assert sorted(p["hands"][0]) == sorted(["1", "1", "2", "7", "bone", "thief"])
    assert sorted(p["hands"][1]) == sorted(["4", "7", "7", "dog", "milkshake"])
    assert p["draw"][0] == "6"
    # depth 1: 2+7, thief@1, end (the bone has no dog to eat) .......................... 3
    # depth 2: after 2+7: thief@1, end .................................................. 2
    #          after thief@1 (the seed makes it take the milkshake): 2+7, milkshake@1, end  3
    #          after end: seat 1 draws the 6 and holds 4 6 7 7 dog milkshake: no pair
    #          makes 9, no floor for the dog: milkshake@0, end ............................ 2
    assert divide(game, 2) == {"2+7": 2, "thief@1": 3, "end": 2}
    assert perft(game, 2) == 2 + 3 + 2 == 7


def test_perft_of_a_finished_game_is_zero_beyond_depth_0() -> None:
    game = Game.from_position(
        {"players": 2, "active": 0, "hands": [[], []], "towers": [[], []], "draw": [],
         "over": True, "options": {"turn_limit": 1}}
    )  # fmt: skip
    assert perft(game, 0) == 1 and perft(game, 1) == 0 and perft(game, 3) == 0
