"""Whether the post-game review names the same things whatever its seed: games of bots, each
reviewed with three seeds (:func:`gotown.bots.review.review`), and the review's time.

It prints, over the games, the share whose turning points (action and cause) are the same set
with every seed, the share whose mistakes (the reviewed seat's, by action) are, the share where
both are, and how many were named; the review's seconds (median, longest), also in CPU time
(on a busy machine the wall clock counts the others' work too); how far the chance line moves
at a step (mean, all seats); and how many turning points were the decision to end a turn.
Run it with the compiled engine and search, as the server runs them:

    scripts/build-engine
    PYTHONPATH=build/compiled-engine .venv/bin/python benchmarks/review_agreement.py --games 50
"""

from __future__ import annotations

import statistics
import time

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
from rich.table import Table as RichTable

import gotown.bots
import gotown.engine
from gotown.bots import make_bot
from gotown.bots.review import REVIEW_ITERATIONS, Review, review
from gotown.engine import Game, Record


def played(players: int, levels: list[str], seed: int) -> Record:
    """A game of the bots ``levels`` (seat by seat, repeated), up to 300 turns (R23)."""
    game = Game.new(players=players, seed=seed, options={"turn_limit": 300})
    bots = [make_bot(levels[s % len(levels)], seed * 8 + s) for s in range(players)]
    while not game.is_over:
        seat = game.active
        game.apply(bots[seat].choose(game.view(seat), game.legal_actions()))
    return Record.of(game)


def named(found: Review) -> tuple[frozenset[tuple[int, str]], frozenset[int]]:
    """What a review names: its turning points (action, cause) and mistakes (action)."""
    points = frozenset((t.index, t.cause) for t in found.turning_points)
    return points, frozenset(m.moment.index for m in found.mistakes)


def share(count: int, total: int) -> str:
    return f"{count}/{total} ({100 * count / total:.0f}%)"


@click.command()
@click.option("--games", type=click.IntRange(1), default=50, show_default=True)
@click.option("--players", type=click.IntRange(2, 4), default=2, show_default=True)
@click.option("--bots", default="easy,medium", show_default=True,
              help="The seats' bot levels, in order (repeated for more seats).")  # fmt: skip
@click.option("--seat", type=click.IntRange(0, 3), default=0, show_default=True,
              help="The reviewed seat (its mistakes).")  # fmt: skip
@click.option("--seeds", default="0,1,2", show_default=True, help="The review's seeds.")
@click.option("--iterations", type=click.IntRange(1), default=REVIEW_ITERATIONS,
              show_default=True, help="The cheap pass's futures per position.")  # fmt: skip
@click.option("--first-game", type=int, default=1000, show_default=True,
              help="The first game's seed (the others follow).")  # fmt: skip
@click.option("--verbose", is_flag=True, help="Print every game where the seeds disagree.")
def main(games: int, players: int, bots: str, seat: int, seeds: str, iterations: int,
         first_game: int, verbose: bool) -> None:  # fmt: skip
    """How often three seeds of the review name the same turning points and mistakes."""
    levels = bots.split(",")
    review_seeds = [int(s) for s in seeds.split(",")]
    console = Console()
    same_points = same_mistakes = same_both = 0
    seconds: list[float] = []
    cpu_seconds: list[float] = []  # (a shared machine's wall time counts the others' work)
    steps: list[float] = []
    counts = {"turning points": 0, "mistakes": 0, "ends": 0}
    columns = ("{task.description}", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console) as bar:
        task = bar.add_task("reviewing", total=games * len(review_seeds))
        for g in range(games):
            record = played(players, levels, first_game + g)
            found = []
            for s in review_seeds:
                start, cpu = time.perf_counter(), time.process_time()
                found.append(review(record, seat, iterations=iterations, seed=s))
                seconds.append(time.perf_counter() - start)
                cpu_seconds.append(time.process_time() - cpu)
                bar.advance(task)
            sets = [named(f) for f in found]
            points = len({p for p, _ in sets}) == 1
            mistakes = len({m for _, m in sets}) == 1
            same_points += points
            same_mistakes += mistakes
            same_both += points and mistakes
            for f in found:
                chances = f.chances()
                steps += [
                    abs(a[s] - b[s])
                    for a, b in zip(chances[1:], chances, strict=False)
                    for s in range(players)
                ]
                counts["turning points"] += len(f.turning_points)
                counts["mistakes"] += len(f.mistakes)
                counts["ends"] += sum(
                    t.cause == "decision" and t.action.type == "end-turn" for t in f.turning_points
                )
            if verbose and not (points and mistakes):
                console.print(f"game {first_game + g} ({len(record.actions)} actions):")
                for s, f in zip(review_seeds, found, strict=True):
                    said = [t.describe() for t in f.turning_points]
                    said += [m.describe() for m in f.mistakes]
                    console.print(f"  seed {s}: " + "; ".join(said))
    reviews = games * len(review_seeds)
    compiled = gotown.engine.COMPILED and gotown.bots.COMPILED
    table = RichTable(
        title=f"The review of {games} games of {bots} ({players} players), seat {seat} "
        f"reviewed, seeds {seeds}, {iterations} futures a position "
        f"({'compiled' if compiled else 'pure Python'})"
    )
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_row("same turning points with every seed", share(same_points, games))
    table.add_row("same mistakes with every seed", share(same_mistakes, games))
    table.add_row("same turning points and mistakes", share(same_both, games))
    table.add_row("turning points a review", f"{counts['turning points'] / reviews:.2f}")
    table.add_row("mistakes a review", f"{counts['mistakes'] / reviews:.2f}")
    table.add_row("turning points that are a decision to end", str(counts["ends"]))
    table.add_row("mean change of a seat's chance at a step",
                  f"{100 * statistics.mean(steps):.1f} points")  # fmt: skip
    table.add_row("seconds a review (median, max)",
                  f"{statistics.median(seconds):.1f}, {max(seconds):.1f}")  # fmt: skip
    table.add_row("CPU seconds a review (median, max)",
                  f"{statistics.median(cpu_seconds):.1f}, {max(cpu_seconds):.1f}")  # fmt: skip
    console.print(table)


if __name__ == "__main__":
    main()
