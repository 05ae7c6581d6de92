"""The page's files (static/): its strings in every language, the card names, the words for
every error code, the rules pages' worked examples, no inline script or style, small modules
loaded at once. The routes that serve them: api/test_pages.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

from gotown.server.errors import CODES
from gotown.server.schemas import LANGUAGES

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
