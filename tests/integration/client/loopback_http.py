"""A few-line HTTP/1.1 server on loopback for the client's socket and transport tests (imported by name)."""

from __future__ import annotations

import asyncio
import json
import ssl
from collections.abc import Awaitable, Callable

__all__ = ["Answer", "LoopbackHttp", "as_json"]

# (request line, body) -> (response body, whether to close the connection after it, unannounced);
# a body of None closes the connection without an answer.
Answer = Callable[[str, bytes], tuple[bytes | None, bool]]


class LoopbackHttp:
    """An HTTP/1.1 server on 127.0.0.1 that answers each request with ``answer`` and records it."""

    def __init__(self, answer: Answer, tls: ssl.SSLContext | None = None, headers: str = "") -> None:
        self.answer = answer
        self.tls = tls
        self.headers = headers  # extra header lines of every answer, each ending in CRLF
        self.seen: list[tuple[str, int]] = []  # (request line, body bytes)
        self.cookies: list[str | None] = []  # the Cookie header of each request
        self.connections = 0
        self.port = 0
        # Awaited before each answer when set: a test holds answers back to see requests in flight.
        self.hold: Callable[[], Awaitable[None]] | None = None
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> LoopbackHttp:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=self.tls)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
                fields = dict(line.split(":", 1) for line in head[1:] if line)
                length = int({k.lower(): v for k, v in fields.items()}.get("content-length", "0"))
                body = await reader.readexactly(length)
                self.seen.append((head[0], len(body)))
                cookie = [v.strip() for k, v in fields.items() if k.lower() == "cookie"]
                self.cookies.append(cookie[0] if cookie else None)
                if self.hold is not None:
                    await self.hold()
                payload, close = self.answer(head[0], body)
                if payload is None:
                    break
                head_out = (
                    f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(payload)}"
                )
                writer.write(f"{head_out}\r\n{self.headers}\r\n".encode() + payload)
                await writer.drain()
                if close:
                    break
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            pass  # the client hung up, or the test ended with the connection still open
        finally:
            writer.close()


def as_json(data: object) -> bytes:
    return json.dumps(data).encode()
