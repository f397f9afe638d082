"""A Google Cloud Storage upload streams in a few spans and resumes from what the session holds (issue
49): against a loopback upload session that cuts the connection partway through a span and then says
it kept only part of what came, the file is read again and only the bytes the session lacks are sent
again; the object is the file, byte for byte, in at most gcs_upload.SPANS spans."""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

from fake_gcs import ServiceAccount, TokenEndpoint
from http_stub import served
from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.caller_storage.contract import StoreSettings
from mcv_pipelines.service.work.caller_storage.gcs import GcsStore
from mcv_pipelines.service.work.caller_storage.gcs_upload import MIN_SPAN, SPANS
from mcv_pipelines.service.work.caller_storage.transfer import Source, export_files

MIB = 1024 * 1024


class Session:
    """One resumable upload session; ``cut_at``: cut the connection of the first span once this many
    of its bytes came, then hold only ``keep`` bytes of the object."""

    def __init__(self, cut_at: int, keep: int) -> None:
        self.cut_at, self.keep = cut_at, keep
        self.held = bytearray()
        self.spans: list[str] = []
        self.lock = threading.Lock()

    def handler(self) -> type[BaseHTTPRequestHandler]:
        session = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                del format, args

            def _answer(self, status: int, headers: dict[str, str], body: bytes = b"") -> None:
                self.send_response(status)
                for name, value in {**headers, "content-length": str(len(body))}.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:  # the session opened
                self.rfile.read(int(self.headers.get("content-length") or 0))
                host = self.headers["host"]
                self._answer(200, {"location": f"http://{host}/session/1"})

            def do_PUT(self) -> None:
                span = self.headers.get("content-range", "")
                length = int(self.headers.get("content-length") or 0)
                with session.lock:
                    session.spans.append(span)
                if span == "bytes */*":
                    held = len(session.held)
                    self._answer(308, {"range": f"bytes=0-{held - 1}"} if held else {})
                    return
                parts = re.fullmatch(r"bytes (\d+)-(\d+)/(\d+|\*)", span)
                assert parts is not None, span
                first, last, total = parts.groups()
                assert int(first) == len(session.held), (span, len(session.held))
                if session.cut_at:
                    came = self.rfile.read(session.cut_at)
                    session.held += came[: session.keep]
                    session.cut_at = 0
                    self.close_connection = True
                    self.connection.close()
                    return
                session.held += self.rfile.read(length)
                if total == "*":
                    self._answer(308, {"range": f"bytes=0-{last}"})
                    return
                md5 = base64.b64encode(hashlib.md5(session.held, usedforsecurity=False).digest()).decode()
                body = f'{{"name": "big.bin", "md5Hash": "{md5}"}}'.encode()
                self._answer(200, {"content-type": "application/json"}, body)

        return Handler


def chunks_of(data: bytes) -> Iterator[bytes]:
    for start in range(0, len(data), MIB):
        yield data[start : start + MIB]


def test_a_cut_span_resumes_from_what_the_session_holds_and_sends_it_whole(tmp_path: Any) -> None:
    data = secrets.token_bytes(40 * MIB + 5)
    each = 10 * MIB + 256 * 1024  # (40 MiB + 5) / SPANS, up to a multiple of 256 KiB
    session = Session(cut_at=6 * MIB, keep=4 * MIB)
    account = ServiceAccount()
    payload = {"bucket": "b", "client_email": account.email, "private_key": account.pem}
    reads = []

    def source() -> Iterator[bytes]:
        reads.append(1)
        return chunks_of(data)

    with TokenEndpoint(account) as tokens, served(session.handler()) as server:
        settings = StoreSettings(retry_for=30.0, gcs_endpoint=server.url, gcs_token_uri=tokens.url)
        store = GcsStore(payload, settings)
        try:
            [entry] = export_files(store, "big.bin", None, [Source("big.bin", source, len(data))])
        finally:
            store.close()
    assert entry["size"] == len(data)
    assert bytes(session.held) == data
    assert len(reads) == 2  # read again once, after the cut
    total = len(data)
    assert session.spans == [
        f"bytes 0-{each - 1}/*",  # cut after 6 MiB, of which the session kept 4
        "bytes */*",
        f"bytes {4 * MIB}-{each - 1}/*",  # on from what it held, not from 0
        f"bytes {each}-{2 * each - 1}/*",
        f"bytes {2 * each}-{3 * each - 1}/*",
        f"bytes {3 * each}-{total - 1}/{total}",
    ]
    assert each >= MIN_SPAN
    assert len(session.spans) - 2 == SPANS  # the cut one sent twice, and the question


def test_a_file_that_grew_while_it_was_sent_fails_the_task_and_sends_nothing_past_its_size() -> None:
    data = secrets.token_bytes(2 * MIB)
    session = Session(cut_at=0, keep=0)
    account = ServiceAccount()
    payload = {"bucket": "b", "client_email": account.email, "private_key": account.pem}
    failure: TaskFailed | None = None
    with TokenEndpoint(account) as tokens, served(session.handler()) as server:
        settings = StoreSettings(retry_for=5.0, gcs_endpoint=server.url, gcs_token_uri=tokens.url)
        store = GcsStore(payload, settings)
        done = threading.Event()

        def export() -> None:
            nonlocal failure
            try:  # the file said 1 MiB when the export began, and 2 MiB came
                export_files(store, "big.bin", None, [Source("big.bin", lambda: chunks_of(data), MIB)])
            except TaskFailed as exc:
                failure = exc
            finally:
                done.set()

        worker = threading.Thread(target=export, daemon=True)
        worker.start()
        finished = done.wait(30)
        store.close()
    assert finished, "the export of a grown file never ended"
    assert failure is not None
    assert failure.code == "STORAGE_FAILED"
    assert "changed while it was sent" in failure.message
    assert bytes(session.held) == data[:MIB]  # the size said, and not a byte past it
