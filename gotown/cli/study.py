"""``gotown analyze`` and ``gotown review``: simulations that answer design questions, and a
played game reviewed."""

from __future__ import annotations

import json
import sys

import click

from .options import parse_rule_options


@click.command()
@click.option(
    "--players",
    type=click.IntRange(2, 4),
    default=None,
    help="Seats (default: one per bot, at least two); the last bot fills the others.",
)
@click.option("--bots", default=None, metavar="SPEC,SPEC...",
              help="One configuration: these bots, comma-separated (random, medium, "
                   "hard:iterations=200, ...).")  # fmt: skip
@click.option("--config", "config_path", type=click.Path(exists=True, dir_okay=False),
              default=None, help="A TOML plan of [[configuration]] tables (bots, options, "
              "games, name, study, swap, without, baseline; see docs/analysis.md).")  # fmt: skip
@click.option(
    "--levels",
    default="random,easy,medium",
    show_default=True,
    help="The standard study's levels for skill against luck (every pair).",
)
@click.option(
    "--games",
    type=click.IntRange(1),
    default=1000,
    show_default=True,
    help="Games per configuration.",
)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option(
    "--option",
    "rule_option_texts",
    metavar="NAME=VALUE",
    multiple=True,
    help="An R23 rule option for --bots (repeatable): win_floors=4.",
)
@click.option("--turn-limit", type=click.IntRange(1), default=300, show_default=True)
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="gotown-analysis",
              show_default=True, help="The report's folder; it also keeps the games played, "
              "so that the same command run again plays only the missing ones.")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object of the findings.")
@click.option(
    "--workers", type=click.IntRange(1), default=None, help="Processes (default: one per core)."
)
@click.option("--ray", "ray_address", envvar="RAY_ADDRESS", default=None, metavar="ADDRESS",
              help="Run the games on a Ray cluster (local, auto, ray://HOST:PORT; needs "
              "gotown[cluster]); the results are those of a local run.")  # fmt: skip
@click.option("--no-progress", is_flag=True, help="No progress bar.")
def analyze(
    players: int | None,
    bots: str | None,
    config_path: str | None,
    levels: str,
    games: int,
    seed: int,
    rule_option_texts: tuple[str, ...],
    turn_limit: int,
    out_dir: str,
    as_json: bool,
    workers: int | None,
    ray_address: str | None,
    no_progress: bool,
) -> None:
    """Answer design questions by simulation, and write a report to --out.

    With --bots, one configuration: `gotown analyze --players 2 --bots random,random
    --games 20000 --seed 1 --out DIR --json` prints seat_win_rates (index 0: the player who
    started), seat_win_ci95 and no_winner. With --config, the configurations of a TOML
    file. Otherwise the standard study: first-player advantage with 2 to 4 random and medium
    players, skill against luck, each R23 option, and what starting with each special card is
    worth (the same deals with a plain floor card in its place).

    The same seed gives the same games on any number of workers or on Ray. The folder gets
    report.html, report.md, plots/, findings.json and the raw games, turns, holdings and
    plays as Parquet. Exits 130 when interrupted (the whole parts played are kept).
    """
    from pathlib import Path

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from ..bots import parse_bot_spec
    from ..study.findings import findings
    from ..study.report import headlines, write_report
    from ..study.simulation import (
        Configuration,
        lineup_configuration,
        load_plan,
        planned_games,
        run,
        standard_study,
    )

    if rule_option_texts and not bots:
        raise click.BadParameter("rule options go with --bots", param_hint="--option")
    if players and not bots:
        raise click.BadParameter("--players goes with --bots", param_hint="--players")
    if bots and config_path:
        raise click.BadParameter("give --bots or --config, not both", param_hint="--config")
    configurations: list[Configuration]
    try:
        if bots:
            configurations = [
                lineup_configuration(
                    players, [b.strip() for b in bots.split(",")], games,
                    parse_rule_options(rule_option_texts),
                )
            ]  # fmt: skip
        elif config_path:
            configurations = load_plan(Path(config_path).read_text(encoding="utf-8"), games)
        else:
            chosen = [level.strip() for level in levels.split(",") if level.strip()]
            for level in chosen:
                parse_bot_spec(level)
            configurations = standard_study(games, chosen)
    except ValueError as error:
        hint = "--bots" if bots else "--config" if config_path else "--levels"
        raise click.BadParameter(str(error), param_hint=hint) from None
    out = Path(out_dir)
    try:
        total = planned_games(configurations, seed, turn_limit)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--config") from None
    console = Console(stderr=True)
    columns = ("{task.description}", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, disable=no_progress) as bar:
        task = bar.add_task(f"{len(configurations)} configuration(s)", total=total)
        try:
            tables = run(configurations, seed, workers, turn_limit, out, ray_address,
                         progress=lambda _c, n: bar.advance(task, n))  # fmt: skip
        except ValueError as error:
            raise click.BadParameter(str(error), param_hint="--out") from None
        except KeyboardInterrupt:
            click.echo(f"interrupted: the whole parts played are kept in {out}; the same "
                       "command goes on", err=True)  # fmt: skip
            sys.exit(130)
    data = findings(configurations, tables)
    header = [f"{total} games in {len(configurations)} configuration(s), seed {seed}, turn "
              f"limit {turn_limit}."]  # fmt: skip
    write_report(data, tables, out, header)
    if as_json:
        summary = dict(data["configurations"][0]) if bots else dict(data)
        summary.update(seed=seed, turn_limit=turn_limit, out=str(out))
        click.echo(json.dumps(summary))
        return
    for line in headlines(data):
        click.echo(f"- {line}")
    click.echo(f"wrote {out / 'report.html'} and {out / 'report.md'}")


@click.command()
@click.argument("record_path", metavar="RECORD.json", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--seat",
    type=click.IntRange(0, 3),
    default=None,
    help="The reviewed seat: its mistakes, named with the better move.",
)
@click.option(
    "--iterations",
    type=click.IntRange(1),
    default=128,
    show_default=True,
    help="Random futures played out from each position in the first pass (the review's "
    "cost); the second looks take multiples of it.",
)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--turning-points", type=click.IntRange(0), default=5, show_default=True,
              help="At most this many turning points (the largest).")  # fmt: skip
@click.option(
    "--plot",
    "plot_path",
    type=click.Path(dir_okay=False),
    default="review.png",
    show_default=True,
    help="The win-probability graph (png, svg or pdf).",
)
@click.option("--no-plot", is_flag=True, help="No graph.")
@click.option("--json", "as_json", is_flag=True, help="Print the review as one JSON object.")
@click.option("--no-progress", is_flag=True, help="No progress bar.")
def review(
    record_path: str,
    seat: int | None,
    iterations: int,
    seed: int,
    turning_points: int,
    plot_path: str,
    no_plot: bool,
    as_json: bool,
    no_progress: bool,
) -> None:
    """Review a played game (a game record's JSON): each seat's chance to win after every
    action with every hand shown (as after the game, R22), the turning points (what swung the
    game: a draw, a theft, a decision), and with --seat that seat's moves that lost at least
    one game in ten against its best, judged on what the seat knew then and named only when
    the loss is larger than the estimate's noise.
    """
    from pathlib import Path

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from ..bots.review import BASIS
    from ..bots.review import review as review_record
    from ..engine import GoTownError, Record

    if not no_plot:
        from ..tournament.standings import plot_formats

        extension = Path(plot_path).suffix.lower().removeprefix(".")
        if extension not in plot_formats():
            raise click.BadParameter(
                f"{plot_path}: the file's extension names its format, and "
                f"{repr(extension) if extension else 'no extension'} is not one of "
                f"{', '.join(plot_formats())}",
                param_hint="--plot",
            )
    try:
        record = Record.from_json(json.loads(Path(record_path).read_text(encoding="utf-8")))
    except (OSError, ValueError, RecursionError) as error:
        raise click.BadParameter(f"{record_path}: not a game record: {error}",
                                 param_hint="RECORD.json") from None  # fmt: skip
    columns = ("{task.description}", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True), disable=no_progress) as bar:
        task = bar.add_task("reviewing", total=len(record.actions))
        try:
            found = review_record(
                record, seat, iterations, seed, turning_points,
                progress=lambda done, total: bar.update(task, completed=done, total=total),
            )  # fmt: skip
        except GoTownError as error:
            raise click.BadParameter(f"{record_path}: {error}", param_hint="RECORD.json") from None
        except ValueError as error:
            raise click.BadParameter(str(error), param_hint="--seat") from None
    if not no_plot:
        from ..study.review_plot import plot_review

        plot_review(found, Path(plot_path))

    def shown(chances: tuple[float, ...]) -> str:
        return ", ".join(f"seat {s} {100 * c:.0f}%" for s, c in enumerate(chances))

    if as_json:
        click.echo(json.dumps(found.to_json()))
        return
    if found.winner is not None:
        ending = f"seat {found.winner} won"
    else:
        ending = "no winner" + (f" ({found.reason})" if found.reason else "")
    click.echo(f"{len(found.moments)} actions, {ending}; at the start: {shown(found.start)}")
    click.echo(f"Chances with {BASIS}.")
    click.echo("Turning points:" if found.turning_points else "No turning point.")
    for point in found.turning_points:
        click.echo(f"  action {point.index + 1}, {point.describe()}")
    if seat is not None:
        click.echo(f"Seat {seat}'s mistakes (judged on what it knew):" if found.mistakes
                   else f"Seat {seat}: no mistakes.")  # fmt: skip
        for mistake in found.mistakes:
            click.echo(f"  {mistake.describe()}")
    if not no_plot:
        click.echo(f"wrote {plot_path}")
