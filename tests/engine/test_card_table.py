"""The card facts the engine exports for every front end (R2, R5, R10-R19): the card table,
the rule of each action, and the hand cards an action plays, held to what the engine plays."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from gotown.engine import (
    ACTION_RULES,
    ACTION_TYPES,
    CARDS,
    CODES,
    COPIES,
    DECK_SIZE,
    JOKER_VALUES,
    PLAYED_FROM,
    Action,
    Game,
    cards_played,
)

from .helpers import game

NUMBERS = [card for card in CARDS.values() if card.category == "number"]
SPECIALS = [card for card in CARDS.values() if card.category == "special"]


def test_r2_the_card_table_holds_each_kind_once_in_kind_order_and_54_cards() -> None:
    assert list(CARDS) == list(CODES)
    assert [card.kind for card in CARDS.values()] == list(range(len(CODES)))
    assert [card.copies for card in CARDS.values()] == list(COPIES)
    assert sum(card.copies for card in CARDS.values()) == DECK_SIZE == 54
    assert [card.code for card in NUMBERS] == [str(n) for n in range(1, 9)]
    assert [card.number for card in NUMBERS] == list(range(1, 9))
    assert [c.code for c in CARDS.values() if c.category == "joker"] == ["?"]
    assert len(SPECIALS) == 8


def test_r5_a_number_s_partner_makes_nine_with_it_and_shares_its_colour() -> None:
    for card in NUMBERS:
        assert card.partner is not None and card.number is not None
        mate = CARDS[card.partner]
        assert card.number + int(mate.code) == 9
        assert mate.partner == card.code
        assert mate.pair_colour == card.pair_colour
        assert card.pair_colour == min(card.number, 9 - card.number)
        assert JOKER_VALUES[card.code] == int(card.partner)  # a joker beside it: its partner
    assert sorted({card.pair_colour for card in NUMBERS}) == [1, 2, 3, 4]
    for card in [CARDS["?"], *SPECIALS]:
        assert (card.number, card.partner, card.pair_colour) == (None, None, None)


def test_r5_r10_a_number_builds_exactly_with_its_partner_or_a_joker() -> None:
    """The table's partners are the floors the engine lets a hand build."""
    for card in NUMBERS:
        hand = [str(n) for n in range(1, 9)] + ["?"]
        g = game(hands=[hand, []])
        built = {
            other
            for action in g.legal_actions()
            if action.type == "build" and card.code in action.cards
            for other in action.cards
            if other != card.code
        }
        assert built == {card.partner, "?"}


def test_r12_r19_each_special_card_s_rule_is_the_one_its_refusal_names() -> None:
    g = game(players=2, hands=[[], ["1"]], towers=[[["1", "8"]], [["2", "7", "dog"]]])
    for card in SPECIALS:
        action = Action.from_json(_an_action_of(card.code))
        assert card.rules == (ACTION_RULES[card.code],)
        refusal = g.why_illegal(action)
        assert refusal[0] == card.rules[0], (card.code, refusal)


def test_r5_r10_r11_the_rules_of_the_floor_cards() -> None:
    assert CARDS["?"].rules == ("R5", "R10")
    assert {card.rules for card in NUMBERS} == {(ACTION_RULES["build"], ACTION_RULES["steal"])}
    g = game(players=2, hands=[[], []], towers=[[], [["2", "7"]]])
    assert g.why_illegal(Action.build("3", "6"))[0] == ACTION_RULES["build"] == "R10"
    assert g.why_illegal(Action.steal("2", 1))[0] == ACTION_RULES["steal"] == "R11"
    assert ACTION_RULES["end-turn"] == "R8"
    assert list(ACTION_RULES) == list(ACTION_TYPES)


def test_a_card_s_json_gives_every_fact() -> None:
    assert CARDS["3"].to_json() == {
        "code": "3", "kind": 3, "category": "number", "number": 3, "partner": "6",
        "pair_colour": 3, "rules": ["R10", "R11"], "copies": 4,
    }  # fmt: skip
    assert CARDS["wrecking-ball"].to_json() == {
        "code": "wrecking-ball", "kind": 12, "category": "special", "number": None,
        "partner": None, "pair_colour": None, "rules": ["R15"], "copies": 1,
    }  # fmt: skip
    assert CARDS["?"].to_json()["category"] == "joker"


def test_cards_played_names_each_action_s_cards() -> None:
    assert cards_played(Action.build("6", "3")) == ("3", "6")
    assert cards_played(Action.steal("5", target=1)) == ("5",)
    assert cards_played(Action.dog(floor=0)) == ("dog",)
    assert cards_played(Action.bone(target=1, floor=0)) == ("bone",)
    assert cards_played(Action.super_thief()) == ("super-thief",)
    assert cards_played(Action.end_turn()) == ()
    assert cards_played(Action("steal")) == ()  # (a steal built by hand without its card)


def _an_action_of(kind: str) -> dict[str, object]:
    fields = {"dog": {"floor": 0}, "bone": {"target": 1, "floor": 0}}
    targeted = ("jackhammer", "wrecking-ball", "thief", "milkshake")
    return {"type": kind, **fields.get(kind, {"target": 1} if kind in targeted else {})}


def _read_as_a_client(action: Action) -> list[str]:
    """The hand cards of an action's JSON, read by :data:`PLAYED_FROM` as the page may."""
    where = PLAYED_FROM[action.type]
    if where is None:
        return []
    if where == "type":
        return [action.type]
    value = action.to_json()[where]
    return list(value) if isinstance(value, list) else [value]


@pytest.mark.parametrize("seed", range(6))
def test_r10_r19_an_action_takes_from_the_hand_exactly_the_cards_it_plays(seed: int) -> None:
    """Along random games, every legal action leaves the hand short of exactly
    ``cards_played`` (a thief's loot aside, seen by the thief: R16, R17), and the JSON read
    by ``PLAYED_FROM`` names the same cards."""
    rng = random.Random(seed)
    g = Game.new(players=2 + seed % 3, seed=seed)
    seen: set[str] = set()
    while not g.is_over and g.turn < 200:
        for action in g.legal_actions():
            assert sorted(_read_as_a_client(action)) == sorted(cards_played(action))
        action = rng.choice(g.legal_actions())
        seat = g.active
        before = Counter(g.view(seat).hand)
        start = g.event_count
        g.apply(action)
        if action.type == "end-turn":
            continue
        after = Counter(g.view(seat).hand)
        loot = Counter(
            e.card for e in g.events(seat, start) if e.type == "stolen" and e.card is not None
        )
        assert before + loot - after == Counter(cards_played(action)), action
        assert after - before - loot == Counter()
        seen.add(action.type)
    assert "build" in seen
