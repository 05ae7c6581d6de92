"""A push service of the tests' own: a real HTTP server on 127.0.0.1 that takes Web Push
requests as a browser's push service does, and reads them as the browser would.

It makes subscriptions as a browser makes them for a page (:meth:`PushService.subscribe`: a
P-256 key pair and 16 random bytes of authentication secret, bound to the page's VAPID public
key), and for each POST to one of their endpoints it checks the VAPID ``Authorization`` header
(RFC 8292: the JWT's ES256 signature against that public key, ``aud`` the service's origin,
``exp`` in the coming 24 hours, a ``sub``) and decrypts the body (RFC 8291 ``aes128gcm``, with
http_ece and the subscription's private key and secret). Tests then assert on what arrived
(:attr:`PushService.received`, :meth:`PushService.messages`, :meth:`PushService.wait_for`).

It answers 201, or what a test told it to for a subscription (:meth:`PushService.set_answer`:
404, 410, 429 with Retry-After, 500, a redirect...); a request that fails a check gets 400,
401 or 403, its problem recorded. A sender under test allows exactly this service's origin
with the push_services entry :attr:`PushService.origin` (``http://127.0.0.1:PORT``).

    with PushService(key.application_server_key) as service:
        browser = service.subscribe()
        ...send to browser.to_json()...
        (message,) = service.wait_for(1)
        assert message.json["title"] == "..."
"""

from __future__ import annotations

import base64
import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

#: The largest request body read (a push message is at most 4096 bytes).
MAX_BODY = 8192


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class BrowserSubscription:
    """What a browser keeps for one subscription: its keys, private ones included."""

    id: str
    endpoint: str
    private_key: ec.EllipticCurvePrivateKey
    auth_secret: bytes

    @property
    def p256dh(self) -> str:
        point = self.private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return b64url(point)

    @property
    def auth(self) -> str:
        return b64url(self.auth_secret)

    def to_json(self) -> dict[str, Any]:
        """As ``PushSubscription.toJSON()`` gives it to the page."""
        return {
            "endpoint": self.endpoint,
            "expirationTime": None,
            "keys": {"p256dh": self.p256dh, "auth": self.auth},
        }


@dataclass
class Received:
    """One request to a subscription's endpoint, and what the service made of it."""

    subscription: str
    status: int
    """What the service answered."""
    headers: dict[str, str]
    """The request's headers, their names in lower case."""
    problem: str = ""
    """Why the request failed a check ("" when it passed them all)."""
    claims: dict[str, Any] = field(default_factory=dict)
    payload: bytes = b""
    """The decrypted body."""

    @property
    def json(self) -> Any:
        return json.loads(self.payload)


@dataclass
class _Answer:
    status: int
    headers: dict[str, str]


class PushService:
    """A Web Push service on 127.0.0.1 (a free port unless ``port`` is given), for the
    subscriptions made with ``application_server_key`` (the page's VAPID public key,
    base64url). ``host`` is the host its endpoints name: 127.0.0.1, or a name that the test
    resolves to it."""

    def __init__(self, application_server_key: str, port: int = 0, host: str = "127.0.0.1") -> None:
        self.application_server_key, self.host = application_server_key, host
        self._public_key = ec.EllipticCurvePublicKey.from_encoded_point(
            ec.SECP256R1(), unb64url(application_server_key)
        )
        self._port = port
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._subscriptions: dict[str, BrowserSubscription] = {}
        self._answers: dict[str, _Answer] = {}
        self._received: list[Received] = []
        self._changed = threading.Condition()

    # -- life ---------------------------------------------------------------------------
    def start(self) -> PushService:
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                service._take(self)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", self._port), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            assert self._thread is not None
            self._thread.join()
            self._server = self._thread = None

    def __enter__(self) -> PushService:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def origin(self) -> str:
        """``http://HOST:PORT``: the push_services entry that allows this service."""
        assert self._server is not None, "PushService not started"
        return f"http://{self.host}:{self._server.server_address[1]}"

    # -- what tests do --------------------------------------------------------------------
    def subscribe(self) -> BrowserSubscription:
        """A new subscription, made as a browser makes one."""
        sub_id = secrets.token_urlsafe(12)
        subscription = BrowserSubscription(
            sub_id,
            f"{self.origin}/push/{sub_id}",
            ec.generate_private_key(ec.SECP256R1()),
            secrets.token_bytes(16),
        )
        with self._changed:
            self._subscriptions[sub_id] = subscription
        return subscription

    def set_answer(self, subscription: BrowserSubscription, status: int, **headers: str) -> None:
        """Answer ``status`` (with ``headers``: ``Retry_After="30"``, ``Location=...``; an
        underscore is a hyphen) to every request for ``subscription`` from now on; 201 goes
        back to normal."""
        named = {name.replace("_", "-"): value for name, value in headers.items()}
        with self._changed:
            self._answers[subscription.id] = _Answer(status, named)

    @property
    def received(self) -> list[Received]:
        """Every request so far, in order."""
        with self._changed:
            return list(self._received)

    def messages(self, subscription: BrowserSubscription | None = None) -> list[Received]:
        """The requests delivered (answered 201), for ``subscription`` or all."""
        return [
            r
            for r in self.received
            if r.status == 201 and (subscription is None or r.subscription == subscription.id)
        ]

    def wait_for(self, count: int, timeout: float = 10.0) -> list[Received]:
        """The requests, once there are ``count`` of them (an AssertionError after
        ``timeout`` seconds without)."""
        with self._changed:
            if not self._changed.wait_for(lambda: len(self._received) >= count, timeout):
                raise AssertionError(f"{len(self._received)} requests, not {count}")
            return list(self._received)

    # -- the service ----------------------------------------------------------------------
    def _take(self, request: BaseHTTPRequestHandler) -> None:
        headers = {name.lower(): value for name, value in request.headers.items()}
        length = int(headers.get("content-length", "0") or 0)
        body = request.rfile.read(min(length, MAX_BODY))
        sub_id = request.path.removeprefix("/push/")
        with self._changed:
            subscription = self._subscriptions.get(sub_id)
            answer = self._answers.get(sub_id)
        received = Received(sub_id, 201, headers)
        if subscription is None:
            received.status, received.problem = 404, "no such subscription"
        else:
            try:
                received.claims = self._check_vapid(headers.get("authorization", ""))
                self._check_headers(headers)
            except ValueError as exc:
                received.status, received.problem = 401, str(exc)
            else:
                try:
                    received.payload = http_ece.decrypt(
                        body,
                        private_key=subscription.private_key,
                        auth_secret=subscription.auth_secret,
                        version="aes128gcm",
                    )
                except Exception as exc:  # http_ece's errors, and a body too short to parse
                    received.status, received.problem = 400, f"cannot decrypt: {exc!r}"
        extra: dict[str, str] = {}
        if answer is not None and answer.status != 201:
            received.status, extra = answer.status, answer.headers
        with self._changed:  # (recorded before the answer, which a test may be waiting for)
            self._received.append(received)
            self._changed.notify_all()
        request.send_response(received.status)
        if received.status == 201:
            request.send_header("Location", f"{self.origin}/message/{secrets.token_hex(8)}")
        for name, value in extra.items():
            request.send_header(name, value)
        request.send_header("Content-Length", "0")
        request.end_headers()

    def _check_headers(self, headers: dict[str, str]) -> None:
        if headers.get("content-encoding") != "aes128gcm":
            raise ValueError(f"Content-Encoding {headers.get('content-encoding')!r}")
        if not headers.get("ttl", "").isdigit():
            raise ValueError(f"TTL {headers.get('ttl')!r}")

    def _check_vapid(self, authorization: str) -> dict[str, Any]:
        """RFC 8292: ``vapid t=<JWT>, k=<public key>``, the JWT signed by that key."""
        scheme, _, rest = authorization.partition(" ")
        if scheme.lower() != "vapid":
            raise ValueError(f"Authorization scheme {scheme!r}, not vapid")
        params = dict(part.strip().split("=", 1) for part in rest.split(",") if "=" in part)
        if params.get("k") != self.application_server_key:
            raise ValueError("k is not the key the subscription was made with")
        try:
            header_b64, claims_b64, signature_b64 = params["t"].split(".")
            header = json.loads(unb64url(header_b64))
            claims: dict[str, Any] = json.loads(unb64url(claims_b64))
            signature = unb64url(signature_b64)
        except (KeyError, ValueError) as exc:
            raise ValueError(f"not a JWT: {exc!r}") from None
        if header.get("alg") != "ES256" or len(signature) != 64:
            raise ValueError(f"JWT not ES256: {header}")
        der = encode_dss_signature(
            int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big")
        )
        try:
            self._public_key.verify(
                der, f"{header_b64}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256())
            )
        except InvalidSignature:
            raise ValueError("the JWT's signature does not verify") from None
        if claims.get("aud") != self.origin:
            raise ValueError(f"aud {claims.get('aud')!r}, not {self.origin}")
        now = time.time()
        if not isinstance(claims.get("exp"), int) or not now < claims["exp"] <= now + 86400:
            raise ValueError(f"exp {claims.get('exp')!r} is not within the next 24 hours")
        if not str(claims.get("sub", "")).startswith(("mailto:", "https:")):
            raise ValueError(f"sub {claims.get('sub')!r}")
        return claims
