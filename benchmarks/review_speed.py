"""How long the quick review of a game takes (the web table's ``/review`` and the terminal's):
games of ``medium`` bots by player count, each reviewed with the quick budget shared by its
positions (:func:`gotown.bots.review.quick_iterations`), timed on one core.

It prints, for each player count, the games' actions (median, longest), the first pass's
futures per position they got, and the review's seconds (median, longest), beside the same
games reviewed at the command line's default (:data:`~gotown.bots.review.REVIEW_ITERATIONS`
futures a position) when ``--full`` is given. Figures depend on the machine's load: compare
the rows of one run (``benchmarks/review_agreement.py`` gives CPU seconds too).

    .venv/bin/python benchmarks/review_speed.py --games 5
"""

from __future__ import annotations

import statistics
import time

import click
from rich.console import Console
from rich.table import Table as RichTable

from gotown.bots import make_bot
from gotown.bots.review import REVIEW_ITERATIONS, quick_iterations, review
from gotown.engine import Game, Record


def played(players: int, seed: int) -> Record:
    """A game of ``medium`` bots (up to 300 turns, R23)."""
    game = Game.new(players=players, seed=seed, options={"turn_limit": 300})
    bots = [make_bot("medium", seed * 8 + seat) for seat in range(players)]
    while not game.is_over:
        seat = game.active
        game.apply(bots[seat].choose(game.view(seat), game.legal_actions()))
    return Record.of(game)


def timed(record: Record, iterations: int) -> float:
    start = time.perf_counter()
    review(record, 0, iterations=iterations)
    return time.perf_counter() - start


@click.command()
@click.option("--games", type=click.IntRange(1), default=5, show_default=True,
              help="Games per player count.")  # fmt: skip
@click.option("--players", "counts", type=click.IntRange(2, 4), multiple=True,
              default=(2, 3, 4), show_default=True, help="Player counts (repeatable).")  # fmt: skip
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--full", is_flag=True,
              help=f"Also time the full review ({REVIEW_ITERATIONS} a position).")  # fmt: skip
def main(games: int, counts: tuple[int, ...], seed: int, full: bool) -> None:
    """Seconds a quick review takes, by player count."""
    table = RichTable(title="The quick review of games of medium bots (one core)")
    for column in (
        "players",
        "actions (median, max)",
        "futures a position",
        "seconds (median, max)",
    ):
        table.add_column(column, justify="right")
    if full:
        table.add_column(f"seconds at {REVIEW_ITERATIONS} (median)", justify="right")
    for players in counts:
        records = [played(players, seed * 1000 + i) for i in range(games)]
        lengths = [len(r.actions) for r in records]
        quick = [quick_iterations(n) for n in lengths]
        seconds = [timed(r, it) for r, it in zip(records, quick, strict=True)]
        row = [
            str(players),
            f"{statistics.median(lengths):.0f}, {max(lengths)}",
            f"{min(quick)} to {max(quick)}",
            f"{statistics.median(seconds):.1f}, {max(seconds):.1f}",
        ]
        if full:
            row.append(f"{statistics.median(timed(r, REVIEW_ITERATIONS) for r in records):.1f}")
        table.add_row(*row)
    Console().print(table)


if __name__ == "__main__":
    main()
