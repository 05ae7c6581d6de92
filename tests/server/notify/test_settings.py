"""The notices' settings (:mod:`gotown.server.config`): read from GOTOWN_*, checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from gotown.server.config import SettingError, Settings
from gotown.server.notify.endpoints import DEFAULT_PUSH_SERVICES, PushServices


def test_the_defaults() -> None:
    settings = Settings.from_env({"GOTOWN_DATABASE_URL": "sqlite:////srv/gotown/db.sqlite3"})
    assert settings.vapid_key_file == "/srv/gotown/gotown-vapid.pem"  # beside the database
    assert settings.push_services == DEFAULT_PUSH_SERVICES
    assert (settings.vapid_contact, settings.smtp_url, settings.mail_from) == ("", "", "")
    assert (settings.push_ttl, settings.notify_timeout) == (86400, 10)
    other = Settings(database_url="postgresql+psycopg://u@h/db")
    assert other.vapid_key_file == str(Path.cwd() / "gotown-vapid.pem")


def test_the_settings_come_from_the_environment() -> None:
    settings = Settings.from_env(
        {
            "GOTOWN_VAPID_KEY_FILE": "/etc/gotown/vapid.pem",
            "GOTOWN_VAPID_CONTACT": "mailto:ops@example.org",
            "GOTOWN_PUSH_SERVICES": "fcm.googleapis.com, http://127.0.0.1:8123",
            "GOTOWN_PUSH_TTL": "3600",
            "GOTOWN_NOTIFY_TIMEOUT": "2.5",
            "GOTOWN_SMTP_URL": "smtps://gotown:pw@mail.example.org",
            "GOTOWN_MAIL_FROM": "GoTown <noreply@example.org>",
        }
    )
    assert settings.vapid_key_file == "/etc/gotown/vapid.pem"
    assert settings.push_services == ("fcm.googleapis.com", "http://127.0.0.1:8123")
    services = PushServices.from_entries(settings.push_services)
    assert services.allows_origin("http", "127.0.0.1", 8123)
    assert (settings.push_ttl, settings.notify_timeout) == (3600, 2.5)
    assert settings.smtp_url.startswith("smtps://") and settings.mail_from.startswith("GoTown")


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"GOTOWN_VAPID_CONTACT": "ops@example.org"}, "neither mailto:ADDRESS nor an https://"),
        ({"GOTOWN_PUSH_SERVICES": "fcm.googleapis.com ftp://x.org"}, "'ftp://x.org' is not an"),
        ({"GOTOWN_PUSH_TTL": "-1"}, "push_ttl must be 0 to 2419200"),
        ({"GOTOWN_PUSH_TTL": "soon"}, "not a whole number"),
        ({"GOTOWN_NOTIFY_TIMEOUT": "0"}, "notify_timeout must be > 0"),
        ({"GOTOWN_SMTP_URL": "mail.example.org"}, "smtp_url: not smtp://"),
        ({"GOTOWN_SMTP_URL": "smtp://h"}, "mail_from (needed with smtp_url)"),
        (
            {"GOTOWN_SMTP_URL": "smtp://h", "GOTOWN_MAIL_FROM": "GoTown"},
            "'GoTown': not NAME@DOMAIN",
        ),
    ],
)
def test_a_bad_setting_names_its_variable(env: dict[str, str], message: str) -> None:
    with pytest.raises(SettingError) as refused:
        Settings.from_env(env)
    assert message in str(refused.value)
    assert refused.value.variable in (*env, None)  # (None: mail_from, missing)
    assert refused.value.variable or refused.value.name == "mail_from"
