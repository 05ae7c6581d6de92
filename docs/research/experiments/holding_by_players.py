"""Does ``medium``'s holding rule pay with three or four players, and what does it cost the table?

``medium`` keeps a pair in hand while an opponent would probably steal its new floor (R11),
until a dog can guard it or its hand is full (``gotown.bots.rules``). The rule was tuned with
two players. With more opponents some one of them nearly always holds a stealing card, so the
rule keeps pairs far longer. ``medium`` holds with 2 and 3 players and builds every pair at
once with 4 (``RuleBot.HOLDING_PLAYERS``). For each player count given, two measurements:

- **the holder's edge**: one seat plays the line's rule, the others ``medium`` as shipped; the
  line's seat rotates (game ``i``: seat ``i % players``). Win rate of that seat, par being
  1/players; the two lines play the same deals. The line whose rule is ``medium``'s own at
  that player count (``hold`` with 3, ``no-hold`` with 4) is the self-play control;
- **the table's game**: every seat plays the line's rule: game length (mean and median turns)
  and the games that reach the turn limit (300) or a stalemate (R20b), which people at a table
  with these bots would sit through.

Rules: ``hold`` (``medium``'s holding at every player count) and ``no-hold`` (``medium``
building every pair at once).

    .venv/bin/python docs/research/experiments/holding_by_players.py \
        --players 3 --players 4 --games 600
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

import click
from rich.console import Console
from rich.progress import Progress
from rich.table import Table as RichTable

from gotown.bots import make_bot
from gotown.bots.base import Bot
from gotown.bots.rules import RuleBot
from gotown.engine import Action, Game, View
from gotown.tournament.duel import seed_and_workers
from gotown.tournament.tournament import wilson

RULES = ("hold", "no-hold")
TURN_LIMIT = 300


class Hold(RuleBot):
    """``medium``, keeping stealable pairs at every player count."""

    HOLDING_PLAYERS = 4

    def __init__(self, seed: int) -> None:
        super().__init__("hold", seed, careful=True)


class NoHold(RuleBot):
    """``medium``, building every pair at once (no steal risk keeps one in hand)."""

    def __init__(self, seed: int) -> None:
        super().__init__("no-hold", seed, careful=True)

    def _exposure(self, view: View, legal_actions: Sequence[Action]) -> None:
        return None


def _bot(rule: str, seed: int) -> Bot:
    if rule == "medium":
        return make_bot("medium", seed)
    return Hold(seed) if rule == "hold" else NoHold(seed)


def play(task: tuple[str, str, int, int, int]) -> tuple[bool, int, str]:
    """One game: (the line's seat won, turns, how it ended: win / stalemate / turn-limit)."""
    kind, rule, players, index, seed = task
    game_seed = seed * 1_000_003 + index
    game = Game.new(
        players=players,
        seed=game_seed,
        options={"first_player": 0, "turn_limit": TURN_LIMIT},
    )
    mine = index % players
    rules = [rule if kind == "table" or s == mine else "medium" for s in range(players)]
    bots = [_bot(rules[s], game_seed * 8 + s) for s in range(players)]
    while not game.is_over:
        seat = game.active
        game.apply(bots[seat].choose(game.view(seat), game.legal_actions()))
    outcome = game.outcome()
    assert outcome is not None
    return outcome.winner == mine, game.turn, outcome.reason.value


def run(
    players_list: Sequence[int], games: int, seed: int, workers: int
) -> dict[tuple[str, str, int], list[tuple[bool, int, str]]]:
    """Every (measurement, rule, players) line's games, on all cores with a progress bar."""
    lines = [(kind, rule, p) for p in players_list for kind in ("edge", "table") for rule in RULES]
    out: dict[tuple[str, str, int], list[tuple[bool, int, str]]] = {}
    with ProcessPoolExecutor(workers) as pool, Progress() as progress:
        bar = progress.add_task("games", total=games * len(lines))
        for kind, rule, p in lines:
            tasks = [(kind, rule, p, i, seed) for i in range(games)]
            results = []
            for result in pool.map(play, tasks, chunksize=max(1, min(16, games // 50))):
                results.append(result)
                progress.advance(bar)
            out[(kind, rule, p)] = results
    return out


@click.command()
@click.option("--players", "players_list", type=click.IntRange(2, 4), multiple=True,
              default=(3, 4), show_default=True, help="player counts (repeatable)")  # fmt: skip
@click.option("--games", default=600, show_default=True, type=click.IntRange(1),
              help="games per line")  # fmt: skip
@seed_and_workers
def main(players_list: tuple[int, ...], games: int, seed: int, workers: int) -> None:
    """Measure medium's holding rule with 3 and 4 players (see the module docstring)."""
    results = run(players_list, games, seed, workers)
    console = Console()
    edge = RichTable(title="the holder's edge: one seat plays the rule, the others medium")
    for column in ("players", "rule", "games", "wins", "win rate", "95% CI", "par"):
        edge.add_column(column)
    table = RichTable(title="the table's game: every seat plays the rule")
    for column in ("players", "rule", "games", "mean turns", "median", "turn limit", "stalemate"):
        table.add_column(column)
    for p in players_list:
        for rule in RULES:
            games_ = results[("edge", rule, p)]
            wins = sum(won for won, _, _ in games_)
            low, high = wilson(wins, len(games_))
            edge.add_row(str(p), rule, str(len(games_)), str(wins),
                         f"{100 * wins / len(games_):.1f}%",
                         f"{100 * low:.1f} to {100 * high:.1f}%", f"{100 / p:.1f}%")  # fmt: skip
            games_ = results[("table", rule, p)]
            turns = [t for _, t, _ in games_]
            endings = [e for _, _, e in games_]
            table.add_row(str(p), rule, str(len(games_)), f"{statistics.mean(turns):.1f}",
                          f"{statistics.median(turns):g}", str(endings.count("turn-limit")),
                          str(endings.count("stalemate")))  # fmt: skip
    console.print(edge)
    console.print(table)


if __name__ == "__main__":
    main()
