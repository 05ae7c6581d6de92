"""A long game in the browser: the table draws the log's recent lines only (older ones when
asked), so that its elements do not grow with the game, and appends each update's lines."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page

from .fixtures import LAPTOP, get, post, version, wait_newer, watch_errors

pytestmark = pytest.mark.browser

#: Lines the log draws at first (eventlog.js SHOWN), and after each "show earlier".
SHOWN = 150


class Table:
    """A game of two people who only end their turns (seed 1, seat 0 first: both hands fill
    up with cards they could play, so it is no stalemate, R20b), ended over HTTP as the page
    sends its moves: each answer holds only the events after those already held."""

    def __init__(self, server_url: str) -> None:
        self.url = server_url
        created = post(
            server_url,
            "/api/games",
            {
                "seats": [{"kind": "human"}, {"kind": "human"}],
                "seed": 1,
                "options": {"first_player": 0},
                "name": "Ann",
            },
        )
        self.id = created["game_id"]
        self.play_url = created["play_url"]
        code = created["invite_url"].rsplit("/", 1)[1]
        joined = post(server_url, f"/api/games/{self.id}/join", {"code": code, "name": "Bob"})
        self.tokens = {0: created["token"], 1: joined["token"]}
        state = get(server_url, f"/api/games/{self.id}/state")
        self.version, self.events = state["version"], len(state["view"]["events"])
        self.active = state["view"]["active"]

    def end_turns(self, count: int) -> None:
        for _ in range(count):
            body = {"version": self.version, "action": {"type": "end-turn"}}
            answer = post(
                self.url,
                f"/api/games/{self.id}/actions",
                {**body, "events_from": self.events},
                self.tokens[self.active],
            )
            assert answer["status"] == "playing"
            self.version = answer["version"]
            self.events = answer["events_from"] + len(answer["view"]["events"])
            self.active = answer["view"]["active"]

    def lines(self, page: Page) -> list[str]:
        """Every line of the log, as the page words them, from Ann's whole view."""
        events = get(self.url, f"/api/games/{self.id}/state", self.tokens[0])["view"]["events"]
        texts: list[str] = page.evaluate(
            "(events) => gotown.eventLines(events, gotown.table().state).map((l) => l.text)",
            events,
        )
        return texts


def _drawn(page: Page) -> list[str]:
    texts: list[str] = page.locator("#log li:not(.earlier)").all_text_contents()
    return texts


def _elements(page: Page) -> int:
    count: int = page.evaluate("document.getElementsByTagName('*').length")
    return count


def _open(browser: Browser, table: Table) -> tuple[Page, list[str]]:
    page = browser.new_context(viewport=LAPTOP).new_page()
    errors = watch_errors(page)
    page.goto(table.play_url)
    page.wait_for_function(f"Number(document.body.dataset.version || -1) === {table.version}")
    page.wait_for_selector("#log li")
    return page, errors


def test_a_long_game_s_table_draws_a_bounded_log_and_earlier_lines_on_demand(
    browser: Browser, server_url: str
) -> None:
    short = Table(server_url)
    short.end_turns(10)
    page, errors = _open(browser, short)
    assert _drawn(page) == short.lines(page)  # a short game's log: every line
    assert page.locator("#log-earlier").count() == 0
    elements_short = _elements(page)
    page.context.close()

    long = Table(server_url)
    long.end_turns(1500)  # some 3,000 lines
    page, errors = _open(browser, long)
    lines = long.lines(page)
    assert len(lines) > 2900
    # Opening it draws its last lines only: as many elements as a short game's and the lines.
    assert _drawn(page) == lines[-SHOWN:]
    assert _elements(page) <= elements_short + SHOWN + 20
    # Moves append their lines to the list drawn, its elements kept; while the reader is at
    # the end, the oldest go, so the page stays as small 100 turns later.
    page.evaluate("window.kept = document.querySelector('#log li:last-child')")
    for turns in (5, 95):
        for _ in range(turns):
            now = version(page)
            long.end_turns(1)
            wait_newer(page, now)
        if turns == 5:
            assert page.evaluate("window.kept.parentNode === document.querySelector('#log')")
    assert page.evaluate("gotown.table().heldEvents()") == long.events
    lines = long.lines(page)
    drawn = _drawn(page)
    assert SHOWN <= len(drawn) <= SHOWN + 50 and drawn == lines[-len(drawn) :]
    assert _elements(page) <= elements_short + SHOWN + 70
    # "Show earlier lines" draws the older ones above, 150 at a time, and they stay.
    before = len(drawn)
    page.click("#log-earlier")
    assert _drawn(page) == lines[-(before + SHOWN) :]
    page.click("#log-earlier")
    drawn = _drawn(page)
    assert drawn == lines[-(before + 2 * SHOWN) :]
    now = version(page)
    long.end_turns(1)
    wait_newer(page, now)
    now_drawn = _drawn(page)
    assert now_drawn[: len(drawn)] == drawn and now_drawn == long.lines(page)[-len(now_drawn) :]
    assert not errors, errors
    page.context.close()
