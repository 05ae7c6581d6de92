"""The review under the replay: the win-probability graph of a finished game (its axes
labelled, what its chances see said), its turning points named by what swung the game and
jumping the replay to their step (by a click on the graph or the keyboard), and the seat's own
mistakes with their size in words."""

from __future__ import annotations

import math
import time
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from .fixtures import LAPTOP, get, post, shot, watch_errors

pytestmark = pytest.mark.browser


def _finished(server_url: str, seats: list[dict[str, Any]], seed: int) -> str:
    created = post(
        server_url, "/api/games", {"seats": seats, "seed": seed, "options": {"win_floors": 4}}
    )
    game_id: str = created["game_id"]
    deadline = time.monotonic() + 180  # (a busy machine: bots take their time)
    while get(server_url, f"/api/games/{game_id}/state")["status"] != "over":
        assert time.monotonic() < deadline, "the bots' game did not end"
        time.sleep(0.1)
    return game_id


def _pct(chance: float) -> str:
    """A chance as the page writes it (JavaScript's Math.round)."""
    return f"{math.floor(100 * chance + 0.5)}%"


def _step(page: Page) -> int:
    return int(page.input_value("#replay-slider"))


def test_the_graph_of_a_finished_game_jumps_to_a_turning_point(
    browser: Browser, server_url: str
) -> None:
    bot = {"kind": "bot", "level": "random"}
    game_id = _finished(server_url, [bot, bot, bot], seed=11)
    review = get(server_url, f"/api/games/{game_id}/review")
    context = browser.new_context(viewport=LAPTOP)
    page = context.new_page()
    errors = watch_errors(page)
    page.goto(f"{server_url}/r/{game_id}")
    page.wait_for_selector("#review-graph")
    # One line per seat, labelled axes, what the chances see, the figures in a table.
    assert page.locator("#review-graph polyline.review-line").count() == 3
    assert page.text_content("#review-axis-chance") == "Chance to win"
    assert page.text_content("#review-axis-turn") == "Turn"
    assert "Every hand shown, as after the game (R22)" in (page.text_content("#review-basis") or "")
    assert page.locator("#review-table tbody tr").count() == len(review["chances"])
    assert page.locator("#review-mistakes, #review-no-mistakes").count() == 0  # (no seat)
    # The turning points: each marked on the line of the seat it moved, named by its cause.
    points = review["turning_points"]
    marks = page.locator("#review-graph circle.review-turn")
    assert marks.count() == len(points) >= 2
    causes = {"decision": ", a decision: ", "draw": ", cards drawn: ", "theft": ", a theft: "}
    for i, point in enumerate(points):
        text = page.text_content(f"#review-turn-{i}") or ""
        assert text.startswith(f"Turn {point['turn']}{causes[point['cause']]}"), text
        assert text.endswith(f"{_pct(point['before'])} → {_pct(point['after'])})"), text
        line = page.locator(f"#review-graph polyline.seat-c{point['who']}")
        step = point["index"] + 1
        y = float((line.get_attribute("points") or "").split()[step].split(",")[1])
        assert marks.nth(i).get_attribute("data-step") == str(step)
        assert float(marks.nth(i).get_attribute("cy") or "nan") == pytest.approx(y, abs=0.2)
    described = page.text_content("#review-graph-desc") or ""
    assert f"{len(review['chances']) - 1}" in described
    assert _step(page) == 0
    # A click on the graph's mark of a turning point shows the position after its action.
    target = points[1]["index"] + 1
    page.locator(f'#review-graph circle[data-step="{target}"]').click()
    assert _step(page) == target
    assert page.text_content("#replay-step") == f"Step {target} of {len(review['chances']) - 1}"
    cursor = float(page.get_attribute("#review-graph .review-cursor", "x1") or "nan")
    mark = float(page.get_attribute(f'#review-graph circle[data-step="{target}"]', "cx") or "0")
    assert cursor == pytest.approx(mark, abs=0.2)
    # From the keyboard: the list of turning points.
    page.click("#replay-first")
    first = points[0]["index"] + 1
    page.focus("#review-turn-0")
    page.keyboard.press("Enter")
    assert _step(page) == first
    shot(page, "web-review-graph")
    assert not errors, errors
    context.close()


def test_a_seat_sees_its_own_mistakes_with_the_better_move(
    browser: Browser, server_url: str
) -> None:
    """A person's seat that played its first legal action every time (a careless player),
    replayed with the seat's token. (The deal is one where the review names a mistake of
    such play: it names only a move that lost 15 points against the best.)"""
    created = post(
        server_url,
        "/api/games",
        {"seats": [{"kind": "human"}, {"kind": "bot", "level": "random"}], "seed": 3,
         "options": {"win_floors": 4}, "name": "Ada"},
    )  # fmt: skip
    game_id, token = created["game_id"], created["token"]
    deadline = time.monotonic() + 180
    while (st := get(server_url, f"/api/games/{game_id}/state", token))["status"] != "over":
        assert time.monotonic() < deadline, "the game did not end"
        if st["view"]["active"] == 0:
            body = {"version": st["version"], "action": st["legal"][0]}
            post(server_url, f"/api/games/{game_id}/actions", body, token)
        else:
            time.sleep(0.05)
    review = get(server_url, f"/api/games/{game_id}/review?seat=0")
    assert review["mistakes"], "careless play should cost something"
    context = browser.new_context(viewport=LAPTOP)
    page = context.new_page()
    page.goto(created["play_url"])  # (keeps the seat's token on this device)
    page.wait_for_selector("#status")
    page.goto(f"{server_url}/r/{game_id}")
    page.wait_for_selector("#review-mistakes")
    items = page.locator("#review-mistakes button")
    assert items.count() == len(review["mistakes"])
    text = items.first.text_content() or ""
    assert f"Turn {review['mistakes'][0]['turn']}, a " in text and " instead of " in text
    assert ": it cost about " in text and " game" in text  # (its size in words)
    assert "judged on what its player knew" in (page.text_content("#review-judged") or "")
    items.first.click()
    assert _step(page) == review["mistakes"][0]["index"] + 1
    context.close()
