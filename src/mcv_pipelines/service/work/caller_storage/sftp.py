"""import/sftp and export/sftp: files on a caller's SSH server, through asyncssh.

The request carries no host key, so a server's key is accepted on first use and its SHA256
fingerprint put in the task's result (``host_key``), unless the operator pins servers with a
known_hosts file (``mcv serve --sftp-known-hosts FILE``). asyncssh reads nothing of the machine here:
no ~/.ssh/config, keys or known_hosts, no agent. A guarded service connects to the address it checked.

asyncssh runs in an event loop of the store's own thread, given one step at a time (``_do``). A step
whose connection was refused, reset, timed out or lost runs again on a new one within ``retry_for``
seconds (a refused login or host key, a missing path or a permission never is), and a file open on
the lost one is opened again: a read goes on from its offset if the file is still the version begun,
a write from the length the server acknowledged. A written file appears under its name on commit.
"""

from __future__ import annotations

import asyncio
import contextlib
import posixpath
import secrets
import socket
import threading
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Mapping
from typing import Any, TypeVar

import asyncssh

from mcv_pipelines.service.engines.url_guard import ForbiddenAddress, UnresolvedHost
from mcv_pipelines.service.files.storage.base import CHUNK
from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.caller_storage import errors, retry
from mcv_pipelines.service.work.caller_storage.contract import CallerStore, Entry, StoreSettings, Writer

__all__ = ["HOST_KEY_REJECTED", "SftpStore"]

_T = TypeVar("_T")
_Check = Callable[[Any], Awaitable[None]]  # a file just opened -> whether it may go on (else raises)
HOST_KEY_REJECTED = "STORAGE_HOST_KEY_REJECTED"
# The connection, not the request, failed: refused, reset, timed out, or lost on the way.
TRANSIENT: tuple[type[BaseException], ...] = (
    ConnectionError,
    TimeoutError,
    asyncssh.ConnectionLost,
    asyncssh.SFTPConnectionLost,
    asyncssh.SFTPNoConnection,
)
_TIMEOUT = 20.0


class SftpStore(CallerStore):
    def __init__(self, payload: Mapping[str, Any], settings: StoreSettings, pool: int = 4) -> None:
        del pool  # one SSH connection carries every file's channel
        self.host, self.port = str(payload["host"]), _port(payload)
        self.username = str(payload["username"])
        self.secrets = errors.Secrets([payload.get("password"), payload.get("private_key")])
        self.where = f"SFTP server {self.host}:{self.port}"
        self._password = str(payload["password"]) if payload.get("password") else None
        self._client_keys = _client_keys(payload.get("private_key"), self.secrets)
        self._settings = settings
        self._server_key: asyncssh.SSHKey | None = None
        self._lock = threading.Lock()
        self._conn: Any = None
        self._sftp: Any = None
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="mcv-sftp", daemon=True)
        self._thread.start()
        try:
            self._do("reach", lambda sftp: asyncio.sleep(0))  # connecting is the whole step
        except BaseException:
            self.close()
            raise

    def _do(self, what: str, step: Callable[[Any], Coroutine[Any, Any, _T]]) -> _T:
        """``step(sftp)`` in the loop, on a new connection each time the last was lost, for up to
        ``retry_for`` seconds; any other failure is mapped onto the storage codes."""
        backoff, used = retry.Backoff(self._settings.retry_for), None
        while True:
            try:
                with self._lock:  # a new connection, unless another thread made one since ``used`` was lost
                    if self._sftp is None or self._sftp is used:
                        self._drop()
                        self._conn, self._sftp = self._run(self._connect(self._socket()))
                    used = self._sftp
                return self._run(step(used))
            except TRANSIENT as exc:
                said = str(exc) or type(exc).__name__
                if not backoff.pause(self.secrets.hide(f"the {self.where} is away ({said}) to {what}")):
                    verb = "reach" if what == "reach" else f"{what} on"
                    raise self.secrets.failed(
                        errors.UNREACHABLE, f"Could not {verb} the {self.where}: {said}."
                    ) from None
            except (asyncssh.Error, OSError) as exc:
                raise self._failed(exc, what) from None

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

    def _run(self, work: Coroutine[Any, Any, _T]) -> _T:
        return asyncio.run_coroutine_threadsafe(work, self._loop).result()

    def _socket(self) -> socket.socket:
        """A connection to the host (to an address the guard checked, on a served instance)."""
        guard = self._settings.guard
        try:
            addresses = [self.host] if guard is None else guard.addresses(self.host, self.port)
        except ForbiddenAddress as exc:
            raise errors.forbidden_address(exc, "the SFTP host") from None
        except UnresolvedHost as exc:
            raise TaskFailed(errors.UNREACHABLE, f"Could not reach the {self.where}: {exc.reason}.") from None
        for address in addresses:  # never empty: the guard raised UnresolvedHost
            try:
                return socket.create_connection((address, self.port), timeout=_TIMEOUT)
            except (ConnectionError, TimeoutError) as exc:
                failure = exc
            except OSError as exc:  # no route, no such address: not a fault that passes
                raise TaskFailed(errors.UNREACHABLE, f"Could not reach the {self.where}: {exc}.") from None
        raise failure

    async def _connect(self, sock: socket.socket) -> tuple[Any, Any]:
        # The first connection takes the server's key on first use (or as known_hosts pins it); a
        # later one must show that same key.
        host_key = self._server_key
        try:
            conn = await asyncssh.connect(
                self.host,
                self.port,
                sock=sock,
                config=None,
                username=self.username,
                password=self._password,
                client_keys=self._client_keys,
                agent_path=None,
                known_hosts=([host_key], [], []) if host_key else self._settings.known_hosts or None,
                connect_timeout=_TIMEOUT,
                login_timeout=_TIMEOUT,
            )
        except asyncssh.HostKeyNotVerifiable as exc:
            why = (
                "another host key than at first"
                if host_key
                else "a host key this service's known_hosts does not pin"
            )
            raise TaskFailed(HOST_KEY_REJECTED, f"The {self.where} showed {why} ({exc.reason}).") from None
        except asyncssh.PermissionDenied:
            raise TaskFailed(
                errors.ACCESS_DENIED, f"The {self.where} refused the credentials of {self.username!r}."
            ) from None
        except TRANSIENT:
            raise
        except (OSError, asyncssh.Error) as exc:
            raise self.secrets.failed(
                errors.UNREACHABLE, f"Could not reach the {self.where}: {exc}"
            ) from None
        self._server_key = conn.get_server_host_key()  # a later one showed the same key
        return conn, await conn.start_sftp_client()

    def _drop(self) -> None:
        conn, self._conn, self._sftp = self._conn, None, None

        async def closed() -> None:  # in the loop: asyncssh's objects are not safe from another thread
            conn.close()
            await asyncio.wait_for(conn.wait_closed(), 5)

        if conn is not None:
            with contextlib.suppress(Exception):
                self._run(closed())

    def list(self, prefix: str) -> Iterator[Entry]:
        directory = prefix.rstrip("/") or "."

        async def files(sftp: Any) -> list[Entry]:
            items = sorted(await sftp.readdir(directory), key=lambda item: item.filename)
            regular = [item for item in items if item.attrs.type == asyncssh.FILEXFER_TYPE_REGULAR]
            return [Entry(posixpath.join(directory, f.filename), int(f.attrs.size or 0)) for f in regular]

        return iter(self._do(f"list the directory {directory!r}", files))

    def read(self, key: str) -> Iterator[bytes]:
        """The file's chunks; after a lost connection, on from the offset reached if the file is still
        the one begun (the same size and modification time): bytes of two versions are never joined."""
        versions: list[tuple[int | None, int | None]] = []

        async def same_version(opened: Any) -> None:
            attrs = await opened.stat()
            versions.append((attrs.size, attrs.mtime))
            if versions[-1] != versions[0]:
                raise TaskFailed(
                    errors.FAILED,
                    f"{key!r} changed on the {self.where} while it was read (size and modification "
                    f"time {versions[0]} before the connection was lost, {versions[-1]} after): the read "
                    "was not resumed, as its bytes would join two versions of the file.",
                )

        return _File(self, key, "rb", f"read {key!r}", same_version).chunks()  # a missing file fails here

    def writer(self, key: str, filename: str, size: int | None = None) -> Writer:
        return _SftpWriter(self, key)

    def location(self, key: str) -> str:
        port = "" if self.port == 22 else f":{self.port}"
        return f"sftp://{self.host}{port}/{key}"

    def notes(self) -> dict[str, Any]:
        return {"host_key": self._server_key.get_fingerprint("sha256")} if self._server_key else {}

    def close(self) -> None:
        self._drop()  # the transfers have ended: no other thread holds the connection
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        self._loop.close()


class _File:
    """A file open on the connection of the moment, opened again on a new one; ``check(file)``, run
    at every opening, says whether it may go on."""

    def __init__(self, store: SftpStore, path: str, mode: str, what: str, check: _Check) -> None:
        self._store, self._path, self._mode, self._what, self._check = store, path, mode, what, check
        self._sftp: Any = None
        self._file: Any = None
        store._do(what, self._open_on)

    async def _open_on(self, sftp: Any) -> Any:
        if sftp is not self._sftp:
            self._file, self._sftp = await sftp.open(self._path, self._mode), sftp
            await self._check(self._file)
            self._mode = self._mode.replace("w", "r+")  # opened again: keep what was written
        return self._file

    def call(self, method: str, *args: Any) -> Any:
        async def step(sftp: Any) -> Any:
            return await getattr(await self._open_on(sftp), method)(*args)

        return self._store._do(self._what, step)

    def chunks(self) -> Iterator[bytes]:
        offset = 0
        try:
            while chunk := self.call("read", CHUNK, offset):
                offset += len(chunk)
                yield chunk
        finally:
            self.close()

    def close(self) -> None:
        file, self._file = self._file, None
        if file is not None:
            with contextlib.suppress(asyncssh.Error, OSError):
                self._store._run(file.close())


class _SftpWriter(_File, Writer):
    """Writes under a partial name beside the target, renamed over it on commit. After a lost
    connection the partial file is opened again and written on from ``size`` (what the server
    acknowledged), once it is seen to hold that much."""

    def __init__(self, store: SftpStore, key: str) -> None:
        head, tail = posixpath.split(key)
        self._key, self._partial = key, posixpath.join(head, f".{tail}.partial-{secrets.token_hex(4)}")
        if head:  # export/sftp's path may not exist yet
            store._do(f"make the directory {head!r}", lambda sftp: sftp.makedirs(head, exist_ok=True))
        super().__init__(store, self._partial, "wb", f"write {key!r}", self._holds)

    async def _holds(self, opened: Any) -> None:
        held = (await opened.stat()).size or 0
        if held < self.size:
            raise TaskFailed(
                errors.UNREACHABLE,
                f"Lost the {self._store.where} writing {self._key!r}, and its partial file holds "
                f"{held} of the {self.size} bytes written before.",
            )

    def write(self, data: bytes) -> None:
        assert self._file is not None, "write after commit or abort"
        self.call("write", data, self.size)
        self.size += len(data)

    def commit(self) -> None:
        assert self._file is not None, "commit after commit or abort"
        self.call("close")
        tries = 0

        async def rename(sftp: Any) -> None:
            nonlocal tries
            tries += 1
            try:
                await sftp.posix_rename(self._partial, self._key)
            except asyncssh.SFTPNoSuchFile:
                # A rename whose answer was lost with the connection: done if the file is in place.
                if tries == 1 or await sftp.exists(self._partial):
                    raise
                if ((await sftp.stat(self._key)).size or 0) != self.size:
                    raise

        self._store._do(self._what, rename)
        self._file = None  # committed: abort leaves it alone

    def abort(self) -> None:
        sftp = self._store._sftp
        if self._file is not None and sftp is not None:
            self.close()
            with contextlib.suppress(asyncssh.Error, OSError):
                self._store._run(sftp.remove(self._partial))


def _port(payload: Mapping[str, Any]) -> int:
    value = payload.get("port") or 22
    text = str(value).strip()
    if isinstance(value, bool) or not text.isdigit() or not 0 < int(text) < 65536:
        raise TaskFailed("INVALID_TASK", f"The port {value!r} is not a port number (1-65535).")
    return int(text)


def _client_keys(key: object, secrets: errors.Secrets) -> list[asyncssh.SSHKey] | None:
    try:
        return [asyncssh.import_private_key(str(key))] if key else None
    except (asyncssh.KeyImportError, ValueError) as exc:
        raise secrets.failed(errors.ACCESS_DENIED, f"The private_key is not a usable key: {exc}") from None
