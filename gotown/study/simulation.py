"""Simulations: many observed games per configuration, as data frames (polars).

A *configuration* is a line-up of bots (one spec per seat) and R23 options. Its games are
dealt and seated as in a tournament (:mod:`gotown.tournament.tournament`): the seats rotate
over the line-up in blocks, so every bot starts equally often, and seat 0 always starts. Every
configuration uses the same seed, so two configurations with the same number of players play the
same deals (common random numbers: the difference an option makes is not drowned in the luck of
the deal).

Game ``i`` depends only on the configuration, the seed, ``i`` and the turn limit, so the
results are the same on 1 worker, 16 or a Ray cluster. With an output folder the games are
kept in parts of :data:`PART_GAMES` (``parts/<configuration key>/``, written when a part is
complete): the same call again plays only the parts missing, and refuses parts played by
other code (:func:`fingerprint`) or another seed or turn limit.

>>> games = simulate(players=2, bots=["random", "medium"], games=100, seed=1)  # doctest: +SKIP
>>> games["winner"].value_counts()  # doctest: +SKIP
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gotown.bots import LEVELS, canonical_spec, parse_bot_spec
from gotown.engine import OPTION_CHOICES, Options
from gotown.tournament import results, tournament
from gotown.tournament.runner import run_tasks
from gotown.tournament.tournament import (
    DEFAULT_TURN_LIMIT,
    format_options,
    rule_options,
    seatings,
)

from . import decks
from .games import GameTask, ObservedGame, observe_game

if TYPE_CHECKING:
    import polars as pl

#: Games per stored part: what an interrupted run can lose, at most.
PART_GAMES = 250
#: The tables of a simulation, one row per game, turn, special card held, special card played.
TABLES = ("games", "turns", "holdings", "plays")


@dataclass(frozen=True)
class Configuration:
    """A line-up (one bot spec per seat; the seats rotate over it), R23 options, and a deck
    change (:mod:`.decks`): ``swap`` a card for a plain floor card in one starting hand, or
    leave cards out (``without``). ``baseline`` names the configuration it is compared with,
    game by game; by default the first one with the same bots that differs only by this one's
    options or deck change (:func:`baseline_of`)."""

    bots: tuple[str, ...]
    options: Mapping[str, Any] = field(default_factory=dict)
    games: int = 1000
    name: str = ""
    #: Which question it answers (``seat``, ``skill``, ``option``, ``card``; ``""`` for one of
    #: the user's). Only ``seat`` and ``""`` line-ups have headlines of their own.
    study: str = ""
    swap: str = ""
    without: tuple[str, ...] = ()
    baseline: str = ""

    def __post_init__(self) -> None:
        if not 2 <= len(self.bots) <= 4:
            raise ValueError(f"{len(self.bots)} bots: a game of GoTown has 2 to 4 players (R1)")
        if self.games < 1:
            raise ValueError(f"games {self.games}: a configuration plays at least one game")
        object.__setattr__(self, "bots", tuple(canonical_spec(b) for b in self.bots))
        object.__setattr__(self, "options", rule_options(self.options))
        object.__setattr__(self, "without", tuple(dict.fromkeys(self.without)))
        decks.check_cards([self.swap] if self.swap else [], "swap")
        decks.check_cards(self.without, "without")
        if self.swap and self.without:
            raise ValueError("a configuration swaps a card or leaves cards out, not both")
        if not self.name:
            object.__setattr__(self, "name", self.label())

    @property
    def players(self) -> int:
        return len(self.bots)

    @property
    def changes_deck(self) -> bool:
        return bool(self.swap or self.without)

    def label(self) -> str:
        """``2 players: random, medium (win_floors=4)``, ``... (without dog)``,
        ``... (a dealt dog swapped for a floor card)``."""
        notes = [format_options(self.options)] if self.options else []
        if self.without:
            notes.append(f"without {', '.join(self.without)}")
        if self.swap:
            notes.append(f"a dealt {self.swap} swapped for a floor card")
        extra = f" ({'; '.join(notes)})" if notes else ""
        return f"{self.players} players: {', '.join(self.bots)}{extra}"

    @property
    def key(self) -> str:
        """A file name for its games, from what decides them (not the name)."""
        decided: list[Any] = [self.bots, self.options]
        if self.changes_deck:
            decided.append({"swap": self.swap, "without": list(self.without)})
        text = json.dumps(decided, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:12]


def baseline_of(
    configuration: Configuration, configurations: Sequence[Configuration]
) -> Configuration | None:
    """The configuration that ``configuration`` is compared with, game by game: the one its
    ``baseline`` names, else the first with the same bots that differs only by its options
    (same deck) or only by its deck change (same options); None when it changes nothing."""
    if configuration.baseline:
        return next(c for c in configurations if c.name == configuration.baseline)
    if configuration.changes_deck:
        same_options = dict(configuration.options)
        wanted = lambda c: not c.changes_deck and dict(c.options) == same_options  # noqa: E731
    elif configuration.options:
        wanted = lambda c: not c.changes_deck and not c.options  # noqa: E731
    else:
        return None
    return next(
        (c for c in configurations
         if c is not configuration and c.bots == configuration.bots and wanted(c)),
        None,
    )  # fmt: skip


@functools.cache
def fingerprint() -> str:
    """The tournament's code fingerprint (rules, bots, seats and seeds) and the observer's."""
    digest = hashlib.sha256(results.code_fingerprint().encode())
    for module in ("games.py", "decks.py"):
        digest.update(results.code_digest(Path(__file__).with_name(module).read_bytes()))
    return digest.hexdigest()[:16]


@dataclass
class Tables:
    """The four tables of a simulation (:data:`TABLES`), each with a ``configuration`` column."""

    games: pl.DataFrame
    turns: pl.DataFrame
    holdings: pl.DataFrame
    plays: pl.DataFrame

    def write_parquet(self, folder: Path) -> list[Path]:
        paths = []
        for name in TABLES:
            path = folder / f"{name}.parquet"
            getattr(self, name).write_parquet(path)
            paths.append(path)
        return paths


def _schemas() -> dict[str, dict[str, Any]]:
    import polars as pl

    base = {"configuration": pl.String, "game": pl.Int64}
    return {
        "games": {**base, "players": pl.Int64, "lineup": pl.String, "levels": pl.String,
                  "winner": pl.Int64, "winner_entry": pl.Int64, "focus": pl.Int64,
                  "ending": pl.String,
                  "turns": pl.Int64, "actions": pl.Int64, "card_actions": pl.Int64,
                  "milkshake_turns": pl.Int64, "only_end_turns": pl.Int64,
                  "minutes": pl.Float64, "floors": pl.List(pl.Int64)},
        "turns": {**base, "turn": pl.Int64, "seat": pl.Int64, "milkshake": pl.Boolean,
                  "only_end": pl.Boolean, "actions": pl.Int64, "hand": pl.Int64,
                  "extra": pl.Boolean, "entry": pl.Int64},
        "holdings": {**base, "seat": pl.Int64, "card": pl.String, "plays": pl.Int64,
                     "won": pl.Boolean},
        "plays": {**base, "seat": pl.Int64, "card": pl.String, "turn": pl.Int64,
                  "value": pl.Float64},
    }  # fmt: skip


def frames(observed: Sequence[ObservedGame]) -> Tables:
    """The tables of these games, in game order."""
    import polars as pl

    schemas = _schemas()
    ordered = sorted(observed, key=lambda o: o.game["game"])
    rows: dict[str, list[dict[str, Any]]] = {name: [] for name in TABLES}
    for o in ordered:
        rows["games"].append(o.game)
        rows["turns"].extend(o.turns)
        rows["holdings"].extend(o.holdings)
        rows["plays"].extend(o.plays)
    built = {
        name: pl.DataFrame(rows[name], schema=schemas[name], orient="row")
        if rows[name]
        else pl.DataFrame(schema=schemas[name])
        for name in TABLES
    }
    return Tables(**built)


def concat(parts: Iterable[Tables]) -> Tables:
    import polars as pl

    parts = list(parts)
    schemas = _schemas()
    return Tables(
        **{
            name: pl.concat([getattr(p, name) for p in parts])
            if parts
            else pl.DataFrame(schema=schemas[name])
            for name in TABLES
        }
    )


class PartStore:
    """The stored parts of one configuration's games (``folder/parts/<key>/``).

    ``meta.json`` says what decided them; a part ``NNNNNN.<table>.parquet`` holds the games
    ``NNNNNN * PART_GAMES`` onwards, written table by table and then named by a rename, so a
    part is either whole or absent.
    """

    def __init__(self, folder: Path, configuration: Configuration, seed: int, turn_limit: int):
        self.folder = folder / "parts" / configuration.key
        self.meta = {
            "bots": list(configuration.bots),
            "options": dict(configuration.options),
            "seed": seed,
            "turn_limit": turn_limit,
            "fingerprint": fingerprint(),
        }

    def open(self) -> None:
        """Make the folder, or check that the parts in it belong to this run."""
        path = self.folder / "meta.json"
        if path.exists():
            saved = json.loads(path.read_text(encoding="utf-8"))
            for key, value in self.meta.items():
                if saved.get(key) != value:
                    why = (
                        "they were played by other code (the rules, the bots or the "
                        "simulation changed)"
                        if key == "fingerprint"
                        else f"they were played with {key} {saved.get(key)!r}, not {value!r}"
                    )
                    raise ValueError(
                        f"{self.folder}: cannot go on with the games stored there: {why}; "
                        "choose another output folder or delete it"
                    )
        else:
            self.folder.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(self.meta, indent=1), encoding="utf-8")

    def done(self, sizes: Mapping[int, int]) -> dict[int, Tables]:
        """The complete parts stored, by part number, of those whose sizes (games) are given."""
        import polars as pl

        out = {}
        for number, size in sizes.items():
            paths = [self.folder / f"{number:06d}.{name}.parquet" for name in TABLES]
            if all(p.exists() for p in paths):
                tables = Tables(*(pl.read_parquet(p) for p in paths))
                if tables.games.height == size:
                    out[number] = tables
        return out

    def save(self, number: int, tables: Tables) -> None:
        for name in TABLES:
            final = self.folder / f"{number:06d}.{name}.parquet"
            partial = final.with_suffix(".partial")
            getattr(tables, name).write_parquet(partial)
            os.replace(partial, final)


def part_sizes(tasks: Sequence[GameTask]) -> dict[int, int]:
    """How many of these games each part holds, by part number."""
    sizes: dict[int, int] = {}
    for task in tasks:
        sizes[task.index // PART_GAMES] = sizes.get(task.index // PART_GAMES, 0) + 1
    return sizes


def tasks_of(configuration: Configuration, seed: int, turn_limit: int) -> list[GameTask]:
    """The games of a configuration, in order: its first ``games`` deals, less those in which
    no seat starts with the card it swaps (:func:`.decks.swap_focus`: the swap would change
    nothing)."""
    orders = seatings(configuration.players)
    out = []
    for i in range(configuration.games):
        if configuration.swap:
            dealt = tournament.deal(
                configuration.players, seed, i, turn_limit, configuration.options
            )
            if decks.swap_focus(dealt, configuration.swap, seed, i) is None:
                continue
        out.append(
            GameTask(
                configuration.name,
                configuration.bots,
                orders[i % len(orders)],
                i,
                seed,
                turn_limit,
                dict(configuration.options),
                configuration.swap,
                configuration.without,
            )
        )
    return out


def run(
    configurations: Sequence[Configuration],
    seed: int = 0,
    workers: int | None = None,
    turn_limit: int = DEFAULT_TURN_LIMIT,
    out: Path | None = None,
    ray_address: str | None = None,
    progress: Callable[[Configuration, int], None] | None = None,
) -> Tables:
    """Play every configuration's games (:func:`tasks_of`; only the parts not stored in ``out``
    yet) and return their tables. ``progress(configuration, games)`` is told of every game
    played or loaded."""
    names = [c.name for c in configurations]
    if len(set(names)) != len(names):
        twice = sorted(n for n in names if names.count(n) > 1)[0]
        raise ValueError(f"two configurations are named {twice!r}")
    check_baselines(configurations)
    results: list[Tables] = []
    pending: list[GameTask] = []
    stores: dict[str, PartStore] = {}
    sizes: dict[str, dict[int, int]] = {}
    for configuration in configurations:
        tasks = tasks_of(configuration, seed, turn_limit)
        sizes[configuration.name] = part_sizes(tasks)
        stored: dict[int, Tables] = {}
        if out is not None:
            store = stores[configuration.name] = PartStore(out, configuration, seed, turn_limit)
            store.open()
            stored = store.done(sizes[configuration.name])
        for tables in stored.values():
            results.append(_renamed(tables, configuration.name))
            if progress:
                progress(configuration, tables.games.height)
        pending.extend(t for t in tasks if t.index // PART_GAMES not in stored)
    by_name = {c.name: c for c in configurations}
    buffers: dict[tuple[str, int], list[ObservedGame]] = {}
    for observed in run_tasks(observe_game, pending, workers, ray_address=ray_address):
        name = observed.game["configuration"]
        configuration = by_name[name]
        number = observed.game["game"] // PART_GAMES
        buffer = buffers.setdefault((name, number), [])
        buffer.append(observed)
        if progress:
            progress(configuration, 1)
        if len(buffer) == sizes[name][number]:
            tables = frames(buffer)
            del buffers[(name, number)]
            if name in stores:
                stores[name].save(number, tables)
            results.append(tables)
    return _sorted(concat(results), names)


def baseline_problem(configuration: Configuration, configurations: Sequence[Configuration]) -> str:
    """What is wrong with ``configuration``'s ``baseline`` (``""`` when nothing): it must name
    another configuration with as many players (game ``i`` of both is dealt alike)."""
    if not configuration.baseline:
        return ""
    base = next((c for c in configurations if c.name == configuration.baseline), None)
    if base is None or base is configuration:
        return f"baseline {configuration.baseline!r} names no other configuration"
    if base.players != configuration.players:
        return (
            f"baseline {configuration.baseline!r} has {base.players} players, not "
            f"{configuration.players}: only games of as many players are dealt alike"
        )
    return ""


def check_baselines(configurations: Sequence[Configuration]) -> None:
    """ValueError naming the first configuration whose baseline is wrong."""
    for c in configurations:
        problem = baseline_problem(c, configurations)
        if problem:
            raise ValueError(f"{c.name}: {problem}")


def planned_games(
    configurations: Sequence[Configuration], seed: int, turn_limit: int = DEFAULT_TURN_LIMIT
) -> int:
    """How many games :func:`run` plays (or loads) for these configurations."""
    return sum(len(tasks_of(c, seed, turn_limit)) for c in configurations)


def _renamed(tables: Tables, name: str) -> Tables:
    """Stored parts carry the name the configuration had then: give them today's."""
    import polars as pl

    return Tables(*(getattr(tables, t).with_columns(configuration=pl.lit(name)) for t in TABLES))


def _sorted(tables: Tables, names: Sequence[str]) -> Tables:
    """Configurations in the order given, games in order."""
    import polars as pl

    order = pl.DataFrame({"configuration": list(names), "_order": list(range(len(names)))})
    keys = {"games": ["game"], "turns": ["game", "turn"], "holdings": ["game", "seat", "card"],
            "plays": ["game", "turn"]}  # fmt: skip
    out = []
    for name in TABLES:
        frame = getattr(tables, name).join(order, on="configuration", how="left")
        out.append(frame.sort(["_order", *keys[name]], maintain_order=True).drop("_order"))
    return Tables(*out)


def simulate(
    players: int | None = None,
    bots: Sequence[str] = ("random",),
    games: int = 1000,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    workers: int | None = None,
    turn_limit: int = DEFAULT_TURN_LIMIT,
    ray_address: str | None = None,
    progress: bool = False,
) -> pl.DataFrame:
    """One configuration's games as a data frame, one row per game (notebook-friendly).

    ``bots`` are specs (``random``, ``medium``, ``hard:iterations=200``); with ``players``
    beyond their number the last one fills the other seats. ``winner`` is the winning seat,
    which is also its position in the turn order (seat 0 starts); ``None`` when nobody won.
    ``progress`` shows a progress bar. :func:`run` gives all four tables.
    """
    configuration = lineup_configuration(players, bots, games, options)
    if not progress:
        return run([configuration], seed, workers, turn_limit, ray_address=ray_address).games
    from rich.progress import Progress

    with Progress() as bar:
        task = bar.add_task(configuration.name, total=games)
        return run([configuration], seed, workers, turn_limit, ray_address=ray_address,
                   progress=lambda _, n: bar.advance(task, n)).games  # fmt: skip


def lineup_configuration(
    players: int | None, bots: Sequence[str], games: int, options: Mapping[str, Any] | None
) -> Configuration:
    """The configuration of ``bots`` filling ``players`` seats (the last one repeated; by
    default one seat per bot, and at least two)."""
    bots = list(bots)
    if not bots:
        raise ValueError("no bots: name one per seat")
    count = players or max(2, len(bots))
    if len(bots) > count:
        raise ValueError(f"{len(bots)} bots for {count} seats")
    return Configuration(tuple(bots + [bots[-1]] * (count - len(bots))), options or {}, games)


#: The R23 options a study varies (``first_player`` and ``turn_limit`` are the simulation's).
STUDY_OPTIONS = tuple(n for n in OPTION_CHOICES if n not in tournament.TOURNAMENT_OPTIONS)


def standard_study(
    games: int, levels: Sequence[str] = ("random", "easy", "medium")
) -> list[Configuration]:
    """The configurations that answer the usual questions, ``games`` games each:

    - ``seat``: 2, 3 and 4 players of ``random`` and of ``medium`` (the first player's
      advantage, game length, idle turns, stalemates);
    - ``skill``: two players, every pair of different ``levels``;
    - ``option``: two ``random`` players, and two ``medium``, with each R23 option at each
      value but its default (``win_floors=4`` is the short game), beside the same line-up with
      the defaults. ``random`` plays every legal action, so it shows what an option allows;
      ``medium`` what a sensible player does with it (an option it never uses changes nothing:
      with the same deals, the same games);
    - ``card``: 2, 3 and 4 ``medium`` players, each special card swapped for a plain floor card
      in one starting hand (:mod:`.decks`), beside the same deals unchanged: what starting
      with the card is worth. Only the deals in which a seat starts with it are played.
    """
    out = [
        Configuration((level,) * players, games=games, study="seat")
        for level in ("random", "medium")
        for players in (2, 3, 4)
    ]
    ordered = sorted(dict.fromkeys(levels), key=lambda spec: LEVELS.index(parse_bot_spec(spec)[0]))
    out += [
        Configuration((weaker, stronger), games=games, study="skill")
        for i, weaker in enumerate(ordered)
        for stronger in ordered[i + 1 :]
    ]
    default = Options().to_json()
    out += [
        Configuration((level, level), {name: value}, games=games, study="option")
        for level in ("random", "medium")
        for name in STUDY_OPTIONS
        for value in OPTION_CHOICES[name]
        if value != default[name]
    ]
    out += [
        Configuration(("medium",) * players, games=games, study="card", swap=card)
        for players in (2, 3, 4)
        for card in decks.SPECIAL
    ]
    return out


#: The keys of a plan's ``[[configuration]]`` table.
PLAN_KEYS = ("bots", "options", "games", "name", "study", "swap", "without", "baseline")


def load_plan(text: str, games: int) -> list[Configuration]:
    """Configurations from TOML: ``[[configuration]]`` tables, each with ``bots`` (one spec
    per seat) and optionally ``options`` (R23), ``games``, ``name``, ``study``, a deck change
    (``swap`` a card, or ``without`` a list of cards) and ``baseline`` (the name of the
    configuration to compare it with); a top-level ``games`` is the default (else ``games``).
    ``ValueError`` names the table and the key."""
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"not TOML: {error}") from None
    default = data.get("games", games)
    tables = data.get("configuration")
    if not isinstance(tables, list) or not tables:
        raise ValueError("no [[configuration]] table: each lists its bots (and options)")
    out = []
    for number, table in enumerate(tables, 1):
        where = f"configuration {number}"
        unknown = sorted(set(table) - set(PLAN_KEYS))
        if unknown:
            keys = ", ".join(sorted(PLAN_KEYS))
            raise ValueError(f"{where}: unknown key {unknown[0]!r} (keys: {keys})")
        bots = table.get("bots")
        if not isinstance(bots, list) or not all(isinstance(b, str) for b in bots):
            raise ValueError(f"{where}: bots must be a list of bot specs, one per seat")
        count = table.get("games", default)
        if not isinstance(count, int) or isinstance(count, bool):
            raise ValueError(f"{where}: games must be a whole number, not {count!r}")
        options = table.get("options", {})
        if not isinstance(options, dict):
            raise ValueError(f"{where}: options must be a table of R23 options")
        left_out = table.get("without", [])
        if isinstance(left_out, str):
            left_out = [left_out]
        if not isinstance(left_out, list) or not all(isinstance(c, str) for c in left_out):
            raise ValueError(f"{where}: without must be a list of special cards")
        texts = {key: table.get(key, "") for key in ("name", "study", "swap", "baseline")}
        for key, value in texts.items():
            if not isinstance(value, str):
                raise ValueError(f"{where}: {key} must be a string, not {value!r}")
        try:
            out.append(Configuration(tuple(bots), options, count, texts["name"], texts["study"],
                                     texts["swap"], tuple(left_out),
                                     texts["baseline"]))  # fmt: skip
        except ValueError as error:
            raise ValueError(f"{where}: {error}") from None
        if any(c.name == out[-1].name for c in out[:-1]):
            raise ValueError(f"{where}: another configuration is named {out[-1].name!r}")
    for number, configuration in enumerate(out, 1):
        problem = baseline_problem(configuration, out)
        if problem:
            raise ValueError(f"configuration {number}: {problem}")
    return out
