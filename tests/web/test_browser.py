"""End to end in a real headless Chromium (Debian's), driven by Playwright.

Two browser contexts (a laptop and a phone) create and join a game with a bot, play it to the
end through the page, one reloads mid-game and goes on, and the replay steps through the game.
Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import json
import re
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from live_server import serving
from playwright.sync_api import Browser, Page

from gotown.server.config import Settings

from .fixtures import ARTIFACTS, LAPTOP, PHONE, strings

pytestmark = pytest.mark.browser

ABSENT_SECONDS = 6.0
LANGUAGES = ("en", "fr", "es", "it", "de", "nl", "cs", "pl")
_strings = strings


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db = tmp_path_factory.mktemp("browser") / "gotown.sqlite3"
    # absent_seconds: a seat that stays away may be handed to a bot after a short countdown.
    settings = Settings(
        database_url=f"sqlite:///{db}",
        bot_delay=0.05,
        rate_limit_per_minute=0,
        absent_seconds=ABSENT_SECONDS,
        max_bots_only_tables=1000,
        max_bots_only_tables_per_client=1000,
        allow_seed=True,  # a test deals a known hand
    )
    with serving(settings) as url:
        yield url


def _shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def _watch_errors(page: Page, errors: list[str]) -> None:
    """Script errors, and what the Content-Security-Policy refused (said on the console)."""
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on(
        "console",
        lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None,
    )


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


def _seat_state(server_url: str, game_id: str, token: str) -> dict[str, Any]:
    request = urllib.request.Request(
        f"{server_url}/api/games/{game_id}/state", headers={"X-Seat-Token": token}
    )
    with urllib.request.urlopen(request) as response:
        data: dict[str, Any] = json.load(response)
        return data


def _check_log(page: Page, server_url: str, game_id: str) -> list[dict[str, Any]]:
    """The page holds its seat's every event (pushes bring only the new ones) and logs each."""
    token = page.evaluate(f"localStorage.getItem('gotown.token.{game_id}')")
    events: list[dict[str, Any]] = _seat_state(server_url, game_id, token)["view"]["events"]
    assert page.evaluate("gotown.table().state.view.events") == events
    lines = page.evaluate(
        "(events) => gotown.eventLines(events, gotown.table().state).map((l) => l.text)", events
    )
    assert page.locator("#log li").all_text_contents() == lines
    return events


def _no_sideways_scroll(page: Page) -> None:
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"the page is {overflow}px wider than the screen"


def _phone_home(browser: Browser, server_url: str) -> tuple[Any, Page, list[str]]:
    """A phone's browser context on the home page, and the list its page errors go to."""
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    errors: list[str] = []
    _watch_errors(page, errors)
    page.goto(server_url + "/")
    return context, page, errors


def _custom_form(page: Page) -> None:
    """Unfold the home page's full form (under "Play now" and "Play with friends")."""
    page.wait_for_selector("#custom-game")
    if page.get_attribute("#custom-game", "open") is None:
        page.click("#custom-game > summary")


def _fill_create_form(page: Page, name: str, *seats: str) -> None:
    """Fill the home page's form: the creator's name, then one entry per other seat, in order:
    ``"human"``, ``"bot"`` (the default level) or ``"bot:LEVEL"``."""
    page.fill("#name", name)
    _custom_form(page)
    page.select_option("#players", str(len(seats) + 1))
    for seat, entry in enumerate(seats, start=1):
        kind, _, level = entry.partition(":")
        page.select_option(f"#seat-kind-{seat}", kind)
        if level:
            page.select_option(f"#seat-level-{seat}", level)


def _open_drawer(page: Page) -> None:
    """Open the table's drawer (the log, the game's options, the settings): folded on a
    phone."""
    if page.get_attribute("#log-drawer", "open") is None:
        page.click("#log-drawer > summary")


def _more_options(page: Page) -> None:
    """Unfold the home form's rule options (all but the short game are folded)."""
    if page.get_attribute("#more-options", "open") is None:
        page.click("#more-options > summary")


def _create_in_page(
    page: Page,
    name: str,
    *seats: str,
    first_player: str | None = None,
    turn_limit: str | None = None,
) -> None:
    """Create a game through the home page's form (see :func:`_fill_create_form`), with the
    R23 options ``first_player`` and ``turn_limit`` when given."""
    _fill_create_form(page, name, *seats)
    if first_player is not None or turn_limit is not None:
        _more_options(page)
    if first_player is not None:
        page.select_option("#opt-first_player", first_player)
    if turn_limit is not None:
        page.fill("#opt-turn_limit", turn_limit)
    page.click("#create-btn")


def test_two_browsers_and_a_bot_play_a_game_to_the_end(browser: Browser, server_url: str) -> None:
    errors: list[str] = []
    laptop = browser.new_context(viewport=LAPTOP)
    phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    anna, bob = laptop.new_page(), phone.new_page()
    _watch_errors(anna, errors)
    _watch_errors(bob, errors)

    # Anna creates a 3-seat short game: herself, a friend, a random bot.
    anna.goto(server_url + "/")
    _fill_create_form(anna, "Anna", "human", "bot:random")
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
    # Each push brought only its new events: the pages joined them into the whole game's log
    # (Bob's since he reloaded the page).
    events = _check_log(anna, server_url, game_id)
    _check_log(bob, server_url, game_id)
    assert len(events) > moves
    # A state that starts after the events the page holds (a gap) makes it ask for them all.
    anna.evaluate(
        """(events) => {
          const table = gotown.table();
          table.state.view.events = events.slice(0, 3);
          const view = { ...table.state.view, events: events.slice(10) };
          table.update({ ...table.state, events_from: 10, view });
        }""",
        events,
    )
    anna.wait_for_function(f"gotown.table().state.view.events.length === {len(events)}")
    _check_log(anna, server_url, game_id)
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
    # A past turn is nobody's to play: never "Your turn" in a replay, Anna's turns included.
    en = _strings("en")
    seen = set()
    for _ in range(12):
        status = anna.locator("#replay-stage #status")
        assert status.get_attribute("class") == "status", status.get_attribute("class")
        assert status.text_content() != en["your_turn"]
        seen.add(status.text_content())
        anna.click("#replay-next")
    assert len(seen) >= 2, seen  # both seats' turns were shown
    anna.click("#replay-first")
    assert anna.text_content("#replay-step") == first
    anna.click("#replay-next")
    assert anna.text_content("#replay-step") != first
    anna.click("#replay-last")
    anna.wait_for_selector("#replay-stage #winner")
    # The replay's last step says who won; rematch and replay belong to the table, not here.
    assert anna.locator("#replay-stage #rematch, #replay-stage #replay-link").count() == 0
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
    # Back at the finished table (an old tab), Rematch takes Anna to the seat she holds.
    rematch_url = anna.url
    anna.goto(game_url)
    anna.wait_for_selector("#rematch")
    anna.click("#rematch")
    anna.wait_for_url(rematch_url)
    anna.wait_for_selector("#status")
    assert not errors, errors
    laptop.close()
    phone.close()


def test_hint_on_the_player_s_turn(browser: Browser, server_url: str) -> None:
    context = browser.new_context(viewport=LAPTOP)
    page = context.new_page()
    page.goto(server_url + "/")
    _create_in_page(page, "Cleo", "bot")
    page.wait_for_selector("#status.mine")
    page.click("#hint")
    page.wait_for_selector("#hint-text")
    assert page.locator("#actions button.suggested").count() == 1
    assert page.locator('.bar[role="meter"]').count() == 1
    # The hint's bar is the suggested move's chances, said apart from the chances panel's.
    en = _strings("en")
    said = page.text_content("#hint-chance") or ""
    assert said.startswith(en["hint_chance"].split("{p}")[0]), said
    assert en["win_chance"].split("{p}")[0] not in said
    # The filled (main) button: the suggested move when the selected cards make it, else
    # their first move, or ending the turn when nothing else can be done; never two.
    suggested = page.locator("#actions button.suggested:not(#end-turn)")
    if suggested.count():
        assert "primary" in (suggested.get_attribute("class") or "")
    for _ in range(2):
        primary = page.locator("#actions button.primary")
        assert primary.count() <= 1
        if page.locator("#actions button").count() > 1:
            assert page.locator("#end-turn.primary").count() == 0
        playable = page.locator('#hand .card[aria-disabled="false"]')
        if not playable.count():  # (an unseeded deal: a hand that can only end the turn)
            break
        playable.first.click()
    _shot(page, "12-hint")
    context.close()


def test_first_player_turn_limit_and_the_chances_bar(browser: Browser, server_url: str) -> None:
    """The R23 options `first_player` and `turn_limit` on the home page; the chances toggle."""
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    errors: list[str] = []
    _watch_errors(page, errors)
    page.goto(server_url + "/")
    _fill_create_form(page, "Dora", "bot:random")
    # The first player list follows the number of players: random, seat 1, seat 2.
    assert page.locator("#opt-first_player option").count() == 3
    for key in ("first_player", "turn_limit"):
        assert (page.text_content(f"#opt-{key}-help") or "").strip()
        assert page.locator(f'label[for="opt-{key}"]').count() == 1
    _more_options(page)
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
    # the bot levels are explained under the seats, and each level picker points to it
    assert page.get_attribute("#seat-level-1", "aria-describedby") == "levels-help"
    assert "Experte" in (page.text_content("#levels-help") or "")
    _no_sideways_scroll(page)  # German has the longest option labels
    _shot(page, "13-home-phone-de")
    page.goto(server_url + "/rules/nl")
    assert "GoTown" in (page.text_content("h1") or "")
    _no_sideways_scroll(page)
    context.close()


def test_the_first_language_the_reader_prefers_that_the_page_speaks(
    browser: Browser, server_url: str
) -> None:
    # The browser prefers Japanese (not spoken here), then Polish: Polish, not English.
    context = browser.new_context(viewport=PHONE, locale="ja-JP")
    context.add_init_script(
        "Object.defineProperty(navigator, 'languages', {get: () => ['ja-JP', 'pl-PL', 'en']})"
    )
    page = context.new_page()
    page.goto(server_url + "/")
    page.wait_for_function("document.documentElement.lang === 'pl'")
    polish = _strings("pl")
    assert page.text_content("a.skip") == polish["skip_to_content"]
    assert page.get_attribute("a.brand", "aria-label") == polish["home"]
    # Counted messages take the language's plural form: 1 karta, 3 karty, 5 kart, 22 karty.
    said = page.evaluate("[1, 3, 5, 22, 12].map((count) => gotown.t('log_reshuffle', {count}))")
    forms = ["one", "few", "many", "few", "many"]
    assert said == [
        polish[f"log_reshuffle#{form}"].replace("{count}", str(n))
        for n, form in zip([1, 3, 5, 22, 12], forms, strict=True)
    ]
    assert "(3 karty)" in said[1] and "(5 kart)" in said[2]
    page.select_option("#lang", "en")
    page.wait_for_function("document.documentElement.lang === 'en'")
    assert page.evaluate("[1, 2].map((count) => gotown.t('log_reshuffle', {count}))") == [
        "The discard pile (1 card) was shuffled into a new draw pile.",
        "The discard pile (2 cards) was shuffled into a new draw pile.",
    ]
    assert page.text_content("a.skip") == "Skip to content"
    context.close()


def test_the_home_form_keeps_what_was_chosen_when_the_language_changes(
    browser: Browser, server_url: str
) -> None:
    en = _strings("en")
    context = browser.new_context(viewport=PHONE, locale="en-GB")
    page = context.new_page()
    page.goto(server_url + "/")
    page.wait_for_selector("#create-form")
    page.fill("#name", "Zoë")
    _custom_form(page)
    page.select_option("#players", "4")
    for seat, level in ((1, "hard"), (2, "expert"), (3, "easy")):
        page.select_option(f"#seat-kind-{seat}", "bot")
        page.select_option(f"#seat-level-{seat}", level)
    page.check("#opt-short")
    assert not page.is_visible("#opt-milkshake_stacking")  # folded at first
    _more_options(page)
    page.select_option("#opt-milkshake_stacking", '"stack"')
    page.select_option("#opt-first_player", "2")
    page.fill("#opt-turn_limit", "80")

    def kept() -> None:
        assert page.input_value("#name") == "Zoë"
        assert page.input_value("#players") == "4"
        levels = [page.input_value(f"#seat-level-{seat}") for seat in (1, 2, 3)]
        assert levels == ["hard", "expert", "easy"]
        assert page.is_checked("#opt-short")
        assert page.input_value("#opt-milkshake_stacking") == '"stack"'
        assert page.input_value("#opt-first_player") == "2"
        assert page.input_value("#opt-turn_limit") == "80"

    # A wrong turn limit in the folded options: Create says so and unfolds them (the
    # browser's own check would stop at a hidden field without a word).
    page.fill("#opt-turn_limit", "0")
    page.click("#more-options > summary")  # fold
    page.click("#create-btn")
    page.wait_for_function(
        "document.querySelector('#toast').textContent === "
        + json.dumps(en["opt_turn_limit_invalid"].format(max=10000))
    )
    assert page.get_attribute("#more-options", "open") is not None
    page.fill("#opt-turn_limit", "80")
    page.select_option("#lang", "de")  # the page's language, at the top
    page.wait_for_function("document.querySelector('#create-title')?.textContent === 'Neues Spiel'")
    kept()
    # The game's language, in the form: each by its own name, said what it is for.
    assert page.eval_on_selector("#game-lang", "s => s.options[6].textContent") == "Čeština"
    assert page.text_content("#game-lang-help") == _strings("de")["game_language_help"]
    page.select_option("#game-lang", "fr")
    page.wait_for_function("document.documentElement.lang === 'fr'")
    kept()
    page.click("#create-btn")
    page.wait_for_url("**/g/*")
    game_id = page.url.rsplit("/", 1)[1]
    lobby = _public_state(server_url, game_id)["lobby"]
    assert [s.get("level") for s in lobby["seats"]] == [None, "hard", "expert", "easy"]
    assert lobby["language"] == "fr"
    assert lobby["options"]["turn_limit"] == 80 and lobby["options"]["win_floors"] == 4
    assert lobby["options"]["milkshake_stacking"] == "stack"
    assert lobby["options"]["first_player"] == 2
    context.close()


def test_a_greyed_card_says_what_it_does_and_two_numbers_their_sum(
    browser: Browser, server_url: str
) -> None:
    # Seed 34 deals seat 0, first to play: 1 3 4 6 8 dog. No tower stands yet, so the dog can
    # do nothing (R12), nor can the 4 (no 5, no joker, nothing to steal); 1+8 and 3+6 build.
    en = _strings("en")
    created = _create(
        server_url,
        {"seats": [{"kind": "human"}, {"kind": "bot", "level": "random"}], "seed": 34,
         "options": {"first_player": 0}, "name": "Ada"},
    )  # fmt: skip
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(created["play_url"])
    page.wait_for_selector("#status.mine")
    hand = page.eval_on_selector_all("#hand .card", "cards => cards.map(c => c.dataset.card)")
    assert sorted(hand) == sorted(["1", "3", "4", "6", "8", "dog"]), hand

    def toast_is(text: str) -> None:
        page.wait_for_function(
            f"document.querySelector('#toast').textContent === {json.dumps(text)}"
        )

    dog = page.locator('#hand .card[data-card="dog"]')
    assert dog.get_attribute("aria-disabled") == "true"
    dog.tap(force=True)  # (aria-disabled: Playwright would wait for it to be enabled)
    toast_is(en["card_use"].format(card=en["card_dog"], use=en["use_dog"]))
    page.locator('#hand .card[data-card="4"]').focus()
    page.keyboard.press("Enter")  # greyed cards are reached with the keyboard too
    toast_is(en["card_use"].format(card="4", use=en["use_number"].format(n=4, m=5)))
    assert page.locator('#hand .card[aria-pressed="true"]').count() == 0  # nothing selected
    # 1 and 3 are each playable, but together they make no floor: the sum says why (R5).
    page.locator('#hand .card[data-card="1"]').tap()
    page.locator('#hand .card[data-card="3"]').tap()
    expected = en["no_floor_sum"].format(a="1", b="3", sum=4)
    page.wait_for_function(
        f"document.querySelector('#select-help').textContent === {json.dumps(expected)}"
    )
    # For screen readers: the lasting live region said it is Ada's turn; a floor is one
    # sentence; and what the bot does next is read out there, though the table is redrawn.
    assert page.text_content("#announce") == en["your_turn"]
    assert page.get_attribute("#status", "aria-live") is None  # (replaced at every change)
    page.locator('#hand .card[data-card="1"]').tap()  # unselect: 3 alone
    page.locator('#hand .card[data-card="6"]').tap()
    page.click("#act-0")  # build 3+6
    floor = page.locator('.seatbox[data-seat="0"] .floor[role="listitem"]')
    floor.wait_for()
    assert floor.locator(".sr-only").text_content() == en["floor_n"].format(n=1) + ": 3 + 6"
    page.click("#end-turn")
    page.wait_for_function(
        "document.querySelector('#announce').textContent.includes('Bot 2')", timeout=15000
    )
    page.wait_for_function(
        f"document.querySelector('#announce').textContent.endsWith({json.dumps(en['your_turn'])})",
        timeout=15000,
    )
    # On the phone the log is in a drawer; what just happened stands under the status: the
    # last turns' moves, the last one last, without the draws (the player's own at the start
    # of the turn, nor the bot's refill) that used to hide the bot's move.
    own = en["log_draw_you"].split("{card}")[0]
    bot_name = "Bot 2 (" + en["level_random"] + ")"
    drawn = [en["log_draw"].format(actor=bot_name)]
    drawn += [en["log_draw_n"].format(actor=bot_name, count=n) for n in range(2, 9)]
    last = page.eval_on_selector_all(
        "#log li:not(.turn)",
        "items => items.map((i) => i.textContent)"
        f".filter((x) => !x.startsWith({json.dumps(own)}) && !{json.dumps(drawn)}.includes(x))"
        ".pop()",
    )
    assert not last.startswith(own)
    strip = page.locator("#last-move li").all_text_contents()
    assert strip and strip[-1] == last and page.is_visible("#last-move"), (strip, last)
    assert not any(x.startswith(own) or x in drawn for x in strip), strip
    assert en["log_end-turn"].format(actor=bot_name) in strip or len(strip) == 3, strip
    # A move aimed at the player is said by its notice (an alert), not twice; the end of
    # the game and an extra turn are said, other turn headers not.
    heard = page.evaluate(
        """() => { const screen = gotown.table().screen;
          screen.heard = 0; screen.heardStatus = "same";
          screen.announce([{ text: "aimed", aimed: true }, { text: "plain" },
            { cls: "turn", text: "header" }, { cls: "turn", say: true, text: "won" }], "same");
          return document.getElementById("announce").textContent; }"""
    )
    assert heard == "plain won"
    # What a greyed dog or bone says follows the R23 options.
    for options, key in (
        ({}, "use_dog"),
        ({"dog_placement": "any"}, "use_dog_any"),
        ({"dogs_per_floor": "unlimited"}, "use_dog_unlimited"),
        ({"dog_placement": "any", "dogs_per_floor": "unlimited"}, "use_dog_any_unlimited"),
    ):
        said = page.evaluate(f"gotown.useText('dog', {json.dumps(options)})")
        assert said == en["card_use"].format(card=en["card_dog"], use=en[key]), options
    said = page.evaluate("gotown.useText('bone', {bone_targets: 'any'})")
    assert said == en["card_use"].format(card=en["card_bone"], use=en["use_bone_any"])
    # Another seat's draws in a row read as one line; the viewer's own, one line a card.
    said = page.evaluate(
        """() => gotown.eventLines([
            {type: "draw", seat: 1, card: null}, {type: "draw", seat: 1, card: null},
            {type: "draw", seat: 0, card: "5"}, {type: "draw", seat: 0, card: "dog"},
            {type: "draw", seat: 1, card: null}],
          {seat: 0, lobby: gotown.table().state.lobby}).map((l) => l.text)"""
    )
    bot = "Bot 2 (" + en["level_random"] + ")"
    assert said == [
        en["log_draw_n"].format(actor=bot, count=2),
        en["log_draw_you"].format(card="5"),
        en["log_draw_you"].format(card=en["card_dog"]),
        en["log_draw"].format(actor=bot),
    ]
    context.close()


def test_a_table_link_without_a_seat_says_whether_the_game_exists(
    browser: Browser, server_url: str
) -> None:
    en = _strings("en")
    created = _create(server_url, {"seats": [{"kind": "human"}, {"kind": "human"}]})
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(f"{server_url}/g/{created['game_id']}")  # a game, but no seat in it here
    page.wait_for_function(
        f"document.querySelector('#no-seat')?.textContent.includes({json.dumps(en['no_token'])})"
    )
    assert page.get_attribute("#no-seat a", "href") == f"/w/{created['game_id']}"
    page.goto(f"{server_url}/g/no-such-game")  # no game: said at once, no watch link
    page.wait_for_function(
        f"document.querySelector('#no-seat')?.textContent.includes({json.dumps(en['err_unknown-game'])})"
    )
    assert page.get_attribute("#no-seat a", "href") == "/"
    context.close()


def test_a_spectator_sees_no_hand(browser: Browser, server_url: str) -> None:
    # A known deal that ends in 33 actions: about one unseeded deal in thirty leaves two
    # random bots in a deadlock (R7b), where a table of bots stands still, with no winner.
    body = json.dumps(
        {"seats": [{"kind": "bot", "level": "random"}] * 2, "options": {"win_floors": 4}, "seed": 3}
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
    assert page.text_content("#watching") == _strings("en")["watching_notice"]
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


def _create(server_url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        server_url + "/api/games",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request) as response:
        created: dict[str, Any] = json.load(response)
        return created


def _join(server_url: str, created: dict[str, Any], name: str, seat: int) -> dict[str, Any]:
    code = created["invite_url"].rsplit("/", 1)[1]
    request = urllib.request.Request(
        f"{server_url}/api/games/{created['game_id']}/join",
        data=json.dumps({"code": code, "name": name, "seat": seat}).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request) as response:
        joined: dict[str, Any] = json.load(response)
        return joined


def _choose_language(page: Page, lang: str) -> None:
    page.select_option("#lang", lang)
    page.wait_for_function(f"document.documentElement.lang === '{lang}'")


def _height(page: Page, selector: str) -> float:
    box = page.locator(selector).first.bounding_box()
    assert box is not None, f"{selector} is not shown"
    return float(box["height"])


# Every card the page can draw, in a hand built by the page itself (cardEl, #hand-panel .hand).
MEASURE_CARDS = """() => {
  const codes = ["1", "2", "3", "4", "5", "6", "7", "8", "?", "dog", "bone", "thief",
    "super-thief", "jackhammer", "wrecking-ball", "milkshake", "donut-truck"];
  const { h, cardEl } = gotown;
  const hand = h("div", { class: "hand", id: "hand" }, ...codes.map((c) => cardEl(c)));
  document.querySelector("#app").replaceChildren(
    h("section", { class: "panel", id: "hand-panel" }, hand));
  return [...hand.children].map((card) => {
    const name = card.querySelector(".name");
    const c = card.getBoundingClientRect();
    const n = name && name.getBoundingClientRect();
    return {
      label: card.getAttribute("aria-label"),
      text: name ? name.textContent : null,
      fits: !name || (name.scrollWidth <= name.clientWidth && name.scrollHeight <= name.clientHeight
        && n.left >= c.left && n.right <= c.right && n.top >= c.top && n.bottom <= c.bottom
        && card.scrollWidth <= card.clientWidth),
      size: name ? parseFloat(getComputedStyle(name).fontSize) : null,
      width: c.width,
    };
  });
}"""


def test_card_names_fit_their_cards_in_every_language(browser: Browser, server_url: str) -> None:
    """German and Polish names are long ("Presslufthammer", "Młot pneumatyczny"): on a phone
    and on a laptop each name stays inside its card, in a readable size; a number card shows
    its number and colour only (its label still says it is a floor card)."""
    for viewport in (PHONE, LAPTOP):
        context = browser.new_context(viewport=viewport)
        page = context.new_page()
        page.goto(server_url + "/")
        page.wait_for_selector("#create-title")
        for lang in ("de", "pl", *(x for x in LANGUAGES if x not in ("de", "pl"))):
            _choose_language(page, lang)
            page.wait_for_selector("#create-title")
            cards = page.evaluate(MEASURE_CARDS)
            floor = _strings(lang)["card_floor"].replace("\u00ad", "")
            overflowing = [c["label"] for c in cards if not c["fits"]]
            assert not overflowing, (lang, viewport["width"], overflowing)
            numbers, named = cards[:8], cards[8:]
            assert min(c["size"] for c in named) >= 11, (lang, viewport["width"])
            assert all(c["text"] is None and c["label"].startswith(floor) for c in numbers), lang
            assert len({round(c["width"]) for c in numbers}) == 1, (lang, numbers)
            assert all("\u00ad" not in c["label"] for c in cards), lang
            if lang in ("de", "pl"):
                _shot(page, f"16-cards-{lang}-{viewport['width']}")
        context.close()


def test_errors_and_notices_speak_only_the_reader_s_language(
    browser: Browser, server_url: str
) -> None:
    """Polish on a phone: a blank name is refused in Polish, a refused move says why in Polish
    only (the server's English message goes to the console), across the screen's width, and a
    tap closes it; the title says it is your turn; a move aimed at you is told at once."""
    pl = _strings("pl")
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, locale="pl-PL")
    page = context.new_page()
    errors: list[str] = []
    _watch_errors(page, errors)
    page.goto(server_url + "/")
    _choose_language(page, "pl")
    page.wait_for_selector("#create-title")
    _create_in_page(page, "Ola", "bot", first_player="0")
    page.wait_for_selector("#status.mine")

    # The rules refuse this move whatever the deal (at the first turn seat 1 has no floor to
    # hammer, R14): the server explains in English, the page in Polish only.
    assert page.evaluate("gotown.table().state.view.towers[1].length") == 0
    server: list[str] = []
    page.on("console", lambda m: server.append(m.text) if m.type == "info" else None)
    page.evaluate("gotown.table().act({ type: 'jackhammer', target: 1 })")
    page.wait_for_selector("#toast:not([hidden])")
    shown = page.text_content("#toast") or ""
    assert re.fullmatch(re.escape(pl["err_illegal-action"]) + r"( \(R\d+\w*\))?", shown), shown
    assert any("illegal-action" in m for m in server), server
    english = server[-1].split(": ", 2)[-1]
    assert english and english not in shown, (english, shown)
    box = page.locator("#toast").bounding_box()
    assert box is not None
    assert box["x"] >= 15 and box["x"] + box["width"] <= PHONE["width"] - 15, box
    page.evaluate(
        "gotown.toast(gotown.errorText("
        "{ code: 'stale-version', message: 'this action was made on version 3' }))"
    )
    box = page.locator("#toast").bounding_box()
    assert box is not None and box["width"] >= PHONE["width"] - 40, box  # a long one: all across
    assert page.text_content("#toast") == pl["err_stale-version"]
    _shot(page, "17-error-toast-pl")
    page.click("#toast")
    page.wait_for_selector("#toast", state="hidden")
    title = "\u25cf " + pl["your_turn"] + " \u2013 GoTown"
    assert page.evaluate("document.title") == title

    # A milkshake for Ola (seat 0) from the bot: a notice, not only a line in the log.
    page.evaluate(
        """() => {
        const table = gotown.table();
        const st = structuredClone(table.state);
        st.version += 1;
        st.view.events.push({ type: "action", seat: 1, action: { type: "milkshake", target: 0 } });
        table.update(st);
      }"""
    )
    page.wait_for_selector("#toast.info:not([hidden])")
    bot = page.text_content('.seatbox[data-seat="1"] .seatname') or ""
    assert page.text_content("#toast") == pl["log_milkshake_tyou"].replace("{actor}", bot)

    # A blank name (only spaces) is refused in the browser, in Polish.
    page.goto(server_url + "/")
    page.wait_for_selector("#create-title")
    page.fill("#name", "   ")
    _custom_form(page)
    page.click("#create-btn")
    assert page.evaluate("document.querySelector('#name').validationMessage") == pl["name_required"]
    assert urllib.parse.urlparse(page.url).path == "/"
    assert not errors, errors
    context.close()


def test_an_away_seat_counts_down_to_its_hand_over(browser: Browser, server_url: str) -> None:
    """The server refuses to hand a seat to a bot for absent_seconds after its person left:
    the page says how long is left, keeps the button disabled until then, and enables it by
    itself."""
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    errors: list[str] = []
    _watch_errors(page, errors)
    en = _strings("en")
    page.goto(server_url + "/")
    _create_in_page(page, "Anna", "human")
    page.wait_for_selector("#invite-url")
    invite = page.text_content("#invite-url") or ""
    game_id = page.url.rsplit("/", 1)[1]
    _join(server_url, {"game_id": game_id, "invite_url": invite}, "Bob", 1)  # no socket: away

    page.wait_for_selector('.seatbox[data-seat="1"] button.fill-bot')
    button = page.locator('.seatbox[data-seat="1"] button.fill-bot')
    assert button.is_disabled()  # the server would refuse it now
    away = page.locator('.seatbox[data-seat="1"] [data-away-seat]')
    first = away.text_content() or ""
    prefix, suffix = en["away_bot_in"].split("{n}")
    assert first.startswith(prefix) and first.endswith(suffix), first
    left = int(first[len(prefix) : -len(suffix)])
    assert 1 <= left <= ABSENT_SECONDS
    _shot(page, "18-away-countdown")
    page.wait_for_function(
        "document.querySelector('[data-away-seat=\"1\"]').textContent !== " + json.dumps(first)
    )  # it counts down by itself
    button.wait_for(state="visible")
    page.wait_for_function(
        "!document.querySelector('.seatbox[data-seat=\"1\"] button.fill-bot').disabled",
        timeout=(ABSENT_SECONDS + 5) * 1000,
    )
    assert away.text_content() == en["away"]
    button.click()
    page.wait_for_function(
        "document.querySelector('.seatbox[data-seat=\"1\"] button.fill-bot') === null"
    )
    public = _public_state(server_url, game_id)
    assert public["lobby"]["seats"][1]["kind"] == "bot"
    # Bob's seat says that a bot plays it for now (and Bob's name stays on it).
    standin = page.locator('.seatbox[data-seat="1"] [data-standin-seat]')
    standin.wait_for()
    assert standin.text_content() == en["bot_stands_in"].format(level=en["level_medium"])
    assert page.text_content('.seatbox[data-seat="1"] .seatname') == "Bob"
    assert not errors, errors
    context.close()


def test_copying_the_link_works_without_the_clipboard_api(
    browser: Browser, server_url: str
) -> None:
    """Over plain http on a network address (the README's phone setup) a page has no
    navigator.clipboard: "copy the link" still copies (or selects the link) and says which."""
    en = _strings("en")
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    context.add_init_script(
        "Object.defineProperty(navigator, 'clipboard', { value: undefined, configurable: true });"
    )
    page = context.new_page()
    page.goto(server_url + "/")
    _create_in_page(page, "Anna", "human")
    page.wait_for_selector("#copy-invite")
    page.click("#copy-invite")
    page.wait_for_selector("#toast:not([hidden])")
    said = page.text_content("#toast")
    assert said in (en["copied"], en["copy_failed"])
    if said == en["copy_failed"]:  # then the link is selected, to be copied by hand
        assert page.evaluate("String(getSelection())") == page.text_content("#invite-url")
    context.close()


def test_long_names_stay_in_their_seat_box(browser: Browser, server_url: str) -> None:
    long = "Wolfeschlegelsteinhausen"  # 24 letters, nowhere to break
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(server_url + "/")
    _create_in_page(page, long, "bot")
    page.wait_for_selector("#status")
    head = page.evaluate(
        """() => [...document.querySelectorAll('.seatbox')]
          .sort((x, y) => x.dataset.seat - y.dataset.seat).map((box) => {
          const name = box.querySelector('.seathead > span');
          const b = box.getBoundingClientRect(), n = name.getBoundingClientRect();
          const titled = box.querySelector('.seathead [title]');
          return { title: titled && titled.title, inside: n.left >= b.left && n.right <= b.right };
        })"""
    )
    assert all(h["inside"] for h in head), head
    assert head[0]["title"] == long
    _no_sideways_scroll(page)
    context.close()


def test_a_game_without_a_chosen_limit_counts_no_turns_towards_one(
    browser: Browser, server_url: str
) -> None:
    """The server gives such a game its ceiling (10,000 turns): the table says "Turn 1", not
    "Turn 1 of 10000", and its options say no limit was chosen."""
    en = _strings("en")
    context, page, errors = _phone_home(browser, server_url)
    _create_in_page(page, "Nia", "bot:random", first_player="0")
    page.wait_for_selector("#turn")
    assert page.text_content("#turn") == en["turn_n"].format(n=1)
    _open_drawer(page)
    page.click("#game-options summary")
    options = page.inner_text("#game-options")
    assert f"{en['opt_turn_limit']}\n{en['opt_turn_limit_none']}" in options, options
    assert "10000" not in options
    # A limit chosen at the bots-only tables' default (300) is a limit all the same.
    page.goto(server_url + "/")
    _create_in_page(page, "Nia", "bot:random", first_player="0", turn_limit="300")
    page.wait_for_selector("#turn")
    assert page.text_content("#turn") == en["turn_n_of"].format(n=1, limit=300)
    assert not errors, errors
    context.close()


def test_a_game_ended_by_its_turn_limit_says_so(browser: Browser, server_url: str) -> None:
    """The turn and the limit are shown; the end says the limit was reached (once), and the
    log too; the options are at the table; tap targets are 44px high; the replay shows no
    "wait for your turn" and labels its controls."""
    en = _strings("en")
    context, page, errors = _phone_home(browser, server_url)
    for selector in ("#rules-link", "#lang", "#how-to"):
        assert _height(page, selector) >= 44, selector
    # The bot plays turn 1, the last one.
    _create_in_page(page, "Tina", "bot:random", first_player="1", turn_limit="1")
    page.wait_for_selector("#winner")
    assert page.text_content("#turn") == en["turn_n_of"].format(n=1, limit=1)
    assert page.text_content("#winner") == en["over_turn_limit"]
    assert page.text_content("#status") == en["game_over"]
    assert en["log_end_turn_limit"] in (page.text_content("#log") or "")
    # ... and so does the live region, for a screen reader (the end is no mere turn header).
    assert en["log_end_turn_limit"] in (page.text_content("#announce") or "")
    body = page.text_content("#app") or ""
    assert body.count(en["over_nowinner"]) == 0 and body.count(en["over_turn_limit"]) == 1
    _open_drawer(page)
    page.click("#game-options summary")
    options = page.text_content("#game-options") or ""
    assert en["opt_turn_limit"] in options and en["opt_first_player"] in options
    for selector in ("#discard summary", "#game-options summary", "#replay-link"):
        assert _height(page, selector) >= 44, selector
    assert page.evaluate("document.title") == "GoTown"
    _shot(page, "19-turn-limit-end-phone")

    page.click("#replay-link")
    page.wait_for_selector("#replay-slider")
    page.click("#replay-first")
    assert page.get_attribute("#replay-play", "aria-label") == en["play"]
    assert page.get_attribute("#replay-view", "aria-label") == en["replay_view"]
    for selector in ("#replay-view", "#replay-slider"):
        assert _height(page, selector) >= 44, selector
    assert en["wait_turn"] not in (page.text_content("#replay-stage") or "")
    assert not errors, errors
    context.close()


def test_the_log_keeps_the_reader_s_place(browser: Browser, server_url: str) -> None:
    """A redraw (a new state, a language) leaves the log where its reader scrolled it, and
    follows its end only for a reader who was at the end."""
    created = _create(
        server_url,
        {"seats": [{"kind": "bot", "level": "random"}] * 2, "options": {"win_floors": 4}},
    )
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(created["watch_url"])
    page.wait_for_function(
        "(() => { const l = document.querySelector('#log'); "
        "return l && l.scrollHeight > l.clientHeight + 200; })()"
    )
    page.evaluate("window.oldLog = document.querySelector('#log'); oldLog.scrollTop = 0;")
    _choose_language(page, "fr")
    page.wait_for_function("document.querySelector('#log') !== window.oldLog")
    assert page.evaluate("document.querySelector('#log').scrollTop") == 0
    page.evaluate(
        "window.oldLog = document.querySelector('#log'); oldLog.scrollTop = oldLog.scrollHeight;"
    )
    _choose_language(page, "en")
    page.wait_for_function("document.querySelector('#log') !== window.oldLog")
    at_end = page.evaluate(
        "(() => { const l = document.querySelector('#log'); "
        "return l.scrollHeight - l.scrollTop - l.clientHeight; })()"
    )
    assert at_end <= 2
    context.close()


def test_a_failed_chances_request_is_asked_again(browser: Browser, server_url: str) -> None:
    """The win-probability bar: a request that fails says the chances are unavailable, and is
    asked again later (not "computing..." for ever)."""
    context = browser.new_context(viewport=LAPTOP)
    page = context.new_page()
    asked: list[str] = []

    def chances(route: Any) -> None:
        asked.append(route.request.url)
        if len(asked) == 1:
            body = {"error": {"code": "estimate-failed", "message": "the estimate failed"}}
            route.fulfill(status=503, content_type="application/json", body=json.dumps(body))
        else:
            route.continue_()

    page.route("**/chances", chances)
    page.goto(server_url + "/")
    _create_in_page(page, "Eva", "bot", first_player="0")
    page.wait_for_selector("#status.mine")
    page.check("#chances-toggle")
    page.wait_for_selector("#chances-unavailable")
    assert page.text_content("#chances-unavailable") == _strings("en")["chances_unavailable"]
    page.wait_for_selector('#chances .bar[role="meter"]', timeout=20000)
    assert len(asked) >= 2
    context.close()


def test_turns_of_nothing_but_their_end_say_the_game_may_be_stuck(
    browser: Browser, server_url: str
) -> None:
    """When two whole rounds have held nothing but ended turns (no card drawn or played: the
    hands are full, R7b), the table says that such a game can never end if nobody can play,
    except to a player who can play now; it counts the turns as the search bots do
    (``frozen_turns``), from the public events only."""
    from gotown.engine import View

    en = _strings("en")
    context, page, errors = _phone_home(browser, server_url)
    _create_in_page(page, "Ida", "human", first_player="0")
    page.wait_for_selector("#invite-url")
    game_id = page.url.rsplit("/", 1)[1]
    code = (page.text_content("#invite-url") or "").rsplit("/", 1)[1]
    other = _join(server_url, {"invite_url": "/j/" + code, "game_id": game_id}, "Olaf", 1)
    page.wait_for_selector("#status.mine")
    shown = []
    for _ in range(20):  # hands of 5 and 6 are full after three draws each
        state = _public_state(server_url, game_id)
        still = View.from_json(state["view"]).frozen_turns
        legal = page.evaluate("gotown.table().state.legal.map((a) => a.type)")
        visible = page.locator("#stuck-notice").count() == 1
        assert visible == (still >= 4 and set(legal) <= {"end-turn"}), (still, legal)
        if visible:
            assert page.text_content("#stuck-notice") == en["stuck_notice"].format(turns=still)
            shown.append(still)
            if len(shown) == 1:
                _no_sideways_scroll(page)
                _shot(page, "20-stuck-notice-phone")
        if still >= 7:
            break
        version = state["version"]
        if state["view"]["active"] == 0:
            page.click("#end-turn")
        else:
            request = urllib.request.Request(
                f"{server_url}/api/games/{game_id}/actions",
                data=json.dumps({"version": version, "action": {"type": "end-turn"}}).encode(),
                headers={"content-type": "application/json", "X-Seat-Token": other["token"]},
            )
            urllib.request.urlopen(request).close()
        page.wait_for_function(f"Number(document.body.dataset.version || -1) > {version}")
    assert shown and state["view"]["hand_sizes"] == [8, 8], shown
    assert not errors, errors
    context.close()
