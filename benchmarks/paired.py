"""Two tournaments on the same deals, compared game by game (McNemar's test).

Two runs of ``gotown tournament`` with the same seed, seats and turn limit deal the same cards
in the same seat orders, so a change of one bot (a budget, a setting) is best judged on the
games both runs played: those won in both or lost in both say nothing about the change; of the
others, the change should win more than it loses. Under "no difference" each of those goes
either way with probability 1/2 (an exact binomial test, and McNemar's z beside it). This is
far tighter than comparing two win rates, each with its own luck of the deal.

    .venv/bin/python benchmarks/paired.py benchmarks/bots-results/expert10k-medium.json \\
        benchmarks/bots-results/expert4k-medium.json

The bot compared is the first of each file's lineup unless ``--entry`` names its position.
Exit status 2 when the files cannot be compared (other seeds, seats or player counts).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click


@dataclass(frozen=True)
class Paired:
    games: int  # games both files hold
    both: int  # won in both
    only_first: int  # won only in the first file
    only_second: int  # won only in the second

    @property
    def first_rate(self) -> float:
        return (self.both + self.only_first) / self.games

    @property
    def second_rate(self) -> float:
        return (self.both + self.only_second) / self.games

    @property
    def z(self) -> float:
        """McNemar's statistic, signed: positive when the first wins more of the split games."""
        split = self.only_first + self.only_second
        return 0.0 if split == 0 else (self.only_first - self.only_second) / math.sqrt(split)

    @property
    def p(self) -> float:
        """The exact two-sided binomial p-value of the split games under "no difference"."""
        n = self.only_first + self.only_second
        k = min(self.only_first, self.only_second)
        tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
        return min(1.0, 2 * tail)


def load(path: Path) -> dict[str, Any]:
    """A tournament's results file (``gotown tournament --json``), or a clear error."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise click.UsageError(f"cannot read {path}: {error}") from None
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise click.UsageError(f"{path} is not a tournament's results file (no 'results')")
    return data


def compare(first: dict[str, Any], second: dict[str, Any], entry: int = 0) -> Paired:
    """The games both results hold, by game number, for the bot at position ``entry``.

    Raises ``ValueError`` naming what differs when the two did not deal the same games.
    """
    for key in ("seed", "turn_limit"):
        if first.get(key) != second.get(key):
            raise ValueError(
                f"the files differ in {key}: {first.get(key)!r} and {second.get(key)!r}"
            )
    theirs = {game["index"]: game for game in second["results"]}
    both = only_first = only_second = games = 0
    for game in first["results"]:
        other = theirs.get(game["index"])
        if other is None:
            continue
        if other["seats"] != game["seats"]:
            raise ValueError(
                f"game {game['index']} seats the bots otherwise in the two files: "
                f"{game['seats']} and {other['seats']} (other player counts or lineups?)"
            )
        games += 1
        won, won_too = game["winner"] == entry, other["winner"] == entry
        both += won and won_too
        only_first += won and not won_too
        only_second += won_too and not won
    if games == 0:
        raise ValueError("the files have no game number in common")
    return Paired(games, both, only_first, only_second)


@click.command()
@click.argument("first", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("second", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--entry", default=0, show_default=True, type=click.IntRange(0, 3),
              help="the position in the lineup of the bot compared")  # fmt: skip
def main(first: Path, second: Path, entry: int) -> None:
    """Compare the bot at ENTRY in two tournaments' results on the deals both played."""
    one, two = load(first), load(second)
    try:
        paired = compare(one, two, entry)
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    names = [(data.get("lineup") or ["?"] * 4)[entry] for data in (one, two)]
    click.echo(f"{paired.games} games both files hold")
    for name, path, rate in ((names[0], first, paired.first_rate),
                             (names[1], second, paired.second_rate)):  # fmt: skip
        click.echo(f"  {rate:6.1%}  {name} ({path.name})")
    click.echo(
        f"won in both {paired.both}, only in the first {paired.only_first}, only in the "
        f"second {paired.only_second}: McNemar z = {paired.z:+.2f}, exact p = {paired.p:.3f}"
    )


if __name__ == "__main__":
    main()
