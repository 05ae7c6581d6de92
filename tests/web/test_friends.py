"""Playing with friends: "Play with friends" asks how many players (2-4) in the same tap, and
each seat's own link uses the address the server gives its links (as the invitation and its QR
code do), not the address the page was opened at."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from live_server import serving
from playwright.sync_api import Browser

from gotown.server.config import Settings

from .fixtures import get, phone, strings

pytestmark = pytest.mark.browser

#: The address `gotown serve --lan` gives the links (GOTOWN_PUBLIC_BASE_URL): TEST-NET-1, an
#: address no test opens, only shows.
NETWORK = "http://192.0.2.7:8000"


@pytest.fixture(scope="module")
def lan_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server whose links say the network address, opened here at 127.0.0.1."""
    db = tmp_path_factory.mktemp("lan") / "gotown.sqlite3"
    settings = Settings(
        database_url=f"sqlite:///{db}", rate_limit_per_minute=0, public_base_url=NETWORK
    )
    with serving(settings) as url:
        yield url


@pytest.mark.parametrize("players", [3, 4])
def test_play_with_friends_asks_how_many_players_in_the_same_tap(
    browser: Browser, lan_url: str, players: int
) -> None:
    de = strings("de")
    context = phone(browser)
    context.add_init_script("localStorage.setItem('gotown.lang', 'de')")
    page = context.new_page()
    page.goto(lan_url + "/")
    choice = page.locator(f"#play-friends-{players}")
    assert choice.text_content() == de["play_friends_n"].format(n=players)
    choice.tap()
    page.wait_for_selector("#invite-url")
    game_id = page.url.rsplit("/", 1)[1]
    lobby = get(lan_url, f"/api/games/{game_id}/lobby")
    assert [s["kind"] for s in lobby["seats"]] == ["human"] * players
    assert lobby["seats"][0]["name"] == de["default_name"] and lobby["status"] == "lobby"
    context.close()


def test_a_seat_s_own_link_uses_the_server_s_address_as_its_invitation_does(
    browser: Browser, lan_url: str
) -> None:
    """Opened as 127.0.0.1, the page still gives links another device can open: the seat's
    own (and its QR code) at the network address, like the invitation."""
    context = phone(browser)
    page = context.new_page()
    page.goto(lan_url + "/")
    page.locator("#play-friends-2").tap()
    page.wait_for_selector("#invite-url")
    game_id = page.url.rsplit("/", 1)[1]
    token = page.evaluate(f"localStorage.getItem('gotown.token.{game_id}')")
    assert (page.text_content("#invite-url") or "").startswith(NETWORK + "/j/")
    assert page.locator("#localhost-warning").count() == 0
    page.click("#seat-link > summary")
    assert page.text_content("#seat-url") == f"{NETWORK}/g/{game_id}#t={token}"
    page.wait_for_selector("#seat-qr")
    assert strings("en")["seat_qr_alt"] == page.get_attribute("#seat-qr", "aria-label")
    context.close()
