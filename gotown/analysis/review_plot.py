"""The review's win-probability graph (:mod:`gotown.bots.review` computes it)."""

from __future__ import annotations

from pathlib import Path

from gotown.bots.review import Review
from gotown.engine import format_action


def plot_review(found: Review, path: Path) -> None:
    """Each seat's chance to win before the first action and after every action, with the
    turning points marked and labelled with their action; the file's extension names its
    format (``png``, ``svg``, ``pdf``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    chances = found.chances()
    figure, axes = plt.subplots(figsize=(9, 4))
    steps = range(len(chances))
    for seat in range(found.players):
        label = f"seat {seat}" + (" (reviewed)" if seat == found.seat else "")
        axes.plot(steps, [100 * c[seat] for c in chances], color=f"C{seat}", label=label,
                  lw=2.2 if seat == found.seat else 1.2)  # fmt: skip
    for moment in found.turning_points:
        x = moment.index + 1
        axes.axvline(x, color="grey", lw=0.8, ls=":")
        axes.text(x, 2, f"turn {moment.turn}: seat {moment.seat} {format_action(moment.action)}",
                  rotation=90, fontsize=7, va="bottom", ha="right",
                  bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.7})  # fmt: skip
    for mistake in found.mistakes:
        x = mistake.moment.index + 1
        axes.plot([x], [100 * chances[x][mistake.moment.seat]], "v", color="red")
    axes.set_ylim(0, 100)
    axes.set_xlabel("actions")
    axes.set_ylabel("chance to win, %")
    axes.legend(fontsize=8, loc="upper left")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
