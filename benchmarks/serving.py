"""A GoTown server for the benchmarks that measure it from outside (``load.py``, ``flood.py``,
``bot_flood.py``, ``fair_share.py``, ``restart.py``, ``page_speed.py``): a free port, the code
served as ``scripts/serve`` serves it, and ``gotown serve`` started on it."""

from __future__ import annotations

import contextlib
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import click

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def served_env(code: Path | None = None, *, pure: bool = False) -> dict[str, str]:
    """This process's environment, with the code a server should run first on its path: the
    checkout (``code`` None) or another tree of the project (a copy of an earlier commit, made
    with ``git archive``: the figures before a change, beside those after it), its engine and
    the bots' search compiled by its own ``scripts/build-engine`` as ``scripts/serve`` does
    (unless ``pure``, or where they cannot be compiled: then their sources)."""
    env = dict(os.environ)
    root = (code or ROOT).resolve()
    if pure:
        env["GOTOWN_PURE"] = "1"
        if code is not None:
            env["PYTHONPATH"] = os.pathsep.join(p for p in (str(root), env.get("PYTHONPATH")) if p)
        return env
    built = subprocess.run(
        ["bash", str(root / "scripts" / "build-engine")],
        check=False,
        stdout=subprocess.DEVNULL,
        env={**env, "GOTOWN_BUILD_DIR": str(root / "build" / "compiled-engine")},
    )
    path = [str(root / "build" / "compiled-engine") if built.returncode == 0 else str(root)]
    if built.returncode != 0 and code is None:
        path = []  # (the editable install is the checkout)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (*path, env.get("PYTHONPATH")) if p)
    return env


def start_server(
    port: int, env: dict[str, str], log: Path | None, *, nofile: int | None = None
) -> subprocess.Popen[bytes]:
    """``gotown serve`` on ``port``, once it accepts connections; its log in the file ``log``,
    or nowhere (a pipe nobody reads would stop the server once full: uvicorn logs every
    socket's opening). ``nofile``: the server's limit on open files (``ulimit -n``)."""
    command = [sys.executable, "-m", "gotown.cli", "serve", "--port", str(port)]

    def limit() -> None:
        if nofile is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    # (Not in this checkout: ``-m`` puts the working directory first on the path, which would
    # serve its sources whatever PYTHONPATH says.)
    folder = tempfile.gettempdir() if log is None else str(log.parent)
    with contextlib.nullcontext(subprocess.DEVNULL) if log is None else log.open("wb") as out:
        server = subprocess.Popen(
            command, env=env, cwd=folder, stdout=subprocess.DEVNULL, stderr=out, preexec_fn=limit
        )
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


def stop_server(server: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL after 30 s."""
    server.terminate()
    try:
        server.wait(30)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
