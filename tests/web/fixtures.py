"""The web table's browser tests: a server in a thread, Debian's Chromium through Playwright,
and the small helpers the tests share."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from live_server import serving
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

from gotown.server.config import Settings

CHROMIUM = "/usr/bin/chromium"
#: As the machine's own Chromium probe starts it: without the background services, whose
#: connections this sandboxed network refuses.
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
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
STRINGS = Path(__file__).resolve().parents[2] / "gotown" / "server" / "static" / "i18n"


def strings(lang: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((STRINGS / f"{lang}.json").read_text("utf-8"))
    return data


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db = tmp_path_factory.mktemp("web") / "gotown.sqlite3"
    settings = Settings(
        database_url=f"sqlite:///{db}",
        bot_delay=0.05,
        rate_limit_per_minute=0,
        max_bots_only_tables=1000,
        max_bots_only_tables_per_client=1000,
        allow_seed=True,  # a test deals a known hand
    )
    with serving(settings) as url:
        yield url


def _wait_for_function(
    page: Page, expression: str, arg: Any = None, *, timeout: float = 30_000, **_: Any
) -> None:
    """Playwright's ``wait_for_function`` evaluates its string inside the page, which the
    page's Content-Security-Policy (``script-src 'self'``, no eval) refuses; ``evaluate``
    goes through the browser's debugging protocol instead, so poll with it."""
    deadline = time.monotonic() + timeout / 1000
    while not page.evaluate(expression, arg):
        if time.monotonic() > deadline:
            raise AssertionError(f"still false after {timeout / 1000:g} s: {expression}")
        time.sleep(0.05)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium", pytrace=False)
    with pytest.MonkeyPatch.context() as patch, sync_playwright() as p:
        patch.setattr(Page, "wait_for_function", _wait_for_function)
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


def phone(browser: Browser, **extra: Any) -> BrowserContext:
    return browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, **extra)


def shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def watch_errors(page: Page) -> list[str]:
    """Script errors, and what the Content-Security-Policy refused (said on the console)."""
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on(
        "console",
        lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None,
    )
    return errors


def post(server_url: str, path: str, body: dict[str, Any], token: str | None = None) -> Any:
    headers = {"content-type": "application/json"}
    if token:
        headers["X-Seat-Token"] = token
    request = urllib.request.Request(
        server_url + path, data=json.dumps(body).encode(), headers=headers
    )
    with urllib.request.urlopen(request) as response:
        return json.load(response)


def get(server_url: str, path: str, token: str | None = None) -> Any:
    request = urllib.request.Request(
        server_url + path, headers={"X-Seat-Token": token} if token else {}
    )
    with urllib.request.urlopen(request) as response:
        return json.load(response)


def long_press(page: Page, selector: str, hold_ms: int = 800) -> None:
    """A finger held on the element (CDP touch events, as a phone sends them)."""
    box = page.locator(selector).first.bounding_box()
    assert box is not None
    point = {"x": box["x"] + box["width"] / 2, "y": box["y"] + box["height"] / 2}
    cdp = page.context.new_cdp_session(page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [point]})
    page.wait_for_timeout(hold_ms)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def version(page: Page) -> int:
    return int(page.evaluate("document.body.dataset.version || '-1'"))


def wait_newer(page: Page, than: int) -> None:
    page.wait_for_function(f"Number(document.body.dataset.version || -1) > {than}")
