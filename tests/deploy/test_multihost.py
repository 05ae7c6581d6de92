"""The deployment, across hosts: two GoTown hosts behind nginx (deploy/nginx/gotown.conf, as
shipped), PostgreSQL and Redis on a host of their own, and the players on a fifth, each host a
network namespace with its own address. Twenty games are played through the proxy; mid-play
one GoTown host is stopped with SIGTERM (and started again: a rolling upgrade), then the other
is killed with SIGKILL. Every player's socket reconnects through the proxy, every game is
finished, and every acknowledged move is in the database once, at its version.

It needs root, ``ip netns`` and nginx: ``scripts/test`` runs it where the machine allows, and
deselects it (``-m "not netns"``) saying why where it does not."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from . import netns

pytestmark = [pytest.mark.netns, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
GAMES = 20
HOSTS = {"db": 2, "app1": 11, "app2": 12, "proxy": 20, "clients": 30}
SHUTDOWN_SECONDS = 10
#: Moves acknowledged before the first stop (of about 900 in all); the last HELD games wait at
#: version HOLD_AT until the kill, so that play goes on through both however long the restart
#: takes.
BEFORE_STOP = 100
HELD, HOLD_AT = 6, 20


def _postgres_bin() -> Path:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/postgres"))
    if not found:
        pytest.fail("no PostgreSQL server binaries (Debian: apt-get install postgresql)")
    return found[-1].parent


class Deployment:
    """The hosts, what runs on each, and a probe on the players' host."""

    def __init__(self, work: Path) -> None:
        self.work = work
        self.net = netns.Network(HOSTS)
        self.apps: dict[str, subprocess.Popen[bytes]] = {}
        self.env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        }
        db = self.net.address("db")
        self.app_env = {
            **self.env,
            "GOTOWN_DATABASE_URL": f"postgresql+psycopg://postgres@{db}:5432/gotown",
            "GOTOWN_BROADCAST_URL": f"redis://{db}:6379/0",
            "FORWARDED_ALLOW_IPS": self.net.address("proxy"),
            # The players all come from one address (a school behind its router would too).
            "GOTOWN_RATE_LIMIT": "0",
            "GOTOWN_MAX_SOCKETS_PER_CLIENT": "0",
            "GOTOWN_BOT_DELAY": "0.05",
            "GOTOWN_SHUTDOWN_SECONDS": str(SHUTDOWN_SECONDS),
            "GOTOWN_OPERATOR_PORT": "9100",
            "GOTOWN_OPERATOR_HOST": "0.0.0.0",
            "GOTOWN_VAPID_KEY_FILE": str(work / "vapid.pem"),
        }
        self._probe: subprocess.Popen[str] | None = None

    # --- hosts ---------------------------------------------------------------------------

    def up(self) -> None:
        netns.sweep_stale()
        self.net.up()
        self._database()
        migrate = subprocess.run(
            self.net.command("app1", [sys.executable, "-m", "gotown.cli", "admin", "migrate"]),
            env=self.app_env,
            capture_output=True,
            text=True,
            cwd=self.work,
        )
        assert migrate.returncode == 0, migrate.stderr
        for app in ("app1", "app2"):
            self.start_app(app)
        self._proxy()
        self._probe = subprocess.Popen(
            self.net.command("clients", [sys.executable, "-m", "tests.deploy.players", "probe"]),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env=self.env,
        )
        for app in ("app1", "app2"):
            self.until_ready(app)
        self.until(
            lambda: self.get(f"http://{self.net.address('proxy')}/readyz")[0] == 200,
            "the proxy passing requests on",
        )

    def _database(self) -> None:
        """PostgreSQL (a cluster of this test's own) and Redis, on the host "db"."""
        bindir, address = _postgres_bin(), self.net.address("db")
        pg = Path(tempfile.mkdtemp(prefix="gtdeploy-pg-"))
        self.pg = pg
        shutil.chown(pg, "postgres", "postgres")
        as_postgres = ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--"]
        subprocess.run(
            [
                *as_postgres,
                str(bindir / "initdb"),
                "-D",
                str(pg / "data"),
                "-A",
                "trust",
                "-U",
                "postgres",
                "--no-sync",
                "-E",
                "UTF8",
            ],
            check=True,
            capture_output=True,
        )
        with (pg / "data" / "pg_hba.conf").open("a") as hba:
            hba.write(f"host all all {netns.SUBNET}.0/24 trust\n")
        self.net.start(
            "db",
            [
                str(bindir / "postgres"),
                "-D",
                str(pg / "data"),
                "-c",
                f"listen_addresses={address}",
                "-c",
                "port=5432",
                "-c",
                f"unix_socket_directories={pg}",
                "-c",
                "max_connections=200",
            ],
            user="postgres",
            stop=signal.SIGINT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        ready = [str(bindir / "pg_isready"), "-q", "-h", address, "-p", "5432"]
        self.until(
            lambda: subprocess.run(self.net.command("db", ready)).returncode == 0,
            "PostgreSQL answering",
        )
        self.net.run("db", [str(bindir / "createdb"), "-h", address, "-U", "postgres", "gotown"])
        self.net.start(
            "db",
            [
                "redis-server",
                "--bind",
                address,
                "--port",
                "6379",
                "--save",
                "",
                "--appendonly",
                "no",
                "--protected-mode",
                "no",
            ],
            cwd=pg,
            stdout=subprocess.DEVNULL,
        )

    def start_app(self, app: str) -> None:
        log = (self.work / f"{app}.log").open("ab")
        self.apps[app] = self.net.start(
            app,
            [sys.executable, "-m", "gotown.cli", "serve", "--host", "0.0.0.0", "--port", "8000"],
            env=self.app_env,
            cwd=self.work,
            stdout=log,
            stderr=subprocess.STDOUT,
        )

    def _proxy(self) -> None:
        """nginx on the host "proxy", with the shipped site as it is (its upstream names,
        gotown1 and gotown2, are the hosts' addresses in that host's /etc/hosts)."""
        self.net.hosts_file(
            "proxy", {"gotown1": self.net.address("app1"), "gotown2": self.net.address("app2")}
        )
        d = self.work / "nginx"
        d.mkdir()
        temp = " ".join(
            f"{k}_temp_path {d}/{k};" for k in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        (d / "nginx.conf").write_text(
            f"user root; worker_processes 1; daemon off; pid {d}/nginx.pid;\n"
            f"error_log {d}/error.log warn;\nevents {{ worker_connections 4096; }}\n"
            f"http {{ access_log off; {temp}\n"
            f"  include {ROOT}/deploy/nginx/gotown.conf;\n}}\n"
        )
        test = subprocess.run(
            self.net.command("proxy", ["nginx", "-t", "-c", f"{d}/nginx.conf"]),
            capture_output=True,
            text=True,
        )
        assert test.returncode == 0, test.stderr
        self.net.start(
            "proxy", ["nginx", "-c", f"{d}/nginx.conf", "-p", str(d)], stderr=subprocess.DEVNULL
        )

    def down(self) -> None:
        if self._probe is not None and self._probe.poll() is None:
            self._probe.kill()
            self._probe.wait()
        self.net.down()
        shutil.rmtree(self.pg, ignore_errors=True)

    # --- looking ---------------------------------------------------------------------------

    def get(self, url: str) -> tuple[int, str]:
        """GET from the players' host."""
        assert self._probe is not None and self._probe.stdin and self._probe.stdout
        self._probe.stdin.write(url + "\n")
        self._probe.stdin.flush()
        status, body = self._probe.stdout.readline().split(" ", 1)
        return int(status), json.loads(body)

    def until(
        self,
        condition: Callable[[], bool],
        what: str,
        seconds: float = 120,
        now: Callable[[], object] = str,
    ) -> None:
        """Wait for ``condition``; past ``seconds``, fail saying what ``now()`` is."""
        deadline = time.monotonic() + seconds
        while not condition():
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"still not {what} after {seconds} s ({now()}); logs: {self.logs()}"
                )
            time.sleep(0.05)

    def until_ready(self, app: str) -> None:
        url = f"http://{self.net.address(app)}:9100/readyz"
        self.until(lambda: self.get(url)[0] == 200, f"{app} ready")

    def logs(self) -> str:
        """Each host's warnings and errors, and its last lines."""
        tails = []
        for log in sorted(self.work.glob("*.log")):
            lines = log.read_text(errors="replace").splitlines()
            worth = [line for line in lines if not line.startswith("INFO:")]
            tails.append(f"--- {log.name}\n" + "\n".join([*worth[-40:], *lines[-5:]]))
        return "\n".join(tails)

    def sql(self, query: str) -> str:
        psql = [str(_postgres_bin() / "psql"), "-h", str(self.pg), "-U", "postgres", "-d", "gotown"]
        return self.net.run("db", [*psql, "-At", "-F", "\t", "-c", query])

    def stored_moves(self) -> dict[str, list[tuple[int, int, Any]]]:
        """Every game's moves in the database: (version, seat, action), in order."""
        query = "SELECT game_id, seq, seat, action::text FROM actions ORDER BY game_id, seq"
        out = self.net.run(
            "db",
            [
                str(_postgres_bin() / "psql"),
                "-h",
                str(self.pg),
                "-U",
                "postgres",
                "-d",
                "gotown",
                "-At",
                "-F",
                "\t",
                "-c",
                query,
            ],
        )
        moves: dict[str, list[tuple[int, int, Any]]] = {}
        for line in out.splitlines():
            game, seq, seat, action = line.split("\t", 3)
            moves.setdefault(game, []).append((int(seq), int(seat), json.loads(action)))
        return moves


@pytest.fixture
def deployment() -> Iterator[Deployment]:
    reason = netns.why_not()
    if reason is not None:
        pytest.fail(
            f"the multi-host test cannot run here: {reason}. scripts/test deselects it on such "
            'a machine (-m "not netns") and says so.',
            pytrace=False,
        )
    work = Path(tempfile.mkdtemp(prefix="gtdeploy-"))
    deployment = Deployment(work)
    try:
        deployment.up()
        yield deployment
    finally:
        deployment.down()
        shutil.rmtree(work, ignore_errors=True)


class Progress:
    """The players' lines, read as they come: moves acknowledged so far, then the report."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.acked = 0
        self.over = 0  # (seats that saw their game's end)
        self.waiting: list[Any] = []  # (the last seats playing: where they are)
        self.report: dict[str, Any] | None = None
        self._thread = threading.Thread(target=self._read, args=(process,), daemon=True)
        self._thread.start()

    def _read(self, process: subprocess.Popen[str]) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            data = json.loads(line)
            if "report" in data:
                self.report = data["report"]
            else:
                self.acked, self.over = data["acked"], data["over"]
                self.waiting = data.get("waiting", [])

    def describe(self, deployment: Deployment) -> str:
        """What the players say, and the database of the games still played."""
        games = "', '".join(w["game"] for w in self.waiting)
        rows = deployment.sql(
            "SELECT g.id, g.status, (SELECT count(*) FROM actions a WHERE a.game_id = g.id), "
            f"(SELECT string_agg(s.kind, ',' ORDER BY s.seat) FROM seats s WHERE s.game_id = g.id) "
            f"FROM games g WHERE g.id IN ('{games}')"
        )
        busy = deployment.sql(
            "SELECT pid, state, wait_event_type, left(query, 80) FROM pg_stat_activity "
            "WHERE datname = 'gotown' AND state <> 'idle'"
        )
        return f"{self}; in the database: {rows}; its sessions at work: {busy}"

    def __str__(self) -> str:
        return (
            f"{self.acked} moves acknowledged, {self.over} seats at their game's end; "
            f"still playing: {self.waiting}"
        )


def test_players_go_on_through_a_restart_and_a_crash(deployment: Deployment) -> None:
    d = deployment
    proxy = f"http://{d.net.address('proxy')}"
    assert d.get(f"{proxy}/metrics")[0] == 404  # (the operator's: not through the proxy)
    players = d.net.start(
        "clients",
        [
            sys.executable,
            "-m",
            "tests.deploy.players",
            "play",
            proxy,
            str(GAMES),
            str(HELD),
            str(HOLD_AT),
        ],
        cwd=ROOT,
        env=d.env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    progress = Progress(players)

    # A rolling upgrade's first step: app1 stops in order, then starts again.
    d.until(
        lambda: progress.acked >= BEFORE_STOP,
        "moves acknowledged",
        now=lambda: progress.describe(d),
    )
    stopping = time.monotonic()
    d.apps["app1"].send_signal(signal.SIGTERM)
    assert d.apps["app1"].wait(timeout=2 * SHUTDOWN_SECONDS + 15) == -signal.SIGTERM
    stopped_in = time.monotonic() - stopping
    acked_while_down = progress.acked
    d.start_app("app1")
    d.until_ready("app1")
    assert progress.acked > acked_while_down or progress.report is not None

    # Then, with both up again and the games going on, app2 dies.
    assert progress.report is None, "every game ended before the kill"
    d.apps["app2"].send_signal(signal.SIGKILL)
    d.apps["app2"].wait(timeout=30)
    assert players.stdin is not None
    players.stdin.write("go\n")  # (the held games go on)
    players.stdin.flush()

    d.until(
        lambda: progress.report is not None,
        "every game finished",
        600,
        lambda: progress.describe(d),
    )
    assert players.wait(timeout=30) == 0
    report = progress.report
    assert report is not None
    seats = report["seats"]

    # Every game finished, every seat's socket saw its end.
    assert {s["game"] for s in seats} and len({s["game"] for s in seats}) == GAMES
    assert all(s["over"] for s in seats)
    assert not [s["errors"] for s in seats if s["errors"]]
    # Sockets on app1 were told to reconnect (1012); sockets on app2 lost their connection;
    # each one that closed connected again through the proxy.
    closes = [code for s in seats for code in s["closes"]]
    assert closes.count("1012") >= 1, closes
    assert any(code not in ("1012", "1000") for code in closes), closes
    for s in seats:
        assert s["connections"] == len(s["closes"]) + 1, s

    # Every acknowledged move is stored once, at its version; nothing else a player sent is.
    stored = d.stored_moves()
    by_game: dict[str, list[dict[str, Any]]] = {}
    for s in seats:
        by_game.setdefault(s["game"], []).append(s)
    acknowledged = 0
    for game, its_seats in by_game.items():
        moves = stored[game]
        assert [version for version, _, _ in moves] == list(range(len(moves)))
        assert max(s["final_version"] for s in its_seats) == len(moves)
        people = {s["seat"]: s for s in its_seats}
        for version, seat, action in moves:
            if seat not in people:
                continue  # (the bot's)
            player = people[seat]
            if str(version) in player["acked"]:
                assert player["acked"][str(version)] == action, (game, version)
            else:  # sent without an answer, and it went through
                assert action in player["unanswered"].get(str(version), []), (game, version)
        for player in its_seats:
            for version, action in player["acked"].items():
                assert moves[int(version)][1:] == (player["seat"], action), (game, version)
                acknowledged += 1
    status, metrics = d.get(f"http://{d.net.address('app1')}:9100/metrics")
    assert status == 200 and "gotown_actions_total" in metrics
    print(
        f"\nmulti-host: {GAMES} games, {acknowledged} acknowledged moves, "
        f"{sum(len(m) for m in stored.values())} stored; app1 stopped in {stopped_in:.1f} s; "
        f"socket closes: {len(closes)} ({closes.count('1012')} with 1012), attempts the proxy "
        f"refused: {sum(s['failed_attempts'] for s in seats)}"
    )
