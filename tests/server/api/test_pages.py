"""The page's routes (api/routes/pages.py): the page at each of its addresses, the rules page
in each language and the link to it in the reader's language, the page's files at an address of
their version, the web app manifest. The files themselves: test_static.py."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from gotown.server.schemas import LANGUAGES


def test_pages_and_rules_are_served(client: TestClient) -> None:
    for path in ("/", "/j/abc", "/g/abc", "/w/abc", "/r/abc"):
        r = client.get(path)
        assert r.status_code == 200 and re.search(
            r'<script type="module" src="/static/v/[0-9a-f]{12}/js/main.js">', r.text
        )
    bodies = set()
    for lang in LANGUAGES:
        r = client.get(f"/rules/{lang}")
        assert r.status_code == 200 and f'lang="{lang}"' in r.text
        bodies.add(r.text)
    assert len(bodies) == len(LANGUAGES)
    # The rules open in a tab of their own: their link home does not claim to go back to a game.
    assert "Back to the game" not in client.get("/rules/en").text
    assert client.get("/rules/xx").status_code == 404
    assert client.get("/static/i18n/pl.json").json()["card_thief"] == "Złodziej"


def test_each_rules_page_is_titled_by_its_heading_and_links_every_language(
    client: TestClient,
) -> None:
    for lang in LANGUAGES:
        html = client.get(f"/rules/{lang}").text
        links = re.findall(r'<a href="/rules/([a-z]+)" lang="\1"( aria-current="page")?>', html)
        assert [other for other, _ in links] == list(LANGUAGES)
        assert [other for other, current in links if current] == [lang]
        title, heading = re.search(r"<title>(.*?)</title>.*?<h1>(.*?)</h1>", html, re.S).groups()
        assert title == heading and "GoTown" in title
        assert html.count("<main") == 1 and html.rstrip().endswith("</main>\n</body>\n</html>")


@pytest.mark.parametrize(
    ("header", "lang"),
    [("", "en"),
     ("de-CH,de;q=0.9,en;q=0.8", "de"),
     ("ja,pl;q=0.8,en;q=0.5", "pl"),  # the first one the table speaks
     ("en;q=0.3, cs;q=0.9", "cs"),  # by weight, not by order
     ("fr;q=0, nl", "nl"),  # q=0: not wanted
     ("es;q=abc, it", "it"),  # a weight that is no number counts as 0
     ("*", "en"),
     ("csb, esu;q=0.9, pl;q=0.5", "pl"),  # Kashubian is not Czech, nor Yupik Spanish
     ("x" * 5000, "en")],
)  # fmt: skip
def test_the_rules_link_opens_in_the_reader_s_language(
    client: TestClient, header: str, lang: str
) -> None:
    r = client.get("/rules", headers={"Accept-Language": header}, follow_redirects=False)
    assert r.status_code in (302, 307) and r.headers["location"] == f"/rules/{lang}"
    assert r.headers["vary"] == "Accept-Language"


def test_the_page_loads_its_files_from_an_address_of_their_version_kept_for_ever(
    client: TestClient,
) -> None:
    """The page's files come from /static/v/<digest of them>/, cached as immutable and
    compressed; the page itself and the unversioned addresses are checked each time."""
    page = client.get("/g/abc")
    assert page.headers["cache-control"] == "no-cache"
    addresses = re.findall(r'(?:src|href)="(/static/[^"]+)"', page.text)
    (prefix,) = {re.match(r"/static/v/[0-9a-f]{12}/", a).group(0) for a in addresses}  # type: ignore[union-attr]
    assert len(addresses) > 20  # (every one versioned: the match above would fail on one not)
    module = client.get(prefix + "js/main.js", headers={"Accept-Encoding": "gzip"})
    assert module.status_code == 200 and "import" in module.text
    assert module.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert module.headers["content-encoding"] == "gzip"
    assert client.get(prefix + "i18n/en.json").json()["card_thief"] == "Thief"
    plain = client.get("/static/js/main.js")
    assert plain.headers["cache-control"] == "no-cache" and plain.text == module.text
    assert client.get("/static/v/000000000000/js/main.js").status_code == 404


def test_the_app_installs_on_a_phone(client: TestClient) -> None:
    """A web app manifest with icons that are served (an SVG, and PNGs of 192 and 512 px)."""
    assert re.search(
        r'rel="manifest" href="/static/v/\w+/manifest.webmanifest"', client.get("/").text
    )
    manifest = client.get("/static/manifest.webmanifest").json()
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
    sizes = set()
    for icon in manifest["icons"]:
        r = client.get(icon["src"])
        assert r.status_code == 200 and len(r.content) > 200, icon
        if icon["type"] == "image/png":
            width = int.from_bytes(r.content[16:20], "big")  # the PNG header's width
            assert icon["sizes"] == f"{width}x{width}", icon
            sizes.add(width)
    assert sizes == {192, 512}
