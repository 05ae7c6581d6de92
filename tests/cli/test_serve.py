"""`gotown serve --lan`: the table for the phones of this network (what scripts/serve runs)."""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from gotown.cli import main, web


def test_the_lan_address_is_an_ipv4_address_of_this_machine() -> None:
    address = ipaddress.IPv4Address(web.lan_address())
    assert not address.is_unspecified and not address.is_multicast


def test_the_banner_says_the_address_and_draws_its_qr_code(
    capsys: pytest.CaptureFixture[str],
) -> None:
    web.print_lan_banner("http://192.168.1.20:8000")
    out = capsys.readouterr().out
    assert "http://192.168.1.20:8000" in out
    code = [line for line in out.splitlines() if "█" in line]
    assert len(code) >= 10  # a QR code of version 2 or more, two modules a line


def test_lan_listens_everywhere_and_links_invitations_to_this_machine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[dict[str, object]] = []
    monkeypatch.setattr("gotown.server.run", lambda **kwargs: calls.append(kwargs))
    monkeypatch.setattr(web, "lan_address", lambda: "10.1.2.3")
    monkeypatch.delenv("GOTOWN_PUBLIC_BASE_URL", raising=False)
    result = CliRunner().invoke(main, ["serve", "--lan", "--port", "8123"])
    assert result.exit_code == 0, result.output
    assert calls and calls[0]["host"] == "0.0.0.0" and calls[0]["port"] == 8123
    assert "http://10.1.2.3:8123" in result.output
    assert os.environ.pop("GOTOWN_PUBLIC_BASE_URL") == "http://10.1.2.3:8123"


def test_without_lan_the_server_keeps_to_this_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[dict[str, object]] = []
    monkeypatch.setattr("gotown.server.run", lambda **kwargs: calls.append(kwargs))
    result = CliRunner().invoke(main, ["serve"])
    assert result.exit_code == 0, result.output
    assert calls[0]["host"] == "127.0.0.1" and "█" not in result.output


@pytest.mark.parametrize("what", ["file", "folder"])
def test_a_read_only_database_is_said_in_one_line_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, what: str
) -> None:
    """As on a read-only mount, or a file its user may not write (root writes anything: the
    check's ``os.access`` is told so here). SQLite itself said only "unable to open database
    file", in uvicorn's traceback."""
    database = tmp_path / "gotown.sqlite3"
    database.write_bytes(b"")
    read_only = database if what == "file" else tmp_path
    real_access = os.access
    monkeypatch.setattr(
        "os.access",
        lambda path, mode: (
            not mode & os.W_OK if Path(path) == read_only else real_access(path, mode)
        ),
    )
    monkeypatch.setattr("gotown.server.run", lambda **kwargs: None)
    result = CliRunner().invoke(main, ["serve", "--database-url", f"sqlite:///{database}"])
    assert result.exit_code == 1, result.output
    assert "read-only" in result.output and str(read_only) in result.output
    assert "Traceback" not in result.output
