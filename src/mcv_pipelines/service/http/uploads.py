"""The upload form of import/upload tasks: POST /upload/{task_id}.

The multipart body is parsed as a stream (``form_parser``'s push parser, fed from a worker thread)
and the file part is written straight into the store (a file in the task's directory, or a multipart
upload to S3), so memory stays flat whatever the file size. Form fields
(expires, max_file_count, max_file_size, signature, redirect) come before ``file`` and are checked as
soon as the file part starts. 201 on success, or a 303 redirect when the form carries ``redirect``.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from typing import Any

from python_multipart.multipart import parse_options_header
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from mcv_pipelines.service.files.paths import safe_filename
from mcv_pipelines.service.files.signing import valid_signature
from mcv_pipelines.service.files.storage import DirectoryStorage, StorageError, Writer
from mcv_pipelines.service.http.context import ServiceContext, context
from mcv_pipelines.service.http.errors import ApiError, InvalidData, not_found
from mcv_pipelines.service.http.form_parser import FormParser
from mcv_pipelines.service.state.jsontext import FastJSONResponse
from mcv_pipelines.service.state.render import task_json
from mcv_pipelines.service.state.store import Doc

__all__ = ["receive_upload"]

_FIELD_LIMIT = 64 * 1024
_BATCH = 1024 * 1024  # body bytes handed to the parser (in a worker thread) at a time
# A body at most this big, bound for the local directory store and the embedded SQLite database, is
# parsed, written and recorded on the event loop: a thread hop costs more than the work (a small file's
# write and one local transaction), and the hops were a third of the service's CPU in bench/batch.py.
_INLINE = 64 * 1024


class _FormReader:
    """What the parser finds: fields kept in memory, the file streamed to the store."""

    def __init__(self, ctx: ServiceContext, task_id: str) -> None:
        self.ctx = ctx
        self.task_id = task_id
        self.fields: dict[str, str] = {}
        self.files: list[dict[str, Any]] = []
        self.error: ApiError | None = None
        self._name = ""
        self._filename: str | None = None
        self._value = bytearray()
        self._handle: Writer | None = None
        self._md5 = hashlib.md5(usedforsecurity=False)
        self._size = 0
        self._max_size = 0

    def parser(self, boundary: bytes) -> FormParser:
        return FormParser(boundary, self)

    def _fail(self, error: ApiError) -> None:
        if self.error is None:
            self.error = error

    def part_begin(self, headers: dict[bytes, bytes]) -> None:
        self._value, self._filename = bytearray(), None
        _, options = parse_options_header(headers.get(b"content-disposition", b""))
        self._name = options.get(b"name", b"").decode("utf-8", "replace")
        raw_filename = options.get(b"filename")
        if raw_filename is None:
            return
        self._filename = safe_filename(raw_filename.decode("utf-8", "replace"))
        self._check_form()
        if self.error is None and len(self.files) >= _int(self.fields.get("max_file_count"), 1):
            self._fail(InvalidData({"file": ["The form accepts no more files (max_file_count)."]}))
        if self.error is None:
            self._handle = self.ctx.storage.writer(self.task_id, self._filename)
            self._md5 = hashlib.md5(usedforsecurity=False)
            self._size = 0
            self._max_size = _int(self.fields.get("max_file_size"), 0)

    def _check_form(self) -> None:
        f = self.fields
        redirect = f.get("redirect", "")
        parts = (
            "upload",
            self.task_id,
            f.get("expires", ""),
            f.get("max_file_count", ""),
            f.get("max_file_size", ""),
            redirect,
        )
        if not valid_signature(self.ctx.config.signing_key, f.get("signature", ""), *parts):
            self._fail(ApiError(403, "INVALID_SIGNATURE", "The upload form's signature is not valid."))
        elif _int(f.get("expires"), 0) < time.time():
            self._fail(ApiError(403, "FORM_EXPIRED", "The upload form has expired; create a new task."))

    def part_data(self, chunk: bytes) -> None:
        if self.error is not None:
            return
        if self._filename is None:
            self._value += chunk
            if len(self._value) > _FIELD_LIMIT:
                self._fail(InvalidData({self._name: ["The form field is too long."]}))
            return
        if self._handle is None:
            return
        self._size += len(chunk)
        if self._size > self._max_size:
            self._fail(
                ApiError(
                    413,
                    "FILE_TOO_LARGE",
                    f"The file is larger than the form's max_file_size of {self._max_size} bytes.",
                )
            )
            return
        self._md5.update(chunk)
        self._handle.write(chunk)

    def part_end(self) -> None:
        if self._filename is None:
            self.fields[self._name] = self._value.decode("utf-8", "replace")
            return
        if self._handle is None:
            return
        handle, self._handle = self._handle, None
        if self.error is not None:
            handle.abort()
        else:
            handle.commit()
            self.files.append({"filename": self._filename, "md5": self._md5.hexdigest(), "size": self._size})

    @property
    def open(self) -> bool:
        """A file is being written (not yet committed or aborted)."""
        return self._handle is not None

    def discard(self) -> None:
        if self._handle is not None:
            self._handle.abort()
            self._handle = None


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


def _on_loop(ctx: ServiceContext, request: Request) -> bool:
    """Whether this upload is small and local enough to be handled without a worker thread."""
    length = _int(request.headers.get("content-length"), _INLINE + 1)
    return length <= _INLINE and isinstance(ctx.storage, DirectoryStorage) and not ctx.store.db.shared


async def _feed(
    request: Request,
    parser: FormParser,
    reader: _FormReader,
    inline: bool,
    then: Callable[[], None] | None = None,
) -> None:
    """The body into the parser, in batches of about _BATCH bytes, each in a worker thread (writing
    to the store blocks), or on the loop when ``inline``. ``then`` runs in the same thread as the
    last batch once the body was whole and accepted: a second hop costs a thread wake-up per upload."""
    batch = bytearray()
    async for chunk in request.stream():
        batch += chunk
        if len(batch) >= _BATCH:
            await run_in_threadpool(parser.write, bytes(batch))
            batch.clear()
            if reader.error is not None:
                return
    if inline:  # the whole body, at most _INLINE bytes (its Content-Length said so)
        _last(parser, reader, bytes(batch))
    else:
        await run_in_threadpool(_last, parser, reader, bytes(batch), then)  # one hop for a small body


def _last(
    parser: FormParser, reader: _FormReader, batch: bytes, then: Callable[[], None] | None = None
) -> None:
    if batch:
        parser.write(batch)
    if reader.error is None:
        parser.finalize()
    if then is not None and reader.error is None and reader.files and not reader.open:
        then()


class _Completion:
    """``complete_upload`` run on the thread that parsed the body's end; what it returned or raised,
    for the request to answer with once the body's own errors were looked at."""

    def __init__(self, ctx: ServiceContext, task_id: str, reader: _FormReader) -> None:
        self._ctx, self._task_id, self._reader = ctx, task_id, reader
        self.ran = False
        self.ended: Doc | None = None
        self.error: BaseException | None = None

    def __call__(self) -> None:
        self.ran = True
        try:
            self.ended = self._ctx.scheduler.complete_upload(self._task_id, self._reader.files[0])
        except Exception as exc:  # raised again by the request, outside the body's error mapping
            self.error = exc

    def result(self) -> Doc | None:
        if self.error is not None:
            raise self.error
        return self.ended


async def receive_upload(request: Request) -> Response:
    ctx = context(request)
    task_id = request.path_params["task_id"]
    task = ctx.store.get_task(task_id)
    if task is None or task["operation"] != "import/upload":
        raise not_found("Upload task")
    if task["status"] != "waiting":
        raise ApiError(409, "TASK_NOT_WAITING", f"The task is {task['status']}; it takes no more uploads.")
    kind, options = parse_options_header(request.headers.get("content-type"))
    if kind != b"multipart/form-data" or b"boundary" not in options:
        raise InvalidData({"file": ["Send the file as multipart/form-data."]})
    reader = _FormReader(ctx, task_id)
    inline = _on_loop(ctx, request)
    completion = _Completion(ctx, task_id, reader)
    try:
        parser = reader.parser(options[b"boundary"])
        await _feed(request, parser, reader, inline, None if inline else completion)
    except ValueError as exc:  # the parser's MultipartError: the boundary refused, or the body's framing
        raise InvalidData({"file": [f"The multipart body is malformed: {exc}"]}) from exc
    except StorageError as exc:
        raise ApiError(503, "STORAGE_UNAVAILABLE", f"The upload could not be stored: {exc.message}") from None
    finally:
        if reader.open:  # only a body that failed midway leaves a file to abort
            await run_in_threadpool(reader.discard)
    if reader.error is not None:
        raise reader.error
    if not reader.files:
        raise InvalidData({"file": ["The file field is required."]})
    ctx.metrics.bytes_in(int(reader.files[0]["size"]))
    if completion.ran:  # on the thread that parsed the body's end
        ended = completion.result()
    elif inline:
        ended = ctx.scheduler.complete_upload(task_id, reader.files[0])
    else:
        ended = await run_in_threadpool(ctx.scheduler.complete_upload, task_id, reader.files[0])
    redirect = reader.fields.get("redirect")
    if redirect:
        return RedirectResponse(redirect, status_code=303)
    done = ended or ctx.store.get_task(task_id) or task
    return FastJSONResponse({"data": task_json(done, ctx.base)}, status_code=201)
