"""Every setting of the web table, typed, in one place.

Values come from the arguments of :func:`Settings.from_env` first, then from the environment
(``GOTOWN_*``), then from the defaults below. Nothing here touches the disk or the network.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from .notify.endpoints import DEFAULT_PUSH_SERVICES, PushServices

DEFAULT_DATABASE_FILE = "gotown.sqlite3"
DEFAULT_VAPID_KEY_FILE = "gotown-vapid.pem"


def default_database_url() -> str:
    """A SQLite file in the current working directory."""
    return f"sqlite:///{Path.cwd() / DEFAULT_DATABASE_FILE}"


@dataclass(frozen=True)
class Settings:
    database_url: str = ""
    """SQLAlchemy URL: ``sqlite:///path`` (default) or ``postgresql+psycopg://...``."""
    broadcast_url: str = "memory://"
    """Fan-out of updates: ``memory://`` (one process) or ``redis://host:port`` (several)."""
    bot_delay: float = 0.6
    """Seconds between two bot moves, so that people can follow them. 0 in tests."""
    max_body_bytes: int = 16_384
    """Larger request bodies are refused with 413."""
    rate_limit_per_minute: int = 240
    """Requests per client address per minute before 429 (0 disables the limit)."""
    hint_seed: int = 12345
    allow_seed: bool = False
    """Whether a client may choose a game's seed (tests, demos). Off by default: whoever knows
    the seed can deal the game again and see every hand and the draw pile."""
    public_base_url: str = ""
    """Base of invitation links; empty means the URL the request came in on."""
    absent_seconds: float = 60.0
    """After how long away a seat may be handed to a bot by the others."""
    presence_ttl: float = 15.0
    """With ``redis://``: seconds a WebSocket counts as open in the shared presence without a
    heartbeat; each process refreshes its own every ``presence_ttl / 3`` seconds, so the seats
    of a process that died stop counting as connected after at most this long."""
    idle_game_seconds: float = 600.0
    """A game held in memory with no socket open and no bot playing is dropped from memory once
    unused for this long (checked every ``min(60, idle_game_seconds / 2)`` seconds); the next
    request loads it from the database again, as after a restart. Keep it well beyond the
    time a request takes."""
    max_pending_estimates: int = 8
    """Hint and chances estimates (each up to about a second of the one hint worker) queued or
    under way at once on this process; one more gets 429 ``estimate-busy``. An estimate that
    is already under way for the same seat and version is shared, and counts once."""
    max_pending_estimates_per_client: int = 2
    """The same bound for the estimates one client address started."""
    max_bots_only_tables: int = 4
    """Tables of bots only whose bots play at once on this process (anyone may start one, to
    watch; each plays up to ``BOTS_ONLY_TURN_LIMIT`` turns): one more is refused with 429
    ``too-many-bot-tables``, and at a restart only this many are resumed (the newest first); the
    others stand still. 0: no table of bots only."""
    max_bots_only_tables_per_client: int = 2
    """The same bound for the tables of bots only one client address started."""
    sqlite_synchronous: str = "full"
    """SQLite only: ``full`` (an acknowledged action survives a power loss) or ``normal``
    (faster; survives a crash of the process only); see :class:`gotown.server.storage.Store`."""
    max_sockets_per_client: int = 32
    """WebSockets open at once from one client address (0: no cap); see
    :mod:`gotown.server.services.sockets`."""
    max_sockets_per_game: int = 64
    """WebSockets open at once on one game, seats and spectators (0: no cap)."""
    fd_reserve: int = 64
    """File descriptors kept for HTTP requests and the database: no new WebSocket once the
    process's descriptor limit less this many are in use."""
    redis_pool_size: int = 16
    """With ``redis://``: connections that each Redis user of a process (notices, presence, the
    rate limit) may open at once; a caller finding them all busy waits for one (up to its
    timeout, a second or two) rather than failing."""
    worker_processes: bool = True
    """Bot decisions and estimates in worker processes, beside the event loop and at a lower
    CPU priority (:mod:`gotown.server.workers`); False: in threads of this process (one core
    for everything, as the interpreter's lock allows)."""
    bot_policies: tuple[tuple[str, str], ...] = ()
    """Trained policies offered as bot levels ``ppo:NAME``: (name, model file) pairs, from
    ``GOTOWN_BOT_POLICIES=NAME=FILE,...``. Only the operator names a file: loading a policy
    runs code (unpickling), so a client only ever picks one of these by name. Seated when the
    ``ppo`` level is registered (``gotown serve`` does it, with the rl extra installed)."""
    vapid_key_file: str = ""
    """The server's VAPID key for Web Push (:mod:`gotown.server.notify.vapid`), made in this
    file on the first start; empty: ``gotown-vapid.pem`` beside the SQLite database, else in
    the working directory. Keep it with the database: a new key loses every push subscription."""
    vapid_contact: str = ""
    """How a push service reaches the operator (the VAPID ``sub`` claim): ``mailto:ADDRESS`` or
    an ``https://`` URL. Push services require it: empty, no push is sent."""
    push_services: tuple[str, ...] = DEFAULT_PUSH_SERVICES
    """The push services the server sends to (:mod:`gotown.server.notify.endpoints`): host
    names, each allowing itself and the hosts under it, or exact origins
    (``http://127.0.0.1:8123``) allowed as written, local ones included."""
    push_ttl: int = 86400
    """Seconds a push service keeps a notice for a device that is offline (at most 28 days)."""
    notify_timeout: float = 10.0
    """The most one push or one e-mail may take, connecting included."""
    smtp_url: str = ""
    """E-mail notices through this server (:mod:`gotown.server.notify.mail`):
    ``smtp://USER:PASSWORD@HOST:PORT`` (STARTTLS when offered) or ``smtps://`` (TLS from the
    start); empty: no e-mail."""
    mail_from: str = ""
    """The sender of e-mail notices, ``GoTown <noreply@example.org>``; needed with
    ``smtp_url``."""
    operator_token: str = ""
    """A secret (16 characters or more) that lets its bearer read ``/metrics`` on the public
    port (``Authorization: Bearer TOKEN``); empty: ``/metrics`` is not served there."""
    operator_port: int = 0
    """A second port, on ``operator_host``, that serves only ``/metrics``, ``/healthz`` and
    ``/readyz``, with no token (:mod:`gotown.server.operator`); 0: none. One process per port."""
    operator_host: str = "127.0.0.1"
    """The address the operator port listens on (keep it off the public network)."""
    shutdown_seconds: float = 10.0
    """On SIGTERM: how long requests under way, then the bots' moves under way, may take to
    finish (:mod:`gotown.server.drain`)."""
    retention_days: float = 0.0
    """Finished games are deleted this many days after they ended (:mod:`gotown.server.retention`);
    0: kept for ever."""
    abandoned_days: float = 0.0
    """Games not finished and unchanged this many days (lobbies never filled, tables left) are
    deleted; 0: kept for ever. Keep it longer than the slowest turn-based table's turns."""

    clock_offset: float = 0.0
    """Seconds the server's clock runs ahead of the system's (:mod:`gotown.server.clock`): a
    test's way to restart a server in the same simulated week. 0 in production."""
    test_clock: bool = False
    """Let ``POST /api/test/clock`` move the server's clock on (tests of turn-based tables
    that fast-forward days). Never on a real server: anyone could end everyone's turns."""

    def __post_init__(self) -> None:
        if not self.database_url:
            object.__setattr__(self, "database_url", default_database_url())
        from sqlalchemy.engine import make_url  # (it only reads the text)
        from sqlalchemy.exc import ArgumentError

        try:
            make_url(self.database_url)
        except ArgumentError:
            raise SettingError(
                "database_url",
                "database_url must be a database URL, e.g. sqlite:///gotown.sqlite3 or "
                "postgresql+psycopg://user@host/db",
            ) from None
        if urlparse(self.broadcast_url).scheme not in ("memory", "redis", "rediss"):
            raise SettingError(
                "broadcast_url", "broadcast_url must be memory:// or redis://HOST:PORT (rediss://)"
            )
        if self.sqlite_synchronous not in ("full", "normal"):
            raise SettingError("sqlite_synchronous", "sqlite_synchronous must be full or normal")
        if self.bot_delay < 0:
            raise SettingError("bot_delay", "bot_delay must be >= 0")
        if self.presence_ttl <= 0:
            raise SettingError("presence_ttl", "presence_ttl must be > 0")
        if self.idle_game_seconds <= 0:
            raise SettingError("idle_game_seconds", "idle_game_seconds must be > 0")
        for name, path in self.bot_policies:
            if not POLICY_NAME.fullmatch(name):
                raise SettingError(
                    "bot_policies",
                    f"bot_policies: policy name {name!r} is not 1 to 12 of a-z, 0-9 and - "
                    "(its level ppo:NAME is stored in 16 characters)",
                )
            if not path:
                raise SettingError("bot_policies", f"bot_policies: policy {name!r} has no file")
        if len({name for name, _ in self.bot_policies}) != len(self.bot_policies):
            raise SettingError("bot_policies", "bot_policies: a policy name is given twice")
        for name in (
            "max_body_bytes",
            "max_pending_estimates",
            "max_pending_estimates_per_client",
            "redis_pool_size",
        ):
            if getattr(self, name) < 1:
                raise SettingError(name, f"{name} must be >= 1")
        for name in (
            "max_bots_only_tables",
            "max_bots_only_tables_per_client",
            "max_sockets_per_client",
            "max_sockets_per_game",
            "fd_reserve",
        ):
            if getattr(self, name) < 0:
                raise SettingError(name, f"{name} must be >= 0")
        self._check_notices()
        self._check_operations()

    def _check_notices(self) -> None:
        """The settings of "your turn" notices (push and e-mail)."""
        if not self.vapid_key_file:
            from sqlalchemy.engine import make_url

            url = make_url(self.database_url)
            folder = Path.cwd()
            if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
                folder = Path(str(url.database)).parent
            object.__setattr__(self, "vapid_key_file", str(folder / DEFAULT_VAPID_KEY_FILE))
        if self.vapid_contact:
            from .notify.vapid import check_contact

            try:
                check_contact(self.vapid_contact)
            except ValueError as exc:
                raise SettingError("vapid_contact", f"vapid_contact: {exc}") from None
        try:
            PushServices.from_entries(self.push_services)
        except ValueError as exc:
            raise SettingError("push_services", f"push_services: {exc}") from None
        if not 0 <= self.push_ttl <= 28 * 86400:
            raise SettingError("push_ttl", "push_ttl must be 0 to 2419200 seconds (28 days)")
        if not self.notify_timeout > 0:
            raise SettingError("notify_timeout", "notify_timeout must be > 0")
        if self.smtp_url:
            from .notify.mail import SmtpServer, check_mail_from

            try:
                SmtpServer.from_url(self.smtp_url)
            except ValueError as exc:
                raise SettingError("smtp_url", f"smtp_url: {exc}") from None
            try:
                check_mail_from(self.mail_from)
            except ValueError as exc:
                raise SettingError(
                    "mail_from", f"mail_from (needed with smtp_url): {exc}"
                ) from None

    def _check_operations(self) -> None:
        """The operator's settings: metrics, stopping, retention."""
        if self.operator_token and len(self.operator_token) < MIN_OPERATOR_TOKEN:
            raise SettingError(
                "operator_token",
                f"operator_token must be at least {MIN_OPERATOR_TOKEN} characters (e.g. the "
                "output of: python3 -c 'import secrets; print(secrets.token_urlsafe(24))')",
            )
        if not 0 <= self.operator_port <= 65535:
            raise SettingError("operator_port", "operator_port must be 0 (none) to 65535")
        if not self.operator_host:
            raise SettingError("operator_host", "operator_host must be an address to listen on")
        if not self.shutdown_seconds > 0:
            raise SettingError("shutdown_seconds", "shutdown_seconds must be > 0")
        for name in ("retention_days", "abandoned_days"):
            if getattr(self, name) < 0:
                raise SettingError(name, f"{name} must be >= 0 (0: kept for ever)")

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None, **overrides: Any) -> Settings:
        """Settings from ``GOTOWN_*`` variables (:data:`ENVIRONMENT`; an empty one counts as
        unset), then explicit overrides (None is ignored). Raises :class:`SettingError` naming
        the variable a bad value came from, and what it should be."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        given: dict[str, str] = {}  # setting -> the variable that gave it
        for variable, (name, read) in ENVIRONMENT.items():
            text: str | None = env.get(variable)
            if text:
                try:
                    values[name] = read(text)
                except ValueError as exc:
                    raise SettingError(name, f"{variable}={text!r}: {exc}", variable) from None
                given[name] = variable
        for name, value in overrides.items():
            if value is not None:
                if value != values.get(name):  # (the same value as the variable's: still its)
                    given.pop(name, None)
                values[name] = value
        try:
            return cls(**values)
        except SettingError as exc:  # a bound of __post_init__: name the variable, if any
            source = given.get(exc.name)
            if source is None:
                raise
            raise SettingError(exc.name, f"{source}={env[source]!r}: {exc}", source) from None

    def with_(self, **changes: Any) -> Settings:
        return replace(self, **changes)


class SettingError(ValueError):
    """A bad setting: ``name`` is the field, the message says what is wrong (and, from
    :meth:`Settings.from_env`, which variable gave it)."""

    def __init__(self, name: str, message: str, variable: str | None = None) -> None:
        super().__init__(message)
        self.name, self.variable = name, variable


def _text(text: str) -> str:
    return text


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError("not a whole number") from None


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError("not a number of seconds") from None
    if not math.isfinite(value):
        raise ValueError("not a finite number of seconds")
    return value


def _days(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError("not a number of days") from None
    if not math.isfinite(value):
        raise ValueError("not a finite number of days")
    return value


#: The shortest operator token accepted (a guessable one would open /metrics to anyone).
MIN_OPERATOR_TOKEN = 16

#: A policy's name, as its level ``ppo:NAME`` (at most 16 characters) is stored.
POLICY_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,11}")


def _policies(text: str) -> tuple[tuple[str, str], ...]:
    """``NAME=FILE,NAME=FILE`` as (name, file) pairs (a file name holds no comma)."""
    pairs = []
    for item in text.split(","):
        name, equals, path = item.strip().partition("=")
        if not equals:
            raise ValueError(f"{item.strip()!r} is not NAME=FILE")
        pairs.append((name.strip(), path.strip()))
    return tuple(pairs)


def _switch(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValueError("not one of true, false, 1, 0, yes, no, on, off")


def _names(text: str) -> tuple[str, ...]:
    """Entries separated by commas or spaces."""
    return tuple(text.replace(",", " ").split())


#: The environment variables :meth:`Settings.from_env` reads: the setting each gives, and how
#: its text is read.
ENVIRONMENT: dict[str, tuple[str, Callable[[str], Any]]] = {
    "GOTOWN_DATABASE_URL": ("database_url", _text),
    "GOTOWN_BROADCAST_URL": ("broadcast_url", _text),
    "GOTOWN_BOT_DELAY": ("bot_delay", _seconds),
    "GOTOWN_RATE_LIMIT": ("rate_limit_per_minute", _whole),
    "GOTOWN_ALLOW_SEED": ("allow_seed", _switch),
    "GOTOWN_WORKER_PROCESSES": ("worker_processes", _switch),
    "GOTOWN_IDLE_GAME_SECONDS": ("idle_game_seconds", _seconds),
    "GOTOWN_PUBLIC_BASE_URL": ("public_base_url", _text),
    "GOTOWN_BOT_POLICIES": ("bot_policies", _policies),
    "GOTOWN_CLOCK_OFFSET": ("clock_offset", _seconds),
    "GOTOWN_TEST_CLOCK": ("test_clock", _switch),
    "GOTOWN_SQLITE_SYNCHRONOUS": ("sqlite_synchronous", lambda text: text.strip().lower()),
    **{
        f"GOTOWN_{name.upper()}": (name, _whole)
        for name in (
            "max_body_bytes",
            "max_pending_estimates",
            "max_pending_estimates_per_client",
            "max_bots_only_tables",
            "max_bots_only_tables_per_client",
            "max_sockets_per_client",
            "max_sockets_per_game",
            "fd_reserve",
            "redis_pool_size",
        )
    },
    "GOTOWN_VAPID_KEY_FILE": ("vapid_key_file", _text),
    "GOTOWN_VAPID_CONTACT": ("vapid_contact", _text),
    "GOTOWN_PUSH_SERVICES": ("push_services", _names),
    "GOTOWN_PUSH_TTL": ("push_ttl", _whole),
    "GOTOWN_NOTIFY_TIMEOUT": ("notify_timeout", _seconds),
    "GOTOWN_SMTP_URL": ("smtp_url", _text),
    "GOTOWN_MAIL_FROM": ("mail_from", _text),
    "GOTOWN_OPERATOR_TOKEN": ("operator_token", _text),
    "GOTOWN_OPERATOR_PORT": ("operator_port", _whole),
    "GOTOWN_OPERATOR_HOST": ("operator_host", _text),
    "GOTOWN_SHUTDOWN_SECONDS": ("shutdown_seconds", _seconds),
    "GOTOWN_RETENTION_DAYS": ("retention_days", _days),
    "GOTOWN_ABANDONED_DAYS": ("abandoned_days", _days),
}
