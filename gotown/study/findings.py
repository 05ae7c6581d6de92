"""What the simulated games say: each figure with its 95% interval and the games behind it.

Intervals: a proportion of games (a win rate, the share without a winner) has the Wilson
interval; a mean over games the normal one (1.96 standard errors); a share of turns is a
ratio of two sums over games, whose turns are not independent of each other, so its standard
error is computed over games (the ratio estimator's linearisation, as for a cluster sample).

Tests (scipy): a position's share of the decided games against chance, the exact binomial
test; a paired change, the exact McNemar test for a yes/no measure (a binomial test of the
discordant pairs) and the one-sample t-test of the differences otherwise, with the t
interval. Every test belongs to a *family* (the positions of the headline line-ups, the
options, the cards swapped, the cards left out) whose p-values are corrected together by
Holm's step-down method: an effect is *detectable* when its corrected p is below 0.05, and
the smallest change the family could detect is given beside it (80% power, Bonferroni's
level: a slight overstatement of what Holm needs).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from gotown.bots import LEVELS, parse_bot_spec
from gotown.tournament.tournament import wilson

from .games import SPECIAL_CARDS

if TYPE_CHECKING:
    import polars as pl

    from .simulation import Configuration, Tables

Z95 = 1.96
#: The studies whose line-ups have headlines (and whose positions are one family of tests).
HEADLINED = ("seat", "")
#: The level of every test, after the correction for its family.
ALPHA = 0.05
#: The power at which the smallest detectable change is given.
POWER = 0.8
#: No share or mean is shown on fewer games, holders or pairs than this: at n = 30 a share's
#: 95% interval is still about 35 points wide.
MIN_N = 30


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


#: How a game ends: a win (R20), a stalemate (R20b: nothing can ever change), the turn limit.
ENDINGS = ("win", "stalemate", "turn-limit")


def position_test(wins: int, decided: int, players: int) -> dict[str, Any]:
    """A position's share of the decided games, its Wilson interval and the exact binomial
    test against the 1/players of pure chance (``p`` before any correction)."""
    from scipy import stats

    found = proportion(wins, decided)
    found["chance"] = 1 / players
    found["p"] = float(stats.binomtest(wins, decided, 1 / players).pvalue) if decided else 1.0
    found["sd"] = math.sqrt(found["chance"] * (1 - found["chance"]))  # of one game, under chance
    return found


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
    decided = n - no_winner
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
        "swap": configuration.swap,
        "without": list(configuration.without),
        "games": n,
        "seat_wins": seat_wins,
        "seat_win_rates": [s["rate"] for s in seats],
        "seat_win_ci95": [s["ci95"] for s in seats],
        "no_winner": no_winner / n if n else None,
        "no_winner_ci95": list(wilson(no_winner, n)),
        # of the games someone won: each position's share, tested against 1/players
        "positions": [position_test(k, decided, players) for k in seat_wins],
        "endings": {e: endings.count(e) for e in ENDINGS},
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


def card_findings(tables: Tables, name: str) -> list[dict[str, Any]]:
    """Each special card in one configuration, as played (a description, not an effect: see
    :func:`compare` for that): plays per game and the share of the seats that held the card
    (at one of their decisions) that played it."""
    import polars as pl

    games = tables.games.filter(pl.col("configuration") == name).height
    holdings = tables.holdings.filter(pl.col("configuration") == name)
    plays = tables.plays.filter(pl.col("configuration") == name)
    rows = []
    for card in SPECIAL_CARDS:
        held = holdings.filter(pl.col("card") == card)
        played = held.filter(pl.col("plays") > 0)
        per_game = plays.filter(pl.col("card") == card).group_by("game").len()["len"].to_list()
        per_game += [0] * (games - len(per_game))
        rows.append({
            "card": card,
            "plays_per_game": mean(per_game),
            "played_when_held": proportion(played.height, held.height),
        })  # fmt: skip
    return rows


#: What a comparison measures, game by game: a yes/no measure is a share, else a mean.
MEASURES = {
    "turns": False,
    "first_player": True,  # the first player won
    "no_winner": True,  # a stalemate (R20b) or the turn limit
    "holder_wins": True,  # the seat whose hand a swap changed won
    "holder_floors": False,  # that seat's floors at the end
}
#: The measures tested for each kind of comparison (each is in its kind's family).
TESTED = {
    "option": ("turns", "first_player", "no_winner"),
    "without": ("turns", "first_player", "no_winner"),
    "swap": ("holder_wins", "holder_floors", "turns"),
}


def paired_change(base: Sequence[float], other: Sequence[float], yes_no: bool) -> dict[str, Any]:
    """The mean change from ``base[i]`` to ``other[i]`` (the same deal), its 95% t interval,
    the two means, and ``p``: McNemar's exact test for a yes/no measure, the t-test else."""
    from scipy import stats

    n = len(base)
    changes = [b - a for a, b in zip(base, other, strict=True)]
    found: dict[str, Any] = {"n": n, "base": sum(base) / n if n else None,
                             "other": sum(other) / n if n else None}  # fmt: skip
    if n < 2:
        return {**found, "mean": None, "ci95": [None, None], "p": 1.0, "sd": None}
    centre = sum(changes) / n
    sd = math.sqrt(sum((c - centre) ** 2 for c in changes) / (n - 1))
    if sd == 0:
        low = high = centre
        p = 1.0 if centre == 0 else 0.0
    else:
        test = stats.ttest_1samp(changes, 0.0)
        interval = test.confidence_interval()
        low, high, p = float(interval.low), float(interval.high), float(test.pvalue)
    if yes_no:
        gained, lost = changes.count(1), changes.count(-1)
        p = float(stats.binomtest(gained, gained + lost, 0.5).pvalue) if gained + lost else 1.0
    return {**found, "mean": centre, "ci95": [low, high], "p": p, "sd": sd}


def compare(games: pl.DataFrame, base: str, other: str, measures: Sequence[str]) -> dict[str, Any]:
    """The change, game by game, from configuration ``base`` to ``other`` on the deals both
    played (game ``i`` of both is dealt alike): a paired comparison, narrower than two
    separate intervals. ``holder_*`` measures follow the seat whose hand ``other`` swapped."""
    import polars as pl

    def of(name: str) -> pl.DataFrame:
        return games.filter(pl.col("configuration") == name).select(
            "game", "turns", "winner", "ending", "floors", "focus"
        )

    rows = of(base).drop("focus").join(of(other), on="game", suffix="_other").to_dicts()

    def value(row: dict[str, Any], measure: str, suffix: str) -> float:
        winner = row[f"winner{suffix}"]
        if measure == "turns":
            return float(row[f"turns{suffix}"])
        if measure == "first_player":
            return float(winner == 0)
        if measure == "no_winner":
            return float(row[f"ending{suffix}"] != "win")
        if measure == "holder_wins":
            return float(winner == row["focus"])
        return float(row[f"floors{suffix}"][row["focus"]])  # holder_floors

    out = {}
    for measure in measures:
        usable = [r for r in rows if not measure.startswith("holder") or r["focus"] is not None]
        out[measure] = paired_change(
            [value(r, measure, "") for r in usable],
            [value(r, measure, "_other") for r in usable],
            MEASURES[measure],
        )
    return out


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (Holm 1979), in the order given: the k-th smallest p
    is multiplied by (m - k + 1), and no adjusted value is below the one before it."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def correct(tests: Sequence[dict[str, Any]], family: str) -> None:
    """Holm's correction over one family of tests (each a dict with ``p``, ``n`` and ``sd``,
    the spread of one game's measure): adds ``p_holm``, ``detectable`` and ``smallest``,
    the change the family detects with :data:`POWER` at this ``n``."""
    from scipy import stats

    tests = list(tests)
    quantile = stats.norm.ppf(1 - ALPHA / (2 * max(1, len(tests)))) + stats.norm.ppf(POWER)
    for test, adjusted in zip(tests, holm([t["p"] for t in tests]), strict=True):
        enough = test["n"] >= MIN_N
        test["family"] = {"name": family, "tests": len(tests)}
        test["p_holm"] = adjusted
        test["detectable"] = bool(enough and adjusted < ALPHA)
        sd = test.get("sd")
        test["smallest"] = float(quantile * sd / math.sqrt(test["n"])) if enough and sd else None


def is_headlined(found: dict[str, Any]) -> bool:
    """Whether a configuration's findings get a headline of their own: a line-up of the seat
    study or the user's, with games, and no swap (a swap plays only some of the deals)."""
    return found["study"] in HEADLINED and bool(found["games"]) and not found["swap"]


def kind_of(configuration: Configuration) -> str:
    """What a comparison with its baseline changes: ``swap``, ``without`` or ``option``."""
    if configuration.swap:
        return "swap"
    if configuration.without:
        return "without"
    return "option"


def worth(found: dict[str, Any]) -> dict[str, Any]:
    """A swap's change turned round: the games with the card less those with a plain floor
    card in its place (what the card is worth, rather than what losing it costs)."""
    low, high = found["ci95"]
    flipped = {**found, "base": found["other"], "other": found["base"]}
    if found["mean"] is not None:
        flipped.update(mean=-found["mean"], ci95=[-high, -low])
    return flipped


def comparisons(
    configurations: Sequence[Configuration], games: pl.DataFrame
) -> list[dict[str, Any]]:
    """Every configuration that has a baseline (:func:`.simulation.baseline_of`) compared
    with it game by game, grouped by kind and baseline (in the order of the configurations).
    A change is the configuration's games less its baseline's, except for a swap: the
    baseline's (with the card) less the swap's (:func:`worth`)."""
    from .simulation import baseline_of

    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for configuration in configurations:
        base = baseline_of(configuration, configurations)
        if base is None:
            continue
        kind = kind_of(configuration)
        group = groups.setdefault(
            (kind, base.name), {"kind": kind, "baseline": base.name, "rows": []}
        )
        changes = compare(games, base.name, configuration.name, TESTED[kind])
        if kind == "swap":
            changes = {m: worth(c) for m, c in changes.items()}
        group["rows"].append({
            "name": configuration.name,
            "options": dict(configuration.options),
            "swap": configuration.swap,
            "without": list(configuration.without),
            "pairs": max(c["n"] for c in changes.values()),
            "changes": changes,
        })  # fmt: skip
    return list(groups.values())


def findings(configurations: Sequence[Configuration], tables: Tables) -> dict[str, Any]:
    """Everything the report shows, as JSON-ready data, each test corrected in its family."""
    import polars as pl

    found = []
    for configuration in configurations:
        games = tables.games.filter(pl.col("configuration") == configuration.name)
        turns = tables.turns.filter(pl.col("configuration") == configuration.name)
        found.append(configuration_findings(configuration, games, turns))
    correct(
        [t for f in found if is_headlined(f) for t in f["positions"]],
        "positions",
    )
    pairs = []
    for configuration in configurations:
        games = tables.games.filter(pl.col("configuration") == configuration.name)
        pair = skill_findings(configuration, games)
        if pair is not None:
            pairs.append(pair)
    cards = {
        c.name: card_findings(tables, c.name)
        for c in configurations
        if len({parse_bot_spec(b)[0] for b in c.bots}) == 1 and not c.options
        and not c.changes_deck
    }  # fmt: skip
    compared = comparisons(configurations, tables.games)
    for kind in TESTED:
        correct(
            [r["changes"][m] for g in compared if g["kind"] == kind for r in g["rows"]
             for m in TESTED[kind]],
            kind,
        )  # fmt: skip
    return {
        "configurations": found,
        "skill": {"pairs": pairs, "luck_share": luck_share(pairs)},
        "cards": cards,
        "comparisons": compared,
    }
