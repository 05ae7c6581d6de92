"""Two-player duels for the benchmark scripts: seeded games on all cores, a table of win rates.

Game ``i`` of every line is dealt from the same seed (``seed * 1_000_003 + i``), with seats
alternating (``first_player: 0``, the line's player in seat ``i % 2``) and ``turn_limit: 300``
as in ``benchmarks/bots.sh``; a game with no winner counts as a loss.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console
from rich.progress import Progress
from rich.table import Table as RichTable

from gotown.bots.base import Bot
from gotown.engine import Game

from .tournament import wilson

#: A benchmark's bot factory: a name and a seed in, a bot out.
BotFor = Callable[[str, int], Bot]
#: A line of the table: (player, opponent, games).
Line = tuple[str, str, int]

Command = TypeVar("Command", bound=Callable[..., Any])


def seed_and_workers(command: Command) -> Command:
    """The ``--seed`` and ``--workers`` options of every benchmark script."""
    command = click.option(
        "--workers", default=os.cpu_count() or 1, show_default=True, help="processes"
    )(command)
    return click.option(
        "--seed", default=0, show_default=True, help="game i is dealt from seed * 1000003 + i"
    )(command)


def plot_option(what: str) -> Callable[[Command], Command]:
    """A ``--plot FILE`` option that writes ``what`` as a chart."""
    return click.option(
        "--plot",
        "plot_path",
        type=click.Path(dir_okay=False, path_type=Path),
        help=f"write {what} as a chart (PNG, SVG, PDF)",
    )


def save_figure(fig: Any, path: Path) -> None:
    """Lay out, write and close a matplotlib figure."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    click.echo(f"wrote {path}")


class Seer:
    """A probe that is shown the whole game before each decision (benchmarks only: a real bot
    gets a seat's view and nothing else)."""

    game: Game | None = None


def play(bot_for: BotFor, task: tuple[str, str, int, int]) -> bool:
    """Game ``index`` of ``player`` against ``opponent``; True when ``player`` wins."""
    player, opponent, index, seed = task
    first = index % 2
    game_seed = seed * 1_000_003 + index
    game = Game.new(players=2, seed=game_seed, options={"first_player": 0, "turn_limit": 300})
    names = (player, opponent) if first == 0 else (opponent, player)
    bots = [bot_for(names[s], game_seed * 8 + s) for s in range(2)]
    while not game.is_over:
        seat = game.active
        bot = bots[seat]
        if isinstance(bot, Seer):
            bot.game = game
        game.apply(bot.choose(game.view(seat), game.legal_actions()))
    return game.outcome() == (first, "win")


def run(bot_for: BotFor, lines: Sequence[Line], seed: int, workers: int) -> list[int]:
    """Play every line (a rich progress bar over all of them); the wins of each line."""
    wins = []
    one_game = functools.partial(play, bot_for)
    with ProcessPoolExecutor(workers) as pool, Progress() as progress:
        bar = progress.add_task("games", total=sum(games for _, _, games in lines))
        for player, opponent, games in lines:
            tasks = [(player, opponent, i, seed) for i in range(games)]
            count = 0
            for won in pool.map(one_game, tasks, chunksize=max(1, min(32, games // 100))):
                count += won
                progress.advance(bar)
            wins.append(count)
    return wins


def print_table(title: str, lines: Sequence[Line], wins: Sequence[int]) -> None:
    """Each line's wins and win rate with its 95% Wilson interval."""
    table = RichTable(title=title)
    for column in ("player", "against", "games", "wins", "win rate", "95% CI"):
        table.add_column(column)
    for (player, opponent, games), count in zip(lines, wins, strict=True):
        low, high = wilson(count, games)
        table.add_row(
            player,
            opponent,
            str(games),
            str(count),
            f"{100 * count / games:.1f}%",
            f"{100 * low:.1f} to {100 * high:.1f}%",
        )
    Console().print(table)
