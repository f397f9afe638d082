"""Moving a task's files between the caller's storage and the service, a few at a time.

Both directions stream: every object is read in chunks into a Writer (a task file on disk, or the
service's own store) and every file is written to the caller's store through its Writer, so no file
is ever whole in memory. Several files run AT_ONCE at a time; the first failure stops the rest and
fails the task, with what was written of it aborted.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any, TypeVar

from mcv_pipelines.service.engines.archive.unpack import MemberNames
from mcv_pipelines.service.files.paths import safe_filename
from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.caller_storage import errors
from mcv_pipelines.service.work.caller_storage.contract import CallerStore, Writer

__all__ = ["AT_ONCE", "Source", "Target", "export_files", "import_files", "numbered_keys"]

AT_ONCE = 4
Target = Callable[[str], Writer]  # a file name -> the writer of the task's file of that name
_T = TypeVar("_T")
_PRINTF = re.compile(r"%%|%(0?\d*)d")


@dataclass(frozen=True)
class Source:
    """One file an export sends: its name and how to read it."""

    filename: str
    chunks: Callable[[], Iterator[bytes]]
    size: int | None = None  # known from the file, for a store that writes large files apart


def import_files(
    store: CallerStore,
    key: str | None,
    prefix: str | None,
    filename: str | None,
    target: Target,
    cancelled: threading.Event | None = None,
) -> list[dict[str, Any]]:
    """Bring the object ``key``, or every object under ``prefix``, into the task's files; returns the
    result's files entries ({filename, md5, size}) in key order."""
    if prefix is not None:
        entries = list(store.list(prefix))
        if not entries:
            raise TaskFailed(
                errors.FILE_NOT_FOUND, f"There is no object under the prefix {prefix!r} in the {store.where}."
            )
        names = MemberNames()
        wanted = [(entry.key, names.unique(safe_filename(entry.key))) for entry in entries]
    else:
        assert key is not None
        wanted = [(key, safe_filename(filename or key))]
    return _each(wanted, lambda item: _copy_in(store, item[0], item[1], target, cancelled))


def _copy_in(
    store: CallerStore, key: str, name: str, target: Target, cancelled: threading.Event | None
) -> dict[str, Any]:
    digest = hashlib.md5(usedforsecurity=False)
    chunks = store.read(key)  # a missing key fails here, before a file is begun
    writer = target(name)
    try:
        for chunk in chunks:
            _check(cancelled)
            digest.update(chunk)
            writer.write(chunk)
        writer.commit()
    finally:
        writer.abort()
    return {"filename": name, "md5": digest.hexdigest(), "size": writer.size}


def export_files(
    store: CallerStore,
    key: str | None,
    prefix: str | None,
    sources: Sequence[Source],
    cancelled: threading.Event | None = None,
    join: Callable[[str, str], str] = str.__add__,
) -> list[dict[str, Any]]:
    """Store every file under its key (``join``: a prefix and a file name, for a store whose prefix is
    a directory); returns the result's files entries ({filename, size, location})."""
    if not sources:
        raise TaskFailed("INPUT_TASK_FAILED", "The task has no input file to export.")
    if prefix is not None:
        keys = [join(prefix, safe_filename(source.filename)) for source in sources]
    else:
        assert key is not None
        keys = numbered_keys(key, len(sources))
    pairs = list(zip(sources, keys, strict=True))
    return _each(pairs, lambda pair: _copy_out(store, pair[0], pair[1], cancelled))


def numbered_keys(key: str, count: int) -> list[str]:
    """``key`` for each of ``count`` files: printf's ``%d`` (``%03d``) numbers them from 1, ``%%``
    is a percent sign."""
    if not any(m.group(1) is not None for m in _PRINTF.finditer(key)):
        if count > 1:
            raise TaskFailed(
                "INVALID_KEY",
                f"{count} files cannot all be stored under the one key {key!r}: number them with %d "
                "(page-%d.png) or use key_prefix.",
            )
        return [_PRINTF.sub("%", key)]
    return [_numbered(key, n) for n in range(1, count + 1)]


def _numbered(key: str, n: int) -> str:
    def one(match: re.Match[str]) -> str:
        width = match.group(1)
        return "%" if width is None else f"{n:{width}d}" if width else str(n)

    return _PRINTF.sub(one, key)


def _copy_out(
    store: CallerStore, source: Source, key: str, cancelled: threading.Event | None
) -> dict[str, Any]:
    try:
        return _send(store, source, key, cancelled)
    except errors.SendAgain:
        return _send(store, source, key, cancelled)  # the store put its refusal right: once more


def _send(store: CallerStore, source: Source, key: str, cancelled: threading.Event | None) -> dict[str, Any]:
    writer = store.writer(key, source.filename, source.size)
    try:
        while True:
            try:
                for chunk in source.chunks():
                    _check(cancelled)
                    writer.write(chunk)
                writer.commit()
                break
            except errors.ReadAgain:
                continue  # the same writer, from the file's start: it skips what the store holds
    finally:
        writer.abort()
    return {"filename": source.filename, "size": writer.size, "location": store.location(key)}


def _check(cancelled: threading.Event | None) -> None:
    if cancelled is not None and cancelled.is_set():
        raise TaskFailed("CANCELLED", "The task was stopped.")


def _each(items: Sequence[_T], work: Callable[[_T], dict[str, Any]]) -> list[dict[str, Any]]:
    """``work`` on every item, AT_ONCE at a time, results in the items' order; the first failure
    cancels what has not started and is raised once the rest have ended."""
    if len(items) == 1:
        return [work(items[0])]
    with ThreadPoolExecutor(AT_ONCE, thread_name_prefix="mcv-transfer") as pool:
        futures = [pool.submit(work, item) for item in items]
        wait(futures, return_when=FIRST_EXCEPTION)
        failed = next((f.exception() for f in futures if f.done() and f.exception() is not None), None)
        if failed is not None:
            pool.shutdown(cancel_futures=True)
            raise failed
    return [future.result() for future in futures]
