"""Why ``medium`` keeps stealable pairs: its holding rule taken apart, against the old rule.

Each variant below differs from today's ``medium`` (``gotown.bots.rules``) only in when it keeps
a pair whose new floor an opponent can probably steal (R11). Every variant plays ``--games``
two-player games against ``previous`` (the rule ``medium`` used before) and as many against
``random``, seats alternating, on all cores, and the table gives each one's win rate with a
95% Wilson interval.

    .venv/bin/python benchmarks/medium_ablation.py --games 6000

Variants:

- ``previous``: keep a pair when the steal chance is over 0.5, except when a dog is in hand,
  when two pairs can be built this turn, or when the hand holds 7 cards or more;
- ``no-hold``: build every pair at once;
- ``hold-7``: as ``previous``, but two builds in one turn no longer excuse an exposed floor;
- ``hold-8``: as ``hold-7``, but the hand must be full (8 cards, R7b) to excuse it;
- ``medium``: as ``hold-8``, and build when no opponent acts before our next turn (a donut
  truck on the table, R19, or a pending milkshake before every opponent, R7a): today's rule.
"""

from __future__ import annotations

import itertools
import os
import random
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

import click
from rich.console import Console
from rich.progress import Progress
from rich.table import Table as RichTable

from gotown.analysis.tournament import wilson
from gotown.bots import make_bot
from gotown.bots.base import Bot
from gotown.bots.rules import HOLD, WIN, Table, _Exposure, score_medium
from gotown.engine import Action, Game, View
from gotown.engine.cards import JOKER, KIND_OF

#: name -> (hold at all, hand size that excuses a floor, two builds excuse it, safe turns count)
VARIANTS: dict[str, tuple[bool, int, bool, bool]] = {
    "previous": (True, 7, True, False),
    "no-hold": (False, 0, False, False),
    "hold-7": (True, 7, False, False),
    "hold-8": (True, 8, False, False),
    "medium": (True, 8, False, True),
}


class Variant:
    """The ``medium`` scoring rule with one of the holding rules of :data:`VARIANTS`."""

    def __init__(self, name: str, seed: int) -> None:
        self.name = name
        self._hold, self._full, self._two, self._safe_turns = VARIANTS[name]
        self._rng = random.Random(seed)

    def choose(self, view: View, legal_actions: Sequence[Action]) -> Action:
        assert view.seat is not None
        me = view.seat
        table = Table(view)
        exposure = _Exposure(view)
        if not self._safe_turns:
            exposure._safe = False
        builds = sum(a.type == "build" for a in legal_actions)
        best: list[Action] = []
        best_score = -1e9
        for action in legal_actions:
            value = score_medium(table, me, action, view.options.win_floors)
            if self._hold and action.type == "build" and value < WIN:
                a, b = (KIND_OF[c] for c in action.cards)
                risk = exposure.chance(b if a == JOKER else a)
                excused = (
                    table.hands[me][9]
                    or table.hand_sizes[me] >= self._full
                    or (self._two and builds >= 2)
                )
                if excused:
                    value += 10.0 * risk
                elif risk > _Exposure.THRESHOLD:
                    value = HOLD
            if value > best_score:
                best, best_score = [action], value
            elif value == best_score:
                best.append(action)
        return best[0] if len(best) == 1 else best[self._rng.randrange(len(best))]


def _bot(name: str, seed: int) -> Bot:
    return Variant(name, seed) if name in VARIANTS else make_bot(name, seed)


def play(task: tuple[str, str, int, int]) -> bool | None:
    """One game of ``variant`` against ``opponent``; True when the variant wins."""
    variant, opponent, index, seed = task
    first = index % 2
    game_seed = seed * 1_000_003 + index
    game = Game.new(players=2, seed=game_seed, options={"first_player": 0, "turn_limit": 300})
    names = (variant, opponent) if first == 0 else (opponent, variant)
    bots = [_bot(names[s], game_seed * 8 + s) for s in range(2)]
    while not game.is_over:
        seat = game.active
        game.apply(bots[seat].choose(game.view(seat), game.legal_actions()))
    if game.winner is None:
        return None
    return game.winner == first


@click.command()
@click.option("--games", default=2000, show_default=True, help="games per line of the table")
@click.option("--seed", default=0, show_default=True)
@click.option("--workers", default=os.cpu_count() or 1, show_default=True)
def main(games: int, seed: int, workers: int) -> None:
    """Play every holding variant against the previous medium and against random."""
    lines = list(itertools.product(VARIANTS, ("previous", "random")))
    wins = dict.fromkeys(lines, 0)
    with ProcessPoolExecutor(workers) as pool, Progress() as progress:
        bar = progress.add_task("games", total=games * len(lines))
        for line in lines:
            tasks = [(line[0], line[1], i, seed) for i in range(games)]
            for won in pool.map(play, tasks, chunksize=16):
                wins[line] += won is True
                progress.advance(bar)
    table = RichTable(title=f"medium's holding rule, {games} games per line, seed {seed}")
    for column in ("variant", "against", "wins", "win rate", "95% CI"):
        table.add_column(column)
    for (variant, opponent), won in wins.items():
        low, high = wilson(won, games)
        table.add_row(
            variant,
            opponent,
            str(won),
            f"{100 * won / games:.1f}%",
            f"{100 * low:.1f} to {100 * high:.1f}%",
        )
    Console().print(table)


if __name__ == "__main__":
    main()
