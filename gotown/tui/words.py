"""The game in plain words: cards, floors, hands, actions, events and a short rules screen.

Pure functions of the engine's public values (a :class:`View`, an :class:`Action`, an
:class:`Event`), shared by the full-screen table and the line-by-line ``--plain`` mode, so that
both say the same thing and a screen reader gets whole sentences. What the rules say of a card
(its partner, its pair's colour, what a joker stands for) is the engine's card table
(``gotown.engine.CARDS``), never stated here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from html.parser import HTMLParser

from gotown.engine import CARDS, JOKER_VALUES, Action, Event, View
from gotown.texts import LANGUAGES, rules_html

#: The card names of the printed rulebook (R2, English column).
CARD_NAMES = {
    "?": "Joker",
    "dog": "Guard dog",
    "bone": "Bone",
    "jackhammer": "Jack-hammer",
    "wrecking-ball": "Wrecking ball",
    "milkshake": "Milkshake",
    "donut-truck": "Donut truck",
    "thief": "Thief",
    "super-thief": "Super-thief",
}
#: Short labels for the hand at 80 columns.
CARD_LABELS = {
    "?": "?",
    "dog": "Dog",
    "bone": "Bone",
    "jackhammer": "Hammer",
    "wrecking-ball": "Ball",
    "milkshake": "Shake",
    "donut-truck": "Donut",
    "thief": "Thief",
    "super-thief": "S-thief",
}
NUMBERS = tuple(card.code for card in CARDS.values() if card.category == "number")


def nine_pairs() -> list[tuple[str, str]]:
    """The pairs of number cards that make a floor (R5), the low card first: 1+8, 2+7, 3+6,
    4+5."""
    return [
        (card.code, card.partner)
        for card in CARDS.values()
        if card.partner is not None and card.code < card.partner
    ]


def card_name(code: str) -> str:
    return CARD_NAMES.get(code, code)


def card_label(code: str) -> str:
    return CARD_LABELS.get(code, code)


def hand_groups(hand: Sequence[str]) -> list[list[int]]:
    """The hand's cards (as indices into ``hand``) grouped as a player lays them out, as many
    floors as they make (R5): each pair of numbers that makes nine, each leftover number with
    a joker, two leftover jokers splitting a pair into two floors; then the rest one by one.
    Every index appears once."""
    left = list(range(len(hand)))
    groups: list[list[int]] = []

    def take(code: str) -> int | None:
        for i in left:
            if hand[i] == code:
                left.remove(i)
                return i
        return None

    for low, high in nine_pairs():
        while low in (hand[i] for i in left) and high in (hand[i] for i in left):
            first, second = take(low), take(high)
            assert first is not None and second is not None
            groups.append([first, second])
    for number in NUMBERS:
        while number in (hand[i] for i in left) and "?" in (hand[i] for i in left):
            first, second = take(number), take("?")
            assert first is not None and second is not None
            groups.append([first, second])
    # Two jokers left over make two floors of one number pair (3+6 and ? ?: 3+?, 6+?).
    jokers = [i for i in left if hand[i] == "?"]
    for group in [g for g in groups if "?" not in (hand[g[0]], hand[g[1]])]:
        if len(jokers) < 2:
            break
        first, second = jokers.pop(), jokers.pop()
        left.remove(first)
        left.remove(second)
        groups.remove(group)
        groups += [[group[0], first], [group[1], second]]
    groups.extend([i] for i in left)
    return groups


def floor_joker_value(floor: Sequence[str]) -> int | None:
    """What the joker of a floor stands for (R5: its partner's value), or None (no joker)."""
    numbers = [code for code in floor[:2] if code in JOKER_VALUES]
    return JOKER_VALUES[numbers[0]] if "?" in floor[:2] and numbers else None


def floor_text(floor: Sequence[str]) -> str:
    """``3+6``; a joker with its value (R5): ``3+?=6``; ``+D`` per guard dog."""
    first, second, dogs = floor[0], floor[1], len(floor) - 2
    text = f"{first}+{second}"
    value = floor_joker_value(floor)
    if value is not None:
        text += f"={value}"
    return text + "+D" * dogs


def seat_names(players: int, names: Sequence[str | None] | None = None) -> list[str]:
    """A name for each seat: the one given, else ``Seat N``."""
    given = list(names or [])
    return [(given[s] if s < len(given) else None) or f"Seat {s}" for s in range(players)]


def _who(seat: int | None, viewer: int | None, names: Sequence[str]) -> str:
    if seat is None:
        return "someone"
    return "you" if seat == viewer else names[seat]


def _whose(seat: int | None, viewer: int | None, names: Sequence[str]) -> str:
    if seat is None:
        return "someone's"
    return "your" if seat == viewer else f"{names[seat]}'s"


def describe_action(
    action: Action, view: View, names: Sequence[str], actor: int | None = None, now: bool = True
) -> str:
    """What an action does, in words (``actor`` plays it; the viewer is ``view.seat``): one
    that may be played ``now`` in ``view``, or one played before it (the log).

    Floors are numbered from 0 at the ground, as in the notation; the words say it too."""
    me = view.seat
    actor = view.active if actor is None else actor
    kind = action.type
    target = action.target
    towers = view.towers
    if kind == "build":
        first, second = action.cards
        return f"build a floor {first}+{second}"
    if kind == "steal":
        assert target is not None and action.card is not None
        top = towers[target][-1] if towers[target] else None
        partner = str(CARDS[action.card].partner)
        taken = partner  # a number, or a joker standing for it (R11)
        if not now:  # the floor is gone from the view: its card by its value
            taken = f"card worth {partner}"
        elif top is not None and partner not in top[:2] and "?" in top[:2]:
            taken = f"joker (as {partner})"
        mine = "your" if actor == me else "their"
        return f"steal-build: {mine} {action.card} + the {taken} on {_whose(target, me, names)} top"
    if kind == "dog":
        owner = actor if target is None else target
        whose = "their own" if owner == actor and owner != me else _whose(owner, me, names)
        return f"guard dog on {whose} floor {action.floor}"
    if kind == "bone":
        return f"bone: chase the dog off {_whose(target, me, names)} floor {action.floor}"
    if kind == "jackhammer":
        return f"jack-hammer {_whose(target, me, names)} top floor"
    if kind == "wrecking-ball":
        return f"wrecking ball on {_whose(target, me, names)} top floor"
    if kind == "thief":
        return f"thief: take a random card from {_who(target, me, names)}"
    if kind == "super-thief":
        return "super-thief: take a random card from every opponent"
    if kind == "milkshake":
        whose = "your" if target == me else "their"
        return f"milkshake for {_who(target, me, names)} (skips {whose} next turn)"
    if kind == "donut-truck":
        return "donut truck: take another turn after this one"
    return "end the turn"


def describe_event(event: Event, view: View, names: Sequence[str]) -> str | None:
    """One line of the log for ``event`` as the view's seat saw it (R22: a card the seat may
    not see is not in the event), or None for nothing worth a line."""
    me = view.seat
    kind = event.type
    who = _who(event.seat, me, names)
    if kind == "turn":
        extra = " (donut truck: an extra turn)" if event.extra else ""
        if event.seat == me:
            return f"Turn {event.turn}: your turn{extra}."
        return f"Turn {event.turn}: {who}'s turn{extra}."
    if kind == "draw":
        if event.card is not None:
            return f"{who.capitalize()} drew {_a(event.card)}."
        return f"{who.capitalize()} drew a card."
    if kind == "milkshake-turn":
        return f"{who.capitalize()} drank a milkshake: turn skipped."
    if kind == "action" and event.action is not None:
        action = event.action
        if action.type == "end-turn":
            return f"{who.capitalize()} ended the turn."
        if action.type == "build":
            return f"{who.capitalize()} built a floor {action}."
        said = describe_action(action, view, names, actor=event.seat, now=False)
        return f"{who.capitalize()}: {said} ({action})."
    if kind == "stolen":
        victim = _who(event.victim, me, names)
        card = _a(event.card) if event.card is not None else "a card"
        return f"{who.capitalize()} took {card} from {victim}."
    if kind == "reshuffle":
        return f"The discard pile ({event.count} cards) was shuffled into the draw pile."
    if kind == "end":
        if event.winner is None:
            return NO_WINNER[event.reason or "turn-limit"][1]
        if event.winner == me:
            return "You won!"
        return f"{names[event.winner]} won."
    return None


def _a(code: str) -> str:
    name = card_name(code)
    if code in NUMBERS:
        return f"an {code}" if code == "8" else f"a {code}"
    return f"an {name}" if name[0] in "AEIOU" else f"a {name}"


#: How a game with no winner ended, by the engine's reason (a view's or an end event's): a few
#: words for a title, and a sentence a child can follow. An older record's end, with no
#: reason, was the turn limit (the only way before R20b).
NO_WINNER = {
    "stalemate": (
        "stuck: no winner, R20b",
        "The game is stuck: nobody can play a card or draw one any more, so it ends with no "
        "winner (R20b).",
    ),
    "turn-limit": (
        "turn limit: no winner, R23",
        "The game ended at the turn limit, with no winner (R23).",
    ),
}


def outcome_text(view: View, names: Sequence[str]) -> str:
    """How a finished game ended, in words: who won, or why nobody did."""
    if view.winner is None:
        return NO_WINNER[view.reason or "turn-limit"][1]
    if view.winner == view.seat:
        return f"You won, with {len(view.towers[view.winner])} floors!"
    return f"{names[view.winner]} won, with {len(view.towers[view.winner])} floors."


def result_text(winner: int | None, reason: str | None, names: Sequence[str]) -> str:
    """How a game ended in a few words, for a title: ``Ann won``, or why nobody did."""
    if winner is None:
        return NO_WINNER[reason or "turn-limit"][0]
    return f"{names[winner]} won"


def hands_text(view: View, names: Sequence[str]) -> str:
    """Every hand at the end of the game, laid down for all to see (R22); "" before it."""
    if view.hands is None:
        return ""
    shown = [
        f"{names[seat]}: {', '.join(card_name(c) for c in hand) or 'no card'}"
        for seat, hand in enumerate(view.hands)
    ]
    return "Hands at the end: " + "; ".join(shown) + "."


def reader_language(environ: Mapping[str, str] | None = None) -> str:
    """The reader's language among the web table's (:data:`gotown.texts.LANGUAGES`), from
    ``GOTOWN_LANG`` (what ``gotown play --lang`` sets), then the locale's variables (``LC_ALL``,
    ``LC_MESSAGES``, ``LANG``: ``de_CH.UTF-8`` is German); English when none is one of them."""
    env = os.environ if environ is None else environ
    for name in ("GOTOWN_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        code = env.get(name, "").split("_")[0].split(".")[0].lower()
        if code:
            return code if code in LANGUAGES else "en"
    return "en"


class _PageText(HTMLParser):
    """The text of the rules' article: its headings, paragraphs and list items, a block each
    (not the paragraph of its link home to the web table, nor anything in a script or a
    style)."""

    BLOCKS = ("h1", "h2", "h3", "p", "li")
    HIDDEN = ("script", "style")

    def __init__(self) -> None:
        super().__init__()
        self.blocks: list[str] = []
        self._open: str | None = None
        self._text: list[str] = []
        self._hidden = 0
        self._home_link = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.HIDDEN:
            self._hidden += 1
        elif tag in self.BLOCKS and not self._hidden:
            self._close()  # (a card's example is a paragraph within its list item)
            self._open, self._text, self._home_link = tag, [], False
        elif tag == "a" and ("href", "/") in attrs:
            self._home_link = True

    def handle_endtag(self, tag: str) -> None:
        if tag in self.HIDDEN:
            self._hidden -= 1
        elif tag == self._open:
            self._close()

    def _close(self) -> None:
        """End the open block, keeping its text."""
        tag = self._open
        text = " ".join("".join(self._text).split())
        if tag is not None and text and not self._home_link:
            heading = tag in ("h1", "h2")
            self.blocks.append(text.upper() if heading else "- " * (tag == "li") + text)
        self._open = None

    def handle_data(self, data: str) -> None:
        if self._open and not self._hidden:
            self._text.append(data)


def rules_page_text(lang: str) -> str:
    """The rules the web table shows in ``lang`` (:func:`gotown.texts.rules_html`), as plain
    text."""
    parser = _PageText()
    parser.feed(rules_html(lang))
    return "\n\n".join(parser.blocks)


NOTATION = """\
Actions, as you can type them (seats and floors count from 0):
  3+6          build a floor of two cards that make 9 (R10)
  5@1          steal-build: your 5 and the 4 on seat 1's top floor (R11)
  dog#0        a guard dog on your floor 0 (R12)
  bone#1@2     bone: the dog on seat 2's floor 1 goes (R13)
  jackhammer@1 destroy seat 1's top floor, if no dog (R14)
  wrecking-ball@1  destroy seat 1's top floor, dog or not (R15)
  thief@1      take a random card from seat 1's hand (R16)
  super-thief  take a random card from every opponent (R17)
  milkshake@1  seat 1 skips their next turn (R18)
  donut-truck  another whole turn after this one (R19)
  end          end your turn (R8)"""


def rules_text(view: View | None = None, lang: str | None = None) -> str:
    """The rules screen: in English a short one in the engine's words (the numbers are the
    rules' R1..R24); in another language of the web table, the rules of its rules page. The
    actions as they are typed follow either way."""
    lang = reader_language() if lang is None else lang
    if lang != "en":
        return f"{rules_page_text(lang)}\n\n{NOTATION}"
    floors = view.options.win_floors if view is not None else 5
    pairs = ", ".join(f"{low}+{high}" for low, high in nine_pairs())
    return f"""\
The first to build a tower of {floors} floors wins at once (R20).

A floor is two cards that add up to 9: {pairs}, or a joker with any number (the \
joker then stands for 9 minus that number). Two jokers never make a floor (R5).

Your turn: you draw 1 card (none with 8 or more in hand, R7), play any number of actions, \
then end the turn; with fewer than 3 cards you then draw up to 3 (R8).

{NOTATION}

A card is played only when it can do something (R21). Moves are final: no undo. You see \
your own hand and all that is public, never another hand (R22)."""
