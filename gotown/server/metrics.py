"""What a process is doing, for its operator: Prometheus metrics (``prometheus-client``).

**Each process counts its own.** Several processes behind a proxy are scraped one by one, at
each one's own address or operator port (``Settings.operator_port``), never through the proxy,
which would answer from whichever process it picked. The counters and histograms here are the
process's (Prometheus's own convention: one set per process); what is open now (tables,
sockets, bots at work) is read from the app's services when a scrape asks
(:class:`ServiceCollector`).

Reading them is the operator's only: ``/metrics`` answers on the public port only to the bearer
of ``Settings.operator_token`` (:mod:`gotown.server.api.routes.health`), and without a token on
the operator port (:mod:`gotown.server.operator`).

The small API below is what the rest of the server calls at the moment something happens: an
action stored, a socket's update sent, a bot's decision, a deadline handled, a notice sent, a
database or Redis error. Each call costs a dictionary operation or two, never I/O.
"""

from __future__ import annotations

import collections
import contextlib
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

if TYPE_CHECKING:
    from .services import GameService

__all__ = [
    "CONTENT_TYPE",
    "action_stored",
    "bot_decision",
    "database_error",
    "deadline_due",
    "notice_heard",
    "notice_result",
    "redis_error",
    "registry_for",
    "render",
    "update_sent",
]

CONTENT_TYPE = CONTENT_TYPE_LATEST

#: Seconds: from a millisecond (a socket's update on an idle server) to ten seconds (a server
#: in trouble).
UPDATE_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
#: Seconds a bot takes: ``random`` in a millisecond, ``expert`` up to a second or two.
THINK_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0, 2.0, 5.0, 10.0)
#: Seconds after its moment a deadline was handled.
LATENESS_BUCKETS = (0.1, 0.5, 1.0, 2.0, 5.0, 15.0, 60.0, 300.0, 3600.0)
#: A deadline handled more than this many seconds after its moment counts as late.
LATE_SECONDS = 5.0
#: Actions remembered for the update histogram (their updates are sent within milliseconds;
#: the oldest are forgotten first).
PENDING_UPDATES = 4096

ACTIONS = Counter(
    "gotown_actions",
    "Actions stored by this process, by who made them (human or bot): rate() is actions a second.",
    ["by"],
    registry=None,
)
UPDATE_SECONDS = Histogram(
    "gotown_update_seconds",
    "From an action to each other seat's socket on this process sent its update. made=here: "
    "from the action stored by this process; made=elsewhere: from the notice of another "
    "process's action arriving here (Redis's hop not included).",
    ["made"],
    buckets=UPDATE_BUCKETS,
    registry=None,
)
BOT_THINK_SECONDS = Histogram(
    "gotown_bot_think_seconds",
    "From asking a bot for a move to its answer (the wait for a worker included), by level.",
    ["level"],
    buckets=THINK_BUCKETS,
    registry=None,
)
BOT_PENDING = Gauge(
    "gotown_bot_decisions_pending",
    "Bot decisions asked for and not answered yet: waiting for a worker or under way.",
    registry=None,
)
DEADLINES_DUE = Counter(
    "gotown_deadlines_due",
    "Turn deadlines that fell due and were handled by this process.",
    registry=None,
)
DEADLINES_LATE = Counter(
    "gotown_deadlines_late",
    f"Turn deadlines handled more than {LATE_SECONDS:g} seconds after their moment.",
    registry=None,
)
DEADLINE_LATENESS = Histogram(
    "gotown_deadline_lateness_seconds",
    "Seconds after its moment each deadline was handled.",
    buckets=LATENESS_BUCKETS,
    registry=None,
)
NOTICES = Counter(
    "gotown_notices",
    "'Your turn' notices this process tried to send, by channel (push, email) and outcome "
    "(delivered; gone, retry, refused: not delivered).",
    ["channel", "outcome"],
    registry=None,
)
DATABASE_ERRORS = Counter(
    "gotown_database_errors",
    "Database calls that got no answer (down, unreachable, connection lost, pool exhausted).",
    registry=None,
)
REDIS_ERRORS = Counter(
    "gotown_redis_errors",
    "Redis calls that failed (notices, presence, counts of changes, the rate limit).",
    registry=None,
)
HTTP_REQUESTS = Counter(
    "gotown_http_requests",
    "HTTP requests answered, by method, route (its template, never its ids) and status.",
    ["method", "route", "status"],
    registry=None,
)
HTTP_SECONDS = Histogram(
    "gotown_http_request_seconds",
    "Time to answer an HTTP request, by route template.",
    ["route"],
    buckets=UPDATE_BUCKETS,
    registry=None,
)

#: What this process's collectors are; each app's registry holds them (:func:`registry_for`).
PROCESS_METRICS: tuple[Collector, ...] = (
    ACTIONS,
    UPDATE_SECONDS,
    BOT_THINK_SECONDS,
    BOT_PENDING,
    DEADLINES_DUE,
    DEADLINES_LATE,
    DEADLINE_LATENESS,
    NOTICES,
    DATABASE_ERRORS,
    REDIS_ERRORS,
    HTTP_REQUESTS,
    HTTP_SECONDS,
)


@dataclass
class _Pending:
    """An action whose updates are being timed on this process."""

    start: float
    actor: int | None
    made: str
    timed: set[int] = field(default_factory=set)  # (the sockets that had theirs)


# By (process, game, version): the process is the app's notices' id, so that several apps in one
# interpreter (tests) keep theirs apart.
_pending: collections.OrderedDict[tuple[str, str, int], _Pending] = collections.OrderedDict()


def _remember(key: tuple[str, str, int], pending: _Pending) -> None:
    _pending[key] = pending
    _pending.move_to_end(key)
    while len(_pending) > PENDING_UPDATES:
        _pending.popitem(last=False)


# --- the API the server calls --------------------------------------------------------------------


def action_stored(process: str, game_id: str, version: int, seat: int, by: str) -> None:
    """An action of ``seat`` (``by``: "human" or "bot") is stored by ``process`` (its notices'
    id); the game is at ``version``."""
    ACTIONS.labels(by=by).inc()
    _remember((process, game_id, version), _Pending(time.perf_counter(), seat, "here"))


def notice_heard(process: str, game_id: str, version: int, change: str, origin: str) -> None:
    """A notice reached a socket of ``process``: the update's time of another process's
    action (``origin``) starts here."""
    key = (process, game_id, version)
    if change == "action" and origin != process and key not in _pending:
        _remember(key, _Pending(time.perf_counter(), None, "elsewhere"))


def update_sent(process: str, game_id: str, version: int, seat: int | None, socket: int) -> None:
    """The socket ``socket`` (any number proper to it) of ``seat`` (None: a spectator) was sent
    the game at ``version``: timed once, when it is not the seat that acted."""
    pending = _pending.get((process, game_id, version))
    if pending is None or socket in pending.timed or (seat is not None and seat == pending.actor):
        return
    pending.timed.add(socket)
    UPDATE_SECONDS.labels(made=pending.made).observe(time.perf_counter() - pending.start)


@contextlib.contextmanager
def bot_decision(level: str) -> Iterator[None]:
    """Around a bot's decision: counted as pending until it ends, and timed."""
    BOT_PENDING.inc()
    start = time.perf_counter()
    try:
        yield
    finally:
        BOT_PENDING.dec()
        BOT_THINK_SECONDS.labels(level=level).observe(time.perf_counter() - start)


def deadline_due(late_by: float) -> None:
    """A turn's deadline was handled ``late_by`` seconds after its moment (turn-based tables:
    called once per deadline, by the process that handled it)."""
    DEADLINES_DUE.inc()
    DEADLINE_LATENESS.observe(max(0.0, late_by))
    if late_by > LATE_SECONDS:
        DEADLINES_LATE.inc()


def notice_result(channel: str, outcome: str) -> None:
    """One delivery of a notice ended: ``channel`` "push" or "email", ``outcome`` one of
    :class:`gotown.server.notify.results.Outcome` (``delivered``, ``gone``, ``retry``,
    ``refused``)."""
    NOTICES.labels(channel=channel, outcome=str(outcome)).inc()


def database_error() -> None:
    DATABASE_ERRORS.inc()


def redis_error() -> None:
    REDIS_ERRORS.inc()


# --- the HTTP requests ---------------------------------------------------------------------------


class RequestMetrics:
    """ASGI middleware counting and timing HTTP requests by their route's template (so
    ``/api/games/{game_id}``, never a game's id: a bounded number of series)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500

        async def sending(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            route = getattr(scope.get("route"), "path", None) or "unmatched"
            HTTP_REQUESTS.labels(method=scope["method"], route=route, status=str(status)).inc()
            HTTP_SECONDS.labels(route=route).observe(time.perf_counter() - start)


# --- what is open now, per app -------------------------------------------------------------------


class ServiceCollector(Collector):
    """What one app's services hold now, read at each scrape."""

    def __init__(self, service: GameService, stopping: Any = None) -> None:
        self.service = service
        self.stopping = stopping

    def collect(self) -> Iterable[GaugeMetricFamily]:
        service = self.service
        tables = GaugeMetricFamily(
            "gotown_tables_open",
            "Tables held in this process's memory, by status (lobby, playing, over).",
            labels=["status"],
        )
        statuses = collections.Counter(live.stored.status for live in service.registry.games())
        for status in ("lobby", "playing", "over"):
            tables.add_metric([status], statuses.get(status, 0))
        yield tables
        yield GaugeMetricFamily(
            "gotown_sockets_open", "WebSockets open on this process.", value=service.sockets.total
        )
        playing = sum(1 for live in service.registry.games() if service.bots.is_playing(live))
        yield GaugeMetricFamily(
            "gotown_bot_tables_playing",
            "Tables whose bots play (or think) on this process now.",
            value=playing,
        )
        yield GaugeMetricFamily(
            "gotown_stopping",
            "1 once this process has been told to stop (it drains), else 0.",
            value=1 if self.stopping is not None and self.stopping() else 0,
        )


def registry_for(service: GameService, stopping: Any = None) -> CollectorRegistry:
    """A registry of this process's metrics and of what ``service`` holds now (``stopping``:
    a callable saying whether the process drains), with the process's CPU, memory and file
    descriptors (``process_*``) and the interpreter's version."""
    disable_created_metrics()  # (no *_created series: a timestamp each, of no use here)
    registry = CollectorRegistry(auto_describe=True)
    for collector in PROCESS_METRICS:
        registry.register(collector)
    registry.register(ServiceCollector(service, stopping))
    ProcessCollector(registry=registry)
    PlatformCollector(registry=registry)
    return registry


def render(registry: CollectorRegistry) -> bytes:
    """The text a scrape gets (Prometheus's exposition format)."""
    return generate_latest(registry)
