"""The game in plain words (shared by the full screen and --plain)."""

from __future__ import annotations

from dataclasses import replace

from gotown.engine import Action, Event, Game, Options
from gotown.tui import words


def groups_of(hand: tuple[str, ...]) -> list[list[str]]:
    found = words.hand_groups(hand)
    assert sorted(i for group in found for i in group) == list(range(len(hand)))
    return [[hand[i] for i in group] for group in found]


def test_r5_hand_groups_lay_out_as_many_floors_as_the_cards_make():
    assert groups_of(("1", "3", "6", "8", "dog")) == [["1", "8"], ["3", "6"], ["dog"]]
    assert groups_of(("?", "2", "5", "7")) == [["2", "7"], ["5", "?"]]
    # Two jokers split 3+6 into two floors: three floors, not two and a lone joker.
    assert sorted(map(sorted, groups_of(("?", "?", "3", "4", "5", "6")))) == [
        ["3", "?"], ["4", "5"], ["6", "?"],
    ]  # fmt: skip
    assert groups_of(("?", "?")) == [["?"], ["?"]]  # two jokers never make a floor


def test_a_joker_floor_shows_the_value_it_stands_for():
    assert words.floor_text(("3", "?")) == "3+?=6"
    assert words.floor_text(("4", "5", "dog")) == "4+5+D"


def test_r22_the_log_says_what_the_seat_saw_and_no_more():
    """A card another seat drew is "a card" in the log; one's own draw is named."""
    game = Game.new(players=2, seed=4, options=Options(first_player=0))
    game.apply(Action.end_turn())
    names = ["Ann", "Bob"]
    mine, theirs = game.view(0), game.view(1)
    draws = [e for e in mine.events if e.type == "draw" and e.seat == 1]
    assert words.describe_event(draws[-1], mine, names) == "Bob drew a card."
    own = [e for e in theirs.events if e.type == "draw" and e.seat == 1][-1]
    assert own.card is not None
    assert words.describe_event(own, theirs, names).startswith("You drew a")


def test_a_steal_in_the_log_names_the_card_by_its_value_and_the_actor_s_card():
    game = Game.new(players=2, seed=4, options=Options(first_player=0))
    view = game.view(0)
    steal = Action.steal("1", target=0)
    said = words.describe_action(steal, view, ["Ann", "Bob"], actor=1, now=False)
    assert said == "steal-build: their 1 + the card worth 8 on your top"


def test_the_reader_s_language_comes_from_the_locale_when_the_table_speaks_it():
    assert words.reader_language({"LANG": "de_CH.UTF-8"}) == "de"
    assert words.reader_language({"LC_ALL": "pl_PL", "LANG": "fr_FR"}) == "pl"
    assert words.reader_language({"GOTOWN_LANG": "nl", "LC_ALL": "pl_PL"}) == "nl"
    assert words.reader_language({"LANG": "ja_JP.UTF-8"}) == "en"  # not one of the eight
    assert words.reader_language({"LANG": "C.UTF-8"}) == "en"
    assert words.reader_language({}) == "en"


def test_the_rules_screen_speaks_each_language_of_the_web_table():
    # Each card by its name in that language's rulebook (RULES.md, R2), then the actions as
    # they are typed, which are the same in every language.
    names = {"fr": "Chien de garde", "de": "Wachhund", "cs": "Pes", "it": "Cane da guardia",
             "es": "Perro guardián", "nl": "Waakhond", "pl": "Pies stróżujący"}  # fmt: skip
    for lang, dog in names.items():
        text = words.rules_text(None, lang)
        assert dog in text, lang
        assert "bone#1@2" in text and "(R13)" in text, lang
        assert "<" not in text and "GoTown</a>" not in text, lang
    english = words.rules_text(None, "en")
    assert "A floor is two cards that add up to 9" in english and "bone#1@2" in english


def test_the_rules_screen_gives_each_card_its_worked_example_after_its_rule():
    # The page's example sits inside the card's list item: the screen shows the rule, then
    # the example as a paragraph of its own.
    blocks = words.rules_page_text("fr").split("\n\n")
    rule = blocks.index("- Milk-shake : offrez-le à un adversaire ; il passera son prochain tour.")
    assert blocks[rule + 1].startswith("Exemple : vous offrez un milk-shake à Ben.")
    assert sum(block.startswith("Exemple : ") for block in blocks) == 11


def test_r18_a_milkshake_skips_the_turn_of_the_one_who_gets_it():
    game = Game.new(players=3, seed=4, options=Options(first_player=0))
    shake = Action.milkshake(target=1)
    names = ["Ann", "Bob", "Cy"]
    said = {seat: words.describe_action(shake, game.view(seat), names, actor=0, now=False)
            for seat in (0, 1, 2)}  # fmt: skip
    assert said[0] == "milkshake for Bob (skips their next turn)"
    assert said[1] == "milkshake for you (skips your next turn)"
    assert said[2] == said[0]


def test_a_game_without_a_winner_says_why_by_its_reason():
    """R20b and R23 each in their own words; an older end with no reason was the turn limit
    (the only way to end without a winner before R20b)."""
    names = ["Ann", "Bob"]
    view = Game.new(players=2, seed=1).view(0)
    stuck = replace(view, over=True, reason="stalemate")
    assert words.outcome_text(stuck, names) == words.NO_WINNER["stalemate"][1]
    assert (
        "stuck" in words.NO_WINNER["stalemate"][1] and "(R20b)" in words.NO_WINNER["stalemate"][1]
    )
    limit = replace(view, over=True, reason="turn-limit")
    assert words.outcome_text(limit, names).endswith("turn limit, with no winner (R23).")
    for reason, (title, sentence) in words.NO_WINNER.items():
        end = Event("end", winner=None, reason=reason)
        assert words.describe_event(end, view, names) == sentence
        assert words.result_text(None, reason, names) == title
    assert words.describe_event(Event("end"), view, names) == words.NO_WINNER["turn-limit"][1]
    assert words.result_text(1, "win", names) == "Bob won"
