"""What the notify tests share: a resolver of their own, and browser-like subscription keys."""

from __future__ import annotations

from collections.abc import Sequence

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from .push_service import b64url


class FakeDns:
    """A resolver answering from a table (name -> addresses), and counting its questions;
    an unknown name does not resolve, as with a real resolver."""

    def __init__(self, table: dict[str, Sequence[str]]) -> None:
        self.table = dict(table)
        self.asked: list[str] = []

    async def __call__(self, host: str, port: int) -> list[str]:
        self.asked.append(host)
        if host not in self.table:
            raise OSError(f"[Errno -2] Name or service not known: {host}")
        return list(self.table[host])


def browser_keys() -> dict[str, str]:
    """A subscription's keys as a browser makes them."""
    import secrets

    point = (
        ec.generate_private_key(ec.SECP256R1())
        .public_key()
        .public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    )
    return {"p256dh": b64url(point), "auth": b64url(secrets.token_bytes(16))}
