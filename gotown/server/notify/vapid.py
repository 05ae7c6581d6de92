"""The server's VAPID key (RFC 8292): made on the first start, then read from its file.

Browsers bind each push subscription to the public key the page gave them
(``applicationServerKey``), and push services accept a message only when it is signed with
the matching private key. So the key must outlive restarts and be shared by every process: it
is kept in a file (``vapid_key_file``), created once with mode 0600. A new key would orphan
every subscription, so a damaged file is an error naming the file, never replaced silently.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid02
from py_vapid.utils import b64urlencode

log = logging.getLogger(__name__)

#: How long a VAPID token is valid (RFC 8292 allows at most 24 hours).
TOKEN_SECONDS = 12 * 3600


class VapidKeyError(ValueError):
    """The VAPID key file cannot be read or made; the message names the file."""


@dataclass(frozen=True)
class VapidKey:
    private_key: ec.EllipticCurvePrivateKey

    @classmethod
    def load_or_create(cls, path: str | os.PathLike[str]) -> VapidKey:
        """The key in ``path``, made there first if there is no such file. Several processes
        starting at once end with the same key: the file appears whole or not at all."""
        path = Path(path)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return cls._create(path)
        except OSError as exc:
            raise VapidKeyError(f"VAPID key file {path}: cannot be read ({exc})") from None
        if path.stat().st_mode & 0o077:
            log.warning("VAPID key file %s can be read by others than its owner (chmod 600)", path)
        return cls._parse(path, data)

    @classmethod
    def _parse(cls, path: Path, data: bytes) -> VapidKey:
        try:
            key = serialization.load_pem_private_key(data, password=None)
        except (ValueError, TypeError):
            key = None
        if not isinstance(key, ec.EllipticCurvePrivateKey) or key.curve.name != "secp256r1":
            raise VapidKeyError(
                f"VAPID key file {path}: not a P-256 private key in PEM; restore it, or remove "
                "it to make a new key (every push subscription made with the old one is lost)"
            )
        return cls(key)

    @classmethod
    def _create(cls, path: Path) -> VapidKey:
        key = ec.generate_private_key(ec.SECP256R1())
        pem = key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        draft = path.with_name(f".{path.name}.{secrets.token_hex(8)}")
        try:
            descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(pem)
                handle.flush()
                os.fsync(handle.fileno())
            try:
                os.link(draft, path)  # fails if another process made the file first
            except FileExistsError:
                return cls._parse(path, path.read_bytes())
        except OSError as exc:
            raise VapidKeyError(f"VAPID key file {path}: cannot be created ({exc})") from None
        finally:
            with contextlib.suppress(OSError):
                os.unlink(draft)
        log.info("made a new VAPID key in %s", path)
        return cls(key)

    @property
    def application_server_key(self) -> str:
        """The public key as the page gives it to ``pushManager.subscribe``: the uncompressed
        P-256 point, URL-safe base64 without padding."""
        point = self.private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return str(b64urlencode(point))

    def authorization(self, audience: str, contact: str, now: float) -> str:
        """The ``Authorization`` header of a push to ``audience`` (the endpoint's origin):
        ``vapid t=<JWT>, k=<public key>``, valid for :data:`TOKEN_SECONDS` from ``now``."""
        claims = {"aud": audience, "exp": int(now) + TOKEN_SECONDS, "sub": contact}
        return str(Vapid02(self.private_key).sign(claims)["Authorization"])


def check_contact(contact: str) -> str:
    """The ``sub`` claim: a ``mailto:`` address or an ``https:`` URL (ValueError otherwise)."""
    if not (contact.startswith("mailto:") and "@" in contact) and not contact.startswith(
        "https://"
    ):
        raise ValueError(f"{contact!r} is neither mailto:ADDRESS nor an https:// URL")
    if any(ord(c) <= 32 for c in contact):
        raise ValueError(f"{contact!r} holds a space or a control character")
    return contact
