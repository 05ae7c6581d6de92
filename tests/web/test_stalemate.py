"""A game that can never change again ends at the table (R20b): a person who only ends the turn
against a random bot reaches a stalemate, and the page says so in words, shows every hand and
offers "Play again"; the log and the replay say it too."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from gotown.bots import make_bot
from gotown.engine import Action, Game
from gotown.server.services.bots import bot_seed

from .fixtures import get, phone, post, shot, strings, version, wait_newer, watch_errors

pytestmark = pytest.mark.browser

#: Found by simulating seeds 0-2999 with the engine and the table's bot seeds (bot_seed), the
#: person ending every turn against `random`: 1305 is the first to stalemate, after 11 actions
#: (the bot plays two thieves, then both hold 8 cards that can do nothing, R7b, R21).
SEED = 1305


def test_the_deal_stalemates_when_the_person_only_ends_the_turn() -> None:
    """The seed's game as the server plays it: the person (seat 0) ends every turn, the bot is
    `random` with the table's seed for seat 1."""
    game = Game.new(players=2, seed=SEED, options={"first_player": 0})
    bot = make_bot("random", bot_seed(SEED, 1))
    while not game.is_over:
        if game.active == 0:
            game.apply(Action.end_turn())
        else:
            game.apply(bot.choose(game.view(1), game.legal_actions()))
    outcome = game.outcome()
    assert outcome is not None and outcome.winner is None and outcome.reason.value == "stalemate"
    assert game.version <= 12


def test_a_stalemate_ends_at_the_table_with_its_reason_every_hand_and_play_again(
    browser: Browser, server_url: str
) -> None:
    fr = strings("fr")
    created = post(
        server_url,
        "/api/games",
        {"seats": [{"kind": "human"}, {"kind": "bot", "level": "random"}], "seed": SEED,
         "name": "Ada", "options": {"first_player": 0}},
    )  # fmt: skip
    game_id = created["game_id"]
    context = phone(browser)
    context.add_init_script("localStorage.setItem('gotown.lang', 'fr')")
    page = context.new_page()
    errors = watch_errors(page)
    page.goto(created["play_url"])
    for _ in range(20):  # the person ends every turn, as the seed was found
        page.wait_for_selector("#status.mine, #winner")
        if page.locator("#winner").count():
            break
        before = version(page)
        page.locator("#end-turn").tap()
        wait_newer(page, before)
    page.wait_for_selector("#winner")
    state = get(server_url, f"/api/games/{game_id}/state")
    assert state["view"]["reason"] == "stalemate" and state["view"]["winner"] is None
    assert page.text_content("#winner") == fr["over_stalemate"]
    assert page.text_content("#status") == fr["game_over"]
    assert fr["log_end_stalemate"] in (page.text_content("#log") or "")
    # Every hand: hers in her hand, the bot's under its tower.
    hands = state["view"]["hands"]
    mine = page.locator("#hand .card")
    assert [mine.nth(i).get_attribute("data-card") for i in range(mine.count())] == hands[0]
    shown = page.locator('.seatbox[data-seat="1"] .shown-hand [data-card]')
    assert [shown.nth(i).get_attribute("data-card") for i in range(shown.count())] == hands[1]
    again = page.locator("#rematch")
    assert again.is_visible() and again.text_content() == fr["rematch"]
    shot(page, "web-stalemate-phone-fr")
    # The replay's last step says it as well.
    page.click("#replay-link")
    page.wait_for_selector("#replay-slider")
    page.click("#replay-last")
    page.wait_for_selector("#replay-stage #winner")
    assert page.text_content("#replay-stage #winner") == fr["over_stalemate"]
    assert fr["log_end_stalemate"] in (page.text_content("#replay-stage #log") or "")
    assert not errors, errors
    context.close()
