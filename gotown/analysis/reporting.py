"""The analysis report: one self-contained HTML file (plots as data URIs) and the same as
Markdown with PNG plots, both from :func:`.findings.findings` through one list of sections
(title, text, tables, plots) that two Jinja2 templates lay out.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .games import SECONDS_PER_ACTION, SECONDS_PER_TURN
from .plots import ORDINALS, plots

if TYPE_CHECKING:
    from .simulation import Tables


@dataclass
class Table:
    headers: list[str]
    rows: list[list[str]]
    caption: str = ""


@dataclass
class Section:
    title: str
    text: str = ""
    tables: list[Table] = field(default_factory=list)
    plots: list[str] = field(default_factory=list)  # file names in the plots folder
    items: list[str] = field(default_factory=list)  # a list of short findings


def percent(found: dict[str, Any] | None, key: str = "rate") -> str:
    """``52.3% (51.6 to 53.0, n=1000)``."""
    if not found or found.get(key) is None:
        return "-"
    low, high = found["ci95"]
    n = f", n={found['n']}" if "n" in found else ""
    return f"{100 * found[key]:.1f}% ({100 * low:.1f} to {100 * high:.1f}{n})"


def number(found: dict[str, Any] | None, digits: int = 1) -> str:
    """``31.2 (30.8 to 31.6)``."""
    if not found or found.get("mean") is None:
        return "-"
    low, high = found["ci95"]
    return f"{found['mean']:.{digits}f} ({low:.{digits}f} to {high:.{digits}f})"


def points(found: dict[str, Any] | None) -> str:
    """A mean change of a share, in percentage points: ``+3.1 (0.4 to 5.8) pts``."""
    if not found or found.get("mean") is None:
        return "-"
    low, high = found["ci95"]
    return f"{100 * found['mean']:+.1f} ({100 * low:.1f} to {100 * high:.1f}) pts"


def _seat_rate(found: dict[str, Any], seat: int) -> str:
    rate = found["seat_win_rates"][seat]
    if rate is None:
        return "-"
    low, high = found["seat_win_ci95"][seat]
    return f"{100 * rate:.1f}% ({100 * low:.1f} to {100 * high:.1f})"


ALIKE = "not distinguishable from"


def _pair(interval: Sequence[float]) -> tuple[float, float]:
    low, high = interval
    return low, high


def against(low: float, high: float, reference: float) -> str:
    """Where an interval lies against a reference value, in words."""
    if low > reference:
        return "above"
    if high < reference:
        return "below"
    return ALIKE


def headlines(data: dict[str, Any]) -> list[str]:
    """The answers in a few sentences, each claim backed by its interval: an option's effect
    is only called one when its paired interval excludes no change."""
    lines = []
    for f in data["configurations"]:
        if f["study"] not in ("seat", "") or f["seat_win_rates"][0] is None:
            continue
        rate, (low, high) = f["seat_win_rates"][0], f["seat_win_ci95"][0]
        chance = 1 / f["players"]
        idle = f["only_end_share"]["rate"] or 0.0
        lines.append(
            f"{f['name']}: the first player wins {100 * rate:.1f}% ({100 * low:.1f} to "
            f"{100 * high:.1f}, {f['games']} games), {against(low, high, chance)} the "
            f"{100 * chance:.0f}% of pure chance; a game lasts {f['turns']['mean']:.0f} turns, "
            f"about {f['minutes']['mean']:.0f} minutes; in {100 * idle:.0f}% of the turns "
            "ending the turn was all one could do."
        )
    luck = data["skill"]["luck_share"]
    if luck and luck["rate"] is not None:
        lines.append(
            f"Skill against luck: {luck['weaker']} still wins {percent(luck)} of the decided "
            f"games against {luck['stronger']}."
        )
    for group in data["options"]:
        base, *rows = group["rows"]
        for r in rows:
            changes = []
            change = r.get("change") or {}
            turns, first = change.get("turns"), change.get("first_player")
            # The baseline over the same deals as the option's games, not over all of its own.
            paired_base = change.get("base") or {}
            if turns and turns["n"] > 1 and against(*_pair(turns["ci95"]), 0.0) != ALIKE:
                was = paired_base.get("turns", base["turns"]["mean"])
                changes.append(
                    f"turns {was:.1f} → {r['turns']['mean']:.1f} over the same "
                    f"{turns['n']} deals (paired change {number(turns)})"
                )
            if first and first["n"] > 1 and against(*_pair(first["ci95"]), 0.0) != ALIKE:
                was = paired_base.get("first_player", base["first_player"]["rate"])
                changes.append(
                    f"the first player's win rate {100 * was:.1f}% → "
                    f"{100 * r['first_player']['rate']:.1f}% over the same {first['n']} deals "
                    f"({points(first)})"
                )
            if changes:
                lines.append(f"{r['name']}: {'; '.join(changes)} (against the defaults).")
    return lines


def sections(data: dict[str, Any]) -> list[Section]:
    """The report's sections, from the findings (each figure with its interval and ``n``)."""
    found = data["configurations"]
    out = [
        Section(
            "Headlines",
            "Each claim rests on 95% intervals; the sections below give the figures.",
            items=headlines(data),
        )
    ]
    most = max((f["players"] for f in found), default=2)
    out.append(
        Section(
            "Who wins, by position in the turn order",
            "The win rate of the 1st player to play, the 2nd, ...; every bot of a line-up "
            "starts equally often (the seats rotate). "
            "Pure chance is 1/players for each position. In brackets: the 95% interval.",
            [
                Table(
                    ["configuration", "games"] + [ORDINALS[s] for s in range(most)] + ["no winner"],
                    [
                        [f["name"], str(f["games"])]
                        + [_seat_rate(f, s) if s < f["players"] else "" for s in range(most)]
                        + [percent({"rate": f["no_winner"], "ci95": f["no_winner_ci95"]})]
                        for f in found
                    ],
                )
            ],
            ["seat_win_rates.png"],
        )
    )
    out.append(
        Section(
            "How long a game lasts",
            "Means with their 95% interval; median and the 10th to 90th percentile. "
            f"Minutes at the table are estimated at {SECONDS_PER_TURN:g} s a turn and "
            f"{SECONDS_PER_ACTION:g} s a card action (an assumption, not a measurement).",
            [
                Table(
                    [
                        "configuration",
                        "games",
                        "turns",
                        "turns: median (p10 to p90)",
                        "actions",
                        "minutes",
                    ],
                    [
                        [
                            f["name"],
                            str(f["games"]),
                            number(f["turns"]),
                            f"{f['turns']['median']} ({f['turns']['p10']} to {f['turns']['p90']})",
                            number(f["actions"]),
                            number(f["minutes"]),
                        ]
                        for f in found
                    ],
                )
            ],
            ["length.png"],
        )
    )
    out.append(
        Section(
            "Turns with nothing to do, and stalemates",
            "Only the end: the share of turns with an action phase in which ending the turn "
            "was the only legal action (R21). Milkshake turns (R7a) are turns in which nothing "
            "at all can be done. A stalemate (R20b): no hand can draw and nobody can do "
            "anything but end the turn, so the game ends without a winner.",
            [
                Table(
                    [
                        "configuration",
                        "games",
                        "only the end",
                        "milkshake turns",
                        "stalemate",
                        "turn limit",
                    ],
                    [
                        [
                            f["name"],
                            str(f["games"]),
                            percent(f["only_end_share"]),
                            percent(f["milkshake_share"]),
                            percent(f["stalemates"]),
                            percent(f["at_turn_limit"]),
                        ]
                        for f in found
                    ],
                )
            ],
        )
    )
    skill = data["skill"]
    if skill["pairs"]:
        luck = skill["luck_share"]
        out.append(
            Section(
                "Skill against luck",
                "How often the stronger of two bots wins, of the games someone won (50% is "
                f"pure chance). Summary: {luck['weaker']} still wins {percent(luck)} of the "
                f"decided games against {luck['stronger']}, the widest gap measured.",
                [
                    Table(
                        ["stronger", "weaker", "games", "the stronger wins"],
                        [
                            [
                                p["stronger"],
                                p["weaker"],
                                str(p["games"]),
                                percent(p["stronger_wins"]),
                            ]
                            for p in skill["pairs"]
                        ],
                    )
                ],
                ["skill.png"],
            )
        )
    if data["cards"]:
        out.append(
            Section(
                "The special cards",
                "Per configuration: plays per game; the share of the players who held the card "
                "(at one of their decisions) who played it; the win rate of the players who "
                "played it and of those who held it and never did (chance: 1/players); its "
                "value, the change in its player's lead in floors (own floors less the mean "
                "of the opponents') from playing it to its first action after an opponent's "
                "turn.",
                [
                    Table(
                        [
                            "card",
                            "plays / game",
                            "played when held",
                            "win: played",
                            "win: held, not played",
                            "value (floors)",
                        ],
                        [
                            [
                                r["card"],
                                number(r["plays_per_game"], 2),
                                percent(r["played_when_held"]),
                                percent(r["win_played"]),
                                percent(r["win_held_not_played"]),
                                number(r["value"], 2),
                            ]
                            for r in rows
                        ],
                        caption=name,
                    )
                    for name, rows in data["cards"].items()
                ],
                ["cards.png"],
            )
        )
    if data["options"]:
        out.append(
            Section(
                "The rule options (R23), and the short game",
                "Each option changed alone, beside the same line-up with every default "
                "(`win_floors=4` is the official short game). The games use the same deals, so "
                "an option that the bots never use gives the very same games: random bots "
                "show what an option allows, medium ones what sensible play makes of it. The "
                "paired changes compare game i with game i of the baseline, dealt alike. With "
                "this many comparisons, about one in twenty shows an 'effect' by chance alone.",
                [
                    Table(
                        [
                            "configuration",
                            "games",
                            "first player wins",
                            "turns",
                            "minutes",
                            "no winner",
                            "only the end",
                            "turns: change, paired",
                            "first player: change, paired",
                        ],
                        [
                            [
                                r["name"],
                                str(r["games"]),
                                percent(r["first_player"]),
                                number(r["turns"]),
                                number(r["minutes"]),
                                percent(r["no_winner"]),
                                percent(r["only_end_share"]),
                                number(r["change"] and r["change"]["turns"], 2),
                                points(r["change"] and r["change"]["first_player"]),
                            ]
                            for r in group["rows"]
                        ],
                        caption=f"baseline: {group['baseline']}",
                    )
                    for group in data["options"]
                ],
                ["options.png"],
            )
        )
    return out


def _environment() -> Any:
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("gotown.analysis", "templates"),
        autoescape=jinja2.select_autoescape(["html.jinja"]),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def write_report(
    data: dict[str, Any], tables: Tables, folder: Path, header: Sequence[str] = ()
) -> list[Path]:
    """Write ``report.html``, ``report.md``, ``plots/*.png``, ``findings.json`` and the
    four Parquet tables into ``folder``; the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = plots(data, tables, folder / "plots")
    parts = sections(data)
    for part in parts:
        part.plots = [p for p in part.plots if p in written]
    images = {
        name: "data:image/png;base64,"
        + base64.b64encode((folder / "plots" / name).read_bytes()).decode()
        for name in written
    }
    environment = _environment()
    html = environment.get_template("report.html.jinja").render(
        sections=parts, header=header, images=images
    )
    markdown = environment.get_template("report.md.jinja").render(sections=parts, header=header)
    paths = [folder / "report.html", folder / "report.md", folder / "findings.json"]
    paths[0].write_text(html, encoding="utf-8")
    paths[1].write_text(markdown, encoding="utf-8")
    paths[2].write_text(json.dumps(data, indent=1), encoding="utf-8")
    paths += tables.write_parquet(folder)
    paths += [folder / "plots" / name for name in written]
    return paths
