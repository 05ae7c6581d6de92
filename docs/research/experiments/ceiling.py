"""How much can skill win against ``medium``? Players that cheat, as an upper bound.

The strength targets ask ``hard`` to beat ``medium`` in 65% of two-player games. This
benchmark measures what *perfect knowledge of the hidden cards* is worth against ``medium``,
with probes that see what a real bot may not (they are measurement tools, not bot levels: a
real bot only ever gets a seat's view, ``gotown.bots.base``):

- ``seer-medium``: ``medium``'s rule, but its steal risk is exact: it keeps a pair exactly when
  an opponent really holds a card that steals the floor (R11), instead of card counting;
- ``seer-hard``: ``hard``'s search (SO-ISMCTS, 1,000 iterations), but every determinisation
  deals the opponents their real hands (only the order of the draw pile stays unknown).

Beside them, on the same deals, two honest players: ``hard`` itself, and ``hard+inference``,
whose determinisations model the opponents as sensible players (``Sampler(infer=True)``: no
card dealt that they would have played rather than end their turn), the part of the
information that their play reveals.

Every line plays ``--games`` two-player games (``--search-games`` for the three search lines,
which are about 250 times slower), seats alternating, on all cores, with the conditions of
``benchmarks/bots.sh`` (``turn_limit: 300``; a game with no winner counts as a loss), and the
table gives each win rate with a 95% Wilson interval. Game ``i`` of every line is dealt from
the same seed, so the lines differ only in the players (``gotown/tournament/duel.py``).

    .venv/bin/python docs/research/experiments/ceiling.py --games 4000 --search-games 400
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import click

from gotown.bots import make_bot
from gotown.bots.base import Bot
from gotown.bots.ismcts import SearchBot
from gotown.bots.rules import RuleBot, _Exposure
from gotown.bots.sampling import Sampler
from gotown.engine import CODES, Action, Game, View
from gotown.tournament.duel import Seer, print_table, run, seed_and_workers

RULE_LINES = (
    ("medium", "medium"),
    ("seer-medium", "medium"),
    ("medium", "easy"),
    ("seer-medium", "easy"),
    ("medium", "random"),
    ("seer-medium", "random"),
)
SEARCH_LINES = (("seer-hard", "medium"), ("hard", "medium"), ("hard+inference", "medium"))
#: ``hard``'s iterations when this experiment was run (2026-11-21; it has 2,500 since 2026-11-28).
ITERATIONS = 1000


def _codes(counts: Sequence[int]) -> list[str]:
    return [CODES[kind] for kind, count in enumerate(counts) for _ in range(count)]


class _SeerExposure(_Exposure):
    """medium's exposure with the steal risk read from the real hands: 1 or 0."""

    def __init__(self, view: View, game: Game) -> None:
        super().__init__(view)
        self._opponents = [game.hands[s] for s in range(game.players) if s != view.seat]

    def chance(self, number: int) -> float:
        if self.quiet:
            return 0.0
        return float(any(hand[number] or hand[9 - number] for hand in self._opponents))


class SeerMedium(Seer, RuleBot):
    """``medium`` with an exact steal risk (it is shown the game before every decision)."""

    def __init__(self, seed: int) -> None:
        super().__init__("seer-medium", seed, careful=True)

    def _exposure(self, view: View, legal_actions: Sequence[Action]) -> _Exposure:
        assert self.game is not None
        return _SeerExposure(view, self.game)


class _SeerSampler(Sampler):
    """Deals the opponents their real hands; only the draw pile is shuffled."""

    def __init__(self, view: View, game: Game) -> None:
        super().__init__(view)
        self._hands = [
            None if s == view.seat else _codes(game.hands[s]) for s in range(game.players)
        ]
        self._draw = [CODES[kind] for kind in game.draw]

    def sample(self, rng: random.Random) -> Game:
        draw = self._draw[:]
        rng.shuffle(draw)
        return Game.from_view(self.view, self._hands, draw, seed=rng.getrandbits(63))


class SeerHard(Seer, SearchBot):
    """``hard``'s search over determinisations that hold the opponents' real hands."""

    def __init__(self, seed: int) -> None:
        super().__init__("seer-hard", seed, iterations=ITERATIONS, rollout_turns=None)

    def _sampler(self, view: View) -> Sampler:
        assert self.game is not None
        return _SeerSampler(view, self.game)


def _bot(name: str, seed: int) -> Bot:
    if name == "seer-medium":
        return SeerMedium(seed)
    if name == "seer-hard":
        return SeerHard(seed)
    if name == "hard+inference":
        return SearchBot(name, seed, iterations=ITERATIONS, rollout_turns=None, infer=True)
    if name == "hard":
        return SearchBot(name, seed, iterations=ITERATIONS, rollout_turns=None)
    return make_bot(name, seed)


@click.command()
@click.option("--games", default=4000, show_default=True, help="games per rule-based line")
@click.option(
    "--search-games", default=0, show_default=True, help="games per search line (0: skip them)"
)
@seed_and_workers
def main(games: int, search_games: int, seed: int, workers: int) -> None:
    """Measure what seeing the hidden cards is worth against medium."""
    lines = [(p, o, games) for p, o in RULE_LINES]
    if search_games:
        lines += [(p, o, search_games) for p, o in SEARCH_LINES]
    wins = run(_bot, lines, seed, workers)
    print_table(f"what seeing the hidden cards is worth (2 players, seed {seed})", lines, wins)


if __name__ == "__main__":
    main()
