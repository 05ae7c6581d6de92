"""A trained policy the operator offers (``ppo:NAME``) in the page: named in the seat's level
list, and seated. Needs the rl extra (a tiny policy is trained first)."""

from __future__ import annotations

from pathlib import Path

import pytest
from live_server import serving
from playwright.sync_api import Browser
from rl.helpers import train_tiny_policy

import gotown.bots as bots
from gotown.rl.policy import register_ppo_level
from gotown.server.config import Settings

from .fixtures import LAPTOP, get, strings, watch_errors

pytestmark = [pytest.mark.browser, pytest.mark.rl]


def test_the_home_form_offers_and_seats_a_trained_policy(
    browser: Browser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model, _, _ = train_tiny_policy(tmp_path)
    monkeypatch.setattr(bots, "EXTRA_LEVELS", {})
    register_ppo_level()
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'gotown.sqlite3'}",
        bot_delay=0.05,
        rate_limit_per_minute=0,
        worker_processes=False,
        bot_policies=(("tiny", str(model)),),
    )
    with serving(settings) as url:
        context = browser.new_context(viewport=LAPTOP)
        page = context.new_page()
        errors = watch_errors(page)
        page.goto(url + "/")
        page.wait_for_selector("#create-title")
        page.click("#custom-game > summary")
        label = strings("en")["level_ppo"].replace("{name}", "tiny")
        options = page.locator("#seat-level-1 option")
        assert label in options.all_text_contents()
        # Seated: a table for two, the policy in the second seat, named by its name.
        page.select_option("#players", "2")
        page.select_option("#seat-level-1", "ppo:tiny")
        page.fill("#name", "Ada")
        page.click("#create-btn")
        page.wait_for_selector("#status")
        page.wait_for_function(
            "(label) => document.body.textContent.includes(label)", f"Bot 2 ({label})"
        )
        game_id = page.url.split("/g/")[1].split("#")[0]
        lobby = get(url, f"/api/games/{game_id}/lobby")
        assert lobby["seats"][1]["level"] == "ppo:tiny"
        context.close()
        assert not errors, errors
        assert "ppo:tiny" in get(url, "/api/meta")["bot_levels"]
