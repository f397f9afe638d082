"""Keystone's token answer for the Swift tests, served on loopback by the test itself (the only part of
OpenStack not run for real): v3 ``POST /v3/auth/tokens`` and v2 ``POST /v2.0/tokens``, the password
checked (a wrong one is 401), and a catalog whose public object-store endpoint in ``REGION`` is the
real Swift proxy's account of the project. Decoys: the same region's internal endpoint and another
region's public one point at a port nothing listens on.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["REGION", "KeystoneStub"]

REGION = "RegionOne"


class KeystoneStub:
    """Keystone for one user: ``username``/``password``, default project ``project``; v2 tenants are
    projects of any name. ``requests``: (path, body) of each login, passwords left out."""

    def __init__(self, account_url: Any, closed_port: int) -> None:
        self.account_url = account_url  # project -> the proxy's /v1/AUTH_<project>
        self.closed_port = closed_port
        self.username = "demo"
        self.password = "pw-" + secrets.token_urlsafe(12)
        self.project = "demo"
        self.tokens: set[str] = set()
        self.issued: list[str] = []  # tokens in the order they were given
        self.lifetime: float | None = None  # seconds a token lasts (expires_at); None: not said
        self.on_issue: Callable[[str], None] = lambda token: None  # told of each token given
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.v2 = True  # False: /v2.0 answers 404, as a Keystone without v2 does
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                stub.answer(self, body)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> KeystoneStub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _endpoints(self, project: str) -> list[dict[str, str]]:
        elsewhere = f"http://127.0.0.1:{self.closed_port}/v1/AUTH_{project}"
        return [
            {"interface": "internal", "region": REGION, "region_id": REGION, "url": elsewhere},
            {"interface": "public", "region": "RegionTwo", "region_id": "RegionTwo", "url": elsewhere},
            {"interface": "public", "region": REGION, "region_id": REGION, "url": self.account_url(project)},
        ]

    def answer(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        path = handler.path.rstrip("/")
        if path == "/v3/auth/tokens":
            user = body["auth"]["identity"]["password"]["user"]
            name, password = user["name"], user["password"]
            scope = body["auth"].get("scope", {}).get("project", {})
            project = scope.get("name", self.project)
            logged = {"user": name, "domain": user.get("domain"), "scope": body["auth"].get("scope")}
        elif path == "/v2.0/tokens" and self.v2:
            credentials = body["auth"]["passwordCredentials"]
            name, password = credentials["username"], credentials["password"]
            project = body["auth"].get("tenantName", "")
            logged = {"user": name, "tenant": project}
        else:
            self._send(handler, 404, {"error": {"code": 404, "title": "Not Found"}})
            return
        self.requests.append((path, logged))
        if (name, password) != (self.username, self.password):
            self._send(handler, 401, {"error": {"code": 401, "title": "Unauthorized"}})
            return
        token = "tok-" + secrets.token_hex(16)
        self.tokens.add(token)
        self.issued.append(token)
        self.on_issue(token)
        ends = {}
        if self.lifetime is not None:
            moment = datetime.fromtimestamp(time.time() + self.lifetime, UTC)
            ends = {"expires_at": moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")}
        endpoints = self._endpoints(project)
        if path.startswith("/v3"):
            catalog = [
                {"type": "identity", "endpoints": []},
                {"type": "object-store", "name": "swift", "endpoints": endpoints},
            ]
            body = {"token": {"catalog": catalog, **ends}}
            self._send(handler, 201, body, {"X-Subject-Token": token})
        else:
            v2 = [
                {
                    "region": e["region"],
                    "publicURL": e["url"] if e["interface"] == "public" else "http://bad.invalid/",
                    "internalURL": e["url"],
                }
                for e in endpoints
                if e["interface"] == "public"
            ]
            catalog = [{"type": "object-store", "name": "swift", "endpoints": v2}]
            given = {"id": token, **({"expires": ends["expires_at"]} if ends else {})}
            self._send(handler, 200, {"access": {"token": given, "serviceCatalog": catalog}})

    @staticmethod
    def _send(
        handler: BaseHTTPRequestHandler,
        status: int,
        body: dict[str, Any],
        headers: dict[str, str] | None = None,
    ) -> None:
        data = json.dumps(body).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(data)
