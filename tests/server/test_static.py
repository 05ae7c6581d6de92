"""Pages, languages and the rules pages; settings; the pub/sub across processes."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from gotown.server.config import Settings
from gotown.server.errors import CODES
from gotown.server.pubsub import Notice, PubSub
from gotown.server.schemas import LANGUAGES

from .helpers import REDIS_URL

STATIC = Path(__file__).resolve().parents[2] / "gotown" / "server" / "static"
RULES = Path(__file__).resolve().parents[3] / "shared" / "rules" / "RULES.md"


def _strings(lang: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((STATIC / "i18n" / f"{lang}.json").read_text("utf-8"))
    return data


def _base(key: str) -> str:
    """A message's key without its plural form ("log_reshuffle#few" is "log_reshuffle")."""
    return key.split("#")[0]


def test_every_language_has_every_string() -> None:
    english = _strings("en")
    for lang in LANGUAGES:
        strings = _strings(lang)
        assert {k for k in strings if "#" not in k} == {k for k in english if "#" not in k}, lang
        for key, text in strings.items():
            assert text.strip(), (lang, key)
            placeholders = set(re.findall(r"\{(\w+)\}", english[_base(key)]))
            assert set(re.findall(r"\{(\w+)\}", text)) == placeholders, (lang, key)


def _plural_form(lang: str, n: int) -> str:
    """The CLDR plural category of a whole number n in ``lang`` (what Intl.PluralRules gives
    the page; whole numbers only, as counts of cards are)."""
    if lang == "fr":
        return "one" if n in (0, 1) else "other"
    if lang == "cs":
        return "one" if n == 1 else "few" if 2 <= n <= 4 else "other"
    if lang == "pl":
        if n == 1:
            return "one"
        return "few" if n % 10 in (2, 3, 4) and n % 100 not in (12, 13, 14) else "many"
    return "one" if n == 1 else "other"


def test_counted_messages_have_a_form_for_every_count() -> None:
    """A message with a {count} reads right for every count: "1 card", "3 karty" (Czech and
    Polish have several plural forms). i18n.js's t() picks "key#form", the plain key being the
    "other" form (and Polish's "many" given as well, its form of most whole numbers)."""
    english = _strings("en")
    counted = [key for key, text in english.items() if "{count}" in text and "#" not in key]
    assert "log_reshuffle" in counted
    for lang in LANGUAGES:
        strings = _strings(lang)
        for key in counted:
            for n in range(55):  # a pile of the 54 cards at most
                form = _plural_form(lang, n)
                if form != "other":
                    assert f"{key}#{form}" in strings, (lang, key, n, form)
        for key in strings:
            if "#" in key:
                assert key.split("#")[1] in ("zero", "one", "two", "few", "many"), (lang, key)


def test_every_literal_key_used_by_the_page_exists() -> None:
    script = "\n".join(p.read_text("utf-8") for p in (STATIC / "js").rglob("*.js"))
    used = set(re.findall(r'\bt\("([a-z_?-]+)"\s*[,)]', script))
    english = _strings("en")
    assert used and used <= set(english), sorted(used - set(english))


def test_the_levels_help_names_each_level_as_the_picker_does() -> None:
    """The home page explains the bot levels under the seat pickers: in every language it names
    each level with the picker's own word, weakest first (gotown.bots.LEVELS)."""
    from gotown.bots import LEVELS

    for lang in LANGUAGES:
        strings = _strings(lang)
        places = []
        for level in LEVELS:
            name = strings[f"level_{level}"]
            found = re.search(rf"(?<!\w){re.escape(name)}(?!\w)", strings["levels_help"])
            assert found, (lang, level, name)
            places.append(found.start())
        assert places == sorted(places), lang


SOFT_HYPHEN = "\u00ad"


def _card_names(lang: str) -> dict[str, str]:
    """The card names as printed: without the soft hyphens where a long name may break."""
    return {
        key: text.replace(SOFT_HYPHEN, "")
        for key, text in _strings(lang).items()
        if key.startswith("card_")
    }


def test_card_names_follow_the_rules_table() -> None:
    """R2 gives the card names in the eight languages."""
    names = {"?": "Joker", "dog": "Guard dog", "thief": "Thief", "super-thief": "Super-thief"}
    assert {k: _card_names("en")[f"card_{k}"] for k in names} == names
    assert _card_names("cs")["card_super-thief"] == "Mafián"
    assert _card_names("pl")["card_donut-truck"] == "Dostawa pączków"
    assert _card_names("de")["card_jackhammer"] == "Presslufthammer"
    assert _card_names("fr")["card_floor"] == "Carte étage"


def test_long_card_names_may_break_between_syllables() -> None:
    """A card is about 3.5rem wide on a phone: a long one-word name carries soft hyphens."""
    assert _strings("de")["card_jackhammer"] == SOFT_HYPHEN.join(["Press", "luft", "ham", "mer"])
    for lang in LANGUAGES:
        for key, text in _strings(lang).items():
            if key.startswith("card_"):
                assert SOFT_HYPHEN * 2 not in text and not text.startswith(SOFT_HYPHEN), (lang, key)
            elif SOFT_HYPHEN in text:
                raise AssertionError(f"{lang} {key}: a soft hyphen outside a card's name")
            for word in text.replace(SOFT_HYPHEN + "-", "-").split():
                pieces = word.replace("-", SOFT_HYPHEN).split(SOFT_HYPHEN)
                if key.startswith("card_") and key != "card_floor":
                    assert max(len(p) for p in pieces) <= 10, (lang, key, word)


def _server_error_codes() -> set[str]:
    """Every error code the server sends (its catalogue)."""
    return set(CODES)


def test_every_error_the_server_sends_has_words_in_every_language() -> None:
    """The page shows an error in the reader's language only (the server's English message
    goes to the console): each code needs its own sentence."""
    codes = _server_error_codes()
    assert {"stale-version", "invalid-name", "storage-unavailable", "bad-request"} <= codes
    english = _strings("en")
    missing = sorted(code for code in codes if f"err_{code}" not in english)
    assert not missing, missing


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


def test_settings_come_from_the_environment(tmp_path: Path) -> None:
    env = {"GOTOWN_DATABASE_URL": "sqlite:///x.db", "GOTOWN_BOT_DELAY": "0.25"}
    settings = Settings.from_env(env)
    assert settings.database_url == "sqlite:///x.db" and settings.bot_delay == 0.25
    assert Settings.from_env({}, database_url=None).database_url.endswith("gotown.sqlite3")
    assert Settings.from_env({}).broadcast_url == "memory://"
    switches = {"true": True, "1": True, "Yes": True, "off": False, "0": False, "": True}
    for text, value in switches.items():  # (empty: unset, the default)
        assert Settings.from_env({"GOTOWN_WORKER_PROCESSES": text}).worker_processes is value
    assert Settings.from_env({"GOTOWN_MAX_BODY_BYTES": "4096"}).max_body_bytes == 4096
    assert Settings.from_env({"GOTOWN_RATE_LIMIT": "-1"}).rate_limit_per_minute == -1  # no limit


@pytest.mark.parametrize(
    ("variable", "text", "words"),
    [
        ("GOTOWN_RATE_LIMIT", "abc", "not a whole number"),
        ("GOTOWN_BOT_DELAY", "nan", "not a finite number of seconds"),
        ("GOTOWN_BOT_DELAY", "-1", "bot_delay must be >= 0"),
        ("GOTOWN_WORKER_PROCESSES", "maybe", "not one of true, false"),
        ("GOTOWN_ALLOW_SEED", "2", "not one of true, false"),
        ("GOTOWN_MAX_BODY_BYTES", "0", "max_body_bytes must be >= 1"),
        ("GOTOWN_IDLE_GAME_SECONDS", "soon", "not a number of seconds"),
        ("GOTOWN_DATABASE_URL", "nonsense", "database_url must be a database URL"),
        ("GOTOWN_BROADCAST_URL", "http://x", "broadcast_url must be memory:// or redis://"),
    ],
)
def test_a_bad_setting_in_the_environment_is_named(variable: str, text: str, words: str) -> None:
    with pytest.raises(ValueError) as caught:
        Settings.from_env({variable: text})
    assert str(caught.value).startswith(f"{variable}={text!r}: ") and words in str(caught.value)


def test_notices_cross_processes_through_redis() -> None:
    """Two PubSub instances stand for two server processes sharing a Redis."""

    async def scenario() -> Notice:
        one, two = PubSub(REDIS_URL), PubSub(REDIS_URL)
        await one.connect()
        await two.connect()
        try:
            async with two.subscribe("g1") as notices:
                await asyncio.sleep(0.1)  # let the subscription reach Redis
                await one.publish(Notice("g1", 3, "action"))
                async for notice in notices:
                    return notice
        finally:
            await one.disconnect()
            await two.disconnect()
        raise AssertionError("no notice")

    assert asyncio.run(scenario()) == Notice("g1", 3, "action")


def test_importing_the_server_does_no_work() -> None:
    import subprocess
    import sys

    code = (
        "import sys, gotown.server as s; "
        "assert callable(s.run); "
        "heavy = {'uvicorn', 'sqlalchemy', 'fastapi'} & set(sys.modules); "
        "assert not heavy, heavy"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_app_factory_reads_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gotown.server.main import create_app_from_env

    monkeypatch.setenv("GOTOWN_DATABASE_URL", f"sqlite:///{tmp_path / 'env.sqlite3'}")
    app = create_app_from_env()
    with TestClient(app) as client:
        assert client.get("/healthz").json() == {"ok": True}
    assert (tmp_path / "env.sqlite3").exists()


RULES_PAGES = Path(__file__).resolve().parents[2] / "gotown" / "texts" / "rules"
TEMPLATES = Path(__file__).resolve().parents[2] / "gotown" / "server" / "templates"
PAGES = [STATIC / "index.html", *sorted(RULES_PAGES.glob("*.html")), *TEMPLATES.glob("*.jinja")]
MODULES = sorted((STATIC / "js").rglob("*.js"))


SPECIAL_CARDS = ("dog", "bone", "jackhammer", "wrecking-ball", "thief", "super-thief",
                 "milkshake", "donut-truck")  # fmt: skip


def _examples(lang: str) -> list[tuple[str | None, str, str]]:
    """A rules page's worked examples: (the special card whose item holds it, or None; its
    cards, as ``data-cards`` says them; its words), in the page's order."""
    html = (RULES_PAGES / f"{lang}.html").read_text("utf-8")
    found = []
    for match in re.finditer(r'<p class="example" data-cards="([^"]*)">(.*?)</p>', html):
        item = re.findall(r'<li data-card="([a-z-]+)">', html[: match.start()])
        inside = bool(item) and html.rfind("</li>", 0, match.start()) < html.rfind(
            "<li", 0, match.start()
        )
        found.append((item[-1] if inside else None, match.group(1), match.group(2)))
    return found


def test_the_rules_give_a_worked_example_per_card_in_every_language() -> None:
    """Building, the joker, the steal-build and each special card (in its own item) have a
    worked example, the same situation in the eight languages, its cards drawn from codes the
    rules know (R2; a joker in a floor as "?=value", R5)."""
    english = _examples("en")
    assert [card for card, _, _ in english if card] == list(SPECIAL_CARDS)
    assert len(english) == len(SPECIAL_CARDS) + 3  # (and the joker, building, steal-build)
    codes = {*map(str, range(1, 9)), "?", *SPECIAL_CARDS}
    for card, cards, _ in english:
        shown = [code.split("=")[0] for code in cards.split()]
        assert shown and set(shown) <= codes, cards
        assert card is None or card in shown, (card, cards)
    label = {
        "en": "Example:", "fr": "Exemple :", "es": "Ejemplo:", "it": "Esempio:",
        "de": "Beispiel:", "nl": "Voorbeeld:", "cs": "Příklad:", "pl": "Przykład:",
    }  # fmt: skip
    for lang in LANGUAGES:
        examples = _examples(lang)
        assert [(card, cards) for card, cards, _ in examples] == [
            (card, cards) for card, cards, _ in english
        ], lang
        for _, _, words in examples:
            assert words.startswith(f"<strong>{label[lang]}</strong> "), (lang, words)
            assert len(words) > 80, (lang, words)


def test_no_inline_script_style_or_handler() -> None:
    """A Content-Security-Policy without 'unsafe-inline' will hold: scripts come from files,
    no markup has a style attribute or an on... handler, and the modules set no style
    attribute either (setting element.style from script is allowed by such a policy)."""
    for page in PAGES:
        html = page.read_text("utf-8")
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), page.name
        assert not re.search(r"\sstyle=|\son[a-z]+=", html), page.name
    for module in MODULES:
        script = module.read_text("utf-8")
        assert not re.search(r"""["']?\bstyle["']?\s*:""", script), module.name
        assert "innerHTML" not in script and 'setAttribute("style"' not in script, module.name


def test_the_page_is_small_modules_loaded_at_once() -> None:
    """No module over ~400 lines; index.html preloads every module the table needs (so that
    they load together, not one import level after the other), which are all there are but
    the rules page's and the QR encoder (loaded when asked for)."""
    for module in MODULES:
        assert len(module.read_text("utf-8").splitlines()) <= 400, module.name
    html = (STATIC / "index.html").read_text("utf-8")
    preloaded = set(re.findall(r'<link rel="modulepreload" href="/static/(js/[\w/.-]+)">', html))
    expected = {str(m.relative_to(STATIC)) for m in MODULES} - {"js/rules.js", "js/qr.js"}
    assert preloaded == expected


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
