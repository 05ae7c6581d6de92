"""A player on another device: "Use on another device" makes a private link and its QR code; a
fresh browser that opens it lists the same tables and plays in them as that player (with a
key of its own, no seat token); once revoked, the link is refused and that browser has lost
its key, while the first device plays on."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Browser, Page

from .fixtures import LAPTOP, phone, strings, watch_errors
from .turn_helpers import call, key_of, wait_until

pytestmark = pytest.mark.browser

HALF_DAY = 12 * 3600


def end_turn_in_page(page: Page) -> None:
    page.wait_for_selector("#status.mine")
    before = int(page.evaluate("document.body.dataset.version"))
    page.click("#end-turn")
    page.wait_for_function(f"Number(document.body.dataset.version) > {before}")


def test_a_device_link_carries_the_player_and_a_revoked_one_is_refused(
    browser: Browser, server_url: str
) -> None:
    en = strings("en")
    laptop, bob = browser.new_context(viewport=LAPTOP), browser.new_context(viewport=LAPTOP)
    ann, bob_page = laptop.new_page(), bob.new_page()
    errors = watch_errors(ann)
    ann.goto(server_url + "/")
    ann.fill("#name", "Ann")
    ann.click(f"label[for='pace-{HALF_DAY}']")
    ann.click("#play-friends-2")
    invite = ann.text_content("#invite-url")
    assert invite
    game_id = ann.url.rsplit("/", 1)[1]
    bob_page.goto(invite)
    bob_page.fill("#join-name", "Bob")
    bob_page.click("#join-btn")
    bob_page.wait_for_selector("#status")

    # Ann's laptop makes a link for her phone: shown once, with its QR code.
    ann.goto(server_url + "/")
    ann.click("#devices > summary")
    ann.click("#make-link")
    link = ann.text_content("#device-url") or ""
    assert link.startswith(server_url + "/d/")
    ann.wait_for_selector("#device-qr")
    assert ann.get_attribute("#device-qr", "aria-label") == en["devices_qr_alt"]
    assert ann.locator("#device-links li").count() == 1

    # Her phone opens it: a key of its own, the same player, the same tables.
    phone_context = phone(browser)
    mine = phone_context.new_page()
    phone_errors = watch_errors(mine)
    mine.goto(link)
    mine.wait_for_url(server_url + "/")
    listed = mine.locator(f"#my-games-list li[data-game='{game_id}']")
    listed.wait_for()
    assert listed.locator(".my-game-with").text_content() == en["table_with"].format(names="Bob")
    kept = json.loads(mine.evaluate("localStorage.getItem('gotown.player')"))
    first = json.loads(ann.evaluate("localStorage.getItem('gotown.player')"))
    assert kept["player_id"] == first["player_id"] and kept["key"] != first["key"]
    assert mine.evaluate(f"localStorage.getItem('gotown.token.{game_id}')") is None
    # It plays in that table as Ann (Bob first, if the deal gave him the first turn).
    listed.locator("a").click()
    mine.wait_for_selector("#status")
    if "mine" not in (mine.get_attribute("#status", "class") or ""):
        bob_page.goto(f"{server_url}/g/{game_id}")
        end_turn_in_page(bob_page)
    end_turn_in_page(mine)
    assert call(server_url, "GET", f"/api/games/{game_id}/state", key=key_of(ann))[1]["seat"] == 0
    _, st = call(server_url, "GET", f"/api/games/{game_id}/state")
    assert st["view"]["active"] == 1  # (Bob's turn now: Ann's phone ended hers)
    # The invitation, opened on her phone, leads to her seat (not to a second one).
    mine.goto(invite)
    mine.wait_for_url(f"{server_url}/g/{game_id}")
    mine.wait_for_selector("#status")
    mine.goto(server_url + "/")

    # Ann revokes the link on her laptop: the phone loses its key, the link is refused.
    ann.reload()
    ann.click("#devices > summary")
    item = ann.locator("#device-links li").first
    assert en["devices_count"].format(n=1) in (item.text_content() or "")
    item.locator("button.revoke").click()
    ann.wait_for_selector("#device-links li.revoked")
    mine.reload()
    wait_until(
        lambda: mine.evaluate("localStorage.getItem('gotown.player')") is None,
        "the phone's revoked key forgotten",
    )
    assert mine.locator("#my-games-list li").count() == 0
    mine.goto(f"{server_url}/g/{game_id}")
    mine.wait_for_selector("#no-seat a[href^='/w/']")  # (no seat here any more: watch it)
    fresh = browser.new_context(viewport=LAPTOP)
    again = fresh.new_page()
    again.goto(link)
    again.wait_for_selector("#device-refused-why")
    assert again.text_content("#device-refused-why") == en["err_revoked-link"]
    assert again.evaluate("localStorage.getItem('gotown.player')") is None
    # The laptop plays on with its own key.
    status, games = call(server_url, "GET", "/api/me/games", key=key_of(ann))
    assert status == 200 and [g["game_id"] for g in games["games"]] == [game_id]
    assert errors == [] and phone_errors == []
    for context in (laptop, bob, phone_context, fresh):
        context.close()
