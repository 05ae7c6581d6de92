"""``gotown tournament``: bots against each other, over all cores, resumable."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import click

from .options import FiniteFloatRange, parse_rule_options


@click.command()
@click.argument("bots", nargs=-1, required=True)
@click.option("--players", type=click.IntRange(2, 4), default=None,
              help="Seats (default: one per bot; extra seats repeat the last bot).")  # fmt: skip
@click.option("--games", type=click.IntRange(1), default=100, show_default=True,
              help="Games to play; a multiple of the number of players makes every bot start "
                   "equally often (otherwise some start one game more).")  # fmt: skip
@click.option("--workers", type=click.IntRange(1), default=None,
              help="Processes (default: every core).")  # fmt: skip
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--turn-limit", type=click.IntRange(1), default=300, show_default=True,
              help="Turns after which a game ends with no winner (R23). A stalemate (no "
                   "hand can draw, R7b or R9, and nobody can do anything but end the turn, "
                   "R21) ends the game when its turn ends, also without a winner (R20b); the "
                   "summary counts the two apart.")  # fmt: skip
@click.option("--option", "rule_option_texts", metavar="NAME=VALUE", multiple=True,
              help="An R23 rule option for every game, VALUE read as JSON when it parses: "
                   "win_floors=4, dog_placement=any, milkshake_blocks_refill=false. "
                   "Repeatable. Not first_player (seats rotate) nor turn_limit "
                   "(--turn-limit).")  # fmt: skip
@click.option("--json", "json_path", type=click.Path(dir_okay=False), default=None,
              help="Write the results (and every game's summary) to this JSON file; it also "
                   "holds the games played so far while the tournament runs.")  # fmt: skip
@click.option("--resume", is_flag=True,
              help="Continue the tournament saved in the --json file (stopped by "
                   "--max-seconds, Ctrl-C or a crash): play only its missing games. The bots, "
                   "seed, turn limit and options must be the ones it was played "
                   "with.")  # fmt: skip
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), default=None,
              help="Write a plot: win rates with their 95% intervals, every decision's "
                   "think time (log scale), and the win rates as the games were added (the "
                   "extension names the format: png, svg, pdf, ...).")  # fmt: skip
@click.option("--max-seconds", type=FiniteFloatRange(1), default=None,
              help="Start no game after this many seconds (the table reports the first games "
                   "in whole blocks of as many games as players; --json keeps them "
                   "all).")  # fmt: skip
@click.option("--no-progress", is_flag=True, help="No progress bar.")
def tournament(
    bots: tuple[str, ...],
    players: int | None,
    games: int,
    workers: int | None,
    seed: int,
    turn_limit: int,
    rule_option_texts: tuple[str, ...],
    json_path: str | None,
    plot_path: str | None,
    max_seconds: float | None,
    resume: bool,
    no_progress: bool,
) -> None:
    """Play GAMES games between BOTS (levels: random, easy, medium, hard, expert).

    A bot may carry parameters, LEVEL:NAME=VALUE[,NAME=VALUE...]: hard and expert take
    iterations, work (a cap on simulated actions per decision, whatever the number of
    players; by default only 3 or 4 players have one), seconds (a time cap: it makes the
    choices depend on the machine's speed and load), exploration, epsilon (0 to 1),
    rollout_turns and infer (1: deal the hidden cards as if the opponents play sensibly); easy
    and medium take noise (0 to 1, the share of random moves). With the rl
    extra, ppo:path=FILE seats a policy trained by examples/train_maskable_ppo.py. Example:
    `gotown tournament hard:iterations=2000 hard`. A bot is named by its spec written one
    way (parameters in that order, a level's own values left out: hard:iterations=2500 is
    hard), and the same one twice as hard, hard#2.

    Seat orders are rotated over the bots (a repeated bot is reported, and rotated, as
    separate bots: medium, medium#2): every block of as many games as players seats each bot
    once in each seat, so the first player's advantage is shared out evenly; with GAMES not
    a multiple of the players some bots start one game more than others. Example, hard
    against three medium bots: `gotown tournament hard medium --players 4 --games 1000`.

    A long tournament can be played in parts: with --json FILE the games are saved as they
    finish, and the same command with --resume plays only the games still missing (the
    result is the same as one uninterrupted run). Exits 130 when interrupted.
    """
    import time

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from ..tournament.results import code_fingerprint, results_json
    from ..tournament.standings import format_table, write_plot
    from ..tournament.tournament import GameResult, rule_options, run_tournament

    given = parse_rule_options(rule_option_texts)
    try:
        options = rule_options(given)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--option") from None
    lineup = _lineup(bots, players)

    if json_path:
        _check_writable(json_path, "--json")
    if plot_path:
        _check_plot(plot_path)
    code_fingerprint()  # of the code loaded now, which plays every game of this run
    done: list[GameResult] = []
    done_seconds = 0.0
    if resume:
        done, done_seconds = _resume(json_path, lineup, seed, turn_limit, options, games)
        click.echo(f"resuming: {len(done)} games already played in {json_path}")

    def save(text: str) -> None:
        assert json_path is not None
        partial = f"{json_path}.partial"
        with open(partial, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(partial, json_path)  # a crash mid-write never spoils the saved games

    finished = list(done)
    started = last_save = time.monotonic()

    def checkpoint() -> str:
        elapsed = done_seconds + time.monotonic() - started
        return results_json(lineup, seed, turn_limit, finished, seconds=elapsed, options=options)

    def record(result: GameResult) -> None:
        nonlocal last_save
        bar.advance(task)
        finished.append(result)
        if json_path and time.monotonic() - last_save > 10:
            save(checkpoint())
            last_save = time.monotonic()

    columns = ("{task.description}", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, disable=no_progress, transient=False) as bar:
        task = bar.add_task(" vs ".join(lineup), total=games,
                            completed=sum(r.index < games for r in done))  # fmt: skip
        try:
            result = run_tournament(
                lineup, games, seed=seed, workers=workers, turn_limit=turn_limit,
                progress=record, max_seconds=max_seconds, done=done,
                done_seconds=done_seconds, options=options,
            )  # fmt: skip
        except KeyboardInterrupt:
            if json_path:
                save(checkpoint())
                click.echo(f"interrupted: {len(finished)} games saved in {json_path}; "
                           "the same command with --resume goes on", err=True)  # fmt: skip
            sys.exit(130)
    click.echo(format_table(result))
    if json_path and len(finished) < games:
        # Stopped by --max-seconds: the table counts whole blocks of seat orders, but every
        # game played is kept, for --resume to go on from.
        save(checkpoint())
        click.echo(f"stopped: {len(finished)} games saved in {json_path}; "
                   "the same command with --resume goes on")  # fmt: skip
    elif json_path:
        save(results_json(lineup, seed, turn_limit, result.results, result, options=options))
        click.echo(f"wrote {json_path}")
    if plot_path and not result.games:
        click.echo(f"no plot: no whole block of {result.players} games was played in time")
    elif plot_path:
        write_plot(result, plot_path)
        click.echo(f"wrote {plot_path}")


def _lineup(bots: tuple[str, ...], players: int | None) -> list[str]:
    """The bots by seat: each spec written one way (what --resume compares), the last one
    filling the seats left."""
    from ..bots import canonical_spec

    if any(spec.partition(":")[0] == "ppo" for spec in bots):
        try:  # a trained policy's level lives in gotown.rl, above the bots: added here
            from ..rl.policy import register_ppo_level
        except ImportError as error:
            needs = f"the ppo level needs the rl extra (pip install 'gotown[rl]'): {error}"
            raise click.BadParameter(needs, param_hint="BOTS") from None
        register_ppo_level()
    try:  # one name per bot however its spec is written (what --resume compares)
        specs = [canonical_spec(spec) for spec in bots]
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="BOTS") from None
    count = players or len(specs)
    if len(specs) > count:
        raise click.BadParameter(f"{len(specs)} bots for {count} seats", param_hint="BOTS")
    lineup = specs + [specs[-1]] * (count - len(specs))
    if not 2 <= count <= 4:
        raise click.BadParameter(  # only without --players, which is 2 to 4
            f"{count} seat{'s' * (count > 1)} (one per bot, no --players): a game needs 2 to 4 "
            "players (R1)",
            param_hint="BOTS",
        )
    return lineup


def _check_writable(path: str, param_hint: str) -> None:
    """Refuse, before any game is played, a file that could not be written at the end."""
    folder = Path(path).parent
    if not folder.is_dir():
        problem = "is not a folder" if folder.exists() else "does not exist"
        raise click.BadParameter(f"{path}: the folder {str(folder)!r} {problem}",
                                 param_hint=param_hint)  # fmt: skip
    try:  # a file of our own, so that an existing one (to --resume from) stays untouched
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        raise click.BadParameter(
            f"{path}: cannot write in {str(folder)!r}: {error.strerror}",
            param_hint=param_hint,
        ) from None


def _check_plot(plot_path: str) -> None:
    """Refuse, before any game, a plot file whose extension names no format or that cannot be
    written."""
    from pathlib import Path

    from ..tournament.standings import plot_formats

    formats = plot_formats()
    extension = Path(plot_path).suffix.lower().removeprefix(".")
    if extension not in formats:
        raise click.BadParameter(
            f"{plot_path}: the file's extension names its format, and "
            f"{repr(extension) if extension else 'no extension'} is not one of "
            f"{', '.join(formats)}",
            param_hint="--plot",
        )
    _check_writable(plot_path, "--plot")
    if os.path.exists(plot_path) and not os.access(plot_path, os.W_OK):
        raise click.BadParameter(f"{plot_path}: the file is read-only", param_hint="--plot")


def _resume(
    json_path: str | None,
    lineup: list[str],
    seed: int,
    turn_limit: int,
    options: Any,
    games: int,
) -> tuple[list[Any], float]:
    """The games (and seconds) already played in the --json file that --resume continues."""
    from ..tournament.results import load_results

    done: list[Any] = []
    done_seconds = 0.0
    if not json_path:
        raise click.BadParameter(
            "--resume continues the --json FILE: name it", param_hint="--resume"
        )
    try:
        with open(json_path, encoding="utf-8") as handle:
            done, done_seconds = load_results(json.load(handle), lineup, seed, turn_limit, options)
    except FileNotFoundError:
        pass  # nothing saved yet: start from the first game
    except (OSError, ValueError, OverflowError) as error:
        raise click.BadParameter(f"cannot resume from {json_path}: {error}",
                                 param_hint="--json") from None  # fmt: skip
    except RecursionError:
        raise click.BadParameter(f"cannot resume from {json_path}: its JSON is nested too "
                                 "deeply to be a tournament's results",
                                 param_hint="--json") from None  # fmt: skip
    saved = max((r.index + 1 for r in done), default=0)
    if saved > games:
        # Playing fewer would write the file without the games beyond them.
        raise click.BadParameter(
            f"{json_path} holds games up to number {saved}, more than --games {games}: "
            f"resume with --games {saved} or more (or start another --json file)",
            param_hint="--games",
        )
    return done, done_seconds
