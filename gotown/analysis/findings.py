"""What the simulated games say: each figure with its 95% interval and the games behind it.

Intervals: a proportion of games (a win rate, the share without a winner) has the Wilson
interval; a mean over games the normal one (1.96 standard errors); a share of turns is a
ratio of two sums over games, whose turns are not independent of each other, so its standard
error is computed over games (the ratio estimator's linearisation, as for a cluster sample).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from gotown.bots import LEVELS, parse_bot_spec

from .games import SPECIAL_CARDS
from .tournament import wilson

if TYPE_CHECKING:
    import polars as pl

    from .simulation import Configuration, Tables

Z95 = 1.96


def proportion(successes: int, n: int) -> dict[str, Any]:
    low, high = wilson(successes, n)
    return {"rate": successes / n if n else None, "ci95": [low, high], "n": n}


def mean(values: Sequence[float]) -> dict[str, Any]:
    n = len(values)
    if n == 0:
        return {"mean": None, "ci95": [None, None], "n": 0}
    centre = sum(values) / n
    spread = math.sqrt(sum((v - centre) ** 2 for v in values) / (n - 1) / n) if n > 1 else math.inf
    half = Z95 * spread
    return {"mean": centre, "ci95": [centre - half, centre + half], "n": n}


def ratio(numerators: Sequence[float], denominators: Sequence[float]) -> dict[str, Any]:
    """Σ numerators / Σ denominators, one pair per game, with the interval computed over games."""
    n = len(numerators)
    total = sum(denominators)
    if n == 0 or total == 0:
        return {"rate": None, "ci95": [None, None], "n": n}
    r = sum(numerators) / total
    if n > 1:
        residual = sum((a - r * b) ** 2 for a, b in zip(numerators, denominators, strict=True))
        half = Z95 * math.sqrt(n / (n - 1) * residual) / total
    else:
        half = math.inf
    return {"rate": r, "ci95": [max(0.0, r - half), min(1.0, r + half)], "n": n}


def quantiles(values: Sequence[float]) -> dict[str, float | None]:
    ordered = sorted(values)
    if not ordered:
        return {"p10": None, "median": None, "p90": None}

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return {"p10": at(0.1), "median": at(0.5), "p90": at(0.9)}


def configuration_findings(
    configuration: Configuration, games: pl.DataFrame, turns: pl.DataFrame
) -> dict[str, Any]:
    """Seat win rates, endings, length and idle turns of one configuration's games."""
    n = games.height
    players = configuration.players
    winners = games["winner"].to_list()
    seat_wins = [sum(w == s for w in winners) for s in range(players)]
    seats = [proportion(k, n) for k in seat_wins]
    no_winner = sum(w is None for w in winners)
    endings = games["ending"].to_list()
    play_turns = turns.filter(~turns["milkshake"])
    per_game_turns = games["turns"].to_list()
    only_end = games["only_end_turns"].to_list()
    milkshakes = games["milkshake_turns"].to_list()
    played = [t - m for t, m in zip(per_game_turns, milkshakes, strict=True)]
    return {
        "name": configuration.name,
        "study": configuration.study,
        "players": players,
        "bots": list(configuration.bots),
        "options": dict(configuration.options),
        "games": n,
        "seat_wins": seat_wins,
        "seat_win_rates": [s["rate"] for s in seats],
        "seat_win_ci95": [s["ci95"] for s in seats],
        "no_winner": no_winner / n if n else None,
        "no_winner_ci95": list(wilson(no_winner, n)),
        "stalemates": proportion(endings.count("stalemate"), n),
        "at_turn_limit": proportion(endings.count("turn-limit"), n),
        "turns": {**mean(per_game_turns), **quantiles(per_game_turns)},
        "actions": {**mean(games["actions"].to_list()), **quantiles(games["actions"].to_list())},
        "minutes": {**mean(games["minutes"].to_list()), **quantiles(games["minutes"].to_list())},
        # of the turns with an action phase: those whose only legal action was to end it
        "only_end_share": ratio(only_end, played),
        # of all turns: milkshake turns (R7a), in which nothing at all can be done
        "milkshake_share": ratio(milkshakes, per_game_turns),
        "turn_rows": play_turns.height,
    }


def skill_findings(configuration: Configuration, games: pl.DataFrame) -> dict[str, Any] | None:
    """How often the stronger of two bots (the later in :data:`LEVELS`) wins, of the games
    someone won; None for a line-up that is not two bots of different levels."""
    if configuration.players != 2:
        return None
    levels = [parse_bot_spec(b)[0] for b in configuration.bots]
    if levels[0] == levels[1]:
        return None
    stronger = max(range(2), key=lambda e: LEVELS.index(levels[e]))
    entries = [e for e in games["winner_entry"].to_list() if e is not None]
    found = proportion(sum(e == stronger for e in entries), len(entries))
    return {
        "name": configuration.name,
        "stronger": configuration.bots[stronger],
        "weaker": configuration.bots[1 - stronger],
        "gap": abs(LEVELS.index(levels[0]) - LEVELS.index(levels[1])),
        "stronger_wins": found,
        "games": games.height,
    }


def luck_share(pairs: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The summary of skill against luck: in the pair of levels furthest apart, the share of
    decided games that the weaker bot still wins (0: skill decides everything; 0.5: luck)."""
    if not pairs:
        return None
    widest = max(pairs, key=lambda p: (p["gap"], p["stronger_wins"]["n"]))
    won = widest["stronger_wins"]
    n = won["n"]
    upsets = n - round(won["rate"] * n) if n else 0
    return {"pair": widest["name"], "weaker": widest["weaker"], "stronger": widest["stronger"],
            **proportion(upsets, n)}  # fmt: skip


def card_findings(tables: Tables, name: str, players: int) -> list[dict[str, Any]]:
    """Each special card in one configuration: plays per game, the share of holders who
    played it, the win rate of those who played it and of those who held it and did not (a
    seat's chance is 1/players), and its value (:func:`.games.observe_game`) in floors."""
    import polars as pl

    games = tables.games.filter(pl.col("configuration") == name).height
    holdings = tables.holdings.filter(pl.col("configuration") == name)
    plays = tables.plays.filter(pl.col("configuration") == name)
    rows = []
    for card in SPECIAL_CARDS:
        held = holdings.filter(pl.col("card") == card)
        played = held.filter(pl.col("plays") > 0)
        kept = held.filter(pl.col("plays") == 0)
        values = plays.filter(pl.col("card") == card)["value"].to_list()
        per_game = plays.filter(pl.col("card") == card).group_by("game").len()["len"].to_list()
        per_game += [0] * (games - len(per_game))
        rows.append({
            "card": card,
            "plays_per_game": mean(per_game),
            "played_when_held": proportion(played.height, held.height),
            "win_played": proportion(int(played["won"].sum()), played.height),
            "win_held_not_played": proportion(int(kept["won"].sum()), kept.height),
            "chance": 1 / players,
            "value": mean(values),
        })  # fmt: skip
    return rows


def paired(games: pl.DataFrame, base: str, other: str) -> dict[str, Any]:
    """The mean change, game by game, from configuration ``base`` to ``other`` (the same deals:
    game ``i`` of both is dealt alike), in turns and in the first player's wins, with 95%
    intervals: a paired comparison, narrower than two separate intervals. ``base`` holds the
    baseline's own means over those same games (its other games would mix in other deals)."""
    import polars as pl

    def of(name: str) -> pl.DataFrame:
        return games.filter(pl.col("configuration") == name).select(
            "game", "turns", first=(pl.col("winner") == 0).fill_null(False).cast(pl.Int64)
        )

    joined = of(base).join(of(other), on="game", suffix="_other")
    turns = (joined["turns_other"] - joined["turns"]).to_list()
    first = (joined["first_other"] - joined["first"]).to_list()
    base_means = {
        "turns": mean(joined["turns"].cast(pl.Float64).to_list())["mean"],
        "first_player": mean(joined["first"].cast(pl.Float64).to_list())["mean"],
    }
    return {"turns": mean(turns), "first_player": mean(first), "base": base_means}


def option_findings(
    baseline: dict[str, Any],
    others: Sequence[dict[str, Any]],
    games: pl.DataFrame | None = None,
) -> list[dict[str, Any]]:
    """Each option's configuration beside its baseline (same bots, default options): the
    first player's win rate, length, idle turns and endings; with the ``games`` table, the
    paired change from the baseline (:func:`paired`)."""
    rows = []
    for found in [baseline, *others]:
        change = None
        if games is not None and found is not baseline:
            change = paired(games, baseline["name"], found["name"])
        rows.append({
            "change": change,
            "name": found["name"],
            "options": found["options"],
            "games": found["games"],
            "first_player": {"rate": found["seat_win_rates"][0],
                             "ci95": found["seat_win_ci95"][0]},
            "turns": found["turns"],
            "minutes": found["minutes"],
            "no_winner": {"rate": found["no_winner"], "ci95": found["no_winner_ci95"]},
            "stalemates": found["stalemates"],
            "only_end_share": found["only_end_share"],
        })  # fmt: skip
    return rows


def findings(configurations: Sequence[Configuration], tables: Tables) -> dict[str, Any]:
    """Everything the report shows, as JSON-ready data."""
    import polars as pl

    found = []
    for configuration in configurations:
        games = tables.games.filter(pl.col("configuration") == configuration.name)
        turns = tables.turns.filter(pl.col("configuration") == configuration.name)
        found.append(configuration_findings(configuration, games, turns))
    pairs = []
    for configuration in configurations:
        games = tables.games.filter(pl.col("configuration") == configuration.name)
        pair = skill_findings(configuration, games)
        if pair is not None:
            pairs.append(pair)
    cards = {
        c.name: card_findings(tables, c.name, c.players)
        for c in configurations
        if len({parse_bot_spec(b)[0] for b in c.bots}) == 1 and not c.options
    }
    options = []
    by_name = {f["name"]: f for f in found}
    for configuration in configurations:
        if configuration.study != "option":
            continue
        base = next(
            (c for c in configurations
             if c.bots == configuration.bots and not c.options and c.study == "seat"),
            None,
        )  # fmt: skip
        if base is not None and configuration.options:
            options.append((base.name, configuration.name))
    option_rows = []
    for base_name in dict.fromkeys(b for b, _ in options):
        others = [by_name[o] for b, o in options if b == base_name]
        option_rows.append(
            {
                "baseline": base_name,
                "rows": option_findings(by_name[base_name], others, tables.games),
            }
        )
    return {
        "configurations": found,
        "skill": {"pairs": pairs, "luck_share": luck_share(pairs)},
        "cards": cards,
        "options": option_rows,
    }
