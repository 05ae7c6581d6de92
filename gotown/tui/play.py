"""``gotown play``: a game at one terminal against bots, or among people at one keyboard.

The app holds a :class:`~gotown.tui.session.LocalSession` (the one game) and shows one seat's view
at a time: the person at the keyboard, or nobody's hand (the public view) in a hot-seat game
while the keyboard is between two people. A bot thinks in a worker thread, so that the clock,
the log and the keys stay alive, and its action is played back on the app's thread at the
pace asked (``speed`` seconds an action).
"""

from __future__ import annotations

import time

from textual import work
from textual.binding import Binding
from textual.worker import get_current_worker

from gotown.engine import Action, GoTownError, View

from .base import TableApp
from .session import LocalSession
from .widgets import HandOverScreen


class PlayApp(TableApp):
    """A game at this terminal: people at seats ``0..people-1``, bots at the others."""

    BINDINGS = [
        Binding("h", "hint", "Hint"),
        Binding("slash", "type", "Type a move"),
        Binding("escape", "unpick", "Unpick", show=False),
        Binding("r", "rematch", "Rematch"),
    ]

    def __init__(self, session: LocalSession, speed: float = 0.8, save: str | None = None) -> None:
        super().__init__()
        self.session = session
        self.speed = speed
        self.save_path = save
        self.hot_seat = len(session.people) > 1
        #: The person at the keyboard (their view is shown), None while it is between two.
        self.at_keyboard: int | None = None if self.hot_seat else session.people[0]

    def current_view(self) -> View:
        return self.session.view(self.at_keyboard)

    def current_legal(self) -> tuple[Action, ...]:
        return self.session.legal(self.at_keyboard)

    def seat_names(self) -> list[str]:
        return self.session.names

    def on_mount(self) -> None:
        self.advance()

    def submit(self, action: Action) -> None:
        assert self.at_keyboard is not None
        try:
            self.session.play(self.at_keyboard, action)
        except GoTownError as error:
            self.refused(str(error))
            return
        self.played()
        self.advance()

    def advance(self) -> None:
        """Show the game and set its next step going: a bot's action, a hand-over, the end."""
        session = self.session
        if session.is_over:
            if self.hot_seat:  # everyone looks at the end: the table as all may see it
                self.at_keyboard = None
            self.show()
            self.finish()
            return
        active = session.active
        if session.is_person(active):
            if self.at_keyboard != active:
                self.at_keyboard = None
                self.show()
                self.push_screen(
                    HandOverScreen(session.names[active]),
                    callback=lambda _: self.take_keyboard(session, active),
                )
                return
            self.show()
            self.focus_actions()
            return
        if self.hot_seat:
            self.at_keyboard = None  # the keyboard is between two people: no hand shown
        self.show()
        self.think(session, active, session.game.version)

    def take_keyboard(self, session: LocalSession, seat: int) -> None:
        if session is self.session and not session.is_over and session.active == seat:
            self.at_keyboard = seat
        self.advance()

    @work(thread=True, exclusive=True, group="bot")
    def think(self, session: LocalSession, seat: int, version: int) -> None:
        """The bot of ``seat`` chooses (off the app's thread), then its action is played after
        ``speed`` seconds in all, so that a person can follow the game."""
        worker = get_current_worker()
        until = time.monotonic() + self.speed
        action = session.bot_choice(seat)
        while not worker.is_cancelled and time.monotonic() < until:
            time.sleep(min(0.05, until - time.monotonic()))  # (the app may close meanwhile)
        if not worker.is_cancelled:
            self.call_from_thread(self.bot_played, session, seat, version, action)

    def bot_played(self, session: LocalSession, seat: int, version: int, action: Action) -> None:
        if session is not self.session or session.game.version != version or session.active != seat:
            return  # a rematch began meanwhile
        session.play(seat, action)
        self.advance()

    def finish(self) -> None:
        """How the game ended, every hand laid down; the record saved when asked."""
        after = "Press r for a rematch, q to quit."
        if self.save_path:
            try:
                self.session.save(self.save_path)
                after += f" Saved to {self.save_path}."
            except OSError as error:
                after += f" Could not save to {self.save_path}: {error.strerror}."
        self.show_end(after)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The rematch key is there (and in the footer) once the game is over."""
        if action == "rematch":
            return self.session.is_over
        return True

    def action_hint(self) -> None:
        view = self.current_view()
        if not view.is_my_turn or self.at_keyboard is None:
            self.say("A hint is for your own turn.")
            return
        self.say("Thinking about a hint...")
        self.find_hint(self.session, self.at_keyboard, view.version)

    @work(thread=True, exclusive=True, group="hint")
    def find_hint(self, session: LocalSession, seat: int, version: int) -> None:
        found = session.hint(seat)
        if not get_current_worker().is_cancelled:
            self.call_from_thread(self.hint_found, session, version, found)

    def hint_found(
        self, session: LocalSession, version: int, found: list[tuple[Action, float]]
    ) -> None:
        if session is self.session and session.game.version == version:
            self.show_hint(found)

    def action_rematch(self) -> None:
        if not self.session.is_over:
            return
        self.workers.cancel_group(self, "bot")
        self.session = self.session.rematch()
        self.at_keyboard = None if self.hot_seat else self.session.people[0]
        self.restart_log()
        self.picked = ()
        self.say("A new game.")
        self.advance()
