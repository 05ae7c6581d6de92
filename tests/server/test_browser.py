"""End to end in a real headless Chromium (Debian's), driven by Playwright.

Two browser contexts (a laptop and a phone) create and join a game with a bot, play it to the
end through the page, one reloads mid-game and goes on, and the replay steps through the game.
Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from playwright.sync_api import Browser, Page, sync_playwright

from gotown.server.app import create_app
from gotown.server.settings import Settings

from .conftest import ARTIFACTS

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
LAPTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db = tmp_path_factory.mktemp("browser") / "gotown.sqlite3"
    settings = Settings(database_url=f"sqlite:///{db}", bot_delay=0.05, rate_limit_per_minute=0)
    port = _free_port()
    config = uvicorn.Config(create_app(settings), host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(1000):
        if server.started:
            break
        time.sleep(0.01)
    assert server.started, "the server did not start"
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=30)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium", pytrace=False)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


def _shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def _watch_errors(page: Page, errors: list[str]) -> None:
    page.on("pageerror", lambda e: errors.append(str(e)))


def _version(page: Page) -> int:
    return int(page.evaluate("document.body.dataset.version || '-1'"))


def _wait_newer(page: Page, version: int) -> None:
    page.wait_for_function(
        f"Number(document.body.dataset.version || -1) > {version} "
        "|| document.querySelector('#winner') !== null"
    )


def _play_one(page: Page) -> None:
    """Make one move through the page: a build or steal when a card offers one, else end."""
    before = _version(page)
    cards = page.locator('#hand .card[aria-disabled="false"]')
    for i in range(cards.count()):
        card = page.locator('#hand .card[aria-disabled="false"]').nth(i)
        card.click()
        build = page.locator(
            '#actions button[data-type="build"], #actions button[data-type="steal"]'
        )
        if build.count():
            build.first.click()
            _wait_newer(page, before)
            return
        other = page.locator("#actions button.act:not(#end-turn)")
        if other.count() and i % 2 == 0:
            other.first.click()
            _wait_newer(page, before)
            return
        page.locator('#hand .card[aria-pressed="true"]').first.click()
    page.click("#end-turn")
    _wait_newer(page, before)


def _public_state(server_url: str, game_id: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{server_url}/api/games/{game_id}/state") as response:
        data: dict[str, Any] = json.load(response)
        return data


def _no_sideways_scroll(page: Page) -> None:
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"the page is {overflow}px wider than the screen"


def test_two_browsers_and_a_bot_play_a_game_to_the_end(browser: Browser, server_url: str) -> None:
    errors: list[str] = []
    laptop = browser.new_context(viewport=LAPTOP)
    phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    anna, bob = laptop.new_page(), phone.new_page()
    _watch_errors(anna, errors)
    _watch_errors(bob, errors)

    # Anna creates a 3-seat short game: herself, a friend, a random bot.
    anna.goto(server_url + "/")
    anna.fill("#name", "Anna")
    anna.select_option("#players", "3")
    anna.select_option("#seat-kind-1", "human")
    anna.select_option("#seat-kind-2", "bot")
    anna.select_option("#seat-level-2", "random")
    anna.check("#opt-short")
    _shot(anna, "01-home-laptop")
    anna.click("#create-btn")
    anna.wait_for_selector("#invite-url")
    anna.wait_for_function(
        "(() => { const q = document.querySelector('#qr'); "
        "return q && q.complete && q.naturalWidth > 0; })()"
    )
    invite = anna.text_content("#invite-url") or ""
    assert "/j/" in invite
    _shot(anna, "02-lobby-laptop")

    # Bob opens the invitation on his phone, types a name and takes the free seat.
    bob.goto(invite)
    bob.fill("#join-name", "Bob")
    bob.click("#join-btn")
    bob.wait_for_selector("#status")
    anna.wait_for_selector("#status")
    _no_sideways_scroll(bob)
    _shot(bob, "03-table-phone")
    _shot(anna, "04-table-laptop")
    assert anna.locator(".seatbox").count() == 3

    # Keyboard: a playable card can be selected with the keyboard on one's turn.
    game_id = anna.url.rsplit("/", 1)[1]
    pages = {0: anna, 1: bob}  # seat 2 is the bot
    reloaded = False
    keyboard_checked = False
    moves = 0
    for _ in range(2000):
        public = _public_state(server_url, game_id)
        if public["status"] == "over":
            break
        active, version = public["view"]["active"], public["version"]
        if active not in pages:  # the bot's turn: it moves on the server
            time.sleep(0.02)
            continue
        mover = pages[active]
        mover.wait_for_function(
            f"Number(document.body.dataset.version || -1) >= {version} "
            "&& document.querySelector('#status.mine') !== null"
        )
        playable = mover.locator('#hand .card[aria-disabled="false"]')
        if not keyboard_checked and playable.count():
            keyboard_checked = True
            card = playable.first
            card.focus()
            mover.keyboard.press("Enter")
            assert mover.locator('#hand .card[aria-pressed="true"]').count() == 1
            _shot(mover, "05-selected-card")
            mover.keyboard.press("Enter")
        _play_one(mover)
        moves += 1
        if moves == 6 and not reloaded:
            # Bob closes the tab's page and comes back with the same link on the same device.
            bob.reload()
            bob.wait_for_selector("#status")
            assert bob.locator("#hand .card").count() >= 1 or bob.locator("#hand").count()
            assert "Bob" in (bob.text_content("#towers") or "")
            reloaded = True
            _shot(bob, "06-phone-after-reload")
    assert reloaded and keyboard_checked
    anna.wait_for_selector("#winner")
    bob.wait_for_selector("#winner")
    _shot(anna, "07-end-laptop")
    _shot(bob, "08-end-phone")
    _no_sideways_scroll(bob)
    assert anna.locator("#rematch").count() == 1
    log = anna.text_content("#log") or ""
    assert "Turn 1" in log
    anna.click("#discard summary")
    anna.wait_for_selector("#discard[open] .row")

    # Bob reads the table in French: the log speaks French.
    bob.select_option("#lang", "fr")
    bob.wait_for_function("document.documentElement.lang === 'fr'")
    bob.wait_for_function("document.querySelector('#log').textContent.includes('Tour 1')")

    # The replay steps through every action.
    replay_url = anna.url.replace("/g/", "/r/")
    anna.goto(replay_url)
    anna.wait_for_selector("#replay-slider")
    first = anna.text_content("#replay-step")
    anna.click("#replay-next")
    assert anna.text_content("#replay-step") != first
    anna.click("#replay-last")
    anna.wait_for_selector("#replay-stage #winner")
    _shot(anna, "09-replay")

    # Rematch: Anna starts it, Bob joins it from his finished table; both land at a new table.
    game_url = replay_url.replace("/r/", "/g/")
    anna.goto(game_url)
    anna.click("#rematch")
    anna.wait_for_url(lambda url: url != game_url)
    anna.wait_for_selector("#status, #invite-url")
    bob.wait_for_function("document.querySelector('#rematch') !== null")
    bob.click("#rematch")
    bob.wait_for_url(lambda url: url != game_url)
    bob.wait_for_selector("#status")
    anna.wait_for_selector("#status")
    assert anna.url == bob.url
    _shot(bob, "10-rematch-phone-fr")
    assert not errors, errors
    laptop.close()
    phone.close()


def test_hint_on_the_player_s_turn(browser: Browser, server_url: str) -> None:
    context = browser.new_context(viewport=LAPTOP)
    page = context.new_page()
    page.goto(server_url + "/")
    page.fill("#name", "Cleo")
    page.select_option("#players", "2")
    page.select_option("#seat-kind-1", "bot")
    page.click("#create-btn")
    page.wait_for_selector("#status.mine")
    page.click("#hint")
    page.wait_for_selector("#hint-text")
    assert page.locator("#actions button.suggested").count() == 1
    assert page.locator('.bar[role="meter"]').count() == 1
    _shot(page, "12-hint")
    context.close()


def test_first_player_turn_limit_and_the_chances_bar(browser: Browser, server_url: str) -> None:
    """The R23 options `first_player` and `turn_limit` on the home page; the chances toggle."""
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    errors: list[str] = []
    _watch_errors(page, errors)
    page.goto(server_url + "/")
    page.fill("#name", "Dora")
    page.select_option("#players", "2")
    page.select_option("#seat-kind-1", "bot")
    page.select_option("#seat-level-1", "random")
    # The first player list follows the number of players: random, seat 1, seat 2.
    assert page.locator("#opt-first_player option").count() == 3
    for key in ("first_player", "turn_limit"):
        assert (page.text_content(f"#opt-{key}-help") or "").strip()
        assert page.locator(f'label[for="opt-{key}"]').count() == 1
    page.select_option("#opt-first_player", "0")
    page.fill("#opt-turn_limit", "40")
    page.click("#create-btn")
    page.wait_for_selector("#status.mine")
    game_id = page.url.rsplit("/", 1)[1]
    options = _public_state(server_url, game_id)["lobby"]["options"]
    assert options["first_player"] == 0 and options["turn_limit"] == 40
    # The chances bar is off until switched on; then it shows, and stays on after a reload.
    assert page.locator("#chances").count() == 0
    page.check("#chances-toggle")
    page.wait_for_selector('#chances .bar[role="meter"]')
    page.reload()
    page.wait_for_selector("#status.mine")
    assert page.is_checked("#chances-toggle")
    page.wait_for_selector('#chances .bar[role="meter"]')
    _shot(page, "15-chances-phone")
    page.uncheck("#chances-toggle")
    page.wait_for_function("document.querySelector('#chances') === null")
    assert not errors, errors
    context.close()


def test_the_page_speaks_each_language(browser: Browser, server_url: str) -> None:
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(server_url + "/")
    page.wait_for_selector("#create-title")
    expected = {"fr": "Nouvelle partie", "pl": "Nowa gra", "cs": "Nová hra", "de": "Neues Spiel"}
    for lang, title in expected.items():
        page.select_option("#lang", lang)
        page.wait_for_function(
            f"document.documentElement.lang === '{lang}' && "
            f"document.querySelector('#create-title')?.textContent === '{title}'"
        )
    _no_sideways_scroll(page)  # German has the longest option labels
    _shot(page, "13-home-phone-de")
    page.goto(server_url + "/rules/nl")
    assert "GoTown" in (page.text_content("h1") or "")
    _no_sideways_scroll(page)
    context.close()


def test_a_spectator_sees_no_hand(browser: Browser, server_url: str) -> None:
    body = json.dumps(
        {"seats": [{"kind": "bot", "level": "random"}] * 2, "options": {"win_floors": 4}}
    ).encode()
    request = urllib.request.Request(
        server_url + "/api/games", data=body, headers={"content-type": "application/json"}
    )
    with urllib.request.urlopen(request) as response:
        created = json.load(response)
    context = browser.new_context(viewport=LAPTOP)
    page = context.new_page()
    page.goto(created["watch_url"])
    page.wait_for_selector("#status")
    assert page.locator("#hand").count() == 0
    page.wait_for_selector("#winner")
    _shot(page, "11-spectator-end")
    context.close()


def test_an_invitation_opens_in_the_game_s_language(browser: Browser, server_url: str) -> None:
    body = json.dumps(
        {"seats": [{"kind": "human"}, {"kind": "human"}], "name": "Ola", "language": "pl"}
    ).encode()
    request = urllib.request.Request(
        server_url + "/api/games", data=body, headers={"content-type": "application/json"}
    )
    with urllib.request.urlopen(request) as response:
        created = json.load(response)
    context = browser.new_context(viewport=PHONE, locale="en-GB")
    page = context.new_page()
    page.goto(created["invite_url"])
    page.wait_for_selector("#join-btn")
    assert page.text_content("#join-form h1") == "Dołącz do gry"
    page.fill("#join-name", "Jan")
    page.click("#join-btn")
    page.wait_for_selector("#status")
    assert page.text_content("#hand-panel h2") == "Twoja ręka"
    _shot(page, "14-join-in-polish")
    context.close()
