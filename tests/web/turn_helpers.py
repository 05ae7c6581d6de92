"""What the browser tests of turn-based tables share: a server in a subprocess (so that a test
can SIGKILL it and start it again on the same database, its clock's offset carried over), the
device's player key a page keeps, and waiting for a condition (never for the wall clock)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from live_server import free_port
from playwright.sync_api import Page

T = TypeVar("T")


def wait_until(check: Callable[[], T], what: str, timeout: float = 20.0) -> T:
    """``check()``'s first true answer, polled (an AssertionError naming ``what`` after
    ``timeout`` seconds without one)."""
    deadline = time.monotonic() + timeout
    while True:
        answer = check()
        if answer:
            return answer
        if time.monotonic() > deadline:
            raise AssertionError(f"still not so after {timeout:g} s: {what}")
        time.sleep(0.05)


def call(
    url: str,
    method: str,
    path: str,
    body: Any = None,
    key: str | None = None,
) -> tuple[int, Any]:
    """One request (with a device's player key when given): its status and JSON answer."""
    headers = {"Content-Type": "application/json"}
    if key:
        headers["X-Player-Key"] = key
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            raw = answer.read()
            return answer.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read() or b"null")


def key_of(page: Page) -> str:
    """The player key this page's device keeps (made by the page with its first table)."""
    kept = page.evaluate("localStorage.getItem('gotown.player')")
    assert kept, "this device has no player key"
    key: str = json.loads(kept)["key"]
    return key


class ServerProcess:
    """``gotown``'s app under uvicorn in a process of its own, on one port for its whole life
    (pages keep their addresses across a restart), with the test clock; ``env`` adds to the
    settings. :meth:`kill` is a SIGKILL; :meth:`start` again starts it on the same database
    with the clock's offset it had (``GOTOWN_CLOCK_OFFSET``)."""

    def __init__(self, folder: Path, env: dict[str, str]) -> None:
        self.folder = folder
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.database_url = f"sqlite:///{folder / 'turns.sqlite3'}"
        self.env = env
        self.offset = 0.0
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self) -> None:
        env = {
            **os.environ,
            "GOTOWN_DATABASE_URL": self.database_url,
            "GOTOWN_TEST_CLOCK": "1",
            "GOTOWN_CLOCK_OFFSET": repr(self.offset),
            "GOTOWN_RATE_LIMIT": "0",
            "GOTOWN_WORKER_PROCESSES": "false",
            "GOTOWN_BOT_DELAY": "0.05",
            **self.env,
        }
        self.starts += 1
        log = (self.folder / f"server-{self.starts}.log").open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "--factory", "gotown.server.main:create_app_from_env",
             "--host", "127.0.0.1", "--port", str(self.port), "--log-level", "warning"],
            env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        log.close()

        def answers() -> bool:
            assert self.process is not None and self.process.poll() is None, self.log()
            try:
                return call(self.url, "GET", "/healthz")[0] == 200
            except OSError:
                return False

        wait_until(answers, "the server answers /healthz", timeout=60)

    def log(self) -> str:
        return (self.folder / f"server-{self.starts}.log").read_text("utf-8", "replace")[-3000:]

    def kill(self) -> None:
        """SIGKILL: no shutdown of any kind."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)
        self.process = None

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None

    def advance(self, seconds: float) -> None:
        """Move the server's clock on (``POST /api/test/clock``), keeping the offset."""
        status, moved = call(self.url, "POST", "/api/test/clock", {"advance": seconds})
        assert status == 200, moved
        self.offset = moved["offset"]
