"""Paired deck changes: a card swapped for a plain floor card in one starting hand, or left out
of the game, with every other card where the baseline's deal put it (R2, R4)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import polars as pl
import pytest

from gotown.engine import CODES, COPIES, DECK_SIZE, Game
from gotown.study.decks import PLAIN, change_deal, swap_focus, swapped, without
from gotown.study.findings import findings
from gotown.study.report import write_report
from gotown.study.simulation import Configuration, load_plan, run, tasks_of
from gotown.tournament.tournament import deal


def _cards(position: dict[str, object]) -> Counter[str]:
    hands = position["hands"]
    draw = position["draw"]
    assert isinstance(hands, list) and isinstance(draw, list)
    return Counter([c for hand in hands for c in hand] + draw)


def test_a_swap_changes_the_holders_card_and_a_plain_card_at_the_bottom_of_the_pile() -> None:
    game = deal(3, 1, 0, 300, {})
    before = game.to_position()
    seat = swap_focus(game, "dog", 1, 0)
    assert seat is not None and "dog" in before["hands"][seat]
    after = swapped(before, "dog", seat)
    copies = before["hands"][seat].count("dog")
    assert "dog" not in after["hands"][seat]
    for other in range(3):
        if other != seat:
            assert after["hands"][other] == before["hands"][other]
    moved = [
        i for i, (a, b) in enumerate(zip(before["draw"], after["draw"], strict=True)) if a != b
    ]
    assert len(moved) == copies and all(after["draw"][i] == "dog" for i in moved)
    plain = [i for i, c in enumerate(before["draw"]) if c in PLAIN]
    assert moved == sorted(plain[-copies:])  # the plain floor cards nearest the bottom
    assert _cards(after) == _cards(before)  # still the 54 cards of R2
    changed, focus = change_deal(game, 1, 0, swap="dog")
    assert focus == seat and changed.card_count() == DECK_SIZE
    assert [Counter(h) for h in changed.to_position()["hands"]] == [
        Counter(h) for h in after["hands"]
    ]


def test_without_takes_every_copy_out_and_leaves_the_other_cards_in_their_order() -> None:
    game = deal(4, 2, 5, 300, {})
    before = game.to_position()
    after = without(before, ["dog", "bone"])
    counts = _cards(after)
    assert counts["dog"] == counts["bone"] == 0
    assert (
        sum(counts.values()) == DECK_SIZE - COPIES[CODES.index("dog")] - COPIES[CODES.index("bone")]
    )
    assert [len(h) for h in after["hands"]] == [len(h) for h in before["hands"]]
    # Every other card of a hand stays there, the places of the cards gone take plain ones;
    # the other special cards keep their order in the pile.
    for old, new in zip(before["hands"], after["hands"], strict=True):
        kept = Counter(c for c in old if c not in ("dog", "bone"))
        assert kept <= Counter(new)
        assert all(c in PLAIN for c in (Counter(new) - kept).elements())
    specials = [c for c in before["draw"] if c not in PLAIN and c not in ("dog", "bone")]
    assert [c for c in after["draw"] if c not in PLAIN] == specials
    changed, focus = change_deal(game, 2, 5, leave_out=("dog", "bone"))
    assert focus is None and changed.card_count() == sum(counts.values())


def test_a_deal_in_which_nobody_starts_with_the_card_is_not_played() -> None:
    index = next(
        i for i in range(50)
        if not any("wrecking-ball" in h for h in deal(2, 4, i, 300, {}).to_position()["hands"])
    )  # fmt: skip
    game = deal(2, 4, index, 300, {})
    assert swap_focus(game, "wrecking-ball", 4, index) is None
    with pytest.raises(ValueError, match="no seat starts with a wrecking-ball"):
        change_deal(game, 4, index, swap="wrecking-ball")
    configuration = Configuration(("random", "random"), games=index + 1, swap="wrecking-ball")
    assert index not in [t.index for t in tasks_of(configuration, 4, 300)]


PLAN = """
games = 60

[[configuration]]
name = "two random"
bots = ["random", "random"]

[[configuration]]
name = "a dealt dog swapped"
bots = ["random", "random"]
swap = "dog"
baseline = "two random"

[[configuration]]
bots = ["random", "random"]
without = "wrecking-ball"
"""


def test_a_plan_with_a_card_swapped_for_a_plain_card_gives_the_paired_figures(
    tmp_path: Path,
) -> None:
    plan = load_plan(PLAN, 10)
    base, swap, gone = plan
    assert swap.swap == "dog" and swap.baseline == "two random"
    assert gone.without == ("wrecking-ball",) and gone.name.endswith("(without wrecking-ball)")
    tables = run(plan, seed=3, workers=1)
    games = tables.games
    # The swap plays exactly the deals in which a seat starts with a dog, on the seat chosen.
    holders = {
        i: swap_focus(Game.new(2, 3 * 1_000_003 + i, {"first_player": 0, "turn_limit": 300}),
                      "dog", 3, i)
        for i in range(60)
    }  # fmt: skip
    swapped_games = games.filter(pl.col("configuration") == swap.name)
    assert swapped_games["game"].to_list() == [i for i, s in holders.items() if s is not None]
    assert swapped_games["focus"].to_list() == [s for s in holders.values() if s is not None]
    # The paired figures, recomputed from the games table: with the dog less without it.
    joined = games.filter(pl.col("configuration") == base.name).join(
        swapped_games, on="game", suffix="_swap"
    )
    worth = [
        (row["winner"] == row["focus_swap"]) - (row["winner_swap"] == row["focus_swap"])
        for row in joined.to_dicts()
    ]
    longer = (joined["turns"] - joined["turns_swap"]).to_list()
    data = findings(plan, tables)
    kinds = {(g["kind"], g["baseline"]) for g in data["comparisons"]}
    assert kinds == {("swap", "two random"), ("without", "two random")}
    (group,) = [g for g in data["comparisons"] if g["kind"] == "swap"]
    (row,) = group["rows"]
    wins, turns = row["changes"]["holder_wins"], row["changes"]["turns"]
    assert row["pairs"] == wins["n"] == len(worth) >= 30
    assert wins["mean"] == pytest.approx(sum(worth) / len(worth))
    assert wins["ci95"][0] < wins["mean"] < wins["ci95"][1]
    assert turns["mean"] == pytest.approx(sum(longer) / len(longer))
    assert 0 <= wins["p"] <= 1 and wins["p_holm"] >= wins["p"]
    # Without the wrecking ball nobody holds or plays it; every deal is played.
    left_out = tables.holdings.filter(pl.col("configuration") == gone.name)
    assert "wrecking-ball" not in left_out["card"].to_list()
    assert games.filter(pl.col("configuration") == gone.name).height == 60
    written = {p.name for p in write_report(data, tables, tmp_path)}
    assert {"cards.png", "without.png"} <= written
    markdown = (tmp_path / "report.md").read_text()
    assert "## What starting with a card is worth" in markdown
    assert "## The game without a card" in markdown
    assert f"| dog | {row['pairs']} |" in markdown


def test_a_plan_names_a_wrong_baseline_or_deck_change() -> None:
    two = '[[configuration]]\nname = "two"\nbots = ["random", "random"]\n'
    with pytest.raises(ValueError, match="configuration 2: baseline 'nobody' names no other"):
        load_plan(two + '[[configuration]]\nbots = ["random", "random"]\nbaseline = "nobody"\n', 5)
    three = '[[configuration]]\nbots = ["random", "random", "random"]\nbaseline = "two"\n'
    with pytest.raises(ValueError, match="configuration 2: baseline 'two' has 2 players, not 3"):
        load_plan(two + three, 5)
    with pytest.raises(ValueError, match=r"configuration 1: swap: '5' is not a special card \(R2"):
        load_plan('[[configuration]]\nbots = ["random", "random"]\nswap = "5"\n', 5)
    both = '[[configuration]]\nbots = ["random", "random"]\nswap = "dog"\nwithout = ["bone"]\n'
    with pytest.raises(ValueError, match="swaps a card or leaves cards out, not both"):
        load_plan(both, 5)
