"""The study's report: one self-contained HTML file (plots as data URIs) and the same as
Markdown with PNG plots, both from :func:`.findings.findings` through one list of sections
(title, text, tables, plots) that two Jinja2 templates lay out.

Every claim of a difference rests on a test corrected for its family (:mod:`.findings`):
what is not detectable is said to be so, with the smallest change the games could have shown,
never given a direction; no share or mean on fewer than :data:`~.findings.MIN_N` games.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .findings import MEASURES, MIN_N, TESTED, is_headlined, proportion
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


def too_few(n: int) -> str:
    return f"too few (n={n})"


def percent(found: dict[str, Any] | None, key: str = "rate") -> str:
    """``52.3% (51.6 to 53.0, n=1000)``; ``too few (n=3)`` under :data:`MIN_N`."""
    if not found or found.get(key) is None:
        return "-"
    if "n" in found and found["n"] < MIN_N:
        return too_few(found["n"])
    low, high = found["ci95"]
    n = f", n={found['n']}" if "n" in found else ""
    return f"{100 * found[key]:.1f}% ({100 * low:.1f} to {100 * high:.1f}{n})"


def number(found: dict[str, Any] | None, digits: int = 1) -> str:
    """``31.2 (30.8 to 31.6)``; ``too few (n=3)`` under :data:`MIN_N`."""
    if not found or found.get("mean") is None:
        return "-"
    if found.get("n", MIN_N) < MIN_N:
        return too_few(found["n"])
    low, high = found["ci95"]
    return f"{found['mean']:.{digits}f} ({low:.{digits}f} to {high:.{digits}f})"


def change(found: dict[str, Any] | None, measure: str) -> str:
    """A paired change: ``+3.1 pts (0.4 to 5.8)`` for a share, ``-8.0 (-8.5 to -7.5)`` else."""
    if not found or found.get("mean") is None:
        return "-"
    if found["n"] < MIN_N:
        return too_few(found["n"])
    low, high = found["ci95"]
    if MEASURES[measure]:
        return f"{100 * found['mean']:+.1f} pts ({100 * low:+.1f} to {100 * high:+.1f})"
    return f"{found['mean']:+.2f} ({low:+.2f} to {high:+.2f})"


def was_now(found: dict[str, Any], measure: str) -> str:
    """The baseline's and the variant's means over the same deals: ``51.0% → 45.2%``."""
    if found.get("base") is None:
        return "-"
    if MEASURES[measure]:
        return f"{100 * found['base']:.1f}% → {100 * found['other']:.1f}%"
    return f"{found['base']:.1f} → {found['other']:.1f}"


def smallest(found: dict[str, Any], measure: str) -> str:
    """The smallest change the test's family detects at this n, in the measure's unit."""
    size = found.get("smallest")
    if size is None:
        return "-"
    return f"{100 * size:.1f} pts" if MEASURES.get(measure, True) else f"{size:.2f}"


def verdict(found: dict[str, Any], measure: str) -> str:
    """``detectable (p = 0.003 after Holm)``, ``not detectable at this n (< 4.1 pts)`` or
    ``too few (n=12)``."""
    if found["n"] < MIN_N:
        return too_few(found["n"])
    if found["detectable"]:
        return f"detectable (p = {p_text(found['p_holm'])} after Holm)"
    return f"not detectable at this n (under {smallest(found, measure)} goes unseen)"


def p_text(p: float) -> str:
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


#: How the report names a measure of a comparison.
LABELS = {
    "turns": "turns",
    "first_player": "the first player's win rate",
    "no_winner": "games without a winner",
    "holder_wins": "its holder's win rate",
    "holder_floors": "its holder's floors at the end",
}
#: The short column heads of the measures.
HEADS = {
    "turns": "turns",
    "first_player": "first player wins",
    "no_winner": "no winner",
    "holder_wins": "the holder wins",
    "holder_floors": "the holder's floors",
}
#: The title of each kind of comparison, and what its change means.
KINDS = {
    "option": ("The rule options (R23), and the short game",
               "the option's games less the same deals with every default"),
    "without": ("The game without a card",
                "the games without the card less the same deals with it"),
    "swap": ("What starting with a card is worth",
             "the holder's games with the card less the same deals with a plain floor card "
             "in its place"),
}  # fmt: skip


def short(found: dict[str, Any]) -> str:
    """``37.8% (33.7 to 42.1)``: a share without its n."""
    low, high = found["ci95"]
    return f"{100 * found['rate']:.1f}% ({100 * low:.1f} to {100 * high:.1f})"


def seat_headline(f: dict[str, Any]) -> str:
    """One line-up's headline: which positions win more or less than chance (only those
    detectable after the correction), length, stalemates, idle turns."""
    tests = f["positions"]
    first = tests[0]
    chance = first["chance"]
    count = first["family"]["tests"] if "family" in first else len(tests)
    if first["n"] < MIN_N:
        seats = f"too few decided games ({first['n']}) to say who wins"
    else:
        found = [(s, t) for s, t in enumerate(tests) if t.get("detectable")]
        if found:
            seats = "; ".join(
                f"the {ORDINALS[s]} player wins {'more' if t['rate'] > chance else 'less'} "
                f"often than the {100 * chance:.0f}% of chance: {short(t)} of the decided "
                f"games (p = {p_text(t['p_holm'])} after Holm, {count} positions tested)"
                for s, t in found
            )
        else:
            seats = (
                f"the first player won {short(first)} of the decided games, and no position's "
                f"advantage is detectable at this n ({count} positions tested together, "
                f"Holm's correction: only a difference from the {100 * chance:.0f}% of chance "
                f"of about {smallest(first, 'position')} or more would be seen)"
            )
    idle = f["only_end_share"]["rate"] or 0.0
    stalemates = f["stalemates"]["rate"] or 0.0
    return (
        f"{f['name']} ({f['games']} games): {seats}; a game lasts {f['turns']['mean']:.0f} "
        f"turns, about {f['minutes']['mean']:.0f} minutes; {100 * stalemates:.1f}% end in a "
        f"stalemate (R20b); in {100 * idle:.0f}% of the turns ending the turn was all one "
        "could do."
    )


def comparison_headlines(data: dict[str, Any]) -> list[str]:
    """Per kind of comparison: each detectable change, then how many were tested and what
    the others could not show."""
    lines = []
    for kind, (title, _) in KINDS.items():
        groups = [g for g in data["comparisons"] if g["kind"] == kind]
        tests = [(r, m, r["changes"][m]) for g in groups for r in g["rows"] for m in TESTED[kind]]
        bases = {r["name"]: g["baseline"] for g in groups for r in g["rows"]}
        if not tests:
            continue
        found = [(r, m, t) for r, m, t in tests if t["detectable"]]
        sizes = {m: [t["smallest"] for _, mm, t in tests if mm == m and t["smallest"]]
                 for m in TESTED[kind]}  # fmt: skip
        unseen = ", ".join(
            f"{LABELS[m]} under about {smallest({'smallest': min(v)}, m)}"
            for m, v in sizes.items()
            if v
        )
        rest = "the others are" if found else "none is"
        lines.append(
            f"{title}: {len(found)} of {len(tests)} changes detectable (tested together, "
            f"Holm's correction); {rest} not detectable at these n"
            + (f": even at best, changes of {unseen} go unseen." if unseen else ".")
        )
        for r, m, t in found:
            what = (
                f"{bases[r['name']]}, starting with a {r['swap']} rather than a plain floor card"
                if kind == "swap"
                else r["name"]
            )
            lines.append(
                f"{what}: {LABELS[m]} {was_now(t, m)} over the same {t['n']} deals "
                f"({change(t, m)}, p = {p_text(t['p_holm'])} after Holm)."
            )
    return lines


def headlines(data: dict[str, Any]) -> list[str]:
    """The answers in a few sentences: a difference is named only when its test, corrected
    for its family, detects it; otherwise the line says it is not detectable at this n."""
    lines = [seat_headline(f) for f in data["configurations"] if is_headlined(f)]
    luck = data["skill"]["luck_share"]
    if luck and luck["rate"] is not None and luck["n"] >= MIN_N:
        lines.append(
            f"Skill against luck: {luck['weaker']} still wins {percent(luck)} of the decided "
            f"games against {luck['stronger']}."
        )
    return lines + comparison_headlines(data)


def _position(test: dict[str, Any]) -> str:
    if test["n"] < MIN_N:
        return too_few(test["n"])
    return short(test) + (" ✓" if test.get("detectable") else "")


def _comparison_section(data: dict[str, Any], kind: str) -> Section | None:
    groups = [g for g in data["comparisons"] if g["kind"] == kind]
    if not groups:
        return None
    title, meaning = KINDS[kind]
    measures = TESTED[kind]
    count = sum(len(g["rows"]) for g in groups) * len(measures)
    texts = {
        "option": "Each option changed alone, beside the same line-up with every default "
        "(`win_floors=4` is the official short game). Random bots show what an option "
        "allows, medium ones what sensible play makes of it; an option the bots never use "
        "gives the very same games.",
        "without": "Every copy of the card leaves the game; each place it held in the deal or "
        "the draw pile is taken by a plain floor card from the bottom of the pile, so the "
        "other cards come as in the baseline's game (the deck is smaller by those copies). "
        "The bots still count the card among the unseen ones.",
        "swap": "In each deal in which a seat starts with the card, one such seat (at random) "
        "gets the plain floor card nearest the bottom of the draw pile in its place, and the "
        "card goes there; nothing else changes. The change is what starting with the card "
        "(rather than a floor card) is worth to its holder; only those deals are played.",
    }
    text = (
        f"{texts[kind]} Each change is {meaning}, deal by deal, with its 95% interval; "
        f"✓ marks the {count} tests' detectable ones (p < 0.05 after Holm's correction over "
        "all of them). A change not marked is not detectable at this n: the last column gives "
        "the smallest change of the first measure these games would detect."
    )
    first = measures[0]
    tables = [
        Table(
            ["configuration" if kind != "swap" else "card", "pairs"]
            + [
                f"{HEADS[m]}: {'a floor card → the card' if kind == 'swap' else 'was → is'}"
                for m in measures[:1]
            ]
            + [f"{HEADS[m]}: change" for m in measures]
            + [f"{HEADS[first]}: detectable from"],
            [
                [r["swap"] if kind == "swap" else r["name"], str(r["pairs"])]
                + [was_now(r["changes"][first], first)]
                + [
                    change(r["changes"][m], m) + (" ✓" if r["changes"][m]["detectable"] else "")
                    for m in measures
                ]
                + [smallest(r["changes"][first], first)]
                for r in g["rows"]
            ],
            caption=f"baseline: {g['baseline']}",
        )
        for g in groups
    ]
    plot = {"option": "options.png", "without": "without.png", "swap": "cards.png"}[kind]
    return Section(title, text, tables, [plot])


def sections(data: dict[str, Any]) -> list[Section]:
    """The report's sections, from the findings (each figure with its interval and ``n``)."""
    # A swap plays only the deals in which a seat starts with its card: its own length and
    # endings describe those deals, so it is shown beside its baseline only.
    found = [f for f in data["configurations"] if not f["swap"]] or data["configurations"]
    headlined = [f for f in found if is_headlined(f)] or found
    out = [
        Section(
            "Headlines",
            "Each claim rests on a test corrected for the number of tests like it (Holm's "
            "method); what the games cannot tell apart from chance or from no change is said "
            "to be not detectable at this n, with the smallest difference they would have "
            "shown. The sections below give the figures.",
            items=headlines(data),
        )
    ]
    most = max((f["players"] for f in headlined), default=2)
    out.append(
        Section(
            "Who wins, by position in the turn order",
            "Of the games someone won, the share won by the 1st player to play, the 2nd, ...; "
            "every bot of a line-up starts equally often (the seats rotate). Pure chance is "
            "1/players for each position. In brackets the 95% interval; ✓ marks a position "
            "whose share differs from chance detectably (exact binomial test, p < 0.05 after "
            "Holm's correction over every position of these line-ups).",
            [
                Table(
                    ["configuration", "games", "decided"] + [ORDINALS[s] for s in range(most)],
                    [
                        [f["name"], str(f["games"]), str(f["positions"][0]["n"])]
                        + [
                            _position(f["positions"][s]) if s < f["players"] else ""
                            for s in range(most)
                        ]
                        for f in headlined
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
            "How games end, and turns with nothing to do",
            "A game ends with a win (R20), a stalemate or the turn limit. A stalemate (R20b): "
            "no hand can draw and nobody could ever do anything but end the turn, so the game "
            "ends with no winner. Only the end: the share of turns with an action phase in "
            "which ending the turn was the only legal action (R21); milkshake turns (R7a) are "
            "turns in which nothing at all can be done.",
            [
                Table(
                    [
                        "configuration",
                        "games",
                        "win",
                        "stalemate",
                        "turn limit",
                        "only the end",
                        "milkshake turns",
                    ],
                    [
                        [
                            f["name"],
                            str(f["games"]),
                            percent(proportion(f["endings"]["win"], f["games"])),
                            percent(f["stalemates"]),
                            percent(f["at_turn_limit"]),
                            percent(f["only_end_share"]),
                            percent(f["milkshake_share"]),
                        ]
                        for f in found
                    ],
                )
            ],
            ["endings.png"],
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
                "The special cards, as played",
                "Per configuration: plays per game, and the share of the seats that held the "
                "card (at one of their decisions) that played it. A description of play, not "
                "a card's effect: what a card is worth is measured against a control, the "
                "same deals without it (below, when the study swaps cards).",
                [
                    Table(
                        ["card", "plays / game", "played when held"],
                        [
                            [
                                r["card"],
                                number(r["plays_per_game"], 2),
                                percent(r["played_when_held"]),
                            ]
                            for r in rows
                        ],
                        caption=name,
                    )
                    for name, rows in data["cards"].items()
                ],
            )
        )
    for kind in ("swap", "without", "option"):
        section = _comparison_section(data, kind)
        if section is not None:
            out.append(section)
    return out


def _environment() -> Any:
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("gotown.study", "templates"),
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
