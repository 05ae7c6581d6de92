"""The server's VAPID key (:mod:`gotown.server.notify.vapid`): made once, kept, read again."""

from __future__ import annotations

import base64
import re
import stat
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from gotown.server.notify.vapid import VapidKey, VapidKeyError, check_contact


def test_the_key_is_made_once_with_mode_0600_and_read_again(tmp_path: Path) -> None:
    path = tmp_path / "gotown-vapid.pem"
    first = VapidKey.load_or_create(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")
    written = path.read_bytes()
    second = VapidKey.load_or_create(path)
    assert second.application_server_key == first.application_server_key
    assert path.read_bytes() == written
    assert [p.name for p in tmp_path.iterdir()] == ["gotown-vapid.pem"]  # no draft left


def test_the_application_server_key_is_the_uncompressed_point_in_base64url(
    tmp_path: Path,
) -> None:
    key = VapidKey.load_or_create(tmp_path / "k.pem")
    text = key.application_server_key
    assert "=" not in text and "+" not in text and "/" not in text
    point = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    assert len(point) == 65 and point[0] == 4
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    assert public == key.private_key.public_key()


def test_processes_starting_together_end_with_one_key(tmp_path: Path) -> None:
    path = tmp_path / "k.pem"
    with ThreadPoolExecutor(8) as pool:
        keys = list(pool.map(lambda _: VapidKey.load_or_create(path), range(16)))
    assert len({key.application_server_key for key in keys}) == 1
    assert VapidKey.load_or_create(path).application_server_key == keys[0].application_server_key


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"-----BEGIN PRIVATE KEY-----\nnot base64\n-----END PRIVATE KEY-----\n",
        ec.generate_private_key(ec.SECP384R1()).private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ),
    ],
    ids=["empty", "garbled", "another-curve"],
)
def test_a_damaged_file_is_an_error_naming_it_and_is_kept(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "k.pem"
    path.write_bytes(content)
    with pytest.raises(
        VapidKeyError, match=re.escape(f"VAPID key file {path}: not a P-256 private key")
    ):
        VapidKey.load_or_create(path)
    assert path.read_bytes() == content


def test_a_file_that_cannot_be_made_is_an_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "missing" / "k.pem"
    with pytest.raises(VapidKeyError, match=re.escape(f"VAPID key file {path}: cannot be created")):
        VapidKey.load_or_create(path)


def test_the_contact_is_mailto_or_https() -> None:
    assert check_contact("mailto:ops@example.org") == "mailto:ops@example.org"
    assert check_contact("https://gotown.example.org/contact")
    for bad in ("ops@example.org", "http://example.org", "mailto:nobody", "https://a b"):
        with pytest.raises(ValueError, match=r"mailto|space"):
            check_contact(bad)
