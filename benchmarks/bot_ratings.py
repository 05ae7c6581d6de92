"""The bots' fixed ratings, on the scale people are rated on (gotown/server/bot_ratings.json).

People's ratings (:mod:`gotown.server.ratings`) are openskill's Plackett-Luce ratings, a game's
winner ranked first and everyone else tied second. The bots' ratings come from their
tournaments' games rated the same way, all levels together: every game of the results files,
rated one after the other in a seeded random order, averaged over several orders (openskill
rates game by game and lets recent games weigh most; the average depends on the results only).
Games without a winner count for nobody, as at the tables.

    cd benchmarks/bots-results && ../../.venv/bin/python ../bot_ratings.py easy-random.json \\
        medium-random.json medium-easy.json hard2500-medium.json expert4k-medium.json \\
        expert-hard2500.json hard-3medium-final.json --as hard:iterations=2500=hard \\
        --out ../../gotown/server/bot_ratings.json
"""

from __future__ import annotations

import json
import random
import shlex
import statistics
import sys
from pathlib import Path

import click

from gotown.bots import parse_bot_spec

PASSES = 16


def games_of(path: Path, rename: dict[str, str]) -> list[tuple[list[str], str]]:
    """Each decided game of a results file: its seats' levels, and the winner's level."""
    data = json.loads(path.read_text("utf-8"))
    lineup = [rename.get(spec, spec) for spec in data["lineup"]]
    for spec in lineup:
        _level, params = parse_bot_spec(spec)
        if params:
            raise click.ClickException(
                f"{path.name}: {spec!r} is not a level; name it with --as {spec}=LEVEL"
            )
    games = []
    for game in data["results"]:
        if game["winner"] is None:
            continue
        seats = [lineup[entry] for entry in game["seats"]]
        games.append((seats, lineup[game["winner"]]))
    return games


def fit(games: list[tuple[list[str], str]], seed: int) -> dict[str, tuple[float, float]]:
    """Each level's (mu, sigma), averaged over :data:`PASSES` seeded orders of ``games``."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    levels = sorted({level for seats, _ in games for level in seats})
    runs: dict[str, list[tuple[float, float]]] = {level: [] for level in levels}
    for run in range(PASSES):
        order = games[:]
        random.Random(seed * 1009 + run).shuffle(order)
        rating = {level: model.rating() for level in levels}
        for seats, winner in order:
            ranks = [1 if level == winner else 2 for level in seats]
            rated = model.rate([[rating[level]] for level in seats], ranks=ranks)
            # A level seated twice (hard against three medium) moves by the mean of its seats.
            moved: dict[str, list[tuple[float, float]]] = {}
            for level, (after,) in zip(seats, rated, strict=True):
                moved.setdefault(level, []).append((after.mu, after.sigma))
            for level, values in moved.items():
                rating[level] = model.rating(
                    mu=statistics.fmean(v[0] for v in values),
                    sigma=statistics.fmean(v[1] for v in values),
                )
        for level in levels:
            runs[level].append((rating[level].mu, rating[level].sigma))
    return {
        level: (statistics.fmean(r[0] for r in values), statistics.fmean(r[1] for r in values))
        for level, values in runs.items()
    }


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--as", "renames", multiple=True, metavar="SPEC=LEVEL",
              help="A bot spec of a file that is a level today (repeatable).")  # fmt: skip
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--out", type=click.Path(path_type=Path), help="Write the ratings here (JSON).")
def main(files: tuple[Path, ...], renames: tuple[str, ...], seed: int, out: Path | None) -> None:
    """Rate the bots from tournament results files, all levels on one openskill scale."""
    rename = {}
    for item in renames:
        spec, equals, level = item.rpartition("=")
        if not equals:
            raise click.ClickException(f"--as {item!r} is not SPEC=LEVEL")
        rename[spec] = level
    games = [game for path in files for game in games_of(path, rename)]
    ratings = fit(games, seed)
    for level, (mu, sigma) in sorted(ratings.items(), key=lambda item: item[1][0]):
        click.echo(f"{level:8} mu {mu:6.2f}  sigma {sigma:4.2f}")
    click.echo(f"{len(games)} decided games from {len(files)} files")
    if out is not None:
        here = Path.cwd().resolve().relative_to(Path(__file__).resolve().parents[1])
        up = Path(*[".."] * len(here.parts))
        python, script = up / ".venv/bin/python", up / "benchmarks/bot_ratings.py"
        arguments = " ".join(shlex.quote(a) for a in sys.argv[1:])
        command = f"cd {here.as_posix()} && {python.as_posix()} {script.as_posix()} {arguments}"
        data = {
            "command": command,
            "files": [path.name for path in files],
            "games": len(games),
            "model": "openskill PlackettLuce (mu 25, sigma 25/3), winner first, others tied",
            "ratings": {
                level: {"mu": round(mu, 3), "sigma": round(sigma, 3)}
                for level, (mu, sigma) in sorted(ratings.items())
            },
        }
        out.write_text(json.dumps(data, indent=1) + "\n", "utf-8")


if __name__ == "__main__":
    main()
