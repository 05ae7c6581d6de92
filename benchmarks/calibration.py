"""How far to trust a search bot's win probabilities (the hint and the chances bar).

``gotown.bots.hint`` ranks the actions with an estimated probability that the seat goes on to
win; the web table shows the best one as a bar. This benchmark checks those numbers against
what happened. The observed player (``hard``, ``expert`` or ``hint``: the hint's own search,
4,000 iterations, without its time cap so that runs are reproducible) plays two-player games
against an opponent level; at each of its decisions that is searched (more than one legal
action, and no build or steal that wins at once, which it takes without search) it records
the estimate of the action it plays, from :meth:`SearchBot.evaluate`. At the end of the game
every estimate of that game is paired with the outcome: 1 if the observed player won.

It prints, by bins of the estimate, the decisions and games in the bin, the mean estimate and
the share of those decisions whose player went on to win, with a 95% interval from a bootstrap
over games (the decisions of one game share its outcome, so they are not independent); the
Brier score beside that of always saying the player's overall win rate (the skill score is
the share of that error the estimates remove); and the calibration error (the bins' gaps
between estimate and outcome, weighted by decisions). ``--plot`` draws the reliability
diagram.

Games are dealt and seated as in ``gotown/tournament/duel.py`` (game ``i`` from seed
``seed * 1_000_003 + i``, seats alternating, ``turn_limit: 300``; a game with no winner is a
loss).

    .venv/bin/python benchmarks/calibration.py --player hard --opponent medium --games 300
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import Progress
from rich.table import Table as RichTable

from gotown.bots import EXPERT_ITERATIONS, HARD_ITERATIONS, HINT_ITERATIONS, LEVELS, make_bot
from gotown.bots.ismcts import SearchBot, winning_action
from gotown.bots.rules import ViewFacts
from gotown.engine import Game
from gotown.tournament.duel import plot_option, save_figure, seed_and_workers

#: The observed players: a search level and its iterations (two players: no work cap).
OBSERVED = {"hard": HARD_ITERATIONS, "expert": EXPERT_ITERATIONS, "hint": HINT_ITERATIONS}

#: One game: the observed player's estimates, in order, and whether it won.
Record = tuple[list[float], bool]


def play(task: tuple[str, str, int, int]) -> Record:
    """Game ``index``: the observed player's searched estimates and whether it won."""
    player, opponent, index, seed = task
    first = index % 2
    game_seed = seed * 1_000_003 + index
    game = Game.new(players=2, seed=game_seed, options={"first_player": 0, "turn_limit": 300})
    observed = SearchBot(player, game_seed * 8 + first, OBSERVED[player], rollout_turns=None)
    other = make_bot(opponent, game_seed * 8 + 1 - first)
    estimates: list[float] = []
    while not game.is_over:
        seat = game.active
        view, legal = game.view(seat), game.legal_actions()
        if seat != first:
            game.apply(other.choose(view, legal))
            continue
        quick = winning_action(ViewFacts(view), seat, legal, view.options.win_floors)
        if len(legal) == 1 or quick is not None:
            game.apply(quick or legal[0])
            continue
        action, estimate = observed.evaluate(view, legal)[0]
        estimates.append(estimate)
        game.apply(action)
    return estimates, game.outcome() == (first, "win")


def bin_of(estimate: float, bins: int) -> int:
    """The bin of an estimate in [0, 1]: ``bins`` equal widths, 1.0 in the last."""
    return min(int(estimate * bins), bins - 1)


def summarise(
    records: Sequence[Record], bins: int, resamples: int = 1000, seed: int = 0
) -> dict[str, Any]:
    """Calibration figures of the records (see the module docstring)."""
    decisions = [(e, won) for estimates, won in records for e in estimates]
    if not decisions:
        raise click.ClickException("no searched decision was recorded: play more games")
    base = sum(won for _, won in records) / len(records)
    brier = sum((e - won) ** 2 for e, won in decisions) / len(decisions)
    brier_base = sum((base - won) ** 2 for _, won in decisions) / len(decisions)
    # Per game and bin: (decisions, wins, sum of estimates), for the bootstrap over games.
    per_game = []
    for estimates, won in records:
        cells = [[0, 0, 0.0] for _ in range(bins)]
        for e in estimates:
            cell = cells[bin_of(e, bins)]
            cell[0] += 1
            cell[1] += won
            cell[2] += e
        per_game.append(cells)
    rows = []
    rng = random.Random(seed)
    draws: list[list[float]] = [[] for _ in range(bins)]
    for _ in range(resamples):
        sample = [per_game[rng.randrange(len(per_game))] for _ in per_game]
        for b in range(bins):
            n = sum(cells[b][0] for cells in sample)
            if n:
                draws[b].append(sum(cells[b][1] for cells in sample) / n)
    ece = 0.0
    for b in range(bins):
        n = sum(cells[b][0] for cells in per_game)
        if not n:
            continue
        wins = sum(cells[b][1] for cells in per_game)
        mean = sum(cells[b][2] for cells in per_game) / n
        games = sum(1 for cells in per_game if cells[b][0])
        ordered = sorted(draws[b])
        low = ordered[int(0.025 * (len(ordered) - 1))]
        high = ordered[int(0.975 * (len(ordered) - 1))]
        rows.append(
            {
                "bin": (b / bins, (b + 1) / bins),
                "decisions": n,
                "games": games,
                "estimate": mean,
                "won": wins / n,
                "ci": (low, high),
            }
        )
        ece += n / len(decisions) * abs(mean - wins / n)
    return {
        "games": len(records),
        "decisions": len(decisions),
        "win_rate": base,
        "brier": brier,
        "brier_base": brier_base,
        "skill": 1 - brier / brier_base if brier_base else 0.0,
        "ece": ece,
        "rows": rows,
    }


def _plot(summary: dict[str, Any], title: str, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = summary["rows"]
    fig, (top, bottom) = plt.subplots(
        2, 1, figsize=(5.5, 6.5), sharex=True, gridspec_kw={"height_ratios": [3, 1]}
    )
    top.plot([0, 1], [0, 1], linestyle="--", color="grey", label="perfect calibration")
    xs = [row["estimate"] for row in rows]
    ys = [row["won"] for row in rows]
    errors = [
        [row["won"] - row["ci"][0] for row in rows],
        [row["ci"][1] - row["won"] for row in rows],
    ]
    top.errorbar(xs, ys, yerr=errors, marker="o", capsize=3, label="observed (95% CI)")
    top.set_ylabel("share of decisions whose player won")
    top.set_xlim(0, 1)
    top.set_ylim(0, 1)
    top.set_title(title)
    top.legend(loc="upper left")
    lows = [row["bin"][0] for row in rows]
    widths = [row["bin"][1] - row["bin"][0] for row in rows]
    bottom.bar(lows, [row["decisions"] for row in rows], width=widths, align="edge")
    bottom.set_xlabel("estimated win probability of the move played")
    bottom.set_ylabel("decisions")
    save_figure(fig, path)


@click.command()
@click.option(
    "--player",
    type=click.Choice(sorted(OBSERVED)),
    default="hard",
    show_default=True,
    help="the search whose estimates are checked",
)
@click.option(
    "--opponent",
    type=click.Choice(LEVELS),
    default="medium",
    show_default=True,
    help="the level it plays against",
)
@click.option("--games", default=300, show_default=True, type=click.IntRange(min=1))
@click.option("--bins", default=10, show_default=True, type=click.IntRange(min=2, max=50))
@seed_and_workers
@plot_option("the reliability diagram")
def main(
    player: str,
    opponent: str,
    games: int,
    bins: int,
    seed: int,
    workers: int,
    plot_path: Path | None,
) -> None:
    """Check a search bot's estimated win probabilities against the games' outcomes."""
    tasks = [(player, opponent, i, seed) for i in range(games)]
    records: list[Record] = []
    with ProcessPoolExecutor(workers) as pool, Progress() as progress:
        bar = progress.add_task("games", total=games)
        for record in pool.map(play, tasks):
            records.append(record)
            progress.advance(bar)
    summary = summarise(records, bins, seed=seed)
    title = f"{player} against {opponent}: {games} games, seed {seed}"
    table = RichTable(title=title)
    for column in ("estimate", "decisions", "games", "mean estimate", "won", "95% CI (games)"):
        table.add_column(column)
    for row in summary["rows"]:
        low, high = row["bin"]
        table.add_row(
            f"{low:.1f} to {high:.1f}",
            str(row["decisions"]),
            str(row["games"]),
            f"{row['estimate']:.3f}",
            f"{row['won']:.3f}",
            f"{row['ci'][0]:.3f} to {row['ci'][1]:.3f}",
        )
    Console().print(table)
    click.echo(
        f"{summary['decisions']} searched decisions in {summary['games']} games; "
        f"{player} won {100 * summary['win_rate']:.1f}%.\n"
        f"Brier score {summary['brier']:.4f} (always saying the win rate: "
        f"{summary['brier_base']:.4f}; skill {summary['skill']:.3f}); "
        f"calibration error {summary['ece']:.3f}."
    )
    if plot_path is not None:
        _plot(summary, title, plot_path)


if __name__ == "__main__":
    main()
