"""Tournaments between bots: many games over all cores, with win rates, ratings and timings.

Seat order is balanced per entry (``medium`` and ``medium#2`` are two entries, reported apart):
seat 0 always starts (option ``first_player: 0``), and the games go through every order of the
entries in blocks of ``players`` games, each block the cyclic rotations of one order, so that
each block seats every entry once in every seat (:func:`seatings`). After any number of games
the entries have been first player equally often, give or take one game, and exactly equally
often after a whole number of blocks; every order of the entries comes once per ``players!``
games. A game without a winner ends in one of two ways, each counted: a *stalemate* (R20b), in
which no hand can draw (each holds 8 cards, R7b, or both piles are empty, R9) and nobody can do
anything but end the turn (R21), which the engine ends when the turn that reached it ends; or
the ``turn_limit`` (R23), for a game that could still change but went on too long.

An entry is a bot spec (:func:`gotown.bots.parse_bot_spec`): a level, or a level with
parameters (``hard:iterations=2000``); its name is the spec (``#2`` for a repeat). ``options``
sets R23 rule options for every game, except ``first_player`` and ``turn_limit``, which the
tournament sets itself (:func:`rule_options`).

Ratings come from openskill (Plackett-Luce model). openskill rates game by game, and its
dynamics term lets a rating follow recent results, so one pass in any fixed order can rank the
bots against their win rates (the last few hundred games weigh most). The summary therefore
averages :data:`RATING_PASSES` passes, each over the games in a different seeded random order:
the figures depend on the results only, not on any order (and not on which worker finished
first).

Game ``i`` depends only on the line-up, the seed, ``i``, the turn limit and the options (and the
code of the rules, the bots and this module), so a long tournament can be played in parts:
:func:`.results.results_json` writes the games played so far with a fingerprint of the code,
:func:`.results.load_results` reads them back (checking every game), and
``run_tournament(..., done=...)`` plays only the games still missing. The whole is the same as
one uninterrupted run. The bots' seeds are hashed (:func:`bot_seed`), so that no bot can work
out the deal from its own seed: they depend on the seed, the game and the seat only, not on
the spec (a parameter changes how a bot plays, never its random numbers).
"""

from __future__ import annotations

import itertools
import json
import math
import os
import random
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from gotown.bots import bot_from_spec, hashed_seed, parse_bot_spec
from gotown.engine import Game, Options

from .runner import run_tasks

DEFAULT_TURN_LIMIT = 300
#: Why a game ended (the engine's Termination): a winner (R20), a stalemate (R20b), or the turn
#: limit (R23).
ENDINGS = ("win", "stalemate", "turn-limit")
#: The R23 options that the tournament sets itself, and why (:func:`rule_options`).
TOURNAMENT_OPTIONS = {
    "first_player": "seat 0 starts every game, and the seats rotate over the bots",
    "turn_limit": "use the tournament's turn limit (--turn-limit)",
}
#: How many seeded random orders of the games the ratings are averaged over.
RATING_PASSES = 16


@dataclass(frozen=True)
class GameResult:
    index: int
    seats: tuple[int, ...]  # seats[s] = the entry playing seat s
    winner: int | None  # the winning entry, None after a stalemate or the turn limit
    ending: str  # one of ENDINGS
    turns: int
    actions: int
    think: tuple[float, ...]  # seconds of thinking, per entry
    decisions: tuple[int, ...]  # choose() calls, per entry
    times: tuple[tuple[float, ...], ...] = ()  # every decision's think time, per entry


@dataclass
class EntryStats:
    name: str
    level: str  # the spec's level
    games: int = 0
    wins: int = 0
    win_rate: float = 0.0
    ci_low: float = 0.0
    ci_high: float = 0.0
    rating_mu: float = 0.0
    rating_sigma: float = 0.0
    rating_ordinal: float = 0.0
    decisions: int = 0
    think_seconds: float = 0.0
    mean_think_ms: float = 0.0
    median_think_ms: float = 0.0
    max_think_ms: float = 0.0


@dataclass
class TournamentResult:
    entries: list[EntryStats]
    players: int
    games: int
    no_winner: int
    stalemates: int  # games without a winner that ended in a stalemate (R20b)
    at_turn_limit: int  # games without a winner that reached the turn limit (R23)
    mean_turns: float
    mean_actions: float
    seconds: float
    workers: int
    seed: int
    turn_limit: int
    options: dict[str, Any] = field(default_factory=dict)  # the rule options not at default
    results: list[GameResult] = field(default_factory=list)

    def summary_json(self) -> dict[str, Any]:
        """Everything but the games (:mod:`.results` writes those, one line each)."""
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "results"}
        data["entries"] = [asdict(e) for e in self.entries]
        return data


def rule_options(options: Mapping[str, Any] | None) -> dict[str, Any]:
    """The R23 options of a tournament's games, checked by the engine (``ValueError`` naming
    the option: unknown, a value R23 does not allow, or one the tournament sets itself, see
    :data:`TOURNAMENT_OPTIONS`), as the ones that differ from their defaults: what the results
    file holds and ``--resume`` compares, so that giving a default changes nothing."""
    options = dict(options or {})
    for name, why in TOURNAMENT_OPTIONS.items():
        if name in options:
            raise ValueError(f"option {name} is the tournament's own (R23): {why}")
    chosen = Options.from_json(options).to_json()
    default = Options().to_json()
    return {name: value for name, value in chosen.items() if value != default[name]}


def format_options(options: Mapping[str, Any]) -> str:
    """``win_floors=4, dog_placement="any"`` (values as JSON)."""
    return ", ".join(f"{name}={json.dumps(value)}" for name, value in options.items())


def entry_names(specs: Sequence[str]) -> list[str]:
    """Names for the entries of a line-up: their specs, ``medium``, ``medium#2``, ... for
    repeats."""
    seen: dict[str, int] = {}
    names = []
    for spec in specs:
        seen[spec] = seen.get(spec, 0) + 1
        names.append(spec if seen[spec] == 1 else f"{spec}#{seen[spec]}")
    return names


def seatings(players: int) -> list[tuple[int, ...]]:
    """Every order of ``players`` entries, as tuples ``seats[s] = entry``, in the order the
    games take them: ``players`` at a time, the cyclic rotations of one order (so each block
    of ``players`` games seats every entry once in every seat, and seat 0 starts).

    Entries with the same spec are still told apart: the table reports each entry, so each
    must start as often as the others.
    """
    out: list[tuple[int, ...]] = []
    for rest in itertools.permutations(range(1, players)):
        order = (0, *rest)
        out.extend(order[r:] + order[:r] for r in range(players))
    return out


def bot_seed(seed: int, index: int, seat: int) -> int:
    """The seed of the bot at ``seat`` in game ``index`` of the tournament seeded ``seed``.

    A one-way hash (the first 8 bytes of a SHA-256), where the deal's seed is
    ``seed * 1_000_003 + index``: no arithmetic on a bot's seed gives the game's seed, so a
    bot cannot re-deal the hidden cards from it (R22: a bot may not peek). The residual: a bot
    written to cheat, knowing this scheme, could still hash every small tournament seed and
    game index until one gives its own seed; the seed hides the deal only from bots that do
    not search for it on purpose.
    """
    return hashed_seed(f"gotown tournament bot: seed {seed}, game {index}, seat {seat}")


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval for a proportion (95% by default)."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def deal(players: int, seed: int, index: int, turn_limit: int, options: Mapping[str, Any]) -> Game:
    """Game ``index`` of the tournament seeded ``seed``, dealt: its own seed, seat 0 first, the
    turn limit and the rule options (from :func:`rule_options`)."""
    return Game.new(
        players=players,
        seed=seed * 1_000_003 + index,
        options={**options, "first_player": 0, "turn_limit": turn_limit},
    )


def play_game(
    specs: Sequence[str],
    seats: Sequence[int],
    index: int,
    seed: int,
    turn_limit: int,
    options: Mapping[str, Any] | None = None,
) -> GameResult:
    """Play one game to its end; ``seats[s]`` is the entry (index into ``specs``) at seat s."""
    players = len(seats)
    game = deal(players, seed, index, turn_limit, options or {})
    bots = [bot_from_spec(specs[seats[s]], bot_seed(seed, index, s)) for s in range(players)]
    think = [0.0] * len(specs)
    decisions = [0] * len(specs)
    times: list[list[float]] = [[] for _ in specs]
    clock = time.perf_counter
    while not game.is_over:
        seat = game.active
        view = game.view(seat)
        legal = game.legal_actions()
        start = clock()
        action = bots[seat].choose(view, legal)
        spent = clock() - start
        think[seats[seat]] += spent
        times[seats[seat]].append(spent)
        decisions[seats[seat]] += 1
        game.apply(action)
    outcome = game.outcome()
    assert outcome is not None
    winner = None if outcome.winner is None else seats[outcome.winner]
    return GameResult(
        index=index,
        seats=tuple(seats),
        winner=winner,
        ending=outcome.reason.value,
        turns=game.turn,
        actions=game.version,
        think=tuple(think),
        decisions=tuple(decisions),
        times=tuple(tuple(t) for t in times),
    )


def _play_task(
    args: tuple[tuple[str, ...], tuple[int, ...], int, int, int, dict[str, Any]],
) -> GameResult:
    return play_game(*args)


def run_tournament(
    specs: Sequence[str],
    games: int,
    seed: int = 0,
    workers: int | None = None,
    turn_limit: int = DEFAULT_TURN_LIMIT,
    progress: Callable[[GameResult], None] | None = None,
    max_seconds: float | None = None,
    done: Sequence[GameResult] = (),
    done_seconds: float = 0.0,
    options: Mapping[str, Any] | None = None,
) -> TournamentResult:
    """Play ``games`` games between the line-up ``specs`` (one bot spec per seat, 2 to 4),
    with the R23 ``options`` (:func:`rule_options`) in every game.

    With ``max_seconds``, no game starts after that time: the result then holds fewer games
    (its ``games`` says how many: the first games, cut to a whole number of blocks of
    ``players`` games, the unit that seats every entry in every seat once).
    ``done`` holds games already played (from :mod:`.results`, taking ``done_seconds``):
    only the others are played, lowest index first.

    Raises ``ValueError`` (before any game) for a bad line-up, spec or option.
    """
    specs = tuple(specs)
    if not 2 <= len(specs) <= 4:
        raise ValueError("a game of GoTown has 2 to 4 players (R1)")
    for spec in specs:
        parse_bot_spec(spec)
    chosen = rule_options(options)
    orders = seatings(len(specs))
    played = {r.index: r for r in done if r.index < games}
    tasks = [
        (specs, orders[i % len(orders)], i, seed, turn_limit, chosen)
        for i in range(games)
        if i not in played
    ]
    workers = workers or os.cpu_count() or 1
    started = time.perf_counter()
    deadline = None if max_seconds is None else started + max_seconds

    def in_time() -> bool:
        return deadline is None or time.perf_counter() < deadline

    results: list[GameResult] = list(played.values())
    for result in run_tasks(_play_task, tasks, workers, in_time):
        results.append(result)
        if progress:
            progress(result)
    elapsed = done_seconds + time.perf_counter() - started
    results.sort(key=lambda r: r.index)
    if len(results) < games:  # stopped: keep the first games, in whole blocks of seat orders
        first = next(i for i, r in enumerate([*results, None]) if r is None or r.index != i)
        whole = first - first % len(specs)
        results = results[:whole]
    return summarise(specs, results, elapsed, workers, seed, turn_limit, chosen)


def summarise(
    specs: Sequence[str],
    results: Sequence[GameResult],
    seconds: float,
    workers: int,
    seed: int,
    turn_limit: int,
    options: Mapping[str, Any] | None = None,
) -> TournamentResult:
    names = entry_names(specs)
    levels = [parse_bot_spec(spec)[0] for spec in specs]
    entries = [EntryStats(name=n, level=lv) for n, lv in zip(names, levels, strict=True)]
    mus, sigmas = _ratings(names, results, seed)
    for result in results:
        for e in range(len(specs)):
            stats = entries[e]
            stats.games += 1
            stats.wins += result.winner == e
            stats.decisions += result.decisions[e]
            stats.think_seconds += result.think[e]
    for e, stats in enumerate(entries):
        spent = sorted(t for r in results if r.times for t in r.times[e])
        if spent:
            stats.median_think_ms = 1000.0 * statistics.median(spent)
            stats.max_think_ms = 1000.0 * spent[-1]
        stats.win_rate = stats.wins / stats.games if stats.games else 0.0
        stats.ci_low, stats.ci_high = wilson(stats.wins, stats.games)
        stats.rating_mu = mus[e]
        stats.rating_sigma = sigmas[e]
        stats.rating_ordinal = mus[e] - 3.0 * sigmas[e]  # openskill's ordinal()
        stats.mean_think_ms = (
            1000.0 * stats.think_seconds / stats.decisions if stats.decisions else 0.0
        )
    count = len(results)
    return TournamentResult(
        entries=entries,
        players=len(specs),
        games=count,
        no_winner=sum(r.winner is None for r in results),
        stalemates=sum(r.ending == "stalemate" for r in results),
        at_turn_limit=sum(r.ending == "turn-limit" for r in results),
        mean_turns=sum(r.turns for r in results) / count if count else 0.0,
        mean_actions=sum(r.actions for r in results) / count if count else 0.0,
        seconds=seconds,
        workers=workers,
        seed=seed,
        turn_limit=turn_limit,
        options=rule_options(options),
        results=list(results),
    )


def _ratings(
    names: Sequence[str], results: Sequence[GameResult], seed: int
) -> tuple[list[float], list[float]]:
    """Each entry's openskill mu and sigma, averaged over :data:`RATING_PASSES` passes."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    mus = [0.0] * len(names)
    sigmas = [0.0] * len(names)
    for rating_pass in range(RATING_PASSES):
        order = sorted(results, key=lambda r: r.index)
        random.Random(f"{seed}:{rating_pass}").shuffle(order)
        ratings = [model.rating(name=n) for n in names]
        for result in order:
            seats = list(result.seats)
            teams = [[ratings[e]] for e in seats]
            if result.winner is None:
                ranks = [1.0] * len(seats)
            else:
                ranks = [1.0 if e == result.winner else 2.0 for e in seats]
            for e, team in zip(seats, model.rate(teams, ranks=ranks), strict=True):
                ratings[e] = team[0]
        for e, rating in enumerate(ratings):
            mus[e] += rating.mu / RATING_PASSES
            sigmas[e] += rating.sigma / RATING_PASSES
    return mus, sigmas
