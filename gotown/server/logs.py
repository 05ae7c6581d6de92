"""What uvicorn logs about clients: no secret, and no alarm for a client's own fault.

An invitation code is a free seat to whoever reads it, and it travels in URL paths (the page
``/j/{code}``, the API's ``/api/invitations/{code}`` and its QR code); seat tokens travel in a
header or in the URL's fragment, which never reaches the server, but a ``token`` in a query is
hidden too should a client put one there. :class:`RedactSecrets` rewrites the path of each of
uvicorn's access-log records (logger ``uvicorn.access``) before any handler sees it;
:func:`install` adds it once per process.

A text frame that is not UTF-8 is a client's fault, answered by uvicorn with the close code 1007;
uvicorn logs it as an error with a traceback (``uvicorn.error``), which anyone could fill the log
with, and which would page an operator. :class:`QuietClientFaults` makes that record one warning
line.
"""

from __future__ import annotations

import logging
import re

ACCESS_LOGGER = "uvicorn.access"
ERROR_LOGGER = "uvicorn.error"
REDACTED = "***"

#: The paths (and queries) whose secret part is replaced by :data:`REDACTED`.
_SECRETS = re.compile(r"(?P<head>/j/|/api/invitations/|[?&]token=)(?P<secret>[^/?&#\s]+)")


def redact(path: str) -> str:
    """``path`` with its invitation codes and tokens replaced by :data:`REDACTED`."""
    return _SECRETS.sub(lambda m: m["head"] + REDACTED, path)


class RedactSecrets(logging.Filter):
    """Redact the path of an access-log record (uvicorn's arguments: client, method, path,
    HTTP version, status); other records pass unchanged."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str):
            record.args = (*args[:2], redact(args[2]), *args[3:])
        return True


class QuietClientFaults(logging.Filter):
    """uvicorn's error record for a text frame that is not UTF-8 becomes a warning without
    traceback; other records pass unchanged."""

    FAULTS = ("Invalid UTF-8 sequence received from client.",)

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg in self.FAULTS and record.levelno > logging.WARNING:
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.exc_info = record.exc_text = None
        return True


def install() -> None:
    """Add :class:`RedactSecrets` to uvicorn's access logger and :class:`QuietClientFaults` to
    its error logger (once)."""
    for name, kind in ((ACCESS_LOGGER, RedactSecrets), (ERROR_LOGGER, QuietClientFaults)):
        logger = logging.getLogger(name)
        if not any(isinstance(f, kind) for f in logger.filters):
            logger.addFilter(kind())
