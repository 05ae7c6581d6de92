"""``gotown scenarios`` and ``gotown bench``: the engine checked against rule scenarios, and
timed."""

from __future__ import annotations

import json
import sys

import click

from .options import FiniteFloatRange


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("-q", "--quiet", is_flag=True, help="Print only failures and the total.")
def scenarios(paths: tuple[str, ...], quiet: bool) -> None:
    """Run rule scenarios (JSON files, or folders searched for *.json).

    Prints one line per scenario and `N passed, N failed`; exits 1 when a scenario failed,
    2 when a file is not a valid scenario.
    """
    from ..engine.conformance import run_paths

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


@click.command()
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
    from ..tournament.bench import play_random_games, rlcard_uno_actions_per_s

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
            f"copy {result.copy_us:.1f} us, {'compiled' if result.compiled else 'pure'} engine"
        )
        if uno is not None:
            click.echo(
                f"           RLCard UNO core: {uno:,.0f} actions/s; "
                f"ratio {data['ratio_to_rlcard_uno']:.2f}"
            )
        elif not no_reference:
            click.echo("           (pip install -e '.[bench]' to compare with RLCard's UNO core)")
