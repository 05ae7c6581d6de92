"""The ``gotown`` command: the one place that composes the engine, bots, server and tools.

Heavy imports happen inside the subcommand that needs them, so ``gotown --help`` is instant.
"""

from __future__ import annotations

import json
import math
import os
import sys

import click


class FiniteFloatRange(click.FloatRange):
    """A number of at least ``min``, and a number: ``nan`` and ``inf`` are refused (click's
    range compares them, and nothing is ever smaller than or equal to nan)."""

    def convert(
        self, value: object, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        number = float(super().convert(value, param, ctx))
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return number


def parse_rule_options(texts: tuple[str, ...]) -> dict[str, object]:
    """The R23 options of ``--option NAME=VALUE`` (VALUE as JSON, or a bare word), not yet
    checked against R23; ``click.BadParameter`` for text that is not NAME=VALUE or a name
    given twice."""
    given: dict[str, object] = {}
    for text in texts:
        name, equals, value = text.partition("=")
        if not (name and equals):
            raise click.BadParameter(f"{text!r} is not NAME=VALUE", param_hint="--option")
        if name in given:
            raise click.BadParameter(f"option {name} is given twice", param_hint="--option")
        try:
            given[name] = json.loads(value)
        except json.JSONDecodeError:
            given[name] = value  # a bare word: dog_placement=any
        except RecursionError:
            raise click.BadParameter(f"option {name}: its JSON is nested too deeply",
                                     param_hint="--option") from None  # fmt: skip
    return given


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="gotown")
def main() -> None:
    """GoTown, the card game: play it, test it, measure it."""


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("-q", "--quiet", is_flag=True, help="Print only failures and the total.")
def scenarios(paths: tuple[str, ...], quiet: bool) -> None:
    """Run rule scenarios (JSON files, or folders searched for *.json).

    Prints one line per scenario and `N passed, N failed`; exits 1 when a scenario failed,
    2 when a file is not a valid scenario.
    """
    from .scenarios import run_paths

    passed = failed = invalid = 0
    for result in run_paths(paths):
        label = f"{result.name}: {result.description}" if result.description else result.name
        if result.passed:
            passed += 1
            if not quiet:
                click.echo(f"PASS {label}")
        elif result.invalid:
            invalid += 1
            failed += 1
            click.echo(f"INVALID {label}\n    {result.detail}")
        else:
            failed += 1
            click.echo(f"FAIL {label}\n    {result.detail}")
    click.echo(f"{passed} passed, {failed} failed")
    if invalid:
        sys.exit(2)
    if failed:
        sys.exit(1)


@main.command()
@click.option(
    "--players", type=click.IntRange(2, 4), multiple=True, help="Player counts (default 2, 3, 4)."
)
@click.option("--seconds", type=FiniteFloatRange(0.1), default=5.0, show_default=True,
              help="Seconds of play per player count.")  # fmt: skip
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per player count.")
@click.option("--no-reference", is_flag=True, help="Skip the RLCard UNO reference run.")
def bench(
    players: tuple[int, ...], seconds: float, seed: int, as_json: bool, no_reference: bool
) -> None:
    """Play uniformly random games on one core and print games/s and actions/s."""
    from .bench import play_random_games, rlcard_uno_actions_per_s

    for count in players or (2, 3, 4):
        result = play_random_games(count, seconds, seed)
        data = result.to_json()
        uno = None if no_reference else rlcard_uno_actions_per_s(count, seconds, seed)
        if uno is not None:
            data["rlcard_uno_actions_per_s"] = round(uno, 1)
            data["ratio_to_rlcard_uno"] = round(result.actions_per_s / uno, 2)
        if as_json:
            click.echo(json.dumps(data))
            continue
        click.echo(
            f"{count} players: {result.games} games in {result.seconds:.1f} s, "
            f"{result.games_per_s:,.0f} games/s, {result.actions_per_s:,.0f} actions/s, "
            f"{result.actions_per_game:.1f} actions/game, "
            f"copy {result.copy_us:.1f} us"
        )
        if uno is not None:
            click.echo(
                f"           RLCard UNO core: {uno:,.0f} actions/s; "
                f"ratio {data['ratio_to_rlcard_uno']:.2f}"
            )
        elif not no_reference:
            click.echo("           (pip install -e '.[bench]' to compare with RLCard's UNO core)")


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=int, default=8000, show_default=True)
@click.option("--database-url", envvar="GOTOWN_DATABASE_URL", default=None,
              help="SQLAlchemy URL (default: a SQLite file gotown.sqlite3 here).")  # fmt: skip
@click.option("--reload", is_flag=True, help="Restart on code changes (development).")
@click.option("--lan", is_flag=True,
              help="Serve the phones of this network: listen on every address, make invitation "
                   "links with this computer's address, and print it with a QR code.")  # fmt: skip
def serve(host: str, port: int, database_url: str | None, reload: bool, lan: bool) -> None:
    """Start the web table on http://HOST:PORT.

    Phones on the same network need --lan (or --host 0.0.0.0 and this computer's address). Other
    settings come from the environment: GOTOWN_BROADCAST_URL (redis://HOST:PORT to run several
    server processes on one database), GOTOWN_PUBLIC_BASE_URL (the base of invitation links),
    GOTOWN_BOT_DELAY (seconds between bot moves, 0.6), GOTOWN_RATE_LIMIT (requests a minute
    per address, 240), GOTOWN_WORKER_PROCESSES (bots and hints in worker processes: true;
    false: threads), GOTOWN_MAX_BOTS_ONLY_TABLES (4) and others: gotown/server/README.md.
    """
    from .server import run
    from .server.config import SettingError, Settings

    if lan:
        host = "0.0.0.0"
        address = f"http://{lan_address()}:{port}"
        os.environ.setdefault("GOTOWN_PUBLIC_BASE_URL", address)
    try:  # (the server reads them again: a mistake is told here, before it starts)
        Settings.from_env(database_url=database_url)
    except SettingError as exc:
        if exc.name == "database_url" and exc.variable is None:  # (given with --database-url)
            raise click.BadParameter(str(exc), param_hint="--database-url") from None
        raise click.UsageError(f"a setting from the environment: {exc}") from None
    if lan:
        print_lan_banner(os.environ["GOTOWN_PUBLIC_BASE_URL"])
    run(host=host, port=port, database_url=database_url, reload=reload)


def lan_address() -> str:
    """This computer's address on its local network: the one its route to the outside leaves
    from (a UDP socket's connect sends nothing), or 127.0.0.1 on a machine with no network."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed anywhere, only looked up
            address: str = probe.getsockname()[0]
        except OSError:
            return "127.0.0.1"
    return address


def print_lan_banner(url: str) -> None:
    """Say where the table is, with a QR code a phone's camera opens."""
    import io

    import segno

    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True, border=2)
    click.echo(f"\nGoTown: open {url} here or on a phone of this network (scan the code):\n")
    click.echo(out.getvalue())


@main.command()
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
              help="Turns after which a game ends with no winner (R23). A deadlocked game "
                   "(no hand can draw, R7b or R9, and nobody can do anything but end the "
                   "turn, R21) ends at once, also without a winner; the summary counts the "
                   "two apart.")  # fmt: skip
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
    choices depend on the machine's speed and load), exploration, epsilon (0 to 1) and
    rollout_turns; easy and medium take noise (0 to 1, the share of random moves). With the rl
    extra, ppo:path=FILE seats a policy trained by examples/train_maskable_ppo.py. Example:
    `gotown tournament hard:iterations=2000 hard`. A bot is named by its spec written one
    way (parameters in that order, a level's own values left out: hard:iterations=1000 is
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
    import tempfile
    import time
    from pathlib import Path

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from .analysis.report import format_table, plot_formats, write_plot
    from .analysis.tournament import (
        GameResult,
        code_fingerprint,
        load_results,
        results_json,
        rule_options,
        run_tournament,
    )
    from .bots import canonical_spec

    if any(spec.partition(":")[0] == "ppo" for spec in bots):
        try:  # a trained policy's level lives in gotown.rl, above the bots: added here
            from .rl.policy import register_ppo_level
        except ImportError as error:
            needs = f"the ppo level needs the rl extra (pip install 'gotown[rl]'): {error}"
            raise click.BadParameter(needs, param_hint="BOTS") from None
        register_ppo_level()
    try:  # one name per bot however its spec is written (what --resume compares)
        specs = [canonical_spec(spec) for spec in bots]
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="BOTS") from None
    given = parse_rule_options(rule_option_texts)
    try:
        options = rule_options(given)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--option") from None
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

    def check_writable(path: str, param_hint: str) -> None:
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

    if json_path:
        check_writable(json_path, "--json")
    if plot_path:
        formats = plot_formats()
        extension = Path(plot_path).suffix.lower().removeprefix(".")
        if extension not in formats:
            raise click.BadParameter(
                f"{plot_path}: the file's extension names its format, and "
                f"{repr(extension) if extension else 'no extension'} is not one of "
                f"{', '.join(formats)}",
                param_hint="--plot",
            )
        check_writable(plot_path, "--plot")
        if os.path.exists(plot_path) and not os.access(plot_path, os.W_OK):
            raise click.BadParameter(f"{plot_path}: the file is read-only", param_hint="--plot")
    code_fingerprint()  # of the code loaded now, which plays every game of this run
    done: list[GameResult] = []
    done_seconds = 0.0
    if resume:
        if not json_path:
            raise click.BadParameter(
                "--resume continues the --json FILE: name it", param_hint="--resume"
            )
        try:
            with open(json_path, encoding="utf-8") as handle:
                done, done_seconds = load_results(
                    json.load(handle), lineup, seed, turn_limit, options
                )
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


@main.command()
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
              default=None, help="A TOML file of [[configuration]] tables (bots, options, "
              "games, name).")  # fmt: skip
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
    players, skill against luck, the special cards, and each R23 option.

    The same seed gives the same games on any number of workers or on Ray. The folder gets
    report.html, report.md, plots/, findings.json and the raw games, turns, holdings and
    plays as Parquet. Exits 130 when interrupted (the whole parts played are kept).
    """
    from pathlib import Path

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from .analysis.findings import findings
    from .analysis.reporting import headlines, write_report
    from .analysis.simulation import (
        Configuration,
        lineup_configuration,
        load_plan,
        run,
        standard_study,
    )
    from .bots import parse_bot_spec

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
    total = sum(c.games for c in configurations)
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


@main.command()
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
    default=200,
    show_default=True,
    help="Search iterations per action (the review's cost).",
)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--turning-points", type=click.IntRange(0), default=3, show_default=True)
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
    """Review a played game (a game record's JSON): the strong bot's estimate of each seat's
    chance to win after every action, the turning points, and with --seat that seat's moves
    rated much lower than its best. Each decision is judged from the view of the seat that
    made it, so a seat's advice uses only what it knew then.
    """
    from pathlib import Path

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from .bots.review import review as review_record
    from .engine import GoTownError, Record, format_action

    if not no_plot:
        from .analysis.report import plot_formats

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
                progress=lambda done, _: bar.update(task, completed=done),
            )  # fmt: skip
        except GoTownError as error:
            raise click.BadParameter(f"{record_path}: {error}", param_hint="RECORD.json") from None
        except ValueError as error:
            raise click.BadParameter(str(error), param_hint="--seat") from None
    if not no_plot:
        from .analysis.review_plot import plot_review

        plot_review(found, Path(plot_path))

    def shown(chances: tuple[float, ...]) -> str:
        return ", ".join(f"seat {s} {100 * c:.0f}%" for s, c in enumerate(chances))

    if as_json:
        click.echo(json.dumps(found.to_json()))
        return
    winner = "no winner" if found.winner is None else f"seat {found.winner} won"
    click.echo(f"{len(found.moments)} actions, {winner}; at the start: {shown(found.start)}")
    click.echo("Turning points:")
    for m in found.turning_points:
        click.echo(f"  action {m.index + 1}, turn {m.turn}: seat {m.seat} played "
                   f"{format_action(m.action)}: {shown(m.before)} → {shown(m.after)}")  # fmt: skip
    if seat is not None:
        click.echo(f"Seat {seat}'s mistakes:" if found.mistakes else f"Seat {seat}: no mistakes.")
        for mistake in found.mistakes:
            click.echo(f"  {mistake.describe()}")
    if not no_plot:
        click.echo(f"wrote {plot_path}")


@main.command()
@click.option("--players", type=click.IntRange(2, 4), default=None,
              help="Seats at the table, 2 to 4 (default: 2, or one per person and bot "
                   "given).")  # fmt: skip
@click.option("--people", type=click.IntRange(1, 4), default=1, show_default=True,
              help="People at this keyboard (hot-seat): each one's hand is hidden behind a "
                   "'hand the keyboard to ...' screen between turns.")  # fmt: skip
@click.option("--bots", default="", metavar="LEVEL,...",
              help="The bots' levels (random, easy, medium, hard, expert, or a bot spec as in "
                   "`gotown tournament`), one per bot seat; the last fills the rest "
                   "(default medium).")  # fmt: skip
@click.option(
    "--name",
    "names",
    default="",
    metavar="NAME[,NAME...]",
    help="Your name (with --people, each person's, in seat order).",
)
@click.option(
    "--seed",
    type=click.IntRange(0),
    default=None,
    help="Deal this game from a seed (default: a random one).",
)
@click.option("--short", is_flag=True, help="The official short game: 4 floors win (R23).")
@click.option("--option", "rule_option_texts", metavar="NAME=VALUE", multiple=True,
              help="An R23 rule option, VALUE read as JSON when it parses: win_floors=4, "
                   "dog_placement=any, milkshake_blocks_refill=false. Repeatable.")  # fmt: skip
@click.option(
    "--speed",
    type=FiniteFloatRange(0),
    default=0.8,
    show_default=True,
    help="Seconds each bot action stays on screen before the next.",
)
@click.option(
    "--save",
    "save_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write the game's record (the engine's JSON) to this file when it ends.",
)
@click.option("--replay", "replay_path", type=click.Path(exists=True, dir_okay=False),
              default=None, help="Step through a saved record instead of playing.")  # fmt: skip
@click.option("--connect", "url", default=None, metavar="URL",
              help="Take a seat at a game of a running `gotown serve`: its invitation link "
                   "(/j/CODE) or your seat link (/g/GAME#t=TOKEN).")  # fmt: skip
@click.option("--plain", is_flag=True,
              help="Line by line: print the state, read an action from standard input "
                   "(for screen readers, scripts, and terminals where full-screen apps "
                   "fail).")  # fmt: skip
def play(
    players: int | None,
    people: int,
    bots: str,
    names: str,
    seed: int | None,
    short: bool,
    rule_option_texts: tuple[str, ...],
    speed: float,
    save_path: str | None,
    replay_path: str | None,
    url: str | None,
    plain: bool,
) -> None:
    """Play GoTown in the terminal: against a medium bot at once, with no options.

    Keys: pick cards (click, or Tab and Enter) and choose one of the actions they allow, or
    type a move in the notation (3+6, 5@1, dog#0, bone#1@1, end) after `/`; `?` rules,
    `h` hint, `d` discard pile, `r` rematch at the end, `q` quit. Exits 2 on bad options.
    """
    from .engine import GoTownError, Options

    given = parse_rule_options(rule_option_texts)
    if short:
        if given.get("win_floors", 4) != 4:
            raise click.BadParameter("--short is win_floors=4 (R23)", param_hint="--option")
        given["win_floors"] = 4
    try:
        options = Options.from_json(given)
    except GoTownError as error:
        raise click.BadParameter(str(error), param_hint="--option") from None
    person_names = tuple(name.strip() for name in names.split(",")) if names else ()
    if len(person_names) > people:
        raise click.BadParameter(f"{len(person_names)} names for {people} people",
                                 param_hint="--name")  # fmt: skip
    if url is not None:
        from .tui.remote import LinkError, run_remote

        if replay_path:
            raise click.BadParameter("--connect plays, --replay shows a record: one of them",
                                     param_hint="--connect")  # fmt: skip
        try:
            code = run_remote(url, name=person_names[0] if person_names else "Terminal",
                              plain=plain)  # fmt: skip
        except LinkError as error:
            raise click.BadParameter(str(error), param_hint="--connect") from None
        sys.exit(code)
    if replay_path is not None:
        from .tui.replay import run_replay

        try:
            run_replay(replay_path, plain=plain)
        except (OSError, ValueError) as error:
            raise click.BadParameter(str(error), param_hint="--replay") from None
        return
    from .tui.table import Setup

    if save_path and not os.path.isdir(os.path.dirname(os.path.abspath(save_path))):
        raise click.BadParameter(f"{save_path}: its folder does not exist", param_hint="--save")
    bot_specs = tuple(spec.strip() for spec in bots.split(",") if spec.strip())
    count = players if players is not None else max(2, people + len(bot_specs))
    try:
        setup = Setup(players=count, people=people, bots=bot_specs, names=person_names,
                      seed=seed, options=options)  # fmt: skip
    except ValueError as error:
        raise click.BadParameter(str(error)) from None
    if plain:
        from .tui.plain import play_plain

        if people > 1:
            raise click.BadParameter("--plain seats one person: a hot-seat game needs the "
                                     "full screen", param_hint="--people")  # fmt: skip
        sys.exit(play_plain(setup, save=save_path))
    from .tui.play import PlayApp
    from .tui.table import LocalTable

    PlayApp(LocalTable(setup), speed=speed, save=save_path).run()


if __name__ == "__main__":
    main()
