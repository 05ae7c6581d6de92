"""The bots on one scale: what the strength targets ask of them together.

Each two-player tournament gives one bot's win rate against another. Put every bot on a
*logit scale* (the Bradley-Terry model, which the Elo and openskill ratings also assume): bot
*a* beats bot *b* in a share ``1 / (1 + exp(-(s_a - s_b)))`` of their games, with ``random`` at
0. The strengths are fitted to the published tournaments by weighted least squares on the
logits of their win rates (each weighted by its inverse variance, ``n p (1 - p)``), and the
script prints, for every pairing, the rate measured and the rate the scale predicts: when they
agree within their noise, the scale describes the bots.

The issue's targets are then distances on that scale: ``easy`` at least logit(0.90) above
``random``, ``medium`` at least logit(0.60) above ``easy``, ``hard`` at least logit(0.65)
above ``medium``. Added up, they put ``hard`` at least 3.22 above ``random``: a bot that beats
``random`` in 96.2% of games. The script prints that ladder beside the fitted strengths, and
``--plot`` draws both.

A win rate counts games without a winner (deadlocks, R7b, about 1 in 100) as not won, as the
targets do; the fit counts them as half a point each, so that a pairing reads the same
whichever bot a file names first (the two differ by half the deadlocked share, about half a
point).

    .venv/bin/python benchmarks/scale.py --plot benchmarks/bots-results/scale.png

It reads only results files (``gotown tournament --json``), in a second.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import numpy as np
from rich.console import Console
from rich.table import Table as RichTable

from gotown.tournament.duel import plot_option, save_figure
from gotown.tournament.tournament import entry_names, wilson

RESULTS = Path(__file__).resolve().parent / "bots-results"
#: The published two-player tournaments (``benchmarks/bots.md``), each a results file.
PUBLISHED = (
    "easy-random",
    "medium-random",
    "medium-easy",
    "hard-medium",
    "hard-random",
    "expert-hard-440cdbb",
    "expert-medium-resumable",
    "expert-random",
)
#: The targets of the issue, as (bot, above, win rate).
TARGETS = (("easy", "random", 0.90), ("medium", "easy", 0.60), ("hard", "medium", 0.65))


@dataclass(frozen=True)
class Pairing:
    """Bot ``a``'s wins in ``games`` two-player games against bot ``b`` (``losses``: ``b``'s
    wins; the rest had no winner)."""

    a: str
    b: str
    games: int
    wins: int
    source: str
    losses: int | None = None

    @property
    def rate(self) -> float:
        """``a``'s win rate, games without a winner counted as not won (as the targets)."""
        return self.wins / self.games

    @property
    def share(self) -> float:
        """``a``'s share of the points, a game without a winner half a point each: what the
        fit uses, the same read from either side."""
        losses = self.games - self.wins if self.losses is None else self.losses
        return (self.wins + (self.games - self.wins - losses) / 2) / self.games


def logit(p: Any) -> Any:
    """log(p / (1 - p)), of a number or of a numpy array (the plot's axis)."""
    return np.log(p / (1 - p))


def expit(x: Any) -> Any:
    """The inverse of :func:`logit`: 1 / (1 + e^-x)."""
    return 1 / (1 + np.exp(-x))


def read_pairing(path: Path) -> Pairing:
    """The first entry's wins against the second in a two-player results file, counted from
    its games: all of them, or for a tournament stopped early (``--max-seconds``) its whole
    pairs of games from the first, as the tournament itself reports them (each bot starting
    once in a pair)."""
    try:
        data = json.loads(path.read_text())
        lineup, results = data["lineup"], data["results"]
        if len(lineup) != 2 or not isinstance(results, list):
            raise ValueError
        games = sorted(results, key=lambda game: game["index"])
        whole = len(games) if data.get("complete") else len(games) // 2 * 2
        games = games[:whole]
        wins = sum(1 for game in games if game["winner"] == 0)
        losses = sum(1 for game in games if game["winner"] == 1)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise click.ClickException(f"{path}: not a two-player tournament's results") from exc
    if not games:
        raise click.ClickException(f"{path}: no whole pair of games")
    first, second = entry_names(lineup)
    source = path.name if data.get("complete") else f"{path.name} (stopped early)"
    return Pairing(first, second, len(games), wins, source, losses)


def fit(pairings: Sequence[Pairing], anchor: str = "random") -> dict[str, tuple[float, float]]:
    """Each bot's strength and its standard error, ``anchor`` at 0: the weighted least squares
    fit of ``logit(share) = s_a - s_b`` over the pairings (weights ``n p (1 - p)``), a game
    without a winner half a point each, so that a pairing reads the same from either side."""
    bots = sorted(({p.a for p in pairings} | {p.b for p in pairings}) - {anchor})
    index = {bot: i for i, bot in enumerate(bots)}
    rows = np.zeros((len(pairings), len(bots)))
    y = np.zeros(len(pairings))
    w = np.zeros(len(pairings))
    for k, p in enumerate(pairings):
        share = p.share
        if not 0 < share < 1:
            raise click.ClickException(f"{p.source}: a share of 0 or 1 has no logit")
        if p.a in index:
            rows[k, index[p.a]] = 1.0
        if p.b in index:
            rows[k, index[p.b]] = -1.0
        y[k] = logit(share)
        w[k] = p.games * share * (1 - share)
    normal = rows.T @ (w[:, None] * rows)
    if np.linalg.matrix_rank(normal) < len(bots):
        raise click.ClickException(f"the pairings do not link every bot to {anchor}")
    covariance = np.linalg.inv(normal)
    strengths = covariance @ (rows.T @ (w * y))
    out = {anchor: (0.0, 0.0)}
    for bot, i in index.items():
        out[bot] = (float(strengths[i]), float(math.sqrt(covariance[i, i])))
    return out


def ladder(targets: Sequence[tuple[str, str, float]] = TARGETS) -> dict[str, float]:
    """The least strength each bot needs for every target to hold, ``random`` at 0."""
    need = {"random": 0.0}
    for bot, above, rate in targets:
        need[bot] = need[above] + logit(rate)
    return need


@click.command()
@click.argument("files", nargs=-1, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@plot_option("the fitted strengths beside the targets' ladder")
def main(files: tuple[Path, ...], plot_path: Path | None) -> None:
    """Fit the bots' strengths to two-player results FILES (default: the published ones in
    benchmarks/bots-results that exist) and compare them with the targets' ladder."""
    paths = list(files) or [
        RESULTS / f"{name}.json" for name in PUBLISHED if (RESULTS / f"{name}.json").exists()
    ]
    if not paths:
        raise click.UsageError("no results files")
    pairings = [read_pairing(path) for path in paths]
    strengths = fit(pairings)
    console = Console(width=max(Console().width, 110))

    table = RichTable(title="Each pairing: measured, and predicted by the scale")
    columns = ("pairing", "games", "win rate", "95% CI", "share", "predicted share", "file")
    for column in columns:
        table.add_column(column)
    for p in pairings:
        low, high = wilson(p.wins, p.games)
        predicted = expit(strengths[p.a][0] - strengths[p.b][0])
        table.add_row(
            f"{p.a} vs {p.b}",
            str(p.games),
            f"{100 * p.rate:.1f}%",
            f"{100 * low:.1f} to {100 * high:.1f}%",
            f"{100 * p.share:.1f}%",
            f"{100 * predicted:.1f}%",
            p.source,
        )
    console.print(table)
    click.echo("(share: a game without a winner counts half a point to each bot)")

    need = ladder()
    table = RichTable(title="Strengths (logit scale, random = 0) and what the targets need")
    for column in ("bot", "strength", "± 1.96 s.e.", "as a share vs random", "targets need"):
        table.add_column(column)
    for bot, (value, error) in sorted(strengths.items(), key=lambda item: item[1][0]):
        wanted = need.get(bot)
        table.add_row(
            bot,
            f"{value:.2f}",
            f"{1.96 * error:.2f}",
            f"{100 * expit(value):.1f}%" if bot != "random" else "",
            f"≥ {wanted:.2f} ({100 * expit(wanted):.1f}% vs random)" if wanted else "",
        )
    console.print(table)
    top = max(strengths.items(), key=lambda item: item[1][0])
    click.echo(
        f"The targets together put hard at least {need['hard']:.2f} above random: "
        f"{100 * expit(need['hard']):.1f}% of games won against it. The strongest bot measured, "
        f"{top[0]}, stands at {top[1][0]:.2f} ({100 * expit(top[1][0]):.1f}%)."
    )
    if plot_path is not None:
        _plot(strengths, need, plot_path)


def _plot(strengths: dict[str, tuple[float, float]], need: dict[str, float], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def to_strength(p: Any) -> Any:
        return logit(np.clip(p, 1e-9, 1 - 1e-9))  # (the axis may ask beyond 0 and 1)

    order = sorted(strengths, key=lambda bot: strengths[bot][0])
    fig, ax = plt.subplots(figsize=(8, 0.6 * len(order) + 1.6))
    for y, bot in enumerate(order):
        value, error = strengths[bot]
        ax.errorbar(value, y, xerr=1.96 * error, fmt="o", color="tab:blue", capsize=4,
                    label="fitted strength (95%)" if y == 0 else None)  # fmt: skip
        if bot in need and bot != "random":
            ax.plot(need[bot], y, marker="|", markersize=18, color="tab:red",
                    label="least strength the targets need" if bot == "easy" else None)  # fmt: skip
    ax.set_yticks(range(len(order)), order)
    ticks = [0.5, 0.75, 0.9, 0.95, 0.97]
    top = ax.secondary_xaxis("top", functions=(expit, to_strength))
    top.set_xticks(ticks, [f"{100 * t:g}%" for t in ticks])
    top.set_xlabel("share of the points against random (a game without a winner: half each)")
    ax.set_xlabel("strength (logit scale, random = 0)")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="lower right")
    save_figure(fig, path)


if __name__ == "__main__":
    main()
