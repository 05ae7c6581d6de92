"""Small widgets of the terminal table. Each shows what it is given (a seat's :class:`View`,
the legal actions): none keeps or changes the game."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.events import Key
from textual.message import Message
from textual.reactive import reactive
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, OptionList, Static
from textual.widgets.option_list import Option

from gotown.engine import CARDS, Action, View, cards_played

from . import words

#: Styles of the four pair colours (R2); NO_COLOR turns them into plain text.
PAIR_STYLES = {1: "bold red", 2: "bold green", 3: "bold blue", 4: "bold magenta"}


def card_text(code: str) -> Text:
    """A card's label in its pair's colour (the engine's card table)."""
    colour = CARDS[code].pair_colour
    return Text(words.card_label(code), style=PAIR_STYLES.get(colour or 0, "bold"))


def board_text(
    view: View, names: Sequence[str], away: Sequence[int] = (), pointer: str = "▶ "
) -> Text:
    """Every seat's tower floor by floor, hand size and milkshakes, then the piles (all public,
    R22). ``away``: seats whose player is not connected (a remote table); ``pointer`` marks
    the seat whose turn it is."""
    out = Text()
    for seat in range(view.players):
        turn = seat == view.active and not view.over
        marker = pointer if turn else " " * len(pointer)
        name = names[seat] + (" (you)" if seat == view.seat and names[seat] != "You" else "")
        out.append(marker, style="bold yellow")
        out.append(f"{name[:20]:<20}", style="bold" if turn else "")
        out.append(f" hand {view.hand_sizes[seat]:>2}")
        shakes = view.milkshakes[seat]
        if shakes:
            out.append(f"  milkshake x{shakes}" if shakes > 1 else "  milkshake", style="cyan")
        if seat in away:
            out.append("  (away)", style="dim")
        out.append("\n    ")
        tower = view.towers[seat]
        if not tower:
            out.append("no floor yet", style="dim")
        for index, floor in enumerate(tower):
            out.append(f"{index}:", style="dim")
            for position, card in enumerate(floor[:2]):
                if position:
                    out.append("+")
                out.append_text(card_text(card))
                if card == "?":
                    out.append(f"={words.floor_joker_value(floor)}")
            if len(floor) > 2:
                out.append("+" + "D" * (len(floor) - 2), style="bold yellow")
            out.append(" ")
        out.append(f" {len(tower)}/{view.options.win_floors}\n", style="dim")
    out.append(f"Draw pile {view.draw_size}  Discard pile {len(view.discard)}")
    if view.discard:
        out.append(f" (top: {words.card_name(view.discard[-1])})")
    if view.donut:
        out.append("  Donut truck on the table", style="bold cyan")
    out.append("\nFloors from 0. +D: guard dog. ?=n: joker as n.", style="dim")
    return out


class CardButton(Button):
    """One card of the hand; pressing it picks it or puts it back."""

    def __init__(self, index: int, code: str, picked: bool, first_of_group: bool) -> None:
        label = Text("[") + card_text(code) + Text("]") if picked else card_text(code)
        classes = "card" + (" picked" if picked else "") + (" group" if first_of_group else "")
        super().__init__(label, id=f"card-{index}", classes=classes, compact=True)
        self.index = index


class HandBar(Horizontal):
    """The hand, pairs that make nine side by side (:func:`words.hand_groups`)."""

    hand: reactive[tuple[str, ...]] = reactive((), recompose=True)
    picked: reactive[tuple[int, ...]] = reactive((), recompose=True)

    class Toggled(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def compose(self) -> ComposeResult:
        if not self.hand:
            yield Static("(no cards in your hand)", classes="empty")
            return
        yield Static("Hand:", classes="label")
        for group in words.hand_groups(self.hand):
            for position, index in enumerate(group):
                yield CardButton(index, self.hand[index], index in self.picked, position == 0)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if isinstance(event.button, CardButton):
            event.stop()
            self.post_message(self.Toggled(event.button.index))


def matching(legal: Sequence[Action], picked: Sequence[str]) -> list[Action]:
    """The legal actions that play every picked card (all of them when none is picked)."""
    found = []
    for action in legal:
        played = cards_played(action)
        if all(played.count(code) >= picked.count(code) for code in picked):
            found.append(action)
    if picked and not any(a.type == "end-turn" for a in found):
        found += [a for a in legal if a.type == "end-turn"]
    return found


class ActionList(OptionList):
    """The actions the picked cards allow, each with its target, in words and in notation.

    When they are more than the rows it has, its bottom edge says that more are below (or
    above), in words: a scrollbar alone is easy to miss, and without colour it is blank."""

    class Chosen(Message):
        def __init__(self, action: Action) -> None:
            super().__init__()
            self.action = action

    def show(self, actions: Sequence[Action], view: View, names: Sequence[str]) -> None:
        self.clear_options()
        self._actions = list(actions)
        self.add_options(
            Option(f"{action!s:<16} {words.describe_action(action, view, names)}")
            for action in actions
        )
        if actions:
            self.highlighted = 0
        self.call_after_refresh(self.show_more)

    def show_more(self) -> None:
        """Say on the bottom edge which way the actions not in sight are (nothing when all
        are)."""
        below = self.scroll_y < self.max_scroll_y
        above = self.scroll_y > 0
        self.set_class(below or above, "more")
        if below:
            self.border_subtitle = "▼ more actions below: Down to see them"
        elif above:
            self.border_subtitle = "▲ more actions above: Up to see them"
        else:
            self.border_subtitle = ""

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self.show_more()

    def on_resize(self) -> None:
        self.call_after_refresh(self.show_more)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.post_message(self.Chosen(self._actions[event.option_index]))


class TextScreen(ModalScreen[None]):
    """A page of text (the rules, the discard pile, a hint); any key closes it."""

    BINDINGS = [("escape,q,enter,space", "dismiss", "Close")]

    def __init__(self, title: str, body: str) -> None:
        super().__init__()
        self.title_text = title
        self.body = body

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="page"):
            yield Static(Text(self.title_text, style="bold"))
            yield Static(Text(self.body), id="page-body")
            yield Static(Text("Up, Down: scroll. Escape or Enter: back.", style="dim"))

    def on_click(self) -> None:
        self.dismiss()


class HandOverScreen(Screen[None]):
    """Hot-seat: the whole screen hidden behind "hand the keyboard to X" until X presses a key,
    so that nobody sees a hand that is not theirs."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.player = name

    def compose(self) -> ComposeResult:
        yield Static(
            f"Hand the keyboard to {self.player}.\n\n"
            f"{self.player}: press any key when nobody else is looking.",
            id="handover",
        )

    def on_key(self, event: Key) -> None:
        event.stop()  # the key only hands the keyboard over: it is no command
        event.prevent_default()
        self.dismiss()

    def on_click(self) -> None:
        self.dismiss()
