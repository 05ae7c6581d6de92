"""The analysis report's plots (matplotlib, PNG): the first player's advantage, game length,
skill against luck, the special cards and the options (:mod:`.reporting` lays them out)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from .simulation import Tables

#: Positions in the turn order, as the report says them.
ORDINALS = ("1st", "2nd", "3rd", "4th")


def plots(data: dict[str, Any], tables: Tables, folder: Path) -> list[str]:
    """Write the report's PNG plots into ``folder``; the names of those written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import polars as pl

    folder.mkdir(parents=True, exist_ok=True)
    written = []

    def save(figure: Figure, name: str) -> None:
        figure.tight_layout()
        figure.savefig(folder / name, dpi=110)
        plt.close(figure)
        written.append(name)

    found = data["configurations"]
    shown = [f for f in found if f["study"] in ("seat", "")] or found
    figure, axes = plt.subplots(figsize=(8, 0.8 + 0.45 * len(shown)))
    labelled: set[int] = set()
    for row, f in enumerate(shown):
        for seat, rate in enumerate(f["seat_win_rates"]):
            if rate is None:
                continue
            low, high = f["seat_win_ci95"][seat]
            y = row + (seat - (f["players"] - 1) / 2) * 0.18
            label = f"{ORDINALS[seat]} to play" if seat not in labelled else None
            labelled.add(seat)
            axes.errorbar(
                100 * rate,
                y,
                xerr=[[100 * (rate - low)], [100 * (high - rate)]],
                fmt="o",
                color=f"C{seat}",
                label=label,
            )
        axes.plot([100 / f["players"]] * 2, [row - 0.4, row + 0.4], color="grey", lw=1)
    axes.set_yticks(range(len(shown)), [f["name"] for f in shown], fontsize=8)
    axes.set_xlabel("win rate, % (grey: chance)")
    axes.invert_yaxis()
    axes.legend(fontsize=8, loc="best")
    save(figure, "seat_win_rates.png")

    figure, axes = plt.subplots(figsize=(8, 4))
    for index, f in enumerate(shown):
        turns = tables.games.filter(pl.col("configuration") == f["name"])["turns"].to_list()
        if turns:
            axes.hist(turns, bins=40, histtype="step", color=f"C{index % 10}", label=f["name"])
    axes.set_xlabel("turns per game")
    axes.set_ylabel("games")
    axes.legend(fontsize=7)
    save(figure, "length.png")

    pairs = data["skill"]["pairs"]
    if pairs:
        figure, axes = plt.subplots(figsize=(7, 0.8 + 0.45 * len(pairs)))
        for row, p in enumerate(pairs):
            won = p["stronger_wins"]
            if won["rate"] is None:
                continue
            low, high = won["ci95"]
            axes.errorbar(
                100 * won["rate"],
                row,
                xerr=[[100 * (won["rate"] - low)], [100 * (high - won["rate"])]],
                fmt="o",
                color="C0",
            )
        axes.axvline(50, color="grey", lw=1)
        axes.set_yticks(range(len(pairs)), [f"{p['stronger']} vs {p['weaker']}" for p in pairs])
        axes.set_xlabel("the stronger bot wins, % of decided games (grey: chance)")
        axes.invert_yaxis()
        save(figure, "skill.png")

    if data["cards"]:
        groups = list(data["cards"].items())
        figure, axes = plt.subplots(figsize=(8, 4))
        width = 0.8 / len(groups)
        for index, (name, rows) in enumerate(groups):
            for position, r in enumerate(rows):
                value = r["value"]
                if value["mean"] is None or value["n"] < 2:
                    continue
                x = position + (index - (len(groups) - 1) / 2) * width
                axes.errorbar(
                    x,
                    value["mean"],
                    yerr=value["mean"] - value["ci95"][0],
                    fmt="o",
                    color=f"C{index % 10}",
                    label=name if position == 0 else None,
                )
        names = [r["card"] for r in groups[0][1]]
        axes.set_xticks(range(len(names)), names, rotation=30, fontsize=8)
        axes.axhline(0, color="grey", lw=1)
        axes.set_ylabel("value per play, floors of lead")
        axes.legend(fontsize=7)
        save(figure, "cards.png")

    if data["options"]:
        rows = [r for group in data["options"] for r in group["rows"]]
        figure, (left, right) = plt.subplots(1, 2, figsize=(10, 0.8 + 0.4 * len(rows)))
        for row, r in enumerate(rows):
            rate, (low, high) = r["first_player"]["rate"], r["first_player"]["ci95"]
            if rate is not None:
                left.errorbar(
                    100 * rate,
                    row,
                    xerr=[[100 * (rate - low)], [100 * (high - rate)]],
                    fmt="o",
                    color="C0",
                )
            turns = r["turns"]
            if turns["mean"] is not None and turns["n"] > 1:
                right.errorbar(
                    turns["mean"], row, xerr=turns["mean"] - turns["ci95"][0], fmt="o", color="C1"
                )
        left.set_yticks(range(len(rows)), [r["name"] for r in rows], fontsize=7)
        right.set_yticks(range(len(rows)), [""] * len(rows))
        left.set_xlabel("first player's win rate, %")
        right.set_xlabel("turns per game")
        left.invert_yaxis()
        right.invert_yaxis()
        save(figure, "options.png")
    return written
