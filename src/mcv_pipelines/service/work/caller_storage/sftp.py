"""import/sftp and export/sftp: files on a caller's SSH server, through asyncssh.

The request carries no host key, so a server's key is accepted on first use and its SHA256
fingerprint put in the task's result (``host_key``), unless the operator pins servers with a
known_hosts file (``mcv serve --sftp-known-hosts FILE``). asyncssh reads nothing of the machine here:
no ~/.ssh/config, keys or known_hosts, no agent. A guarded service connects to the address it checked.
Reads and writes go a chunk at a time; a written file appears under its name only on commit.
"""

from __future__ import annotations

import asyncio
import contextlib
import posixpath
import secrets
import socket
import threading
from collections.abc import Awaitable, Iterator, Mapping
from typing import Any, TypeVar

import asyncssh

from mcv_pipelines.service.engines.url_guard import ForbiddenAddress, UnresolvedHost
from mcv_pipelines.service.files.storage.base import CHUNK
from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.caller_storage import errors
from mcv_pipelines.service.work.caller_storage.contract import CallerStore, Entry, StoreSettings, Writer

__all__ = ["SftpStore"]

_T = TypeVar("_T")
HOST_KEY_REJECTED = "STORAGE_HOST_KEY_REJECTED"
_TIMEOUT = 20.0


def _port(payload: Mapping[str, Any]) -> int:
    value = payload.get("port") or 22
    text = str(value).strip()
    if isinstance(value, bool) or not text.isdigit() or not 0 < int(text) < 65536:
        raise TaskFailed("INVALID_TASK", f"The port {value!r} is not a port number (1-65535).")
    return int(text)


class SftpStore(CallerStore):
    def __init__(self, payload: Mapping[str, Any], settings: StoreSettings, pool: int = 4) -> None:
        del pool  # one SSH connection carries every file's channel
        self.host, self.port = str(payload["host"]), _port(payload)
        self.username = str(payload["username"])
        self.secrets = errors.Secrets([payload.get("password"), payload.get("private_key")])
        self.where = f"SFTP server {self.host}:{self.port}"
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="mcv-sftp", daemon=True)
        self._thread.start()
        self._fingerprint = ""
        try:
            sock = self._socket(settings)
            self._conn, self._sftp = self._run(self._connect(payload, settings, sock))
        except BaseException:
            self._stop_loop()
            raise

    def _socket(self, settings: StoreSettings) -> socket.socket:
        """A connection to the host (to an address the guard checked, on a served instance)."""
        addresses = [self.host]
        if settings.guard is not None:
            try:
                addresses = settings.guard.addresses(self.host, self.port)
            except ForbiddenAddress as exc:
                raise errors.forbidden_address(exc, "the SFTP host") from None
            except UnresolvedHost as exc:
                raise TaskFailed(
                    errors.UNREACHABLE, f"Could not reach the {self.where}: {exc.reason}."
                ) from None
        failure: OSError | None = None
        for address in addresses:
            try:
                return socket.create_connection((address, self.port), timeout=_TIMEOUT)
            except OSError as exc:
                failure = exc
        raise TaskFailed(errors.UNREACHABLE, f"Could not reach the {self.where}: {failure}.")

    async def _connect(
        self, payload: Mapping[str, Any], settings: StoreSettings, sock: socket.socket
    ) -> tuple[Any, Any]:
        key = payload.get("private_key")
        try:
            client_keys = [asyncssh.import_private_key(str(key))] if key else None
        except (asyncssh.KeyImportError, ValueError) as exc:
            raise self.secrets.failed(
                errors.ACCESS_DENIED, f"The private_key is not a usable key: {exc}"
            ) from None
        sock.settimeout(None)
        try:
            conn = await asyncssh.connect(
                self.host,
                self.port,
                sock=sock,
                config=None,
                username=self.username,
                password=str(payload["password"]) if payload.get("password") else None,
                client_keys=client_keys,
                agent_path=None,
                known_hosts=settings.known_hosts or None,
                connect_timeout=_TIMEOUT,
                login_timeout=_TIMEOUT,
            )
        except asyncssh.HostKeyNotVerifiable as exc:
            raise TaskFailed(
                HOST_KEY_REJECTED,
                f"The {self.where} showed a host key this service's known_hosts does not pin ({exc.reason}).",
            ) from None
        except asyncssh.PermissionDenied:
            raise TaskFailed(
                errors.ACCESS_DENIED, f"The {self.where} refused the credentials of {self.username!r}."
            ) from None
        except (OSError, asyncssh.Error) as exc:
            raise self.secrets.failed(
                errors.UNREACHABLE, f"Could not reach the {self.where}: {exc}"
            ) from None
        server_key = conn.get_server_host_key()
        if server_key is not None:
            self._fingerprint = server_key.get_fingerprint("sha256")
        return conn, await conn.start_sftp_client()

    def _run(self, work: Awaitable[_T]) -> _T:
        async def awaited() -> _T:  # asyncssh's open() is awaitable, not a coroutine
            return await work

        return asyncio.run_coroutine_threadsafe(awaited(), self._loop).result()

    def _failed(self, exc: Exception, what: str) -> TaskFailed:
        if isinstance(exc, asyncssh.SFTPNoSuchFile):
            return TaskFailed(errors.FILE_NOT_FOUND, f"Could not {what}: no such file on the {self.where}.")
        if isinstance(exc, asyncssh.SFTPPermissionDenied):
            return TaskFailed(
                errors.ACCESS_DENIED, f"The {self.where} does not let {self.username!r} {what}."
            )
        if isinstance(exc, OSError | asyncssh.DisconnectError | asyncssh.ConnectionLost):
            return self.secrets.failed(errors.UNREACHABLE, f"Lost the {self.where} trying to {what}: {exc}")
        return self.secrets.failed(errors.FAILED, f"The {self.where} refused to {what}: {exc}")

    def _do(self, what: str, work: Awaitable[_T]) -> _T:
        try:
            return self._run(work)
        except (asyncssh.Error, OSError) as exc:
            raise self._failed(exc, what) from None

    def list(self, prefix: str) -> Iterator[Entry]:
        directory = prefix.rstrip("/") or "."

        async def files() -> list[Entry]:
            found = []
            for item in await self._sftp.readdir(directory):
                if item.attrs.type == asyncssh.FILEXFER_TYPE_REGULAR:
                    found.append(Entry(posixpath.join(directory, item.filename), int(item.attrs.size or 0)))
            return sorted(found, key=lambda entry: entry.key)

        return iter(self._do(f"list the directory {directory!r}", files()))

    def read(self, key: str) -> Iterator[bytes]:
        handle = self._do(f"read {key!r}", self._sftp.open(key, "rb"))
        return self._chunks(handle, key)

    def _chunks(self, handle: Any, key: str) -> Iterator[bytes]:
        try:
            while chunk := self._do(f"read {key!r}", handle.read(CHUNK)):
                yield chunk
        finally:
            with contextlib.suppress(asyncssh.Error, OSError):
                self._run(handle.close())

    def writer(self, key: str, filename: str, size: int | None = None) -> Writer:
        del filename
        return _SftpWriter(self, key)

    def location(self, key: str) -> str:
        port = "" if self.port == 22 else f":{self.port}"
        return f"sftp://{self.host}{port}/{key}"

    def notes(self) -> dict[str, Any]:
        return {"host_key": self._fingerprint} if self._fingerprint else {}

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._sftp.exit()
            self._conn.close()
            self._run(self._conn.wait_closed())
        self._stop_loop()

    def _stop_loop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        self._loop.close()


class _SftpWriter(Writer):
    """Writes under a partial name beside the target, renamed over it on commit."""

    def __init__(self, store: SftpStore, key: str) -> None:
        self._store, self._key = store, key
        head, tail = posixpath.split(key)
        self._partial = posixpath.join(head, f".{tail}.partial-{secrets.token_hex(4)}")
        if head:  # export/sftp's path may not exist yet
            store._do(f"make the directory {head!r}", store._sftp.makedirs(head, exist_ok=True))
        self._handle: Any = store._do(f"write {key!r}", store._sftp.open(self._partial, "wb"))
        self.size = 0

    def write(self, data: bytes) -> None:
        assert self._handle is not None, "write after commit or abort"
        self._store._do(f"write {self._key!r}", self._handle.write(data))
        self.size += len(data)

    def commit(self) -> None:
        assert self._handle is not None, "commit after commit or abort"
        store, handle, self._handle = self._store, self._handle, None
        store._do(f"write {self._key!r}", handle.close())
        store._do(f"write {self._key!r}", store._sftp.posix_rename(self._partial, self._key))

    def abort(self) -> None:
        if self._handle is None:
            return
        store, handle, self._handle = self._store, self._handle, None
        with contextlib.suppress(asyncssh.Error, OSError):
            store._run(handle.close())
            store._run(store._sftp.remove(self._partial))
