"""`gotown serve --lan`: the table for the phones of this network (what scripts/serve runs)."""

from __future__ import annotations

import ipaddress
import os

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
