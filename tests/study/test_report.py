"""A small standard study end to end: the HTML, the Markdown, the plots and the Parquet."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from gotown.study.findings import findings
from gotown.study.report import write_report
from gotown.study.simulation import run, standard_study, tasks_of


def test_a_small_study_writes_every_report(tmp_path: Path) -> None:
    configurations = standard_study(4, ["random", "medium"])
    tables = run(configurations, seed=5, workers=2)
    data = findings(configurations, tables)
    written = write_report(data, tables, tmp_path, ["a test"])
    names = {p.relative_to(tmp_path).as_posix() for p in written}
    plotted = ("seat_win_rates", "length", "endings", "skill", "cards", "options")
    for plot in plotted:
        assert f"plots/{plot}.png" in names
        assert (tmp_path / "plots" / f"{plot}.png").stat().st_size > 1000
    html = (tmp_path / "report.html").read_text()
    assert html.count("data:image/png;base64,") == len(plotted)
    markdown = (tmp_path / "report.md").read_text()
    for title in ("Who wins", "How long", "How games end", "Skill against luck",
                  "special cards, as played", "What starting with a card is worth",
                  "rule options"):  # fmt: skip
        assert title in html and title in markdown
    assert "win_floors=4" in markdown
    assert "A stalemate (R20b):" in markdown and "deadlock" not in markdown
    # Four games a configuration: no share is shown, and no difference is claimed.
    assert "too few (n=4)" in markdown and " ✓ |" not in markdown
    games = pl.read_parquet(tmp_path / "games.parquet")
    swaps = [c for c in configurations if c.swap]
    assert games.height == 4 * (len(configurations) - len(swaps)) + sum(
        len(tasks_of(c, 5, 300)) for c in swaps
    )
    played = {c.name for c in configurations if not c.swap or tasks_of(c, 5, 300)}
    assert set(games["configuration"]) == played
    turns = pl.read_parquet(tmp_path / "turns.parquet")
    assert turns.height == games["turns"].sum()
    saved = json.loads((tmp_path / "findings.json").read_text())
    assert [c["games"] for c in saved["configurations"] if c["study"] != "card"] == [4] * (
        len(configurations) - len(swaps)
    )
    (pair,) = saved["skill"]["pairs"]
    assert (pair["stronger"], pair["weaker"]) == ("medium", "random")
    assert saved["skill"]["luck_share"]["pair"] == pair["name"]
    groups = [(g["kind"], g["baseline"], len(g["rows"])) for g in saved["comparisons"]]
    assert groups == [
        ("option", "2 players: random, random", 7),
        ("option", "2 players: medium, medium", 7),
        ("swap", "2 players: medium, medium", 8),
        ("swap", "3 players: medium, medium, medium", 8),
        ("swap", "4 players: medium, medium, medium, medium", 8),
    ]
