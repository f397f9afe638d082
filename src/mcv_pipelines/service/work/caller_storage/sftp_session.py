"""One task's SSH connection to a caller's SFTP server, made again when it is lost.

asyncssh runs in an event loop of the session's own thread; the task's threads hand it work with
``run``. Transient faults (the connection refused, reset or timed out, or lost mid-transfer) are
ridden through for ``retry_for`` seconds with growing waits, as the other kinds' calls are: ``retried``
runs a step again on a fresh connection (``sftp()`` gives the step the connection of the moment, and
its generation, so a file open on a lost connection is opened again). A refused login, an unknown or
changed host key, a missing path or a permission error are never retried. A connection made again
must show the host key the first one showed.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

import asyncssh

from mcv_pipelines.service.engines.url_guard import ForbiddenAddress, UnresolvedHost
from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.caller_storage import errors, retry
from mcv_pipelines.service.work.caller_storage.contract import StoreSettings

__all__ = ["HOST_KEY_REJECTED", "TRANSIENT", "SftpSession", "port_of"]


_T = TypeVar("_T")
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


class SftpSession:
    """The SFTP client of one task (``sftp()``), connected again whenever a step finds it lost."""

    def __init__(
        self, payload: Mapping[str, Any], settings: StoreSettings, where: str, secrets: errors.Secrets
    ) -> None:
        self.host, self.port, self.where = str(payload["host"]), port_of(payload), where
        self.username, self.secrets = str(payload["username"]), secrets
        self._password = str(payload["password"]) if payload.get("password") else None
        self._settings = settings
        self._client_keys = _client_keys(payload.get("private_key"), secrets)
        self._server_key: asyncssh.SSHKey | None = None
        self._lock = threading.Lock()
        self._generation = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="mcv-sftp", daemon=True)
        self._thread.start()
        self._conn: Any = None
        self._sftp: Any = None
        try:
            self.retried("reach", lambda _sftp: None)
        except BaseException:
            self.close()
            raise

    @property
    def fingerprint(self) -> str:
        return "" if self._server_key is None else str(self._server_key.get_fingerprint("sha256"))

    def run(self, work: Awaitable[_T]) -> _T:
        async def awaited() -> _T:  # asyncssh's open() is awaitable, not a coroutine
            return await work

        return asyncio.run_coroutine_threadsafe(awaited(), self._loop).result()

    def sftp(self) -> tuple[Any, int]:
        """The SFTP client of the moment and its generation (which a reconnection moves on)."""
        with self._lock:
            return self._sftp, self._generation

    def retried(self, what: str, step: Callable[[Any], _T]) -> _T:
        """``step(sftp)``, on a new connection each time the last was lost, for up to ``retry_for``
        seconds; TRANSIENT faults out of it are retried, anything else is the step's to raise."""
        backoff, lost = retry.Backoff(self._settings.retry_for), None
        while True:
            try:
                sftp, generation = self.sftp()
                if sftp is None or lost == generation:
                    self._reconnect(generation)
                    sftp, generation = self.sftp()
                return step(sftp)
            except TRANSIENT as exc:
                lost = generation
                if not backoff.pause(self.secrets.hide(f"the {self.where} is away ({_said(exc)}) to {what}")):
                    verb = "reach" if what == "reach" else f"{what} on"
                    raise self.secrets.failed(
                        errors.UNREACHABLE, f"Could not {verb} the {self.where}: {_said(exc)}."
                    ) from None

    def _reconnect(self, lost: int) -> None:
        """A new connection, unless another thread already made one since generation ``lost``."""
        with self._lock:
            if self._sftp is not None and self._generation != lost:
                return
            self._drop()
            self._conn, self._sftp = self.run(self._connect(self._socket()))
            self._generation += 1

    def _socket(self) -> socket.socket:
        """A connection to the host (to an address the guard checked, on a served instance)."""
        addresses = [self.host]
        guard = self._settings.guard
        if guard is not None:
            try:
                addresses = guard.addresses(self.host, self.port)
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
            except (ConnectionError, TimeoutError) as exc:
                failure = exc
            except OSError as exc:  # no route, no such address: not a fault that passes
                raise TaskFailed(errors.UNREACHABLE, f"Could not reach the {self.where}: {exc}.") from None
        assert failure is not None
        raise failure

    async def _connect(self, sock: socket.socket) -> tuple[Any, Any]:
        sock.settimeout(None)
        # The first connection takes the server's key on first use (or as known_hosts pins it); a
        # later one must show that same key.
        pinned: tuple[list[asyncssh.SSHKey], list[asyncssh.SSHKey], list[asyncssh.SSHKey]] | None
        pinned = ([self._server_key], [], []) if self._server_key is not None else None
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
                known_hosts=pinned or self._settings.known_hosts or None,
                connect_timeout=_TIMEOUT,
                login_timeout=_TIMEOUT,
            )
        except asyncssh.HostKeyNotVerifiable as exc:
            why = (
                "another host key than at first"
                if pinned
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
        if self._server_key is None:
            self._server_key = conn.get_server_host_key()
        return conn, await conn.start_sftp_client()

    def _drop(self) -> None:
        conn, self._conn, self._sftp = self._conn, None, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()
                self.run(asyncio.wait_for(conn.wait_closed(), 5))

    def close(self) -> None:
        with self._lock:
            if self._sftp is not None:
                with contextlib.suppress(Exception):
                    self._sftp.exit()
            self._drop()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        self._loop.close()


def _said(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


def port_of(payload: Mapping[str, Any]) -> int:
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
