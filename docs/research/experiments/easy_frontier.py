"""Can one rule-based level beat ``random`` 90% of the time and still lose 60% to ``medium``?

The issue asks for both: ``easy`` beats ``random`` in at least 90% of games, and ``medium``
beats ``easy`` in at least 60%. This script measures the trade-off between the two over a
family of candidate ``easy`` players, from the shipped ``easy`` to ``medium`` itself, each in
three lines of two-player games (seats alternating, seed 0, as in ``gotown/tournament/duel.py``):

- the candidate against ``random`` (the first target);
- ``medium`` against the candidate (the second target);
- ``medium-inferring`` against the candidate: ``medium`` whose steal risk is read off
  determinisations that model the opponent as a sensible player (``Sampler(infer=True)``,
  :mod:`gotown.bots.sampling`): what a ``medium`` gains by reading the candidate's play;
- ``seer-medium`` against the candidate: ``medium`` with the exact steal risk, which sees the
  candidate's hand (``ceiling.py`` beside this one). A ``medium`` that changes only how it judges
  the steal risk cannot beat perfect knowledge of the hidden cards, so this line bounds what
  such a stronger ``medium`` could get against that candidate.

Candidates (a *kept* pair is one ``medium``'s card counting says will probably be stolen, R11):

- ``easy``: the shipped level (``easy``'s rule, a random action one time in ten);
- ``easy-0``: ``easy``'s rule without the random actions;
- ``medium-no-hold``: ``medium``'s rule, but it builds every pair at once;
- ``medium-keep-T``: ``medium``'s rule, keeping a pair only when the chance that the opponent
  can steal its floor is over T (``medium`` itself keeps it over 0.5);
- ``medium``: the shipped level.

    .venv/bin/python docs/research/experiments/easy_frontier.py --games 4000 --plot frontier.png

A candidate meets both targets when its first line is at least 90% and its second at least
60%; the plot shows every candidate in that plane, with the target corner shaded.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

import click
from ceiling import SeerMedium

from gotown.bots import make_bot
from gotown.bots.base import Bot
from gotown.bots.rules import RuleBot, _Exposure
from gotown.bots.sampling import Sampler
from gotown.engine import Action, View
from gotown.tournament.duel import (
    Line,
    plot_option,
    print_table,
    run,
    save_figure,
    seed_and_workers,
)

#: The variants between the shipped levels: name -> (medium's rule rather than easy's, keep
#: threshold or None to build every pair at once, chance of a random action).
VARIANTS: dict[str, tuple[bool, float | None, float]] = {
    "easy-0": (False, None, 0.0),
    "medium-no-hold": (True, None, 0.0),
    "medium-keep-0.9": (True, 0.9, 0.0),
    "medium-keep-0.8": (True, 0.8, 0.0),
    "medium-keep-0.7": (True, 0.7, 0.0),
}
#: Every candidate, weakest rule first: the shipped ``easy``, the variants, ``medium``.
CANDIDATES = ("easy", *VARIANTS, "medium")

#: The targets of the issue, as fractions.
AGAINST_RANDOM = 0.90
MEDIUM_AGAINST = 0.60


class KeepOver(RuleBot):
    """A rule-based player that keeps a stealable pair only when the steal chance is over
    ``keep_over`` (None: it builds every pair at once)."""

    keep_over: float | None = None

    def _exposure(self, view: View, legal_actions: Sequence[Action]) -> _Exposure | None:
        if self.keep_over is None:
            return None
        exposure = _Exposure(view)
        exposure.THRESHOLD = self.keep_over
        return exposure


class Candidate(KeepOver):
    """A rule-based player of :data:`VARIANTS`."""

    def __init__(self, name: str, seed: int) -> None:
        careful, self.keep_over, noise = VARIANTS[name]
        super().__init__(name, seed, careful=careful, noise=noise)


class _SampledExposure(_Exposure):
    """medium's steal risk as the share of :data:`SAMPLES` determinisations (opponents modelled
    as sensible players) in which an opponent holds, or draws next, a card that steals the
    floor (R11)."""

    SAMPLES = 48

    def __init__(self, view: View, rng: random.Random) -> None:
        super().__init__(view)
        sampler = Sampler(view, infer=True, belief=1.0)
        me = view.seat
        self._hands: list[list[set[int]]] = []
        for _ in range(self.SAMPLES):
            game = sampler.sample(rng)
            hands = []
            for seat in range(view.players):
                if seat != me:
                    kinds = {kind for kind, count in enumerate(game.hands[seat]) if count}
                    if sum(game.hands[seat]) < self.FULL_HAND and game.draw:
                        kinds.add(game.draw[-1])  # R7b: its next turn draws this card
                    hands.append(kinds)
            self._hands.append(hands)

    def chance(self, number: int) -> float:
        if self.quiet:
            return 0.0
        stealers = {number, 9 - number}
        hits = sum(any(stealers & kinds for kinds in hands) for hands in self._hands)
        return hits / len(self._hands)


class InferringMedium(RuleBot):
    """``medium`` judging the steal risk by :class:`_SampledExposure`."""

    def __init__(self, seed: int) -> None:
        super().__init__("medium-inferring", seed, careful=True)
        self._sampling = random.Random(seed + 1)

    def _exposure(self, view: View, legal_actions: Sequence[Action]) -> _Exposure:
        if any(action.type == "build" for action in legal_actions):
            return _SampledExposure(view, self._sampling)
        return _Exposure(view)


#: The players measured against every candidate, besides ``random``.
JUDGES = ("medium", "medium-inferring", "seer-medium")


def _bot(name: str, seed: int) -> Bot:
    if name == "seer-medium":
        return SeerMedium(seed)
    if name == "medium-inferring":
        return InferringMedium(seed)
    if name in VARIANTS:
        return Candidate(name, seed)
    return make_bot(name, seed)


def lines_for(candidates: Sequence[str], games: int) -> list[Line]:
    """The three lines of every candidate, in the order of the table."""
    lines: list[Line] = []
    for name in candidates:
        lines += [(name, "random", games)] + [(judge, name, games) for judge in JUDGES]
    return lines


def plot(path: Path, candidates: Sequence[str], rates: dict[Line, float]) -> None:
    """Each candidate at (its rate against random, each judge's rate against it), with the
    corner where both targets hold shaded."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 5.5))
    xs = [100 * rates[(c, "random")] for c in candidates]
    medium = [100 * rates[("medium", c)] for c in candidates]
    inferring = [100 * rates[("medium-inferring", c)] for c in candidates]
    seer = [100 * rates[("seer-medium", c)] for c in candidates]
    low_x = min([*xs, 100 * AGAINST_RANDOM]) - 1
    top_y = max([*seer, 100 * MEDIUM_AGAINST]) + 2
    ax.fill_between(
        [100 * AGAINST_RANDOM, 100],
        100 * MEDIUM_AGAINST,
        top_y,
        color="tab:green",
        alpha=0.15,
        label="both targets met",
    )
    ax.plot(xs, medium, "o-", color="tab:blue", label="medium against the candidate")
    ax.plot(xs, inferring, "^:", color="tab:purple", label="medium-inferring (reads its play)")
    ax.plot(xs, seer, "s--", color="tab:orange", label="seer-medium (sees its hand): the bound")
    for x, y, name in zip(xs, medium, candidates, strict=True):
        ax.annotate(name, (x, y), textcoords="offset points", xytext=(4, -12), fontsize=8)
    ax.set_xlim(low_x, max(xs) + 1)
    ax.set_ylim(min(medium + inferring) - 2, top_y)
    ax.set_xlabel("candidate easy: win rate against random (%)")
    ax.set_ylabel("win rate against the candidate (%)")
    ax.set_title("easy >= 90% against random and medium >= 60% against easy")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower left", fontsize=8)
    save_figure(fig, path)


@click.command()
@click.option("--games", default=4000, show_default=True, help="games per line")
@seed_and_workers
@plot_option("the trade-off")
def main(games: int, seed: int, workers: int, plot_path: Path | None) -> None:
    """Measure every candidate easy against random and against each judge."""
    candidates = list(CANDIDATES)
    lines = lines_for(candidates, games)
    wins = run(_bot, lines, seed, workers)
    print_table(f"candidate easy players, {games} games per line, seed {seed}", lines, wins)
    rates = {(p, o): w / g for (p, o, g), w in zip(lines, wins, strict=True)}
    both = [
        c
        for c in candidates
        if rates[(c, "random")] >= AGAINST_RANDOM and rates[("medium", c)] >= MEDIUM_AGAINST
    ]
    click.echo(f"meeting both targets in this sample: {', '.join(both) or 'none'}")
    if plot_path is not None:
        plot(plot_path, candidates, {(p, o): rates[(p, o)] for p, o, _ in lines})


if __name__ == "__main__":
    main()
