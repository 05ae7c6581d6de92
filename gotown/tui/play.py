"""``gotown play``: a game at one terminal against bots, or among people at one keyboard.

The app holds a :class:`~gotown.tui.table.LocalTable` (the one game) and shows one seat's view
at a time: the person at the keyboard, or nobody's hand (the public view) in a hot-seat game
while the keyboard is between two people. A bot thinks in a worker thread, so that the clock,
the log and the keys stay alive, and its action is played back on the app's thread at the
pace asked (``speed`` seconds an action).
"""

from __future__ import annotations

import time

from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.reactive import reactive
from textual.widgets import Footer, Header, Input, RichLog, Static
from textual.worker import get_current_worker

from gotown.engine import Action, GoTownError, View, parse_action

from . import words
from .table import LocalTable
from .widgets import (
    ActionList,
    HandBar,
    HandOverScreen,
    TextScreen,
    board_text,
    matching,
)


class TableApp(App[None]):
    """What every GoTown screen shares: the board, the hand, the actions, the log, the typed
    move; subclasses say where the view comes from and where an action goes."""

    CSS_PATH = "play.tcss"
    TITLE = "GoTown"
    BINDINGS = [
        Binding("question_mark", "rules", "Rules"),
        Binding("d", "discard", "Discards"),
        Binding("q", "quit", "Quit"),
    ]

    #: The cards picked, as indices into the shown hand.
    picked: reactive[tuple[int, ...]] = reactive(())

    def __init__(self) -> None:
        super().__init__()
        self._logged = 0
        self._log_seat: int | None = -1

    # -- what subclasses provide ----------------------------------------------------------
    def current_view(self) -> View:
        raise NotImplementedError

    def current_legal(self) -> tuple[Action, ...]:
        raise NotImplementedError

    def seat_names(self) -> list[str]:
        raise NotImplementedError

    def submit(self, action: Action) -> None:
        raise NotImplementedError

    def away(self) -> list[int]:
        return []

    # -- layout -----------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header(show_clock=True, icon="#")
        with Horizontal(id="main"):
            yield Static(id="board")
            yield RichLog(id="log", wrap=True, markup=False, auto_scroll=True, min_width=10)
        yield HandBar(id="hand")
        yield ActionList(id="actions")
        yield Static(id="message")
        yield Input(
            placeholder="type a move (3+6, 5@1, dog#0, end) and Enter; ? rules, h hint",
            id="command",
            compact=True,
        )
        yield Footer()

    def watch_picked(self) -> None:
        self.show()

    # -- showing ----------------------------------------------------------------------------
    def show(self) -> None:
        """Draw everything from the current view (the widgets keep no game of their own)."""
        try:
            board = self.query_one("#board", Static)
        except NoMatches:  # not composed yet
            return
        view = self.current_view()
        names = self.seat_names()
        board.update(board_text(view, names, self.away()))
        hand = self.query_one(HandBar)
        hand.display = view.hand is not None  # a spectator's (public) view has no hand
        shown = view.hand or ()
        picked = tuple(i for i in self.picked if i < len(shown))
        hand.hand = shown
        hand.picked = picked
        legal = self.current_legal()
        actions = matching(legal, [shown[i] for i in picked])
        self.query_one(ActionList).show(actions, view, names)
        frozen = 0 if view.over else view.frozen_turns
        if frozen >= 2 * view.players and all(a.type == "end-turn" for a in legal):
            # Two whole rounds of nothing but ended turns, as the web table says it (not to a
            # seat that can play: for it the game is plainly not stuck).
            self.say(
                f"Nobody has played or drawn a card for {frozen} turns. If every hand is full "
                "(8 cards draw nothing, R7b) and nobody can play, the game can never end.",
                refused=True,
            )
        elif picked and view.is_my_turn and all(a.type == "end-turn" for a in actions):
            self.say("No action plays the picked card now (R21: a card is played only when it "
                     "can do something).")  # fmt: skip
        self.sub_title = self.status_line(view, names)
        self.write_log(view, names)

    def status_line(self, view: View, names: list[str]) -> str:
        if view.over:
            return words.outcome_text(view, names)
        who = "your turn" if view.is_my_turn else f"{names[view.active]}'s turn"
        return f"Turn {view.turn}: {who}"

    def write_log(self, view: View, names: list[str]) -> None:
        """Append the view's new events (R22: as that seat saw them); start again when the
        seat shown changes, so that one person's log never shows another's cards."""
        log = self.query_one(RichLog)
        if view.seat != self._log_seat or len(view.events) < self._logged:
            log.clear()
            self._logged = 0
            self._log_seat = view.seat
        for event in view.events[self._logged :]:
            line = words.describe_event(event, view, names)
            if line:
                log.write(line)
        self._logged = len(view.events)

    def say(self, text: str, refused: bool = False) -> None:
        message = self.query_one("#message", Static)
        message.update(text)
        message.set_class(refused, "refused")

    # -- input ------------------------------------------------------------------------------
    def on_hand_bar_toggled(self, event: HandBar.Toggled) -> None:
        index = event.index
        picked = list(self.picked)
        if index in picked:
            picked.remove(index)
        else:
            picked = [*picked, index][-2:]  # a move plays at most two cards of the hand
        self.picked = tuple(picked)

    def on_action_list_chosen(self, event: ActionList.Chosen) -> None:
        self.try_action(event.action)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        event.input.value = ""
        if not text:
            return
        if text in ("?", "help"):
            self.action_rules()
            return
        try:
            action = parse_action(text)
        except GoTownError as error:
            self.say(f"Refused: {error}", refused=True)
            return
        self.try_action(action)

    def try_action(self, action: Action) -> None:
        view = self.current_view()
        if not view.is_my_turn:
            names = self.seat_names()
            whose = "nobody's: the game is over" if view.over else names[view.active] + "'s"
            self.say(f"Refused: it is {whose} turn, not yours (R21).", refused=True)
            return
        self.submit(action)

    def refused(self, error: str) -> None:
        self.say(f"Refused: {error}", refused=True)

    def played(self) -> None:
        """A move went through: the cards are put back, and the keys go back to the action
        list (so that ``q``, ``h`` or ``?`` are keys again, not letters of the next move)."""
        self.picked = ()
        self.say("")
        if self.focused is self.query_one("#command", Input):
            self.query_one(ActionList).focus()

    # -- keys -------------------------------------------------------------------------------
    def action_rules(self) -> None:
        self.push_screen(TextScreen("Rules", words.rules_text(self.current_view())))

    def action_discard(self) -> None:
        discard = self.current_view().discard
        body = (
            ", ".join(words.card_name(c) for c in reversed(discard)) + "\n(newest first)"
            if discard
            else "The discard pile is empty."
        )
        self.push_screen(TextScreen(f"Discard pile ({len(discard)} cards)", body))

    def action_type(self) -> None:
        self.query_one("#command", Input).focus()

    def action_unpick(self) -> None:
        self.picked = ()


class PlayApp(TableApp):
    """A game at this terminal: people at seats ``0..people-1``, bots at the others."""

    BINDINGS = [
        Binding("h", "hint", "Hint"),
        Binding("slash", "type", "Type a move"),
        Binding("escape", "unpick", "Unpick", show=False),
        Binding("r", "rematch", "Rematch", show=False),
    ]

    def __init__(self, table: LocalTable, speed: float = 0.8, save: str | None = None) -> None:
        super().__init__()
        self.table = table
        self.speed = speed
        self.save_path = save
        self.hot_seat = len(table.people) > 1
        #: The person at the keyboard (their view is shown), None while it is between two.
        self.at_keyboard: int | None = None if self.hot_seat else table.people[0]
        self._thinking = False

    def current_view(self) -> View:
        return self.table.view(self.at_keyboard)

    def current_legal(self) -> tuple[Action, ...]:
        return self.table.legal(self.at_keyboard)

    def seat_names(self) -> list[str]:
        return self.table.names

    def on_mount(self) -> None:
        self.advance()

    def submit(self, action: Action) -> None:
        assert self.at_keyboard is not None
        try:
            self.table.play(self.at_keyboard, action)
        except GoTownError as error:
            self.refused(str(error))
            return
        self.played()
        self.advance()

    def advance(self) -> None:
        """Show the game and set its next step going: a bot's action, a hand-over, the end."""
        table = self.table
        if table.is_over:
            self.show()
            self.finish()
            return
        active = table.active
        if table.is_person(active):
            if self.at_keyboard != active:
                self.at_keyboard = None
                self.show()
                self.push_screen(
                    HandOverScreen(table.names[active]),
                    callback=lambda _: self.take_keyboard(table, active),
                )
                return
            self.show()
            self.query_one(ActionList).focus()
            return
        if self.hot_seat:
            self.at_keyboard = None  # the keyboard is between two people: no hand shown
        self.show()
        self._thinking = True
        self.think(table, active, table.game.version)

    def take_keyboard(self, table: LocalTable, seat: int) -> None:
        if table is self.table and not table.is_over and table.active == seat:
            self.at_keyboard = seat
        self.advance()

    @work(thread=True, exclusive=True, group="bot")
    def think(self, table: LocalTable, seat: int, version: int) -> None:
        """The bot of ``seat`` chooses (off the app's thread), then its action is played after
        ``speed`` seconds in all, so that a person can follow the game."""
        started = time.monotonic()
        action = table.bot_choice(seat)
        rest = self.speed - (time.monotonic() - started)
        if rest > 0:
            time.sleep(rest)
        if not get_current_worker().is_cancelled:  # (the app may have closed meanwhile)
            self.call_from_thread(self.bot_played, table, seat, version, action)

    def bot_played(self, table: LocalTable, seat: int, version: int, action: Action) -> None:
        self._thinking = False
        if table is not self.table or table.game.version != version or table.active != seat:
            return  # a rematch began meanwhile
        table.play(seat, action)
        self.advance()

    def finish(self) -> None:
        """Who won; every hand laid down (R22: once the game is over, hands may be shown);
        the record saved when asked."""
        view = self.current_view()
        names = self.table.names
        log = self.query_one(RichLog)
        hands = [
            f"{names[s]}: {', '.join(words.card_name(c) for c in self.table.view(s).hand or ())}"
            for s in range(view.players)
        ]
        if not getattr(self, "_finished", False):
            self._finished = True
            log.write("Hands at the end: " + "; ".join(hands) + ".")
        text = words.outcome_text(view, names) + " Press r for a rematch, q to quit."
        if self.save_path:
            try:
                self.table.save(self.save_path)
                text += f" Saved to {self.save_path}."
            except OSError as error:
                text += f" Could not save to {self.save_path}: {error.strerror}."
        self.say(text)
        self.bind("r", "rematch", description="Rematch")
        self.refresh_bindings()

    def action_hint(self) -> None:
        view = self.current_view()
        if not view.is_my_turn or self.at_keyboard is None:
            self.say("A hint is for your own turn.")
            return
        self.say("Thinking about a hint...")
        self.find_hint(self.table, self.at_keyboard, view.version)

    @work(thread=True, exclusive=True, group="hint")
    def find_hint(self, table: LocalTable, seat: int, version: int) -> None:
        found = table.hint(seat)
        if not get_current_worker().is_cancelled:
            self.call_from_thread(self.show_hint, table, version, found)

    def show_hint(self, table: LocalTable, version: int, found: list[tuple[Action, float]]) -> None:
        if table is not self.table or table.game.version != version:
            return
        if not found:
            self.say("No hint: nothing to choose.")
            return
        best = ", ".join(f"{action} ({probability:.0%})" for action, probability in found)
        self.say(f"Hint (chance to win after it): {best}")

    def action_rematch(self) -> None:
        if not self.table.is_over:
            return
        self.workers.cancel_group(self, "bot")
        self.table = self.table.rematch()
        self.at_keyboard = None if self.hot_seat else self.table.people[0]
        self._finished = False
        self._log_seat = -1
        self.picked = ()
        self.say("A new game.")
        self.advance()
