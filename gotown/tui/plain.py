"""``gotown play --plain``: the game line by line, for screen readers, scripts and terminals
where a full-screen app fails.

It prints what happened (the person's events, R22), then on the person's turn the table, the
hand and the legal actions numbered, and reads one line: a number from that list, a move in the
notation (``3+6``, ``5@1``, ``end``), or ``help``, ``hint``, ``discard``, ``quit``. A refused
move prints why, with its rule, and asks again. Bots play at once.
"""

from __future__ import annotations

import sys
from typing import TextIO

from gotown.engine import Action, GoTownError, View, parse_action

from . import words
from .table import LocalTable, Setup
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
    out = stdout or sys.stdout
    table = LocalTable(setup)
    me = table.people[0]
    names = table.names
    logged = 0

    def say(text: str) -> None:
        out.write(text + "\n")
        out.flush()

    def tell_news() -> None:
        nonlocal logged
        view = table.view(me)
        for event in view.events[logged:]:
            line = words.describe_event(event, view, names)
            if line:
                say(line)
        logged = len(view.events)

    say(f"GoTown: {', '.join(names)}. You are seat {me}, {names[me]}. {HELP}")
    while not table.is_over:
        tell_news()
        if table.active != me:
            table.play(table.active, table.bot_choice(table.active))
            continue
        view = table.view(me)
        legal = table.legal(me)
        say(board_text(view, names, pointer="> ").plain)
        say(hand_line(view))
        for number, offered in enumerate(legal, 1):
            say(f"  {number}. {offered}: {words.describe_action(offered, view, names)}")
        out.write("Your move: ")
        out.flush()
        line = source.readline()
        if not line:
            say("\nNo more input: the game stops unfinished.")
            return 1
        text = line.strip()
        if text in ("quit", "q"):
            say("You left the game.")
            return 1
        if text in ("help", "?", "rules"):
            say(HELP if text != "rules" else words.rules_text(view))
            continue
        if text == "discard":
            pile = ", ".join(words.card_name(c) for c in reversed(view.discard)) or "empty"
            say(f"Discard pile, newest first: {pile}")
            continue
        if text == "hint":
            found = table.hint(me)
            say("Hint: " + ", ".join(f"{a} ({p:.0%} to win)" for a, p in found))
            continue
        if text.isdigit() and 1 <= int(text) <= len(legal):
            action: Action = legal[int(text) - 1]
        else:
            try:
                action = parse_action(text)
            except GoTownError as error:
                say(f"Refused: {error}")
                continue
        try:
            table.play(me, action)
        except GoTownError as error:
            say(f"Refused: {error}")
    tell_news()
    view = table.view(me)
    say(board_text(view, names, pointer="> ").plain)
    say(words.outcome_text(view, names))
    if save:
        table.save(save)
        say(f"Saved to {save}.")
    return 0
