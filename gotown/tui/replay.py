"""``gotown play --replay FILE``: step through a saved game record, as a spectator sees it.

The record is replayed once (every action checked) and a copy of the game kept after each
action, so stepping either way is instant. Only the public view is shown (R22). ``v`` (or
``--review``) reviews the game (:mod:`.review`): each seat's chance over the game, the turning
points and a seat's mistakes, each one a step to jump to.
"""

from __future__ import annotations

import sys
from typing import TextIO

from textual import work
from textual.binding import Binding

from gotown.bots.review import Review, quick_iterations, review
from gotown.engine import Action, Game, Record, View

from . import words
from .base import TableApp
from .plain import end_lines, terminal_width, wrapped
from .review import ReviewScreen, review_text
from .session import load_record
from .widgets import board_text


def replay_games(path: str) -> list[Game]:
    """The game before the first action and after each one."""
    record = load_record(path)
    game = record.start()
    games = [game.copy()]
    for action in record.actions:
        game.apply(action)
        games.append(game.copy())
    return games


class ReplayApp(TableApp):
    """A saved game, one action a step: right or space forward, left back."""

    BINDINGS = [
        Binding("right,space,n", "step(1)", "Next", priority=True),
        Binding("left,p", "step(-1)", "Back", priority=True),
        Binding("home", "step(-100000)", "Start", priority=True),
        Binding("end", "step(100000)", "End", priority=True),
        Binding("v", "review", "Review"),
    ]

    def __init__(
        self, games: list[Game], review_seat: int | None = None, open_review: bool = False
    ) -> None:
        super().__init__()
        self.games = games
        self.step = 0
        self.names = words.seat_names(games[0].players)
        self.review_seat = review_seat
        self.open_review = open_review
        self.review: Review | None = None
        self._reviewing = False

    def current_view(self) -> View:
        return self.games[self.step].public_view()

    def current_legal(self) -> tuple[Action, ...]:
        return ()

    def seat_names(self) -> list[str]:
        return self.names

    def on_mount(self) -> None:
        self.query_one("#command").display = False
        self.query_one("#actions").display = False
        self.set_focus(None)
        self.show()
        if self.open_review:
            self.action_review()

    def show(self) -> None:
        super().show()
        self.sub_title = f"Replay, step {self.step} of {len(self.games) - 1}: " + (self.sub_title)
        view = self.current_view()
        if view.over:
            self.say(words.hands_text(view, self.names))
        else:
            self.say("Right or space: next action. Left: back. Home, End: first, last.")

    def action_step(self, by: int) -> None:
        self.jump(self.step + by)

    def jump(self, step: int | None) -> None:
        """Show the position after ``step`` actions (None: stay)."""
        if step is not None:
            self.step = max(0, min(len(self.games) - 1, step))
        self.show()

    def action_review(self) -> None:
        """Show the review, computed first (in a thread, a few seconds) when it is not yet."""
        if self.review is not None:
            result = result_of(self.games[-1], self.names)
            self.push_screen(ReviewScreen(self.review, self.names, result), self.jump)
        elif not self._reviewing:
            self._reviewing = True
            self.say("Reviewing the game: a few seconds…")
            self._compute_review()

    @work(thread=True, exclusive=True)
    def _compute_review(self) -> None:
        found = review_of(self.games, self.review_seat)
        self.call_from_thread(self._reviewed, found)

    def _reviewed(self, found: Review) -> None:
        self.review = found
        self._reviewing = False
        self.show()  # (the message says the keys again)
        self.action_review()


def result_of(game: Game, names: list[str]) -> str:
    """How the replayed game ended, in a few words (:func:`words.result_text`)."""
    outcome = game.outcome()
    if outcome is None:  # (a record may stop before the end)
        return "not finished"
    return words.result_text(outcome.winner, outcome.reason, names)


def review_of(games: list[Game], seat: int | None) -> Review:
    """The quick review of the replayed game (``seat``: whose mistakes)."""
    record = Record.of(games[-1])
    return review(record, seat, iterations=quick_iterations(len(record.actions)))


def run_replay(
    path: str,
    plain: bool = False,
    stdout: TextIO | None = None,
    show_review: bool = False,
    review_seat: int | None = None,
) -> None:
    """Show a saved record: full screen, or (``plain``) every event line by line;
    ``show_review`` (or a ``review_seat``, whose mistakes it lists): with the review (full
    screen: open at the start; plain: after the game)."""
    games = replay_games(path)
    if review_seat is not None and not 0 <= review_seat < games[0].players:
        raise ValueError(f"seat {review_seat}: the game has seats 0 to {games[0].players - 1} (R1)")
    if not plain:
        ReplayApp(games, review_seat, open_review=show_review or review_seat is not None).run()
        return
    out = stdout or sys.stdout
    width = terminal_width(out)
    last = games[-1].public_view()
    names = words.seat_names(last.players)
    # The end after the table, as a game played --plain ends.
    lines = [words.describe_event(e, last, names) for e in last.events if e.type != "end"]
    if last.over:
        lines += end_lines(last, names)
    else:
        lines.append(board_text(last, names, pointer="> ").plain)
    if show_review or review_seat is not None:
        result = result_of(games[-1], names)
        lines.append(review_text(review_of(games, review_seat), names, result))
    for line in lines:
        if line:
            out.write(wrapped(line, width) + "\n")
