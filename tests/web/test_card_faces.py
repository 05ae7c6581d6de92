"""A 6 is underlined, as on real cards, so that its upside-down corner does not read as a 9: in
the hand, in a tower and on the rules page; no other number is."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from .fixtures import get, phone, post, shot

pytestmark = pytest.mark.browser

#: Each card face in `selector`: its number, its underlines, and for each of its three digits
#: whether an underline lies just under it (within 5 units below its baseline, across its
#: width) in the digit's own orientation (the corner turned upside down is turned with its
#: underline).
UNDERLINES = """(selector) => [...document.querySelectorAll(selector)].map((svg) => {
  const texts = [...svg.querySelectorAll('text')].filter((t) => !t.classList.contains('stands'));
  const lines = [...svg.querySelectorAll('.underline')];
  const under = texts.map((text) => {
    const t = text.getBBox(), base = Number(text.getAttribute('y'));
    return lines.some((line) => {
      const l = line.getBBox();
      return line.parentNode === text.parentNode && l.y > base && l.y < base + 5
        && l.x < t.x + t.width && t.x < l.x + l.width && l.width >= t.width / 2;
    });
  });
  return { number: texts[0].textContent, lines: lines.length, under };
})"""


def _faces(page: Page, selector: str) -> list[dict[str, Any]]:
    faces: list[dict[str, Any]] = page.evaluate(UNDERLINES, selector)
    assert faces, selector
    return faces


def _check(faces: list[dict[str, Any]]) -> None:
    for face in faces:
        if face["number"] == "6":
            assert face["lines"] == 3 and all(face["under"]), face
        else:
            assert face["lines"] == 0, face


def test_a_six_is_underlined_in_the_hand_in_a_tower_and_on_the_rules_page(
    browser: Browser, server_url: str
) -> None:
    # Seed 34 deals Ada, first to play, 1 3 4 6 8 and a dog; she builds 3+6.
    created = post(
        server_url,
        "/api/games",
        {"seats": [{"kind": "human"}, {"kind": "bot", "level": "random"}], "seed": 34,
         "options": {"first_player": 0}, "name": "Ada"},
    )  # fmt: skip
    context = phone(browser)
    page = context.new_page()
    page.goto(created["play_url"])
    page.wait_for_selector("#status.mine")
    hand = _faces(page, "#hand .card svg.face")
    assert "6" in [f["number"] for f in hand]
    _check(hand)
    state = get(server_url, f"/api/games/{created['game_id']}/state", created["token"])
    build = {"version": state["version"], "action": {"type": "build", "cards": ["3", "6"]}}
    post(server_url, f"/api/games/{created['game_id']}/actions", build, created["token"])
    page.wait_for_selector('.seatbox[data-seat="0"] .floor')
    tower = _faces(page, ".floor svg.face")
    assert sorted(f["number"] for f in tower) == ["3", "6"]
    _check(tower)
    shot(page, "web-six-underlined-phone")
    page.goto(server_url + "/rules/en")
    page.wait_for_selector(".rules-pairs svg")
    rules = _faces(page, ".rules-card svg.face")
    assert "6" in [f["number"] for f in rules]
    _check(rules)
    context.close()
