"""The web table: a FastAPI server with a plain HTML/CSS/JS front end.

``run()`` is what ``gotown serve`` calls. Importing this package does no work.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["SERVING", "run"]

#: How uvicorn serves the table (:func:`run`, and the tests' real servers).
SERVING: dict[str, Any] = {
    "ws_max_size": 65_536,  # a client only ever sends small messages
    # No permessage-deflate: its state (a compressor and a decompressor, about 95 KB) was the
    # largest part of an open socket's memory, kept for as long as the socket stays open, and
    # the messages it would shrink are a few KB of JSON, once a move.
    "ws_per_message_deflate": False,
}


def run(
    host: str = "127.0.0.1", port: int = 8000, database_url: str | None = None, reload: bool = False
) -> None:
    """Serve the web table with uvicorn until interrupted.

    The database is ``database_url``, else ``GOTOWN_DATABASE_URL``, else the SQLite file
    ``gotown.sqlite3`` in the current directory.
    """
    from .config import Settings

    if database_url:
        os.environ["GOTOWN_DATABASE_URL"] = database_url
    settings = Settings.from_env()
    if settings.worker_processes and not reload:  # (reloading: in the served process)
        from .workers import start_fork_server

        start_fork_server()
    import uvicorn

    uvicorn.run(
        "gotown.server.main:create_app_from_env",
        factory=True,
        host=host,
        port=port,
        reload=reload,
        log_level="info",
        # On SIGTERM: the requests under way get this long (then the bots' moves as long
        # again, gotown.server.operations); the sockets are closed at once with 1012.
        timeout_graceful_shutdown=settings.shutdown_seconds,
        **SERVING,
    )
