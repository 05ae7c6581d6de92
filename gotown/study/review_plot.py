"""The review's win-probability graph (:mod:`gotown.bots.review` computes it)."""

from __future__ import annotations

from pathlib import Path

from gotown.bots.review import BASIS, Review


def turn_ticks(found: Review, most: int = 12) -> tuple[list[int], list[str]]:
    """Steps where a turn begins (at most ``most`` of them, evenly spread) and its number."""
    starts: list[tuple[int, int]] = []
    for moment in found.moments:
        if not starts or starts[-1][1] != moment.turn:
            starts.append((moment.index, moment.turn))
    every = max(1, -(-len(starts) // most))
    chosen = starts[::every]
    return [step for step, _ in chosen], [str(turn) for _, turn in chosen]


def plot_review(found: Review, path: Path) -> None:
    """Each seat's chance to win before the first action and after every action, the turning
    points marked on the line of the seat they moved and labelled with their cause, the
    reviewed seat's mistakes marked; the file's extension names its format (``png``,
    ``svg``, ``pdf``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    chances = found.chances()
    figure, axes = plt.subplots(figsize=(9, 4.4))
    steps = range(len(chances))
    for seat in range(found.players):
        label = f"seat {seat}" + (" (reviewed)" if seat == found.seat else "")
        axes.plot(steps, [100 * c[seat] for c in chances], color=f"C{seat}", label=label,
                  lw=2.2 if seat == found.seat else 1.2)  # fmt: skip
    for point in found.turning_points:
        x = point.index + 1
        axes.axvline(x, color="grey", lw=0.8, ls=":")
        axes.plot([x], [100 * chances[x][point.who]], "o", color=f"C{point.who}", ms=7)
        axes.text(x, 2, f"turn {point.turn}: {point.cause}", rotation=90, fontsize=7,
                  va="bottom", ha="right",
                  bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.7})  # fmt: skip
    for mistake in found.mistakes:
        x = mistake.moment.index + 1
        axes.plot([x], [100 * chances[x][mistake.moment.seat]], "v", color="red")
    ticks, labels = turn_ticks(found)
    axes.set_xticks(ticks, labels)
    axes.set_xlim(0, max(1, len(chances) - 1))
    axes.set_ylim(0, 100)
    axes.set_yticks([0, 25, 50, 75, 100])
    axes.set_xlabel("turn")
    axes.set_ylabel("chance to win, %")
    axes.set_title(f"Chances to win, with {BASIS}", fontsize=9)
    axes.legend(fontsize=8, loc="upper left")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
