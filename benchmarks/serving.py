"""A GoTown server for the benchmarks that measure it from outside (``load.py``, ``flood.py``,
``bot_flood.py``, ``page_speed.py``): a free port, and ``gotown serve`` started on it."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
from pathlib import Path

import click


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_server(port: int, env: dict[str, str], log: Path | None) -> subprocess.Popen[bytes]:
    """``gotown serve`` on ``port``, once it accepts connections; its log in the file ``log``,
    or nowhere (a pipe nobody reads would stop the server once full: uvicorn logs every
    socket's opening)."""
    command = [sys.executable, "-m", "gotown.cli", "serve", "--port", str(port)]
    with contextlib.nullcontext(subprocess.DEVNULL) if log is None else log.open("wb") as out:
        server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=out)
    for _ in range(600):
        if server.poll() is not None:
            said = "" if log is None else f": {log.read_text()[-2000:]}"
            raise click.ClickException(f"the server stopped before it answered{said}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return server
        time.sleep(0.1)
    server.terminate()
    raise click.ClickException("the server did not answer within 60 s")
