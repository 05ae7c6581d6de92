"""One or more tests per rule of RULES.md (R1-R24), named after the rule they check.

Positions are written in the FORMAT.md JSON through ``helpers.game``; a draw pile left empty
there means the position holds fewer than 54 cards, which FORMAT.md allows.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from gotown.engine import (
    COPIES,
    Action,
    Game,
    GoTownError,
    InvalidPositionError,
    Options,
    Outcome,
    Termination,
    View,
)

from .helpers import FULL_DECK, assert_illegal, game, hand, kind_counts, play, towers

A = Action
END = A.end_turn()


# -- R1 players ---------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4])
def test_r1_two_to_four_players_with_seats_0_to_n_minus_1(players: int) -> None:
    g = Game.new(players=players, seed=3)
    assert g.players == players
    assert len(g.to_position()["hands"]) == players
    assert 0 <= g.active < players


@pytest.mark.parametrize("players", [0, 1, 5, 8, "2", 2.0, None])
def test_r1_other_player_counts_are_refused(players: object) -> None:
    with pytest.raises(GoTownError):
        Game.new(players=players, seed=0)  # type: ignore[arg-type]
    with pytest.raises(InvalidPositionError, match=r"R1|integer"):
        Game.from_position({"players": players, "active": 0, "hands": [], "towers": []})


@pytest.mark.parametrize("players", [2, 3, 4])
def test_r1_play_goes_clockwise_to_seat_plus_one_mod_n(players: int) -> None:
    g = game(players=players, active=0, draw=["1"] * 4 + ["2"] * 4 + ["3"] * 4 + ["?"] * 4)
    seen = [g.active]
    for _ in range(players):
        g.apply(END)
        seen.append(g.active)
    assert seen == [*range(players), 0]


def test_r1_opponents_are_every_other_seat() -> None:
    g = game(players=4, active=2, hands=[["1"], ["1"], ["thief"], ["1"]])
    thieves = {a.target for a in g.legal_actions() if a.type == "thief"}
    assert thieves == {0, 1, 3}


# -- R2 cards -----------------------------------------------------------------------------
def test_r2_deck_has_54_cards_with_the_listed_counts() -> None:
    assert sum(COPIES) == 54
    assert Counter(
        {**{str(n): 4 for n in range(1, 9)}, "?": 4, "dog": 4, "bone": 2, "jackhammer": 3,
         "wrecking-ball": 1, "milkshake": 3, "donut-truck": 1, "thief": 3, "super-thief": 1}
    ) == FULL_DECK  # fmt: skip


@pytest.mark.parametrize("players", [2, 3, 4])
def test_r2_a_new_game_holds_exactly_the_54_cards(players: int) -> None:
    g = Game.new(players=players, seed=11)
    assert g.card_count() == 54
    assert kind_counts(g.to_position()) == FULL_DECK


@pytest.mark.parametrize(
    ("code", "copies"),
    [("1", 4), ("?", 4), ("dog", 4), ("bone", 2), ("jackhammer", 3), ("wrecking-ball", 1),
     ("milkshake", 3), ("donut-truck", 1), ("thief", 3), ("super-thief", 1)],
)  # fmt: skip
def test_r2_a_position_with_one_copy_too_many_is_invalid(code: str, copies: int) -> None:
    game(hands=[[code] * copies, []])  # exactly R2's count is fine
    with pytest.raises(InvalidPositionError, match=r"R2") as info:
        game(hands=[[code] * copies, [code]])
    assert repr(code) in str(info.value)


def test_r2_unknown_card_codes_are_invalid() -> None:
    for bad in ["9", "0", "joker", "Dog", "", 5, None]:
        with pytest.raises(InvalidPositionError, match=r"R2|card"):
            game(hands=[[bad], []])


# -- R3 zones -----------------------------------------------------------------------------
def test_r3_sizes_are_public_and_zones_hold_all_cards() -> None:
    g = Game.new(players=3, seed=5)
    v = g.view(1)
    assert v.hand_sizes == tuple(g.hand_sizes)
    assert v.draw_size == len(g.draw)
    assert sum(v.hand_sizes) + v.draw_size + len(v.discard) == 54


def test_r3_a_position_without_draw_fills_the_draw_pile_to_54() -> None:
    g = Game.from_position(
        {"players": 2, "active": 0, "hands": [["1", "8"], []], "towers": [[], [["3", "6"]]],
         "milkshakes": [0, 1], "discard": ["dog"], "seed": 4}
    )  # fmt: skip
    assert g.card_count() == 54
    assert kind_counts(g.to_position()) == FULL_DECK


def test_r3_milkshakes_and_donut_are_zones() -> None:
    g = game(hands=[["milkshake", "donut-truck"], []], draw=["1"])
    play(g, A.milkshake(1), A.donut_truck())
    p = g.to_position()
    assert p["milkshakes"] == [0, 1] and p["donut"] is True
    assert g.card_count() == 3


# -- R4 setup -----------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4])
def test_r4_deal_five_each_then_first_player_draws(players: int) -> None:
    g = Game.new(players=players, seed=9)
    sizes = list(g.hand_sizes)
    first = g.active
    assert sizes[first] == 6  # 5 dealt + the R7b draw of the first turn
    assert all(sizes[s] == 5 for s in range(players) if s != first)
    assert len(g.draw) == 54 - 5 * players - 1
    assert g.discard == []
    assert all(t == [] for t in g.towers)
    assert g.turn == 1


@pytest.mark.parametrize("players", [2, 3, 4])
def test_r4_r7_the_game_opens_with_turn_1_of_the_first_player_and_its_draw(players: int) -> None:
    for seed in range(6):
        g = Game.new(players=players, seed=seed)
        first = g.active
        opening = [e.to_json() for e in g.events(first)]
        assert opening[0] == {"type": "turn", "turn": 1, "seat": first, "extra": False}
        assert opening[1]["type"] == "draw" and opening[1]["seat"] == first
        assert len(opening) == 2 and g.version == 0 and g.actions == ()


def test_r6_each_action_counts_one_version_and_copies_keep_the_count() -> None:
    g = Game.new(players=3, seed=4)
    rng = random.Random(0)
    for count in range(1, 60):
        if g.is_over:
            break
        g.apply(rng.choice(g.legal_actions()))
        assert g.version == count == len(g.actions)
        assert g.copy().version == g.copy(history=False).version == g.view(0).version == count


def test_r4_first_player_is_random_over_seeds() -> None:
    firsts = {Game.new(players=4, seed=s).active for s in range(60)}
    assert firsts == {0, 1, 2, 3}


def test_r4_the_deal_is_shuffled_by_the_seed() -> None:
    hands = {tuple(Game.new(players=2, seed=s).to_position()["hands"][0]) for s in range(10)}
    assert len(hands) > 5
    assert Game.new(players=2, seed=7) == Game.new(players=2, seed=7)


# -- R5 floors and values -----------------------------------------------------------------
@pytest.mark.parametrize("pair", [("1", "8"), ("2", "7"), ("3", "6"), ("4", "5"), ("8", "1")])
def test_r5_number_pairs_adding_to_9_make_a_floor(pair: tuple[str, str]) -> None:
    g = game(hands=[list(pair), []])
    play(g, A.build(*pair))
    assert towers(g)[0] == [sorted(pair)]


@pytest.mark.parametrize("n", [str(n) for n in range(1, 9)])
def test_r5_a_joker_makes_a_floor_with_any_number(n: str) -> None:
    g = game(hands=[["?", n], []])
    assert A.build("?", n) in g.legal_actions()
    play(g, A.build(n, "?"))
    assert towers(g)[0] == [sorted([n, "?"])]


def test_r5_two_jokers_never_make_a_floor() -> None:
    g = game(hands=[["?", "?"], []])
    assert_illegal(g, A.build("?", "?"), "R5")
    with pytest.raises(InvalidPositionError, match="two jokers"):
        game(towers=[[["?", "?"]], []])


@pytest.mark.parametrize("pair", [("3", "5"), ("4", "4"), ("1", "7"), ("8", "8")])
def test_r5_pairs_not_adding_to_9_are_not_floors(pair: tuple[str, str]) -> None:
    g = game(hands=[list(pair), []])
    assert_illegal(g, A.build(*pair), "R5")
    with pytest.raises(InvalidPositionError, match="R5"):
        game(towers=[[list(pair)], []])


@pytest.mark.parametrize("special", ["dog", "thief", "bone", "milkshake"])
def test_r5_special_cards_never_make_floors(special: str) -> None:
    g = game(hands=[[special, "?", "1"], []])
    assert_illegal(g, A.build(special, "?"), "R5")
    assert_illegal(g, A.build(special, "1"), "R5")
    with pytest.raises(InvalidPositionError, match="R5"):
        game(towers=[[[special, "?"]], []])


def test_r5_a_joker_in_a_floor_is_fixed_by_its_partner() -> None:
    # Floor {3, ?}: the joker stands for 6. A 3 takes the joker (leaving the 3 = my card);
    # a 6 takes the 3 (leaving the joker, worth 6 = my card). Any other number steals nothing.
    g = game(hands=[[str(n) for n in range(1, 9)], []], towers=[[], [["3", "?"]]])
    steals = {a.card for a in g.legal_actions() if a.type == "steal"}
    assert steals == {"3", "6"}
    assert_illegal(g, A.steal("4", 1), "R11")
    assert_illegal(g, A.steal("5", 1), "R11")


def test_r5_out_of_a_floor_a_joker_is_wild_again() -> None:
    # A joker that stood for 6 is jack-hammered to the discard pile, reshuffled and drawn:
    # in the hand it builds with any number again.
    g = game(hands=[["jackhammer"], ["1", "1", "1"]], towers=[[], [["3", "?"]]],
             draw=[], discard=[])  # fmt: skip
    play(g, A.jackhammer(1), END)  # refill reshuffles 3, ?, jackhammer into the draw pile
    play(g, END)  # seat 1 passes back
    h = hand(g, 0)
    assert h["?"] == 1
    g2 = game(hands=[["?", "1", "2", "8"], []])
    builds = {a.cards for a in g2.legal_actions() if a.type == "build"}
    assert builds == {("1", "?"), ("2", "?"), ("8", "?"), ("1", "8")}


def test_r5_a_floor_may_carry_a_dog_in_a_position() -> None:
    g = game(towers=[[["1", "8", "dog"]], []])
    assert g.towers[0][0][2] == 1
    with pytest.raises(InvalidPositionError, match="R12"):
        game(towers=[[["1", "8", "dog", "dog"]], []])
    with pytest.raises(InvalidPositionError, match="R5"):
        game(towers=[[["1", "dog"]], []])
    with pytest.raises(InvalidPositionError, match="R5"):
        game(towers=[[["1", "8", "3"]], []])


# -- R6 a turn ----------------------------------------------------------------------------
def test_r6_any_number_of_actions_in_any_order_including_none() -> None:
    g = game(hands=[["1", "8", "2", "7", "dog"], []], draw=["4"] * 4 + ["3"] * 4)
    play(g, A.build("2", "7"), A.dog(0), A.build("1", "8"))
    assert g.active == 0 and len(g.towers[0]) == 2
    play(g, END)
    assert g.active == 1
    play(g, END)  # no action at all is fine
    assert g.active == 0


def test_r6_the_game_ends_the_instant_r20_holds_even_mid_turn() -> None:
    floors = [["1", "8"], ["2", "7"], ["3", "6"], ["4", "5"]]
    g = game(hands=[["4", "5", "thief", "dog"], ["1"]], towers=[floors, []], draw=["2"])
    play(g, A.build("4", "5"))
    assert g.outcome() == (0, "win")
    assert g.legal_actions() == ()
    assert_illegal(g, A.thief(1), "R20")
    assert_illegal(g, END, "R20")


# -- R7 start of turn ---------------------------------------------------------------------
def test_r7a_milkshake_turn_discards_draws_nothing_plays_nothing() -> None:
    g = game(hands=[[], ["1"]], milkshakes=[0, 1], draw=["5", "6", "7", "8"])
    play(g, END)  # seat 0 refills to 3 (8, 7, 6), seat 1's milkshake turn, back to seat 0
    p = g.to_position()
    assert p["active"] == 0
    assert p["milkshakes"] == [0, 0]
    assert p["discard"] == ["milkshake"]
    assert Counter(p["hands"][1]) == Counter(["1"])  # no draw, no refill (default)
    assert Counter(p["hands"][0]) == Counter(["8", "7", "6", "5"])  # seat 0 draws at R7b
    assert g.turn == 3
    ev = [e.type for e in g.events(None)]
    assert "milkshake-turn" in ev


def test_r7b_draw_one_card_when_below_8() -> None:
    g = game(hands=[["1", "1", "1"], ["2"] * 4 + ["3"] * 3], draw=["5", "6"])
    play(g, END)
    assert g.hand_sizes[1] == 8  # 7 + 1
    assert hand(g, 1)["5"] == 1


def test_r7b_no_draw_with_8_or_more() -> None:
    for size in (8, 9):
        cards = (["2"] * 4 + ["3"] * 4 + ["4"] * 4)[:size]
        g = game(hands=[["1", "1", "1"], cards], draw=["5", "6"])
        play(g, END)
        assert g.hand_sizes[1] == size
        assert len(g.draw) == 2


# -- R8 end of turn -----------------------------------------------------------------------
@pytest.mark.parametrize(("size", "drawn"), [(0, 3), (1, 2), (2, 1), (3, 0), (4, 0)])
def test_r8_refill_to_3_at_end_of_turn(size: int, drawn: int) -> None:
    g = game(hands=[["dog"] * size, ["1"] * 3], draw=["5", "6", "7", "8"])
    play(g, END)
    assert g.hand_sizes[0] == max(size, 3)
    assert len(g.draw) == 4 - drawn - 1  # seat 1 draws one at R7b


def test_r8_refill_stops_when_the_piles_run_out() -> None:
    g = game(hands=[[], ["1"] * 3], draw=["5"])
    play(g, END)
    assert g.hand_sizes == [1, 3]
    assert g.draw == [] and g.discard == []


def test_r8_no_hand_limit_and_no_discarding() -> None:
    g = game(players=3, hands=[["super-thief"] + ["2"] * 4 + ["3"] * 3, ["1"], ["4"]], draw=["5"])
    play(g, A.super_thief())
    assert g.hand_sizes[0] == 9
    play(g, END)
    assert g.hand_sizes[0] == 9  # kept
    assert not any(a.type == "discard" for a in g.legal_actions())


# -- R9 passing and drawing ---------------------------------------------------------------
def test_r9_donut_gives_the_same_seat_a_new_turn() -> None:
    g = game(players=3, hands=[["donut-truck"], ["1"], ["2"]], draw=["5", "6", "7", "8", "4"])
    play(g, A.donut_truck())
    assert g.donut
    play(g, END)
    assert g.active == 0 and not g.donut
    assert g.to_position()["discard"] == ["donut-truck"]
    assert g.turn == 2
    turn_events = [e for e in g.events(None) if e.type == "turn"]
    assert turn_events[-1].extra is True and turn_events[-1].seat == 0
    play(g, END)
    assert g.active == 1


def test_r9_empty_draw_pile_reshuffles_the_discard_pile() -> None:
    g = game(hands=[[], ["4"]], draw=["5"], discard=["1", "1", "1", "1", "2"])
    play(g, END)
    assert g.hand_sizes == [3, 2]
    assert len(g.draw) == 2 and g.discard == []
    assert any(e.type == "reshuffle" and e.count == 5 for e in g.events(None))


def test_r9_both_piles_empty_draw_does_nothing() -> None:
    g = game(hands=[["1"], ["4", "5"]])
    play(g, END)
    assert g.hand_sizes == [1, 2]
    assert g.active == 1 and not g.is_over  # (seat 1 can still build: no stalemate, R20b)


def test_r9_towers_dogs_milkshakes_and_donut_are_never_reshuffled() -> None:
    g = game(
        players=2,
        hands=[["donut-truck", "milkshake"], ["1"]],
        towers=[[["2", "7", "dog"]], [["3", "6"]]],
        discard=["4", "5"],
    )
    play(g, A.milkshake(1), A.donut_truck(), END)
    # The refill reshuffled only 4 and 5 (the donut lay on the table); then the donut was
    # discarded, and the extra turn's R7b draw reshuffled it alone and drew it.
    reshuffles = [e.count for e in g.events(None) if e.type == "reshuffle"]
    assert reshuffles == [2, 1]
    p = g.to_position()
    assert Counter(p["hands"][0]) == Counter(["4", "5", "donut-truck"])
    assert p["discard"] == [] and p["draw"] == []
    assert p["milkshakes"] == [0, 1]
    assert towers(g) == [[["2", "7", "dog"]], [["3", "6"]]]


# -- R10 build ----------------------------------------------------------------------------
def test_r10_build_becomes_the_new_top_floor() -> None:
    g = game(hands=[["4", "5", "?"], []], towers=[[["1", "8"]], []])
    play(g, A.build("4", "5"))
    assert towers(g)[0] == [["1", "8"], ["4", "5"]]
    assert hand(g, 0) == Counter(["?"])


def test_r10_build_needs_both_cards_in_hand() -> None:
    g = game(hands=[["4"], ["5"]])
    assert_illegal(g, A.build("4", "5"), "R10")
    g = game(hands=[["4", "?"], []])
    assert_illegal(g, A.build("?", "?"), "R5")
    g = game(hands=[["?"], []])
    assert_illegal(g, A.build("?", "3"), "R10")


# -- R11 steal-build ----------------------------------------------------------------------
def test_r11_steal_takes_the_matching_card_and_discards_the_other() -> None:
    g = game(hands=[["3"], []], towers=[[], [["1", "8"], ["3", "6"]]])
    play(g, A.steal("3", 1))
    assert towers(g) == [[["3", "6"]], [["1", "8"]]]
    assert g.to_position()["discard"] == ["3"]
    assert g.hand_sizes[0] == 0  # the stolen card never goes to the hand


def test_r11_steal_with_the_higher_card() -> None:
    g = game(hands=[["6"], []], towers=[[], [["3", "6"]]])
    play(g, A.steal("6", 1))
    assert towers(g) == [[["3", "6"]], []]
    assert g.to_position()["discard"] == ["6"]


def test_r11_never_with_a_joker_from_the_hand() -> None:
    g = game(hands=[["?"], []], towers=[[], [["3", "6"]]])
    assert_illegal(g, A.steal("?", 1), "R11")


def test_r11_a_stolen_joker_keeps_its_value() -> None:
    g = game(hands=[["3", "4", "5"], []], towers=[[], [["3", "?"]]])
    play(g, A.steal("3", 1))
    assert towers(g)[0] == [["3", "?"]]
    # The joker still stands for 6 in my tower: floor {3, ?} = 3 + 6.
    assert g.towers[0][0][:2] == (3, 0)


def test_r11_stealing_beside_a_joker_discards_the_joker() -> None:
    g = game(hands=[["6"], []], towers=[[], [["3", "?"]]])
    play(g, A.steal("6", 1))
    assert towers(g)[0] == [["3", "6"]]
    assert g.to_position()["discard"] == ["?"]


def test_r11_never_from_your_own_tower() -> None:
    g = game(hands=[["3"], []], towers=[[["3", "6"]], []])
    assert_illegal(g, A.steal("3", 0), "R11")


def test_r11_never_from_a_lower_floor() -> None:
    g = game(hands=[["3"], []], towers=[[], [["3", "6"], ["1", "8"]]])
    assert_illegal(g, A.steal("3", 1), "R11")


def test_r11_never_from_a_guarded_top_floor() -> None:
    g = game(hands=[["3"], []], towers=[[], [["3", "6", "dog"]]])
    assert_illegal(g, A.steal("3", 1), "R11")


def test_r11_never_from_an_empty_tower_and_needs_the_card() -> None:
    g = game(hands=[["3"], []])
    assert_illegal(g, A.steal("3", 1), "R11")
    g = game(hands=[["4"], []], towers=[[], [["3", "6"]]])
    assert_illegal(g, A.steal("3", 1), "R11")
    assert_illegal(g, A.steal("4", 1), "R11")


def test_r11_a_steal_build_can_win() -> None:
    floors = [["1", "8"], ["2", "7"], ["3", "6"], ["4", "5"]]
    g = game(hands=[["5"], []], towers=[floors, [["4", "5"]]])
    play(g, A.steal("5", 1))
    assert g.outcome() == (0, "win")


# -- R12 dog ------------------------------------------------------------------------------
def test_r12_dog_on_an_own_floor_at_any_height() -> None:
    g = game(hands=[["dog", "dog"], []], towers=[[["1", "8"], ["2", "7"], ["3", "6"]], []])
    assert {a.floor for a in g.legal_actions() if a.type == "dog"} == {0, 1, 2}
    play(g, A.dog(0), A.dog(2))
    assert towers(g)[0] == [["1", "8", "dog"], ["2", "7"], ["3", "6", "dog"]]


def test_r12_not_on_a_floor_that_already_has_a_dog() -> None:
    g = game(hands=[["dog"], []], towers=[[["1", "8", "dog"]], []])
    assert_illegal(g, A.dog(0), "R12")


def test_r12_not_on_an_opponents_floor_by_default() -> None:
    g = game(hands=[["dog"], []], towers=[[], [["1", "8"]]])
    assert_illegal(g, A.dog(0, target=1), "R12")
    assert_illegal(g, A.dog(0), "R12")  # no own floor


def test_r12_a_dog_on_the_own_tower_written_with_a_target_is_the_same_action() -> None:
    g = game(hands=[["dog"], []], towers=[[["1", "8"]], []])
    assert g.is_legal(A.dog(0, target=0))
    play(g, A.dog(0, target=0))
    assert g.towers[0][0][2] == 1


def test_r14_jackhammer_cannot_destroy_guarded_floor() -> None:
    g = game(hands=[["jackhammer"], []], towers=[[], [["1", "8"], ["3", "6", "dog"]]])
    assert_illegal(g, A.jackhammer(1), "R14")


def test_r12_dog_on_a_lower_floor_protects_only_once_it_is_the_top() -> None:
    g = game(
        hands=[["jackhammer", "jackhammer", "3", "1"], []],
        towers=[[], [["1", "8", "dog"], ["3", "6"]]],
    )
    # The top floor is unguarded: the dog below does not help it.
    play(g, A.jackhammer(1))
    assert towers(g)[1] == [["1", "8", "dog"]]
    # Now the guarded floor is the top: no jack-hammer, no steal.
    assert_illegal(g, A.jackhammer(1), "R14")
    assert_illegal(g, A.steal("1", 1), "R11")


def test_r12_dogs_cannot_be_moved_or_taken_back() -> None:
    g = game(hands=[["dog"], []], towers=[[["1", "8", "dog"], ["2", "7"]], []])
    types = {a.type for a in g.legal_actions()}
    assert types == {"dog", "end-turn"}
    assert [a for a in g.legal_actions() if a.type == "dog"] == [A.dog(1)]


# -- R13 bone -----------------------------------------------------------------------------
def test_r13_bone_removes_an_opponents_dog_at_any_floor() -> None:
    g = game(hands=[["bone"], []], towers=[[], [["1", "8", "dog"], ["3", "6"]]])
    assert [a for a in g.legal_actions() if a.type == "bone"] == [A.bone(1, 0)]
    play(g, A.bone(1, 0))
    assert towers(g)[1] == [["1", "8"], ["3", "6"]]  # the floor stays
    assert Counter(g.to_position()["discard"]) == Counter(["dog", "bone"])


def test_r13_bone_needs_an_opponents_dog() -> None:
    g = game(hands=[["bone"], []], towers=[[["1", "8", "dog"]], [["3", "6"]]])
    assert_illegal(g, A.bone(1, 0), "R13")  # no dog there
    assert_illegal(g, A.bone(0, 0), "R13")  # own dog (default bone_targets)
    assert_illegal(g, A.bone(1, 3), "R13")  # no such floor
    g = game(hands=[[], []], towers=[[], [["3", "6", "dog"]]])
    assert_illegal(g, A.bone(1, 0), "R13")  # no bone


def test_r13_bone_then_jackhammer_then_steal_in_one_turn() -> None:
    g = game(
        players=3,
        hands=[["bone", "jackhammer", "3", "8"], [], []],
        towers=[[["4", "5"]], [["3", "6"], ["2", "7", "dog"]], []],
        draw=["1", "2", "5", "6"],
    )
    assert_illegal(g, A.jackhammer(1), "R14")
    play(g, A.bone(1, 1), A.jackhammer(1), A.steal("3", 1))
    assert towers(g) == [[["4", "5"], ["3", "6"]], [], []]
    assert Counter(g.to_position()["discard"]) == Counter(
        ["dog", "bone", "2", "7", "jackhammer", "3"]
    )
    play(g, END)
    assert g.hand_sizes == [3, 1, 0] and g.active == 1


# -- R14 jack-hammer ----------------------------------------------------------------------
def test_r14_jackhammer_discards_the_top_floor_and_the_one_below_becomes_top() -> None:
    g = game(hands=[["jackhammer"], []], towers=[[], [["1", "8", "dog"], ["3", "?"]]])
    play(g, A.jackhammer(1))
    assert towers(g)[1] == [["1", "8", "dog"]]
    assert Counter(g.to_position()["discard"]) == Counter(["3", "?", "jackhammer"])


def test_r14_jackhammer_needs_an_opponents_floor() -> None:
    g = game(hands=[["jackhammer"], []], towers=[[["1", "8"]], []])
    assert_illegal(g, A.jackhammer(1), "R14")
    assert_illegal(g, A.jackhammer(0), "R14")


# -- R15 wrecking ball --------------------------------------------------------------------
def test_r15_wrecking_ball_destroys_a_guarded_top_floor_and_its_dog() -> None:
    g = game(hands=[["wrecking-ball"], []], towers=[[], [["1", "8", "dog"], ["3", "6", "dog"]]])
    play(g, A.wrecking_ball(1))
    assert towers(g)[1] == [["1", "8", "dog"]]  # the dog below stays
    assert Counter(g.to_position()["discard"]) == Counter(["3", "6", "dog", "wrecking-ball"])


def test_r15_wrecking_ball_needs_an_opponents_floor() -> None:
    g = game(hands=[["wrecking-ball"], []], towers=[[["1", "8"]], []])
    assert_illegal(g, A.wrecking_ball(1), "R15")
    assert_illegal(g, A.wrecking_ball(0), "R15")


# -- R16 thief ----------------------------------------------------------------------------
def test_r16_thief_takes_a_card_which_may_be_played_at_once() -> None:
    g = game(hands=[["thief", "6"], ["3"]], draw=["1", "1", "1", "2"])
    play(g, A.thief(1))
    assert hand(g, 0) == Counter(["6", "3"]) and g.hand_sizes[1] == 0
    assert g.to_position()["discard"] == ["thief"]
    play(g, A.build("3", "6"))
    assert len(g.towers[0]) == 1


def test_r16_thief_needs_a_victim_with_a_card() -> None:
    g = game(players=3, hands=[["thief"], [], ["1"]])
    assert_illegal(g, A.thief(1), "R16")
    assert_illegal(g, A.thief(0), "R16")
    assert [a for a in g.legal_actions() if a.type == "thief"] == [A.thief(2)]


def test_r16_the_card_is_chosen_uniformly_at_random() -> None:
    taken: Counter[str] = Counter()
    for seed in range(400):
        g = game(hands=[["thief"], ["1", "2", "3", "4"]], seed=seed)
        play(g, A.thief(1))
        taken.update(c for c in hand(g, 0))
    assert set(taken) == {"1", "2", "3", "4"}
    assert all(60 <= n <= 140 for n in taken.values()), taken


# -- R17 super-thief ----------------------------------------------------------------------
def test_r17_super_thief_takes_one_card_from_each_opponent_who_holds_one() -> None:
    g = game(players=4, hands=[["super-thief"], ["1", "1"], [], ["2"]])
    play(g, A.super_thief())
    assert hand(g, 0) == Counter(["1", "2"])
    assert g.hand_sizes == [2, 1, 0, 0]
    assert g.to_position()["discard"] == ["super-thief"]


def test_r17_with_two_players_it_acts_like_a_thief() -> None:
    g = game(hands=[["super-thief"], ["5", "5"]])
    play(g, A.super_thief())
    assert g.hand_sizes == [1, 1] and hand(g, 0) == Counter(["5"])


def test_r17_needs_an_opponent_with_a_card() -> None:
    g = game(players=3, hands=[["super-thief", "1"], [], []])
    assert_illegal(g, A.super_thief(), "R17")


def test_r17_hands_above_8_and_no_start_draw_at_8_or_more() -> None:
    g = game(
        players=3,
        hands=[["super-thief"] + ["1"] * 4 + ["2"] * 3, ["5"] * 3, ["6"] * 3],
        draw=["8", "8", "8", "8"],
    )
    play(g, A.super_thief())
    assert g.hand_sizes[0] == 9
    play(g, END, END, END)  # seats 1, 2 draw at R7b; seat 0 starts with 9 and draws nothing
    assert g.active == 0 and g.hand_sizes[0] == 9
    assert len(g.draw) == 2


# -- R18 milkshake ------------------------------------------------------------------------
def test_r18_milkshake_in_front_of_an_opponent_without_one() -> None:
    g = game(players=3, hands=[["milkshake", "milkshake"], [], []], milkshakes=[0, 1, 0])
    assert [a for a in g.legal_actions() if a.type == "milkshake"] == [A.milkshake(2)]
    assert_illegal(g, A.milkshake(1), "R18")
    assert_illegal(g, A.milkshake(0), "R18")
    play(g, A.milkshake(2))
    assert g.milkshakes == [0, 1, 1]
    assert g.hand_sizes[0] == 1


def test_r18_milkshake_makes_the_next_turn_a_milkshake_turn() -> None:
    g = game(players=3, hands=[["milkshake"], ["1"], ["2"]], draw=["3"] * 4 + ["4"] * 4)
    play(g, A.milkshake(1), END)
    assert g.active == 2  # seat 1 was skipped
    assert g.hand_sizes[1] == 1
    assert g.turn == 3


# -- R19 donut truck ----------------------------------------------------------------------
def test_r19_donut_turn_goes_on_then_refills_then_another_full_turn() -> None:
    g = game(hands=[["donut-truck", "1", "8"], ["2"]], draw=["5", "6", "7", "3"])
    play(g, A.donut_truck(), A.build("1", "8"))  # goes on normally
    play(g, END)
    # refill: 3 (hand was 0) then R7b of the extra turn: 1 more
    assert g.active == 0 and g.hand_sizes[0] == 4 and g.draw == []
    assert g.hand_sizes[1] == 1


def test_r19_a_pending_milkshake_is_not_used_up_by_a_donut_skip() -> None:
    g = game(hands=[["milkshake", "donut-truck"], ["2"]], draw=["1"] * 4 + ["3"] * 4)
    play(g, A.milkshake(1), A.donut_truck(), END)
    assert g.active == 0 and g.milkshakes == [0, 1]  # the extra turn; milkshake still there
    play(g, END)  # seat 1's real turn is the milkshake turn, then back to 0
    assert g.active == 0 and g.milkshakes == [0, 0]
    assert g.hand_sizes[1] == 1
    kinds = [(e.type, e.seat) for e in g.events(None) if e.type in ("turn", "milkshake-turn")]
    assert kinds == [("turn", 0), ("turn", 1), ("milkshake-turn", 1), ("turn", 0)]


def test_r19_only_one_donut_on_the_table() -> None:
    g = game(hands=[["donut-truck"], []])
    play(g, A.donut_truck())
    assert_illegal(g, A.donut_truck(), "R19")


# -- R20 winning --------------------------------------------------------------------------
FOUR = [["1", "8"], ["2", "7"], ["3", "6"], ["4", "5"]]


def test_r20_fifth_floor_wins_at_once() -> None:
    g = game(hands=[["4", "5", "1", "8"], []], towers=[FOUR, []], draw=["2"])
    play(g, A.build("4", "5"))
    assert g.outcome() == (0, "win")
    assert g.hand_sizes[0] == 2 and g.draw  # nothing more happens: no refill
    assert g.events(None)[-1].type == "end"


def test_r20_short_game_wins_with_four_floors() -> None:
    g = game(hands=[["4", "5"], []], towers=[FOUR[:3], []], options={"win_floors": 4})
    play(g, A.build("4", "5"))
    assert g.outcome() == (0, "win")


def test_r20_four_floors_do_not_win_by_default() -> None:
    g = game(hands=[["4", "5"], []], towers=[FOUR[:3], []])
    play(g, A.build("4", "5"))
    assert not g.is_over and g.outcome() is None


def test_r20_lost_floors_do_not_count() -> None:
    g = game(hands=[["jackhammer"], ["4", "5", "4", "5"]], towers=[[], FOUR], draw=["2"] * 3)
    play(g, A.jackhammer(1), END)
    assert len(g.towers[1]) == 3
    play(g, A.build("4", "5"))
    assert not g.is_over
    play(g, A.build("4", "5"))
    assert g.outcome() == (1, "win")


def test_r20_a_dog_does_not_trigger_a_win_check() -> None:
    g = game(hands=[["dog"], []], towers=[FOUR, []])
    play(g, A.dog(3))
    assert not g.is_over


def test_r20_a_position_with_a_won_tower_is_invalid_unless_it_records_the_win() -> None:
    five = [*FOUR, ["1", "8"]]
    with pytest.raises(InvalidPositionError, match="R20"):
        game(towers=[five, []])
    g = game(towers=[five, []], winner=0)
    assert g.is_over and g.legal_actions() == ()


# -- R21 legality -------------------------------------------------------------------------
def test_r21_a_card_that_can_do_nothing_stays_in_the_hand() -> None:
    g = game(
        hands=[["thief", "bone", "jackhammer", "wrecking-ball", "dog", "super-thief", "?"], []]
    )
    assert g.legal_actions() == (END,)


def test_r21_jackhammer_illegal_when_every_top_floor_is_guarded() -> None:
    g = game(players=3, hands=[["jackhammer"], [], []],
             towers=[[], [["1", "8", "dog"]], [["2", "7", "dog"]]])  # fmt: skip
    assert g.legal_actions() == (END,)


def test_r21_ending_the_turn_is_always_legal() -> None:
    for seed in range(5):
        g = Game.new(players=3, seed=seed)
        assert END in g.legal_actions()


def test_r21_no_voluntary_discard_action_exists() -> None:
    from gotown.engine import ACTION_TYPES, InvalidActionError

    assert "discard" not in ACTION_TYPES
    with pytest.raises(InvalidActionError):
        Action.from_json({"type": "discard", "card": "1"})


def test_r21_only_the_active_seat_acts() -> None:
    # Actions carry no seat: whatever is applied is played by the active seat, from its hand.
    g = game(hands=[[], ["1", "8"]])
    assert_illegal(g, A.build("1", "8"), "R10")
    assert not g.view(1).is_my_turn and g.view(0).is_my_turn


# -- R22 information ----------------------------------------------------------------------
def test_r22_a_view_holds_only_the_seats_own_hand() -> None:
    g = game(players=3, hands=[["1"], ["2", "3"], ["4"]], draw=["5", "6"])
    v = g.view(1)
    assert v.hand == ("2", "3")
    blob = repr(v.to_json())
    assert "'4'" not in blob and "'5'" not in blob and "'6'" not in blob
    assert g.public_view().hand is None
    assert v.hand_sizes == (1, 2, 1) and v.draw_size == 2


def test_r22_a_thief_card_is_seen_by_thief_and_victim_only() -> None:
    g = game(players=3, hands=[["thief"], ["7"], ["1"]])
    play(g, A.thief(1))

    def stolen(seat: int | None) -> str | None:
        (e,) = [e for e in g.events(seat) if e.type == "stolen"]
        return e.card

    assert stolen(0) == "7" and stolen(1) == "7"
    assert stolen(2) is None and stolen(None) is None


def test_r22_a_drawn_card_is_seen_by_the_drawer_only() -> None:
    g = game(players=3, hands=[[], ["1"], ["2"]], draw=["5", "6", "7", "8"])
    play(g, END)
    for seat in (None, 0, 1, 2):
        for e in g.events(seat):
            if e.type == "draw":
                assert (e.card is not None) == (seat == e.seat)


def test_r22_every_hand_is_shown_to_everyone_once_the_game_is_over() -> None:
    g = game(players=3, hands=[["4", "5", "1"], ["7", "thief"], ["?"]], towers=[FOUR, [], []])
    assert all(g.view(seat).hands is None for seat in (None, 0, 1, 2))  # (while it lasts)
    play(g, A.build("4", "5"))
    assert g.is_over
    for seat in (None, 0, 1, 2):
        view = g.view(seat)
        assert view.hands == (("1",), ("7", "thief"), ("?",))
        assert View.from_json(view.to_json()) == view  # (and the same once sent)


# -- R23 options --------------------------------------------------------------------------
def test_r23_defaults_are_the_faithful_reading() -> None:
    o = Options()
    assert o.to_json() == {
        "win_floors": 5, "first_player": "random", "dog_placement": "own", "dogs_per_floor": 1,
        "bone_targets": "opponents", "milkshake_stacking": "forbid",
        "milkshake_blocks_refill": True, "turn_limit": None,
    }  # fmt: skip


@pytest.mark.parametrize(
    "bad",
    [{"win_floors": 3}, {"win_floors": 6}, {"first_player": "last"}, {"first_player": 4},
     {"dog_placement": "all"}, {"dogs_per_floor": 2}, {"dogs_per_floor": True},
     {"bone_targets": "self"}, {"milkshake_stacking": "yes"}, {"milkshake_blocks_refill": 1},
     {"turn_limit": 0}, {"turn_limit": "10"}, {"colour": "red"}],
)  # fmt: skip
def test_r23_unknown_options_and_values_are_refused(bad: dict[str, object]) -> None:
    with pytest.raises(InvalidPositionError, match="R23"):
        Options.from_json(bad)
    with pytest.raises(GoTownError):
        Game.new(players=2, seed=0, options=bad)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_r23_first_player_fixed_seat(players: int) -> None:
    for seat in range(players):
        for seed in range(3):
            assert Game.new(players, seed, {"first_player": seat}).active == seat
    with pytest.raises(GoTownError, match="R23"):
        Game.new(players, 0, {"first_player": players})


def test_r23_win_floors_4() -> None:
    g = game(hands=[["4", "5"], []], towers=[FOUR[:3], []], options={"win_floors": 4})
    play(g, A.build("5", "4"))
    assert g.outcome() == (0, "win")
    with pytest.raises(InvalidPositionError, match="R20"):
        game(towers=[FOUR, []], options={"win_floors": 4})


def test_r23_dog_placement_any_guards_an_opponents_floor() -> None:
    g = game(hands=[["dog"], []], towers=[[["1", "8"]], [["2", "7"]]],
             options={"dog_placement": "any"})  # fmt: skip
    dogs = {a for a in g.legal_actions() if a.type == "dog"}
    assert dogs == {A.dog(0), A.dog(0, target=1)}
    play(g, A.dog(0, target=1))
    assert towers(g)[1] == [["2", "7", "dog"]]


def test_r23_dogs_per_floor_unlimited_bone_removes_one_ball_all() -> None:
    opts = {"dogs_per_floor": "unlimited"}
    g = game(hands=[["dog", "dog"], []], towers=[[["1", "8", "dog"]], []], options=opts)
    play(g, A.dog(0), A.dog(0))
    assert towers(g)[0] == [["1", "8", "dog", "dog", "dog"]]
    g = game(hands=[["bone", "wrecking-ball"], []],
             towers=[[], [["2", "7", "dog"], ["1", "8", "dog", "dog", "dog"]]],
             options=opts)  # fmt: skip
    play(g, A.bone(1, 1))
    assert towers(g)[1][1] == ["1", "8", "dog", "dog"]
    play(g, A.wrecking_ball(1))
    assert towers(g)[1] == [["2", "7", "dog"]]
    assert Counter(g.to_position()["discard"]) == Counter(
        ["dog", "bone", "1", "8", "dog", "dog", "wrecking-ball"]
    )
    assert g.card_count() == 10


def test_r23_dogs_per_floor_unlimited_still_guards() -> None:
    g = game(hands=[["jackhammer", "1"], []], towers=[[], [["1", "8", "dog", "dog"]]],
             options={"dogs_per_floor": "unlimited"})  # fmt: skip
    assert_illegal(g, A.jackhammer(1), "R14")
    assert_illegal(g, A.steal("1", 1), "R11")


def test_r23_bone_targets_any_includes_own_dogs() -> None:
    g = game(hands=[["bone"], []], towers=[[["1", "8", "dog"]], [["2", "7", "dog"]]],
             options={"bone_targets": "any"})  # fmt: skip
    assert {a for a in g.legal_actions() if a.type == "bone"} == {A.bone(0, 0), A.bone(1, 0)}
    play(g, A.bone(0, 0))
    assert towers(g)[0] == [["1", "8"]]


@pytest.mark.parametrize("stacking", ["merge", "stack"])
def test_r23_milkshake_stacking_allows_a_second_milkshake(stacking: str) -> None:
    g = game(players=2, hands=[["milkshake", "milkshake"], ["1"]],
             draw=["2"] * 4 + ["3"] * 4, options={"milkshake_stacking": stacking})  # fmt: skip
    play(g, A.milkshake(1), A.milkshake(1))
    assert g.milkshakes == [0, 2]
    play(g, END)
    if stacking == "merge":  # both go in one skipped turn
        assert g.milkshakes == [0, 0] and g.active == 0
        play(g, END)
        assert g.active == 1
    else:  # one skipped turn each
        assert g.milkshakes == [0, 1] and g.active == 0
        play(g, END)
        assert g.milkshakes == [0, 0] and g.active == 0
        play(g, END)
        assert g.active == 1
    assert Counter(g.to_position()["discard"])["milkshake"] == 2
    assert g.hand_sizes[1] == 2  # only its one real turn drew a card


def test_r23_milkshake_blocks_refill_false_refills_to_3() -> None:
    g = game(hands=[["1", "1", "1"], []], milkshakes=[0, 1], draw=["5", "6", "7", "8"],
             options={"milkshake_blocks_refill": False})  # fmt: skip
    play(g, END)
    assert g.active == 0
    assert g.hand_sizes == [4, 3]  # seat 1 refilled to 3 but drew no R7b card


def test_r23_turn_limit_ends_with_no_winner() -> None:
    g = game(hands=[["1"], ["2"]], draw=["3"] * 4 + ["4"] * 4, options={"turn_limit": 2})
    play(g, END)
    assert g.turn == 2 and not g.is_over
    play(g, END)
    assert g.is_over and g.outcome() == (None, "turn-limit")
    assert g.legal_actions() == ()
    assert_illegal(g, END, "R23")


@pytest.mark.parametrize(
    ("towers", "hands", "options", "outcome"),
    [
        ([FOUR, []], [["4", "5"], []], {}, Outcome(0, Termination.WIN)),
        ([[], []], [["1"], ["2"]], {"turn_limit": 1}, Outcome(None, Termination.TURN_LIMIT)),
    ],
)
def test_r20_r23_one_outcome_says_how_the_game_ended(
    towers: list[list[list[str]]],
    hands: list[list[str]],
    options: dict[str, int],
    outcome: Outcome,
) -> None:
    """``outcome()`` is the one answer: ``is_over``, the views, the position and the last event
    all say the same, and its reason equals the JSON word."""
    g = game(hands=hands, towers=towers, draw=["?"] * 4, options=options)
    assert g.outcome() is None and not g.is_over and g.public_view().outcome is None
    play(g, A.build("4", "5") if outcome.winner == 0 else END)
    got = g.outcome()
    assert got == outcome and g.is_over
    assert got is not None and type(got.reason) is Termination
    assert got.reason == {None: "turn-limit", 0: "win"}[got.winner]
    for seat in (None, 0, 1):
        view = g.view(seat)
        assert view.outcome == got and (view.winner, view.over) == (got.winner, True)
    assert g.events(None)[-1].to_json() == {
        "type": "end",
        "winner": got.winner,
        "reason": got.reason.value,
    }
    again = Game.from_position(g.to_position())
    assert again.outcome() == got and again == g


def test_r23_turn_limit_counts_milkshake_turns() -> None:
    g = game(hands=[["milkshake"], ["2"]], draw=["3"] * 4, options={"turn_limit": 2})
    play(g, A.milkshake(1), END)  # turn 2 is seat 1's milkshake turn: then the limit
    assert g.is_over and g.outcome() == (None, "turn-limit")
    assert g.turn == 2


def test_r23_turn_limit_counts_from_the_positions_turn() -> None:
    g = game(hands=[["1"], ["2"]], draw=["3"] * 4, turn=5, options={"turn_limit": 6})
    play(g, END)
    assert not g.is_over and g.turn == 6
    play(g, END)
    assert g.is_over


def test_r23_turn_limit_counts_donut_extra_turns() -> None:
    g = game(hands=[["donut-truck"], ["2"]], draw=["3"] * 4, options={"turn_limit": 2})
    play(g, A.donut_truck(), END)
    assert g.turn == 2 and g.active == 0
    play(g, END)
    assert g.is_over


def test_r23_turn_limit_ends_the_game_before_passing_so_the_donut_stays() -> None:
    """R23: the game ends when turn N ends, instead of beginning N+1; the donut truck goes to
    the discard pile only when play passes (R9), which does not happen."""
    g = game(hands=[["donut-truck", "1", "1"], ["2"]], draw=["3"] * 4,
             options={"turn_limit": 1})  # fmt: skip
    play(g, A.donut_truck(), END)
    assert g.is_over and g.outcome() == (None, "turn-limit") and g.turn == 1
    position = g.to_position()
    assert position["donut"] is True and "donut-truck" not in position["discard"]
    assert g.hand_sizes == [3, 1]  # the end-of-turn refill (R8) still happened


# -- R24 translations ---------------------------------------------------------------------
def test_r24_exactly_3_cards_at_end_of_turn_draws_nothing() -> None:
    g = game(hands=[["1", "1", "1"], ["2"] * 3], draw=["5", "6"])
    play(g, END)
    assert g.hand_sizes == [3, 4] and len(g.draw) == 1


def test_r24_used_attack_cards_and_thieves_go_to_the_discard_pile() -> None:
    g = game(players=3, hands=[["jackhammer", "wrecking-ball", "thief"], ["1"], []],
             towers=[[], [["1", "8"], ["2", "7"]], []])  # fmt: skip
    play(g, A.jackhammer(1), A.wrecking_ball(1), A.thief(1))
    assert Counter(g.to_position()["discard"]) == Counter(
        ["2", "7", "jackhammer", "1", "8", "wrecking-ball", "thief"]
    )
    assert g.draw == []


def test_r2_pairs_share_a_colour() -> None:
    from gotown.engine.cards import pair_colour

    for n in range(1, 9):
        assert pair_colour(n) == pair_colour(9 - n)
    assert len({pair_colour(n) for n in range(1, 9)}) == 4


def test_r22_public_facts_are_the_same_for_every_seat() -> None:
    g = game(
        players=3,
        hands=[["thief", "milkshake", "1", "8", "donut-truck"], ["7"], ["2"]],
        towers=[[], [["3", "6", "dog"]], []],
        discard=["bone"],
        draw=["5", "6", "4", "4"],
    )
    play(g, "thief@1", "milkshake@2", "1+8", "donut-truck")
    views = [g.view(s).to_json() for s in (None, 0, 1, 2)]
    for key in ("towers", "milkshakes", "donut", "discard", "draw_size", "hand_sizes"):
        assert all(v[key] == views[0][key] for v in views), key
    assert views[0]["discard"] == ["bone", "thief"] and views[0]["donut"] is True
    assert views[0]["milkshakes"] == [0, 0, 1]
    actions = [[e for e in v["events"] if e["type"] == "action"] for v in views]
    assert all(a == actions[0] for a in actions) and len(actions[0]) == 4


# -- R20b stalemate: a position nothing can change any more ends the game ---------------------
STUCK = [["1", "1", "1", "1", "2", "2", "2", "2"], ["3", "3", "3", "3", "4", "4", "4", "bone"]]
STALEMATE = Outcome(None, Termination.STALEMATE)


def test_r20b_two_full_hands_that_can_do_nothing_end_the_game_when_the_turn_ends() -> None:
    # Hands of 8 draw nothing (R7b), no pair adds up to 9 and there is no floor to steal (R21):
    # only ending the turn is legal, for ever, although the draw pile holds cards.
    g = game(hands=[list(h) for h in STUCK], draw=["8", "7"])
    assert g.is_stalemate() and not g.is_over  # (during the turn: it ends when the turn does)
    before = g.to_position()
    play(g, END)
    assert g.outcome() == STALEMATE
    after = g.to_position()
    # Over at once, before any passing: the same seat and turn, every zone as it was.
    assert {**after, "over": None, "winner": None} == {**before, "over": None, "winner": None}
    assert after["over"] is True and after["winner"] is None
    assert g.legal_actions() == ()
    assert_illegal(g, END, "R20b")
    view = g.view(None)
    assert view.over and view.reason == "stalemate" and view.outcome == STALEMATE
    assert view.hands is not None  # every hand is laid down, as at any end (R22)
    assert g.events(None)[-1].to_json() == {"type": "end", "winner": None, "reason": "stalemate"}


@pytest.mark.parametrize(
    "change",
    [
        {"draw": ["8"], "hands": [STUCK[0][:7], STUCK[1]]},  # seat 0 draws the 8 next turn (R7b)
        {"hands": [STUCK[0], [*STUCK[1][:7], "5"]]},  # seat 1 could build 4+5 in its turn
        {"towers": [[], [["8", "?"]]]},  # seat 0 steals the 8 with a 1 (R11)
        {"hands": [[*STUCK[0][:7], "thief"], STUCK[1]]},  # a thief always has a victim here
        {"hands": [STUCK[0][:7], STUCK[1][:7]], "draw": [], "discard": ["5"]},  # reshuffle (R9)
    ],
)
def test_r20b_a_position_that_can_still_change_is_no_stalemate(change: dict[str, object]) -> None:
    fields: dict[str, object] = {"hands": [list(h) for h in STUCK], "draw": ["8"]}
    fields.update(change)
    g = game(**fields)
    assert not g.is_stalemate()
    play(g, END)
    assert not g.is_over and g.active == 1


@pytest.mark.parametrize(
    ("change", "turns"),
    [
        ({"milkshakes": [0, 1]}, 2),  # seat 1's milkshake turn (R7a) ends, then the game
        ({"donut": True}, 2),  # the donut's extra turn (R19) ends, then the game
    ],
)
def test_r20b_a_pending_milkshake_or_donut_is_spent_first(
    change: dict[str, object], turns: int
) -> None:
    g = game(hands=[list(h) for h in STUCK], draw=["8"], **change)
    assert not g.is_stalemate()
    play(g, END)
    if "donut" in change:  # the extra turn is under way: only its end can end the game
        assert not g.is_over and g.active == 0 and g.turn == turns
        play(g, END)
    assert g.outcome() == STALEMATE and g.turn == turns


def test_r20b_small_hands_with_empty_piles_and_a_guarded_floor_are_a_stalemate() -> None:
    # No card to draw anywhere (R9), so hands under 8 stay as they are; a dog guards the only
    # floor a 1 could steal (R11).
    g = game(hands=[["1", "2"], ["3", "bone"]], towers=[[], [["8", "1", "dog"]]], draw=[])
    assert g.is_stalemate()
    play(g, END)
    assert g.outcome() == STALEMATE and g.hand_sizes == [2, 2]
    unguarded = game(hands=[["1", "2"], ["3", "bone"]], towers=[[], [["8", "1"]]])
    assert not unguarded.is_stalemate()


def test_r20b_a_seat_that_merely_chose_to_end_its_turn_is_no_stalemate() -> None:
    # Seat 0 could build 4+5 and ends its turn instead: the game goes on (R23 turn_limit is
    # the safeguard for players who only end their turns).
    g = game(hands=[["4", "5"], ["1"]])
    play(g, END, END)
    assert not g.is_over and g.active == 0 and g.view(None).frozen_turns == 2


def test_r20b_a_won_game_is_no_stalemate() -> None:
    g = game(hands=[["1", "8"], ["2"]], towers=[[["6", "3"]] * 4, []])
    play(g, "1+8")
    assert g.outcome() == (0, "win") and not g.is_stalemate()


def test_r20b_comes_before_the_turn_limit_when_both_hold() -> None:
    g = game(hands=[list(h) for h in STUCK], draw=["8"], options={"turn_limit": 1})
    play(g, END)
    assert g.outcome() == STALEMATE
    assert_illegal(g, END, "R20b")


def test_r20b_a_position_over_without_a_winner_is_read_back_with_its_reason() -> None:
    stalemate = game(hands=[list(h) for h in STUCK], draw=["8"])
    play(stalemate, END)
    again = Game.from_position(stalemate.to_position())
    assert again == stalemate and again.outcome() == STALEMATE
    limit = game(hands=[["4", "5"], []], draw=["8"] * 3, options={"turn_limit": 1})
    play(limit, END)
    assert Game.from_position(limit.to_position()).outcome() == (None, "turn-limit")


def test_r20b_stalemates_met_in_random_play_can_never_change() -> None:
    """Over random two-player games (where they are commonest): every game that ends in a
    stalemate ends in a position where ending turns, all that is left, changes nothing for two
    rounds, and such games do occur."""
    found = 0
    for seed in range(600):
        g = Game.new(players=2, seed=seed, options={"turn_limit": 300})
        rng = random.Random(seed)
        while not g.is_over:
            legal = g.legal_actions()
            g.apply(legal[rng.randrange(len(legal))])
        if g.outcome() != STALEMATE:
            continue
        found += 1
        final = g.to_position()
        del final["over"], final["winner"]
        for seat in range(g.players):  # each seat, in its turn, could only end it (R21)
            turn = Game.from_position({**final, "active": seat})
            assert turn.legal_actions() == (END,) and turn.is_stalemate()
            play(turn, END)  # and ending it changes nothing (R7b, R8, R9)
            after = turn.to_position()
            for key in ("hands", "towers", "draw", "discard", "milkshakes", "donut"):
                assert after[key] == final[key], key
    assert found >= 3


def test_r7b_r21_frozen_turns_count_the_turns_that_were_only_ended() -> None:
    """With 8 cards no seat draws (R7b), and seat 0 ends its turns although it could build: every
    turn is only ended (no stalemate, R20b), and the views count them from the public events."""
    stuck = [["1", "1", "1", "2", "2", "2", "4", "5"], ["3", "3", "3", "3", "4", "4", "4", "6"]]
    g = game(hands=stuck, draw=["5"])
    assert g.view(0).frozen_turns == 0
    for turns in range(1, 4):
        play(g, END)
        assert not g.is_over
        assert [g.view(seat).frozen_turns for seat in (None, 0, 1)] == [turns] * 3
    fresh = Game.new(players=2, seed=1)
    play(fresh, END)  # the next seat draws (R7b): the game changed
    assert fresh.view(None).frozen_turns == 0
    built = game(hands=[["?", "8", *stuck[0]], stuck[1]], draw=["5"])
    play(built, A.build("8", "?"), END)  # a turn that built something was not only ended
    assert built.view(None).frozen_turns == 0
    play(built, END)
    assert built.view(None).frozen_turns == 1


def test_r23_options_cannot_change_under_a_game_and_its_copies() -> None:
    """Copies share their Options (search makes many): they are frozen and hashable."""
    g = Game.new(players=2, seed=1, options={"win_floors": 4})
    copy = g.copy(history=False)
    assert copy.options is g.options and hash(g.options) == hash(Options(win_floors=4))
    with pytest.raises(AttributeError):
        g.options.win_floors = 5  # type: ignore[misc]
    assert copy.options.win_floors == 4


def test_a_game_from_a_view_starts_from_seed_0_unless_given_one() -> None:
    g = Game.new(players=2, seed=3)
    position = g.to_position()
    guess = ([None, position["hands"][1]], position["draw"])
    assert Game.from_view(g.view(0), *guess).seed == 0
    assert Game.from_view(g.view(0), *guess, seed=g.seed) == g


def test_r5_the_joker_values_table_is_what_the_engine_plays() -> None:
    """JOKER_VALUES (what the page is told a joker stands for) agrees with play: from a floor
    of n and a joker, a steal takes the joker with an n, or the n with the joker's value
    (R11), so the steal-builds offered are exactly those two cards."""
    from gotown.engine import JOKER_VALUES

    for n in range(1, 9):
        game = Game.from_position(
            {
                "players": 2,
                "active": 0,
                "hands": [[str(k) for k in range(1, 9)], []],
                "towers": [[], [[str(n), "?"]]],
            }
        )
        steals = {a.card for a in game.legal_actions() if a.type == "steal"}
        assert steals == {str(n), str(JOKER_VALUES[str(n)])}, n
