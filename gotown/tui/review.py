"""The review of a replayed game in the terminal (:mod:`gotown.bots.review`): each seat's chance
to win over the game as a text sparkline, the turning points and the reviewed seat's mistakes,
each one a step the replay can jump to (the position after that action).

The review is quick (:func:`~gotown.bots.review.quick_iterations`: a few seconds a game), and
only of a finished record's public replay, where every hand may be shown (R22).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from gotown.bots.review import Review
from gotown.engine import format_action

#: Eight heights, from a chance of 0 to one of 1.
BARS = "▁▂▃▄▅▆▇█"


def sparkline(values: Sequence[float], width: int) -> str:
    """``values`` (chances, 0 to 1) in at most ``width`` characters: each character the mean
    of the values it stands for."""
    if not values or width < 1:
        return ""
    columns = min(width, len(values))
    line = []
    for column in range(columns):
        part = values[column * len(values) // columns : (column + 1) * len(values) // columns]
        mean = sum(part) / len(part)
        line.append(BARS[min(len(BARS) - 1, max(0, round(mean * (len(BARS) - 1))))])
    return "".join(line)


def percent(chance: float) -> str:
    return f"{100 * chance:.0f}%"


def chance_lines(review: Review, names: Sequence[str], width: int) -> list[str]:
    """One line per seat: its name, its chance over the game, and at the start and the end."""
    chances = review.chances()
    label = max(len(name) for name in names)
    spark = max(8, width - label - 14)
    return [
        f"{names[seat]:<{label}} {sparkline([c[seat] for c in chances], spark)} "
        f"{percent(chances[0][seat]):>4}→{percent(chances[-1][seat])}"
        for seat in range(review.players)
    ]


def jumps(review: Review, names: Sequence[str]) -> list[tuple[int, str]]:
    """The turning points, then the mistakes: (the step after the action, its line)."""
    found = [
        (
            m.index + 1,
            f"Turn {m.turn}, step {m.index + 1}: {names[m.seat]} played "
            f"{format_action(m.action)}, a swing of {percent(m.swing)}",
        )
        for m in review.turning_points
    ]
    found += [
        (m.moment.index + 1, f"Step {m.moment.index + 1}: {m.describe()}") for m in review.mistakes
    ]
    return found


def review_text(review: Review, names: Sequence[str], result: str, width: int = 72) -> str:
    """The whole review as plain lines (``--plain``); ``result``: how the game ended, in a few
    words."""
    lines = [f"Chances to win over {len(review.moments)} actions ({result}):"]
    lines += ["  " + line for line in chance_lines(review, names, width - 2)]
    lines.append("Turning points:")
    lines += [f"  {text}" for _, text in jumps(review, names)[: len(review.turning_points)]]
    if review.seat is not None:
        mistakes = jumps(review, names)[len(review.turning_points) :]
        lines.append(
            f"{names[review.seat]}'s mistakes:"
            if mistakes
            else f"{names[review.seat]}: no mistakes."
        )
        lines += [f"  {text}" for _, text in mistakes]
    return "\n".join(lines)


class ReviewScreen(ModalScreen[int | None]):
    """The review over the replay; Enter on a turning point or a mistake answers its step."""

    DEFAULT_CSS = """
    ReviewScreen { align: center middle; }
    ReviewScreen #review {
        width: 78; height: auto; max-height: 22; background: $panel; padding: 0 1;
    }
    ReviewScreen #review-chances { margin: 1 0; }
    ReviewScreen #review-jumps { height: auto; max-height: 8; border: none; }
    """
    BINDINGS = [Binding("escape,q,v", "dismiss_none", "Back")]

    def __init__(self, review: Review, names: Sequence[str], result: str) -> None:
        super().__init__()
        self.review = review
        self.names = list(names)
        self.result = result
        self.steps = [step for step, _ in jumps(review, names)]

    def compose(self) -> ComposeResult:
        width = 74
        title = f"Chances to win, {len(self.review.moments)} actions ({self.result})"
        with Vertical(id="review"):
            yield Static(Text(title, style="bold"))
            yield Static(
                "\n".join(chance_lines(self.review, self.names, width)), id="review-chances"
            )
            title = "Turning points"
            if self.review.seat is not None:
                title += f" and {self.names[self.review.seat]}'s mistakes"
            yield Static(Text(title + " (Enter: go there)", style="bold"))
            yield OptionList(
                *(
                    Option(text, id=f"jump-{i}")
                    for i, (_, text) in enumerate(jumps(self.review, self.names))
                ),
                id="review-jumps",
            )
            yield Static(
                Text("Up, Down: choose. Enter: show that step. Escape: back.", style="dim")
            )

    def on_mount(self) -> None:
        self.query_one("#review-jumps", OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.steps[event.option_index])

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
