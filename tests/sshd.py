"""A real SFTP server for the tests: Debian's OpenSSH sshd, started as root in the foreground with a
config of its own on a loopback port, for a system user made for it (password and key logins).

sshd must run as root (it changes to the user it logs in); where not root, the tests get asyncssh's
server instead (asyncssh_sftp.py), with the same attributes (``SftpServer``): tests/conftest.py's
``sshd`` fixture picks one (``pick_sftp_server``).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import asyncssh

from engine_needs import unavailable

__all__ = ["SftpServer", "Sshd", "need_sshd", "sshd_usable"]

SSHD = "/usr/sbin/sshd"


def sshd_usable() -> bool:
    """sshd is installed and this run may start it (as root)."""
    return os.access(SSHD, os.X_OK) and os.geteuid() == 0


def need_sshd() -> None:
    if not os.access(SSHD, os.X_OK):
        unavailable("needs OpenSSH's sshd (apt-get install openssh-server, or run .ci/run)")
    if os.geteuid() != 0:
        unavailable("needs root to start sshd for a user of its own (CI runs as root)")


class SftpServer:
    """An SFTP server on 127.0.0.1:``port`` for ``user`` (``password``, or ``client_key`` or one of
    ``other_keys``), its login directory ``home``; what the tests use of either server."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="mcv-sftp-"))
        self.root.chmod(0o755)  # the user reads its authorized keys and home through it
        self.user = "mcvsftp" + secrets.token_hex(3)
        self.password = "pw-" + secrets.token_urlsafe(16)
        self.home = self.root / "home"
        self.host_key = asyncssh.generate_private_key("ssh-ed25519")
        self.client_key = asyncssh.generate_private_key("ssh-ed25519")
        # More keys the user may log in with, of the other kinds a caller sends.
        self.other_keys = {
            "ecdsa": asyncssh.generate_private_key("ecdsa-sha2-nistp256"),
            "rsa": asyncssh.generate_private_key("ssh-rsa", key_size=2048),
        }
        self.process: subprocess.Popen[bytes] | None = None
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = int(probe.getsockname()[1])

    @property
    def fingerprint(self) -> str:
        return str(self.host_key.get_fingerprint("sha256"))

    def start(self) -> SftpServer:
        raise NotImplementedError

    def give_home(self) -> None:
        """Make everything in the home the user's (what a test wrote there as root)."""

    def stop(self) -> None:
        raise NotImplementedError


class Sshd(SftpServer):
    """OpenSSH's sshd, as root, for a system user of its own whose home is ``home``."""

    def start(self) -> Sshd:
        subprocess.run(["useradd", "-M", "-d", str(self.home), "-s", "/bin/sh", self.user], check=True)
        subprocess.run(["chpasswd"], input=f"{self.user}:{self.password}".encode(), check=True)
        self.home.mkdir()
        shutil.chown(self.home, self.user, self.user)
        self.host_key.write_private_key(str(self.root / "host_key"))
        (self.root / "host_key").chmod(0o600)
        keys = [self.client_key, *self.other_keys.values()]
        (self.root / "authorized_keys").write_bytes(b"".join(key.export_public_key() for key in keys))
        (self.root / "authorized_keys").chmod(0o644)
        config = self.root / "sshd_config"
        config.write_text(
            f"Port {self.port}\nListenAddress 127.0.0.1\nHostKey {self.root / 'host_key'}\n"
            f"PidFile {self.root / 'sshd.pid'}\nAuthorizedKeysFile {self.root / 'authorized_keys'}\n"
            "StrictModes no\nUsePAM no\nPasswordAuthentication yes\nPubkeyAuthentication yes\n"
            f"KbdInteractiveAuthentication no\nSubsystem sftp internal-sftp\nAllowUsers {self.user}\n"
        )
        Path("/run/sshd").mkdir(exist_ok=True)
        with (self.root / "sshd.log").open("wb") as log:
            self.process = subprocess.Popen([SSHD, "-D", "-e", "-f", str(config)], stdout=log, stderr=log)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"sshd exited: {(self.root / 'sshd.log').read_text()}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), 0.5):
                return self
            time.sleep(0.05)
        raise RuntimeError("sshd did not listen within 10 s")

    def give_home(self) -> None:
        """Make everything in the home the user's (what a test wrote there as root)."""
        subprocess.run(["chown", "-R", f"{self.user}:{self.user}", str(self.home)], check=True)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(5)
        self.process = None
        subprocess.run(["userdel", self.user], check=False, capture_output=True)
        shutil.rmtree(self.root, ignore_errors=True)
