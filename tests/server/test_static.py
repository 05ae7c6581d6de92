"""Pages, languages and the rules pages; settings; the pub/sub across processes."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from gotown.server.pubsub import Notice, PubSub
from gotown.server.schemas import LANGUAGES
from gotown.server.settings import Settings

from .conftest import REDIS_URL

STATIC = Path(__file__).resolve().parents[2] / "gotown" / "server" / "static"
RULES = Path(__file__).resolve().parents[3] / "shared" / "rules" / "RULES.md"


def _strings(lang: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((STATIC / "i18n" / f"{lang}.json").read_text("utf-8"))
    return data


def test_every_language_has_every_string() -> None:
    english = _strings("en")
    for lang in LANGUAGES:
        strings = _strings(lang)
        assert set(strings) == set(english), lang
        for key, text in strings.items():
            assert text.strip(), (lang, key)
            placeholders = set(re.findall(r"\{(\w+)\}", english[key]))
            assert set(re.findall(r"\{(\w+)\}", text)) == placeholders, (lang, key)


def test_every_literal_key_used_by_the_page_exists() -> None:
    script = (STATIC / "app.js").read_text("utf-8")
    used = set(re.findall(r'\bt\("([a-z_?-]+)"\s*[,)]', script))
    english = _strings("en")
    assert used and used <= set(english), sorted(used - set(english))


def test_card_names_follow_the_rules_table() -> None:
    """R2 gives the card names in the eight languages."""
    names = {"?": "Joker", "dog": "Guard dog", "thief": "Thief", "super-thief": "Super-thief"}
    assert {k: _strings("en")[f"card_{k}"] for k in names} == names
    assert _strings("cs")["card_super-thief"] == "Mafián"
    assert _strings("pl")["card_donut-truck"] == "Dostawa pączków"
    assert _strings("de")["card_jackhammer"] == "Presslufthammer"
    assert _strings("fr")["card_floor"] == "Carte étage"


def test_pages_and_rules_are_served(client: TestClient) -> None:
    for path in ("/", "/j/abc", "/g/abc", "/w/abc", "/r/abc"):
        r = client.get(path)
        assert r.status_code == 200 and "app.js" in r.text
    bodies = set()
    for lang in LANGUAGES:
        r = client.get(f"/rules/{lang}")
        assert r.status_code == 200 and f'lang="{lang}"' in r.text
        bodies.add(r.text)
    assert len(bodies) == len(LANGUAGES)
    assert client.get("/rules/xx").status_code == 404
    assert client.get("/static/i18n/pl.json").json()["card_thief"] == "Złodziej"


def test_settings_come_from_the_environment(tmp_path: Path) -> None:
    env = {"GOTOWN_DATABASE_URL": "sqlite:///x.db", "GOTOWN_BOT_DELAY": "0.25"}
    settings = Settings.from_env(env)
    assert settings.database_url == "sqlite:///x.db" and settings.bot_delay == 0.25
    assert Settings.from_env({}, database_url=None).database_url.endswith("gotown.sqlite3")
    assert Settings.from_env({}).broadcast_url == "memory://"


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
    from gotown.server.app import create_app_from_env

    monkeypatch.setenv("GOTOWN_DATABASE_URL", f"sqlite:///{tmp_path / 'env.sqlite3'}")
    app = create_app_from_env()
    with TestClient(app) as client:
        assert client.get("/healthz").json() == {"ok": True}
    assert (tmp_path / "env.sqlite3").exists()
