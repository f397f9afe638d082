"""asyncssh's SFTP server for the tests where sshd cannot run (not root): one user, password and
public-key logins, on a loopback port, in a thread of its own with its own event loop.

Its SFTP sessions are rooted at the home (asyncssh's virtual chroot): a client starts there, so a
task's relative paths are relative to the login directory as with sshd, and nothing outside the home
is reachable. Imported by name (tests/ is on sys.path); sshd.py's ``SftpServer`` says what it offers.
"""

from __future__ import annotations

import asyncio
import shutil
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

import asyncssh

from sshd import SftpServer

__all__ = ["AsyncsshSftp"]

_T = TypeVar("_T")


class AsyncsshSftp(SftpServer):
    """The same user, keys and home as sshd's, served by asyncssh in this process."""

    def __init__(self) -> None:
        super().__init__()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="test-sftp-server", daemon=True)
        self._thread.start()
        self._acceptor: asyncssh.SSHAcceptor | None = None

    def _run(self, work: Coroutine[Any, Any, _T]) -> _T:
        return asyncio.run_coroutine_threadsafe(work, self._loop).result(10)

    def start(self) -> AsyncsshSftp:
        """Listen (again, after ``stop_listening``) on the same port."""
        self.home.mkdir(exist_ok=True)
        server = self
        authorized = asyncssh.import_authorized_keys(
            b"".join(key.export_public_key() for key in [self.client_key, *self.other_keys.values()]).decode()
        )

        class Logins(asyncssh.SSHServer):
            def begin_auth(self, username: str) -> bool:
                return True  # every user must log in (an unknown one never can)

            def password_auth_supported(self) -> bool:
                return True

            def validate_password(self, username: str, password: str) -> bool:
                return username == server.user and password == server.password

            def public_key_auth_supported(self) -> bool:
                return True

            def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
                known = authorized.validate(key, "127.0.0.1", "127.0.0.1")
                return username == server.user and known is not None

        def sftp(chan: asyncssh.SSHServerChannel[bytes]) -> asyncssh.SFTPServer:
            return asyncssh.SFTPServer(chan, chroot=str(server.home).encode())

        async def listen() -> asyncssh.SSHAcceptor:
            return await asyncssh.create_server(
                Logins,
                "127.0.0.1",
                self.port,
                server_host_keys=[self.host_key],
                sftp_factory=sftp,
                allow_scp=False,
                reuse_address=True,
            )

        self._acceptor = self._run(listen())
        return self

    def stop_listening(self) -> None:
        """Stop accepting and drop every connection (as a server going down would)."""
        if self._acceptor is not None:
            acceptor, self._acceptor = self._acceptor, None
            acceptor.close()
            self._run(acceptor.wait_closed())

    def stop(self) -> None:
        self.stop_listening()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        self._loop.close()
        shutil.rmtree(self.root, ignore_errors=True)
