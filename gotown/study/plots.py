"""The study report's plots (matplotlib, PNG): who wins by position, game length, how games
end, skill against luck, and the paired changes of cards and options (:mod:`.report` lays
them out). An interval is a line, a detectable effect a filled dot, one that is not an open
one; legends stay outside the data.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .findings import MEASURES, MIN_N, TESTED, is_headlined

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from .simulation import Tables

#: Positions in the turn order, as the report says them.
ORDINALS = ("1st", "2nd", "3rd", "4th")
#: What a comparison's axis says, by measure.
AXES = {
    "turns": "change in turns per game",
    "first_player": "change in the first player's win rate, pts",
    "no_winner": "change in games without a winner, pts",
    "holder_wins": "holder's win rate: with the card less with a floor card, pts",
    "holder_floors": "holder's floors at the end: with less without",
}

#: One row of a panel of changes: its label, the change (a findings test) and its measure.
Row = tuple[str, dict[str, Any], str]


def _interval(axes: Axes, y: float, found: dict[str, Any], scale: float, colour: str) -> None:
    """A dot and its 95% interval at height ``y``; open when a test found it not detectable."""
    centre = found.get("mean", found.get("rate"))
    low, high = found["ci95"]
    axes.plot([scale * low, scale * high], [y, y], color=colour, lw=1.5)
    filled = found.get("detectable", True)
    axes.plot(scale * centre, y, "o", color=colour, mfc=colour if filled else "white", ms=5)


def _changes(
    figure: Figure, panels: Sequence[tuple[str, str, Sequence[Row]]], share: bool = False
) -> None:
    """One panel per (title, measure, rows): each row's paired change with its interval,
    against the grey line of no change; ``share`` one scale for all the panels."""
    axes_list = figure.subplots(1, len(panels), sharey=True, sharex=share, squeeze=False)[0]
    for axes, (title, measure, rows) in zip(axes_list, panels, strict=True):
        scale = 100.0 if MEASURES[measure] else 1.0
        for y, (_, found, _) in enumerate(rows):
            if found["mean"] is not None and found["n"] >= MIN_N:
                _interval(axes, y, found, scale, "C0")
        axes.axvline(0, color="grey", lw=1)
        axes.set_title("\n".join(textwrap.wrap(title, 34)), fontsize=9)
        axes.set_xlabel(AXES[measure], fontsize=8)
        axes.tick_params(labelsize=8)
    first = axes_list[0]
    labels = [label for label, _, _ in panels[0][2]]
    first.set_yticks(range(len(labels)), labels)
    first.set_ylim(len(labels) - 0.5, -0.5)


def plots(data: dict[str, Any], tables: Tables, folder: Path) -> list[str]:
    """Write the report's PNG plots into ``folder``; the names of those written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import polars as pl
    from matplotlib.ticker import MaxNLocator

    folder.mkdir(parents=True, exist_ok=True)
    written = []

    def save(figure: Figure, name: str) -> None:
        figure.savefig(folder / name, dpi=110, bbox_inches="tight")
        plt.close(figure)
        written.append(name)

    found = data["configurations"]
    shown = [f for f in found if is_headlined(f)] or [f for f in found if not f["swap"]] or found

    # Who wins: each position's share of the decided games; the legend below the axes.
    figure, axes = plt.subplots(figsize=(8, 1.2 + 0.5 * len(shown)), layout="constrained")
    for row, f in enumerate(shown):
        for seat, test in enumerate(f["positions"]):
            if test["rate"] is None or test["n"] < MIN_N:
                continue
            y = row + (seat - (f["players"] - 1) / 2) * 0.2
            _interval(axes, y, test, 100.0, f"C{seat}")
        axes.plot([100 / f["players"]] * 2, [row - 0.45, row + 0.45], color="grey", lw=1)
    axes.set_yticks(range(len(shown)), [f["name"] for f in shown], fontsize=8)
    axes.set_ylim(len(shown) - 0.5, -0.5)
    axes.set_xlabel("share of the decided games won, % (grey: chance; filled: detectable)")
    handles = [
        axes.plot([], [], "o-", color=f"C{s}", label=f"{ORDINALS[s]} to play")[0]
        for s in range(max(f["players"] for f in shown))
    ]
    figure.legend(handles=handles, loc="outside lower center", ncols=len(handles), fontsize=8)
    save(figure, "seat_win_rates.png")

    # Game length: one panel per line-up, one bin per turn.
    columns = min(3, len(shown))
    rows = math.ceil(len(shown) / columns)
    figure, grid = plt.subplots(
        rows, columns, figsize=(3.3 * columns, 2.4 * rows), sharex=True, squeeze=False,
        layout="constrained",
    )  # fmt: skip
    everything = tables.games.filter(pl.col("configuration").is_in([f["name"] for f in shown]))
    top = int(everything["turns"].quantile(0.99) or 1) if everything.height else 1
    for index, axes in enumerate(grid.flat):
        if index >= len(shown):
            axes.set_visible(False)
            continue
        f = shown[index]
        turns = tables.games.filter(pl.col("configuration") == f["name"])["turns"].to_list()
        axes.hist(turns, bins=[t - 0.5 for t in range(0, top + 2)], color="C0")
        axes.yaxis.set_major_locator(MaxNLocator(integer=True))
        axes.set_title(f"{f['name']} (median {f['turns']['median']})", fontsize=8)
        axes.tick_params(labelsize=8)
    for axes in grid[-1]:
        axes.set_xlabel("turns per game (one bar a turn)", fontsize=8)
    for axes in grid[:, 0]:
        axes.set_ylabel("games", fontsize=8)
    save(figure, "length.png")

    # How games end: the share without a winner, by way of ending.
    ended = [f for f in found if not f["swap"]] or found
    figure, axes = plt.subplots(figsize=(8, 1.2 + 0.32 * len(ended)), layout="constrained")
    for row, f in enumerate(ended):
        for offset, key, colour in ((-0.15, "stalemates", "C3"), (0.15, "at_turn_limit", "C7")):
            if f[key]["n"] >= MIN_N:
                _interval(axes, row + offset, f[key], 100.0, colour)
    axes.set_yticks(range(len(ended)), [f["name"] for f in ended], fontsize=7)
    axes.set_ylim(len(ended) - 0.5, -0.5)
    axes.set_xlabel("share of the games, %")
    handles = [
        axes.plot([], [], "o-", color="C3", label="stalemate (R20b)")[0],
        axes.plot([], [], "o-", color="C7", label="turn limit")[0],
    ]
    figure.legend(handles=handles, loc="outside lower center", ncols=2, fontsize=8)
    save(figure, "endings.png")

    pairs = data["skill"]["pairs"]
    if pairs:
        figure, axes = plt.subplots(figsize=(7, 0.9 + 0.45 * len(pairs)), layout="constrained")
        for row, p in enumerate(pairs):
            if p["stronger_wins"]["rate"] is not None:
                _interval(axes, row, p["stronger_wins"], 100.0, "C0")
        axes.axvline(50, color="grey", lw=1)
        axes.set_yticks(range(len(pairs)), [f"{p['stronger']} vs {p['weaker']}" for p in pairs])
        axes.set_ylim(len(pairs) - 0.5, -0.5)
        axes.set_xlabel("the stronger bot wins, % of decided games (grey: chance)")
        save(figure, "skill.png")

    comparisons = data["comparisons"]
    swaps = [g for g in comparisons if g["kind"] == "swap"]
    if swaps:
        cards = list(dict.fromkeys(r["swap"] for g in swaps for r in g["rows"]))
        panels = []
        for g in swaps:
            by_card = {r["swap"]: r["changes"]["holder_wins"] for r in g["rows"]}
            empty = {"mean": None, "n": 0}
            rows_of = [(card, by_card.get(card, empty), "holder_wins") for card in cards]
            panels.append((g["baseline"], "holder_wins", rows_of))
        figure = plt.figure(figsize=(3.4 * len(panels) + 1, 0.9 + 0.35 * len(cards)),
                            layout="constrained")  # fmt: skip
        _changes(figure, panels, share=True)
        save(figure, "cards.png")

    for kind, name in (("without", "without.png"), ("option", "options.png")):
        groups = [g for g in comparisons if g["kind"] == kind]
        if not groups:
            continue
        labelled = [(r["name"], r["changes"]) for g in groups for r in g["rows"]]
        panels = [
            (AXES[m].split(",")[0].removeprefix("change in ").capitalize(), m,
             [(label, changes[m], m) for label, changes in labelled])
            for m in TESTED[kind]
        ]  # fmt: skip
        figure = plt.figure(figsize=(13, 1.0 + 0.32 * len(labelled)), layout="constrained")
        _changes(figure, panels)
        save(figure, name)
    return written
