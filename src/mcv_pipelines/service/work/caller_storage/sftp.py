"""import/sftp and export/sftp: files on a caller's SSH server, through asyncssh.

The request carries no host key, so a server's key is accepted on first use and its SHA256
fingerprint put in the task's result (``host_key``), unless the operator pins servers with a
known_hosts file (``mcv serve --sftp-known-hosts FILE``). asyncssh reads nothing of the machine here:
no ~/.ssh/config, keys or known_hosts, no agent. A guarded service connects to the address it checked.
Reads and writes go a chunk at a time; a written file appears under its name only on commit.

The connection (sftp_session.py) is made again when it is lost: a read goes on from the offset it
had reached, a write from the length the server acknowledged (each write is acknowledged before the
next is sent), within the task's retry time.
"""

from __future__ import annotations

import contextlib
import posixpath
import secrets
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import asyncssh

from mcv_pipelines.service.files.storage.base import CHUNK
from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.caller_storage import errors
from mcv_pipelines.service.work.caller_storage.contract import CallerStore, Entry, StoreSettings, Writer
from mcv_pipelines.service.work.caller_storage.sftp_session import (
    HOST_KEY_REJECTED,
    TRANSIENT,
    SftpSession,
    port_of,
)

__all__ = ["HOST_KEY_REJECTED", "SftpStore"]


class SftpStore(CallerStore):
    def __init__(self, payload: Mapping[str, Any], settings: StoreSettings, pool: int = 4) -> None:
        del pool  # one SSH connection carries every file's channel
        self.host, self.port = str(payload["host"]), port_of(payload)
        self.username = str(payload["username"])
        self.secrets = errors.Secrets([payload.get("password"), payload.get("private_key")])
        self.where = f"SFTP server {self.host}:{self.port}"
        self._session = SftpSession(payload, settings, self.where, self.secrets)

    def _failed(self, exc: Exception, what: str) -> TaskFailed:
        if isinstance(exc, asyncssh.SFTPNoSuchFile):
            return TaskFailed(errors.FILE_NOT_FOUND, f"Could not {what}: no such file on the {self.where}.")
        if isinstance(exc, asyncssh.SFTPPermissionDenied):
            return TaskFailed(
                errors.ACCESS_DENIED, f"The {self.where} does not let {self.username!r} {what}."
            )
        if isinstance(exc, OSError | asyncssh.DisconnectError):
            return self.secrets.failed(errors.UNREACHABLE, f"Lost the {self.where} trying to {what}: {exc}")
        return self.secrets.failed(errors.FAILED, f"The {self.where} refused to {what}: {exc}")

    def _do(self, what: str, step: Any) -> Any:
        """``step(sftp)`` (an awaitable of asyncssh's), retried through a lost connection, failures
        mapped onto the storage codes."""
        session = self._session
        try:
            return session.retried(what, step)
        except TRANSIENT:
            raise  # retried() turns these into STORAGE_UNREACHABLE itself
        except (asyncssh.Error, OSError) as exc:
            raise self._failed(exc, what) from None

    def list(self, prefix: str) -> Iterator[Entry]:
        directory = prefix.rstrip("/") or "."

        async def files(sftp: Any) -> list[Entry]:
            found = []
            for item in await sftp.readdir(directory):
                if item.attrs.type == asyncssh.FILEXFER_TYPE_REGULAR:
                    found.append(Entry(posixpath.join(directory, item.filename), int(item.attrs.size or 0)))
            return sorted(found, key=lambda entry: entry.key)

        found: list[Entry] = self._do(
            f"list the directory {directory!r}", lambda sftp: self._session.run(files(sftp))
        )
        return iter(found)

    def read(self, key: str) -> Iterator[bytes]:
        return _Reader(self, key).chunks()

    def writer(self, key: str, filename: str, size: int | None = None) -> Writer:
        del filename
        return _SftpWriter(self, key)

    def location(self, key: str) -> str:
        port = "" if self.port == 22 else f":{self.port}"
        return f"sftp://{self.host}{port}/{key}"

    def notes(self) -> dict[str, Any]:
        fingerprint = self._session.fingerprint
        return {"host_key": fingerprint} if fingerprint else {}

    def close(self) -> None:
        self._session.close()


class _Handle:
    """A file open on the connection of the moment, opened again (``mode``) on a new one."""

    def __init__(
        self, store: SftpStore, path: str, mode: str, what: str, check: Callable[[Any], None] | None = None
    ) -> None:
        self._store, self._path, self.what, self._check = store, path, what, check
        self._handle: Any = None
        self._generation = -1
        self._mode = mode
        store._do(what, self._current)

    def _current(self, sftp: Any) -> Any:
        del sftp  # the client of the moment, read with its generation (another thread may have moved on)
        current, generation = self._store._session.sftp()
        if current is None:  # another thread's reconnection failed: the step's retry makes one
            raise asyncssh.SFTPNoConnection("not connected")
        if self._handle is None or self._generation != generation:
            reopened = self._handle is not None
            self._handle = self._store._session.run(current.open(self._path, self._mode))
            self._generation = generation
            if reopened and self._check is not None:
                self._check(self._handle)
            self._mode = self._mode.replace("w", "r+")  # opened again: keep what was written
        return self._handle

    def call(self, method: str, *args: Any) -> Any:
        session = self._store._session
        return self._store._do(
            self.what, lambda sftp: session.run(getattr(self._current(sftp), method)(*args))
        )

    def close(self) -> None:
        handle, self._handle = self._handle, None
        if handle is not None:
            with contextlib.suppress(asyncssh.Error, OSError):
                self._store._session.run(handle.close())


class _Reader:
    """A file's chunks; after a lost connection, on from the offset reached, if the file is still the
    one begun (the same size and modification time): bytes of two versions are never joined."""

    def __init__(self, store: SftpStore, key: str) -> None:
        self._store, self._key = store, key
        self._handle = _Handle(store, key, "rb", f"read {key!r}", self._same)  # a missing file fails here
        self._first = _version(self._handle.call("stat"))

    def _same(self, handle: Any) -> None:
        now = _version(self._store._session.run(handle.stat()))
        if now != self._first:
            raise TaskFailed(
                errors.FAILED,
                f"{self._key!r} changed on the {self._store.where} while it was read (size and "
                f"modification time {self._first} before the connection was lost, {now} after): the "
                "read was not resumed, as its bytes would join two versions of the file.",
            )

    def chunks(self) -> Iterator[bytes]:
        offset = 0
        try:
            while chunk := self._handle.call("read", CHUNK, offset):
                offset += len(chunk)
                yield chunk
        finally:
            self._handle.close()


def _version(attrs: Any) -> tuple[int | None, int | None]:
    return (attrs.size, attrs.mtime)


class _SftpWriter(Writer):
    """Writes under a partial name beside the target, renamed over it on commit. Every write is
    acknowledged before the next: after a lost connection the partial file is opened again and
    written on from ``size`` (what the server acknowledged), once it is seen to hold that much."""

    def __init__(self, store: SftpStore, key: str) -> None:
        self._store, self._key = store, key
        head, tail = posixpath.split(key)
        self._partial = posixpath.join(head, f".{tail}.partial-{secrets.token_hex(4)}")
        session = store._session
        if head:  # export/sftp's path may not exist yet
            store._do(
                f"make the directory {head!r}", lambda sftp: session.run(sftp.makedirs(head, exist_ok=True))
            )
        self.size = 0
        self._handle: _Handle | None = _Handle(store, self._partial, "wb", f"write {key!r}", self._holds)

    def _holds(self, handle: Any) -> None:
        """A partial file opened again must hold what was acknowledged, else it cannot go on."""
        held = self._store._session.run(handle.stat()).size or 0
        if held < self.size:
            raise TaskFailed(
                errors.UNREACHABLE,
                f"Lost the {self._store.where} writing {self._key!r}, and its partial file holds "
                f"{held} of the {self.size} bytes written before.",
            )

    def write(self, data: bytes) -> None:
        assert self._handle is not None, "write after commit or abort"
        self._handle.call("write", data, self.size)
        self.size += len(data)

    def commit(self) -> None:
        assert self._handle is not None, "commit after commit or abort"
        store, handle, self._handle = self._store, self._handle, None
        handle.call("close")
        session, tries = store._session, 0

        def rename(sftp: Any) -> None:
            nonlocal tries
            tries += 1
            try:
                session.run(sftp.posix_rename(self._partial, self._key))
            except asyncssh.SFTPNoSuchFile:
                # A rename whose answer was lost with the connection: done if the file is in place.
                if tries == 1 or session.run(sftp.exists(self._partial)):
                    raise
                if (session.run(sftp.stat(self._key)).size or 0) != self.size:
                    raise

        store._do(f"write {self._key!r}", rename)

    def abort(self) -> None:
        if self._handle is None:
            return
        handle, self._handle = self._handle, None
        handle.close()
        sftp = self._store._session.sftp()[0]
        if sftp is not None:
            with contextlib.suppress(asyncssh.Error, OSError):
                self._store._session.run(sftp.remove(self._partial))
