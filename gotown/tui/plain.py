"""``gotown play --plain``: the game line by line, for screen readers, scripts and terminals
where a full-screen app fails.

It prints what happened (the person's events, R22), then on the person's turn the table, the
hand and the legal actions numbered, and reads one line: a number from that list, a move in the
notation (``3+6``, ``5@1``, ``end``), or ``help``, ``hint``, ``discard``, ``quit``. A refused
move prints why, with its rule, and asks again. Bots play at once.
"""

from __future__ import annotations

import shutil
import sys
import textwrap
from collections.abc import Callable, Sequence
from typing import TextIO

from gotown.engine import Action, GoTownError, View, parse_action

from . import words
from .session import LocalSession, Setup
from .widgets import board_text

HELP = (
    "Type the number of an action, or a move in the notation (3+6, 5@1, dog#0, bone#1@1, "
    "jackhammer@1, thief@1, milkshake@1, donut-truck, end); 'hint' for the strong bot's "
    "advice, 'discard' for the discard pile, 'rules' for the rules, 'quit' to stop."
)


def hand_line(view: View) -> str:
    """The hand, pairs that make nine in brackets: ``Your hand: (3 6) (5 ?) 7 Dog``."""
    hand = view.hand or ()
    parts = []
    for group in words.hand_groups(hand):
        names = " ".join(words.card_label(hand[i]) for i in group)
        parts.append(f"({names})" if len(group) > 1 else names)
    return "Your hand: " + (" ".join(parts) if parts else "empty")


class PersonLeftError(Exception):
    """The person left: ``quit``, or the end of the input."""


def terminal_width(out: TextIO) -> int | None:
    """The width to wrap lines at: a terminal's (else it breaks words where its edge falls), and
    none for a file or a pipe, where a program reads whole lines."""
    return shutil.get_terminal_size().columns if out.isatty() else None


def wrapped(text: str, width: int | None) -> str:
    """``text`` with each line broken between words to fit ``width`` columns; an indented line
    (an item of a list) goes on two spaces further in. A word longer than a line stays whole."""
    if width is None:
        return text
    lines = []
    for line in text.split("\n"):
        indent = line[: len(line) - len(line.lstrip())]
        more = indent + "  " if indent else ""
        found = textwrap.wrap(line, width, subsequent_indent=more, break_long_words=False,
                              break_on_hyphens=False)  # fmt: skip
        lines += found or [""]
    return "\n".join(lines)


def end_lines(view: View, names: list[str]) -> list[str]:
    """The end of a game: the table, every hand laid down (R22), and how it ended."""
    table = board_text(view, names, pointer="> ").plain
    return [table, words.hands_text(view, names), words.outcome_text(view, names)]


class PlainSeat:
    """One person's seat, line by line: what happened, the table on their turn, and their
    answer read as an action (or a command: help, rules, discard, hint, quit)."""

    def __init__(self, out: TextIO, names: list[str]) -> None:
        self.out = out
        self.names = names
        self.logged = 0
        self.width = terminal_width(out)

    def say(self, text: str) -> None:
        self.out.write(wrapped(text, self.width) + "\n")
        self.out.flush()

    def tell_news(self, view: View) -> None:
        """The events not told yet (R22: as the seat saw them); the end is told by
        :meth:`show_end`, after the table."""
        if len(view.events) < self.logged:
            self.logged = 0
        for event in view.events[self.logged :]:
            line = event.type != "end" and words.describe_event(event, view, self.names)
            if line:
                self.say(line)
        self.logged = len(view.events)

    def show_turn(self, view: View, legal: Sequence[Action]) -> None:
        self.say(board_text(view, self.names, pointer="> ").plain)
        self.say(hand_line(view))
        for number, offered in enumerate(legal, 1):
            self.say(f"  {number}. {offered}: {words.describe_action(offered, view, self.names)}")

    def show_end(self, view: View) -> None:
        for line in end_lines(view, self.names):
            self.say(line)

    def ask(
        self,
        source: TextIO,
        view: View,
        legal: Sequence[Action],
        hint: Callable[[], list[tuple[Action, float]]],
    ) -> Action | None:
        """Read one answer: the action it names, or None when it was a command (answered
        here) or no action (the reason said). Raises :class:`PersonLeftError`."""
        self.out.write("Your move: ")
        self.out.flush()
        line = source.readline()
        if not line:
            self.say("\nNo more input: the game stops unfinished.")
            raise PersonLeftError
        text = line.strip()
        if text in ("quit", "q"):
            self.say("You left the game.")
            raise PersonLeftError
        if text in ("help", "?", "rules"):
            self.say(HELP if text != "rules" else words.rules_text(view))
            return None
        if text == "discard":
            pile = ", ".join(words.card_name(c) for c in reversed(view.discard)) or "empty"
            self.say(f"Discard pile, newest first: {pile}")
            return None
        if text == "hint":
            found = hint()
            if not found:
                self.say("No hint: nothing to choose.")
                return None
            moves = ", ".join(f"{a} ({p:.0%})" for a, p in found)
            first = words.describe_action(found[0][0], view, self.names)
            self.say(f"Hint: {first}. The strong bot's choices, with the chance to win after "
                     f"each: {moves}")  # fmt: skip
            return None
        if text.isdigit() and 1 <= int(text) <= len(legal):
            return legal[int(text) - 1]
        try:
            return parse_action(text)
        except GoTownError as error:
            self.say(f"Refused: {error}")
            return None


def play_plain(
    setup: Setup,
    save: str | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> int:
    """Play one game; 0 when it ended, 1 when the input ended (or ``quit``) before."""
    if setup.people != 1:
        raise ValueError("--plain seats one person: a hot-seat game needs the full screen")
    source = stdin or sys.stdin
    session = LocalSession(setup)
    me = session.people[0]
    seat = PlainSeat(stdout or sys.stdout, session.names)
    who = "" if session.names[me] == "You" else f", {session.names[me]}"
    seat.say(f"GoTown: {', '.join(session.names)}. You are seat {me}{who}. {HELP}")
    while not session.is_over:
        view = session.view(me)
        seat.tell_news(view)
        if session.active != me:
            session.play(session.active, session.bot_choice(session.active))
            continue
        legal = session.legal(me)
        seat.show_turn(view, legal)
        try:
            action = seat.ask(source, view, legal, lambda: session.hint(me))
        except PersonLeftError:
            return 1
        if action is None:
            continue
        try:
            session.play(me, action)
        except GoTownError as error:
            seat.say(f"Refused: {error}")
    view = session.view(me)
    seat.tell_news(view)
    seat.show_end(view)
    if save:
        session.save(save)
        seat.say(f"Saved to {save}.")
    return 0
