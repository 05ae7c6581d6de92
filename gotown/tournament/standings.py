"""The standings: what a tournament's results look like to people, the table the command prints
and the plot it writes (:mod:`.tournament` plays the games).

Kept apart from the games, so that a change here leaves the code fingerprint of stored results
as it is (:func:`~.results.code_fingerprint`): a tournament played in parts can go on after
the table or the plot has changed.
"""

from __future__ import annotations

from .tournament import TournamentResult, format_options, wilson


def format_table(result: TournamentResult) -> str:
    """The results as a Markdown table and a summary line."""
    lines = [
        "| bot | games | wins | win rate | 95% CI | rating (mu ± sigma) | ordinal "
        "| mean think / decision | median | max |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s in result.entries:
        lines.append(
            f"| {s.name} | {s.games} | {s.wins} | {100 * s.win_rate:.1f}% "
            f"| {100 * s.ci_low:.1f} to {100 * s.ci_high:.1f}% "
            f"| {s.rating_mu:.2f} ± {s.rating_sigma:.2f} | {s.rating_ordinal:.2f} "
            f"| {s.mean_think_ms:.2f} ms | {s.median_think_ms:.2f} ms "
            f"| {s.max_think_ms:.0f} ms |"
        )
    lines.append("")
    options = f"; rule options {format_options(result.options)}" if result.options else ""
    why = (
        f" ({result.stalemates} in a stalemate, R20b; {result.at_turn_limit} at the turn limit of "
        f"{result.turn_limit})"
        if result.no_winner
        else f" (turn limit {result.turn_limit})"
    )
    lines.append(
        f"{result.games} games, {result.players} players, {result.no_winner} without a winner"
        f"{why}; mean game length {result.mean_turns:.1f} turns, "
        f"{result.mean_actions:.1f} actions; {result.seconds:.0f} s on {result.workers} "
        f"worker(s), seed {result.seed}{options}."
    )
    return "\n".join(lines)


def plot_formats() -> list[str]:
    """The file extensions :func:`write_plot` can write (matplotlib's; ``pgf`` only with the
    TeX system it runs)."""
    import shutil

    import matplotlib
    from matplotlib.figure import Figure

    formats = sorted(Figure().canvas.get_supported_filetypes())
    if shutil.which(str(matplotlib.rcParams["pgf.texsystem"])) is None:
        formats.remove("pgf")
    return formats


def write_plot(result: TournamentResult, path: str) -> None:
    """Three panels: each entry's win rate with its 95% interval (and the share of games
    nobody won); every decision's think time, as a box on a log scale (median, quartiles,
    whiskers at the 5th and 95th percentiles, the mean as a dot, a line at 1 s); and the win
    rates over the games in the order they were dealt, each with its 95% band, to show that
    the estimate had settled."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    entries = result.entries
    names = [s.name for s in entries]
    colors = [f"C{i}" for i in range(len(entries))]
    fig, (rates_ax, times_ax, runs_ax) = plt.subplots(
        1, 3, figsize=(13.5, 3.9), gridspec_kw={"width_ratios": [1, 1, 1.3]}
    )

    rates = [100 * s.win_rate for s in entries]
    low = [100 * (s.win_rate - s.ci_low) for s in entries]
    high = [100 * (s.ci_high - s.win_rate) for s in entries]
    rates_ax.bar(names, rates, yerr=[low, high], capsize=4, color=colors)
    rates_ax.axhline(100 / result.players, color="grey", linestyle="--", linewidth=1)
    rates_ax.set_ylabel("win rate (%), 95% interval")
    share = 100 * result.no_winner / result.games if result.games else 0.0
    rates_ax.set_title(
        f"{result.games} game{'s' * (result.games != 1)}, {result.players} players; "
        f"no winner {share:.1f}%",
        fontsize=10,
    )
    # A long spec (hard:iterations=2000,epsilon=0.2) is shown a parameter a line.
    labels = [n.replace(":", ":\n").replace(",", ",\n") if len(n) > 12 else n for n in names]
    rates_ax.set_xticks(range(len(names)), labels, fontsize=8 if len(names) > 2 else None)

    floor_ms = 1e-4  # a decision measured as 0 still shows, at a tenth of a microsecond
    per_entry = [
        [max(floor_ms, 1000.0 * t) for r in result.results if r.times for t in r.times[e]]
        for e in range(len(entries))
    ]
    shown = [e for e, times in enumerate(per_entry) if times]
    boxes = times_ax.boxplot(
        [per_entry[e] for e in shown],
        positions=[e + 1 for e in shown],
        whis=(5, 95),
        showfliers=False,
        showmeans=True,
        meanprops={"marker": "o", "markerfacecolor": "black", "markeredgecolor": "black"},
        medianprops={"color": "black"},
        patch_artist=True,
    )
    for box, e in zip(boxes["boxes"], shown, strict=True):
        box.set_facecolor(colors[e])
        box.set_alpha(0.6)
    times_ax.set_yscale("log")
    times_ax.set_xlim(0.5, len(names) + 0.5)
    for e in range(len(entries)):
        if not per_entry[e]:  # (a bot whose turn never came)
            times_ax.text(e + 1, 1.0, "no decisions", ha="center", va="center", fontsize=8,
                          color="grey")  # fmt: skip
    times_ax.set_xticks(range(1, len(names) + 1), labels, fontsize=8 if len(names) > 2 else None)
    times_ax.axhline(1000.0, color="grey", linestyle=":", linewidth=1)
    times_ax.text(0.55, 1000.0, " 1 s", va="bottom", fontsize=8, color="grey")
    times_ax.set_ylabel("think time per decision (ms)")
    times_ax.set_title("every decision: median, quartiles, 5 to 95%, mean (dot)", fontsize=10)

    ordered = sorted(result.results, key=lambda r: r.index)
    counts = range(1, len(ordered) + 1)
    for e, color in enumerate(colors):
        wins = 0
        line, band_low, band_high = [], [], []
        for n, game in zip(counts, ordered, strict=True):
            wins += game.winner == e
            lo, hi = wilson(wins, n)
            line.append(100 * wins / n)
            band_low.append(100 * lo)
            band_high.append(100 * hi)
        few = len(ordered) <= 30  # (a line through a point or two is hard to see)
        runs_ax.plot(counts, line, color=color, label=labels[e], linewidth=1.2,
                     marker="o" if few else None, markersize=3)  # fmt: skip
        runs_ax.fill_between(counts, band_low, band_high, color=color, alpha=0.15, linewidth=0)
    runs_ax.axhline(100 / result.players, color="grey", linestyle="--", linewidth=1)
    runs_ax.set_xlabel("games played (in the order dealt)")
    runs_ax.set_ylabel("win rate so far (%)")
    runs_ax.set_ylim(0, 100)
    runs_ax.xaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))
    if len(ordered) <= 30:
        runs_ax.set_xlim(0.5, len(ordered) + 0.5)
    runs_ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    runs_ax.set_title("the estimate as games were added", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
