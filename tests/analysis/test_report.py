"""A small standard study end to end: the HTML, the Markdown, the plots and the Parquet."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from gotown.analysis.findings import findings
from gotown.analysis.reporting import write_report
from gotown.analysis.simulation import run, standard_study


def test_a_small_study_writes_every_report(tmp_path: Path) -> None:
    configurations = standard_study(4, ["random", "medium"])
    tables = run(configurations, seed=5, workers=2)
    data = findings(configurations, tables)
    written = write_report(data, tables, tmp_path, ["a test"])
    names = {p.relative_to(tmp_path).as_posix() for p in written}
    for plot in ("seat_win_rates", "length", "skill", "cards", "options"):
        assert f"plots/{plot}.png" in names
        assert (tmp_path / "plots" / f"{plot}.png").stat().st_size > 1000
    html = (tmp_path / "report.html").read_text()
    assert html.count("data:image/png;base64,") == 5
    markdown = (tmp_path / "report.md").read_text()
    for title in ("Who wins", "How long", "nothing to do", "Skill against luck",
                  "special cards", "rule options"):  # fmt: skip
        assert title in html and title in markdown
    assert "win_floors=4" in markdown
    games = pl.read_parquet(tmp_path / "games.parquet")
    assert games.height == 4 * len(configurations)
    assert set(games["configuration"]) == {c.name for c in configurations}
    turns = pl.read_parquet(tmp_path / "turns.parquet")
    assert turns.height == games["turns"].sum()
    saved = json.loads((tmp_path / "findings.json").read_text())
    assert [c["games"] for c in saved["configurations"]] == [4] * len(configurations)
    (pair,) = saved["skill"]["pairs"]
    assert (pair["stronger"], pair["weaker"]) == ("medium", "random")
    assert saved["skill"]["luck_share"]["pair"] == pair["name"]
    baselines = [group["rows"][0]["name"] for group in saved["options"]]
    assert baselines == ["2 players: random, random", "2 players: medium, medium"]
    assert [len(group["rows"]) for group in saved["options"]] == [8, 8]
