"""``gotown serve``: the web table (``--lan``: for the phones of this network)."""

from __future__ import annotations

import os

import click


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=int, default=8000, show_default=True)
@click.option("--database-url", envvar="GOTOWN_DATABASE_URL", default=None,
              help="SQLAlchemy URL (default: a SQLite file gotown.sqlite3 here).")  # fmt: skip
@click.option("--reload", is_flag=True, help="Restart on code changes (development).")
@click.option("--lan", is_flag=True,
              help="Serve the phones of this network: listen on every address, make invitation "
                   "links with this computer's address, and print it with a QR code.")  # fmt: skip
def serve(host: str, port: int, database_url: str | None, reload: bool, lan: bool) -> None:
    """Start the web table on http://HOST:PORT.

    Phones on the same network need --lan (or --host 0.0.0.0 and this computer's address). Other
    settings come from the environment: GOTOWN_BROADCAST_URL (redis://HOST:PORT to run several
    server processes on one database), GOTOWN_PUBLIC_BASE_URL (the base of invitation links),
    GOTOWN_BOT_DELAY (seconds between bot moves, 0.6), GOTOWN_RATE_LIMIT (requests a minute
    per address, 240), GOTOWN_WORKER_PROCESSES (bots and hints in worker processes: true;
    false: threads), GOTOWN_MAX_BOTS_ONLY_TABLES (4), GOTOWN_BOT_POLICIES (trained policies
    seated as ppo:NAME: NAME=FILE,...; the rl extra) and others: gotown/server/README.md.
    """
    from ..server import run
    from ..server.config import SettingError, Settings

    if lan:
        host = "0.0.0.0"
        address = f"http://{lan_address()}:{port}"
        os.environ.setdefault("GOTOWN_PUBLIC_BASE_URL", address)
    try:  # (the server reads them again: a mistake is told here, before it starts)
        settings = Settings.from_env(database_url=database_url)
    except SettingError as exc:
        if exc.name == "database_url" and exc.variable is None:  # (given with --database-url)
            raise click.BadParameter(str(exc), param_hint="--database-url") from None
        raise click.UsageError(f"a setting from the environment: {exc}") from None
    from ..server.storage import sqlite_write_problem

    problem = sqlite_write_problem(settings.database_url)
    if problem is not None:  # (else uvicorn's traceback of "unable to open database file")
        raise click.ClickException(problem)
    if settings.bot_policies:
        offer_policies(settings.bot_policies)
    if lan:
        print_lan_banner(os.environ["GOTOWN_PUBLIC_BASE_URL"])
    run(host=host, port=port, database_url=database_url, reload=reload)


def offer_policies(policies: tuple[tuple[str, str], ...]) -> None:
    """Register the ``ppo`` level (from the rl extra), so that the server seats the policies
    of GOTOWN_BOT_POLICIES as ``ppo:NAME``; a file missing, or the extra, is told now."""
    for name, path in policies:
        if not os.path.isfile(path):
            raise click.UsageError(f"GOTOWN_BOT_POLICIES: policy {name!r}: no model file {path!r}")
    try:
        from ..rl.policy import register_ppo_level
    except ImportError as error:
        raise click.UsageError(
            f"GOTOWN_BOT_POLICIES needs the rl extra (pip install 'gotown[rl]'): {error}"
        ) from None
    register_ppo_level()


def lan_address() -> str:
    """This computer's address on its local network: the one its route to the outside leaves
    from (a UDP socket's connect sends nothing), or 127.0.0.1 on a machine with no network."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed anywhere, only looked up
            address: str = probe.getsockname()[0]
        except OSError:
            return "127.0.0.1"
    return address


def print_lan_banner(url: str) -> None:
    """Say where the table is, with a QR code a phone's camera opens."""
    import io

    import segno

    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True, border=2)
    click.echo(f"\nGoTown: open {url} here or on a phone of this network (scan the code):\n")
    click.echo(out.getvalue())
