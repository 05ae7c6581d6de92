"""The page's socket after a server's restart: the close code 1012 ("service restart", sent by a
stopping server to every socket) is answered by connecting again at once, without telling the
player the connection was lost; any other loss waits and says so. In Chromium, the page's own
``GameSocket`` (static/js/api.js) against a WebSocket the test drives."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser
from web.fixtures import browser, server_url  # noqa: F401  (fixtures)

pytestmark = pytest.mark.browser

#: Closes the page's socket with ``code`` and reports, 400 ms later, how many sockets it opened,
#: after how long, and how often it told the player the connection was lost.
CLOSE_AND_WATCH = """async (code) => {
  const made = [];
  class Driven {
    constructor(url) {
      this.url = url;
      this.readyState = 0;
      made.push({ socket: this, at: performance.now() });
    }
    send() {}
    close() { this.readyState = 3; }
  }
  Driven.CONNECTING = 0; Driven.OPEN = 1;
  const real = window.WebSocket;
  window.WebSocket = Driven;
  try {
    const { GameSocket } = await import("/static/js/api.js");
    let lost = 0;
    const socket = new GameSocket("g1", "t1", {
      onState() {}, onError() {}, onLost() { lost += 1; }, heldEvents() { return 0; },
    });
    const first = made[made.length - 1].socket;
    first.readyState = 1;
    first.onopen();
    const closedAt = performance.now();
    first.readyState = 3;
    first.onclose({ code });
    await new Promise((resolve) => setTimeout(resolve, 400));
    socket.close();
    const again = made.filter((m) => m.at >= closedAt);
    return { lost, again: again.length, after: again.length ? again[0].at - closedAt : null };
  } finally {
    window.WebSocket = real;
  }
}"""


def _close(browser: Browser, server_url: str, code: int) -> dict[str, Any]:  # noqa: F811
    page = browser.new_page()
    try:
        page.goto(server_url + "/rules/en")  # (a page of the server: its origin, its scripts)
        result: dict[str, Any] = page.evaluate(CLOSE_AND_WATCH, code)
        return result
    finally:
        page.close()


def test_a_restart_s_1012_connects_again_at_once_without_a_word(
    browser: Browser,  # noqa: F811
    server_url: str,  # noqa: F811
) -> None:
    after = _close(browser, server_url, 1012)
    assert after["again"] == 1 and after["after"] < 300, after
    assert after["lost"] == 0


def test_a_lost_connection_waits_and_says_so(
    browser: Browser,  # noqa: F811
    server_url: str,  # noqa: F811
) -> None:
    after = _close(browser, server_url, 1006)
    assert after["again"] == 0, after  # (the first try after half a second)
    assert after["lost"] == 1
