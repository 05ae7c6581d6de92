"""Why ``medium`` keeps stealable pairs: its holding rule taken apart, against the old rule.

Each variant below differs from today's ``medium`` (``gotown.bots.rules``) only in when it keeps
a pair whose new floor an opponent can probably steal (R11). Every variant plays ``--games``
two-player games against ``previous`` (the rule ``medium`` used before) and as many against
``random``, seats alternating, on all cores, and the table gives each one's win rate with a
95% Wilson interval.

    .venv/bin/python docs/research/experiments/medium_ablation.py --games 6000

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
from collections.abc import Sequence

import click

from gotown.bots import make_bot
from gotown.bots.base import Bot
from gotown.bots.rules import RuleBot, RuleFacts, _Exposure
from gotown.engine import Action, View
from gotown.tournament.duel import print_table, run, seed_and_workers

#: name -> (hold at all, hand size that excuses a floor, two builds excuse it, quiet turns count)
VARIANTS: dict[str, tuple[bool, int, bool, bool]] = {
    "previous": (True, 7, True, False),
    "no-hold": (False, 0, False, False),
    "hold-7": (True, 7, False, False),
    "hold-8": (True, 8, False, False),
    "medium": (True, 8, False, True),
}


class VariantExposure(_Exposure):
    """medium's steal risks with one of the holding rules of :data:`VARIANTS`."""

    def __init__(self, view: View, rule: tuple[bool, int, bool, bool], builds: int) -> None:
        super().__init__(view)
        self.hold, self.FULL_HAND, self.two_builds, quiet_turns = rule
        self.quiet = self.quiet and quiet_turns
        self.builds = builds

    def adjust(self, facts: RuleFacts, me: int, action: Action, value: float) -> float:
        return super().adjust(facts, me, action, value) if self.hold else value

    def excused(self, facts: RuleFacts, me: int) -> bool:
        return super().excused(facts, me) or (self.two_builds and self.builds >= 2)


class Variant(RuleBot):
    """The ``medium`` rule (:class:`RuleBot`) with a holding rule of :data:`VARIANTS`."""

    def __init__(self, name: str, seed: int) -> None:
        super().__init__(name, seed, careful=True)
        self.rule = VARIANTS[name]

    def _exposure(self, view: View, legal_actions: Sequence[Action]) -> _Exposure:
        builds = sum(a.type == "build" for a in legal_actions)
        return VariantExposure(view, self.rule, builds)


def _bot(name: str, seed: int) -> Bot:
    return Variant(name, seed) if name in VARIANTS else make_bot(name, seed)


@click.command()
@click.option("--games", default=2000, show_default=True, help="games per line of the table")
@seed_and_workers
def main(games: int, seed: int, workers: int) -> None:
    """Play every holding variant against the previous medium and against random."""
    lines = [(v, o, games) for v, o in itertools.product(VARIANTS, ("previous", "random"))]
    wins = run(_bot, lines, seed, workers)
    print_table(f"medium's holding rule, {games} games per line, seed {seed}", lines, wins)


if __name__ == "__main__":
    main()
