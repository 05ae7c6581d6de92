"""An SMTP server of the tests' own (aiosmtpd's Controller on 127.0.0.1, a free port): it
keeps every message it accepts, parsed, and refuses the recipients a test names. With
``tls="starttls"`` it requires STARTTLS, with ``tls="implicit"`` it speaks TLS from the start,
on a certificate of its own for 127.0.0.1 that :attr:`MailServer.client_context` trusts.

    with MailServer() as server:
        ...send to SmtpServer("127.0.0.1", server.port, implicit_tls=False)...
        (message,) = server.wait_for(1)
        assert message["Subject"] == "..."
"""

from __future__ import annotations

import asyncio
import datetime
import email
import email.policy
import ipaddress
import ssl
import tempfile
import threading
from email.message import EmailMessage
from pathlib import Path
from typing import Any, Literal

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


def _tls_contexts() -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """A server's context on a new self-signed certificate for 127.0.0.1, and a client's
    context that trusts it."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    pem = certificate.public_bytes(serialization.Encoding.PEM)
    with tempfile.TemporaryDirectory() as folder:
        cert_file, key_file = Path(folder, "cert.pem"), Path(folder, "key.pem")
        cert_file.write_bytes(pem)
        key_file.write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        )
        server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        server.load_cert_chain(cert_file, key_file)
    client = ssl.create_default_context(cadata=pem.decode())
    return server, client


class _Controller(Controller):
    """aiosmtpd's Controller on port 0: it learns the port the system gave before it checks
    that the server answers."""

    def _trigger_server(self) -> None:
        assert isinstance(self.server, asyncio.Server)
        self.port = self.server.sockets[0].getsockname()[1]
        super()._trigger_server()  # type: ignore[no-untyped-call]


class MailServer:
    """``login``: the (user, password) it requires (no login when None); ``refuse``: recipient
    address -> the reply to its RCPT (``"550 5.1.1 no such user"``)."""

    def __init__(
        self,
        login: tuple[str, str] | None = None,
        tls: Literal["starttls", "implicit"] | None = None,
    ) -> None:
        self.login = login
        self.refuse: dict[str, str] = {}
        self._messages: list[EmailMessage] = []
        self.envelopes: list[tuple[str, list[str]]] = []
        self.over_tls: list[bool] = []
        """Whether each message came over TLS."""
        self._changed = threading.Condition()
        options: dict[str, Any] = {}
        if login is not None:
            # (no TLS in tests; the login is required at RCPT, below)
            options = {"authenticator": self._authenticate, "auth_require_tls": False}
        self.client_context: ssl.SSLContext | None = None
        if tls is not None:
            server_context, self.client_context = _tls_contexts()
            if tls == "starttls":
                options.update(tls_context=server_context, require_starttls=True)
            else:
                options.update(ssl_context=server_context)
        self._controller = _Controller(self, hostname="127.0.0.1", port=0, **options)

    def _authenticate(
        self, server: Any, session: Any, envelope: Any, mechanism: str, data: Any
    ) -> AuthResult:
        ok = isinstance(data, LoginPassword) and self.login == (
            data.login.decode(),
            data.password.decode(),
        )
        return AuthResult(success=ok, handled=False)  # (not handled: aiosmtpd answers 535)

    # aiosmtpd's handler hooks
    async def handle_RCPT(  # noqa: N802 (aiosmtpd calls its hooks so)
        self, server: Any, session: Any, envelope: Any, address: str, options: list[str]
    ) -> str:
        if self.login is not None and not session.authenticated:
            return "530 5.7.0 Authentication required"
        if address in self.refuse:
            return self.refuse[address]
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        with self._changed:
            self._messages.append(message)
            self.envelopes.append((envelope.mail_from, list(envelope.rcpt_tos)))
            self.over_tls.append(server.transport.get_extra_info("ssl_object") is not None)
            self._changed.notify_all()
        return "250 Message accepted"

    def start(self) -> MailServer:
        self._controller.start()
        return self

    def stop(self) -> None:
        self._controller.stop()

    def __enter__(self) -> MailServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        return int(self._controller.port)

    @property
    def messages(self) -> list[EmailMessage]:
        with self._changed:
            return list(self._messages)

    def wait_for(self, count: int, timeout: float = 10.0) -> list[EmailMessage]:
        """The messages, once there are ``count`` of them (an AssertionError after
        ``timeout`` seconds without)."""
        with self._changed:
            if not self._changed.wait_for(lambda: len(self._messages) >= count, timeout):
                raise AssertionError(f"{len(self._messages)} messages, not {count}")
            return list(self._messages)
