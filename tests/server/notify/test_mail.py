"""E-mail notices (:mod:`gotown.server.notify.mail`) through a real SMTP server of the tests'
own (aiosmtpd)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from gotown.server.notify.mail import MailSender, SmtpServer, build_mail, check_address
from gotown.server.notify.results import Delivery, Outcome
from gotown.server.notify.texts import Kind, Notice

from .mail_server import MailServer

NOTICE = Notice(Kind.YOUR_TURN, "Chez Ada", "https://t.example/g/1#seat0", "g1-s0", player="Bob")
UNSUBSCRIBE = "https://t.example/api/notify/unsubscribe?token=s3cr3t"
FROM = "GoTown <noreply@t.example>"


@pytest.fixture
def server() -> Iterator[MailServer]:
    with MailServer() as server:
        yield server


def send(smtp: SmtpServer, notice: Notice = NOTICE, lang: str = "fr", **options: Any) -> Delivery:
    to = options.pop("to", "ada@example.org")
    sender = MailSender(smtp, FROM, now=lambda: 1_800_000_000.0, **options)
    return asyncio.run(sender.send(notice, lang, to=to, unsubscribe_url=UNSUBSCRIBE))


def local(port: int) -> SmtpServer:
    return SmtpServer.from_url(f"smtp://127.0.0.1:{port}")


def test_a_notice_arrives_in_french_with_its_one_click_unsubscribe(server: MailServer) -> None:
    delivery = send(local(server.port))
    assert delivery.outcome == Outcome.DELIVERED
    (message,) = server.messages
    assert server.envelopes == [("noreply@t.example", ["ada@example.org"])]
    assert message["Subject"] == "Chez Ada : à vous de jouer"
    assert message["To"] == "ada@example.org" and message["From"] == FROM
    assert message["List-Unsubscribe"] == f"<{UNSUBSCRIBE}>"
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert message["Content-Language"] == "fr" and message["Auto-Submitted"] == "auto-generated"
    assert message["Date"] == "Fri, 15 Jan 2027 08:00:00 -0000"
    text = message.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    assert "Bob a joué. C'est votre tour." in text
    assert "Ouvrir la table: https://t.example/g/1#seat0" in text
    assert f"Ne plus recevoir ces courriels: {UNSUBSCRIBE}" in text
    assert "au sujet de la table « Chez Ada »" in text
    page = message.get_body(("html",)).get_content()  # type: ignore[union-attr]
    assert f'<a href="{UNSUBSCRIBE}">Ne plus recevoir ces courriels</a>' in page
    assert '<a href="https://t.example/g/1#seat0">Ouvrir la table</a>' in page


def test_a_login_in_the_url_is_used() -> None:
    with MailServer(login=("gotown", "p@ss word")) as server:
        smtp = SmtpServer.from_url(f"smtp://gotown:p%40ss%20word@127.0.0.1:{server.port}")
        assert send(smtp).outcome == Outcome.DELIVERED
        assert len(server.messages) == 1
        wrong = SmtpServer.from_url(f"smtp://gotown:nope@127.0.0.1:{server.port}")
        delivery = send(wrong)
        assert (delivery.outcome, delivery.status) == (Outcome.RETRY, 535)
        assert len(server.messages) == 1


def test_starttls_is_used_when_offered_and_smtps_speaks_tls_from_the_start() -> None:
    with MailServer(tls="starttls") as server:  # it takes no message before STARTTLS
        smtp = SmtpServer.from_url(f"smtp://127.0.0.1:{server.port}")
        assert send(smtp, tls_context=server.client_context).outcome == Outcome.DELIVERED
        assert server.over_tls == [True]
        delivery = send(smtp)  # the system's certificates do not trust the test's
        assert delivery.outcome == Outcome.RETRY and "CERTIFICATE_VERIFY_FAILED" in delivery.detail
    with MailServer(tls="implicit") as server:
        smtps = SmtpServer.from_url(f"smtps://127.0.0.1:{server.port}")
        assert send(smtps, tls_context=server.client_context).outcome == Outcome.DELIVERED
        assert server.over_tls == [True]


def test_names_cannot_inject_headers_or_markup(server: MailServer) -> None:
    notice = Notice(
        Kind.YOUR_TURN, "Evil\r\nBcc: all@example.org", NOTICE.url, "t", player="<b>Bob</b>"
    )
    assert send(local(server.port), notice, "en").outcome == Outcome.DELIVERED
    (message,) = server.messages
    assert message["Subject"] == "Evil Bcc: all@example.org: your turn"
    assert message["Bcc"] is None and server.envelopes[0][1] == ["ada@example.org"]
    page = message.get_body(("html",)).get_content()  # type: ignore[union-attr]
    assert "&lt;b&gt;Bob&lt;/b&gt; has played." in page and "<b>" not in page


def test_a_permanently_refused_address_is_refused_and_a_temporary_one_retried(
    server: MailServer,
) -> None:
    server.refuse["gone@example.org"] = "550 5.1.1 No such user"
    server.refuse["full@example.org"] = "452 4.2.2 Mailbox full"
    delivery = send(local(server.port), to="gone@example.org")
    assert (delivery.outcome, delivery.status) == (Outcome.REFUSED, 550)
    assert "No such user" in delivery.detail
    delivery = send(local(server.port), to="full@example.org")
    assert (delivery.outcome, delivery.status) == (Outcome.RETRY, 452)
    assert server.messages == []


def test_a_mail_server_that_is_down_means_retry_at_once() -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    delivery = send(local(port), timeout=5)
    assert delivery.outcome == Outcome.RETRY
    assert f"no mail server at 127.0.0.1:{port}" in delivery.detail


def test_a_mail_server_that_never_speaks_means_retry_after_the_timeout() -> None:
    with socket.create_server(("127.0.0.1", 0)) as silent:  # connects, never greets
        delivery = send(local(silent.getsockname()[1]), timeout=0.2)
    assert delivery.outcome == Outcome.RETRY and "127.0.0.1" in delivery.detail


def test_a_bad_address_is_refused_without_a_connection() -> None:
    delivery = send(local(1), to="not an address")
    assert delivery.outcome == Outcome.REFUSED
    assert delivery.detail == "e-mail address: a space, control or non-ASCII character"


@pytest.mark.parametrize(
    ("address", "message"),
    [
        ("", "missing"),
        ("ada", "not NAME@DOMAIN"),
        ("@example.org", "not NAME@DOMAIN"),
        ("ada@localhost", "is not a domain name"),
        ("ada@exa_mple.org", "is not a domain name"),
        ("a..da@example.org", "dots out of place"),
        ("ada@example.org\r\nBcc: x@y.org", "a space, control or non-ASCII character"),
        ("a" * 250 + "@x.org", "over 254"),
    ],
)
def test_an_address_a_reader_gives_is_checked(address: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_address(address)


def test_the_smtp_url() -> None:
    assert SmtpServer.from_url("smtp://mail.example.org") == SmtpServer(
        "mail.example.org", 587, False
    )
    assert SmtpServer.from_url("smtps://u:p@mail.example.org:2465") == SmtpServer(
        "mail.example.org", 2465, True, "u", "p"
    )
    assert "secret" not in repr(SmtpServer.from_url("smtps://u:secret@h"))
    for bad in ("http://h", "smtp://", "smtp://h:99999", "smtp://h/path"):
        with pytest.raises(ValueError, match=r"smtp|SMTP"):
            SmtpServer.from_url(bad)


def test_the_message_has_a_date_and_an_id_from_the_senders_domain() -> None:
    message = build_mail(
        NOTICE, "xx", to="ada@example.org", mail_from=FROM, unsubscribe_url=UNSUBSCRIBE, now=0
    )
    assert message["Subject"] == "Chez Ada: your turn"  # an unknown language: English
    assert message["Message-ID"].endswith("@t.example>")
    with pytest.raises(ValueError, match="the unsubscribe URL"):
        build_mail(NOTICE, "en", to="a@b.org", mail_from=FROM, unsubscribe_url="x", now=0)
