"""The API's documentation page (/docs) in a browser with no way out to the internet."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Route

from .fixtures import LAPTOP, get, watch_errors

pytestmark = pytest.mark.browser


def test_the_api_docs_list_every_operation_offline_under_their_policy(
    browser: Browser, server_url: str
) -> None:
    """Every request leaving this server is refused: Swagger UI's files come from the server
    itself, and its page runs under its Content-Security-Policy without complaint."""
    context = browser.new_context(viewport=LAPTOP)
    outside: list[str] = []

    def only_this_server(route: Route) -> None:
        if route.request.url.startswith(server_url + "/"):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort("internetdisconnected")

    context.route("**/*", only_this_server)
    page = context.new_page()
    errors = watch_errors(page)
    page.goto(server_url + "/docs")
    schema = get(server_url, "/openapi.json")
    operations = [
        (method.upper(), path)
        for path, item in schema["paths"].items()
        for method in item
        if method in ("get", "post", "put", "patch", "delete")
    ]
    page.wait_for_selector(".opblock", timeout=30_000)
    blocks = page.locator(".opblock")
    shown = [
        (
            blocks.nth(i).locator(".opblock-summary-method").inner_text().strip(),
            (blocks.nth(i).locator(".opblock-summary-path").get_attribute("data-path") or ""),
        )
        for i in range(blocks.count())
    ]
    assert sorted(shown) == sorted(operations) and len(operations) > 10
    assert "GoTown web table" in (page.text_content(".information-container .title") or "")
    assert not outside, outside
    assert not errors, errors
    context.close()
