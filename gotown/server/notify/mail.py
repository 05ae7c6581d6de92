"""One e-mail notice, when the operator gives an SMTP server (``smtp_url``; off without one).

``smtp://user:password@host:port`` upgrades to TLS with STARTTLS when the server offers it
(port 587 by default), ``smtps://`` speaks TLS from the start (port 465). The message is in
the reader's language, names the table and the player, links to the table, and can be stopped
in one click (RFC 8058): the ``List-Unsubscribe`` header with the caller's unsubscribe URL,
``List-Unsubscribe-Post: List-Unsubscribe=One-Click`` (a mail client POSTs that body to the
URL), and the same link in the text. Mailbox providers trust those headers only from a DKIM
signature that covers them: that is the operator's mail server's part.

Sending is asynchronous (aiosmtplib) and bounded by ``timeout`` as a whole, so a server that
is down or silent costs a retry, never a hung task. An answer 5xx to the recipient or the
message is :attr:`~.results.Outcome.REFUSED`; everything else that fails is
:attr:`~.results.Outcome.RETRY` (4xx, no connection, a refused login or sender, which are the
operator's settings to mend, not the reader's address).
"""

from __future__ import annotations

import asyncio
import html
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import formatdate, make_msgid, parseaddr
from urllib.parse import unquote, urlsplit

import aiosmtplib

from .endpoints import HOST_NAME
from .results import Delivery, Outcome
from .texts import Notice, language, notice_text, word

DEFAULT_PORTS = {"smtp": 587, "smtps": 465}


@dataclass(frozen=True)
class SmtpServer:
    host: str
    port: int
    implicit_tls: bool
    username: str | None = None
    password: str | None = field(default=None, repr=False)

    @classmethod
    def from_url(cls, url: str) -> SmtpServer:
        """From ``smtp://[user:password@]host[:port]`` or ``smtps://...``; a ValueError says
        what is wrong (never showing the password)."""
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError:
            raise ValueError("not an smtp:// or smtps:// URL with a valid port") from None
        if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
            raise ValueError("not smtp://[USER:PASSWORD@]HOST[:PORT] (or smtps://)")
        if parts.path not in ("", "/") or parts.query or parts.fragment:
            raise ValueError("an SMTP URL has no path, query or fragment")
        username = unquote(parts.username) if parts.username else None
        password = unquote(parts.password) if parts.password is not None else None
        return cls(
            parts.hostname,
            port or DEFAULT_PORTS[parts.scheme],
            parts.scheme == "smtps",
            username,
            password,
        )


def check_address(text: str) -> str:
    """An e-mail address that a reader gives (ASCII, ``local@domain.tld``); a ValueError says
    what is wrong."""
    if not isinstance(text, str) or not text:
        raise ValueError("e-mail address: missing")
    if len(text) > 254:
        raise ValueError(f"e-mail address: {len(text)} characters, over 254")
    if any(ord(c) <= 32 or ord(c) >= 127 for c in text):
        raise ValueError("e-mail address: a space, control or non-ASCII character")
    local, at, domain = text.rpartition("@")
    if not at or not local or len(local) > 64 or any(c in local for c in '"(),:;<>@[\\]'):
        raise ValueError(f"e-mail address {text!r}: not NAME@DOMAIN")
    if "." not in domain or not HOST_NAME.fullmatch(domain.lower()):
        raise ValueError(f"e-mail address {text!r}: {domain!r} is not a domain name")
    if local.startswith(".") or local.endswith(".") or ".." in local:
        raise ValueError(f"e-mail address {text!r}: dots out of place before the @")
    return text


def _check_link(name: str, url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"{name}: {url[:80]!r} is not an http(s) URL")
    if any(ord(c) <= 32 or ord(c) >= 127 or c in '<>"' for c in url):
        raise ValueError(f"{name}: a space, quote, angle bracket or non-ASCII character")
    return url


def _one_line(text: str) -> str:
    """A header's text: every run of spaces, line breaks and control characters one space."""
    return " ".join("".join(c if c.isprintable() else " " for c in text).split())


def build_mail(
    notice: Notice, lang: str, *, to: str, mail_from: str, unsubscribe_url: str, now: float
) -> EmailMessage:
    """The e-mail of ``notice`` to ``to`` in ``lang`` (plain text and HTML); a ValueError
    names a bad address or link."""
    check_address(to)
    _check_link("the table's URL", notice.url)
    _check_link("the unsubscribe URL", unsubscribe_url)
    lang = language(lang)
    title, body = notice_text(notice, lang)
    opening, why = word(lang, "mail_open"), word(lang, "mail_why", table=notice.table)
    stop = word(lang, "mail_unsubscribe")
    message = EmailMessage()
    message["Subject"] = _one_line(title)
    message["From"] = mail_from
    message["To"] = to
    message["Date"] = formatdate(now, localtime=False)
    sender_domain = parseaddr(mail_from)[1].rpartition("@")[2] or "gotown.invalid"
    message["Message-ID"] = make_msgid("gotown", domain=sender_domain)
    message["Auto-Submitted"] = "auto-generated"
    message["List-Unsubscribe"] = f"<{unsubscribe_url}>"
    message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    message.set_content(
        f"{body}\n\n{opening}: {notice.url}\n\n-- \n{why}\n{stop}: {unsubscribe_url}\n"
    )
    e = html.escape
    message.add_alternative(
        f'<!doctype html><html lang="{lang}"><body>\n<p>{e(body)}</p>\n'
        f'<p><a href="{e(notice.url)}">{e(opening)}</a></p>\n'
        f"<hr><p><small>{e(why)}<br>\n"
        f'<a href="{e(unsubscribe_url)}">{e(stop)}</a></small></p>\n</body></html>\n',
        subtype="html",
    )
    message["Content-Language"] = lang  # (after the parts: setting a part clears Content-*)
    return message


class MailSender:
    """Sends notices by e-mail through one SMTP server. ``timeout`` bounds one send as a
    whole; ``now`` is the clock of the Date header; ``tls_context`` the certificates trusted
    (the system's by default)."""

    def __init__(
        self,
        server: SmtpServer,
        mail_from: str,
        *,
        timeout: float = 10.0,
        now: Callable[[], float] = time.time,
        tls_context: ssl.SSLContext | None = None,
    ) -> None:
        self.server, self.mail_from, self.timeout, self.now = server, mail_from, timeout, now
        self.tls_context = tls_context

    async def send(self, notice: Notice, lang: str, *, to: str, unsubscribe_url: str) -> Delivery:
        """Sends ``notice`` to ``to``; what became of it (never raises for a failed delivery)."""
        try:
            message = build_mail(
                notice,
                lang,
                to=to,
                mail_from=self.mail_from,
                unsubscribe_url=unsubscribe_url,
                now=self.now(),
            )
        except ValueError as exc:
            return Delivery(Outcome.REFUSED, str(exc))
        server = self.server
        try:
            async with asyncio.timeout(self.timeout):
                await aiosmtplib.send(
                    message,
                    hostname=server.host,
                    port=server.port,
                    username=server.username,
                    password=server.password,
                    use_tls=server.implicit_tls,
                    start_tls=False if server.implicit_tls else None,
                    timeout=self.timeout,
                    tls_context=self.tls_context,
                )
        except aiosmtplib.SMTPRecipientsRefused as exc:
            codes = [refused.code for refused in exc.recipients]
            said = "; ".join(f"{r.code} {r.message}" for r in exc.recipients)
            outcome = Outcome.REFUSED if all(c >= 500 for c in codes) else Outcome.RETRY
            return Delivery(
                outcome, f"the address was refused: {said}", codes[0] if codes else None
            )
        except (aiosmtplib.SMTPRecipientRefused, aiosmtplib.SMTPDataError) as exc:
            outcome = Outcome.REFUSED if exc.code >= 500 else Outcome.RETRY
            return Delivery(outcome, f"the mail server refused: {exc.code} {exc.message}", exc.code)
        except aiosmtplib.SMTPResponseException as exc:
            return Delivery(
                Outcome.RETRY, f"the mail server answered {exc.code} {exc.message}", exc.code
            )
        except (aiosmtplib.SMTPException, OSError, TimeoutError) as exc:
            return Delivery(
                Outcome.RETRY, f"no mail server at {server.host}:{server.port}: {exc!r}"
            )
        return Delivery(Outcome.DELIVERED, "delivered to the mail server")


def check_mail_from(text: str) -> str:
    """The sender: an address, with a display name or without (``GoTown <noreply@x.org>``)."""
    if any(c in text for c in "\r\n"):
        raise ValueError("a line break")
    _, address = parseaddr(text)
    if not address:
        raise ValueError(f"{text!r} is not an address, e.g. GoTown <noreply@example.org>")
    check_address(address)
    return text
