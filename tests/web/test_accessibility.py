"""axe-core (through axe-playwright-python) finds no serious or critical violation on the
home, table, replay, rules and lesson pages, in the light and the dark theme; every card and floor
has an accessible name."""

from __future__ import annotations

import time
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Page

from .fixtures import get, phone, post, shot, version, wait_newer

pytestmark = pytest.mark.browser


def _serious(page: Page) -> list[dict[str, Any]]:
    results = Axe().run(page)
    violations: list[dict[str, Any]] = results.response["violations"]
    return [
        {"id": v["id"], "impact": v["impact"], "nodes": [n["target"] for n in v["nodes"][:3]]}
        for v in violations
        if v["impact"] in ("serious", "critical")
    ]


def _table(browser: Browser, server_url: str, scheme: str) -> tuple[Any, Page]:
    """A phone at a table where a floor stands and a card is selected (its target glows)."""
    created = post(
        server_url,
        "/api/games",
        {"seats": [{"kind": "human"}, {"kind": "human"}], "seed": 34,
         "options": {"first_player": 0}, "name": "Ada"},
    )  # fmt: skip
    code = created["invite_url"].rsplit("/", 1)[1]
    post(
        server_url, f"/api/games/{created['game_id']}/join", {"code": code, "name": "Bo", "seat": 1}
    )
    context = phone(browser, color_scheme=scheme)
    page = context.new_page()
    page.goto(created["play_url"])
    page.wait_for_selector("#status.mine")
    page.locator('#hand .card[data-card="3"]').tap()
    before = version(page)
    page.locator(".glow").tap()
    wait_newer(page, before)
    page.locator('#hand .card[data-card="dog"]').tap()
    page.wait_for_selector(".glow")
    return context, page


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_violation_on_any_page(browser: Browser, server_url: str, scheme: str) -> None:
    context, page = _table(browser, server_url, scheme)
    found = {"table": _serious(page)}
    page.click("#log-drawer > summary")
    page.click("#seat-link > summary")
    page.wait_for_selector("#seat-qr")
    found["table, drawer open"] = _serious(page)
    shot(page, f"web-06-table-axe-{scheme}")
    # Every card and floor has a name.
    unnamed = page.evaluate(
        """() => [...document.querySelectorAll('#hand .card, .floor')].filter((el) =>
          !(el.getAttribute('aria-label') || el.querySelector('.sr-only')?.textContent)).length"""
    )
    assert unnamed == 0
    assert page.locator("#hand .card").count() >= 4 and page.locator(".floor").count() == 1
    bots = post(
        server_url,
        "/api/games",
        {"seats": [{"kind": "bot", "level": "random"}] * 2, "options": {"win_floors": 4}},
    )
    deadline = time.monotonic() + 180  # (a busy machine: bots take their time)
    while get(server_url, f"/api/games/{bots['game_id']}/state")["status"] != "over":
        assert time.monotonic() < deadline, "the bots' game did not end"
        time.sleep(0.1)
    page.goto(f"{server_url}/r/{bots['game_id']}")
    page.wait_for_selector("#replay-stage #status")
    page.click("#replay-last")
    page.wait_for_selector("#replay-stage #winner")
    # With the review under the table: the graph, its lists and its figures open.
    page.wait_for_selector("#review-graph")
    page.click("#review .review-figures > summary")
    found["replay"] = _serious(page)
    page.goto(server_url + "/")
    page.wait_for_selector("#create-title")
    found["home"] = _serious(page)
    page.click("#custom-game > summary")
    page.click("#more-options > summary")
    found["home, form open"] = _serious(page)
    for lang in ("en", "pl"):
        page.goto(f"{server_url}/rules/{lang}")
        found[f"rules {lang}"] = _serious(page)
    # The lesson page: a step with its card chosen (the marked target glows), then a gentle
    # answer to another move, then the end of the guided game.
    page.goto(f"{server_url}/learn/dog")
    page.wait_for_selector("#lesson-say")
    page.locator('#hand .card[data-card="dog"]').tap()
    page.wait_for_selector(".glow.lesson-pick")
    found["lesson"] = _serious(page)
    page.locator('#towers .mine .floor.glow[data-floor="0"]').tap()
    page.wait_for_selector("#lesson-feedback.gentle")
    found["lesson, another move"] = _serious(page)
    page.goto(f"{server_url}/learn/joker")
    page.wait_for_selector("#lesson-say")
    page.locator('#hand .card[data-card="?"]').tap()
    page.locator("#towers .lesson-pick").tap()
    page.wait_for_selector("#lesson-next")
    found["lesson, done"] = _serious(page)
    shot(page, f"web-06-lesson-axe-{scheme}")
    assert not any(found.values()), found
    context.close()


def _rules(page: Page, *rules: str) -> list[dict[str, Any]]:
    """The violations of these axe rules only, whatever their impact."""
    options = {"runOnly": {"type": "rule", "values": list(rules)}, "resultTypes": ["violations"]}
    violations: list[dict[str, Any]] = Axe().run(page, options=options).response["violations"]
    return [{"id": v["id"], "nodes": [n["target"] for n in v["nodes"][:3]]} for v in violations]


SIZES = """(selector) => [...document.querySelectorAll(selector)].map((el) => {
  const r = el.getBoundingClientRect();
  const what = el.id || el.textContent;
  return { what, width: r.width, height: r.height, top: Math.round(r.top) };
})"""


def _small(page: Page, selector: str) -> list[dict[str, Any]]:
    """The tap targets of `selector` smaller than 24 x 24 px (WCAG 2.2 AA)."""
    sizes: list[dict[str, Any]] = page.evaluate(SIZES, selector)
    assert sizes, selector
    return [s for s in sizes if s["width"] < 24 or s["height"] < 24]


def test_the_table_and_its_end_have_a_main_heading_and_targets_of_24_px(
    browser: Browser, server_url: str
) -> None:
    """axe's page-has-heading-one on the table and the end of a game, its target-size there and
    on the rules pages; and the settings' checkboxes and the rules page's language links (all
    on one line on a phone) measure at least 24 px each way."""
    context, page = _table(browser, server_url, "light")
    found = {"table": _rules(page, "page-has-heading-one", "target-size")}
    page.click("#log-drawer > summary")
    assert _small(page, "#settings input, #chances-toggle") == []
    found["table, drawer open"] = _rules(page, "target-size")
    # The end of a game (turn_limit 1: over when Ada ends her first turn, R23).
    created = post(
        server_url,
        "/api/games",
        {"seats": [{"kind": "human"}, {"kind": "human"}], "seed": 34, "name": "Ada",
         "options": {"first_player": 0, "turn_limit": 1}},
    )  # fmt: skip
    code = created["invite_url"].rsplit("/", 1)[1]
    post(
        server_url, f"/api/games/{created['game_id']}/join", {"code": code, "name": "Bo", "seat": 1}
    )
    state = get(server_url, f"/api/games/{created['game_id']}/state", created["token"])
    end = {"version": state["version"], "action": {"type": "end-turn"}}
    post(server_url, f"/api/games/{created['game_id']}/actions", end, created["token"])
    page.goto(created["play_url"])
    page.wait_for_selector("#winner")
    found["end"] = _rules(page, "page-has-heading-one", "target-size")
    page.goto(server_url + "/")
    page.wait_for_selector("#create-title")
    page.click("#custom-game > summary")
    assert _small(page, "#opt-short") == []
    for lang in ("en", "pl"):
        page.goto(f"{server_url}/rules/{lang}")
        links = page.evaluate(SIZES, ".topnav a[lang]")
        assert len(links) == 8 and len({link["top"] for link in links}) == 1, links
        assert _small(page, ".topnav a[lang]") == [], lang
        found[f"rules {lang}"] = _rules(page, "target-size")
    shot(page, "web-rules-languages-phone-pl")
    assert not any(found.values()), found
    context.close()
