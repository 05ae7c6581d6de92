"""What every GoTown table screen shares (:class:`TableApp`): the board, the hand, the actions
the picked cards allow, the log, the typed move. The apps built on it (:mod:`.play`,
:mod:`.replay`, :mod:`.remote`) say where the view comes from and where an action goes; it keeps
no game of its own, only what is picked and how much of the log is written.
"""

from __future__ import annotations

import os

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.reactive import reactive
from textual.widgets import Footer, Header, Input, RichLog, Static

from gotown.engine import Action, GoTownError, View, parse_action

from . import words
from .widgets import ActionList, HandBar, TextScreen, board_text, matching


class TableApp(App[None]):
    """What every GoTown screen shares: the board, the hand, the actions, the log, the typed
    move; subclasses say where the view comes from and where an action goes."""

    CSS_PATH = "table.tcss"
    TITLE = "GoTown"
    BINDINGS = [
        Binding("question_mark", "rules", "Rules"),
        Binding("d", "discard", "Discards"),
        Binding("q", "quit", "Quit"),
    ]

    #: The cards picked, as indices into the shown hand.
    picked: reactive[tuple[int, ...]] = reactive(())

    def __init__(self) -> None:
        # NO_COLOR: Textual's own filter for it turns colours into greys unless the app draws in
        # the terminal's ANSI colours; then it leaves no colour at all (no-color.org).
        super().__init__(ansi_color=True if "NO_COLOR" in os.environ else None)
        self._logged = 0
        self._log_seat: int | None = -1
        self._hand_shown: tuple[str, ...] = ()
        self._hands_logged = False

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

    def on_mount(self) -> None:
        # The log stays at its newest line when it grows shorter (more actions listed below
        # it), until the person scrolls it back.
        self.query_one(RichLog).anchor()

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
        if shown != self._hand_shown:  # a card drawn or stolen: the indices mean other cards
            self._hand_shown = shown
            self.set_reactive(TableApp.picked, ())
        picked = self.picked
        hand.hand = shown
        hand.picked = picked
        legal = self.current_legal()
        actions = matching(legal, [shown[i] for i in picked])
        self.query_one(ActionList).show(actions, view, names)
        frozen = 0 if view.over else view.frozen_turns
        if frozen >= 2 * view.players and view.is_my_turn and legal == (Action.end_turn(),):
            # Two whole rounds of nothing but ended turns, said to the seat that can only end
            # its own (for one that can play the game is plainly not stuck). Nobody drew
            # meanwhile, so were nobody able to play either, the game would be over (R20b).
            self.say(
                f"Nobody has played or drawn a card for {frozen} turns, but someone could still "
                "play, so the game goes on (it ends by itself, with no winner, only when nobody "
                "can ever play again: R20b).",
                refused=True,
            )
        elif picked and view.is_my_turn and all(a.type == "end-turn" for a in actions):
            self.say("No action plays the picked card now (R21: a card is played only when it "
                     "can do something).")  # fmt: skip
        self.sub_title = self.status_line(view, names)
        self.write_log(view, names)

    def status_line(self, view: View, names: list[str]) -> str:
        if view.over:  # (the header holds about 50 characters: no winner in a few words)
            if view.winner is None:
                result = words.result_text(None, view.reason, names)
                return result[0].upper() + result[1:]
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

    def show_hint(self, found: list[tuple[Action, float]]) -> None:
        """The strong bot's moves, its choice first (the one its search trusts most, which is
        not always the one with the highest estimate), each with its estimated chance to win
        after it; its choice also in words."""
        if not found:
            self.say("No hint: nothing to choose.")
            return
        first = words.describe_action(found[0][0], self.current_view(), self.seat_names())
        moves = ", ".join(f"{action} ({probability:.0%})" for action, probability in found)
        self.say(f"Hint: {first}. The strong bot's choices, with the chance to win after "
                 f"each: {moves}")  # fmt: skip

    def restart_log(self) -> None:
        """A new game: the log starts again at its next drawing."""
        self._log_seat = -1
        self._hands_logged = False

    def show_end(self, after: str) -> None:
        """The end of the game: every hand laid down in the log, once (R22: once the game is
        over, hands may be shown), and how it ended with ``after`` (what the keys do now)."""
        view = self.current_view()
        names = self.seat_names()
        if not self._hands_logged:
            self._hands_logged = True
            self.query_one(RichLog).write(words.hands_text(view, names))
        self.say(f"{words.outcome_text(view, names)} {after}")
        self.refresh_bindings()

    def focus_actions(self) -> None:
        """The keys go to the action list (Up, Down, Enter play), unless a move is being typed."""
        if self.focused is not self.query_one("#command", Input):
            self.query_one(ActionList).focus()

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
