"""The review of a replayed game in the terminal (:mod:`gotown.bots.review`): each seat's chance
to win over the game as a text sparkline and where those chances come from, the turning points
(what swung the game: a seat's decision, or luck: which cards were drawn or stolen) and the
reviewed seat's mistakes (each one's size in games out of ten), each one a step the replay can
jump to (the position after that action).

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

from gotown.bots.review import BASIS, DECISION, DRAW, Mistake, Review, TurningPoint
from gotown.engine import format_action

from .words import card_name

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


def cards_text(cards: Sequence[str]) -> str:
    """``a 5``, ``a 5 and a Thief``, ``an 8, a 2 and a Joker``."""
    each = [f"an {c}" if c == "8" else f"a {card_name(c)}" for c in cards]
    return each[0] if len(each) == 1 else f"{', '.join(each[:-1])} and {each[-1]}"


def turning_point_text(point: TurningPoint, names: Sequence[str]) -> str:
    """What swung the game there: a seat's decision, or luck (the cards drawn, or taken by a
    thief), and the chance it moved most, before and after."""
    where = f"Turn {point.turn}, step {point.index + 1}"
    actor = names[point.seat]
    if point.cause == DECISION:
        what = f"a decision: {actor} played {format_action(point.action)}"
    else:
        verb = "drew" if point.cause == DRAW else "took"
        took = "; ".join(f"{names[s]} {verb} {cards_text(c)}" for s, c in point.cards)
        if point.cause != DRAW:  # (a theft: whose thief took what)
            took = f"{actor}'s {format_action(point.action)} took " + "; ".join(
                cards_text(c) for _, c in point.cards
            )
        what = f"luck: {took}"
    return f"{where}, {what}. {names[point.who]}: {percent(point.before)} → {percent(point.after)}"


def mistake_text(mistake: Mistake, names: Sequence[str]) -> str:
    """The move, the better one, and how many more games out of ten the better one wins."""
    m = mistake.moment
    return (
        f"Turn {m.turn}, step {m.index + 1}, {mistake.kind}: {names[m.seat]} played "
        f"{format_action(m.action)}; {format_action(mistake.best)} would have won "
        f"{mistake.size()} more ({percent(mistake.best_chance)} instead of "
        f"{percent(mistake.played_chance)})"
    )


def basis_text(review: Review, names: Sequence[str]) -> str:
    """Where the chances come from, and the mistakes."""
    text = f"Chances with {BASIS}."
    if review.seat is not None:
        text += f" Mistakes from what {names[review.seat]} could see then."
    return text


def jumps(review: Review, names: Sequence[str]) -> list[tuple[int, str]]:
    """The turning points, then the mistakes: (the step after the action, its line)."""
    found = [(t.index + 1, turning_point_text(t, names)) for t in review.turning_points]
    found += [(m.moment.index + 1, mistake_text(m, names)) for m in review.mistakes]
    return found


def review_text(review: Review, names: Sequence[str], result: str, width: int = 72) -> str:
    """The whole review as plain lines (``--plain``); ``result``: how the game ended, in a few
    words."""
    lines = [f"Chances to win over {len(review.moments)} actions ({result}):"]
    lines += ["  " + line for line in chance_lines(review, names, width - 2)]
    lines.append(basis_text(review, names))
    lines.append("Turning points:" if review.turning_points else "Turning points: none.")
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
    ReviewScreen #review-chances { margin: 1 0 0 0; }
    ReviewScreen #review-basis { margin: 0 0 1 0; }
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
            yield Static("\n".join(chance_lines(self.review, self.names, width)),
                         id="review-chances")  # fmt: skip
            yield Static(Text(basis_text(self.review, self.names), style="dim"),
                         id="review-basis")  # fmt: skip
            title = "Turning points"
            if self.review.seat is not None:
                title += f" and {self.names[self.review.seat]}'s mistakes"
            yield Static(Text(title + " (Enter: go there)", style="bold"))
            rows = jumps(self.review, self.names)
            yield OptionList(
                *(Option(text, id=f"jump-{i}") for i, (_, text) in enumerate(rows)),
                id="review-jumps",
            )
            if not rows:
                yield Static("None: nothing swung the game that much, and no move lost that much.")
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
