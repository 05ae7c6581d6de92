"""What the stalemate check (R20b) costs random play: the engine's sources as they are, beside
the same engine with the check taken out of its turn cycle, in rounds that alternate in one run.

The check runs at every end of turn, but only its first line there is paid at every one: while
a pile holds a card, the seat that ended its turn with fewer than 8 cards will draw again (R7b),
so nothing can be frozen. It prints how many turn ends went on to the full check
(:meth:`~gotown.engine.Game.is_stalemate`), the time those full checks took, and the actions
per CPU second with and without the check. The engine's sources only: the compiled classes
cannot be patched (``gotown bench`` times that build whole).

    GOTOWN_PURE=1 .venv/bin/python benchmarks/stalemate_cost.py --players 2 --rounds 5
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import click

import gotown.engine
from gotown.engine import Game
from gotown.engine import game as game_module

TURN_LIMIT = 300


def _pass_without_the_check(self: Game) -> None:
    """``Game._pass`` as it was before R20b: the turn limit, then the next turn."""
    while True:
        limit = self.options.turn_limit
        if limit is not None and self.turn >= limit:
            self._finish(None)
            return
        seat = self.active
        if self.donut:
            game_module.discard_donut(self)
            extra = True
        else:
            seat = (seat + 1) % self.players
            extra = False
        if self._begin_turn(seat, extra):
            return


@contextmanager
def patched(name: str, replacement: Callable[..., object]) -> Iterator[None]:
    original = getattr(Game, name)
    setattr(Game, name, replacement)
    try:
        yield
    finally:
        setattr(Game, name, original)


def play(players: int, seed: int, index: int) -> Game:
    """Game ``index`` of random legal play: its moves depend on its index only."""
    rng = random.Random(seed * 1_000_003 + index)
    game = Game.new(players=players, seed=seed + index, options={"turn_limit": TURN_LIMIT})
    while not game.is_over:
        legal = game.legal_actions()
        game.apply_unchecked(legal[rng.randrange(len(legal))])
    return game


def cpu_seconds(players: int, seed: int, indices: list[int]) -> float:
    """CPU seconds to play the games ``indices`` (the same moves with the check or without,
    since none of them ends in a stalemate)."""
    start = time.process_time()
    for index in indices:
        play(players, seed, index)
    return time.process_time() - start


def full_checks(players: int, games: int, seed: int) -> tuple[int, int, float, int, list[int]]:
    """Over ``games`` random games: turn ends, full checks, their CPU seconds, stalemates, and
    the games that end otherwise."""
    counted = {"checks": 0, "seconds": 0.0}
    check = Game.is_stalemate

    def timed_check(self: Game) -> bool:
        start = time.process_time()
        result = check(self)
        counted["seconds"] += time.process_time() - start
        counted["checks"] += 1
        return result

    ends = stalemates = 0
    kept: list[int] = []
    with patched("is_stalemate", timed_check):
        for index in range(games):
            game = play(players, seed, index)
            ends += sum(action.type == "end-turn" for action in game.actions)
            if game.outcome() == (None, "stalemate"):
                stalemates += 1
            else:
                kept.append(index)
    return ends, counted["checks"], counted["seconds"], stalemates, kept


@click.command()
@click.option("--players", type=click.IntRange(2, 4), default=2, show_default=True)
@click.option("--rounds", type=click.IntRange(1), default=5, show_default=True,
              help="Rounds, each playing the games with the check and without it.")  # fmt: skip
@click.option("--games", type=click.IntRange(1), default=2000, show_default=True,
              help="Games in which the full checks are counted and timed.")  # fmt: skip
@click.option("--seed", type=int, default=0, show_default=True)
def main(players: int, rounds: int, games: int, seed: int) -> None:
    """Print the stalemate check's share of random play's time, on the engine's sources."""
    if gotown.engine.COMPILED:
        raise click.ClickException("run it on the engine's sources (GOTOWN_PURE=1)")
    ends, checks, check_seconds, stalemates, kept = full_checks(players, games, seed)
    click.echo(
        f"{players} players, {games} random games: {ends:,} turn ends, {checks:,} full checks "
        f"({checks / max(ends, 1):.1%} of them), {check_seconds * 1e6 / max(checks, 1):.1f} us "
        f"each, {stalemates} stalemates ({stalemates / games:.1%} of the games)"
    )
    with_check, without = [], []
    for _ in range(rounds):
        with_check.append(cpu_seconds(players, seed, kept))
        with patched("_pass", _pass_without_the_check):
            without.append(cpu_seconds(players, seed, kept))
    a, b = statistics.median(with_check), statistics.median(without)
    click.echo(
        f"the {len(kept)} other games, median of {rounds} alternating rounds: {a:.3f} s of CPU "
        f"with the check, {b:.3f} s without: {a / b - 1:+.1%}"
    )


if __name__ == "__main__":
    main()
