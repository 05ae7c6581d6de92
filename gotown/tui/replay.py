"""``gotown play --replay FILE``: step through a saved game record, as a spectator sees it.

The record is replayed once (every action checked) and a copy of the game kept after each
action, so stepping either way is instant. Only the public view is shown (R22).
"""

from __future__ import annotations

import sys
from typing import TextIO

from textual.binding import Binding

from gotown.engine import Action, Game, View

from . import words
from .base import TableApp
from .table import load_record
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
    ]

    def __init__(self, games: list[Game]) -> None:
        super().__init__()
        self.games = games
        self.step = 0
        self.names = words.seat_names(games[0].players)

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

    def show(self) -> None:
        super().show()
        self.sub_title = f"Replay, step {self.step} of {len(self.games) - 1}: " + (self.sub_title)
        game = self.games[self.step]
        if game.is_over:  # R22: once the game is over, every hand may be shown
            hands = "; ".join(
                f"{self.names[s]}: {', '.join(map(words.card_label, game.view(s).hand or ()))}"
                for s in range(game.players)
            )
            self.say(f"Hands at the end: {hands}.")
        else:
            self.say("Right or space: next action. Left: back. Home, End: first, last.")

    def action_step(self, by: int) -> None:
        self.step = max(0, min(len(self.games) - 1, self.step + by))
        self.show()


def run_replay(path: str, plain: bool = False, stdout: TextIO | None = None) -> None:
    """Show a saved record: full screen, or (``plain``) every event line by line."""
    games = replay_games(path)
    if not plain:
        ReplayApp(games).run()
        return
    out = stdout or sys.stdout
    last = games[-1].public_view()
    names = words.seat_names(last.players)
    for event in last.events:
        line = words.describe_event(event, last, names)
        if line:
            out.write(line + "\n")
    out.write(board_text(last, names, pointer="> ").plain + "\n")
